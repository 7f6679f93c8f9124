//go:build v137 || v138

package realsched

// What kube-scheduler v1.37.2 and v1.38.0-beta.0 share of the upstream
// API this package uses, written once for both: k8s_v137.go and
// k8s_v138.go hold only what differs (the release, its gates, and the
// calls v1.38 re-signed or renamed).

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
	_ "unsafe" // go:linkname

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler"
	"k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/profile"

	"github.com/schedq/schedq/spec"
)

// preEnqueueAdmits runs pl on pod as upstream's queue does (a background
// context): any status but success refuses it.
func preEnqueueAdmits(pl preEnqueuePlugin, pod *v1.Pod) bool {
	return pl.PreEnqueue(context.Background(), pod).IsSuccess()
}

func newPodInfo(p *v1.Pod) (*podInfo, error) { return framework.NewPodInfo(p) }

// newQueuedPodInfo builds what Pop returns in this release: the pod of the
// side table with the queue's fields, the hint fields included, and the
// pod's signature.
func newQueuedPodInfo(e *sideEntry, info *spec.QueuedPodInfo) *queuedPodInfo {
	f := info.InitialAttemptTimestamp
	return &queuedPodInfo{PodInfo: e.info, PodSignature: e.sig, QueueingParams: framework.QueueingParams{
		Timestamp: info.Timestamp, Attempts: info.Attempts, InitialAttemptTimestamp: &f,
		UnschedulableCount: info.UnschedulableCount, ConsecutiveErrorsCount: info.ConsecutiveErrorsCount,
		FlushTimestamp: info.FlushTimestamp, GatingPlugin: info.GatingPlugin,
		UnschedulablePlugins: sets.New[string](info.UnschedulablePlugins...), PendingPlugins: sets.New[string](info.PendingPlugins...),
	}}
}

// hintFieldsOf are the hint fields of a pod handed back (R3h counts from
// them).
func hintFieldsOf(p *queuedPodInfo) spec.HintFields {
	return spec.HintFields{UnschedulableCount: p.UnschedulableCount, ConsecutiveErrorsCount: p.ConsecutiveErrorsCount,
		PendingPlugins: spec.NewPluginSet(sets.List(p.PendingPlugins)...), GatingPlugin: p.GatingPlugin, FlushTimestamp: p.FlushTimestamp}
}

// initialAttempt reads InitialAttemptTimestamp (a pointer).
func initialAttempt(q *queuedPodInfo) time.Time {
	if q.InitialAttemptTimestamp == nil {
		return time.Time{}
	}
	return *q.InitialAttemptTimestamp
}

// podOfInfo is a nominator argument's pod, nil for none.
func podOfInfo(pi nominatedInfo) *v1.Pod {
	if pi == nil {
		return nil
	}
	return pi.GetPod()
}

// infoOf is a nominator argument's parsed PodInfo (nil if it is another
// implementation: the adapter parses the pod again).
func infoOf(pi nominatedInfo) *podInfo {
	p, _ := pi.(*podInfo)
	return p
}

// actionNames pairs v1.37's action bits with spec's by name: v1.37 placed
// its new bits among the others (spec/event.go).
var actionNames = sync.OnceValue(func() map[fwk.ActionType]spec.ActionType {
	byName := map[string]spec.ActionType{}
	for b := spec.ActionType(1); b&spec.All != 0; b <<= 1 {
		byName[b.String()] = b
	}
	m := map[fwk.ActionType]spec.ActionType{}
	for b := fwk.ActionType(1); b&fwk.All != 0; b <<= 1 {
		if s, ok := byName[b.String()]; ok {
			m[b] = s
		}
	}
	return m
})

// specAction is a in spec's bits; v1.37's general Update is spec's
// (UpdatePodOther included), and a bit without a name in spec becomes the
// general update.
func specAction(a fwk.ActionType) spec.ActionType {
	switch a {
	case fwk.All:
		return spec.All
	case fwk.Update:
		return spec.Update
	}
	var out spec.ActionType
	for b, s := range actionNames() {
		if a&b != 0 {
			out |= s
			a &^= b
		}
	}
	if a != 0 {
		out |= spec.Update
	}
	return out
}

