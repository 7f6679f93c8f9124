package linearizability_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	lin "github.com/schedq/schedq/linearizability"
	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// Hand-written histories that pin down what the porcupine model accepts.
// Times are [call, return] windows; overlapping windows are concurrent.

func mkPod(name string, prio int32) *spec.Pod {
	return &spec.Pod{Namespace: lin.Namespace, Name: name, UID: spec.UID("uid-" + name), Priority: prio}
}

type hop struct {
	client    int
	call, ret int64
	in        lin.Input
	out       lin.Output
}

// parse is the operation of a line of the scenario language.
func parse(line string) lin.Input {
	op, err := schedqtest.ParseOp(line)
	if err != nil {
		panic(err)
	}
	return lin.Input{Op: op}
}

func add(p *spec.Pod) lin.Input { return parse(fmt.Sprintf("add %s prio=%d", p.Name, p.Priority)) }

var (
	pop      = parse("pop")
	closeOp  = parse("close")
	flushB   = parse("flush-backoff")
	ok       = lin.Output{}
	errClose = lin.Output{Err: fmt.Errorf("wrapped: %w", spec.ErrClosed)}
)

func step(d time.Duration) lin.Input {
	return lin.Input{Op: schedqtest.Op{Kind: schedqtest.KindTick, Duration: d}}
}

// fail hands back what Pop returned at cycle, rejected by no plugin.
func fail(popped lin.Output, cycle int64) lin.Input {
	in := parse(fmt.Sprintf("fail %s cycle=%d", popped.Info.Pod.Name, cycle))
	in.Popped = &schedqtest.Popped{Info: *popped.Info, Cycle: popped.Cycle}
	return in
}

// popped is the Output of a Pop that returned p, Attempts 1, at cycle,
// having been added at now.
func popped(p *spec.Pod, cycle int64, added time.Time) lin.Output {
	return lin.Output{Info: &spec.QueuedPodInfo{Pod: p, Timestamp: added, Attempts: 1, InitialAttemptTimestamp: added}, Cycle: cycle}
}

func history(hops ...hop) []porcupine.Operation {
	ops := make([]porcupine.Operation, len(hops))
	for i, h := range hops {
		ops[i] = porcupine.Operation{ClientId: h.client, Input: h.in, Call: h.call, Output: h.out, Return: h.ret}
	}
	return ops
}

