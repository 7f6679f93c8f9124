package upstream

import (
	"fmt"

	"k8s.io/kubernetes/pkg/scheduler/metrics"

	"github.com/schedq/schedq/conformance"
	"github.com/schedq/schedq/spec"
)

// Metrics (R14, and R14h in the hints profile) are read from the process's
// registry, which every queue of the process shares, as what changed since
// the target was made (the suite makes one queue at a time):
// scheduler_pending_pods and scheduler_unschedulable_pods are gauges that
// earlier queues may have left non-zero, scheduler_queue_incoming_pods_total
// a counter. v1.33 raises a move by a wildcard event other than its own two
// under its ForceActivate event (its other wildcard labels are
// unexported, release_v133.go), so the adapter counts those moves under
// their own label again (countedMove); later releases carry the label.

// countedMove runs move, a move by e, correcting the incoming series when
// the release labels e differently from the suite.
func (t *Target) countedMove(e spec.ClusterEvent, move func()) {
	label := toEvent(e).Label()
	if label == e.EventLabel() {
		move()
		return
	}
	before := gatherMetrics()
	move()
	after := gatherMetrics()
	for _, q := range []string{conformance.MetricQueueActive, conformance.MetricQueueBackoff} {
		up, own := conformance.IncomingSeries{Queue: q, Event: label}, conformance.IncomingSeries{Queue: q, Event: e.EventLabel()}
		d := int64(after.IncomingPods[up] - before.IncomingPods[up])
		t.relabel[up] -= d
		t.relabel[own] += d
	}
}

// Metrics implements conformance.MetricsReporter: what the registry's
// queue metrics gained since the target was made.
func (t *Target) Metrics() conformance.Metrics {
	now := gatherMetrics()
	out := conformance.Metrics{PendingPods: map[string]int{}, IncomingPods: map[conformance.IncomingSeries]uint64{},
		UnschedulablePods: map[string]int{}}
	for l, v := range now.PendingPods {
		out.PendingPods[l] = v - t.base.PendingPods[l]
	}
	for s, v := range now.IncomingPods {
		out.IncomingPods[s] = v - t.base.IncomingPods[s]
	}
	for s, d := range t.relabel {
		out.IncomingPods[s] = uint64(int64(out.IncomingPods[s]) + d)
	}
	for s, v := range out.IncomingPods {
		if v == 0 {
			delete(out.IncomingPods, s)
		}
	}
	for p, v := range now.UnschedulablePods {
		if d := v - t.base.UnschedulablePods[p]; d != 0 {
			out.UnschedulablePods[p] = d
		}
	}
	return out
}

// gatherMetrics reads the queue metrics of the process's registry:
// scheduler_unschedulable_pods of the adapter's one profile, SchedulerName.
func gatherMetrics() conformance.Metrics {
	out := conformance.Metrics{PendingPods: map[string]int{}, IncomingPods: map[conformance.IncomingSeries]uint64{},
		UnschedulablePods: map[string]int{}}
	mfs, err := metrics.GetGather().Gather()
	if err != nil {
		panic(fmt.Sprintf("reading the metrics registry: %v", err))
	}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			switch mf.GetName() {
			case "scheduler_pending_pods":
				out.PendingPods[labels["queue"]] = int(m.GetGauge().GetValue())
			case "scheduler_queue_incoming_pods_total":
				out.IncomingPods[conformance.IncomingSeries{Queue: labels["queue"], Event: labels["event"]}] = uint64(m.GetCounter().GetValue())
			case "scheduler_unschedulable_pods":
				if labels["profile"] == SchedulerName {
					out.UnschedulablePods[labels["plugin"]] = int(m.GetGauge().GetValue())
				}
			}
		}
	}
	return out
}
