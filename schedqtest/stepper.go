package schedqtest

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/schedq/schedq/internal/parked"
	"github.com/schedq/schedq/spec"
)

// Stepper is the one pair of the suites: a queue under test and a shadow
// model that steps with it, compared after every operation. The
// conformance runner, the random suites of package properties and
// `schedq run --impl` all step a queue through it; what differs between
// them is only what a target can observe and what each does with a
// problem (StepOptions).
//
// The shadow follows the target where the contract leaves a choice: a Pop
// may return any pod the model allows (I5), and the shadow then pops that
// one. After each operation the stepper compares the errors (SameError,
// except where the target is allowed to be silent), the pod each Pop
// returned and its fields, the pods listed by "nominated" (R18), the
// observed snapshots, and, as the options ask, the step invariants on
// either side, the nominations of chosen nodes and the target's own
// consistency check.
type Stepper struct {
	Cfg    spec.Config
	Start  time.Time
	Target spec.Queue
	// Exec applies operations to the target; Shadow is the model.
	Exec   *Executor
	Shadow *ModelRun
	Opts   StepOptions
	// Note, if set, says what the target observes, after "left a
	// different state".
	Note func() string

	blocked []*blockedPop
	results chan popResult
}

// StepOptions say what a Stepper compares and how it treats the target.
type StepOptions struct {
	// Blocking: the target's Pop waits on an empty activeQ, as a
	// concurrent queue does. A "pop" the model says cannot return is then
	// a scenario mistake (write "pop blocked"), and "pop blocked" runs the
	// Pop in a goroutine that later operations must wake.
	Blocking bool
	// SilentNoOps: the target may return nil where the model returns an
	// error (upstream's Delete, Done and Activate report nothing).
	SilentNoOps bool
	// Observe reduces a snapshot to what is compared; nil compares
	// everything. A returned pod info is compared as the only pod of a
	// snapshot's InFlight, reduced the same way.
	Observe func(spec.Snapshot) spec.Snapshot
	// Invariants checks spec.CheckStep on the target's step (spec.CheckState
	// after a step that woke blocked Pops: two steps at once).
	Invariants bool
	// ModelInvariants checks spec.CheckStep on the shadow's step too: a
	// bug of the oracle itself, named "model I<n>".
	ModelInvariants bool
	// Nodes are compared after every step: the pods the target nominates
	// to each (spec.Nominator) must be the model's, pod by pod.
	Nodes []string
	// Check, if set, is the target's own consistency check after every
	// step ("consistency").
	Check func() error
	// Wait bounds a Pop the model says returns at once, and the wait for
	// the blocked Pops an operation wakes; 10s if zero. It is a deadline
	// for a failure message, never a means of ordering.
	Wait time.Duration
}

// NewStepper starts a shadow model with cfg at start beside target, whose
// clock tick steps (nil: "tick" is a scenario mistake).
func NewStepper(cfg spec.Config, start time.Time, target spec.Queue, tick func(time.Duration), opts StepOptions) (*Stepper, error) {
	m, err := NewModelRun(cfg, start)
	if err != nil {
		return nil, err
	}
	var t func(time.Duration) error
	if tick != nil {
		t = func(d time.Duration) error { tick(d); return nil }
	}
	if opts.Wait == 0 {
		opts.Wait = 10 * time.Second
	}
	return &Stepper{Cfg: cfg, Start: start, Target: target, Exec: NewExecutor(target, t).ForProfile(cfg.Profile), Shadow: m, Opts: opts,
		results: make(chan popResult, 64)}, nil
}

// Problem is one way the target departed from the model at a step.
type Problem struct {
	// Check names what caught it: "error mismatch", "Pop outcome", an
	// invariant id ("I5", "I3h", or "model I2" for the shadow's own),
	// "Pop blocked", "wake", "snapshot diff", "nominator", "consistency"
	// or "panic".
	Check string
	// Text says what differs, with the rule and "model: X / target: Y"
	// lines.
	Text string
	// Err is what spec.CheckStep or spec.CheckState returned, for a
	// broken invariant.
	Err error
}

