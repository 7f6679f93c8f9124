// Package spec is the contract of the kube-scheduler scheduling queue: the
// types every other package speaks (pods, queued pods, cluster events, the
// plugin registry, Config), the Queue interface, the error values, the
// backoff formula, and the invariants as pure functions over snapshots.
//
// The doc comment of Queue and of its methods is the normative text of the
// contract (go doc ./spec Queue). This overview only maps it; where the two
// differ, Queue is right and this overview is wrong.
//
// The contract has three profiles, selected by Config.Profile (see Profile
// for the decisions D1-D7 in which the first two differ):
//
//   - ProfileClassic (the zero value): the classic upstream queue,
//     kube-scheduler v1.33.13, pkg/scheduler/backend/queue, with the feature
//     gates SchedulerQueueingHints and SchedulerPopFromBackoffQ off. Rules
//     R1-R14 and invariants I1-I6 below, and R17-R19.
//   - ProfileHints: the queue kube-scheduler runs today, v1.37.2 with its
//     default gates: queueing hints, the in-flight list, Pop from backoffQ,
//     PreEnqueue plugins and scheduling gates. Its rules are R1h-R14h (the
//     hints-profile answer to Rn) and R15-R19, stated on Queue's methods
//     under the classic text, its invariants I2h-I5h and I7 beside the
//     shared I1 and I6 (hints_invariants.go). PreEnqueue (R17), the
//     nominator (R18) and caller objects (R19) belong to both profiles.
//   - ProfilePodGroups: the hints profile plus pod groups, v1.37.2 with
//     GenericWorkload on: the members of a pod group are queued, popped and
//     backed off as one entity. Its rules are G1-G11 and its invariants
//     IG1-IG4, on PodGroupQueue (podgroups.go), an optional interface as
//     ObjectQueue is.
//
// The overview below is the classic profile's.
//
// # Places
//
// Every pod a queue holds is in exactly one of four places (Location):
// activeQ (ready, popped by priority then Timestamp), backoffQ (failed,
// waiting for its backoff to expire), unschedulablePods (failed, waiting
// for an event that may help it) and in flight (popped, being scheduled).
// Two counters go with them: schedulingCycle counts the Pops, and
// moveRequestCycle is the schedulingCycle of the last move request.
//
// # Lifecycle of a pod
//
//	from               to                  by
//	not held           activeQ             Add (R1); Update of a pod not held (R9)
//	activeQ            in flight           Pop (R2)
//	in flight          backoffQ            AddUnschedulableIfNotPresent (R3) if a move request
//	                                       happened in or after its cycle, or no plugin rejected it
//	in flight          unschedulablePods   AddUnschedulableIfNotPresent (R3) otherwise
//	in flight          not held            Done (R12)
//	backoffQ           activeQ             the backoffQ flush once its backoff (R7) completed (R5);
//	                                       Activate (R8); Add, as a fresh entry (R1)
//	unschedulablePods  backoffQ/activeQ    a move request: an event (R4), the leftover flush (R6),
//	                                       an assigned pod (R11); Update (R9). To backoffQ while
//	                                       it is backing off (R7), else to activeQ
//	unschedulablePods  activeQ             Activate (R8); Add, as a fresh entry (R1)
//	any place          not held            Delete (R10)
//
// Close (R13) ends Pop; the other operations keep working.
//
// # Rules
//
//	R1   Add                             new pod → activeQ; replaces a pod in backoffQ/unschedulablePods
//	R2   Pop                             a maximal pod of activeQ → in flight; Attempts++, schedulingCycle++
//	R3   AddUnschedulableIfNotPresent    failed pod → backoffQ (shortcut) or unschedulablePods
//	R4   MoveAllToActiveOrBackoffQueue   an event moves the unschedulable pods it may help
//	R5   FlushBackoffQCompleted          pods whose backoff completed → activeQ (every 1s)
//	R6   FlushUnschedulablePodsLeftover  pods parked strictly longer than 5 min move (every 30s)
//	R7   backoff                         1s·2^(Attempts-1) capped at 10s; expiry == now still backs off
//	R8   Activate                        unschedulable/backoff pods → activeQ; else moveRequestCycle
//	R9   Update                          in place; an unschedulable pod may move; unknown → R1
//	R10  Delete                          the pod leaves the queue from any place
//	R11  AssignedPodAdded/Updated        the pods an assigned pod may help move as R4
//	R12  Done                            a pod in flight leaves the queue
//	R13  Close                           Pop returns ErrClosed; flushes stop
//	R14  metrics                         scheduler_pending_pods, scheduler_queue_incoming_pods_total
//	R17  PreEnqueue                      a refused pod waits gated in unschedulablePods
//	R18  nominator                       the pods nominated to each node
//	R19  caller objects                  kept untouched, handed to hints, recorded for replay
//
// # Invariants
//
//	I1  single-queue membership  every pod in exactly one place; one key per UID
//	I2  backoff monotonicity     backoff monotone and capped; no early release
//	I3  no lost wake-up          a failure after a move request never parks in unschedulablePods
//	I4  conservation             no pod lost, duplicated or invented; errors change nothing
//	I5  order                    Pop returns a maximal pod of activeQ
//	I6  cycles                   schedulingCycle +1 per Pop; -1 <= moveRequestCycle <= schedulingCycle
//
// CheckState and CheckStep check them; their doc comments state them
// exactly.
//
// The package holds no goroutines, no locks and no wall time: time is always
// an argument.
package spec