func TestModelAcceptsExactlyWhatTheQueueMayDo(t *testing.T) {
	a, b, c := mkPod("a", 10), mkPod("b", 5), mkPod("c", 5)
	t1 := lin.Start.Add(time.Second)
	m := lin.Model(lin.Config(), lin.Start)
	cases := []struct {
		name string
		want bool
		ops  []porcupine.Operation
	}{
		{"a blocked Pop is linearized after the Add that arrives while it waits", true, history(
			hop{0, 1, 10, pop, popped(a, 1, lin.Start)},
			hop{1, 3, 4, add(a), ok})},
		{"a Pop that returned a pod while activeQ was empty is rejected", false, history(
			hop{0, 1, 2, pop, popped(a, 1, lin.Start)},
			hop{1, 3, 4, add(a), ok})},
		{"two Pops cannot both return the same pod", false, history(
			hop{0, 1, 2, add(a), ok},
			hop{0, 3, 8, pop, popped(a, 1, lin.Start)},
			hop{1, 4, 9, pop, popped(a, 1, lin.Start)},
			hop{2, 10, 11, closeOp, ok})},
		{"the cycle Pop returns is the model's", false, history(
			hop{0, 1, 2, add(a), ok},
			hop{0, 3, 4, pop, popped(a, 2, lin.Start)})},
		{"Pop must return a maximal pod: higher priority first", false, history(
			hop{0, 1, 2, add(a), ok},
			hop{0, 3, 4, add(b), ok},
			hop{1, 5, 6, pop, popped(b, 1, lin.Start)})},
		{"Pop of a lower pod is fine if the higher one may not have arrived", true, history(
			hop{0, 1, 2, add(b), ok},
			hop{0, 3, 8, add(a), ok},
			hop{1, 5, 6, pop, popped(b, 1, lin.Start)})},
		{"ties are unordered: either tied pod may come first (b)", true, history(
			hop{0, 1, 2, add(b), ok},
			hop{0, 3, 4, add(c), ok},
			hop{1, 5, 6, pop, popped(c, 1, lin.Start)})},
		{"a Pop that returned ErrClosed before any Close is rejected", false, history(
			hop{0, 1, 2, pop, errClose},
			hop{1, 3, 4, closeOp, ok})},
		{"a blocked Pop released by Close returns ErrClosed", true, history(
			hop{0, 1, 5, pop, errClose},
			hop{1, 2, 3, closeOp, ok})},
		{"after Close, Pop returns ErrClosed even with pods in activeQ", false, history(
			hop{0, 1, 2, add(a), ok},
			hop{0, 3, 4, closeOp, ok},
			hop{1, 5, 6, pop, popped(a, 1, lin.Start)})},
		{"errors must be the model's: a second Add is ErrAlreadyQueued", false, history(
			hop{0, 1, 2, add(a), ok},
			hop{0, 3, 4, add(a), ok})},
		{"errors compare with errors.Is, through wrapping", true, history(
			hop{0, 1, 2, add(a), ok},
			hop{0, 3, 4, add(a), lin.Output{Err: fmt.Errorf("queue says: %w", spec.ErrAlreadyQueued)}})},
		{"the clock steps at its own linearization point: a pod added during the step may carry either time", true, history(
			hop{0, 1, 4, step(time.Second), ok},
			hop{1, 2, 3, add(a), ok},
			hop{1, 5, 6, pop, popped(a, 1, t1)})},
		{"but not a time the clock never read", false, history(
			hop{0, 1, 2, step(time.Second), ok},
			hop{1, 3, 4, add(a), ok},
			hop{1, 5, 6, pop, popped(a, 1, lin.Start)})},
		{"R7 boundary: a pod whose backoff expires exactly now is not flushed", false, history(
			hop{0, 1, 2, add(a), ok},
			hop{0, 3, 4, pop, popped(a, 1, lin.Start)},
			hop{0, 5, 6, fail(popped(a, 1, lin.Start), 1), ok},
			hop{0, 7, 8, step(time.Second), ok},
			hop{0, 9, 10, flushB, ok},
			hop{1, 11, 12, pop, lin.Output{Info: &spec.QueuedPodInfo{Pod: a, Timestamp: lin.Start, Attempts: 2, InitialAttemptTimestamp: lin.Start}, Cycle: 2}},
		)},
		{"R7 boundary: one nanosecond later it is", true, history(
			hop{0, 1, 2, add(a), ok},
			hop{0, 3, 4, pop, popped(a, 1, lin.Start)},
			hop{0, 5, 6, fail(popped(a, 1, lin.Start), 1), ok},
			hop{0, 7, 8, step(time.Second + 1), ok},
			hop{0, 9, 10, flushB, ok},
			hop{1, 11, 12, pop, lin.Output{Info: &spec.QueuedPodInfo{Pod: a, Timestamp: lin.Start, Attempts: 2, InitialAttemptTimestamp: lin.Start}, Cycle: 2}},
		)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, info := porcupine.CheckOperationsVerbose(m, c.ops, 10*time.Second)
			if want := map[bool]porcupine.CheckResult{true: porcupine.Ok, false: porcupine.Illegal}[c.want]; res != want {
				h := &lin.History{Config: lin.Config(), Operations: c.ops}
				t.Errorf("got %v, want %v\n%s", res, want, h.Text(lin.Result{Outcome: res, Info: info}))
			}
		})
	}
}

// Step must not mutate the state it is given: porcupine backtracks to it.
func TestModelStepLeavesItsInputAlone(t *testing.T) {
	m := lin.Model(lin.Config(), lin.Start)
	_, init := m.Step(m.Init(), add(mkPod("a", 1)), ok)
	s0 := init.(*lin.State)
	before := s0.Model.Clone()
	for _, in := range []lin.Input{pop, add(mkPod("b", 2)), step(time.Minute), closeOp, parse("delete a")} {
		out := ok
		if in.Op.Kind == schedqtest.KindPop {
			out = popped(mkPod("a", 1), 1, lin.Start)
		}
		accepted, next := m.Step(s0, in, out)
		if !accepted {
			t.Errorf("%v rejected", in.Op)
		}
		if next.(*lin.State).Model == s0.Model {
			t.Errorf("%v returned its input state", in.Op)
		}
		if !s0.Model.Equal(before) {
			t.Fatalf("%v mutated its input state:\n%s\nwant\n%s", in.Op, s0.Model, before)
		}
	}
}
