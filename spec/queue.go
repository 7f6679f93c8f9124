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
// the methods below are its normative text: every rule has an id, R1-R22
// (with the hints profile's R1h-R14h), every invariant too, I1-I8, and the
// model, the implementation, the TLA+ specification and every test cite
// them. Package model executes
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
// otherwise: each method states its hints-profile rule (R1h-R14h) under
// its classic text, the sections below state R15 and R16, which only the
// hints profile has, and R17-R19, which hold in both; the hints profile's
// invariants are in hints_invariants.go, and the decisions D1-D7 that
// separate the two profiles on Profile.
//
// Words of the hints profile: the rejectors of a pod are its
// UnschedulablePlugins together with its PendingPlugins. The in-flight
// list is the ordered list of markers (one per pod in flight, placed where
// its Pop happened) and event records (events received while some pod was
// in flight). The order of markers with no event record between them is
// not part of the contract: no operation can tell it (EventsAfter and
// TrimInFlight give every pod the same records whatever it is), and
// kube-scheduler's Pop of a pod group pushes its members in an order of
// its own (its member order as each member joined), so two lists that
// differ only there are the same state (InFlightEquivalent).
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
//     make them schedulable (R4, R9, R11), or for the leftover flush (R6);
//     and gated pods, which a PreEnqueue plugin refused (R17).
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
// Hints profile (R7h): the count is ConsecutiveErrorsCount if positive,
// else UnschedulableCount; the duration is HintsBackoffDuration(count) (0
// for count 0 and for a max backoff of 0, which switches backoff off); the
// expiry is Timestamp plus the duration truncated to its one-second
// ordering window (BackoffOrderingWindow); a pod is still backing off
// while its expiry is not before the start of the current window.
//
// The two flushes, R5 and R6, are operations of their own so that a test
// can run them at a chosen instant; a running queue also runs them every
// BackoffQFlushPeriod (1s) and every UnschedulablePodsFlushPeriod (30s).
//
// # PreEnqueue (R17, both profiles)
//
// Config.PreEnqueuePlugins (scheduling gates and their like) decide whether
// a pod may enter the queue's ready places; Config.RunPreEnqueue runs them
// (the pod's gating plugin first, then the others by name; the first
// refusal decides). A refused pod is gated: the refusing plugin becomes its
// GatingPlugin and joins its UnschedulablePlugins, and it waits in
// unschedulablePods with its Timestamp and Attempts unchanged. An admitted
// pod is no longer gated; the plugin stays among its UnschedulablePlugins
// until Pop clears them (classic) or the scheduler replaces them (hints).
//
// Classic (v1.33.13, queueing hints off): PreEnqueue runs whenever a pod
// is about to enter activeQ, from anywhere (Add, the backoffQ flush,
// Activate, a requeue by a move request or an Update), and never on entry
// to backoffQ (v1.33 runs it there only with SchedulerPopFromBackoffQ on).
// A pod gated by SchedulingGates (PluginSchedulingGates) is left out of
// every move request (R4, R6, R11), wildcards included: only an Update
// that may make it schedulable, or Activate, runs its plugins again
// (SkippedWhileGated). A pod gated by any other plugin is examined like
// any other pod: its UnschedulablePlugins decide, and a requeue towards
// activeQ runs PreEnqueue again. Activate that leaves a pod gated sets
// moveRequestCycle (R8).
//
// Hints: PreEnqueue runs on entering activeQ or backoffQ (R1h, R3h, R4h,
// R8h, R9h) but not again on leaving backoffQ (R5h). A move request
// examines a gated pod only for a wildcard or an event its gating plugin
// registered (R4h).
//
// # Caller objects (R19, both profiles)
//
// A queue carries the caller's own objects and never reads them. Every
// pod may carry one (Pod.Object, a *v1.Pod say): the queue keeps it with
// the pod and hands it back untouched wherever it hands back the pod (Pop,
// Snapshot, the nominator, the objects of events). Every event may carry
// objects (Occurrence): the pods of a pod event (the assigned pod of R11,
// both versions of an update of the pod itself, R9h), and the caller's
// objects of any other event (OldObject, NewObject: a Node, a
// PersistentVolume), which a caller passes through ObjectQueue. The queue
// hands an event's objects to every queueing hint it asks about the event
// (R16), and records them with the event in the in-flight list (R15), so
// that the replay of a pod that was in flight shows its hints the very
// objects of the events it missed (R3h). In the classic profile no hint is
// asked (a registered event means Queue), so objects change no classic
// answer. A hint given an object of the wrong type, or none, should answer
// with an error (ObjectAs), which counts as Queue (R16), as upstream treats
// a hint error; a hint that panics counts as an error too: the queue never
// panics for its caller's code.
//
// How relevant an Update is belongs to the caller too, who has the whole
// object: ObjectQueue.UpdateWithChange takes its verdict (PodChange:
// Relevant for the classic profile, the update's Events for the hints
// profile); Update, and UpdateWithChange without one, derive it from the
// fields Pod models (DerivePodChange), which cannot see a toleration, a
// request or a node selector change (R9, R9h).
//
// # Queueing hints and the in-flight list (R15, R16: hints profile only)
//
// R16: a plugin that registered an event may register a queueing hint for
// it (Config.QueueingHints, HintsMatch says which registrations an
// incoming event matches); a registration without one answers Queue. For
// one pod and one occurrence, PodStrategy decides: a pod with no rejectors
// is requeued after backoff; a wildcard aimed at another pod skips it, any
// other wildcard requeues it after backoff; otherwise the most urgent
// answer of its rejectors' hints for the matching registrations: a Queue
// (or an error) from a pending plugin sends it to activeQ at once, from
// another rejector after backoff; no Queue leaves it where it is.
//
// R15: while some pod is in flight, every event of interest a move request
// or an update of an in-flight pod raises is recorded, with its objects
// (R19), after the markers of the pods in flight; ReplayStrategy replays
// the records after a failing pod's marker through its rejectors' hints
// (R3h). Only events of interest are recorded, and only while some pod is
// in flight, so the list is empty whenever nothing is (I7).
//
// # Pre-queueing hints (R20-R22: hints profile with Config.PreQueueing)
//
// Config.PreQueueing is a setting of the hints profile (and so of the
// podgroups profile): off in v1.37.2's defaults, where every rule above
// holds as written; on in kube-scheduler v1.38's (the gate
// SchedulerPreQueueingHints, beta and on from v1.38.0-beta.0). With it
// off, nothing in this section applies.
//
// R20: a registration (plugin, event) may have a pre-queueing hint
// (Config.PreQueueingHints): a pure function of the occurrence alone that
// answers which parked pods, by key, its plugin's queueing hints may
// requeue for it, or all pods (PreQueueingResult). A move request (R4h,
// and the assigned-pod requests of R11h) asks them before it evaluates any
// pod, unless its event is a wildcard or carries no object at all; the
// replay of a failed pod (R3h), an Update of a parked pod (R9h), Activate
// and the leftover flush (R6h) never ask them. Every registration of every
// plugin that matches the event is asked; a plugin is narrowed when all of
// its matching registrations name pods, to the union of the keys they
// name; a registration without a pre-queueing hint, or whose hint answers
// all pods, fails or panics, leaves its plugin unnarrowed
// (Config.PreQueueingNarrowing).
//
// R21: when every plugin asked is narrowed, the request evaluates only the
// parked pods whose key some plugin named (that pass preCheck): every other
// parked pod is left as it is, unevaluated, whatever its queueing hints
// would have answered, gated or not; a named key that is not parked is
// ignored. When some plugin is unnarrowed, the request evaluates every
// parked pod, as R4h (Narrowing.Evaluates). A request that evaluates only
// the named pods costs in proportion to them, not to unschedulablePods.
//
// R22: a narrowed plugin's queueing hints are asked only about the pods it
// named; about any other pod it answers QueueSkip unasked, even in a
// request that evaluates every parked pod (Config.MoveStrategy). Nothing
// else of R16 and R4h changes: a pod with no rejectors is requeued after
// backoff if evaluated; the gated filter (R4h) runs first, and a gating
// plugin is a rejector, narrowed like any other. The in-flight list (R15)
// records the event whether or not it was narrowed, and a pod in flight
// replays it through its queueing hints alone (R3h): pre-queueing hints
// choose among parked pods, never among pods in flight.
//
// In the podgroups profile the setting comes with v1.38's group rules
// (Config.PodGroupsV138): G12, PreEnqueue over a group stops at its first
// refused member in MemberOrder; G13, a gated group's strategy skips its
// members without rejectors unless none is gated; G14, a narrowed request
// evaluates a parked group only if it named one of the group's pods, each
// member asking only the plugins that named it. PodGroupQueue states them.
//
// Their invariant is I8 (prequeue_invariants.go): pre-queueing hints only
// leave pods parked, and only where one was unsound (left out a pod its own
// queueing hint requeues); the contract allows that, as upstream does, and
// the leftover flush, never narrowed, bounds the wait (L1).
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
//     and "unschedulable" count the pods of each place, gated pods aside:
//     "gated" counts those (R17). Pods in flight are not pending.
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
//     "UnschedulablePodUpdate"). A pod that PreEnqueue sends to
//     unschedulablePods instead (R17) counts there ("unschedulable") with
//     the same event. Pop, Delete, Done and updates in place count
//     nothing.
//
// Hints profile (R14h), as v1.37.2 names them: scheduler_pending_pods as
// above. scheduler_queue_incoming_pods_total counts every entry into
// activeQ (replacements included) and backoffQ, and every entry of a key
// new to unschedulablePods, with event labels "UnscheduledPodAdd" (R1h,
// and R9h of a pod not held; v1.37.2 renamed the resource, classic says
// "UnschedulablePodAdd"), "ScheduleAttemptFailure", "BackoffComplete",
// "ForceActivate", "UnschedulableTimeout", a move request's or an update's
// event label (e.g. "NodeAdd", "TargetPodUpdatePodLabel"), and ("active",
// "PopFromBackoffQ") for R2h's pop from backoffQ.
// scheduler_unschedulable_pods{plugin,profile}: for each plugin, the
// queued (not in flight) pods that have it as a rejector (Pop and Delete
// subtract, R3h and a new PreEnqueue refusal add).
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
	// unschedulablePods, the pod enters activeQ, if PreEnqueue admits it
	// (R17; refused, it waits gated in unschedulablePods), as a fresh entry: Timestamp
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
	// Upstream v1.33 leaves a parked entry (its old pod object, attempts and
	// rejecting plugins) in place when PreEnqueue refuses the fresh one;
	// schedq replaces it as above, so that the queue holds the pod object the
	// informer delivered last.
	//
	// Hints profile (R1h): the fresh entry carries no counts and no
	// rejectors and must pass PreEnqueue (R17) on its way to activeQ. Key
	// handling is R1's. Upstream v1.37.2 instead replaces an activeQ entry,
	// leaves a backoffQ entry where it is while also adding the fresh one to
	// activeQ, and adds an in-flight pod to activeQ a second time; schedq
	// keeps one place per pod (I1).
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
	// schedulingCycle, to hand back with it. The caller owns the copy, and
	// the plugin sets in it, until it hands the copy back to
	// AddUnschedulableIfNotPresent: from then on a queue may refill it for
	// the pod's next Pop, so a caller that still needs the pod reads it
	// first. Done (R12) leaves the copy with the caller: whoever ends the
	// cycle may be another goroutine than the one reading the copy.
	// Upstream's guide: its Pop hands out the queue's own QueuedPodInfo,
	// which the queue keeps again when the scheduler hands it back;
	// refilling the copy is what lets a pod's retries pop without
	// allocating. The plugin sets in the copy may be shared with the queue
	// and are read-only: a caller records other plugins by assigning a new
	// set, as the scheduler does.
	//
	// While activeQ is empty Pop blocks until a pod enters activeQ or the
	// queue is closed; a queue that cannot wait (package model) returns
	// ErrWouldBlock instead and changes nothing. Once the queue is closed
	// Pop returns ErrClosed, even if activeQ is not empty (R13).
	// Hints profile (R2h): a maximal pod of activeQ (I5); when activeQ is
	// empty, the first pod of backoffQ in ordering-window order
	// (BackoffPopCandidates), whether or not its backoff completed; a pod no
	// plugin rejected (an error retry) is never taken this way. Attempts and
	// schedulingCycle grow by one, the pod is in flight and its marker is
	// appended to the in-flight list (R15). Pop clears nothing: the rejectors
	// stay until the pod is handed back. A blocking Pop waits while activeQ
	// and the rejected part of backoffQ are both empty.
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
	// Hints profile (R3h): a pod in activeQ, backoffQ or unschedulablePods is
	// ErrAlreadyQueued. Otherwise, no rejectors: ConsecutiveErrorsCount grows
	// by one; some: UnschedulableCount grows by one and ConsecutiveErrorsCount
	// becomes 0. Timestamp becomes now and FlushTimestamp is cleared. The
	// event records after the pod's marker are replayed, with their objects
	// (R19), through its rejectors' hints (ReplayStrategy): StrategySkip
	// parks it in unschedulablePods; StrategyAfterBackoff sends it to
	// backoffQ while it is backing off (always, for a fresh failure, unless
	// max backoff is 0), else to activeQ; StrategyImmediately (a pending
	// plugin said Queue) to activeQ. Either way it must pass PreEnqueue first
	// (R17). Then the pod leaves flight as by R12h.
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
	// The event carries no objects; ObjectQueue's
	// MoveAllToActiveOrBackoffQueueWithObjects is the same rule for an event
	// with the caller's objects (R19), and it rejects an invalid event
	// (ErrInvalidEvent), which this method cannot report: a caller that
	// builds events from outside validates them (ClusterEvent.Validate). A
	// pod gated by SchedulingGates is not examined (R17).
	//
	// Hints profile (R4h): an event of no interest (IsEventOfInterestHints)
	// changes nothing and is not recorded. Otherwise every unschedulable pod
	// passing preCheck is evaluated alone: a gated pod is skipped unless the
	// event is a wildcard or matches an event its gating plugin registered;
	// PodStrategy (R16) decides skip, after backoff or immediately, and the
	// pod moves as in R3h. Then, if any pod is in flight, the event is
	// appended to the in-flight list with its objects (R15). There is no
	// moveRequestCycle: it stays -1. With Config.PreQueueing (v1.38's
	// default) the pre-queueing hints first choose which parked pods are
	// evaluated (R20, R21) and which rejectors are asked about each (R22);
	// an event without objects (this method's: use ObjectQueue to pass
	// them) asks none.
	MoveAllToActiveOrBackoffQueue(event ClusterEvent, preCheck PreEnqueueCheck)

	// FlushBackoffQCompleted is R5: every pod in backoffQ whose backoff has
	// completed, its expiry strictly before now (R7), enters activeQ if
	// PreEnqueue admits it (R17; refused, it waits gated in
	// unschedulablePods); the others stay. The pods keep Timestamp, Attempts and
	// UnschedulablePlugins. It is not a move request: moveRequestCycle is
	// unchanged. A running queue runs it every BackoffQFlushPeriod.
	// Hints profile (R5h): backoffQ pods that are no longer backing off (R7h)
	// enter activeQ without PreEnqueue: they passed it on entering backoffQ.
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
	// A pod gated by SchedulingGates is taken but not moved (R17): the
	// flush still sets moveRequestCycle.
	//
	// Hints profile (R6h): a pod, gated ones included, whose later of
	// Timestamp and FlushTimestamp lies strictly more than
	// PodMaxInUnschedulablePodsDuration in the past gets FlushTimestamp = now
	// and is moved as by R4h with the wildcard UnschedulableTimeout (so the
	// gated filter does not apply and the hints are not asked). Nothing
	// happens when no pod qualifies.
	FlushUnschedulablePodsLeftover()

	// Activate is R8: a plugin asks for pods to be tried again at once.
	// Each listed pod, in list order, is looked up by key (the queue keeps
	// its own pod object):
	//   - in unschedulablePods or backoffQ, it enters activeQ, backing off
	//     or not, keeping Timestamp, Attempts and UnschedulablePlugins, if
	//     PreEnqueue admits it (R17); refused, it waits gated in
	//     unschedulablePods, and moveRequestCycle becomes schedulingCycle
	//     as below;
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
	// Hints profile (R8h): a pod in unschedulablePods enters activeQ if
	// PreEnqueue admits it (else it stays, gated); a pod in backoffQ enters
	// activeQ. A pod in flight gets a ForceActivate event record aimed at it
	// alone (its replay answers StrategyAfterBackoff for it and skips every
	// other pod). Any other pod: nothing (there is no moveRequestCycle).
	Activate(pods []*Pod) error

	// Update is R9: the informer saw a new version of a pending pod. oldPod
	// and newPod must have the same key (ErrInvalidPod otherwise); the UID
	// may differ. From now on the queue keeps newPod:
	//   - in activeQ, replaced in place: Timestamp, Attempts and
	//     UnschedulablePlugins are kept, and its rank in activeQ follows
	//     newPod's priority;
	//   - in backoffQ, replaced in place: its expiry does not change;
	//   - in unschedulablePods, replaced, and if the update may make it
	//     schedulable it is requeued: to backoffQ if it is still backing
	//     off, else towards activeQ through PreEnqueue (R17: the update
	//     that lifts a gate releases a gated pod). Whether it may is the
	//     caller's verdict, PodChange.Relevant, given to
	//     ObjectQueue.UpdateWithChange; without one it is
	//     IsPodUpdated(oldPod, newPod): a field Pod models other than
	//     ResourceVersion, Status and NominatedNodeName changed. Upstream
	//     compares the whole pod (minus status, resourceVersion,
	//     generation, managedFields and finalizers), which only the caller
	//     has. This move is not a move request: moveRequestCycle is
	//     unchanged. After any other update it stays;
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
	// Hints profile (R9h): the events of the update are the caller's
	// (PodChange.Events) or, without a verdict, PodUpdateEvents(oldPod,
	// newPod). In flight with the same UID: the pod is replaced in its
	// in-flight entry and each event is recorded for it, with both pods
	// (R15, R19). In flight under another UID: as R9, the old object's
	// attempt ends as by R10h (its marker leaves the list) and the new pod is
	// added as by R1h. In activeQ or backoffQ: replaced in place. In
	// unschedulablePods: replaced, then each event in turn is evaluated as by
	// R4h (without the gated filter) until one moves the pod. Not held: R1h.
	Update(oldPod, newPod *Pod) error

	// Delete is R10: the pod was deleted. The pod with its key leaves
	// whichever place holds it, in flight included: a deleted pod must not
	// be retried. Only the key is compared. Neither cycle changes.
	// ErrPodNotFound if the queue does not hold the key.
	// Hints profile (R10h): as R10; a deleted in-flight pod also loses its
	// marker, as by R12h. (Upstream v1.37.2 leaves an in-flight pod in flight
	// until Done.)
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
	// Hints profile (R11h, for AssignedPodUpdated too): a move request (R4h)
	// over every unschedulable pod, with the assigned pods as the event's
	// objects (R19): no affinity pre-filter, the hints decide. (v1.37.2 has
	// no such queue methods; its event handlers call
	// MoveAllToActiveOrBackoffQueue that way.)
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
	// for event. oldPod may be nil. ErrInvalidEvent if event is invalid
	// (ClusterEvent.Validate); then nothing changes.
	AssignedPodUpdated(oldPod, newPod *Pod, event ClusterEvent) error

	// Done is R12: the scheduling attempt of the pod in flight with this
	// UID ended (the pod was bound, or the scheduler gave up on it), and
	// the pod leaves the queue. Neither cycle changes. ErrNotInFlight if
	// no pod in flight has this UID, including a pod that
	// AddUnschedulableIfNotPresent already took back.
	// Hints profile (R12h): the pod leaves flight, its marker leaves the
	// in-flight list, and the event records at the front of the list are
	// dropped up to the first remaining marker: no pod still in flight needs
	// them (TrimInFlight). So the list is empty whenever nothing is in flight
	// (I7).
	Done(uid UID) error

	// Close is R13: blocked Pops return ErrClosed, and so does every later
	// Pop, even when activeQ is not empty. A running queue stops its
	// flushes; no goroutine of the queue is left once Close returns.
	// Snapshot().Closed becomes true. Every other operation keeps working
	// on the state, as upstream. Close is idempotent (upstream v1.33
	// panics on a second Close).
	// Hints profile (R13h): as R13. (Upstream v1.37.2 also ends every
	// in-flight pod.)
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
// (Pod.Object, R19). Packages model and impl implement it; a queue that
// does not (the upstream targets) takes the same calls through Queue,
// without the event's objects and with the derived verdict.
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
