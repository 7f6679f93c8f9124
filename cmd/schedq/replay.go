package main

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// A file is a scenario file read for replay: the scenario, and for each
// operation its line in the file and the output the file expects after it
// (empty if the file states none).
type file struct {
	path     string
	sc       schedqtest.Scenario
	lines    []int
	expected []string
}

// readFile reads a scenario file ("-" is standard input). The scenario's
// name is its path under a "scenarios" directory without ".txt", as the
// conformance runner names it, else the file name without ".txt".
func readFile(path string) (*file, error) {
	var data []byte
	var err error
	if path == "-" {
		data, err = readAll(os.Stdin)
	} else {
		data, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, err
	}
	return parseFile(path, string(data))
}

func parseFile(path, text string) (*file, error) {
	f := &file{path: path, sc: schedqtest.Scenario{Name: scenarioName(path)}}
	comments, ds, err := schedqtest.ReadDirectives(text)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	f.sc.Comment = comments
	for _, d := range ds {
		n := len(f.sc.Ops)
		if err := f.sc.AddDirective(d.Cmd, d.Args, d.Input); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, d.Line, err)
		}
		if len(f.sc.Ops) > n {
			f.lines = append(f.lines, d.Line)
			f.expected = append(f.expected, d.Expected)
		}
	}
	if len(f.sc.Ops) == 0 {
		return nil, fmt.Errorf("%s: no operations (a scenario is a list of operations such as \"add a\" and \"pop\", each followed by a ---- line)", path)
	}
	return f, nil
}

func scenarioName(path string) string {
	p := filepath.ToSlash(path)
	if i := strings.LastIndex(p, "/scenarios/"); i >= 0 {
		p = p[i+len("/scenarios/"):]
	} else if strings.HasPrefix(p, "scenarios/") {
		p = strings.TrimPrefix(p, "scenarios/")
	} else {
		p = filepath.Base(p)
	}
	if p == "-" {
		return "stdin"
	}
	return strings.TrimSuffix(p, ".txt")
}

// Problem kinds: what a replay can find wrong.
const (
	// problemInvariant: spec.CheckStep found an invariant broken.
	problemInvariant = "invariant"
	// problemDisagree: the implementation did not do what the model did.
	problemDisagree = "disagreement"
	// problemExpected: the file's expected output is not what the model
	// prints (the file is stale, or the model changed).
	problemExpected = "expectation"
)

// A problem is one thing found wrong at a step.
type problem struct {
	Kind string
	// Side is "model" or "impl" for an invariant; empty otherwise.
	Side string
	// ID is the invariant id (I1..I6) or the rule the operation performs.
	ID     string
	Detail string
}

func (p problem) String() string {
	switch p.Kind {
	case problemInvariant:
		return fmt.Sprintf("%s broken on %s: %s", p.ID, p.Side, p.Detail)
	case problemDisagree:
		return fmt.Sprintf("%s: model and impl disagree: %s", p.ID, p.Detail)
	}
	return fmt.Sprintf("the file's expected output differs from the model's: %s", p.Detail)
}

// A step is one operation of the replay and what came of it.
type step struct {
	N    int // 1-based
	Line int // line of the operation in the file
	Op   schedqtest.Op
	// Result is the model's result line, then one "woke pop: ..." line per
	// blocked Pop the operation woke.
	Result string
	// ImplResult is the implementation's, in the same form ("" without
	// --impl).
	ImplResult string
	Model      spec.Snapshot
	// Impl is the implementation's state after the step (nil without
	// --impl).
	Impl *spec.Snapshot
	// Move is what a move request step (move, assigned-add,
	// assigned-update) asked the model, for the page's explanation of
	// each pod's verdict; nil otherwise and in an --impl replay.
	Move *spec.MoveRecord
	// Waiting is the number of Pops blocked after the step.
	Waiting  int
	Problems []problem
}

