package spec

import "errors"

// Errors returned by queues. Operations wrap them with the pod and the
// reason; test with errors.Is. An operation that returns an error has
// changed nothing (I4).
var (
	// ErrNilPod: a nil pod or nil QueuedPodInfo.
	ErrNilPod = errors.New("schedq: nil pod")
	// ErrInvalidPod: a pod that Pod.Validate refuses (an empty name or UID,
	// a "/" in its namespace or name), a QueuedPodInfo with negative
	// Attempts, or an Update whose old and new pods have different keys.
	ErrInvalidPod = errors.New("schedq: invalid pod")
	// ErrAlreadyQueued: Add of a pod in activeQ or in flight (R1),
	// AddUnschedulableIfNotPresent of a pod in activeQ, backoffQ or
	// unschedulablePods (R3), or an Add, AddUnschedulableIfNotPresent or
	// Update that would make the queue hold a UID under a second key: a
	// UID names one pod object, and Done (R12) must know which pod it ends
	// (I1). Add of a pod parked in backoffQ or unschedulablePods is not an
	// error: the pod is replaced (R1).
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
	// ErrInvalidEvent: an event with no resource or action, or with an
	// action bit outside All (ClusterEvent.Validate).
	ErrInvalidEvent = errors.New("schedq: invalid event")
	// ErrInvalidConfig: Config.Validate failed.
	ErrInvalidConfig = errors.New("schedq: invalid config")
)

// PreEnqueueCheck filters the pods a move request may move (R4); nil lets
// every pod through. It must be a pure function of the pod and must not
// call the queue: a concurrent queue may run it under its lock.
type PreEnqueueCheck func(pod *Pod) bool

