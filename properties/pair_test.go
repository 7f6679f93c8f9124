package properties

import (
	"reflect"
	"slices"
	"time"

	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// The pair: the queue under test (the implementation, or a broken variant
// of it, see subject_test.go) on a fake clock and the model, driven by the
// same operations of the scenario language through one schedqtest.Executor
// each (generate_test.go draws them). After every operation the two are
// compared (compare_test.go); a failure prints the operations as a
// scenario (report_test.go). The periodic flushes are not started: both
// flushes are operations, so runs are reproducible.

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
	cfg := change.Build()
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
	p.compareErrors(mo, io)
	if !slices.Equal(mo.Nominated, io.Nominated) {
		p.failCheck("nominator", "%s: model %q, the queue %q", spec.R18Nominator, mo, io)
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
	p.begin(schedqtest.Op{Kind: schedqtest.KindPop})
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
		p.compareErrors(mo, got)
		p.check(mb, ib, mo.Step, got.Step)
		return "", false
	}
	key := p.comparePopped(cands, ib, got)
	if key != cands[0] {
		p.ops[len(p.ops)-1].Choose = schedqtest.NameOf(key)
	}
	mo := p.model.ApplyPopOf(key)
	if mo.Err() != nil {
		p.failCheck("model", "PopPod(%s): %v", key, mo.Err())
	}
	p.check(mb, ib, mo.Step, got.Step)
	p.comparePopInfo(mo, got)
	return schedqtest.NameOf(key), true
}
