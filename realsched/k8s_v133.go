//go:build !v137 && !v138

package realsched

// The upstream API of kube-scheduler v1.33.13 that the rest of the package
// uses. A later release adds a file of its own with the same names (built
// with its tag and its modfile); everything else is written once.

import (
	"context"
	"time"
	_ "unsafe" // go:linkname

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler"
	"k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/profile"

	"github.com/schedq/schedq/spec"
)

// Release is the kube-scheduler release this build runs.
const Release = "v1.33.13"

// The upstream types, by the names this package uses.
type (
	upstreamQueue    = queue.SchedulingQueue
	preEnqueueCheck  = queue.PreEnqueueCheck
	clusterEvent     = framework.ClusterEvent
	queuedPodInfo    = framework.QueuedPodInfo
	podInfo          = framework.PodInfo
	nominatingInfo   = framework.NominatingInfo
	upstreamProfile  = framework.Framework
	enqueueExtension = framework.EnqueueExtensions
	preEnqueuePlugin = framework.PreEnqueuePlugin
	status           = framework.Status
	// nominatedInfo is what the nominator takes and hands back.
	nominatedInfo  = *framework.PodInfo
	upstreamHintFn = framework.QueueingHintFn
	// podSignature: v1.33 has no scheduling signatures.
	podSignature = any
)

// hintsProfile: v1.33.13 runs with queueing hints off, schedq's classic
// profile.
const hintsProfile = false

const (
	modeOverride = framework.ModeOverride
	nodeResource = framework.Node
	actionAdd    = framework.Add
	actionTaint  = framework.UpdateNodeTaint
	actionAll    = framework.All
)

// preEnqueueAdmits runs pl on pod as upstream's queue does (a background
// context): any status but success refuses it.
func preEnqueueAdmits(pl preEnqueuePlugin, pod *v1.Pod) bool {
	return pl.PreEnqueue(context.Background(), pod).IsSuccess()
}

func newPodInfo(p *v1.Pod) (*podInfo, error) { return framework.NewPodInfo(p) }

// newQueuedPodInfo builds what Pop returns in this release: the pod of the
// side table with the queue's fields.
func newQueuedPodInfo(e *sideEntry, info *spec.QueuedPodInfo) *queuedPodInfo {
	f := info.InitialAttemptTimestamp
	return &queuedPodInfo{PodInfo: e.info, Timestamp: info.Timestamp, Attempts: info.Attempts, InitialAttemptTimestamp: &f,
		UnschedulablePlugins: sets.New[string](info.UnschedulablePlugins...), PendingPlugins: sets.New[string]()}
}

// hintFieldsOf: the classic profile's pods have none to hand back.
func hintFieldsOf(*queuedPodInfo) spec.HintFields { return spec.HintFields{} }

// podOfInfo is a nominator argument's pod, nil for none.
func podOfInfo(pi nominatedInfo) *v1.Pod {
	if pi == nil {
		return nil
	}
	return pi.Pod
}

// infoOf is a nominator argument's parsed PodInfo.
func infoOf(pi nominatedInfo) *podInfo { return pi }

// specAction: v1.33's bits are spec's bits 0-12 (spec/event.go).
func specAction(a framework.ActionType) spec.ActionType { return spec.ActionType(a) }

// specResource: v1.33 names its resources as spec does.
func specResource(r framework.EventResource) spec.EventResource { return spec.EventResource(r) }

// hintOf: with queueing hints off, no hint is asked.
func hintOf(framework.ClusterEventWithHint) upstreamHintFn { return nil }

func callHint(fn upstreamHintFn, pod *v1.Pod, oldObj, newObj any) (spec.QueueingHint, error) {
	h, err := fn(klog.Background(), pod, oldObj, newObj)
	if h == framework.Queue {
		return spec.HintQueue, err
	}
	return spec.HintSkip, err
}

