// This file adapts the findings reproductions (findings/testdata/queue) to
// the API of one release of pkg/scheduler/backend/queue: the calls whose
// names or signatures changed between releases. make findings places it
// beside them in a copy of the release.

package queue

import (
	"context"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	plfeature "k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/names"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/schedulinggates"
)

// findingsAdd is the informer's pod-add handler calling the queue.
func findingsAdd(ctx context.Context, q *PriorityQueue, pod *v1.Pod) {
	q.Add(ctx, pod)
}

// findingsFail is the scheduler handing back a pod that failed its
// attempt of cycle.
func findingsFail(logger klog.Logger, q *PriorityQueue, pInfo *framework.QueuedPodInfo, cycle int64) error {
	return q.AddUnschedulablePodIfNotPresent(klog.NewContext(context.Background(), logger), pInfo, cycle)
}

// findingsPop is the scheduling loop taking the next pod.
func findingsPop(logger klog.Logger, q *PriorityQueue) (*framework.QueuedPodInfo, error) {
	e, err := q.Pop(logger)
	if e == nil || err != nil {
		return nil, err
	}
	return e.(*framework.QueuedPodInfo), nil
}

// findingsGates runs the SchedulingGates PreEnqueue plugin, as the default
// profile does.
func findingsGates(ctx context.Context) Option {
	plugin, _ := schedulinggates.New(ctx, nil, nil, plfeature.Features{})
	return WithPreEnqueuePluginMap(map[string]map[string]fwk.PreEnqueuePlugin{"": {names.SchedulingGates: plugin.(fwk.PreEnqueuePlugin)}})
}

// findingsAddPodGroup is the informer's PodGroup-add handler.
func findingsAddPodGroup(logger klog.Logger, q *PriorityQueue, pg *schedulingv1beta1.PodGroup) {
	q.AddGenericPodGroup(logger, fwk.NewGenericPodGroup(pg))
}

// findingsGroupMember is the member of a popped pod group named name.
func findingsGroupMember(group *framework.QueuedPodGroupInfo, name string) *framework.QueuedPodInfo {
	for m := range group.ForEachPodInfo() {
		if m.Pod.Name == name {
			return m
		}
	}
	return nil
}
