package properties

import (
	"reflect"
	"time"

	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// The pair: the queue under test (the implementation, or a broken variant
// of it, see subject_test.go) on a fake clock beside the model, stepped
// together by schedqtest.Stepper with the same operations of the scenario
// language (generate_test.go draws them). After every operation the
// stepper compares, in this order: the results (errors by
// schedqtest.SameError, "error mismatch"; a Pop's pod one the model allows,
// "I5", with the model's info and cycle, "Pop outcome"); spec.CheckStep on
// the model's step ("model I1".."model I6": a bug in the oracle itself)
// and on the queue's ("I1".."I6"); the snapshots ("snapshot diff"); the
// pods nominated to each node of nodes, pod by pod ("nominator", R18); and
// the implementation's own consistency check ("consistency"). A failure
// starts with CHECK[<name>], which TestMutantsAreCaught reads back, and
// prints the operations as a scenario (report_test.go). The periodic
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
	st     *schedqtest.Stepper
	// model is the stepper's shadow.
	model *schedqtest.ModelRun
	// ops are the operations so far, as the scenario prints them.
	ops []schedqtest.Op
}

// popTimeout bounds a Pop the model says cannot block. Only a broken queue
// (an activeQ heap out of step with its index) waits that long; Close then
// releases it.
const popTimeout = 10 * time.Second

// newPair starts a pair on the subject of this run (see subjectFromEnv)
// with a config drawn from configs.
func newPair(r reporter, suite string, change schedqtest.ConfigChange) *pair {
	r.Helper()
	cfg := change.Build()
	sub, err := subjectFromEnv().new(cfg)
	if err != nil {
		r.Fatalf("%v", err)
	}
	st, err := schedqtest.NewStepper(cfg, schedqtest.Start, sub, sub.Advance, schedqtest.StepOptions{
		Blocking: true, Invariants: true, ModelInvariants: true, Nodes: nodes,
		Check: sub.impl().CheckConsistency, Wait: popTimeout,
	})
	if err != nil {
		sub.Close()
		r.Fatalf("model: %v", err)
	}
	return &pair{r: r, suite: suite, change: change, cfg: cfg, sub: sub, st: st, model: st.Shadow}
}

func (p *pair) close() { p.st.Close() }

// steps is the number of operations performed.
func (p *pair) steps() int { return len(p.ops) }

// do performs an operation on both queues and checks the step. It
// returns what the step did. It logs the operation as "#n line" (Logf is
// cheap under rapid except when the failing case is replayed, which is
// when the log is wanted). If the queue's Pop chose another pod than the
// model would, the operation is recorded as "pop choose=<name>" so that
// the scenario replays the same choice.
func (p *pair) do(op schedqtest.Op) schedqtest.Step {
	p.r.Helper()
	if back, err := schedqtest.ParseOp(op.String()); err != nil || !reflect.DeepEqual(back, op) {
		p.r.Fatalf("the generator drew an operation the language does not spell back: %#v -> %q -> %#v, %v", op, op, back, err)
	}
	p.ops = append(p.ops, op)
	p.r.Logf("#%d %s", len(p.ops), op)
	st, err := p.st.Step(op)
	if err != nil {
		p.r.Fatalf("the generator drew an invalid operation %s: %v", op, err)
	}
	if st.Chosen != "" {
		p.ops[len(p.ops)-1].Choose = st.Chosen
	}
	if st.Failed() {
		p.failCheck(st.Problems[0].Check, "%s", st.String())
	}
	return st
}