// Step is what one operation did on both sides.
type Step struct {
	Op Op
	// Model and Target are the outcomes of the operation itself.
	Model, Target Outcome
	// ModelLines and TargetLines are the result line and one "woke pop:
	// ..." line per blocked Pop the operation woke, on each side.
	ModelLines, TargetLines []string
	// Woken counts the target's blocked Pops that returned.
	Woken int
	// Chosen is the name of the pod the target's Pop returned when it is
	// not the model's own choice among equals ("pop choose=<name>").
	Chosen string
	// Followed: the shadow followed a choice of the target's among equals
	// that is not its own (I5), by this Pop or a woken one; the model
	// alone would print another state from here on.
	Followed bool
	// The shadow's state before the operation, after it (before any woken
	// Pop) and after the woken Pops; the target's before and after.
	ShadowBefore, ShadowMid, ShadowAfter spec.Snapshot
	TargetBefore, TargetAfter            spec.Snapshot
	Problems                             []Problem
}

// Failed reports whether the step found a problem.
func (s *Step) Failed() bool { return len(s.Problems) > 0 }

// String is the problems, one paragraph each.
func (s *Step) String() string {
	var b []string
	for _, p := range s.Problems {
		b = append(b, p.Text)
	}
	return strings.Join(b, "\n")
}

func (s *Step) problem(check, format string, args ...any) {
	s.Problems = append(s.Problems, Problem{Check: check, Text: fmt.Sprintf(format, args...)})
}

type popResult struct {
	info  *spec.QueuedPodInfo
	cycle int64
	err   error
}

type blockedPop struct{ done chan struct{} }

// ErrPopHung: a Pop the model says returns at once blocked in the target.
var ErrPopHung = errors.New("Pop blocked")

// Step performs op on the target and the shadow and compares them. The
// error is a mistake in the scenario (ErrScenario), not in the target. A
// panic of the target is a problem of the step.
func (s *Stepper) Step(op Op) (st Step, err error) {
	st = Step{Op: op, ShadowBefore: s.Shadow.Model.Snapshot(), TargetBefore: s.Target.Snapshot()}
	defer func() {
		if r := recover(); r != nil {
			st.problem("panic", "%s: the target panicked: %v", s.Cfg.Rule(op.Rule()), r)
			err = nil
		}
	}()
	record, finished, err := s.perform(&st, op)
	if err != nil || finished {
		return st, err
	}
	s.checkStep(&st, op, record)
	return st, nil
}

