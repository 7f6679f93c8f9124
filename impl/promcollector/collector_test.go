package promcollector_test

import (
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/schedq/schedq/impl"
	"github.com/schedq/schedq/impl/promcollector"
	"github.com/schedq/schedq/spec"
)

var nodeAdd = spec.ClusterEvent{Resource: spec.ResourceNode, ActionType: spec.Add}

// busyQueue returns a queue with pods in every place and moves of every
// kind counted: Add, failures to backoffQ and unschedulablePods, a node
// event, the backoffQ flush, Activate.
func busyQueue(t *testing.T) *impl.PriorityQueue {
	t.Helper()
	fc := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	q, err := impl.New(spec.DefaultConfig(spec.PluginEvents{"NodeFit": {nodeAdd}}), impl.WithClock(fc))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(q.Close)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	for i := range 12 {
		must(q.Add(&spec.Pod{Namespace: "ns", Name: fmt.Sprint("p", i), UID: spec.UID(fmt.Sprint("u", i))}))
	}
	for i := range 9 {
		p, cycle, err := q.Pop()
		must(err)
		if i%3 != 0 {
			p.UnschedulablePlugins = spec.NewPluginSet("NodeFit")
		}
		must(q.AddUnschedulableIfNotPresent(p, cycle))
	}
	fc.Step(2 * time.Second)
	q.FlushBackoffQCompleted()
	p, cycle, err := q.Pop()
	must(err)
	p.UnschedulablePlugins = spec.NewPluginSet("NodeFit")
	must(q.AddUnschedulableIfNotPresent(p, cycle))
	q.MoveAllToActiveOrBackoffQueue(nodeAdd, func(p *spec.Pod) bool { return p.Name != "p1" && p.Name != "p2" })
	must(q.Activate([]*spec.Pod{{Namespace: "ns", Name: "p1", UID: "u1"}}))
	_, _, err = q.Pop() // one pod in flight: not pending
	must(err)
	return q
}

// TestCollectorMatchesSnapshot scrapes the collector through a Prometheus
// registry and compares every series with the queue's own metrics snapshot
// (R14): same names, labels and values, nothing more.
func TestCollectorMatchesSnapshot(t *testing.T) {
	q := busyQueue(t)
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(promcollector.New(q))
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	m := q.Metrics()
	pending := map[string]int{}
	incoming := map[impl.IncomingKey]uint64{}
	for _, f := range families {
		for _, s := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range s.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			switch f.GetName() {
			case impl.MetricPendingPods:
				if len(labels) != 1 || s.GetGauge() == nil {
					t.Fatalf("%s: series %v is not a gauge labelled {queue}", f.GetName(), labels)
				}
				pending[labels["queue"]] = int(s.GetGauge().GetValue())
			case impl.MetricQueueIncomingPods:
				if len(labels) != 2 || s.GetCounter() == nil {
					t.Fatalf("%s: series %v is not a counter labelled {queue,event}", f.GetName(), labels)
				}
				incoming[impl.IncomingKey{Queue: labels["queue"], Event: labels["event"]}] = uint64(s.GetCounter().GetValue())
			default:
				t.Fatalf("unexpected metric %s", f.GetName())
			}
		}
	}
	if !maps.Equal(pending, m.PendingPods) {
		t.Errorf("scraped %s = %v, the queue's snapshot has %v", impl.MetricPendingPods, pending, m.PendingPods)
	}
	if !maps.Equal(incoming, m.IncomingPods) {
		t.Errorf("scraped %s = %v, the queue's snapshot has %v", impl.MetricQueueIncomingPods, incoming, m.IncomingPods)
	}
	if len(m.IncomingPods) < 6 || m.PendingPods[impl.QueueActive] == 0 || m.PendingPods[impl.QueueUnschedulable] == 0 {
		t.Fatalf("the scenario does not exercise the metrics: %+v", m)
	}
	if problems, err := testutil.GatherAndLint(reg); err != nil || len(problems) > 0 {
		t.Errorf("lint: %v %v", problems, err)
	}
}

