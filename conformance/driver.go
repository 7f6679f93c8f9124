package conformance

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// wakeDeadline bounds how long the runner waits for a blocked Pop to park,
// or to return once woken. It is a deadline for a failure message, never a
// means of ordering.
var wakeDeadline = 10 * time.Second

// driver plays one scenario on one target. Two model runs go along:
// expect, the model alone, whose output is the scenario's expected text;
// and shadow, the model following the target (it pops what the target
// popped, among the pods the model allows), which the target is compared
// with after every operation.
type driver struct {
	name      string
	tb        testing.TB
	newTarget NewTarget
	sc        schedqtest.Scenario
	start     time.Time
	cfg       spec.Config

	expect *schedqtest.ModelRun
	pair   *schedqtest.Stepper
	shadow *schedqtest.ModelRun // pair's
	target Target
	info   TargetInfo
	// closed: a step closed the target, so the run's cleanup must not
	// close it again (upstream's second Close panics: finding F05, which
	// the close scenarios report; a random run that drew Close is not
	// about it).
	closed bool

	// noExpect skips the expectation run (the differential runs, whose
	// failure report computes it afterwards).
	noExpect bool
	// ignore are the observations left out of the comparison
	// (Options.Ignore, for the random runs).
	ignore map[Observation]bool
	// metrics counts the shadow's metrics where the target reports its
	// own (Observes.Metrics).
	metrics  *metricsModel
	reporter MetricsReporter

	na      string // why the scenario does not apply to the target
	failure string // the first failure, with the scenario's operations
	failed  bool
	invalid error // a mistake in the scenario itself
	// last is the last operation's step on the target and its shadow
	// (what the random runs' generator reads of a Pop).
	last schedqtest.Step
}

func newDriver(tb testing.TB, name string, newTarget NewTarget) *driver {
	return &driver{name: name, tb: tb, newTarget: newTarget, sc: schedqtest.Scenario{Name: name},
		start: schedqtest.Start}
}

// directive handles one directive of the file and returns the expected
// output: "" for header directives, the model's result and state for an
// operation.
func (d *driver) directive(cmd string, args []datadriven.CmdArg, input string) (string, error) {
	if schedqtest.IsHeader(cmd) {
		return "", d.sc.AddDirective(cmd, args, input)
	}
	if err := d.sc.AddDirective(cmd, args, input); err != nil {
		return "", err
	}
	return d.step(d.sc.Ops[len(d.sc.Ops)-1])
}

// begin starts the model runs and the target at the first operation.
func (d *driver) begin() error {
	d.cfg = d.sc.Config.Build()
	var err error
	if d.expect, err = schedqtest.NewModelRun(d.cfg, d.start); err != nil {
		return err
	}
	if d.target, d.na = constructTarget(d.tb, d.newTarget, d.cfg, d.start); d.target == nil {
		return nil // the target refuses the scenario's profile: n/a (profile.go)
	}
	d.info = d.target.Info()
	o := d.info.Observes
	d.pair, err = schedqtest.NewStepper(d.cfg, d.start, d.target, d.target.Advance, schedqtest.StepOptions{
		Blocking: d.info.Blocking, SilentNoOps: d.info.SilentNoOps, Observe: d.observed,
		Invariants: o.MoveRequestCycle && o.PodInfo && o.Closed && observesProfile(o, d.cfg) && !d.ignoresState(),
		Wait:       wakeDeadline,
	})
	if err != nil {
		return err
	}
	d.pair.Note, d.shadow = d.observes, d.pair.Shadow
	for _, r := range d.sc.Requires {
		switch {
		case r == schedqtest.RequirePodInfo && !o.PodInfo:
			d.na = "the target does not observe queued-pod fields"
		case r == schedqtest.RequireMoveRequestCycle && !o.MoveRequestCycle:
			d.na = "the target does not observe moveRequestCycle"
		case r == schedqtest.RequireClosed && !o.Closed:
			d.na = "the target does not observe Closed"
		case r == schedqtest.RequireBlocking && !d.info.Blocking:
			d.na = "the target's Pop does not block"
		}
	}
	if mistake := AdapterMistake(o, d.target.Snapshot()); mistake != "" {
		d.fail(0, nil, "%s", mistake)
	}
	// The model counts the metrics of the scenario's profile: R14, or
	// R14h in the hints profile (metricsModel). The podgroups profile
	// leaves the metrics of entities out of its contract (spec.
	// PodGroupQueue), so none is compared there.
	if o.Metrics && !d.ignore[IgnoreMetrics] && d.cfg.Profile != spec.ProfilePodGroups {
		r, ok := d.target.(MetricsReporter)
		if !ok {
			d.fail(0, nil, "%s", mistakeNoMetrics)
		}
		d.reporter, d.metrics = r, &metricsModel{cfg: d.cfg}
	}
	return nil
}

