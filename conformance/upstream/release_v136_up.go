//go:build !k8s133 && !k8s134 && !k8s135

package upstream

import (
	"context"

	v1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// From v1.36 Add and Update take a context (the logger rides in it), and
// the scheduler's failure handler clears the last attempt's rejectors and
// gating plugin (ClearRejectorPlugins) before naming this attempt's.

func addPod(q *queue.PriorityQueue, ctx context.Context, p *v1.Pod) { q.Add(ctx, p) }

func updatePod(q *queue.PriorityQueue, ctx context.Context, oldPod, newPod *v1.Pod) {
	q.Update(ctx, oldPod, newPod)
}

func clearRejectors(pi *framework.QueuedPodInfo) { pi.ClearRejectorPlugins() }
