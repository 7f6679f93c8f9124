//go:build !k8s133

package upstream

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// From v1.34 the queue's public types live in k8s.io/kube-scheduler/framework,
// a wildcard event carries its own label (CustomLabel), and the nominator
// hands back fwk.PodInfo.

type (
	clusterEvent   = fwk.ClusterEvent
	actionType     = fwk.ActionType
	eventResource  = fwk.EventResource
	queueingHint   = fwk.QueueingHint
	queueingHintFn = fwk.QueueingHintFn
	status         = fwk.Status
)

const hintQueue, hintSkip = fwk.Queue, fwk.QueueSkip

func refusedBy(plugin string) *status {
	return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, "refused by "+plugin)
}

func wildcardEvent(label string) clusterEvent {
	e := framework.EventForceActivate
	e.CustomLabel = label
	return e
}

func customLabel(e clusterEvent) string { return e.CustomLabel }

func addNominatedPod(q *queue.PriorityQueue, logger klog.Logger, pi *framework.PodInfo, override bool, node string) {
	m := fwk.ModeNoop
	if override {
		m = fwk.ModeOverride
	}
	q.AddNominatedPod(logger, pi, &fwk.NominatingInfo{NominatingMode: m, NominatedNodeName: node})
}

func nominatedPods(q *queue.PriorityQueue, node string) []*v1.Pod {
	var out []*v1.Pod
	for _, pi := range q.NominatedPodsForNode(node) {
		out = append(out, pi.GetPod())
	}
	return out
}