// step performs one operation on the expectation, and on the target and
// its shadow while the target has not failed, and returns the expected
// output.
func (d *driver) step(op schedqtest.Op) (string, error) {
	if op.Kind == schedqtest.KindClose {
		d.closed = true
	}
	if d.expect == nil {
		if err := d.begin(); err != nil {
			return "", err
		}
	}
	if op.Kind == schedqtest.KindPop && op.Blocked && !d.info.Blocking && d.na == "" {
		d.na = "the target's Pop does not block"
	}
	if d.na == "" {
		d.na = opNotApplicable(d.target, op)
	}
	var out string
	if !d.noExpect {
		_, line, err := d.expect.Apply(op)
		if err != nil {
			d.invalid = err
			return "", err
		}
		out = line + "\n" + d.expect.Render()
	}
	if d.na == "" && !d.failed {
		d.drive(len(d.sc.Ops), op)
	}
	return out, nil
}

// fail records the first failure of the target.
func (d *driver) fail(stepNo int, op *schedqtest.Op, format string, args ...any) {
	if d.failed {
		return
	}
	d.failed = true
	var b strings.Builder
	if op != nil {
		fmt.Fprintf(&b, "%s, step %d: %s\n", d.name, stepNo, op)
	} else {
		fmt.Fprintf(&b, "%s, before the first operation\n", d.name)
	}
	fmt.Fprintf(&b, format, args...)
	if !strings.HasSuffix(b.String(), "\n") {
		b.WriteString("\n")
	}
	d.failure = b.String()
}

// failureReport is the failure message followed by the operations so far
// as a scenario file with the model's expectations: saved under a
// directory of Options.Dirs it replays the failure.
func (d *driver) failureReport() string {
	if !d.failed {
		return ""
	}
	sc := d.sc
	sc.KnownDifferences = nil
	sc.Comment = []string{"Reproduces, on " + d.info.Name + ": " + firstLine(strings.SplitN(d.failure, "\n", 2)[1])}
	text, err := schedqtest.FormatScenario(sc)
	if err != nil {
		text = "# (the model rejects these operations: " + err.Error() + ")\n" + schedqtest.FormatOps(sc.Ops)
	}
	return fmt.Sprintf("%s%s%s.txt) ---\n%s%s\n", d.failure, scenarioMarker, path.Base(d.name), text, scenarioEnd)
}

// The lines around a scenario in a failure message.
const (
	scenarioMarker = "--- scenario (save as testdata/scenarios/regressions/"
	scenarioEnd    = "--- end of scenario ---"
)

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// ignoresState reports whether a part of the state is left out of the
// comparison: the target may then differ from the model there on purpose,
// and the invariants, stated over that state, do not apply to it.
func (d *driver) ignoresState() bool {
	for o := range d.ignore {
		if o != IgnoreMetrics {
			return true
		}
	}
	return false
}

