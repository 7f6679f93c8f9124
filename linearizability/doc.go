// Package linearizability checks that a concurrent scheduling queue behaves
// as if every operation took effect atomically at one instant between its
// call and its return, in an order that the executable model (package
// model) accepts. It is the bridge between the sequential oracle and a queue
// that many goroutines use at once.
//
// The operations of a history are those of the scenario language
// (schedqtest.Op), performed through its executor (schedqtest.Executor)
// on the queue and, by the checker, on the model, with the pod objects the
// client passed; a Snapshot at each quiescent point is the one operation
// the language does not write (a scenario prints the state after every
// line). A failing history prints as a scenario file.
//
// The parts, each usable alone:
//
//   - Model is a porcupine model whose state wraps a *model.Model. Its Step
//     replays one recorded operation on a clone of the state and accepts the
//     recorded output only if the model allows it: Pop may return any pod of
//     PopCandidates (ties are unordered) and the popped pod must equal the
//     model's in every field (schedqtest.InfoEqual, the hints profile's
//     counts included), errors must be the model's (schedqtest.SameError),
//     a Pop that returned spec.ErrClosed is accepted only once the model is
//     closed, and a Pop that returned a pod while activeQ was empty is
//     rejected. Its descriptions speak in queue terms, so the porcupine
//     visualisation shows which pod is in which queue.
//   - Record drives one queue with 2..8 clients issuing random operations,
//     Pop blocking included, with time on a fake clock that is stepped by
//     operations of their own, and returns the history. Every history ends
//     with Close, so no Pop is left waiting. RecordTarget does the same for
//     a queue that owns its clock (a conformance.Target).
//   - Schedules. A race shows only in the interleavings that reach it, so
//     each history explores its own: clients yield (runtime.Gosched) at
//     random operation boundaries, pair up in contention bursts (two
//     clients call at the same moment), and the tests vary GOMAXPROCS per
//     history (1, 2, 4, 8). Nothing is ever inserted inside the queue.
//   - Liveness. A Pop that sleeps forever and returns ErrClosed at Close is
//     linearizable, so a lost wake-up is invisible to the check. The
//     coordinator watches for it: when every live client sleeps in Pop by
//     the runtime's own account (internal/parked) while activeQ holds a
//     pod, History.LostWakeups says so. A recording that outlives its
//     deadline fails with which client waits in which operation.
//   - Boundaries. Half the clock steps land on an instant where the
//     queue's decisions change: a backoffQ pod's expiry (R7: expiry == now
//     is still backing off), an unschedulable pod's leftover limit (R6),
//     exactly or one nanosecond either side (internal/boundary).
//   - Caller objects (R19). Against a queue that takes them
//     (spec.ObjectQueue) every client's pod carries a caller object
//     (PodObject, Pod.Object) and moves carry node objects (Old/NewObject
//     of the event); in the hints profile NodeResourcesFit's hint for
//     NodeAdd (schedqtest.NodeZoneHint) reads the event's node against the
//     pod's zone label, so an object decides whether a parked pod moves,
//     and a failure's replay of an event recorded in flight must see it.
//     The model gets the same objects, compares them by identity, and
//     the state key numbers them (objects.go).
//   - Gates (R17, R4h; Workload.Gates, gates.go). The implementation's
//     histories have PreEnqueue plugins: some pods are added gated,
//     updates put gates on and lift them, and in the hints profile a
//     client takes a pod of its own that waits parked through the
//     sequence that shows whether a move request re-examines a gated
//     pod for an event its gating plugin did not register.
//   - Nominations (R18; Workload.Nominations, nominations.go). On a
//     queue with a nominator, the implementation's histories nominate
//     clients' pods and ask which pods a node has; the model checks each
//     list, and the state key holds the nominations.
//   - Pod groups (spec.ProfilePodGroups, podgroups.go). Against a queue
//     that implements spec.PodGroupQueue, about half of the clients' pods
//     are members of one of two pod groups, clients add, update and
//     delete the PodGroup objects, Pop is PopEntity, and a client holding
//     a popped group fails or finishes its members and ends the group's
//     cycle (AddAttemptedPodGroupIfNeeded), sometimes before every member
//     is finished. The model's PopEntityKey checks the popped entity
//     (one of EntityCandidates, equal in every field, members included)
//     and the state key holds the groups' state.
//   - Plugin sets. A failed attempt hands AddUnschedulableIfNotPresent
//     the rejecting plugins in random order, sometimes with one twice: the
//     contract makes every queue normalise the set (sort, deduplicate, R3)
//     and conformance checks that it does, so the workload deliberately
//     passes raw sets and the model (which normalises) is the judge.
//   - Quiescent points. Every Workload.QuiescentEvery operations the
//     clients meet: no operation is pending, and the last to arrive takes
//     a Snapshot, which pins the model state there. The checker's search
//     is then bounded by the stretch between two points, not by the whole
//     history, however long the machine's load makes an operation's
//     window. The porcupine state carries a canonical key of the model
//     state (porcupine.go), so comparing and caching states is one string
//     comparison.
//   - Check runs porcupine with a timeout; a result of Unknown is undecided,
//     never a pass. WriteEvidence leaves the porcupine visualisation, a
//     plain-text listing (ending with the operations that cannot come next
//     and why, from Explain) and the history as JSON (ReadHistory) in files
//     that outlive the test.
//
// Why the fake clock can be an operation: every queue operation reads the
// clock at most once, inside its critical section, and a clock step is
// atomic in the fake clock. So the step's linearization point is the
// instant the fake clock changes, and each queue operation's is the instant
// it reads the clock; both lie inside their recorded windows. A queue that
// read the clock twice in one operation could be caught by a step that
// lands in between, so some steps (Workload.ConcurrentSteps) run
// concurrently with everything; the others wait for the operations that
// read the clock, because each such overlap doubles the times an operation
// may have seen and the checker's work with it.
//
// Files: ops.go (the operations of a history), objects.go (the caller
// objects of the workload and of saved histories), gates.go (the
// PreEnqueue plugins of a workload and the gating sequences),
// nominations.go (the nominator's operations), apply.go (replaying one on
// the model, and why the model rejects it), porcupine.go (the porcupine
// model and its state), describe.go (rendering in queue terms), harness.go
// (recording), podgroups.go (the pod-group workload), check.go (checking,
// evidence), json.go (saved histories, each operation as its line of the
// language), scenario.go (a failing history's sequential witness as a
// scenario file).
package linearizability
