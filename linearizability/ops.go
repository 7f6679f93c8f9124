package linearizability

import (
	"time"

	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// Input is one operation's call: an operation of the scenario language
// (schedqtest.Op), with the pod objects a client passed, so that an
// executor on any queue, the model's included, passes the same ones.
type Input struct {
	Op schedqtest.Op
	// Pods are the versions of the pods Op names (the old version of an
	// update, the pods of a delete or an activate) as the client knew
	// them: the executor passes these (schedqtest.Executor.Remember). An
	// add with a pod here adds that pod, caller object (Pod.Object)
	// included, instead of the one Op's line builds.
	Pods []*spec.Pod
	// Popped is what Pop returned for the pod a fail hands back.
	Popped *schedqtest.Popped
}

// KindSnapshot is the one operation of a history that is not a line of
// the scenario language, which prints the state after every line
// instead: spec.Queue.Snapshot, taken at every quiescent point.
const KindSnapshot schedqtest.Kind = "snapshot"

// Output is what an operation returned.
type Output struct {
	// Err is the error the operation returned.
	Err error
	// Info and Cycle are what Pop returned (Info is a copy taken at
	// return).
	Info  *spec.QueuedPodInfo
	Cycle int64
	// Snapshot is what Snapshot returned.
	Snapshot *spec.Snapshot
}

// exec performs the operation on q through an executor that knows the
// client's pods; tick steps q's clock.
func (in Input) exec(q spec.Queue, tick func(time.Duration) error) (schedqtest.Outcome, error) {
	if in.Op.Kind == schedqtest.KindAdd && len(in.Pods) == 1 {
		// A pod with a caller object, which the language cannot write
		// (harness.go): added as the client built it.
		p := in.Pods[0]
		o := schedqtest.Outcome{Op: in.Op, Step: spec.StepRecord{Rule: in.Op.Rule(), Pod: p.Key()}}
		o.Step.Err = q.Add(p)
		return o, nil
	}
	return in.executor(q, tick).Apply(in.Op)
}

func (in Input) executor(q spec.Queue, tick func(time.Duration) error) *schedqtest.Executor {
	e := schedqtest.NewExecutor(q, tick)
	for _, p := range in.Pods {
		e.Remember(p)
	}
	if in.Popped != nil {
		e.RememberPop(*in.Popped)
	}
	return e
}
