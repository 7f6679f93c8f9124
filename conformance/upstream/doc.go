// Package upstream adapts the kube-scheduler scheduling queue
// (k8s.io/kubernetes/pkg/scheduler/backend/queue.PriorityQueue) of every
// minor release from v1.33 to v1.37 to the schedq conformance suite, from
// one source.
//
// # One module, one modfile per release, build tags where the API differs
//
// The module is built against one Kubernetes release at a time. go.mod
// names the newest (v1.37.2); each older release has a modfile of its own
// beside it, go.v133.mod to go.v136.mod (with go.v1NN.sum), and a build tag
// of the same number:
//
//	go test ./...                                   # v1.37.2
//	go test -modfile=go.v135.mod -tags k8s135 ./... # v1.35.6
//
// Everything that reads the same on every release is written once
// (target.go, events.go, hints.go, inflight.go, metrics.go, lister.go and
// the tests). Where the upstream API really differs, the variants live in
// files named release_*.go, each under a build constraint naming the
// releases it serves, split at the release that changed the API:
//
//	release_v133.go        v1.33 only: types in pkg/scheduler/framework,
//	                       PreEnqueue plugins as a list, wildcard events
//	                       without labels, less on *QueuedPodInfo
//	release_v134.go        v1.34 only: PreEnqueue plugins of the framework
//	                       package's own interface, a recorder by value
//	release_v134_up.go     v1.34+: types in k8s.io/kube-scheduler/framework,
//	                       wildcard events with a CustomLabel
//	release_v134_v136.go   v1.34-v1.36: less on fwk.QueuedPodInfo
//	release_to_v134.go     v1.33-v1.34: nominations are framework's
//	release_v135_up.go     v1.35+: PreEnqueue plugins and nominations of
//	                       fwk, the recorder by pointer
//	release_to_v135.go     v1.33-v1.35: Add and Update take a logger
//	release_v136_up.go     v1.36+: Add and Update take a context,
//	                       ClearRejectorPlugins
//	release_to_v136.go     v1.33-v1.36: Pop returns a pod, AssignedPodAdded
//	release_v137_up.go     v1.37+: entities, AddUnschedulablePodIfNotPresent
//
// Each of these files is a handful of one-line translations; the only text
// two of them share is the block of type aliases that binds the same five
// names to pkg/scheduler/framework (v1.33) or to
// k8s.io/kube-scheduler/framework (v1.34+).
//
// The newest release builds with no tag, so that the package reads as
// ordinary Go code in an editor, and a new release is added by giving the
// previous newest a modfile and a tag, then changing only the files whose
// API moved. What the package cannot learn from the API it learns at run
// time, so no release number is written into the logic: the release's
// version from where the queue's code was compiled from (the module
// cache's k8s.io/kubernetes@v1.35.6 directory), whether queueing hints can
// be switched off from the feature gate's own spec (LockToDefault from
// v1.34, gone in v1.37), and which fields a QueuedPodInfo has (the hint
// counts from v1.34, FlushTimestamp from v1.36, a Gated bool in v1.33) by
// their names (release.go).
//
// A local Kubernetes checkout builds the same way: conformance/cmd/k8sbranch
// copies the modfile of the release the branch is based on, adds replace
// directives for k8s.io/kubernetes and its staging modules, and runs the
// suite with that release's tag (make conformance KUBERNETES=../kubernetes).
//
// # What the adapter adds or maps, and why
//
//   - In-flight pods. Upstream tracks them only as UIDs (and not at all in
//     v1.33's classic mode); the adapter keeps the QueuedPodInfo each Pop
//     returned until it is handed back, Done, or deleted, to report it and
//     hand it back as the scheduler does.
//   - Rejecting plugins. The adapter's AddUnschedulableIfNotPresent
//     replaces them with the suite's, as handleSchedulingFailure does.
//   - The two flushes run on timers upstream; the adapter calls upstream's
//     own unexported methods (linkname, flush.go), so scenarios decide when
//     they happen.
//   - Assigned-pod events: up to v1.36 the queue's AssignedPodAdded and
//     AssignedPodUpdated; from v1.37, which removed them, what its event
//     handlers do instead (MoveAllToActiveOrBackoffQueue with the event).
//   - The nominator is upstream's own, with a pod lister the adapter fills
//     (lister.go): upstream drops a nomination of a pod its lister does not
//     list.
//   - Metrics are read from the process's registry as what changed since
//     the target was made (metrics.go).
//   - moveRequestCycle is read by reflection where it exists; the in-flight
//     list is read with internal/inflightlist; both for observation only.
//   - Bad input the upstream API cannot express (a nil pod panics there) is
//     rejected by the adapter with the spec errors before reaching the
//     queue; everything else upstream ignores silently (SilentNoOps).
package upstream