// TestCollectorExposition pins the exposition a scraper sees for a small
// queue: upstream kube-scheduler's names, types and labels.
func TestCollectorExposition(t *testing.T) {
	fc := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	q, err := impl.New(spec.DefaultConfig(nil), impl.WithClock(fc))
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	_ = q.Add(&spec.Pod{Namespace: "ns", Name: "a", UID: "a"})
	_ = q.Add(&spec.Pod{Namespace: "ns", Name: "b", UID: "b"})
	p, cycle, _ := q.Pop()
	_ = q.AddUnschedulableIfNotPresent(p, cycle)
	c := promcollector.New(q, prometheus.Labels{"profile": "default-scheduler"})
	want := `
# HELP scheduler_pending_pods Pods waiting in the scheduling queue, by queue: active (activeQ), backoff (backoffQ), unschedulable (unschedulablePods, gated pods apart), gated (pods a PreEnqueue plugin refuses; always 0 in the classic profile). Pods being scheduled are not counted.
# TYPE scheduler_pending_pods gauge
scheduler_pending_pods{profile="default-scheduler",queue="active"} 1
scheduler_pending_pods{profile="default-scheduler",queue="backoff"} 1
scheduler_pending_pods{profile="default-scheduler",queue="gated"} 0
scheduler_pending_pods{profile="default-scheduler",queue="unschedulable"} 0
# HELP scheduler_queue_incoming_pods_total Pods that entered a queue, by queue and by the event or operation that brought them there.
# TYPE scheduler_queue_incoming_pods_total counter
scheduler_queue_incoming_pods_total{event="ScheduleAttemptFailure",profile="default-scheduler",queue="backoff"} 1
scheduler_queue_incoming_pods_total{event="UnschedulablePodAdd",profile="default-scheduler",queue="active"} 2
`
	if err := testutil.CollectAndCompare(c, strings.NewReader(want)); err != nil {
		t.Fatal(err)
	}
}

// TestCollectorExpositionHints pins the hints profile's series: a gated
// pod counted under queue="gated", not "unschedulable", and
// scheduler_unschedulable_pods by rejecting plugin (R14h).
func TestCollectorExpositionHints(t *testing.T) {
	fc := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	cfg := spec.DefaultHintsConfig(spec.PluginEvents{"Fit": {{Resource: spec.ResourceNode, ActionType: spec.Add}}})
	cfg.PreEnqueuePlugins = spec.PreEnqueuePlugins{"Gate": func(p *spec.Pod) bool { return p.Labels["gated"] != "yes" }}
	q, err := impl.New(cfg, impl.WithClock(fc))
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	_ = q.Add(&spec.Pod{Namespace: "ns", Name: "a", UID: "a", Labels: map[string]string{"gated": "yes"}})
	_ = q.Add(&spec.Pod{Namespace: "ns", Name: "b", UID: "b"})
	p, cycle, _ := q.Pop()
	p.UnschedulablePlugins = spec.NewPluginSet("Fit")
	_ = q.AddUnschedulableIfNotPresent(p, cycle)
	c := promcollector.New(q)
	want := `
# HELP scheduler_pending_pods Pods waiting in the scheduling queue, by queue: active (activeQ), backoff (backoffQ), unschedulable (unschedulablePods, gated pods apart), gated (pods a PreEnqueue plugin refuses; always 0 in the classic profile). Pods being scheduled are not counted.
# TYPE scheduler_pending_pods gauge
scheduler_pending_pods{queue="active"} 0
scheduler_pending_pods{queue="backoff"} 0
scheduler_pending_pods{queue="gated"} 1
scheduler_pending_pods{queue="unschedulable"} 1
# HELP scheduler_queue_incoming_pods_total Pods that entered a queue, by queue and by the event or operation that brought them there.
# TYPE scheduler_queue_incoming_pods_total counter
scheduler_queue_incoming_pods_total{event="ScheduleAttemptFailure",queue="unschedulable"} 1
scheduler_queue_incoming_pods_total{event="UnscheduledPodAdd",queue="active"} 1
scheduler_queue_incoming_pods_total{event="UnscheduledPodAdd",queue="unschedulable"} 1
# HELP scheduler_unschedulable_pods Queued pods (not being scheduled) that each plugin rejected, in the queueing-hints profile; absent in the classic profile.
# TYPE scheduler_unschedulable_pods gauge
scheduler_unschedulable_pods{plugin="Fit"} 1
scheduler_unschedulable_pods{plugin="Gate"} 1
`
	if err := testutil.CollectAndCompare(c, strings.NewReader(want)); err != nil {
		t.Fatal(err)
	}
}