// Queue is the scheduling queue contract. This comment and the comments of
// the methods below are its normative text: every rule has an id, R1 to
// R14, every invariant too, I1 to I6, and the model, the implementation,
// the TLA+ specification and every test cite them. Package model executes
// the contract one step at a time and is the oracle of every suite;
// package impl is a concurrent queue that satisfies it; package
// conformance checks any queue against it.
//
// The semantics are those of the classic kube-scheduler queue:
// kube-scheduler v1.33.13, pkg/scheduler/backend/queue, with the feature
// gates SchedulerQueueingHints and SchedulerPopFromBackoffQ off. Where
// schedq departs from that source on purpose, the rule says so and why.
// That is the classic profile, Config.Profile's zero value. The hints
// profile (ProfileHints, kube-scheduler v1.37.2 with its default gates)
// shares this interface and this text except where its own rules say
// otherwise: R1h-R17 in hints.go, its invariants in hints_invariants.go,
// and the decisions D1-D7 that separate the two profiles on Profile.
//
// # State
//
// A queue holds pods by key (Pod.Key, "namespace/name"). Every pod it holds
// is in exactly one of four places (I1):
//
//   - activeQ: pods ready to be scheduled, popped in Less order (higher
//     priority first, then earlier Timestamp).
//   - backoffQ: failed pods waiting for their backoff (R7) to complete;
//     the backoffQ flush (R5) releases them to activeQ.
//   - unschedulablePods: failed pods waiting for a cluster event that may
//     make them schedulable (R4, R9, R11), or for the leftover flush (R6).
//   - in flight: popped pods being scheduled, until the scheduler hands
//     them back as failed (R3) or ends them (R12).
//
// With each pod the queue keeps a QueuedPodInfo: Timestamp, Attempts,
// UnschedulablePlugins and InitialAttemptTimestamp, whose comments say
// which rules set them. No two pods the queue holds share a UID. The queue
// also keeps two counters: schedulingCycle, 0 at first, the number of
// successful Pops; and moveRequestCycle, -1 at first, the value of
// schedulingCycle at the last move request. A pod that fails in a cycle
// during or after which a move request happened (moveRequestCycle >= its
// podSchedulingCycle) may have missed the very event that would have
// helped it, so it must not wait for another in unschedulablePods: that is
// the moveRequestCycle shortcut of R3, and I3 states it.
//
// now is the queue's clock: an explicit input of the model
// (model.Model.Step), an injected clock in a real queue. An operation
// reads it once: every pod an operation moves is judged at the same now.
//
// # Moves
//
// Several rules share three steps, defined once here.
//
// Entering activeQ (every rule that puts a pod there): if the pod's
// InitialAttemptTimestamp is zero it becomes now, and one blocked Pop is
// woken for each pod that entered.
//
// Requeueing a pod (R4, R6, R9, R11): it goes to backoffQ if it is still
// backing off at now (R7, Config.IsBackingOff), else it enters activeQ. Its
// Timestamp, Attempts and UnschedulablePlugins are kept.
//
// A move request for an event over a set of pods in unschedulablePods
// (R4, R6, R11): if the event is not a wildcard and no plugin registered
// an event that matches it (PluginEvents.IsEventOfInterest), nothing
// changes at all, moveRequestCycle included. Otherwise every pod of the
// set that the event may help is requeued, and moveRequestCycle becomes
// schedulingCycle even if no pod moved, so that the pods in flight now
// take the shortcut when they fail (I3). The event may help a pod
// (PluginEvents.IsPodWorthRequeuing) if no plugin rejected it, if the event
// is a wildcard, or if one of the plugins in its UnschedulablePlugins
// registered an event that matches it (ClusterEvent.Match). The outcome
// does not depend on the order in which the pods are examined.
//
// # Backoff
//
// R7: a pod with Attempts a has a backoff of 0 if a is 0, else
// PodInitialBackoffDuration * 2^(a-1) capped at PodMaxBackoffDuration (by
// default 1s, 2s, 4s, 8s, then 10s), computed without overflow
// (BackoffDuration). Its expiry is its Timestamp plus its backoff
// (Config.BackoffExpiry). It is backing off at now while its expiry is not
// before now: a pod whose expiry equals now is still backing off, one
// nanosecond later it is not (Config.IsBackingOff; upstream v1.33's
// isPodBackingoff tests !expiry.Before(now)). A pod never attempted is
// never backing off.
//
// The two flushes, R5 and R6, are operations of their own so that a test
// can run them at a chosen instant; a running queue also runs them every
// BackoffQFlushPeriod (1s) and every UnschedulablePodsFlushPeriod (30s).
//
// # Errors
//
// Every operation that takes a pod validates it first (Pod.Validate,
// QueuedPodInfo.Validate): ErrNilPod or ErrInvalidPod. It then checks for
// conflicts (ErrAlreadyQueued, ErrPodNotFound, ErrNotInFlight) before it
// changes anything. An operation that returns an error has changed
// nothing (I4), and the error wraps one of the Err values of this package
// (test with errors.Is).
//
// # Metrics
//
// R14: a queue that exports metrics uses upstream's names and labels:
//
//   - scheduler_pending_pods, a gauge by label queue: "active", "backoff"
//     and "unschedulable" count the pods of each place, "gated" is always
//     0 (this profile has no scheduling gates). Pods in flight are not
//     pending.
//   - scheduler_queue_incoming_pods_total, a counter of the pods entering
//     a place, by labels queue ("active", "backoff", "unschedulable") and
//     event: Add counts ("active", "UnschedulablePodAdd");
//     AddUnschedulableIfNotPresent ("backoff" or "unschedulable",
//     "ScheduleAttemptFailure"); the backoffQ flush ("active",
//     "BackoffComplete"); a move request (R4, R6, R11) ("active" or
//     "backoff", the event's ClusterEvent.EventLabel, e.g. "NodeAdd",
//     "UnschedulableTimeout", "AssignedPodAdd"); Activate ("active",
//     "ForceActivate"); Update, for a pod in unschedulablePods that it
//     moves or a pod that it adds ("active" or "backoff",
//     "UnschedulablePodUpdate"). Pop, Delete, Done and updates in place
//     count nothing.
//
// # Invariants
//
// After every operation (CheckState, CheckStep state them exactly):
//
//   - I1 single-queue membership: every pod the queue holds is in exactly
//     one place, and no UID is held under two keys.
//   - I2 backoff monotonicity: the backoff never decreases with Attempts
//     and never exceeds the maximum; a pod's expiry never moves earlier
//     while it waits in backoffQ; the backoffQ flush releases exactly the
//     pods whose backoff completed; no move request and no Update sends a
//     pod from unschedulablePods to activeQ while it is still backing off
//     (Activate may: that is its purpose).
//   - I3 the moveRequestCycle shortcut: a pod that fails in a cycle during
//     or after which a move request happened, or that no plugin rejected,
//     never lands in unschedulablePods.
//   - I4 conservation: no operation loses, duplicates or invents a pod,
//     and a failed operation changes nothing.
//   - I5 order: Pop returns a maximal pod of activeQ.
//   - I6 cycles: schedulingCycle grows by exactly one per successful Pop
//     and never otherwise; -1 <= moveRequestCycle <= schedulingCycle, and
//     moveRequestCycle never decreases.
//
// # Concurrency
//
// A queue for concurrent use (package impl) makes each method take effect
// atomically, at one instant between its call and its return, so that
// every concurrent history is explained by some sequential order of the
// same calls under this contract (package linearizability checks that).
// The sequential model is not safe for concurrent use.
type Queue interface {
	// Add is R1: the informer saw a pending pod.
	//
	// If the queue does not hold the pod's key, or holds it in backoffQ or
	// unschedulablePods, the pod enters activeQ as a fresh entry: Timestamp
	// now, Attempts 0, no UnschedulablePlugins, InitialAttemptTimestamp
	// now. A pod parked in backoffQ or unschedulablePods is replaced by
	// that entry, its attempts and backoff forgotten, as upstream does when
	// the informer delivers the pod again. Add wakes a blocked Pop and
	// changes neither cycle.
	//
	// ErrAlreadyQueued if the pod is in activeQ or in flight, or if
	// another key holds its UID. Taking a pod in activeQ or in flight again
	// could only duplicate it (I1) or silently reset its attempts; upstream
	// v1.33 resets a pod in activeQ, and queues a second copy of a pod in
	// flight, which it does not track.
	Add(pod *Pod) error

	// Pop is R2: the scheduler takes the next pod to schedule.
	//
	// Pop removes a maximal pod of activeQ, one that no other pod in
	// activeQ precedes under Less (I5). Pods tied under Less are unordered
	// upstream (heap order), so every maximal pod is an allowed outcome
	// (MaximalPods); a queue may break ties as it likes. The pod's
	// Attempts grows by one, its UnschedulablePlugins are cleared, its
	// Timestamp and InitialAttemptTimestamp are kept, and it is in flight.
	// schedulingCycle grows by one; moveRequestCycle is unchanged.
	//
	// Pop returns a copy of the pod's QueuedPodInfo that the caller owns
	// (the scheduler records the rejecting plugins on it and hands it back
	// to AddUnschedulableIfNotPresent), and podSchedulingCycle, the new
	// schedulingCycle, to hand back with it.
	//
	// While activeQ is empty Pop blocks until a pod enters activeQ or the
	// queue is closed; a queue that cannot wait (package model) returns
	// ErrWouldBlock instead and changes nothing. Once the queue is closed
	// Pop returns ErrClosed, even if activeQ is not empty (R13).
	Pop() (pInfo *QueuedPodInfo, podSchedulingCycle int64, err error)

	// AddUnschedulableIfNotPresent is R3: a pod whose scheduling attempt
	// failed comes back, with the plugins that rejected it in
	// pInfo.UnschedulablePlugins and the podSchedulingCycle Pop returned
	// for it.
	//
	// The queue keeps a copy of pInfo: its Pod, Attempts and
	// InitialAttemptTimestamp as given, UnschedulablePlugins normalised to
	// a PluginSet (sorted, without duplicates, as NewPluginSet), and
	// Timestamp now. The pod is no longer in flight. It goes to backoffQ
	// if a move request happened during or after its cycle
	// (moveRequestCycle >= podSchedulingCycle: the event that would have
	// helped it may already have come and gone, the moveRequestCycle
	// shortcut, I3), or if no plugin rejected it (something other than a
	// plugin failed, and no plugin registered an event for that); else to
	// unschedulablePods. A pod in backoffQ with Attempts 0 has no backoff:
	// the next backoffQ flush releases it. Neither cycle changes and no Pop
	// is woken.
	//
	// The pod is normally in flight, but a queue accepts a pod it does not
	// hold too, as upstream does. ErrAlreadyQueued if the pod's key is in
	// activeQ, backoffQ or unschedulablePods (hence "IfNotPresent"), or if
	// another key holds its UID.
	AddUnschedulableIfNotPresent(pInfo *QueuedPodInfo, podSchedulingCycle int64) error

	// MoveAllToActiveOrBackoffQueue is R4: a cluster event happened that
	// may make pods in unschedulablePods schedulable.
	//
	// It is a move request for event (see Moves in the Queue comment) over
	// the pods in unschedulablePods that preCheck accepts, all of them when
	// preCheck is nil. An event no plugin registered for, unless a
	// wildcard, changes nothing. Otherwise each of those pods that the
	// event may help (every pod for a wildcard; a pod no plugin rejected; a
	// pod one of whose rejecting plugins registered a matching event) goes
	// to backoffQ if it is still backing off, else to activeQ; and
	// moveRequestCycle becomes schedulingCycle, even if no pod moved. Pods
	// in activeQ, in backoffQ and in flight are not touched.
	MoveAllToActiveOrBackoffQueue(event ClusterEvent, preCheck PreEnqueueCheck)

	// FlushBackoffQCompleted is R5: every pod in backoffQ whose backoff has
	// completed, its expiry strictly before now (R7), enters activeQ; the
	// others stay. The pods keep Timestamp, Attempts and
	// UnschedulablePlugins. It is not a move request: moveRequestCycle is
	// unchanged. A running queue runs it every BackoffQFlushPeriod.
	FlushBackoffQCompleted()

	// FlushUnschedulablePodsLeftover is R6: the pods that have waited in
	// unschedulablePods for strictly longer than
	// PodMaxInUnschedulablePodsDuration (5 minutes by default), that is
	// now - Timestamp > the limit, get a move request for the wildcard
	// event EventUnschedulableTimeout: each goes to backoffQ if it is still
	// backing off, else to activeQ, and moveRequestCycle becomes
	// schedulingCycle. A pod there for exactly the limit stays. (Its
	// Timestamp is when AddUnschedulableIfNotPresent parked it, the only way
	// into unschedulablePods.) When no pod is that old nothing happens,
	// moveRequestCycle included: upstream asks for the move only when it
	// has pods to move. A running queue runs it every
	// UnschedulablePodsFlushPeriod.
	FlushUnschedulablePodsLeftover()

	// Activate is R8: a plugin asks for pods to be tried again at once.
	// Each listed pod, in list order, is looked up by key (the queue keeps
	// its own pod object):
	//   - in unschedulablePods or backoffQ, it enters activeQ, backing off
	//     or not, keeping Timestamp, Attempts and UnschedulablePlugins;
	//   - anywhere else (in activeQ, in flight, or not held at all),
	//     moveRequestCycle becomes schedulingCycle, and a pod not held is
	//     not added. For a pod in flight that is the point: if it fails in
	//     this cycle it takes the shortcut of R3 rather than wait in
	//     unschedulablePods for an activation that already happened.
	//     Upstream v1.33 sets moveRequestCycle for every such pod, so an
	//     unknown pod advances it too.
	//
	// ErrNilPod or ErrInvalidPod if any listed pod is invalid; then nothing
	// changes. An empty list changes nothing.
	Activate(pods []*Pod) error

	// Update is R9: the informer saw a new version of a pending pod. oldPod
	// and newPod must have the same key (ErrInvalidPod otherwise); the UID
	// may differ. From now on the queue keeps newPod:
	//   - in activeQ, replaced in place: Timestamp, Attempts and
	//     UnschedulablePlugins are kept, and its rank in activeQ follows
	//     newPod's priority;
	//   - in backoffQ, replaced in place: its expiry does not change;
	//   - in unschedulablePods, replaced, and if the update may make it
	//     schedulable (IsPodUpdated(oldPod, newPod), comparing the two
	//     arguments: something other than ResourceVersion and Status
	//     changed) it is requeued: to backoffQ if it is still backing off,
	//     else to activeQ. This move is not a move request:
	//     moveRequestCycle is unchanged. After any other update it stays;
	//   - in flight with the same UID, replaced in place. Upstream v1.33
	//     classic mode does not track pods in flight and would queue a
	//     second copy in activeQ; schedq keeps I1 (with queueing hints
	//     upstream records the update instead of queueing the pod);
	//   - in flight under another UID: newPod is another object (the pod
	//     was deleted and created again under the same name, and the
	//     informer, after a relist, saw only an update). The attempt in
	//     flight was on an object that is gone, so it ends as by Delete
	//     (R10: its in-flight record and nomination go; Done of the old
	//     UID is then ErrNotInFlight, and AddUnschedulableIfNotPresent of
	//     it ErrAlreadyQueued), and newPod is added as by Add (R1). A pod
	//     in flight thus always has the UID it is known by, which Done
	//     and the in-flight list rely on;
	//   - not held, added as by Add (R1).
	//
	// Neither cycle changes. ErrAlreadyQueued if another key holds
	// newPod's UID.
	Update(oldPod, newPod *Pod) error

	// Delete is R10: the pod was deleted. The pod with its key leaves
	// whichever place holds it, in flight included: a deleted pod must not
	// be retried. Only the key is compared. Neither cycle changes.
	// ErrPodNotFound if the queue does not hold the key.
	Delete(pod *Pod) error

	// AssignedPodAdded is R11: pod was bound to a node, which may make
	// pods that want to be near it schedulable. The pods in
	// unschedulablePods it may help, as upstream's
	// getUnschedulablePodsWithCrossTopologyTerm selects them, are:
	//   - those with a required affinity term that pod matches
	//     (AffinityTerm.Matches: pod lives in one of the term's namespaces,
	//     or in the waiting pod's own when the term lists none, and carries
	//     every label of MatchLabels);
	//   - those that PodTopologySpread rejected (PluginPodTopologySpread in
	//     their UnschedulablePlugins) in pod's namespace.
	//
	// They get a move request for EventAssignedPodAdd: if a plugin
	// registered a matching event, each of them that the event may help is
	// requeued, and moveRequestCycle becomes schedulingCycle even if no pod
	// was selected.
	AssignedPodAdded(pod *Pod) error

	// AssignedPodUpdated is R11 for an update of a bound pod, raised as
	// event: EventAssignedPodUpdate, or a narrower one such as
	// {ResourceAssignedPod, UpdatePodLabel}. If event is a scale-down
	// (ClusterEvent{Resource: ResourcePod, ActionType:
	// UpdatePodScaleDown}.Match(event): a pod resource with the
	// UpdatePodScaleDown bit, which EventAssignedPodUpdate has), the
	// resources it freed may help any pod, so every pod in
	// unschedulablePods gets the move request, as
	// MoveAllToActiveOrBackoffQueue(event, nil). Otherwise the pods newPod
	// may help are selected as in AssignedPodAdded and get a move request
	// for event. oldPod may be nil.
	AssignedPodUpdated(oldPod, newPod *Pod, event ClusterEvent) error

	// Done is R12: the scheduling attempt of the pod in flight with this
	// UID ended (the pod was bound, or the scheduler gave up on it), and
	// the pod leaves the queue. Neither cycle changes. ErrNotInFlight if
	// no pod in flight has this UID, including a pod that
	// AddUnschedulableIfNotPresent already took back.
	Done(uid UID) error

	// Close is R13: blocked Pops return ErrClosed, and so does every later
	// Pop, even when activeQ is not empty. A running queue stops its
	// flushes; no goroutine of the queue is left once Close returns.
	// Snapshot().Closed becomes true. Every other operation keeps working
	// on the state, as upstream. Close is idempotent (upstream v1.33
	// panics on a second Close).
	Close()

	// SchedulingCycle returns schedulingCycle: the number of successful
	// Pops so far (I6).
	SchedulingCycle() int64

	// Snapshot returns a copy of everything the queue holds at one
	// instant: the pods of each place, each list sorted by key
	// (SortPods), both cycles, Closed, and now. The copies share the
	// immutable Pod pointers and nothing else: changing them does not
	// change the queue.
	Snapshot() Snapshot
}

