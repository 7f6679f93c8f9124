//go:build k8s133

package upstream

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
)

// v1.33 keeps the queue's types in pkg/scheduler/framework (v1.34 moved
// them to k8s.io/kube-scheduler/framework), takes PreEnqueue plugins as a
// list and the metrics recorder by value, and sorts on *QueuedPodInfo.

type (
	clusterEvent  = framework.ClusterEvent
	actionType    = framework.ActionType
	eventResource = framework.EventResource
	queueingHint  = framework.QueueingHint
	status        = framework.Status
)

// wildcardEvent: v1.33's wildcard labels are unexported, so a wildcard is
// upstream's UnschedulableTimeout or, for every other label, its
// ForceActivate (metrics.go puts the moves back under their own label).
func wildcardEvent(label string) clusterEvent {
	if label == framework.EventUnschedulableTimeout.Label() {
		return framework.EventUnschedulableTimeout
	}
	return framework.EventForceActivate
}

// customLabel: v1.33's events carry no label of their own.
func customLabel(clusterEvent) string { return "" }

func withPreEnqueuePlugins(plugins ...preEnqueuePlugin) queue.Option {
	var l []framework.PreEnqueuePlugin
	for _, p := range plugins {
		l = append(l, p)
	}
	return queue.WithPreEnqueuePluginMap(map[string][]framework.PreEnqueuePlugin{SchedulerName: l})
}

func withMetricsRecorder(r *metrics.MetricAsyncRecorder) queue.Option {
	return queue.WithMetricsRecorder(*r)
}

// less is the default PrioritySort order: priority, then Timestamp.
func less(a, b *framework.QueuedPodInfo) bool {
	pa, pb := priority(a.Pod), priority(b.Pod)
	return pa > pb || pa == pb && a.Timestamp.Before(b.Timestamp)
}

// podOf is a nominated pod's *v1.Pod.
func podOf(pi *framework.PodInfo) *v1.Pod { return pi.Pod }

// The hint answers and a PreEnqueue refusal in the release's words.
const hintQueue, hintSkip = framework.Queue, framework.QueueSkip

func refusedBy(plugin string) *status {
	return framework.NewStatus(framework.UnschedulableAndUnresolvable, "refused by "+plugin)
}
