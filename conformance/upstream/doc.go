// Package upstream adapts the kube-scheduler scheduling queue
// (k8s.io/kubernetes/pkg/scheduler/backend/queue.PriorityQueue) of every
// minor release from v1.33 to v1.37, and of the v1.38.0-beta.0
// pre-release, to the schedq conformance suite, from one source.
//
// # One module, one modfile per release, build tags where the API differs
//
// The module is built against one Kubernetes release at a time. go.mod
// names the newest released version (v1.37.2); every other release has a
// modfile of its own beside it, go.v133.mod to go.v136.mod and go.v138.mod
// (with go.v1NN.sum), and a build tag of the same number:
//
//	go test ./...                                   # v1.37.2
//	go test -modfile=go.v135.mod -tags k8s135 ./... # v1.35.6
//	GOTOOLCHAIN=go1.27.3 go test -modfile=go.v138.mod -tags k8s138 ./...
//
// releases.txt lists them, each with its modfile, tag and Go toolchain;
// the Makefile, scripts/verify and k8sbranch read it, so adding a release
// (v1.38.0-rc.0, say) is a line there, a modfile, and the release files
// its API needs.
//
// Why go.mod stays on v1.37.2 while v1.38.0-beta.0 is a target: a
// pre-release is a target to find differences before it ships, not the
// release the module's plain build means. Its go.mod asks for Go 1.27,
// newer than the Go this repository builds with (Go 1.26), so making it
// go.mod's would make every plain go command in the module fetch another
// toolchain; its builds alone set GOTOOLCHAIN=go1.27.3 (releases.txt),
// which the go command fetches from the module proxy. Two modules it pins
// are not served there: sigs.k8s.io/structured-merge-diff/v7 v7.0.1 (its
// zip is refused), replaced by v7.0.0, which has the same API for what the
// queue uses, and k8s.io/ktesting, which only Kubernetes's own tests
// import. When v1.38.0 ships, go.mod moves to it, v1.37.2 takes
// go.v137.mod and tag k8s137, and the release files' constraints flip
// (k8s138 becomes the untagged build).
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
//	release_to_v137.go     v1.33-v1.37: PreEnqueueCheck of a pod,
//	                       NominatedPodsForNode without a logger
//	release_v137.go        v1.37 only: the failure path and GetPod without
//	                       a context, the PodGroup trio, a member callback
//	release_v138_up.go     v1.38+: GetPod and the failure path with a
//	                       context, the GenericPodGroup trio, a member
//	                       iterator, PreEnqueueCheck of an entity
//
// Each of these files is a handful of one-line translations; the only text
// two of them share is the block of type aliases that binds the same five
// names to pkg/scheduler/framework (v1.33) or to
// k8s.io/kube-scheduler/framework (v1.34+).
//
// The newest released version builds with no tag, so that the package
// reads as ordinary Go code in an editor; a pre-release comes in with a
// modfile and a tag of its own and the files whose API moved, and when it
// ships the previous newest takes a modfile and a tag instead. What the package cannot learn from the API it learns at run
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