// ObjectQueue is a Queue that also takes what Queue's signatures cannot
// carry: the objects of a move request's event and the caller's verdict on
// an update. Pods carry their caller objects through Queue itself
// (Pod.Object, R19). package model implements it; a queue that does not
// (package impl, for now) takes the same calls through Queue, without the
// event's objects and with the derived verdict.
type ObjectQueue interface {
	Queue

	// MoveAllToActiveOrBackoffQueueWithObjects is R4 (R4h) for occ.Event
	// with the objects the caller passes with it (R19): Old and New for
	// a pod event, OldObject and NewObject for any other (a Node, a
	// PersistentVolume). The queue hands them to every queueing hint it
	// asks (R16) and records them with the event in the in-flight list
	// (R15), untouched; it never reads OldObject and NewObject itself, so
	// in the classic profile, which has no hints, they change nothing.
	// Upstream: MoveAllToActiveOrBackoffQueue(logger, event, oldObj,
	// newObj, preCheck). ErrInvalidEvent if occ.Event is invalid
	// (ClusterEvent.Validate: no resource, no action, an unknown action
	// bit); then nothing changes.
	MoveAllToActiveOrBackoffQueueWithObjects(occ Occurrence, preCheck PreEnqueueCheck) error

	// UpdateWithChange is R9 (R9h) with the caller's verdict on the
	// update, computed on the whole object the caller has: change.Relevant
	// decides in the classic profile whether a pod in unschedulablePods
	// is requeued, change.Events are in the hints profile the events the
	// update raises (evaluated for a pod in unschedulablePods, recorded
	// for a pod in flight). A nil change is Update's: DerivePodChange, the
	// comparison of the fields Pod models. ErrInvalidEvent if an event of
	// change is invalid; then nothing changes.
	UpdateWithChange(oldPod, newPod *Pod, change *PodChange) error
}

// Rule names a rule of the contract, stated in the comments of Queue and
// its methods. Each value starts with the rule's id, so that failures,
// scenarios and the TLA+ specification all cite it the same way.
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
	// R19Objects is both profiles' rule for the caller's objects (the
	// Objects section of Queue's comment).
	R19Objects Rule = "R19 caller objects"
	// RTick is not a rule: it labels a step that only moves the clock.
	RTick Rule = "clock tick"
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
