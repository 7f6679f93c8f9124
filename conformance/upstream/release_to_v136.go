//go:build k8s133 || k8s134 || k8s135 || k8s136

package upstream

import (
	_ "unsafe" // for go:linkname

	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// Up to v1.36 the queue holds pods only: Pop returns a *QueuedPodInfo, the
// failure path is AddUnschedulableIfNotPresent, the assigned-pod events
// are methods of the queue, and a Pod registration is matched against both
// pod resources when an event comes (no unrolling).

func pop(q *queue.PriorityQueue, logger klog.Logger) (*framework.QueuedPodInfo, error) {
	return q.Pop(logger)
}

func addUnschedulable(q *queue.PriorityQueue, logger klog.Logger, pi *framework.QueuedPodInfo, cycle int64) error {
	return q.AddUnschedulableIfNotPresent(logger, pi, cycle)
}

func newQueuedPodInfo(p *v1.Pod, ts time.Time) *framework.QueuedPodInfo {
	podInfo, _ := framework.NewPodInfo(p)
	return &framework.QueuedPodInfo{PodInfo: podInfo, Timestamp: ts}
}

func getPod(q *queue.PriorityQueue, name, namespace string) (*framework.QueuedPodInfo, bool) {
	return q.GetPod(name, namespace)
}

func deletePod(q *queue.PriorityQueue, _ klog.Logger, p *v1.Pod) { q.Delete(p) }

func assignedPodAdded(q *queue.PriorityQueue, logger klog.Logger, p *v1.Pod) {
	q.AssignedPodAdded(logger, p)
}

func assignedPodUpdated(q *queue.PriorityQueue, logger klog.Logger, oldPod, newPod *v1.Pod, e clusterEvent) {
	q.AssignedPodUpdated(logger, oldPod, newPod, e)
}

func unrollPodEvent(e clusterEvent) []clusterEvent { return []clusterEvent{e} }

// flushLeftover is the release's leftover flush (flush.go).
//
//go:linkname flushLeftover k8s.io/kubernetes/pkg/scheduler/backend/queue.(*PriorityQueue).flushUnschedulablePodsLeftover
func flushLeftover(p *queue.PriorityQueue, logger klog.Logger)

// setPreQueueingHint is never reached up to v1.36, which has no
// pre-queueing hints: refusePreQueueing refuses their configs first.
func setPreQueueingHint(*queue.QueueingHintFunction, preHint) {}

// setNamingPreQueueingHint is never reached up to v1.36 either
// (BenchmarkNarrowedMoves skips where the gate is off).
func setNamingPreQueueingHint(*queue.QueueingHintFunction, [][]types.NamespacedName) {}