// perform is Step's first half: op on the shadow and on the target, their
// outcomes compared, and the target's step record for the invariants.
// finished says the step is complete without the second half (a Pop that
// hung in the target).
func (s *Stepper) perform(st *Step, op Op) (record spec.StepRecord, finished bool, err error) {
	switch {
	case op.Kind == KindPop && s.Exec.entities:
		// The podgroups profile: pop is PopEntity (G3).
		if op.Blocked {
			return record, false, fmt.Errorf("%w: pop blocked is not in the podgroups profile's language", ErrScenario)
		}
		record, err = s.stepPopEntity(st)
		return record, false, err
	case op.Kind == KindPop && op.Blocked:
		// Nothing may change until an operation wakes the Pop: as a
		// failed Pop, the step invariants check exactly that.
		record = spec.StepRecord{Rule: spec.R2Pop, Err: spec.ErrWouldBlock}
		if err := s.startBlockedPop(); err != nil {
			st.problem("Pop blocked", "pop blocked: %v", err)
		}
		mo, line, err := s.Shadow.ApplyOnly(op)
		if err != nil {
			return record, false, err
		}
		st.Model, st.ModelLines, st.TargetLines = mo, []string{line}, []string{"blocked"}
	case op.Kind == KindPop:
		m := s.Shadow.Model
		cands := m.PopCandidates()
		if len(cands) == 0 && !m.Closed() && s.Opts.Blocking {
			return record, false, fmt.Errorf("%w: pop on an empty activeQ would block this target; write \"pop blocked\"", ErrScenario)
		}
		to := s.Exec.ApplyPop(s.pop)
		st.Target, st.TargetLines = to, []string{to.String()}
		if errors.Is(to.Err(), ErrPopHung) {
			st.problem("Pop blocked", "%s: the target's Pop blocked, but the model pops one of %v\n%v", s.Cfg.Rule(op.Rule()), cands, to.Err())
			st.Model, _, _ = s.Shadow.ApplyOnly(op)
			st.ModelLines = []string{st.Model.String()}
			st.ShadowMid, st.ShadowAfter, st.TargetAfter = m.Snapshot(), m.Snapshot(), s.Target.Snapshot()
			return record, true, nil
		}
		record = to.Step
		st.Model = s.comparePop(st, to.Popped, to.Cycle, to.Err(), "")
		if st.Followed {
			st.Chosen = NameOf(to.Popped.Key())
		}
		st.ModelLines = []string{st.Model.String()}
	default:
		mo, line, err := s.Shadow.ApplyOnly(op)
		if err != nil {
			return record, false, err
		}
		to, err := s.Exec.Apply(op)
		st.Model, st.Target, st.ModelLines, st.TargetLines = mo, to, []string{line}, []string{to.String()}
		record = to.Step
		if err != nil {
			// The model could do it, the target's bookkeeping could not
			// (e.g. its Pop never returned the pod).
			st.TargetLines = []string{"cannot apply: " + err.Error()}
			st.problem("error mismatch", "%s: the model can perform it, the target cannot be given it: %v", s.Cfg.Rule(op.Rule()), err)
		} else if !SameError(mo.Err(), to.Err()) && !(to.Err() == nil && s.Opts.SilentNoOps) {
			st.problem("error mismatch", "%s returned a different outcome\n  model:  %s\n  target: %s", s.Cfg.Rule(op.Rule()), mo, to)
		}
		if op.Kind == KindNominated && mo.Err() == nil && to.Err() == nil &&
			!slices.EqualFunc(mo.NominatedPods, to.NominatedPods, spec.PodsEqual) {
			st.problem("nominator", "%s: the pods nominated to %q differ\n  model:  %s\n  target: %s", spec.R18Nominator, op.Node, PodList(mo.NominatedPods), PodList(to.NominatedPods))
		}
	}
	return record, false, nil
}

// checkStep is Step's second half: the wake-ups of blocked Pops, the
// invariants, the states compared, the nominations and the target's own
// consistency check.
func (s *Stepper) checkStep(st *Step, op Op, record spec.StepRecord) {
	st.ShadowMid = s.Shadow.Model.Snapshot()
	if s.Opts.ModelInvariants && !(op.Kind == KindPop && op.Blocked) {
		s.invariants(st, "model ", &st.ShadowBefore, &st.ShadowMid, st.Model.Step)
	}
	s.wake(st)
	st.ShadowAfter = s.Shadow.Model.Snapshot()
	st.TargetAfter = s.Target.Snapshot()
	if s.Opts.Invariants {
		if st.Woken == 0 {
			s.invariants(st, "", &st.TargetBefore, &st.TargetAfter, record)
		} else {
			// A step that woke blocked Pops is two steps at once (the
			// operation, then the Pops): only the state invariants apply.
			s.invariants(st, "", nil, &st.TargetAfter, record)
		}
	}
	if diff := DiffStates(s.observe(st.ShadowAfter), s.observe(st.TargetAfter), s.Start, s.Cfg); diff != "" {
		st.problem("snapshot diff", "%s left a different state%s\n%s", s.Cfg.Rule(op.Rule()), s.observedNote(), strings.TrimSuffix(diff, "\n"))
	}
	s.compareNominations(st)
	if s.Opts.Check != nil {
		if err := s.Opts.Check(); err != nil {
			st.problem("consistency", "after %s the target's structures disagree with the pods it holds: %v", s.Cfg.Rule(op.Rule()), err)
		}
	}
}

