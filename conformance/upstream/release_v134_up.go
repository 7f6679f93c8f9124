//go:build !k8s133

package upstream

import (
	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// From v1.34 the queue's public types live in k8s.io/kube-scheduler/framework,
// a wildcard event carries its own label (CustomLabel), and the nominator
// hands back fwk.PodInfo.

type (
	clusterEvent  = fwk.ClusterEvent
	actionType    = fwk.ActionType
	eventResource = fwk.EventResource
	queueingHint  = fwk.QueueingHint
	status        = fwk.Status
)

func customLabel(e clusterEvent) string { return e.CustomLabel }

// The hint answers and a PreEnqueue refusal in the release's words.
const hintQueue, hintSkip = fwk.Queue, fwk.QueueSkip

func wildcardEvent(label string) clusterEvent {
	e := framework.EventForceActivate
	e.CustomLabel = label
	return e
}

func refusedBy(plugin string) *status {
	return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, "refused by "+plugin)
}

// podOf is a nominated pod's *v1.Pod.
func podOf(pi fwk.PodInfo) *v1.Pod { return pi.GetPod() }