// observed reduces a snapshot to what is compared: what the target
// observes, less what is ignored.
func (d *driver) observed(s spec.Snapshot) spec.Snapshot {
	s = Observed(d.info.Observes, s)
	if len(d.ignore) == 0 {
		return s
	}
	if d.ignore[IgnoreMoveRequestCycle] {
		s.MoveRequestCycle = 0
	}
	if d.ignore[IgnoreClosed] {
		s.Closed = false
	}
	for _, l := range [][]spec.QueuedPodInfo{s.ActiveQ, s.BackoffQ, s.UnschedulablePods, s.InFlight} {
		for i := range l {
			d.maskInfo(&l[i])
		}
	}
	return s
}

// maskInfo clears the ignored fields of one pod.
func (d *driver) maskInfo(p *spec.QueuedPodInfo) {
	if d.ignore[IgnoreTimestamps] {
		p.Timestamp, p.InitialAttemptTimestamp = time.Time{}, time.Time{}
	}
	if d.ignore[IgnoreAttempts] {
		p.Attempts = 0
	}
	if d.ignore[IgnorePlugins] {
		p.UnschedulablePlugins = nil
	}
}

// drive performs op on the target and its shadow through the stepper,
// which compares them, and adds what only conformance knows of: adapter
// mistakes and the metrics (R14, R14h).
func (d *driver) drive(stepNo int, op schedqtest.Op) {
	upd := updateOf(d.pair.Shadow, op)
	st, err := d.pair.Step(op)
	if err != nil {
		d.invalid = err
		return
	}
	d.last = st
	if st.Chosen != "" {
		// Pin the target's choice among equals, so that the scenario
		// printed on failure replays it.
		d.sc.Ops[stepNo-1].Choose = st.Chosen
	}
	if errors.Is(st.Target.Err(), schedqtest.ErrPopHung) || slices.ContainsFunc(st.Problems, func(p schedqtest.Problem) bool { return p.Check == "panic" }) {
		d.fail(stepNo, &op, "%s", st.String()) // the step did not finish: nothing more to compare
		return
	}
	if mistake := AdapterMistake(d.info.Observes, st.TargetAfter); mistake != "" {
		d.fail(stepNo, &op, "%s", mistake)
		return
	}
	if d.metrics != nil {
		// Counted before any woken Pop: the pods the operation moved
		// into a place count even if a Pop took them at once. A woken
		// Pop may take its pod from backoffQ (R2h).
		d.metrics.step(op, upd, &st.ShadowBefore, &st.ShadowMid)
		if st.Woken > 0 {
			d.metrics.popsFromBackoffQ(&st.ShadowMid, &st.ShadowAfter)
		}
		if diff := diffMetrics(d.metrics.expected(&st.ShadowAfter), d.reporter.Metrics()); diff != "" {
			st.Problems = append(st.Problems, schedqtest.Problem{Check: "metrics",
				Text: fmt.Sprintf("%s: the metrics after %s differ\n%s", d.cfg.Profile.Rule(spec.R14Metrics), d.cfg.Rule(op.Rule()), strings.TrimSuffix(diff, "\n"))})
		}
	}
	if st.Failed() {
		d.fail(stepNo, &op, "%s", st.String())
	}
}

func (d *driver) observes() string {
	o := d.info.Observes
	parts := []string{"places", "schedulingCycle"}
	if o.PodInfo {
		parts = append(parts, "pod fields")
	}
	if o.MoveRequestCycle {
		parts = append(parts, "moveRequestCycle")
	}
	if o.Closed {
		parts = append(parts, "closed")
	}
	if o.HintCounts {
		parts = append(parts, "hint counts")
	}
	if o.InFlightEvents {
		parts = append(parts, "in-flight list")
	}
	if o.Metrics {
		parts = append(parts, "metrics")
	}
	if len(d.ignore) > 0 {
		var ig []string
		for k := range d.ignore {
			ig = append(ig, string(k))
		}
		slices.Sort(ig)
		parts = append(parts, "ignoring "+strings.Join(ig, ", "))
	}
	return strings.Join(parts, ", ")
}