func (s *Stepper) observedNote() string {
	if s.Note == nil {
		return ""
	}
	return " (observed: " + s.Note() + ")"
}

func (s *Stepper) observe(snap spec.Snapshot) spec.Snapshot {
	if s.Opts.Observe == nil {
		return snap
	}
	return s.Opts.Observe(snap)
}

// invariants checks the step (before nil: the state) and names each
// broken invariant, prefixed with side.
func (s *Stepper) invariants(st *Step, side string, before, after *spec.Snapshot, record spec.StepRecord) {
	var err error
	if before == nil {
		err = spec.CheckState(after)
	} else {
		err = spec.CheckStep(s.Cfg, before, after, record)
	}
	if err == nil {
		return
	}
	id := "invariant"
	var inv *spec.InvariantError
	if errors.As(err, &inv) {
		id = inv.Invariant
	}
	who := ""
	if side != "" {
		who = " on the " + strings.TrimSpace(side)
	}
	st.problem(side+id, "%s broken by %s%s: %v", id, s.Cfg.Rule(record.Rule), who, err)
	st.Problems[len(st.Problems)-1].Err = err
}

// compareNominations compares what the nominator lists for each node of
// Opts.Nodes: the snapshots do not show nominations.
func (s *Stepper) compareNominations(st *Step) {
	if len(s.Opts.Nodes) == 0 {
		return
	}
	n, ok := s.Target.(spec.Nominator)
	if !ok {
		st.problem("nominator", "the queue under test has no nominator (spec.Nominator)")
		return
	}
	for _, node := range s.Opts.Nodes {
		m, q := s.Shadow.Model.NominatedPodsForNode(node), n.NominatedPodsForNode(node)
		if !slices.EqualFunc(m, q, spec.PodsEqual) {
			st.problem("nominator", "%s: the pods nominated to %q\n  model:  %s\n  target: %s", spec.R18Nominator, node, PodList(m), PodList(q))
		}
	}
}

// PodList prints pods as name(uid prio labels), for a nominator failure.
func PodList(pods []*spec.Pod) string {
	var b strings.Builder
	b.WriteString("[")
	for i, pod := range pods {
		if i > 0 {
			b.WriteString(" ")
		}
		fmt.Fprintf(&b, "%s(uid=%s prio=%d labels=%v)", pod.Name, pod.UID, pod.Priority, pod.Labels)
	}
	b.WriteString("]")
	return b.String()
}

// comparePop checks a Pop of the target against the shadow, which follows
// it: the pod must be one the model allows (I5), then cycle and fields must
// agree. woke prefixes the messages of a woken Pop. It returns the
// shadow's outcome.
func (s *Stepper) comparePop(st *Step, got *spec.QueuedPodInfo, cycle int64, err error, woke string) Outcome {
	m := s.Shadow.Model
	if err != nil || got == nil {
		var mo Outcome
		if woke != "" {
			mo, _ = s.Shadow.WakeOne("")
		} else {
			mo = s.Shadow.Exec.ApplyPop(m.Pop)
		}
		if err == nil {
			err = errors.New("Pop returned no pod and no error")
		}
		if !SameError(mo.Err(), err) {
			st.problem("error mismatch", "R2 Pop%s returned a different outcome\n  model:  %s\n  target: error: %s", woke, mo, ErrorText(err))
		}
		return mo
	}
	cands := m.PopCandidates()
	if m.Closed() || !slices.Contains(cands, got.Key()) {
		mo := s.Shadow.Exec.ApplyPop(m.Pop)
		if woke != "" {
			s.Shadow.Blocked--
		}
		st.problem("I5", "I5: Pop%s returned %s; the model allows %v\n  model:  %s\n  target: %s", woke, got.Key(), cands, mo, PopText(got, cycle))
		return mo
	}
	st.Followed = st.Followed || got.Key() != cands[0]
	var mo Outcome
	if woke != "" {
		mo, _ = s.Shadow.WakeOne(got.Key())
	} else {
		mo = s.Shadow.ApplyPopOf(got.Key())
	}
	if mo.Cycle != cycle || !s.infoEqual(mo.Popped, got) {
		st.problem("Pop outcome", "R2 Pop%s returned a different pod info\n  model:  %s\n  target: %s", woke, s.infoText(mo.Popped, mo.Cycle), s.infoText(got, cycle))
	}
	return mo
}

