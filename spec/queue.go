package spec

import "errors"

// Errors returned by queues. Operations wrap them with the pod and the
// reason; test with errors.Is. An operation that returns an error has
// changed nothing.
var (
	// ErrNilPod: a nil pod or nil QueuedPodInfo.
	ErrNilPod = errors.New("schedq: nil pod")
	// ErrInvalidPod: a pod with an empty name or UID, negative attempts, or
	// an Update whose old and new pods have different keys.
	ErrInvalidPod = errors.New("schedq: invalid pod")
	// ErrAlreadyQueued: Add of a pod the queue already holds (in activeQ or
	// in flight), AddUnschedulableIfNotPresent of a pod in one of the three
	// queues (R1, R3), or any operation that would make the queue hold a
	// UID under a second key: a UID names one pod object, and Done (R12)
	// must know which pod it ends (I1).
	ErrAlreadyQueued = errors.New("schedq: pod already queued")
	// ErrPodNotFound: Delete of a pod the queue does not hold (R10).
	ErrPodNotFound = errors.New("schedq: pod not found")
	// ErrNotInFlight: Done of a UID that is not in flight (R12).
	ErrNotInFlight = errors.New("schedq: pod not in flight")
	// ErrClosed: Pop on a closed queue (R2, R13).
	ErrClosed = errors.New("schedq: queue closed")
	// ErrWouldBlock: Pop on an empty activeQ of a queue that cannot wait,
	// i.e. the sequential model. A concurrent queue blocks instead (R2).
	ErrWouldBlock = errors.New("schedq: activeQ is empty and Pop would block")
	// ErrInvalidConfig: Config.Validate failed.
	ErrInvalidConfig = errors.New("schedq: invalid config")
)

// PreEnqueueCheck filters the pods a move request may move (R4); nil lets
// every pod through. It must be a pure function of the pod.
type PreEnqueueCheck func(pod *Pod) bool

// Queue is the scheduling queue contract, rules R1..R13 of DESIGN.md. Both
// the executable model (package model) and the concurrent implementation
// (package impl) satisfy it, so every rule test runs against both.
//
// Time is not part of the interface: the model takes it as an explicit
// input, the implementation reads an injected clock.
type Queue interface {
	// Add is R1: a new pod enters activeQ with Timestamp=now and
	// Attempts=0, and wakes a blocked Pop. ErrAlreadyQueued if the queue
	// already holds the key anywhere, including in flight.
	Add(pod *Pod) error
	// Pop is R2: it removes a maximal pod of activeQ (I5), increments its
	// Attempts and schedulingCycle, clears its UnschedulablePlugins, and
	// puts it in flight. It returns the pod and podSchedulingCycle, the
	// cycle to hand back to AddUnschedulableIfNotPresent. It blocks while
	// activeQ is empty and returns ErrClosed once the queue is closed.
	Pop() (pInfo *QueuedPodInfo, podSchedulingCycle int64, err error)
	// AddUnschedulableIfNotPresent is R3: a failed pod comes back. See the
	// moveRequestCycle shortcut in DESIGN.md.
	AddUnschedulableIfNotPresent(pInfo *QueuedPodInfo, podSchedulingCycle int64) error
	// MoveAllToActiveOrBackoffQueue is R4.
	MoveAllToActiveOrBackoffQueue(event ClusterEvent, preCheck PreEnqueueCheck)
	// FlushBackoffQCompleted is R5; the implementation also runs it every
	// BackoffQFlushPeriod.
	FlushBackoffQCompleted()
	// FlushUnschedulablePodsLeftover is R6; the implementation also runs it
	// every UnschedulablePodsFlushPeriod.
	FlushUnschedulablePodsLeftover()
	// Activate is R8.
	Activate(pods []*Pod) error
	// Update is R9.
	Update(oldPod, newPod *Pod) error
	// Delete is R10.
	Delete(pod *Pod) error
	// AssignedPodAdded is R11.
	AssignedPodAdded(pod *Pod) error
	// AssignedPodUpdated is R11 for an update of an assigned pod, raised as
	// event (EventAssignedPodUpdate or a narrower one).
	AssignedPodUpdated(oldPod, newPod *Pod, event ClusterEvent) error
	// Done is R12.
	Done(uid UID) error
	// Close is R13. It is idempotent.
	Close()
	// SchedulingCycle returns the number of Pops so far.
	SchedulingCycle() int64
	// Snapshot returns a copy of everything the queue holds (Snapshot).
	Snapshot() Snapshot
}

// Rule is a rule id of DESIGN.md.
type Rule string

// The rules.
const (
	R1Add                Rule = "R1 Add"
	R2Pop                Rule = "R2 Pop"
	R3AddUnschedulable   Rule = "R3 AddUnschedulableIfNotPresent"
	R4MoveAll            Rule = "R4 MoveAllToActiveOrBackoffQueue"
	R5FlushBackoffQ      Rule = "R5 flushBackoffQCompleted"
	R6FlushUnschedulable Rule = "R6 flushUnschedulablePodsLeftover"
	R7Backoff            Rule = "R7 Backoff"
	R8Activate           Rule = "R8 Activate"
	R9Update             Rule = "R9 Update"
	R10Delete            Rule = "R10 Delete"
	R11AssignedPod       Rule = "R11 AssignedPodAdded/Updated"
	R12Done              Rule = "R12 Done"
	R13Close             Rule = "R13 Close"
	R14Metrics           Rule = "R14 Metrics"
	RTick                Rule = "clock tick"
)

// Location is where the queue holds a pod.
type Location int

// The places a pod can be. I1: every pod the queue holds is in exactly one.
const (
	Nowhere Location = iota
	InActiveQ
	InBackoffQ
	InUnschedulablePods
	InFlight
)

func (l Location) String() string {
	switch l {
	case InActiveQ:
		return "activeQ"
	case InBackoffQ:
		return "backoffQ"
	case InUnschedulablePods:
		return "unschedulablePods"
	case InFlight:
		return "inFlight"
	}
	return "nowhere"
}
