package properties

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// The pair: the queue under test (the implementation, or a broken variant
// of it, see subject_test.go) on a fake clock and the model, driven by the
// same operations of the scenario language through one schedqtest.Executor
// each. Every operation snapshots both queues before and after, and then
// checks, in this order:
//
//  1. the results agree: errors by schedqtest.SameError ("error
//     mismatch"); for pop, the pod is one of model.PopCandidates and the
//     returned info (schedqtest.InfoEqual) and cycle equal the model's
//     ("Pop outcome");
//  2. spec.CheckStep holds on the model's step ("model I1".."model I6":
//     a bug in the oracle itself);
//  3. spec.CheckStep holds on the queue's step ("I1".."I6");
//  4. the snapshots are equal ("snapshot diff", printed as
//     cmp.Diff(modelSnap, implSnap));
//  5. checkStep, the queue's own consistency checks.
//
// A failure message starts with CHECK[<name>], which TestMutantsAreCaught
// reads back to say which check caught a mutant, and ends with the
// operations so far as a scenario file (report_test.go). The periodic
// flushes are not started: both flushes are operations, so runs are
// reproducible.

// reporter is what the harness needs of *testing.T and *rapid.T.
type reporter interface {
	Helper()
	Fatalf(format string, args ...any)
	Logf(format string, args ...any)
}

type pair struct {
	r      reporter
	suite  string // the test that drives the pair, for the failure's scenario
	change schedqtest.ConfigChange
	cfg    spec.Config
	sub    subject
	// queue drives the queue under test, model the model; each keeps the
	// per-name bookkeeping of the language (versions, what Pop returned).
	queue *schedqtest.Executor
	model *schedqtest.ModelRun
	// ops are the operations so far, as the scenario prints them.
	ops []schedqtest.Op
}

// newPair starts a pair on the subject of this run (see subjectFromEnv)
// with a config drawn from configs.
func newPair(r reporter, suite string, change schedqtest.ConfigChange) *pair {
	r.Helper()
	cfg := change.Apply(schedqtest.Config())
	sub, err := subjectFromEnv().new(cfg)
	if err != nil {
		r.Fatalf("%v", err)
	}
	m, err := schedqtest.NewModelRun(cfg, schedqtest.Start)
	if err != nil {
		sub.Close()
		r.Fatalf("model: %v", err)
	}
	tick := func(d time.Duration) error { sub.Advance(d); return nil }
	return &pair{r: r, suite: suite, change: change, cfg: cfg, sub: sub,
		queue: schedqtest.NewExecutor(sub, tick), model: m}
}

func (p *pair) close() { p.sub.Close() }

// steps is the number of operations performed.
func (p *pair) steps() int { return len(p.ops) }

// begin records the operation about to run and logs it as "#n line".
// Logf is cheap under rapid except when the failing case is replayed,
// which is when the log is wanted.
func (p *pair) begin(op schedqtest.Op) {
	p.r.Helper()
	if back, err := schedqtest.ParseOp(op.String()); err != nil || !reflect.DeepEqual(back, op) {
		p.r.Fatalf("the generator drew an operation the language does not spell back: %#v -> %q -> %#v, %v", op, op, back, err)
	}
	p.ops = append(p.ops, op)
	p.r.Logf("#%d %s", len(p.ops), op)
}

// do performs a non-pop operation on both queues and checks the step.
func (p *pair) do(op schedqtest.Op) {
	p.r.Helper()
	p.begin(op)
	mb, ib := p.model.Model.Snapshot(), p.sub.Snapshot()
	mo, _, err := p.model.ApplyOnly(op)
	if err != nil {
		p.r.Fatalf("the generator drew an invalid operation %s: %v", op, err)
	}
	io, err := p.queue.Apply(op)
	if err != nil {
		p.r.Fatalf("the generator drew an invalid operation %s: %v", op, err)
	}
	if !schedqtest.SameError(mo.Err(), io.Err()) {
		p.failCheck("error mismatch", "model returned %s, the queue returned %s", mo, io)
	}
	p.check(mb, ib, mo.Step, io.Step)
}

// popTimeout bounds a Pop the model says cannot block. Only a broken queue
// (an activeQ heap out of step with its index) waits that long; the
// goroutine is released by Close.
const popTimeout = 10 * time.Second

