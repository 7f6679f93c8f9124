//go:build k8s133 || k8s134 || k8s135

package upstream

import (
	"context"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// Up to v1.35 Add and Update take a logger, and the scheduler's failure
// handler only assigns the new rejectors (the adapter does the same).

func addPod(q *queue.PriorityQueue, ctx context.Context, p *v1.Pod) { q.Add(klog.FromContext(ctx), p) }

func updatePod(q *queue.PriorityQueue, ctx context.Context, oldPod, newPod *v1.Pod) {
	q.Update(klog.FromContext(ctx), oldPod, newPod)
}

func clearRejectors(*framework.QueuedPodInfo) {}
