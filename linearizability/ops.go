package linearizability

import (
	"slices"
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
	// PoppedGroup is what PopEntity returned for the group an
	// "attempted" hands back (the podgroups profile, G5).
	PoppedGroup *schedqtest.PoppedGroup
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
	// return). In the podgroups profile Pop is PopEntity: Info is a pod
	// queued alone, Group a pod group (G3), with its members' infos.
	Info  *spec.QueuedPodInfo
	Group *spec.QueuedPodGroupInfo
	Cycle int64
	// Snapshot is what Snapshot returned.
	Snapshot *spec.Snapshot
	// Nominated is what NominatedPodsForNode returned ("nominated").
	Nominated []*spec.Pod
}

// exec performs the operation on q, a queue of profile p, through an
// executor that knows the client's pods; tick steps q's clock. In the
// podgroups profile "pop" is PopEntity.
func (in Input) exec(q spec.Queue, tick func(time.Duration) error, p spec.Profile) (schedqtest.Outcome, error) {
	switch {
	case in.Op.Kind == schedqtest.KindAdd && len(in.Pods) == 1:
		// A pod with a caller object, which the language cannot write
		// (harness.go): added as the client built it.
		p := in.Pods[0]
		o := schedqtest.Outcome{Op: in.Op, Step: spec.StepRecord{Rule: in.Op.Rule(), Pod: p.Key()}}
		o.Step.Err = q.Add(p)
		return o, nil
	case in.Op.Kind == schedqtest.KindAttempted && in.PoppedGroup != nil:
		// The executor hands back only what it popped itself; this is
		// what the client's PopEntity returned, handed back as a
		// scheduler would (a copy: the queue may keep it).
		pq, ok := q.(spec.PodGroupQueue)
		if !ok {
			return schedqtest.Outcome{}, schedqtest.ErrNoPodGroupQueue
		}
		info := in.PoppedGroup.Info
		info.Members = slices.Clone(info.Members)
		o := schedqtest.Outcome{Op: in.Op, Step: spec.StepRecord{Rule: in.Op.Rule(), Group: info.Key()}}
		o.Step.Err = pq.AddAttemptedPodGroupIfNeeded(&info, in.PoppedGroup.Cycle, in.Op.Status)
		return o, nil
	}
	return in.executor(q, tick).ForProfile(p).Apply(in.Op)
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
