//go:build !k8s133 && !k8s134 && !k8s135 && !k8s136

package upstream

import (
	_ "unsafe" // for go:linkname

	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// From v1.37 the queue holds entities (a pod, or a pod group: off, as
// GenericWorkload is off by default and no pod names one): Pop returns a
// framework.QueuedEntityInfo, the failure path is
// AddUnschedulablePodIfNotPresent, a pod's queueing fields sit in
// QueueingParams, GetPod takes a scheduling group (release_v137.go and
// release_v138_up.go say how each calls them), Delete a logger,
// the leftover flush is flushUnschedulableEntitiesLeftover. The queue's
// AssignedPodAdded and AssignedPodUpdated are gone: the adapter does what
// the event handlers do instead (MoveAllToActiveOrBackoffQueue with the
// assigned-pod event and the pod as its object), and which pods that moves
// is up to the plugins' queueing hints. A Pod registration is unrolled to
// the pod resources (framework.UnrollPodEvent) when the hint map is built.

func pop(q *queue.PriorityQueue, logger klog.Logger) (*framework.QueuedPodInfo, error) {
	e, err := q.Pop(logger)
	if err != nil || e == nil {
		return nil, err
	}
	pi, ok := e.(*framework.QueuedPodInfo)
	if !ok {
		return nil, fmt.Errorf("Pop returned a %T; the adapter queues no pod groups", e)
	}
	return pi, nil
}

func newQueuedPodInfo(p *v1.Pod, ts time.Time) *framework.QueuedPodInfo {
	podInfo, _ := framework.NewPodInfo(p)
	return &framework.QueuedPodInfo{PodInfo: podInfo, QueueingParams: framework.QueueingParams{Timestamp: ts}}
}

func deletePod(q *queue.PriorityQueue, logger klog.Logger, p *v1.Pod) { q.Delete(logger, p) }

func assignedPodAdded(q *queue.PriorityQueue, logger klog.Logger, p *v1.Pod) {
	q.MoveAllToActiveOrBackoffQueue(logger, framework.EventAssignedPodAdd, nil, p, nil)
}

func assignedPodUpdated(q *queue.PriorityQueue, logger klog.Logger, oldPod, newPod *v1.Pod, e clusterEvent) {
	q.MoveAllToActiveOrBackoffQueue(logger, e, oldPod, newPod, nil)
}

func unrollPodEvent(e clusterEvent) []clusterEvent {
	if e.Resource == fwk.Pod {
		return framework.UnrollPodEvent(e)
	}
	return []clusterEvent{e}
}

// less is the default PrioritySort order: priority, then Timestamp.
func less(a, b fwk.QueuedEntityInfo) bool {
	pa, pb := a.GetPriority(), b.GetPriority()
	return pa > pb || pa == pb && a.GetTimestamp().Before(b.GetTimestamp())
}

// flushLeftover is the release's leftover flush (flush.go).
//
//go:linkname flushLeftover k8s.io/kubernetes/pkg/scheduler/backend/queue.(*PriorityQueue).flushUnschedulableEntitiesLeftover
func flushLeftover(p *queue.PriorityQueue, logger klog.Logger)

// setNamingPreQueueingHint gives f a pre-queueing hint whose i-th call
// names pods[i % len(pods)], with no conversion: the comparison
// benchmarks' (workload.Target.Narrowed).
func setNamingPreQueueingHint(f *queue.QueueingHintFunction, pods [][]types.NamespacedName) {
	answers := make([]fwk.PreQueueingHintResult, len(pods))
	for i, p := range pods {
		answers[i] = fwk.PreQueueingHintResult{Pods: p}
	}
	calls := 0
	f.PreQueueingHintFn = func(klog.Logger, interface{}, interface{}) (fwk.PreQueueingHintResult, error) {
		r := answers[calls%len(answers)]
		calls++
		return r, nil
	}
}

// setPreQueueingHint gives f the pre-queueing hint h (QueueingHintFunction
// has the field from v1.37; the gate that runs it is on by default from
// v1.38, refusePreQueueing).
func setPreQueueingHint(f *queue.QueueingHintFunction, h preHint) {
	f.PreQueueingHintFn = func(_ klog.Logger, oldObj, newObj interface{}) (fwk.PreQueueingHintResult, error) {
		all, pods, err := h(oldObj, newObj)
		if err != nil || all {
			return fwk.PreQueueingHintResult{AllPods: all}, err
		}
		r := fwk.PreQueueingHintResult{Pods: make([]types.NamespacedName, len(pods))}
		for i, p := range pods {
			r.Pods[i] = types.NamespacedName{Namespace: p.Namespace, Name: p.Name}
		}
		return r, nil
	}
}
