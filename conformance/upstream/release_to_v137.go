//go:build !k8s138

package upstream

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/scheduler/backend/queue"
)

// Up to v1.37 a move request's PreEnqueueCheck is asked about a pod (of a
// group entity, each member until one passes), and the nominator's
// NominatedPodsForNode takes no logger.

func preEnqueueCheck(pre func(*v1.Pod) bool) queue.PreEnqueueCheck { return pre }

func nominatedPods(q *queue.PriorityQueue, _ klog.Logger, node string) []*v1.Pod {
	var out []*v1.Pod
	for _, pi := range q.NominatedPodsForNode(node) {
		out = append(out, podOf(pi))
	}
	return out
}