// updateEvents: the classic profile decides on Relevant alone.
func updateEvents(oldPod, newPod *v1.Pod) []spec.ClusterEvent { return nil }

// signer: v1.33 signs no pods.
func signer(context.Context, map[string]upstreamProfile) func(*v1.Pod) podSignature { return nil }

// refuseOffByDefault: v1.33.13 runs with the classic gates (setGates); the
// adapter has no other path to refuse.
func refuseOffByDefault() error { return nil }

func recorderFactory() profile.RecorderFactory {
	return func(string) events.EventRecorder { return &events.FakeRecorder{} }
}

// upstreamInFlight: v1.33's classic queue does not track its pods in
// flight.
func upstreamInFlight(*queue.PriorityQueue) []string { return nil }

//go:linkname upstreamFlushLeftover k8s.io/kubernetes/pkg/scheduler/backend/queue.(*PriorityQueue).flushUnschedulablePodsLeftover
func upstreamFlushLeftover(p *queue.PriorityQueue, logger klog.Logger)

// The methods whose signatures are v1.33's.

// Add is R1.
func (a *Adapter) Add(logger klog.Logger, pod *v1.Pod) { a.add(pod) }

// AddUnschedulableIfNotPresent is R3.
func (a *Adapter) AddUnschedulableIfNotPresent(logger klog.Logger, pInfo *queuedPodInfo, cycle int64) error {
	return a.addUnschedulable(pInfo, cycle)
}

// Update is R9.
func (a *Adapter) Update(logger klog.Logger, oldPod, newPod *v1.Pod) { a.update(oldPod, newPod) }

// Delete is R10.
func (a *Adapter) Delete(pod *v1.Pod) { a.delete(pod) }

// GetPod finds a queued pod by name.
func (a *Adapter) GetPod(name, namespace string) (*queuedPodInfo, bool) {
	return a.getPod(name, namespace)
}

// AssignedPodAdded is R11.
func (a *Adapter) AssignedPodAdded(logger klog.Logger, pod *v1.Pod) {
	if pod == nil {
		a.fail(spec.ErrNilPod)
		return
	}
	a.fail(a.q.AssignedPodAdded(specPod(pod)))
}

// AssignedPodUpdated is R11 for an update.
func (a *Adapter) AssignedPodUpdated(logger klog.Logger, oldPod, newPod *v1.Pod, event clusterEvent) {
	if newPod == nil {
		a.fail(spec.ErrNilPod)
		return
	}
	a.fail(a.q.AssignedPodUpdated(specPod(oldPod), specPod(newPod), specEvent(event)))
}

// Add is recorded and checked.
func (r *Recorder) Add(logger klog.Logger, pod *v1.Pod) {
	r.add(pod, func() { r.inner.Add(logger, pod) })
}

// AddUnschedulableIfNotPresent is recorded and checked.
func (r *Recorder) AddUnschedulableIfNotPresent(logger klog.Logger, p *queuedPodInfo, cycle int64) error {
	return r.addUnschedulable(p, cycle, func() error { return r.inner.AddUnschedulableIfNotPresent(logger, p, cycle) })
}

// Update is recorded and checked.
func (r *Recorder) Update(logger klog.Logger, oldPod, newPod *v1.Pod) {
	r.update(oldPod, newPod, func() { r.inner.Update(logger, oldPod, newPod) })
}

// Delete is recorded and checked.
func (r *Recorder) Delete(pod *v1.Pod) { r.delete(pod, func() { r.inner.Delete(pod) }) }

// AssignedPodAdded is recorded and checked.
func (r *Recorder) AssignedPodAdded(logger klog.Logger, pod *v1.Pod) {
	r.assignedPodAdded(pod, func() { r.inner.AssignedPodAdded(logger, pod) })
}