// infoEqual compares two pod infos as far as they are observed, the hint
// fields included.
func (s *Stepper) infoEqual(a, b *spec.QueuedPodInfo) bool {
	if a == nil || b == nil {
		return a == b
	}
	ao := s.observe(spec.Snapshot{InFlight: []spec.QueuedPodInfo{*a}}).InFlight[0]
	bo := s.observe(spec.Snapshot{InFlight: []spec.QueuedPodInfo{*b}}).InFlight[0]
	return InfoEqual(&ao, &bo) // the hint fields included
}

func (s *Stepper) infoText(p *spec.QueuedPodInfo, cycle int64) string {
	if p == nil {
		return "<nil>"
	}
	snap := spec.Snapshot{InFlight: []spec.QueuedPodInfo{*p}}
	line := strings.Split(snap.Format(s.Start, s.Cfg), "\n")[4]
	return fmt.Sprintf("cycle=%d %s", cycle, strings.TrimPrefix(line, "inFlight: "))
}

// startBlockedPop starts a Pop on the target in a goroutine and returns
// once the runtime shows it parked inside Pop.
func (s *Stepper) startBlockedPop() error {
	ids := make(chan parked.ID, 1)
	bp := &blockedPop{done: make(chan struct{})}
	target := s.Target
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
		s.results <- r
	}()
	id := <-ids
	if _, err := parked.AwaitUnless(id, ".Pop(", bp.done, s.Opts.Wait); err != nil {
		// A Pop that returned closes done before its goroutine exits, so
		// a goroutine seen gone with done closed returned too: say so,
		// whichever of the two AwaitUnless noticed first.
		select {
		case <-bp.done:
			return fmt.Errorf("Pop returned without blocking")
		default:
		}
		return err
	}
	s.blocked = append(s.blocked, bp)
	return nil
}

// pop is the target's Pop for a "pop" the model does not block on. A
// blocking target that lost the pods would wait there forever; instead,
// once Opts.Wait passes without an answer (a bound on the hang: a correct
// Pop returns at once), Close unblocks it and the step fails with
// ErrPopHung and what the Pop was doing.
func (s *Stepper) pop() (*spec.QueuedPodInfo, int64, error) {
	if !s.Opts.Blocking {
		return s.Target.Pop()
	}
	ids, res := make(chan parked.ID, 1), make(chan popResult, 1)
	target := s.Target
	go func() {
		ids <- parked.Current()
		p, c, err := target.Pop()
		res <- popResult{p, c, err}
	}()
	id := <-ids
	select {
	case r := <-res:
		return r.info, r.cycle, r.err
	case <-time.After(s.Opts.Wait):
	}
	why := fmt.Sprintf("no answer within %v: %s", s.Opts.Wait, strings.TrimSpace(parked.Describe(id)))
	target.Close()
	select {
	case <-res:
		return nil, 0, fmt.Errorf("%w (%s); Close unblocked it", ErrPopHung, why)
	case <-time.After(s.Opts.Wait):
		return nil, 0, fmt.Errorf("%w (%s); even Close did not unblock it (R13)", ErrPopHung, why)
	}
}

