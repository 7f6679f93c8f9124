package conformance

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// MetricsReporter is implemented by a target that reports the queue
// metrics of R14 (see "Metrics" in the doc of spec.Queue). A target that
// implements it sets Profile.Observes.Metrics, and the suite then compares
// its metrics with the model's after every step.
type MetricsReporter interface {
	// Metrics returns the queue's metrics now. The counters count from
	// the target's creation: a target whose metrics live in a registry
	// shared with other queues reports what its own queue added.
	Metrics() Metrics
}

// Metrics is what a queue exports under upstream's names (R14).
type Metrics struct {
	// PendingPods is scheduler_pending_pods: value of the label "queue"
	// ("active", "backoff", "unschedulable", "gated") -> pods. A missing
	// label reads 0.
	PendingPods map[string]int
	// IncomingPods is scheduler_queue_incoming_pods_total: series -> pods
	// counted so far. A missing series reads 0.
	IncomingPods map[IncomingSeries]uint64
}

// IncomingSeries is one series of scheduler_queue_incoming_pods_total.
type IncomingSeries struct {
	Queue string // "active", "backoff" or "unschedulable"
	Event string // e.g. "UnschedulablePodAdd", "NodeAdd", "BackoffComplete"
}

// Values of the "queue" label (R14).
const (
	MetricQueueActive        = "active"
	MetricQueueBackoff       = "backoff"
	MetricQueueUnschedulable = "unschedulable"
	MetricQueueGated         = "gated"
)

// metricLabels maps a place to its "queue" label.
var metricLabels = map[spec.Location]string{
	spec.InActiveQ:           MetricQueueActive,
	spec.InBackoffQ:          MetricQueueBackoff,
	spec.InUnschedulablePods: MetricQueueUnschedulable,
}

// metricsModel counts what R14 says the model's steps count. The model
// itself keeps no metrics: R14 is a function of each step (which pods
// entered which place, and the operation that moved them), so the counts
// are derived from the shadow model's snapshots around each operation.
type metricsModel struct {
	incoming map[IncomingSeries]uint64
}

// eventLabel is the "event" label R14 gives the pods an operation moves
// into a place; "" for operations that move no pod into one.
func eventLabel(op schedqtest.Op) string {
	switch op.Kind {
	case schedqtest.KindAdd:
		return spec.EventUnscheduledPodAdd.EventLabel()
	case schedqtest.KindFail:
		return spec.ScheduleAttemptFailure
	case schedqtest.KindFlushBackoff:
		return spec.BackoffComplete
	case schedqtest.KindMove, schedqtest.KindAssignedUpdate:
		return op.Event.EventLabel()
	case schedqtest.KindFlushLeftover:
		return spec.EventUnschedulableTimeout.EventLabel()
	case schedqtest.KindActivate:
		return spec.ForceActivate
	case schedqtest.KindUpdate:
		return spec.EventUnscheduledPodUpdate.EventLabel()
	case schedqtest.KindAssignedAdd:
		return spec.EventAssignedPodAdd.EventLabel()
	}
	return ""
}

// step counts the pods that op moved into activeQ, backoffQ or
// unschedulablePods: those whose place after the operation is one of them
// and differs from their place before it.
func (mm *metricsModel) step(op schedqtest.Op, before, after *spec.Snapshot) {
	was := before.Locations()
	for k, loc := range after.Locations() {
		q, ok := metricLabels[loc]
		if !ok || was[k] == loc {
			continue
		}
		if mm.incoming == nil {
			mm.incoming = make(map[IncomingSeries]uint64)
		}
		ev := eventLabel(op)
		if ev == "" {
			ev = "(" + string(op.Kind) + " moves no pod)"
		}
		mm.incoming[IncomingSeries{q, ev}]++
	}
}

// expected returns the metrics the model reports in state s.
func (mm *metricsModel) expected(s *spec.Snapshot) Metrics {
	return Metrics{
		PendingPods: map[string]int{
			MetricQueueActive:        len(s.ActiveQ),
			MetricQueueBackoff:       len(s.BackoffQ),
			MetricQueueUnschedulable: len(s.UnschedulablePods),
			MetricQueueGated:         0,
		},
		IncomingPods: maps.Clone(mm.incoming),
	}
}

// diffMetrics describes how the target's metrics differ from the model's,
// one "model: X / target: Y" line per series, or "" if they agree.
func diffMetrics(model, target Metrics) string {
	var b strings.Builder
	labels := slices.Sorted(maps.Keys(model.PendingPods))
	for l := range target.PendingPods {
		if !slices.Contains(labels, l) {
			labels = append(labels, l)
		}
	}
	for _, l := range labels {
		if m, t := model.PendingPods[l], target.PendingPods[l]; m != t {
			fmt.Fprintf(&b, "  scheduler_pending_pods{queue=%q}: model: %d / target: %d\n", l, m, t)
		}
	}
	series := slices.Collect(maps.Keys(model.IncomingPods))
	for s := range target.IncomingPods {
		if _, ok := model.IncomingPods[s]; !ok {
			series = append(series, s)
		}
	}
	slices.SortFunc(series, func(a, b IncomingSeries) int {
		return cmp.Or(cmp.Compare(a.Queue, b.Queue), cmp.Compare(a.Event, b.Event))
	})
	for _, s := range series {
		if m, t := model.IncomingPods[s], target.IncomingPods[s]; m != t {
			fmt.Fprintf(&b, "  scheduler_queue_incoming_pods_total{queue=%q,event=%q}: model: %d / target: %d\n", s.Queue, s.Event, m, t)
		}
	}
	return b.String()
}