// A trace is a whole replay: the scenario, its config, the state before the
// first operation and every step.
type trace struct {
	File *file
	Cfg  spec.Config
	Impl bool
	// ImplNA says why --impl did not replay on the implementation: impl.New
	// refused the scenario's configuration (a bad config is refused by
	// both); the model alone is replayed.
	ImplNA  string
	Initial spec.Snapshot
	Steps   []step
	// Err is a mistake in the scenario that stopped the replay (e.g.
	// "fail a" of a pod Pop never returned); Steps holds the steps before.
	Err error
	// Known are the implementation's problems that a known difference the
	// file declares for it accounts for.
	Known []string
	// Stale says that a known difference declared for the implementation
	// did not show.
	Stale string
	// Notes are remarks that are not failures (e.g. expectations no
	// longer compared once the model followed the implementation's choice
	// among equal pods).
	Notes []string
}

// Failed reports whether the replay found an invariant broken, a
// disagreement or a stale expectation.
func (t *trace) Failed() bool { return t.problemCount() > 0 || t.Stale != "" }

func (t *trace) problemCount() int {
	n := 0
	for _, s := range t.Steps {
		n += len(s.Problems)
	}
	return n
}

// implQueue is what --impl drives: a queue with a fake clock.
type implQueue interface {
	spec.Queue
	Step(d time.Duration)
}

// newImpl builds the queue --impl replays against: package impl on a fake
// clock reading start. Tests replace it to replay against a deliberately
// broken queue.
var newImpl = newImplQueue

// wakeWait bounds how long the replay waits for the implementation's
// blocked Pops to return after an operation that wakes them.
var wakeWait = 5 * time.Second

// replay plays f on the model and, with withImpl, on the implementation,
// checking the invariants after every step and comparing the two.
func replay(f *file, withImpl bool) *trace {
	cfg := f.sc.Config.Build() // the scenario's profile (config profile=hints)
	t := &trace{File: f, Cfg: cfg, Impl: withImpl}
	mr, err := schedqtest.NewModelRun(cfg, schedqtest.Start)
	if err != nil {
		t.Err = fmt.Errorf("config: %w", err)
		return t
	}
	t.Initial = mr.Model.Snapshot()
	var sp *schedqtest.Stepper // the implementation beside the model, while they agree
	if withImpl {
		if sp = t.implBeside(cfg); t.Err != nil {
			return t
		}
		if sp != nil {
			mr = sp.Shadow
			defer func() {
				if sp != nil {
					sp.Close()
				}
			}()
		}
	}
	// followed: the model follows the implementation's choice among equal
	// pods (I5), so the file's expected output is no longer compared.
	followed := false
	diverged := 0 // the step at which impl diverged from the model
	for i, op := range f.sc.Ops {
		s := step{N: i + 1, Line: f.lines[i], Op: op}
		var stepErr error
		if sp == nil {
			stepErr = replayModel(mr, cfg, mr.Model.Snapshot(), &s)
		} else {
			var other bool
			if other, stepErr = replayBoth(sp, &s); other && !followed {
				followed = true
				t.Notes = append(t.Notes, fmt.Sprintf("from step %d on, the model follows the implementation's choice among equal pods (I5), so the file's expected output is no longer compared", s.N))
			}
		}
		if stepErr != nil {
			t.Err = fmt.Errorf("step %d (line %d) %s: %w", s.N, s.Line, op, stepErr)
			return t
		}
		if sp == nil && diverged > 0 && diverged == s.N-1 {
			s.ImplResult = fmt.Sprintf("(not replayed from here on: impl diverged from the model at step %d)", diverged)
		}
		if sp != nil && slices.ContainsFunc(s.Problems, func(p problem) bool { return p.Kind == problemDisagree }) {
			// Once the states differ, every later step would differ
			// too: the first difference is the finding.
			diverged = s.N
			sp.Close()
			sp = nil
			t.Notes = append(t.Notes, fmt.Sprintf("impl diverged from the model at step %d; the later steps replay the model only", s.N))
		}
		s.Model = mr.Model.Snapshot()
		s.Waiting = mr.Blocked
		if !followed && f.expected[i] != "" {
			if got := s.Result + "\n" + schedqtest.Render(s.Model, schedqtest.Start, cfg); got != f.expected[i] {
				s.Problems = append(s.Problems, problem{Kind: problemExpected, ID: string(op.Rule()), Detail: firstDifference(f.expected[i], got)})
			}
		}
		t.Steps = append(t.Steps, s)
	}
	if t.Impl {
		t.applyKnownDifference()
	}
	return t
}

