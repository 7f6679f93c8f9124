//go:build k8s138

package upstream

import (
	"context"
	"iter"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// From v1.38 the failure path (AddUnschedulablePodIfNotPresent, which now
// also re-signs the pod for OpportunisticBatching: the adapter gives the
// queue no signers, so the signature stays empty) and GetPod take a
// context, NominatedPodsForNode a logger; one trio of calls takes every
// kind of pod group as an fwk.GenericPodGroup (a PodGroup or a
// CompositePodGroup), GetPodGroup looks a group up by name alone, an
// entity's members are an iterator, and a move request's PreEnqueueCheck
// is asked about an entity: the adapter passes an entity whose member the
// contract's check passes, as v1.37 asked about each member until one
// passed, so that the check means the same on every release.

func addUnschedulable(q *queue.PriorityQueue, logger klog.Logger, pi *framework.QueuedPodInfo, cycle int64) error {
	return q.AddUnschedulablePodIfNotPresent(klog.NewContext(context.Background(), logger), pi, cycle)
}

func getPod(q *queue.PriorityQueue, name, namespace string) (*framework.QueuedPodInfo, bool) {
	return q.GetPod(context.Background(), name, namespace, nil)
}

// lookupPod is GetPod with the pod's own group, so that a member is found
// in its entity.
func lookupPod(q *queue.PriorityQueue, p *v1.Pod) (*framework.QueuedPodInfo, bool) {
	return q.GetPod(context.Background(), p.Name, p.Namespace, p.Spec.SchedulingGroup)
}

func preEnqueueCheck(pre func(*v1.Pod) bool) queue.PreEnqueueCheck {
	if pre == nil {
		return nil
	}
	return func(e framework.QueuedEntityInfo) bool {
		for pi := range e.ForEachPodInfo() {
			if pre(pi.Pod) {
				return true
			}
		}
		return false
	}
}

func nominatedPods(q *queue.PriorityQueue, logger klog.Logger, node string) []*v1.Pod {
	var out []*v1.Pod
	for _, pi := range q.NominatedPodsForNode(logger, node) {
		out = append(out, podOf(pi))
	}
	return out
}

func addPodGroup(q *queue.PriorityQueue, logger klog.Logger, pg *schedulingv1beta1.PodGroup) {
	q.AddGenericPodGroup(logger, fwk.NewGenericPodGroup(pg))
}

func updatePodGroup(q *queue.PriorityQueue, logger klog.Logger, pg *schedulingv1beta1.PodGroup) {
	q.UpdateGenericPodGroup(logger, fwk.NewGenericPodGroup(pg))
}

func deletePodGroup(q *queue.PriorityQueue, logger klog.Logger, pg *schedulingv1beta1.PodGroup) {
	q.DeleteGenericPodGroup(logger, fwk.NewGenericPodGroup(pg))
}

func getPodGroup(q *queue.PriorityQueue, name, namespace string) (*framework.QueuedPodGroupInfo, bool) {
	return q.GetPodGroup(name, namespace)
}

// members are the entity's pods.
func members(e framework.QueuedEntityInfo) iter.Seq[*framework.QueuedPodInfo] {
	return e.ForEachPodInfo()
}

// groupObject is the popped group's namespace, name and PodGroup object
// (nil if the queue has none).
func groupObject(g *framework.PodGroupInfo) (namespace, name string, pg *schedulingv1beta1.PodGroup) {
	if g.GenericPodGroup == nil {
		return "", "", nil
	}
	return g.GetNamespace(), g.GetName(), g.GetPodGroup()
}

// newPodGroupInfo is the PodGroupInfo of a group the queue never popped.
func newPodGroupInfo(pg *schedulingv1beta1.PodGroup) *framework.PodGroupInfo {
	return framework.NewPodGroupInfo(fwk.NewGenericPodGroup(pg))
}

// forestPodGroups are the PodGroup objects of the workload forest's
// podGroups map, read by reflection (podgroups_v137.go); a
// CompositePodGroup (its gate is off by default) is left out.
func forestPodGroups(m any) ([]*schedulingv1beta1.PodGroup, bool) {
	gpgs, ok := m.(map[fwk.EntityKey]*fwk.GenericPodGroup)
	if !ok {
		return nil, false
	}
	out := make([]*schedulingv1beta1.PodGroup, 0, len(gpgs))
	for _, gpg := range gpgs {
		if pg := gpg.GetPodGroup(); pg != nil {
			out = append(out, pg)
		}
	}
	return out, true
}