// AssignedPodUpdated is recorded and checked.
func (r *Recorder) AssignedPodUpdated(logger klog.Logger, oldPod, newPod *v1.Pod, event clusterEvent) {
	r.assignedPodUpdated(oldPod, newPod, event, func() { r.inner.AssignedPodUpdated(logger, oldPod, newPod, event) })
}

// GetPod is the wrapped queue's.
func (r *Recorder) GetPod(name, namespace string) (*queuedPodInfo, bool) {
	return r.inner.GetPod(name, namespace)
}

// AddUnschedulableIfNotPresent ends the attempt.
func (t *timed) AddUnschedulableIfNotPresent(logger klog.Logger, p *queuedPodInfo, cycle int64) error {
	t.failed(p)
	return t.upstreamQueue.AddUnschedulableIfNotPresent(logger, p, cycle)
}

// initialAttempt reads InitialAttemptTimestamp (a pointer in this release).
func initialAttempt(q *queuedPodInfo) time.Time {
	if q.InitialAttemptTimestamp == nil {
		return time.Time{}
	}
	return *q.InitialAttemptTimestamp
}

// Pop is v1.33's Pop: one pod, or an error once the queue is closed.
func (a *Adapter) Pop(logger klog.Logger) (*queuedPodInfo, error) { return a.pop() }

// Pop of the recorder, v1.33's signature.
func (r *Recorder) Pop(logger klog.Logger) (*queuedPodInfo, error) { return r.pop(logger) }

// Pop of the timer, v1.33's signature.
func (t *timed) Pop(logger klog.Logger) (*queuedPodInfo, error) { return t.pop(logger) }

// popUpstream calls the wrapped queue's Pop.
func popUpstream(q upstreamQueue, logger klog.Logger) (*queuedPodInfo, error) { return q.Pop(logger) }

// setNextPod points the scheduling loop at q (Scheduler.NextPod in v1.33).
func setNextPod(s *scheduler.Scheduler, q upstreamQueue) { s.NextPod = q.Pop }

// labelOf is a cluster event's metric label.
func labelOf(e clusterEvent) string { return e.Label() }

// setGates selects the classic queue: v1.33.13 with SchedulerQueueingHints
// and SchedulerPopFromBackoffQ off (both default on in this release). The
// gates are process-wide and read by scheduler.New, its event handlers and
// the queue, so both queues of a comparison run under the same ones.
func setGates() error {
	return utilfeature.DefaultMutableFeatureGate.SetFromMap(map[string]bool{
		string(features.SchedulerQueueingHints):   false,
		string(features.SchedulerPopFromBackoffQ): false,
	})
}

func newInformerFactory(cs kubernetes.Interface) informers.SharedInformerFactory {
	return scheduler.NewInformerFactory(cs, 0)
}

// NominatedPodsForNode is R18 (nominatedPodsForNode).
func (a *Adapter) NominatedPodsForNode(nodeName string) []nominatedInfo {
	return a.nominatedPodsForNode(nodeName)
}

// NominatedPodsForNode is checked (nominatedPodsForNode).
func (r *Recorder) NominatedPodsForNode(node string) []nominatedInfo {
	return r.nominatedPodsForNode(node, r.inner.NominatedPodsForNode)
}

// askPreCheck asks upstream's preCheck about pod: up to v1.37 it takes
// the pod itself.
func askPreCheck(pc preEnqueueCheck, pod *v1.Pod, _ *podInfo) bool { return pc(pod) }

// preCheckOn is f as this release's preCheck (the tests' own).
func preCheckOn(f func(*v1.Pod) bool) preEnqueueCheck { return f }

// preQueueing: this release's default gates run no pre-queueing hints.
const preQueueing = false

// upstreamPreHintFn: no pre-queueing hints here (preQueueing is false).
type upstreamPreHintFn = func()

func preHintOf(any) upstreamPreHintFn { return nil }

func callPreHint(upstreamPreHintFn, any, any) (spec.PreQueueingResult, error) {
	return spec.AllPods, nil
}
