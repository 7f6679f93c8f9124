package impl_test

import (
	"maps"
	"testing"
	"time"

	"github.com/schedq/schedq/impl"
	"github.com/schedq/schedq/spec"
)

// TestMetrics is R14: pending pods per queue and incoming pods per (queue,
// event), with upstream's labels.
func TestMetrics(t *testing.T) {
	if impl.MetricPendingPods != "scheduler_pending_pods" || impl.MetricQueueIncomingPods != "scheduler_queue_incoming_pods_total" {
		t.Fatal("metric names differ from upstream")
	}
	q, fc := newQueue(t, spec.DefaultConfig(events))
	for _, name := range []string{"a", "b", "c", "d"} {
		_ = q.Add(pod(name, 0))
	}
	// a: rejected by NodeFit -> unschedulable; b: no plugin -> backoff;
	// c: rejected by PodAffinity -> unschedulable; d stays in flight.
	fail := map[string][]string{"a": {"NodeFit"}, "b": nil, "c": {"PodAffinity"}}
	for range 4 {
		p, cycle := mustPop(t, q)
		plugins, ok := fail[p.Pod.Name]
		if !ok {
			continue
		}
		p.UnschedulablePlugins = plugins
		if err := q.AddUnschedulableIfNotPresent(p, cycle); err != nil {
			t.Fatal(err)
		}
	}
	// A node event moves a; its backoff (1s from now) has not completed,
	// so it goes to backoffQ.
	q.MoveAllToActiveOrBackoffQueue(nodeAdd, nil)
	// Updating c in a way that may make it schedulable moves it as well.
	c2 := *pod("c", 0)
	c2.Labels = map[string]string{"new": "label"}
	if err := q.Update(pod("c", 0), &c2); err != nil {
		t.Fatal(err)
	}
	// Updating an unknown pod adds it.
	if err := q.Update(pod("e", 0), pod("e", 0)); err != nil {
		t.Fatal(err)
	}
	fc.Step(2*time.Second + time.Nanosecond)
	q.FlushBackoffQCompleted() // a, b and c complete their backoff
	_ = q.Add(pod("f", 0))
	p, cycle := mustPop(t, q) // one of the activeQ pods
	p.UnschedulablePlugins = []string{"NodeFit"}
	// The last move request was in cycle 4, before this pod's cycle 5: no
	// shortcut, so unschedulablePods, from where Activate takes it.
	_ = q.AddUnschedulableIfNotPresent(p, cycle)
	if err := q.Activate([]*spec.Pod{p.Pod}); err != nil {
		t.Fatal(err)
	}

	m := q.Metrics()
	wantPending := map[string]int{impl.QueueActive: 5, impl.QueueBackoff: 0, impl.QueueUnschedulable: 0, impl.QueueGated: 0}
	if !maps.Equal(m.PendingPods, wantPending) {
		t.Errorf("PendingPods = %v, want %v", m.PendingPods, wantPending)
	}
	wantIncoming := map[impl.IncomingKey]uint64{
		{Queue: impl.QueueActive, Event: "UnschedulablePodAdd"}:           5,
		{Queue: impl.QueueUnschedulable, Event: "ScheduleAttemptFailure"}: 3,
		{Queue: impl.QueueBackoff, Event: "ScheduleAttemptFailure"}:       1,
		{Queue: impl.QueueBackoff, Event: "NodeAdd"}:                      1,
		{Queue: impl.QueueBackoff, Event: "UnschedulablePodUpdate"}:       1,
		{Queue: impl.QueueActive, Event: "UnschedulablePodUpdate"}:        1,
		{Queue: impl.QueueActive, Event: "BackoffComplete"}:               3,
		{Queue: impl.QueueActive, Event: "ForceActivate"}:                 1,
	}
	if !maps.Equal(m.IncomingPods, wantIncoming) {
		t.Errorf("IncomingPods =\n%v\nwant\n%v", m.IncomingPods, wantIncoming)
	}
}

// TestMetricsLeftover: the leftover flush counts its moves under the
// UnschedulableTimeout label (R6, R14).
func TestMetricsLeftover(t *testing.T) {
	q, fc := newQueue(t, spec.DefaultConfig(events))
	_ = q.Add(pod("a", 0))
	p, cycle := mustPop(t, q)
	p.UnschedulablePlugins = []string{"NodeFit"}
	_ = q.AddUnschedulableIfNotPresent(p, cycle)
	fc.Step(spec.DefaultPodMaxInUnschedulablePodsDuration)
	q.FlushUnschedulablePodsLeftover() // exactly 5m: not yet left over
	if got := q.Snapshot().MoveRequestCycle; got != -1 {
		t.Fatalf("a leftover flush that moved nothing set moveRequestCycle to %d", got)
	}
	fc.Step(time.Nanosecond)
	q.FlushUnschedulablePodsLeftover()
	key := impl.IncomingKey{Queue: impl.QueueActive, Event: "UnschedulableTimeout"}
	if got := q.Metrics().IncomingPods[key]; got != 1 {
		t.Fatalf("%v = %d, want 1", key, got)
	}
}