// implBeside makes the Stepper that runs the implementation beside the
// model for --impl. It is nil when there is none: with the reason in
// t.ImplNA (and t.Impl false) when impl refuses the profile's config or
// lacks an interface the file's operations need, with t.Err when it
// cannot be made.
func (t *trace) implBeside(cfg spec.Config) *schedqtest.Stepper {
	ops := t.File.sc.Ops
	q, err := newImpl(cfg, schedqtest.Start)
	switch {
	case err != nil && errors.Is(err, spec.ErrInvalidConfig) && cfg.Validate() == nil:
		t.Impl, t.ImplNA = false, fmt.Sprintf("impl refuses the %s profile's config (%v)", cfg.Profile, err)
		return nil
	case err != nil:
		t.Err = fmt.Errorf("impl: %w", err)
		return nil
	case usesNominator(ops) && !isNominator(q):
		t.Impl, t.ImplNA = false, "the queue replayed with --impl has no nominator (spec.Nominator, R18)"
	case slices.ContainsFunc(ops, schedqtest.Op.NeedsObjectQueue) && !isObjectQueue(q):
		t.Impl, t.ImplNA = false, "the queue replayed with --impl takes no caller objects or update verdicts (spec.ObjectQueue, R19)"
	default:
		sp, err := newStepper(cfg, q)
		if err != nil {
			q.Close()
			t.Err = fmt.Errorf("config: %w", err)
			return nil
		}
		return sp
	}
	q.Close()
	return nil
}

// profileImpl is the conformance profile name of package impl
// (conformance.TargetImpl): a scenario file may declare a known
// difference for it.
const profileImpl = "schedq-impl"

// applyKnownDifference gives a known difference that the file declares for
// the implementation its conformance meaning: the implementation's problems
// are reported as known, not failures, and a declared difference that does
// not show fails as stale.
func (t *trace) applyKnownDifference() {
	var kd *schedqtest.KnownDifference
	for i, k := range t.File.sc.KnownDifferences {
		if k.AppliesTo(profileImpl) {
			kd = &t.File.sc.KnownDifferences[i]
		}
	}
	if kd == nil {
		return
	}
	shown := false
	for i := range t.Steps {
		s := &t.Steps[i]
		s.Problems = slices.DeleteFunc(s.Problems, func(p problem) bool {
			if p.Kind == problemDisagree || p.Side == "impl" {
				t.Known = append(t.Known, fmt.Sprintf("step %d (line %d) %s: %s", s.N, s.Line, s.Op, p))
				shown = true
				return true
			}
			return false
		})
	}
	if !shown {
		t.Stale = fmt.Sprintf("the file declares a known difference for %s (%s), but impl behaved as the model: remove the declaration", profileImpl, kd.Reason)
	}
}

// replayModel applies one operation to the model alone and checks it.
func replayModel(mr *schedqtest.ModelRun, cfg spec.Config, before spec.Snapshot, s *step) error {
	o, line, err := mr.ApplyOnly(s.Op)
	if err != nil {
		return err
	}
	s.Move = o.Step.Move
	mid := mr.Model.Snapshot()
	if !(s.Op.Kind == schedqtest.KindPop && s.Op.Blocked) { // a Pop that waits has done nothing yet
		s.Problems = append(s.Problems, invariants(cfg, &before, &mid, o.Step, "model")...)
	}
	lines := []string{line}
	for mr.Wakeable() {
		prev := mr.Model.Snapshot()
		wo, w := mr.WakeOne("")
		after := mr.Model.Snapshot()
		s.Problems = append(s.Problems, invariants(cfg, &prev, &after, wo.Step, "model")...)
		lines = append(lines, w)
	}
	s.Result = strings.Join(lines, "\n")
	return nil
}

// invariants runs spec.CheckStep and names each invariant it found broken.
func invariants(cfg spec.Config, before, after *spec.Snapshot, rec spec.StepRecord, side string) []problem {
	return named(spec.CheckStep(cfg, before, after, rec), side, rec.Rule)
}

