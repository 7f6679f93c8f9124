package queue

import (
	"context"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	st "k8s.io/kubernetes/pkg/scheduler/testing"
)

// TestFinding_F04_UnrelatedFailureStrandsGroupMember: the queue remembers
// the entity it popped last, and a failing member of that pod group waits
// in pendingPodGroupPods until its group's cycle ends. But the failure of
// any pod clears that marker, even of a pod popped before the group (one
// in its binding cycle while the group is scheduled). A member failing
// after that no longer sees its group in flight and makes a second entity
// of the group in activeQ; the end of the group's cycle then finds the
// group "already present in the active queue" and returns before it
// collects the pending members. If the second entity's member is deleted,
// the first member waits in pendingPodGroupPods with its group in no queue:
// no move request, flush or Activate reaches it.
func TestFinding_F04_UnrelatedFailureStrandsGroupMember(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.GenericWorkload, true)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logger := klog.Background()
	q, clk := findingsNewQueue(ctx)
	defer q.Close()
	findingsAddPodGroup(logger, q, st.MakePodGroup().Name("g").Namespace("ns").Obj())
	member := func(name string) *v1.Pod {
		pod := findingsPod(name)
		group := "g"
		pod.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: &group}
		return pod
	}
	p, a, b := findingsPod("p"), member("a"), member("b")
	for _, pod := range []*v1.Pod{p, a, b} {
		findingsAdd(ctx, q, pod)
		clk.Step(time.Millisecond) // p is popped first, then the group
	}
	pInfo, err := findingsPop(logger, q)
	if err != nil || pInfo.Pod.Name != "p" {
		t.Fatalf("first Pop: %v, %v; want p", pInfo, err)
	}
	e, err := q.Pop(logger)
	group, ok := e.(*framework.QueuedPodGroupInfo)
	if err != nil || !ok {
		t.Fatalf("second Pop: %v (%T), %v; want group g", e, e, err)
	}
	fail := func(name string) {
		t.Helper()
		pi := findingsGroupMember(group, name)
		if name == "p" {
			pi = pInfo
		}
		pi.UnschedulablePlugins = sets.New("fooPlugin")
		if err := findingsFail(logger, q, pi, q.SchedulingCycle()); err != nil {
			t.Fatalf("failure of %s: %v", name, err)
		}
	}
	fail("a") // waits in pending: its group's cycle runs
	fail("p") // p's binding fails: this clears the group's marker
	fail("b")
	_ = q.AddAttemptedPodGroupIfNeeded(logger, group, q.SchedulingCycle(), fwk.NewStatus(fwk.Unschedulable, "no fit"))
	for _, pod := range q.PendingPodGroupPods() {
		t.Errorf("member %s waits in pendingPodGroupPods after its group's cycle ended", pod.Name)
	}

	q.Delete(logger, b)
	clk.Step(time.Hour)
	q.MoveAllToActiveOrBackoffQueue(logger, framework.EventUnschedulableTimeout, nil, nil, nil)
	q.Activate(logger, map[string]*v1.Pod{"a": a})
	if pending, inFlight, summary := findingsHeld(q, a); pending+inFlight == 0 {
		t.Errorf("member a is stranded: in no queue [%s], not in flight, after b was deleted, a move request and Activate(a)", summary)
	}
}