// pop pops from both queues: the queue under test may return any pod the
// model allows (I5), and the model then pops that one. If the queue chose
// another pod than the model would, the operation is recorded as "pop
// choose=<name>" so that the scenario replays the same choice.
func (p *pair) pop() (name string, ok bool) {
	p.r.Helper()
	op := schedqtest.Op{Kind: schedqtest.KindPop}
	p.begin(op)
	m := p.model.Model
	cands := m.PopCandidates()
	mb, ib := m.Snapshot(), p.sub.Snapshot()
	ch := make(chan schedqtest.Outcome, 1)
	go func() { ch <- p.queue.ApplyPop(p.sub.Pop) }()
	var got schedqtest.Outcome
	select {
	case got = <-ch:
	case <-time.After(popTimeout):
		p.failCheck("Pop blocked", "Pop blocked for %v although the model's activeQ holds %v", popTimeout, cands)
	}
	if m.Closed() {
		mo := p.model.Exec.ApplyPop(m.Pop)
		if !schedqtest.SameError(mo.Err(), got.Err()) {
			p.failCheck("error mismatch", "model returned %s, the queue returned %s", mo, got)
		}
		p.check(mb, ib, mo.Step, got.Step)
		return "", false
	}
	if got.Err() != nil || got.Popped == nil {
		p.failCheck("error mismatch", "the queue's Pop returned %s; the model would pop one of %v", got, cands)
	}
	key := got.Popped.Key()
	if !slices.Contains(cands, key) {
		// A more specific name if the queue's own step breaks an invariant
		// (I5: not maximal, I4: not from activeQ).
		ia := p.sub.Snapshot()
		if err := spec.CheckStep(p.cfg, &ib, &ia, got.Step); err != nil {
			p.failCheck(firstInvariant(err), "Pop returned %s; the model allows %v: %v", key, cands, err)
		}
		p.failCheck("Pop outcome", "Pop returned %s; the model allows %v", key, cands)
	}
	if key != cands[0] {
		p.ops[len(p.ops)-1].Choose = schedqtest.NameOf(key)
	}
	mo := p.model.ApplyPopOf(key)
	if mo.Err() != nil {
		p.failCheck("model", "PopPod(%s): %v", key, mo.Err())
	}
	p.check(mb, ib, mo.Step, got.Step)
	if mo.Cycle != got.Cycle || !schedqtest.InfoEqual(mo.Popped, got.Popped) {
		p.failCheck("Pop outcome", "Pop returned %+v cycle %d; the model returns %+v cycle %d", *got.Popped, got.Cycle, *mo.Popped, mo.Cycle)
	}
	return schedqtest.NameOf(key), true
}

// firstInvariant names the first broken invariant in err (from
// spec.CheckStep, possibly joined).
func firstInvariant(err error) string {
	var ie *spec.InvariantError
	if errors.As(err, &ie) {
		return ie.Invariant
	}
	return "invariant"
}

// check is checks 2 to 5 of one step, given both snapshots before it and
// the step as each queue performed it.
func (p *pair) check(mb, ib spec.Snapshot, ms, is spec.StepRecord) {
	p.r.Helper()
	ma, ia := p.model.Model.Snapshot(), p.sub.Snapshot()
	if err := spec.CheckStep(p.cfg, &mb, &ma, ms); err != nil {
		p.failCheck("model "+firstInvariant(err), "%v\nmodel before -> after:\n%s", err, cmp.Diff(mb, ma, cmpopts.EquateEmpty()))
	}
	if err := spec.CheckStep(p.cfg, &ib, &ia, is); err != nil {
		p.failCheck(firstInvariant(err), "%v\nqueue before -> after:\n%s", err, cmp.Diff(ib, ia, cmpopts.EquateEmpty()))
	}
	if d := ma.Diff(&ia); d != "" {
		p.failCheck("snapshot diff", "%s(-model +queue):\n%s", d, cmp.Diff(ma, ia, cmpopts.EquateEmpty()))
	}
	p.checkStep()
}

// checkStep is the one place for checks of the queue's own after every
// step, beyond the comparison with the model: e.g. the implementation's
// internal consistency check, p.sub.impl() giving the *impl.PriorityQueue
// under the subject. A failure calls p.failCheck with a check name of its
// own, so that the mutant table and the printed scenario name it.
func (p *pair) checkStep() {}

// failCheck fails the run: the check that failed and why, the model's
// state before the failing check, and the operations so far as a scenario
// file that replays the failure.
func (p *pair) failCheck(check, format string, args ...any) {
	p.r.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "CHECK[%s] at step #%d %s: %s\n", check, p.steps(), p.ops[len(p.ops)-1], fmt.Sprintf(format, args...))
	fmt.Fprintf(&b, "model (the reference) after the operation:\n%s\n", p.model.Render())
	b.WriteString(p.scenario(check))
	p.r.Fatalf("%s", b.String())
}