// named splits what the invariant checks returned into one problem per
// invariant broken, each with its id.
func named(err error, side string, rule spec.Rule) []problem {
	if err == nil {
		return nil
	}
	var out []problem
	for _, e := range flatten(err) {
		p := problem{Kind: problemInvariant, Side: side, ID: "?", Detail: e.Error()}
		var ie *spec.InvariantError
		if errors.As(e, &ie) {
			p.ID, p.Detail = ie.Invariant, ie.Detail
		}
		p.Detail += fmt.Sprintf(" (after %s)", rule)
		out = append(out, p)
	}
	return out
}

// flatten undoes errors.Join.
func flatten(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, flatten(e)...)
		}
		return out
	}
	return []error{err}
}

// firstDifference names the first line where want and got differ.
func firstDifference(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(w), len(g)) {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return fmt.Sprintf("output line %d: file: %q / model: %q", i+1, a, b)
		}
	}
	return "identical"
}

// stateDiff lists how the implementation's state differs from the model's:
// one "model: X / impl: Y" line for the clock, for each pod whose place or
// entry differs, and for the cycle counters; the snapshot difference where
// the rendering does not show it.
func stateDiff(cfg spec.Config, m, i *spec.Snapshot) []string {
	mr := strings.Split(strings.TrimSuffix(schedqtest.Render(*m, schedqtest.Start, cfg), "\n"), "\n")
	ir := strings.Split(strings.TrimSuffix(schedqtest.Render(*i, schedqtest.Start, cfg), "\n"), "\n")
	var out []string
	if mr[0] != ir[0] {
		out = append(out, fmt.Sprintf("model: %s / impl: %s", mr[0], ir[0]))
	}
	keys := map[spec.PodKey]bool{}
	for k := range m.Locations() {
		keys[k] = true
	}
	for k := range i.Locations() {
		keys[k] = true
	}
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		a, b := podText(cfg, m, k), podText(cfg, i, k)
		if a != b {
			out = append(out, fmt.Sprintf("pod %s: model: %s / impl: %s", schedqtest.NameOf(k), a, b))
		}
	}
	if last := len(mr) - 1; mr[last] != ir[len(ir)-1] {
		out = append(out, fmt.Sprintf("model: %s / impl: %s", mr[last], ir[len(ir)-1]))
	}
	if len(out) == 0 {
		if d := m.Diff(i); d != "" {
			for _, l := range strings.Split(strings.TrimSuffix(d, "\n"), "\n") {
				out = append(out, "model != impl: "+l)
			}
		}
	}
	return out
}

// podText is one pod of a snapshot as the state prints it, with its place:
// "backoffQ c(prio=5 ts=+0s attempts=1 expiry=+1s)", or "not queued".
func podText(cfg spec.Config, s *spec.Snapshot, k spec.PodKey) string {
	loc, info := s.Find(k)
	if loc == spec.Nowhere {
		return "not queued"
	}
	one := spec.Snapshot{Now: s.Now}
	switch loc {
	case spec.InActiveQ:
		one.ActiveQ = []spec.QueuedPodInfo{info}
	case spec.InBackoffQ:
		one.BackoffQ = []spec.QueuedPodInfo{info}
	case spec.InUnschedulablePods:
		one.UnschedulablePods = []spec.QueuedPodInfo{info}
	case spec.InFlight:
		one.InFlight = []spec.QueuedPodInfo{info}
	}
	for _, l := range strings.Split(schedqtest.Render(one, schedqtest.Start, cfg), "\n") {
		if p, ok := strings.CutPrefix(l, loc.String()+": "); ok && p != "-" {
			return loc.String() + " " + p
		}
	}
	return loc.String()
}

// usesNominator reports whether a scenario uses the nominator operations
// (R18), which need a queue implementing spec.Nominator.
func usesNominator(ops []schedqtest.Op) bool {
	return slices.ContainsFunc(ops, func(o schedqtest.Op) bool {
		return o.Kind == schedqtest.KindNominate || o.Kind == schedqtest.KindNominated
	})
}

func isObjectQueue(q implQueue) bool {
	_, ok := q.(spec.ObjectQueue)
	return ok
}

func isNominator(q implQueue) bool {
	_, ok := q.(spec.Nominator)
	return ok
}
