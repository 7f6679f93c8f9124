package conformance

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/schedq/schedq/internal/parked"
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
	shadow *schedqtest.ModelRun
	target Target
	prof   Profile
	exec   *schedqtest.Executor

	blocked []*blockedPop
	results chan popResult

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
}

type popResult struct {
	info  *spec.QueuedPodInfo
	cycle int64
	err   error
}

type blockedPop struct{ done chan struct{} }

func newDriver(tb testing.TB, name string, newTarget NewTarget) *driver {
	return &driver{name: name, tb: tb, newTarget: newTarget, sc: schedqtest.Scenario{Name: name},
		start: schedqtest.Start, results: make(chan popResult, 64)}
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
	if d.shadow, err = schedqtest.NewModelRun(d.cfg, d.start); err != nil {
		return err
	}
	if d.target, d.na = constructTarget(d.tb, d.newTarget, d.cfg, d.start); d.target == nil {
		return nil // the target refuses the scenario's profile: n/a (profile.go)
	}
	d.prof = d.target.Profile()
	d.exec = schedqtest.NewExecutor(d.target, func(dt time.Duration) error { d.target.Advance(dt); return nil })
	o := d.prof.Observes
	for _, r := range d.sc.Requires {
		switch {
		case r == schedqtest.RequirePodInfo && !o.PodInfo:
			d.na = "the target does not observe queued-pod fields"
		case r == schedqtest.RequireMoveRequestCycle && !o.MoveRequestCycle:
			d.na = "the target does not observe moveRequestCycle"
		case r == schedqtest.RequireClosed && !o.Closed:
			d.na = "the target does not observe Closed"
		case r == schedqtest.RequireBlocking && !d.prof.Blocking:
			d.na = "the target's Pop does not block"
		}
	}
	if mistake := AdapterMistake(o, d.target.Snapshot()); mistake != "" {
		d.fail(0, nil, "%s", mistake)
	}
	// The model counts the metrics of the scenario's profile: R14, or
	// R14h in the hints profile (metricsModel).
	if o.Metrics && !d.ignore[IgnoreMetrics] {
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
	if d.expect == nil {
		if err := d.begin(); err != nil {
			return "", err
		}
	}
	if op.Kind == schedqtest.KindPop && op.Blocked && !d.prof.Blocking && d.na == "" {
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
	sc.Comment = []string{"Reproduces, on " + d.prof.Name + ": " + firstLine(strings.SplitN(d.failure, "\n", 2)[1])}
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

func (d *driver) checksInvariants() bool {
	o := d.prof.Observes
	return o.MoveRequestCycle && o.PodInfo && o.Closed && observesProfile(o, d.cfg) && !d.ignoresState()
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
	s = Observed(d.prof.Observes, s)
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

// drive performs op on the target and the shadow and compares them. A
// panic of the target is a failure of the step.
func (d *driver) drive(stepNo int, op schedqtest.Op) {
	defer func() {
		if r := recover(); r != nil {
			d.fail(stepNo, &op, "%s: the target panicked: %v", d.cfg.Profile.Rule(op.Rule()), r)
		}
	}()
	before := d.target.Snapshot()
	shadowBefore := d.shadow.Model.Snapshot()
	var problems []string
	problem := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	var record spec.StepRecord
	switch {
	case op.Kind == schedqtest.KindPop && op.Blocked:
		// Nothing may change until an operation wakes the Pop: as a
		// failed Pop, the step invariants check exactly that.
		record = spec.StepRecord{Rule: spec.R2Pop, Err: spec.ErrWouldBlock}
		if err := d.startBlockedPop(); err != nil {
			problem("pop blocked: %v", err)
		}
		if _, _, err := d.shadow.ApplyOnly(op); err != nil {
			d.invalid = err
			return
		}
	case op.Kind == schedqtest.KindPop:
		if len(d.shadow.Model.PopCandidates()) == 0 && !d.shadow.Model.Closed() && d.prof.Blocking {
			d.invalid = fmt.Errorf("%w: pop on an empty activeQ would block this target; write \"pop blocked\"", schedqtest.ErrScenario)
			return
		}
		cands := d.shadow.Model.PopCandidates()
		to := d.exec.ApplyPop(d.pop)
		if errors.Is(to.Err(), errPopHung) {
			d.fail(stepNo, &op, "%s: the target's Pop blocked, but the model pops one of %v\n%v", d.cfg.Profile.Rule(op.Rule()), cands, to.Err())
			return
		}
		record = to.Step
		if to.Popped != nil && len(cands) > 1 && to.Popped.Key() != cands[0] && slices.Contains(cands, to.Popped.Key()) {
			// Pin the target's choice among equals, so that the scenario
			// printed on failure replays it.
			d.sc.Ops[stepNo-1].Choose = schedqtest.NameOf(to.Popped.Key())
		}
		d.comparePop(to.Popped, to.Cycle, to.Err(), "", problem)
	default:
		to, err := d.exec.Apply(op)
		if err != nil {
			d.invalid = err
			return
		}
		mo, _, err := d.shadow.ApplyOnly(op)
		if err != nil {
			d.invalid = err
			return
		}
		record = to.Step
		if !schedqtest.SameError(mo.Err(), to.Err()) && !(to.Err() == nil && d.prof.SilentNoOps) {
			problem("%s returned %s\n  model:  %s\n  target: %s", d.cfg.Profile.Rule(op.Rule()), "a different outcome", mo, to)
		}
	}
	var shadowAfter spec.Snapshot
	if d.metrics != nil {
		// Counted before any woken Pop: the pods the operation moved
		// into a place count even if a Pop took them at once.
		shadowAfter = d.shadow.Model.Snapshot()
		d.metrics.step(op, &shadowBefore, &shadowAfter)
	}
	woken := d.wake(op, problem)
	after := d.target.Snapshot()
	if mistake := AdapterMistake(d.prof.Observes, after); mistake != "" {
		d.fail(stepNo, &op, "%s", mistake)
		return
	}
	// A step that woke blocked Pops is two steps at once (the operation,
	// then the Pops); the invariants are stated per step, so only the
	// comparison with the shadow, which took both, applies to it.
	if d.checksInvariants() && woken == 0 {
		if err := spec.CheckStep(d.cfg, &before, &after, record); err != nil {
			var inv *spec.InvariantError
			id := "invariant"
			if errors.As(err, &inv) {
				id = inv.Invariant
			}
			problem("%s broken by %s: %v", id, d.cfg.Profile.Rule(op.Rule()), err)
		}
	}
	shadowNow := d.shadow.Model.Snapshot()
	if d.metrics != nil && woken > 0 {
		// A woken Pop may take its pod from backoffQ (R2h).
		d.metrics.popsFromBackoffQ(&shadowAfter, &shadowNow)
	}
	if diff := diffStates(d.observed(shadowNow), d.observed(after), d.start, d.cfg); diff != "" {
		problem("%s left a different state (observed: %s)\n%s", d.cfg.Profile.Rule(op.Rule()), d.observes(), strings.TrimSuffix(diff, "\n"))
	}
	if d.reporter != nil {
		if diff := diffMetrics(d.metrics.expected(&shadowNow), d.reporter.Metrics()); diff != "" {
			rule := spec.R14Metrics
			if d.cfg.Profile == spec.ProfileHints {
				rule = spec.R14hMetrics
			}
			problem("%s: the metrics after %s differ\n%s", rule, d.cfg.Profile.Rule(op.Rule()), strings.TrimSuffix(diff, "\n"))
		}
	}
	if len(problems) > 0 {
		d.fail(stepNo, &op, "%s", strings.Join(problems, "\n"))
	}
}

func (d *driver) observes() string {
	o := d.prof.Observes
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

// comparePop checks a Pop of the target against the shadow, which follows
// it: the pod must be one the model allows (I5), then cycle and fields must
// agree. woke prefixes the messages of a woken Pop.
func (d *driver) comparePop(got *spec.QueuedPodInfo, cycle int64, err error, woke string, problem func(string, ...any)) {
	m := d.shadow.Model
	if err != nil || got == nil {
		var mo schedqtest.Outcome
		if woke != "" {
			mo, _ = d.shadow.WakeOne("")
		} else {
			mo = d.shadow.Exec.ApplyPop(m.Pop)
		}
		if err == nil {
			err = errors.New("Pop returned no pod and no error")
		}
		if !schedqtest.SameError(mo.Err(), err) {
			problem("R2 Pop%s returned a different outcome\n  model:  %s\n  target: error: %s", woke, mo, schedqtest.ErrorText(err))
		}
		return
	}
	cands := m.PopCandidates()
	if m.Closed() || !slices.Contains(cands, got.Key()) {
		mo := d.shadow.Exec.ApplyPop(m.Pop)
		if woke != "" {
			d.shadow.Blocked--
		}
		problem("I5: Pop%s returned %s; the model allows %v\n  model:  %s\n  target: %s", woke, got.Key(), cands, mo, schedqtest.PopText(got, cycle))
		return
	}
	var mo schedqtest.Outcome
	if woke != "" {
		mo, _ = d.shadow.WakeOne(got.Key())
	} else {
		mo = d.shadow.ApplyPopOf(got.Key())
	}
	if mo.Cycle != cycle || d.prof.Observes.PodInfo && !d.infoEqual(mo.Popped, got) {
		problem("R2 Pop%s returned a different pod info\n  model:  %s\n  target: %s%s", woke, infoText(mo.Popped, mo.Cycle, d), infoText(got, cycle, d), "")
	}
}

// infoEqual compares two pod infos less the ignored fields.
func (d *driver) infoEqual(a, b *spec.QueuedPodInfo) bool {
	if a == nil || b == nil || len(d.ignore) == 0 {
		return schedqtest.InfoEqual(a, b)
	}
	ac, bc := *a, *b
	d.maskInfo(&ac)
	d.maskInfo(&bc)
	return schedqtest.InfoEqual(&ac, &bc)
}

func infoText(p *spec.QueuedPodInfo, cycle int64, d *driver) string {
	if p == nil {
		return "<nil>"
	}
	s := spec.Snapshot{InFlight: []spec.QueuedPodInfo{*p}}
	line := strings.Split(s.Format(d.start, d.cfg), "\n")[4]
	return fmt.Sprintf("cycle=%d %s", cycle, strings.TrimPrefix(line, "inFlight: "))
}

// startBlockedPop starts a Pop on the target in a goroutine and returns
// once the runtime shows it parked inside Pop.
func (d *driver) startBlockedPop() error {
	ids := make(chan parked.ID, 1)
	bp := &blockedPop{done: make(chan struct{})}
	target := d.target
	go func() {
		ids <- parked.Current()
		p, c, err := target.Pop()
		var r popResult
		r.cycle, r.err = c, err
		if p != nil {
			cp := *p
			r.info = &cp
		}
		close(bp.done)
		d.results <- r
	}()
	id := <-ids
	if _, err := parked.AwaitUnless(id, ".Pop(", bp.done, wakeDeadline); err != nil {
		if errors.Is(err, parked.ErrReturned) {
			return fmt.Errorf("Pop returned without blocking")
		}
		return err
	}
	d.blocked = append(d.blocked, bp)
	return nil
}

// errPopHung: a Pop the model says returns at once blocked in the target.
var errPopHung = errors.New("Pop blocked")

// pop is the target's Pop for a "pop" the model does not block on. A
// blocking target that lost the pods would wait there forever; instead,
// once wakeDeadline passes without an answer (a bound on the hang: a
// correct Pop returns at once), Close unblocks it and the step fails with
// errPopHung and what the Pop was doing.
func (d *driver) pop() (*spec.QueuedPodInfo, int64, error) {
	if !d.prof.Blocking {
		return d.target.Pop()
	}
	type result struct {
		info  *spec.QueuedPodInfo
		cycle int64
		err   error
	}
	ids, res := make(chan parked.ID, 1), make(chan result, 1)
	target := d.target
	go func() {
		ids <- parked.Current()
		p, c, err := target.Pop()
		res <- result{p, c, err}
	}()
	id := <-ids
	select {
	case r := <-res:
		return r.info, r.cycle, r.err
	case <-time.After(wakeDeadline):
	}
	why := fmt.Sprintf("no answer within %v: %s", wakeDeadline, strings.TrimSpace(parked.Describe(id)))
	target.Close()
	select {
	case <-res:
		return nil, 0, fmt.Errorf("%w (%s); Close unblocked it", errPopHung, why)
	case <-time.After(wakeDeadline):
		return nil, 0, fmt.Errorf("%w (%s); even Close did not unblock it (R13)", errPopHung, why)
	}
}

// wake collects the blocked Pops the operation must have woken (as many
// as the shadow model wakes) and compares them with the shadow, in the
// order of their scheduling cycles.
func (d *driver) wake(op schedqtest.Op, problem func(string, ...any)) int {
	want := 0
	if d.shadow.Blocked > 0 {
		m := d.shadow.Model
		if m.Closed() {
			want = d.shadow.Blocked
		} else {
			want = min(d.shadow.Blocked, poppable(d.cfg, m.Snapshot()))
		}
	}
	var got []popResult
	timeout := time.After(wakeDeadline)
collect:
	for len(got) < want {
		select {
		case r := <-d.results:
			got = append(got, r)
		case <-timeout:
			break collect
		}
	}
	// A Pop that returned although nothing should have woken it.
	for extra := true; extra; {
		select {
		case r := <-d.results:
			got = append(got, r)
		default:
			extra = false
		}
	}
	if len(got) < want {
		problem("R2 Pop: %d blocked Pop(s) did not wake within %v of %s (the model wakes %d)", want-len(got), wakeDeadline, op, want)
	}
	sort.SliceStable(got, func(i, j int) bool { return got[i].err == nil && (got[j].err != nil || got[i].cycle < got[j].cycle) })
	for i, r := range got {
		if i >= want {
			problem("R2 Pop: a blocked Pop returned after %s, which should not wake it: %s", op, popLine(r))
			continue
		}
		d.comparePop(r.info, r.cycle, r.err, " (woken)", problem)
	}
	return len(got)
}

// poppable is how many Pops can return a pod in state s, one after the
// other: the pods of activeQ and, in the hints profile, the rejected pods
// of backoffQ, which Pop takes when activeQ is empty (R2h).
func poppable(cfg spec.Config, s spec.Snapshot) int {
	n := len(s.ActiveQ)
	if cfg.Profile == spec.ProfileHints {
		for i := range s.BackoffQ {
			if len(s.BackoffQ[i].Rejectors()) > 0 {
				n++
			}
		}
	}
	return n
}

func popLine(r popResult) string {
	if r.err != nil {
		return "error: " + schedqtest.ErrorText(r.err)
	}
	return schedqtest.PopText(r.info, r.cycle)
}
