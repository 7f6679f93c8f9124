// Package remote checks a scheduling queue that lives in another process,
// written in any language, with the conformance suite: the same scenarios
// and model-differential random runs as a queue wrapped in Go.
//
// The queue's side is a program, the peer, that reads requests on its
// standard input and writes responses on its standard output, one JSON
// object per line. The Go side is the driver: NewTarget(cmd) is a
// conformance.NewTarget that starts the peer once per target (each scenario
// and each random run gets a fresh process) and implements
// conformance.Target by sending requests:
//
//	func TestMyQueue(t *testing.T) {
//		conformance.Run(t, remote.NewTarget([]string{"./my-queue-peer"}), conformance.Options{})
//	}
//
// cmd/schedq-peer is the reference peer (schedq's implementation served
// over the protocol; Serve is its protocol loop, reusable by any queue
// written in Go). The rest of this comment is the protocol, precise enough
// to write a peer without reading Go.
//
// The protocol speaks the classic profile of the contract: the hints
// profile's queueing hints and PreEnqueue plugins are functions, which no
// line of JSON carries, so the driver refuses a hints config and the suite
// reports the hints scenarios as not applicable to a peer.
//
// # Lines
//
// Every message is one JSON object on one line, terminated by "\n", in
// UTF-8. A peer writes nothing else on stdout (diagnostics go to stderr,
// which the driver shows when something fails). Requests carry an "id"
// (an integer chosen by the driver) and an "op"; the response to a request
// carries the same "id". Fields that are absent take their zero value
// (0, "", false, null, empty list), and a peer may omit zero fields in
// responses.
//
// # Order and concurrency
//
// The peer executes requests one at a time, in the order it reads them,
// and answers each when its operation has returned. The only exception is
// pop: a pop that finds activeQ empty waits for a pod (rule R2) without
// holding up the requests that follow it, and is answered when a pod
// arrives (taking it) or the queue is closed (with error "closed").
// Responses can therefore come out of order; the driver matches them by
// id. The driver sends requests from several goroutines at once (a
// scenario blocks in pop while another goroutine adds the pod that wakes
// it), so a peer must keep reading while a pop waits.
//
// When its standard input ends, the peer closes the queue (waiting pops end
// with "closed"), writes their responses, and exits with status 0. The
// driver closes the peer's stdin at the end of the test and fails the test
// if the peer exits with another status; it kills a peer still running
// ten seconds later.
//
// # Requests
//
// The first request is always init; it creates the one queue the peer
// serves:
//
//	{"id":1,"op":"init","now":"2026-01-01T00:00:00Z","config":{...}}
//
// "now" is where the queue's clock starts. The clock is a fake one: it
// moves only on step requests, and the queue must run no flush on its own
// (the suite calls them). "config" is:
//
//	podInitialBackoffNanoseconds             backoff after the first failure (R7)
//	podMaxBackoffNanoseconds                 backoff cap (R7)
//	podMaxInUnschedulablePodsNanoseconds     age after which the leftover flush moves a pod (R6)
//	backoffQFlushPeriodNanoseconds           period of flushBackoffQCompleted (R5)
//	unschedulablePodsFlushPeriodNanoseconds  period of flushUnschedulablePodsLeftover (R6)
//	pluginEvents                             {"PluginName": [event, ...], ...} (R4)
//
// The init response carries the profile the peer claims (see
// conformance.Profile; the suite compares what "observes" lists):
//
//	{"id":1,"profile":{"name":"my-queue","description":"...","blocking":true,
//	  "observes":{"moveRequestCycle":true,"podInfo":true,"closed":true},"silentNoOps":false}}
//
// or an error (e.g. code "invalidConfig"), after which the peer serves
// nothing but may be sent init again. A second init after a successful one,
// and any other request before it, is a protocol error.
//
// The operations, with the request fields each one reads and the response
// fields it sets ("error" is possible on every one marked "error"):
//
//	op                  request fields            response                 spec.Queue method
//	add                 pod                       error                    Add (R1)
//	pop                 -                         info, cycle, or error    Pop (R2); cycle is podSchedulingCycle
//	addUnschedulable    info, cycle               error                    AddUnschedulableIfNotPresent (R3)
//	moveAll             event, preCheckRejects    -                        MoveAllToActiveOrBackoffQueue (R4)
//	flushBackoffQ       -                         -                        FlushBackoffQCompleted (R5)
//	flushLeftover       -                         -                        FlushUnschedulablePodsLeftover (R6)
//	activate            pods                      error                    Activate (R8)
//	update              oldPod, newPod            error                    Update (R9)
//	delete              pod                       error                    Delete (R10)
//	assignedPodAdded    pod                       error                    AssignedPodAdded (R11)
//	assignedPodUpdated  oldPod, newPod, event     error                    AssignedPodUpdated (R11)
//	done                uid                       error                    Done (R12)
//	close               -                         -                        Close (R13); idempotent
//	schedulingCycle     -                         cycle                    SchedulingCycle
//	snapshot            -                         snapshot                 Snapshot
//	step                nanoseconds               -                        moves the fake clock forward
//
// A response to an operation without a result is just {"id":N}. A pod
// field that is null (or an element of "pods" that is null) is a nil pod,
// which the queue must reject with "nilPod", as in Go.
//
// moveAll's pre-enqueue check is a function of the pod and cannot cross a
// process boundary: the driver takes a snapshot right before, evaluates the
// check on every pod in it, and sends the keys ("namespace/name") of the
// pods the check rejects in "preCheckRejects". Absent or null means there is
// no check (every pod passes); a list, even empty, means exactly the listed
// pods fail the check.
//
// # Values
//
// A pod:
//
//	{"namespace":"ns","name":"a","uid":"uid-a","priority":0,
//	 "labels":{"app":"db"},
//	 "requiredAffinityTerms":[{"namespaces":["ns"],"matchLabels":{"app":"db"}}],
//	 "resourceVersion":"","status":""}
//
// A queued pod ("info"), as pop returns it, addUnschedulable takes it back
// and snapshots list it:
//
//	{"pod":{...},"timestamp":"2026-01-01T00:00:01.5Z","attempts":1,
//	 "unschedulablePlugins":["NodeResourcesFit"],"initialAttemptTimestamp":"2026-01-01T00:00:00Z"}
//
// Times are RFC 3339 with up to nanosecond precision in UTC, and "" (or
// absent) for the zero time (an InitialAttemptTimestamp not set yet).
// unschedulablePlugins is a set: a queue keeps it sorted and without
// duplicates, whatever order addUnschedulable gave. Durations are integer
// nanoseconds.
//
// A cluster event:
//
//	{"resource":"Node","actionType":1,"label":"NodeAdd"}
//
// resource is one of "Pod", "AssignedPod", "UnschedulablePod", "Node",
// "PersistentVolume", "PersistentVolumeClaim", "storage.k8s.io/StorageClass"
// or "*" (every resource). actionType is a bit set (spec.ActionType):
//
//	Add 1, Delete 2, UpdateNodeAllocatable 4, UpdateNodeLabel 8,
//	UpdateNodeTaint 16, UpdateNodeCondition 32, UpdateNodeAnnotation 64,
//	UpdatePodLabel 128, UpdatePodScaleDown 256, UpdatePodToleration 512,
//	UpdatePodSchedulingGatesEliminated 1024, UpdatePodGeneratedResourceClaim 2048,
//	any other pod update 4096; Update is every bit but Add and Delete (8188),
//	All is every bit (8191).
//
// An event is a wildcard when resource is "*" and actionType is All. label
// names the event in metrics; empty means resource followed by the action's
// name.
//
// A snapshot, each list sorted by pod key (byte order of
// "namespace/name"), both cycles, and whether the queue is closed:
//
//	{"now":"2026-01-01T00:00:00Z","activeQ":[info...],"backoffQ":[...],
//	 "unschedulablePods":[...],"inFlight":[...],
//	 "schedulingCycle":0,"moveRequestCycle":-1,"closed":false}
//
// # Errors
//
// An operation that fails answers {"id":N,"error":{"code":C,"message":M}}
// and must have changed nothing. M is free text shown in failures; C is
// one of:
//
//	nilPod         spec.ErrNilPod: a null pod or info
//	invalidPod     spec.ErrInvalidPod: empty name or uid, "/" in a name, negative attempts
//	alreadyQueued  spec.ErrAlreadyQueued (R1, R3)
//	podNotFound    spec.ErrPodNotFound (R10)
//	notInFlight    spec.ErrNotInFlight (R12)
//	closed         spec.ErrClosed: pop on a closed queue (R2, R13)
//	wouldBlock     spec.ErrWouldBlock: pop on an empty activeQ of a queue that cannot wait ("blocking":false)
//	invalidConfig  spec.ErrInvalidConfig: init with an unusable config
//	other          an error that is none of the above (the suite treats it as a wrong error)
//	protocol       the request itself is wrong: not JSON, unknown op, a field that cannot be read,
//	               a request before init; answered with the request's id, or 0 if it could not be read
//
// The driver reports a protocol error, a response it cannot read or match
// to a request, a non-pop request unanswered after OpTimeout, and the peer's
// exit, as errors wrapping ErrProtocol, with the tail of the peer's stderr.
package remote