// specResource: v1.37 calls the unscheduled-pod resource UnscheduledPod.
func specResource(r fwk.EventResource) spec.EventResource {
	if r == fwk.UnscheduledPod {
		return spec.ResourceUnschedulablePod
	}
	return spec.EventResource(r)
}

// hintOf is a registration's queueing hint (nil: always Queue).
func hintOf(ev fwk.ClusterEventWithHint) upstreamHintFn { return ev.QueueingHintFn }

func callHint(fn upstreamHintFn, pod *v1.Pod, oldObj, newObj any) (spec.QueueingHint, error) {
	h, err := fn(klog.Background(), pod, oldObj, newObj)
	if h == fwk.Queue {
		return spec.HintQueue, err
	}
	return spec.HintSkip, err
}

// updateEvents are the events the queue (v1.37 on) derives from an update of a
// pending pod, for the pod itself (TargetPod): one per scheduling property
// that changed, or the general update.
func updateEvents(oldPod, newPod *v1.Pod) []spec.ClusterEvent {
	evs := framework.PodSchedulingPropertiesChange(newPod, oldPod, true)
	out := make([]spec.ClusterEvent, len(evs))
	for i, e := range evs {
		out[i] = specEvent(e)
	}
	return out
}

// signer signs a pod with its own profile, as upstream's queue does when a
// new version of the pod comes in (Add, Update).
func signer(ctx context.Context, profiles map[string]upstreamProfile) func(*v1.Pod) podSignature {
	return func(p *v1.Pod) podSignature {
		if f := profiles[p.Spec.SchedulerName]; f != nil {
			return f.SignPod(ctx, p)
		}
		return nil
	}
}

func recorderFactory() profile.RecorderFactory {
	return func(string) events.EventRecorderLogger { return &events.FakeRecorder{} }
}

// upstreamInFlight are the pods the queue (v1.37 on) has in flight.
func upstreamInFlight(pq *queue.PriorityQueue) []string { return podKeys(pq.InFlightPods()) }

//go:linkname upstreamFlushLeftover k8s.io/kubernetes/pkg/scheduler/backend/queue.(*PriorityQueue).flushUnschedulableEntitiesLeftover
func upstreamFlushLeftover(p *queue.PriorityQueue, logger klog.Logger)

// labelOf is a cluster event's metric label.
func labelOf(e clusterEvent) string { return e.Label() }

// setNextPod points the scheduling loop at q (Scheduler.NextEntity).
func setNextPod(s *scheduler.Scheduler, q upstreamQueue) { s.NextEntity = q.Pop }

// popUpstream calls the wrapped queue's Pop; an entity that is not a pod
// (a pod group: GenericWorkload is off) is an error.
func popUpstream(q upstreamQueue, logger klog.Logger) (*queuedPodInfo, error) {
	e, err := q.Pop(logger)
	if e == nil {
		return nil, err
	}
	p, ok := e.(*queuedPodInfo)
	if !ok {
		return nil, fmt.Errorf("Pop returned a %T, not a pod", e)
	}
	return p, err
}

// entity is p as Pop's interface result: no typed nil.
func entity(p *queuedPodInfo, err error) (framework.QueuedEntityInfo, error) {
	if p == nil {
		return nil, err
	}
	return p, err
}

// The upstream types, by the names this package uses.
type (
	upstreamQueue    = queue.SchedulingQueue
	preEnqueueCheck  = queue.PreEnqueueCheck
	clusterEvent     = fwk.ClusterEvent
	queuedPodInfo    = framework.QueuedPodInfo
	podInfo          = framework.PodInfo
	nominatingInfo   = fwk.NominatingInfo
	upstreamProfile  = framework.Framework
	enqueueExtension = fwk.EnqueueExtensions
	preEnqueuePlugin = fwk.PreEnqueuePlugin
	status           = fwk.Status
	nominatedInfo    = fwk.PodInfo
	upstreamHintFn   = fwk.QueueingHintFn
	podSignature     = fwk.PodSignature
)

