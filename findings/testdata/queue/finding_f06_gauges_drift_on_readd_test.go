package queue

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/component-base/metrics/testutil"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
)

// TestFinding_F06_PendingPodsGaugesDriftOnReAdd: an Add of a pod parked
// with the unschedulable pods replaces its entry with a fresh one, which
// counts as not gated until PreEnqueue has run. The gauges are moved by
// the fresh entry's state instead of the replaced one's, so
// scheduler_pending_pods{queue="gated"} and {queue="unschedulable"} drift
// with every such Add; they never come back.
func TestFinding_F06_PendingPodsGaugesDriftOnReAdd(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	q, _ := findingsNewQueue(ctx, findingsGates(ctx))
	defer q.Close()
	gauges := func() [3]float64 {
		var g [3]float64
		for i, m := range [...]func() (float64, error){
			func() (float64, error) { return testutil.GetGaugeMetricValue(metrics.ActivePods()) },
			func() (float64, error) { return testutil.GetGaugeMetricValue(metrics.UnschedulablePods()) },
			func() (float64, error) { return testutil.GetGaugeMetricValue(metrics.GatedPods()) },
		} {
			v, err := m()
			if err != nil {
				t.Fatal(err)
			}
			g[i] = v
		}
		return g
	}
	before := gauges()
	expect := func(after string, active, unschedulable, gated float64) {
		t.Helper()
		now := gauges()
		got := [3]float64{now[0] - before[0], now[1] - before[1], now[2] - before[2]}
		if want := [3]float64{active, unschedulable, gated}; got != want {
			t.Errorf("after %s, scheduler_pending_pods moved by active %v, unschedulable %v, gated %v; want %v, %v, %v (the queue holds the pod once)",
				after, got[0], got[1], got[2], want[0], want[1], want[2])
		}
	}
	pod := findingsPod("g")
	gated := pod.DeepCopy()
	gated.Spec.SchedulingGates = []v1.PodSchedulingGate{{Name: "example.com/hold"}}
	findingsAdd(ctx, q, gated)
	expect("an Add of a gated pod", 0, 0, 1)
	findingsAdd(ctx, q, gated)
	expect("a second Add of the gated pod", 0, 0, 1)
	findingsAdd(ctx, q, pod)
	expect("an Add of the pod with its gate removed", 1, 0, 0)
	findingsExpectHeldOnce(t, q, pod, "the three Adds")
}
