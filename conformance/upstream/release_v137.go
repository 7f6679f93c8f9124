//go:build !k8s133 && !k8s134 && !k8s135 && !k8s136 && !k8s138

package upstream

import (
	"iter"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// v1.37 only: the failure path takes a logger, GetPod no context, the
// pod-group calls take the scheduling/v1beta1 PodGroup itself (with a
// composite trio beside them), GetPodGroup the entity's key type, an
// entity hands its members to a callback, and the workload forest keeps
// the PodGroup objects in a map of their own.

func addUnschedulable(q *queue.PriorityQueue, logger klog.Logger, pi *framework.QueuedPodInfo, cycle int64) error {
	return q.AddUnschedulablePodIfNotPresent(logger, pi, cycle)
}

func getPod(q *queue.PriorityQueue, name, namespace string) (*framework.QueuedPodInfo, bool) {
	return q.GetPod(name, namespace, nil)
}

// lookupPod is GetPod with the pod's own group, so that a member is found
// in its entity.
func lookupPod(q *queue.PriorityQueue, p *v1.Pod) (*framework.QueuedPodInfo, bool) {
	return q.GetPod(p.Name, p.Namespace, p.Spec.SchedulingGroup)
}

func addPodGroup(q *queue.PriorityQueue, logger klog.Logger, pg *schedulingv1beta1.PodGroup) {
	q.AddPodGroup(logger, pg)
}

func updatePodGroup(q *queue.PriorityQueue, logger klog.Logger, pg *schedulingv1beta1.PodGroup) {
	q.UpdatePodGroup(logger, pg)
}

func deletePodGroup(q *queue.PriorityQueue, logger klog.Logger, pg *schedulingv1beta1.PodGroup) {
	q.DeletePodGroup(logger, pg)
}

func getPodGroup(q *queue.PriorityQueue, name, namespace string) (*framework.QueuedPodGroupInfo, bool) {
	return q.GetPodGroup(name, namespace, fwk.PodGroupKeyType)
}

// members are the entity's pods.
func members(e framework.QueuedEntityInfo) iter.Seq[*framework.QueuedPodInfo] {
	return func(yield func(*framework.QueuedPodInfo) bool) { e.ForEachPodInfo(yield) }
}

// groupObject is the popped group's namespace, name and PodGroup object
// (nil if the queue has none).
func groupObject(g *framework.PodGroupInfo) (namespace, name string, pg *schedulingv1beta1.PodGroup) {
	return g.Namespace, g.Name, g.PodGroup
}

// newPodGroupInfo is the PodGroupInfo of a group the queue never popped.
func newPodGroupInfo(pg *schedulingv1beta1.PodGroup) *framework.PodGroupInfo {
	return &framework.PodGroupInfo{Namespace: pg.Namespace, Name: pg.Name, Type: fwk.PodGroupKeyType, PodGroup: pg}
}

// forestPodGroups are the PodGroup objects of the workload forest's
// podGroups map, read by reflection (podgroups_v137.go).
func forestPodGroups(m any) ([]*schedulingv1beta1.PodGroup, bool) {
	pgs, ok := m.(map[fwk.EntityKey]*schedulingv1beta1.PodGroup)
	if !ok {
		return nil, false
	}
	out := make([]*schedulingv1beta1.PodGroup, 0, len(pgs))
	for _, pg := range pgs {
		out = append(out, pg)
	}
	return out, true
}