// wake collects the blocked Pops the operation must have woken (as many
// as the shadow wakes) and compares them with the shadow, in the order of
// their scheduling cycles.
func (s *Stepper) wake(st *Step) {
	want := 0
	if s.Shadow.Blocked > 0 {
		m := s.Shadow.Model
		if m.Closed() {
			want = s.Shadow.Blocked
		} else {
			want = min(s.Shadow.Blocked, poppable(s.Cfg, m.Snapshot()))
		}
	}
	var got []popResult
	timeout := time.After(s.Opts.Wait)
collect:
	for len(got) < want {
		select {
		case r := <-s.results:
			got = append(got, r)
		case <-timeout:
			break collect
		}
	}
	// A Pop that returned although nothing should have woken it.
	for extra := true; extra; {
		select {
		case r := <-s.results:
			got = append(got, r)
		default:
			extra = false
		}
	}
	op := st.Op
	if len(got) < want {
		st.problem("wake", "R2 Pop: %d blocked Pop(s) did not wake within %v of %s (the model wakes %d)", want-len(got), s.Opts.Wait, op, want)
	}
	sort.SliceStable(got, func(i, j int) bool { return got[i].err == nil && (got[j].err != nil || got[i].cycle < got[j].cycle) })
	for i, r := range got {
		if i >= want {
			st.problem("wake", "R2 Pop: a blocked Pop returned after %s, which should not wake it: %s", op, popLine(r))
			continue
		}
		to := s.Exec.ApplyPop(func() (*spec.QueuedPodInfo, int64, error) { return r.info, r.cycle, r.err })
		prev := s.Shadow.Model.Snapshot()
		mo := s.comparePop(st, r.info, r.cycle, r.err, " (woken)")
		if s.Opts.ModelInvariants {
			after := s.Shadow.Model.Snapshot()
			s.invariants(st, "model ", &prev, &after, mo.Step)
		}
		st.ModelLines = append(st.ModelLines, "woke pop: "+mo.String())
		st.TargetLines = append(st.TargetLines, "woke pop: "+to.String())
	}
	st.Woken = len(got)
}

// Close closes the target, which returns every blocked Pop, and waits (at
// most Opts.Wait) for them.
func (s *Stepper) Close() {
	s.Target.Close()
	deadline := time.After(s.Opts.Wait)
	for _, bp := range s.blocked {
		select {
		case <-bp.done:
		case <-deadline:
			return
		}
	}
}

// poppable is how many Pops can return a pod in state snap, one after the
// other: the pods of activeQ and, in the hints profile, the rejected pods
// of backoffQ, which Pop takes when activeQ is empty (R2h).
func poppable(cfg spec.Config, snap spec.Snapshot) int {
	n := len(snap.ActiveQ)
	if cfg.Profile.HasHints() {
		for i := range snap.BackoffQ {
			if len(snap.BackoffQ[i].Rejectors()) > 0 {
				n++
			}
		}
	}
	return n
}

func popLine(r popResult) string {
	if r.err != nil {
		return "error: " + ErrorText(r.err)
	}
	return PopText(r.info, r.cycle)
}

// DiffStates describes how the target's observed state differs from the
// model's, one "model: X / target: Y" line per place or counter that
// differs, rendered as scenarios print states. It returns "" if they agree.
func DiffStates(model, target spec.Snapshot, start time.Time, cfg spec.Config) string {
	if model.Diff(&target) == "" {
		return ""
	}
	ml := strings.Split(strings.TrimSuffix(model.Format(start, cfg), "\n"), "\n")
	tl := strings.Split(strings.TrimSuffix(target.Format(start, cfg), "\n"), "\n")
	var b strings.Builder
	for i := range ml {
		if i < len(tl) && ml[i] != tl[i] {
			fmt.Fprintf(&b, "  model:  %s\n  target: %s\n", ml[i], tl[i])
		}
	}
	if b.Len() == 0 {
		// A difference the rendering does not show (e.g. a field of the
		// pod it leaves out): fall back to the field-by-field diff.
		for _, l := range strings.Split(strings.TrimSpace(model.Diff(&target)), "\n") {
			fmt.Fprintf(&b, "  %s  (left of !=: model, right: target)\n", l)
		}
	}
	return b.String()
}
