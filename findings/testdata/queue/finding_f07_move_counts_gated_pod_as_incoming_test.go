package queue

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/component-base/metrics/testutil"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
)

// TestFinding_F07_MoveCountsGatedPodAsIncoming: a move request (here the
// leftover flush's wildcard event) takes each gated pod it re-examines out
// of the unschedulable pods before it runs PreEnqueue again, and puts it
// back when the gate still holds. The pod never left, yet
// scheduler_queue_incoming_pods_total{queue="unschedulable"} counts it as
// an incoming pod, once per move: the counter says pods keep arriving while
// none does. An Add or Activate that leaves a gated pod gated counts
// nothing, as it should.
func TestFinding_F07_MoveCountsGatedPodAsIncoming(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logger := klog.Background()
	q, _ := findingsNewQueue(ctx, findingsGates(ctx))
	defer q.Close()
	pod := findingsPod("g")
	pod.Spec.SchedulingGates = []v1.PodSchedulingGate{{Name: "example.com/hold"}}
	findingsAdd(ctx, q, pod)
	counter := metrics.SchedulerQueueIncomingPods.WithLabelValues("unschedulable", framework.UnschedulableTimeout)
	before, err := testutil.GetCounterMetricValue(counter)
	if err != nil {
		t.Fatal(err)
	}
	q.MoveAllToActiveOrBackoffQueue(logger, framework.EventUnschedulableTimeout, nil, nil, nil)
	findingsExpectHeldOnce(t, q, pod, "a move request that leaves the pod gated")
	after, err := testutil.GetCounterMetricValue(counter)
	if err != nil {
		t.Fatal(err)
	}
	if after != before {
		t.Errorf("a move request that left the gated pod where it was counted %v incoming pod(s) to the unschedulable pods; want 0", after-before)
	}
}
