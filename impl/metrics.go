package impl

import "github.com/schedq/schedq/spec"

// Metric names, as upstream kube-scheduler exports them (R14 of
// spec.Queue).
const (
	// MetricPendingPods is the gauge of pods waiting in each queue, by
	// label "queue" (QueueActive, QueueBackoff, QueueUnschedulable,
	// QueueGated). Pods in flight are not pending.
	MetricPendingPods = "scheduler_pending_pods"
	// MetricQueueIncomingPods is the counter of pods entering a queue, by
	// labels "queue" and "event".
	MetricQueueIncomingPods = "scheduler_queue_incoming_pods_total"
)

// Values of the "queue" label (R14 of spec.Queue).
const (
	QueueActive        = "active"
	QueueBackoff       = "backoff"
	QueueUnschedulable = "unschedulable"
	// QueueGated is always 0: this profile has no scheduling gates.
	QueueGated = "gated"
)

// IncomingKey is one series of MetricQueueIncomingPods.
type IncomingKey struct {
	Queue string // QueueActive, QueueBackoff or QueueUnschedulable
	Event string // what brought the pods there, e.g. "NodeAdd", "BackoffComplete"
}

// MetricsSnapshot is a copy of the queue's metrics at one instant (R14).
type MetricsSnapshot struct {
	// PendingPods is MetricPendingPods: queue label -> pods. All four
	// labels are always present.
	PendingPods map[string]int
	// IncomingPods is MetricQueueIncomingPods: series -> pods counted so
	// far. Only series that counted at least one pod are present.
	IncomingPods map[IncomingKey]uint64
}

// hotCounter names the incoming series whose labels are known in advance.
// They are plain array slots so that counting on the Add/Pop/flush paths is
// one increment, without hashing a pair of strings.
type hotCounter int

const (
	activeUnschedulablePodAdd hotCounter = iota
	activeUnschedulablePodUpdate
	backoffUnschedulablePodUpdate
	backoffScheduleAttemptFailure
	unschedulableScheduleAttemptFailure
	activeBackoffComplete
	activeForceActivate
	numHotCounters
)

var hotKeys = [numHotCounters]IncomingKey{
	activeUnschedulablePodAdd:           {QueueActive, spec.EventUnscheduledPodAdd.EventLabel()},
	activeUnschedulablePodUpdate:        {QueueActive, spec.EventUnscheduledPodUpdate.EventLabel()},
	backoffUnschedulablePodUpdate:       {QueueBackoff, spec.EventUnscheduledPodUpdate.EventLabel()},
	backoffScheduleAttemptFailure:       {QueueBackoff, spec.ScheduleAttemptFailure},
	unschedulableScheduleAttemptFailure: {QueueUnschedulable, spec.ScheduleAttemptFailure},
	activeBackoffComplete:               {QueueActive, spec.BackoffComplete},
	activeForceActivate:                 {QueueActive, spec.ForceActivate},
}

// counters holds MetricQueueIncomingPods. It is guarded by the queue's
// mutex; the pending gauge needs no state, it is read off the queues.
type counters struct {
	hot [numHotCounters]uint64
	// byEvent counts moves raised by cluster events (R4, R6, R11), whose
	// labels are open-ended. It is touched once per move request, not per
	// pod.
	byEvent map[IncomingKey]uint64
}

func (c *counters) addEvent(queue, event string, n int) {
	if n == 0 {
		return
	}
	if c.byEvent == nil {
		c.byEvent = make(map[IncomingKey]uint64)
	}
	c.byEvent[IncomingKey{queue, event}] += uint64(n)
}

// Metrics returns the queue's metrics, R14 of spec.Queue, which says what
// each operation counts: the pending pods of each queue now, and the
// incoming pods counted per (queue, event) since New.
func (q *PriorityQueue) Metrics() MetricsSnapshot {
	q.mu.Lock()
	defer q.mu.Unlock()
	m := MetricsSnapshot{
		PendingPods: map[string]int{
			QueueActive:        q.activeQ.len(),
			QueueBackoff:       q.backoffQ.len(),
			QueueUnschedulable: q.unschedulablePods.len(),
			QueueGated:         0,
		},
		IncomingPods: make(map[IncomingKey]uint64, len(q.metrics.byEvent)+int(numHotCounters)),
	}
	for k, v := range q.metrics.byEvent {
		m.IncomingPods[k] += v
	}
	for i, v := range q.metrics.hot {
		if v > 0 {
			m.IncomingPods[hotKeys[i]] += v
		}
	}
	return m
}
