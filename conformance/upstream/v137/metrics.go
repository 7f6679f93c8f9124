package v137

import (
	"fmt"

	"k8s.io/kubernetes/pkg/scheduler/metrics"

	"github.com/schedq/schedq/conformance"
)

// Metrics (R14h) are read from the process's registry, which every queue
// of the process shares, as what changed since the target was made (the
// suite makes one queue at a time): scheduler_pending_pods and
// scheduler_unschedulable_pods are gauges that earlier queues may have
// left non-zero, scheduler_queue_incoming_pods_total a counter. Only the
// hints profile reports them (HintsProfile): built with a classic config,
// v1.37.2 still counts by its own rules and labels (UnscheduledPodAdd, not
// the classic UnschedulablePodAdd), which R14 does not state.

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
		if d := v - t.base.IncomingPods[s]; d != 0 {
			out.IncomingPods[s] = d
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
