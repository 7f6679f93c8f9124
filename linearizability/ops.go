package linearizability

import (
	"fmt"
	"time"

	"github.com/schedq/schedq/spec"
)

// Kind names a queue operation as it appears in a history.
type Kind int

// The operations a history holds. Step is a clock step: the fake clock the
// queue reads moves forward by Input.D.
const (
	Add Kind = iota
	Pop
	AddUnschedulable
	MoveAll
	FlushBackoffQ
	FlushLeftover
	Activate
	Update
	Delete
	AssignedPodAdded
	AssignedPodUpdated
	Done
	Step
	Snapshot
	SchedulingCycle
	Close
)

var kindNames = [...]string{
	Add: "Add", Pop: "Pop", AddUnschedulable: "AddUnschedulable", MoveAll: "MoveAll",
	FlushBackoffQ: "FlushBackoffQ", FlushLeftover: "FlushLeftover", Activate: "Activate",
	Update: "Update", Delete: "Delete", AssignedPodAdded: "AssignedPodAdded",
	AssignedPodUpdated: "AssignedPodUpdated", Done: "Done", Step: "Step",
	Snapshot: "Snapshot", SchedulingCycle: "SchedulingCycle", Close: "Close",
}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// PreCheck is a named spec.PreEnqueueCheck, so a history can say which one a
// move request used. Fn must be a pure function of the pod.
type PreCheck struct {
	Name string
	Fn   spec.PreEnqueueCheck
}

// Input is one operation's call: the kind and its arguments. Fields an
// operation does not take are zero.
type Input struct {
	Kind Kind
	// Pod is the pod of Add, Delete, AssignedPodAdded, and the new pod of
	// Update and AssignedPodUpdated.
	Pod *spec.Pod
	// OldPod is the old pod of Update and AssignedPodUpdated.
	OldPod *spec.Pod
	// Pods are the pods of Activate.
	Pods []*spec.Pod
	// Info and Cycle are the arguments of AddUnschedulableIfNotPresent.
	Info  *spec.QueuedPodInfo
	Cycle int64
	// Event is the event of MoveAll and AssignedPodUpdated.
	Event spec.ClusterEvent
	// PreCheck is MoveAll's filter; a nil Fn lets every pod through.
	PreCheck PreCheck
	// UID is the argument of Done.
	UID spec.UID
	// D is the clock step of Step.
	D time.Duration
}

// Output is what an operation returned.
type Output struct {
	// Err is the error the operation returned.
	Err error
	// Info and Cycle are what Pop returned (Info is a copy taken at
	// return); Cycle is also SchedulingCycle's result.
	Info  *spec.QueuedPodInfo
	Cycle int64
	// Snapshot is what Snapshot returned.
	Snapshot *spec.Snapshot
}