const (
	modeOverride = fwk.ModeOverride
	nodeResource = fwk.Node
	actionAdd    = fwk.Add
	actionTaint  = fwk.UpdateNodeTaint
	actionAll    = fwk.All
)

// Add is R1h.
func (a *Adapter) Add(ctx context.Context, pod *v1.Pod) { a.add(pod) }

// Pop is R2h; a closed queue returns nothing, as upstream's.
func (a *Adapter) Pop(logger klog.Logger) (framework.QueuedEntityInfo, error) {
	p, err := a.pop()
	if errors.Is(err, spec.ErrClosed) {
		return nil, nil
	}
	return entity(p, err)
}

// Update is R9h.
func (a *Adapter) Update(ctx context.Context, oldPod, newPod *v1.Pod) { a.update(oldPod, newPod) }

// Delete is R10h.
func (a *Adapter) Delete(logger klog.Logger, pod *v1.Pod) { a.delete(pod) }

// refuse counts a call on a path the adapter refuses (the gates that reach
// it are off: NewAdapter refuses them) and returns the error.
func (a *Adapter) refuse(what string) error {
	err := fmt.Errorf("%w: %s", ErrOffByDefault, what)
	a.fail(err)
	return err
}

// AddAttemptedPodGroupIfNeeded is refused: pod groups (GenericWorkload).
func (a *Adapter) AddAttemptedPodGroupIfNeeded(klog.Logger, *framework.QueuedPodGroupInfo, int64, *fwk.Status) error {
	return a.refuse("AddAttemptedPodGroupIfNeeded (pod groups)")
}

// PatchPodStatus is refused: asynchronous API calls
// (SchedulerAsyncAPICalls).
func (a *Adapter) PatchPodStatus(*v1.Pod, []*v1.PodCondition, *fwk.NominatingInfo) (<-chan error, error) {
	return nil, a.refuse("PatchPodStatus (asynchronous API calls)")
}

// PendingPodGroupPods lists nothing: no pod groups.
func (a *Adapter) PendingPodGroupPods() []*v1.Pod { return nil }

// IncompletePodGroupPodsPods lists nothing: no pod groups.
func (a *Adapter) IncompletePodGroupPodsPods() []*v1.Pod { return nil }

// Add is recorded and checked.
func (r *Recorder) Add(ctx context.Context, pod *v1.Pod) {
	r.add(pod, func() { r.inner.Add(ctx, pod) })
}

// Pop is recorded and checked.
func (r *Recorder) Pop(logger klog.Logger) (framework.QueuedEntityInfo, error) {
	return entity(r.pop(logger))
}

// Update is recorded and checked.
func (r *Recorder) Update(ctx context.Context, oldPod, newPod *v1.Pod) {
	r.update(oldPod, newPod, func() { r.inner.Update(ctx, oldPod, newPod) })
}

// Delete is recorded and checked.
func (r *Recorder) Delete(logger klog.Logger, pod *v1.Pod) {
	r.delete(pod, func() { r.inner.Delete(logger, pod) })
}

func (r *Recorder) AddAttemptedPodGroupIfNeeded(logger klog.Logger, pg *framework.QueuedPodGroupInfo, cycle int64, s *fwk.Status) error {
	return r.inner.AddAttemptedPodGroupIfNeeded(logger, pg, cycle, s)
}

func (r *Recorder) PatchPodStatus(p *v1.Pod, c []*v1.PodCondition, n *fwk.NominatingInfo) (<-chan error, error) {
	return r.inner.PatchPodStatus(p, c, n)
}

func (r *Recorder) PendingPodGroupPods() []*v1.Pod { return r.inner.PendingPodGroupPods() }

func (r *Recorder) IncompletePodGroupPodsPods() []*v1.Pod {
	return r.inner.IncompletePodGroupPodsPods()
}

// Pop of the timer.
func (t *timed) Pop(logger klog.Logger) (framework.QueuedEntityInfo, error) {
	return entity(t.pop(logger))
}

func newInformerFactory(cs kubernetes.Interface) informers.SharedInformerFactory {
	return scheduler.NewInformerFactory(cs, 0, nil)
}
