// Package remote checks a scheduling queue that lives in another process,
// written in any language, with the conformance suite: the same scenarios
// and model-differential random runs as a queue wrapped in Go.
//
// The queue's side is a program, the peer, that reads requests on its
// standard input and writes responses on its standard output, one JSON
// object per line. The Go side is the driver: NewTarget(cmd) is a
// conformance.NewTarget that starts the peer once per target (each scenario
// and each random run gets a fresh process, or, from a peer that claims
// reset, a fresh queue in a process kept between them) and implements
// conformance.Target by sending requests:
//
//	func TestMyQueue(t *testing.T) {
//		conformance.Run(t, remote.NewTarget([]string{"./my-queue-peer"}), conformance.Options{})
//	}
//
// Relative paths on the command line are resolved in the directory where
// NewTarget is called (the peer runs there), and the files it names are
// inputs of go test's result cache when they lie inside the module: keep a
// peer that is not Go (a script, a binary built by another tool) there, or
// run go test with -count=1.
//
// cmd/schedq-peer is the reference peer (schedq's implementation served
// over the protocol; Serve is its protocol loop, reusable by any queue
// written in Go). testdata/pypeer/peer.py is a peer in Python, standard
// library only, of the hints and podgroups profiles, written from this
// comment: what a queue author in another language writes. The rest of this comment is the protocol, precise enough
// to write a peer without reading Go.
//
// The protocol speaks the three profiles of the contract (spec.Profile):
// the classic queue, the queueing-hints queue and the pod-group queue
// (rules G1-G14 on spec.PodGroupQueue). The hints profile's queueing
// hints and PreEnqueue plugins are functions, which no line of JSON
// carries; the config names them instead, from a small standard set of
// pure functions (see "Standard functions" below) that a peer implements
// itself. Every hints scenario and the hints random runs use only those.
// A config with any other function (a Go test's own closure) cannot cross:
// the driver refuses it with spec.ErrInvalidConfig, naming the plugin and
// event whose hint has no standard name, and the suite reports what needs
// it as not applicable to a peer. What each operation does is the
// contract's, not the protocol's: rules R1-R14 in the classic profile,
// R1h-R22 in the hints profile, G1-G14 over those in the podgroups
// profile, and R18 (the nominator) and R19 (caller objects) in all, as
// "go doc github.com/schedq/schedq/spec" prints them; the rule ids below
// name the classic rule, whose hints twin (R1h...) applies in the hints
// profile.
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
// pop: a pop that finds nothing to take (classic: activeQ empty, rule R2;
// hints: activeQ empty and no pod in backoffQ that some plugin rejected,
// rule R2h) waits for a pod without holding up the requests that follow
// it, and is answered when a pod arrives (taking it) or the queue is
// closed (with error "closed").
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
// A peer may instead serve more than one queue, one after the other, by
// claiming "reset":true in its init response. At the end of the test the
// driver then sends {"id":N,"op":"reset"}: the peer closes the queue,
// answers its waiting pops with "closed", then answers the reset, and is
// back where it started: the next request is an init, with a new config
// and clock, for a queue that remembers nothing of the last one (the
// driver numbers the refs of caller objects from 1 again). The
// driver keeps such a process for the next queue of the same command (the
// next scenario, random run or shrinking step) instead of starting one per
// queue, and closes its stdin only when the test binary exits. Claiming
// reset is how a peer whose start is slow (an interpreter, a JVM) gets its
// first failure shrunk in seconds rather than minutes; a peer that does
// not claim it gets a process per queue.
//
// # Requests
//
// The first request is always init; it creates the one queue the peer
// serves:
//
//	{"id":1,"op":"init","version":2,"now":"2026-01-01T00:00:00Z","config":{...}}
//
// "version" is the protocol version the driver speaks, 2 here (version 1
// had no pod groups, caller objects or update verdicts). A peer that
// speaks another answers a protocol error naming both; a successful init
// response carries "version":2, and the driver refuses a peer whose
// response names no version (a peer written for version 1) with an error
// that says so, before any scenario runs.
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
//	profile                                  "classic" (or absent), "hints" or "podgroups"
//	queueingHints                            hints and podgroups: [{"plugin":P,"event":E,"hint":NAME}, ...] (R16)
//	preEnqueuePlugins                        {"PluginName": NAME, ...} (R17), in every profile
//	groupRules                               podgroups: "v1.38" for v1.38's group rules (G12, G13); absent, v1.37.2's
//	preQueueing                              hints and podgroups: true for the pre-queueing setting (R20-R22, G14)
//	preQueueingHints                         with preQueueing: [{"plugin":P,"event":E,"hint":NAME}, ...] (R20)
//
// In the hints and podgroups profiles each entry of queueingHints gives the registration
// (plugin P and one event E that P registered in pluginEvents, equal in
// resource, actionType and label) the queueing hint of that NAME; a
// registration without an entry has the hint that always answers Queue.
// preEnqueuePlugins maps each PreEnqueue plugin to the NAME of its
// function. The names are those of "Standard functions"; a name the peer
// does not know is an invalidConfig error of init, as is a profile it does
// not implement (a classic-only peer answers invalidConfig to a hints or
// podgroups config, and the suite then reports that profile's scenarios
// and random runs n/a for it). queueingHints is absent in the classic
// profile; preEnqueuePlugins is not: the classic scenarios with "config
// gates=on" (the gated/ group) send the classic profile's PreEnqueue
// plugins (schedqtest.ClassicGates: SchedulingGates is GateAdmits, Hold is
// HoldAdmits), which a classic peer must apply as R17 says (a refused pod
// waits in unschedulablePods with gatingPlugin set).
//
// The init response carries the profile the peer claims (see
// conformance.TargetInfo; the suite compares what "observes" lists):
//
//	{"id":1,"profile":{"name":"my-queue","description":"...","blocking":true,
//	  "observes":{"moveRequestCycle":true,"podInfo":true,"closed":true,
//	              "inFlightEvents":true,"hintCounts":true},
//	  "silentNoOps":false,"nominator":true,"reset":true}}
//
// or an error (e.g. code "invalidConfig"), after which the peer serves
// nothing but may be sent init again. A second init after a successful one,
// and any other request before it, is a protocol error.
//
// A peer that applies a config's "groupRules" says so with the same word
// in its profile ("groupRules":"v1.38"); one that does not know them
// answers invalidConfig. A peer written before the setting answers neither
// and ignores the field, so the driver refuses such a peer for that config
// (invalidConfig, the suite's n/a) rather than check v1.38's rules on it.
// "preQueueing" is confirmed the same way ("preQueueing":true in the
// profile). With it, each entry of preQueueingHints gives a registration
// (as queueingHints does) the pre-queueing hint of that NAME; a
// registration without an entry has none, which narrows nothing.
//
// "inFlightEvents" claims the snapshot's in-flight list, "hintCounts" the
// hint fields of each pod (with "podInfo"); in the hints profile the
// invariants are checked only on a peer that claims both. "nominator"
// claims the two nominator requests (R18); without it the suite reports
// the nominator scenarios n/a. "reset" claims the reset request (see
// "Order and concurrency"). The same profile answers both profiles'
// configs (in the classic profile the in-flight list and the hint fields
// are simply empty).
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
//	reset               -                         -                        ends the queue; the next request is init (a peer claiming "reset")
//	schedulingCycle     -                         cycle                    SchedulingCycle
//	snapshot            -                         snapshot                 Snapshot
//	step                nanoseconds               -                        moves the fake clock forward
//	addNominatedPod     pod, mode, nodeName       error                    spec.Nominator AddNominatedPod (R18)
//	nominatedPodsForNode nodeName                 pods                     spec.Nominator NominatedPodsForNode (R18)
//	moveAllWithObjects  event, oldPod, newPod,    error                    spec.ObjectQueue MoveAllToActiveOrBackoffQueueWithObjects (R4, R19)
//	                    oldObject, newObject,
//	                    preCheckRejects
//	update (change)     oldPod, newPod, change    error                    spec.ObjectQueue UpdateWithChange (R9): change is the caller's verdict
//	popEntity           -                         entity, cycle, or error  spec.PodGroupQueue PopEntity (G3)
//	addAttemptedPodGroup groupInfo, cycle, status error                    AddAttemptedPodGroupIfNeeded (G5); status "success", "rejected" or "error"
//	addPodGroup         podGroup                  error                    AddPodGroup (G11)
//	updatePodGroup      oldPodGroup, newPodGroup  error                    UpdatePodGroup (G11)
//	deletePodGroup      podGroup                  error                    DeletePodGroup (G11)
//
// Every peer of version 2 serves moveAllWithObjects and update with a
// change, in every profile; the pod-group requests come only after an
// init of the podgroups profile. update without "change" is Update (the
// queue derives the verdict, spec.DerivePodChange); with it,
// {"relevant":true,"events":[event, ...]}, the queue takes the caller's
// verdict: relevant decides R9 in the classic profile, events are the
// update's events in the others (R9h). moveAllWithObjects is moveAll for
// an event that carries objects: the pods it concerns as oldPod and newPod,
// any other object as oldObject and newObject; it answers invalidEvent for
// an invalid event (moveAll has no error and ignores one).
//
// In the podgroups profile pop is Pop, which answers groupEntity when the
// next entity is a pod group; popEntity answers
// {"id":N,"entity":{"pod":info},"cycle":C} for a pod queued alone or
// {"id":N,"entity":{"group":groupInfo},"cycle":C} for a group, and waits
// as pop does (a group is never taken from backoffQ early, G3). A
// groupInfo is
//
//	{"podGroup":podGroup,"members":[info, ...],"timestamp":"...","attempts":1,
//	 "initialAttemptTimestamp":"...","backoffExpiry":"",
//	 "unschedulableCount":0,"consecutiveErrorsCount":0,"gatingPlugin":"","flushTimestamp":""}
//
// (the entity's fields, spec.EntityParams; members sorted by key), and
// addAttemptedPodGroup takes it back as popEntity gave it.
//
// mode is "noop" (nominate the pod to its own nominatedNodeName; absent
// means noop) or "override" (to nodeName). nominatedPodsForNode answers
// {"id":N,"pods":[pod, ...]} in nomination order (absent or empty: none).
// A peer that did not claim "nominator" answers both with a protocol
// error; the driver never sends them to it.
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
// In the hints profile addUnschedulable's info carries, besides the
// rejecting plugins in unschedulablePlugins, the plugins that answered
// Pending in pendingPlugins (R3h); the other hint fields it carries are
// the ones pop returned.
//
// # Values
//
// A pod:
//
//	{"namespace":"ns","name":"a","uid":"uid-a","priority":0,
//	 "labels":{"app":"db"},
//	 "requiredAffinityTerms":[{"namespaces":["ns"],"matchLabels":{"app":"db"}}],
//	 "resourceVersion":"","status":"","nominatedNodeName":"",
//	 "group":"g","object":object}
//
// group names the pod's pod group (G1; a group in the pod's namespace),
// read in the podgroups profile only. object is the caller's object of the
// pod (R19), absent if none. A pod group:
//
//	{"namespace":"ns","name":"g","priority":0,"object":object}
//
// # Caller objects
//
// A caller's object (Pod.Object, PodGroup.Object, an event's objects;
// R19) crosses as
//
//	{"ref":3,"type":"node","value":{"name":"n1","labels":{"zone":"a"}}}
//
// value is a JSON value a peer may read: "type":"node" is the scenario
// language's node object (what NodeZoneHint reads), any other type is the
// Go type of the caller's object and its JSON. A queue never reads an
// object except through a hint and keeps it untouched, so a peer returns
// each object exactly as it came, ref included, wherever the queue hands
// it back (pods in snapshots and pops, records of the in-flight list, pod
// groups). The driver gives the suite back the very object it sent for a
// ref; an object that comes back changed, or with a ref it never sent,
// equals nothing the model holds, and the suite reports it (R19).
//
// A queued pod ("info"), as pop returns it, addUnschedulable takes it back
// and snapshots list it:
//
//	{"pod":{...},"timestamp":"2026-01-01T00:00:01.5Z","attempts":1,
//	 "unschedulablePlugins":["NodeResourcesFit"],"initialAttemptTimestamp":"2026-01-01T00:00:00Z",
//	 "unschedulableCount":1,"consecutiveErrorsCount":0,"pendingPlugins":["Gate"],
//	 "gatingPlugin":"","flushTimestamp":""}
//
// The last five fields are the hints profile's (spec.HintFields), zero or
// absent in the classic profile: unschedulableCount and
// consecutiveErrorsCount (R3h, driving the backoff R7h), pendingPlugins
// (a set, like unschedulablePlugins), gatingPlugin (the PreEnqueue plugin
// that refused the pod last, "" if none, R17) and flushTimestamp (when
// the leftover flush last took the pod, R6h; "" if never since its last
// failure).
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
// resource is one of "Pod", "AssignedPod", "UnschedulablePod", "TargetPod"
// (the hints profile's events of an update of the pod itself, R9h),
// "Node", "PersistentVolume", "PersistentVolumeClaim",
// "storage.k8s.io/StorageClass" or "*" (every resource). actionType is a bit set (spec.ActionType):
//
//	Add 1, Delete 2, UpdateNodeAllocatable 4, UpdateNodeLabel 8,
//	UpdateNodeTaint 16, UpdateNodeCondition 32, UpdateNodeAnnotation 64,
//	UpdatePodLabel 128, UpdatePodScaleDown 256, UpdatePodToleration 512,
//	UpdatePodSchedulingGatesEliminated 1024, UpdatePodGeneratedResourceClaim 2048,
//	any other pod update (UpdatePodOther) 4096, and v1.37's UpdatePodScaleUp
//	8192, UpdateNodeDeclaredFeature 16384, UpdateNodePreemptionPolicy 32768;
//	Update is every bit but Add and Delete (65532), All is every bit (65535).
//	A bit above All is an invalid event.
//
// An event is a wildcard when resource is "*" and actionType is All. label
// names the event in metrics; empty means resource followed by the action's
// name.
//
// Whether an event concerns a pod rejected by plugins (R4, R6, R11) is
// decided by matching the event against the events its rejecting plugins
// registered in pluginEvents (spec.ClusterEvent.Match, spec.HintsMatch). A
// registration matches an incoming event when the registration is the
// wildcard, or when both of these hold:
//
//   - the resources match: equal, the registration's is "*", or the
//     registration's is "Pod" and the incoming one is "AssignedPod" or
//     "UnschedulablePod" (in the hints and podgroups profiles also
//     "TargetPod");
//   - the action sets intersect (actionType of both, bitwise and, is not 0).
//
// The hints and podgroups profiles add a third condition: an incoming
// event broader than the registration does not match. The incoming
// actionType, with its bits renumbered in kube-scheduler v1.37's order
// (Add 1, Delete 2, the Node updates UpdateNodeAllocatable 4 ...
// UpdateNodeAnnotation 64, UpdateNodeDeclaredFeature 128,
// UpdateNodePreemptionPolicy 256, then UpdatePodLabel 512,
// UpdatePodScaleDown 1024, UpdatePodScaleUp 2048, UpdatePodToleration 4096,
// UpdatePodSchedulingGatesEliminated 8192, UpdatePodGeneratedResourceClaim
// 16384, and UpdatePodOther as every bit from 4 to 16384), must not be
// numerically greater than the registration's renumbered the same way
// (spec.V137Order). A pod with no rejecting plugins is concerned by every
// event, and a wildcard event concerns every pod.
//
// A snapshot, each list sorted by pod key (byte order of
// "namespace/name"), both cycles, and whether the queue is closed:
//
//	{"now":"2026-01-01T00:00:00Z","activeQ":[info...],"backoffQ":[...],
//	 "unschedulablePods":[...],"inFlight":[...],
//	 "schedulingCycle":0,"moveRequestCycle":-1,"closed":false,
//	 "inFlightEvents":[entry...]}
//
// inFlightEvents is the hints profile's in-flight list (R15), in its
// order, not sorted; absent or empty in the classic profile and whenever
// no pod is in flight. An entry is either the marker of a pod in flight,
// placed where its pop happened,
//
//	{"uid":"uid-a","key":"ns/a"}
//
// or the record of an event received while some pod was in flight, with
// the objects it carried (each absent when the event carried none):
//
//	{"event":{"resource":"TargetPod","actionType":128},"oldPod":{...},"newPod":{...},
//	 "oldObject":object,"newObject":object}
//
// In the podgroups profile the snapshot also has "podGroups" (absent in
// the other profiles; spec.PodGroupsState):
//
//	{"podGroups":[podGroup...],
//	 "entities":[{"group":"ns/g","place":"activeQ","members":["ns/a","ns/b"], entity fields...}],
//	 "inCycle":["ns/h"],"pendingPodGroupPods":[info...],"incompletePodGroupPods":[info...]}
//
// the known pod groups sorted by key, the queued group entities sorted by
// group key (place is activeQ, backoffQ or unschedulablePods; members
// are the keys of the members held there, whose infos are in that place's
// list), the groups whose cycle is open, and the members waiting for the
// end of their group's cycle or for their group's object (G2, G4, G11).
//
// # Standard functions
//
// The functions a hints config may name. Each is pure: its answer depends
// on its arguments only. A queueing hint is asked about one pod the
// plugin rejected (the pod object as the queue holds it now) and one
// occurrence of an event: the event (resource, actionType, label) and the
// old and new pod objects it carries, either of which may be absent (the
// event of a moveAll request carries none; assignedPodAdded's carries the
// assigned pod as new, assignedPodUpdated's and update's carry both; the
// ForceActivate record of activate carries the activated pod as new). It
// answers Queue (the event may make the pod schedulable), QueueSkip (it
// cannot), or fails; the queue treats a failure as Queue (R16). How the
// answers of a pod's rejectors combine into skip, after backoff or at
// once is the contract's (spec.Config.PodStrategy, R16), not the
// function's. A PreEnqueue function is asked about a pod and admits or
// refuses it (R17). A label that is absent reads as "" below.
//
//	FitLabelHint  queueing hint: Queue if the pod's label "fit" is "label",
//	              else QueueSkip; ignores the occurrence; never fails.
//	GateHint      queueing hint: Queue if the occurrence carries a new pod
//	              whose uid equals the pod's uid and whose label "gated" is
//	              not "yes"; else QueueSkip (also when there is no new pod,
//	              or it is another pod); never fails.
//	FlakyHint     queueing hint: always fails (so the queue acts as on
//	              Queue).
//	NodeZoneHint  queueing hint: fails unless the occurrence carries a node
//	              object as its newObject ("type":"node"); with one, Queue
//	              if the pod has no label "zone" or the node's label "zone"
//	              equals it, else QueueSkip. Only scenarios with "config
//	              zone-hint=on" (Fit's Node/Add) use it.
//	SkipHint      queueing hint: always QueueSkip (a registration declared
//	              "plugin:event:skip" in a scenario's config).
//	GateAdmits    PreEnqueue: admits the pod unless its label "gated" is
//	              "yes".
//	HoldAdmits    PreEnqueue: admits the pod unless its label "hold" is
//	              "yes".
//
// A pre-queueing hint (R20) is asked about one occurrence alone, before
// any pod, and answers either all pods or a list of pod keys (possibly
// empty), or fails, which counts as all pods:
//
//	WakesPreHint  pre-queueing hint: the pods named by the label "wakes"
//	              of the occurrence's new pod (in that pod's namespace)
//	              or, without a new pod, of its newObject, which must be a
//	              node ("type":"node"; any other object fails; pods in
//	              namespace "ns"); the label's value is pod names joined
//	              by "_" (empty names skipped). No new pod and no
//	              newObject, or no label "wakes": all pods.
//	GatePreHint   pre-queueing hint: the occurrence's new pod alone; no
//	              pod at all (an empty list) when it carries none.
//	FlakyPreHint  pre-queueing hint: always fails.
//
// With preQueueing, a move request (moveAll, moveAllWithObjects,
// assignedPodAdded, assignedPodUpdated) whose event is not a wildcard and
// carries some object (oldPod, newPod, oldObject or newObject; moveAll
// carries none) first asks, for every plugin in pluginEvents in name
// order, the pre-queueing hint of each of the plugin's registrations that
// matches the event (the matching rule above). A plugin is narrowed when
// every such registration has a hint that names pods: to the union of the
// keys they name. Any other matching plugin (a registration without a
// hint, or one that answers all pods or fails) narrows nothing, and then
// the request evaluates every parked pod; when every plugin asked is
// narrowed, it evaluates only the parked pods some plugin named (R21). In
// an evaluated pod, a narrowed plugin's queueing hints are asked only if
// it named that pod: otherwise it answers QueueSkip unasked (R22). In the
// podgroups profile a narrowed request evaluates a parked group only when
// some plugin named a pod of that group the queue holds (queued, in
// flight or waiting), and each member asks only the plugins that named it
// (G14). Updates, activate, the leftover flush and the replay of a failed
// pod's in-flight list never ask pre-queueing hints, and the in-flight
// list records every event as before. spec.Queue's section "Pre-queueing
// hints" is the normative text.
//
// The standard hints config (schedqtest.HintsConfig), which every hints
// scenario and the hints random runs start from, uses them so: plugin Fit
// registers Node/Add without a hint and Node/UpdateNodeLabel with
// FitLabelHint; Gate registers Pod/UpdatePodLabel with GateHint and is the
// PreEnqueue plugin GateAdmits; Flaky registers Node/UpdateNodeTaint with
// FlakyHint; Affinity registers Pod/Add without a hint; Hold registers no
// event and is the PreEnqueue plugin HoldAdmits. The config on the
// wire says all of it; a peer must not assume it.
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
//	invalidEvent   spec.ErrInvalidEvent: moveAllWithObjects or an update verdict with an invalid event
//	invalidPodGroup   spec.ErrInvalidPodGroup: a null or malformed pod group or groupInfo, an unknown status
//	podGroupNotFound  spec.ErrPodGroupNotFound (G11)
//	podGroupExists    spec.ErrPodGroupExists (G11)
//	groupEntity    spec.ErrGroupEntity: pop when the next entity is a pod group (G3)
//	other          an error that is none of the above (the suite treats it as a wrong error)
//	protocol       the request itself is wrong: not JSON, unknown op, a field that cannot be read,
//	               a request before init; answered with the request's id, or 0 if it could not be read
//
// The driver reports a protocol error, a response it cannot read or match
// to a request, a non-pop request unanswered after OpTimeout, and the peer's
// exit, as errors wrapping ErrProtocol, with the tail of the peer's stderr.
package remote
