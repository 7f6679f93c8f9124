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
	// MetricUnschedulablePods is the gauge of queued pods each plugin
	// rejects, by label "plugin" (hints profile, R14h).
	MetricUnschedulablePods = "scheduler_unschedulable_pods"
)

// Values of the "queue" label (R14 of spec.Queue).
const (
	QueueActive        = "active"
	QueueBackoff       = "backoff"
	QueueUnschedulable = "unschedulable"
	// QueueGated counts the gated pods of unschedulablePods (R17, both
	// profiles); they are not in QueueUnschedulable.
	QueueGated = "gated"
)

// Label cardinality. The "event" label of MetricQueueIncomingPods comes
// from the caller (spec.ClusterEvent.Label, or its resource and action),
// and a metric series is never freed: without a bound, a caller minting a
// label per event would grow the queue's memory and every scrape without
// limit. So the queue counts at most MaxEventLabels distinct event labels
// raised by cluster events (R4, R6, R11); pods moved by an event whose
// label is not among them, once that many have been seen, are counted
// under OverflowEventLabel. The labels the queue itself uses (Add, Update,
// failures, the backoffQ flush, Activate) are not part of the bound and
// are always their own. Upstream kube-scheduler v1.33 names about forty
// events, well within the bound; seeing "other" means a caller mints
// labels.
const (
	// MaxEventLabels is the most distinct cluster-event labels the queue
	// counts separately (over all queue labels together).
	MaxEventLabels = 256
	// OverflowEventLabel is the event label of moves by any further event.
	OverflowEventLabel = "other"
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
	// UnschedulablePods is MetricUnschedulablePods (hints profile, R14h):
	// plugin -> queued pods (not in flight) that have it as a rejector.
	// Only plugins with at least one pod are present; nil in the classic
	// profile.
	UnschedulablePods map[string]int
}

// reason is what brought a pod to a place: with the place, a series of
// MetricQueueIncomingPods. Each reason but clusterEvent has a label known
// in advance, counted in a plain array slot, so that counting on the
// Add/Pop/flush paths is one increment, without hashing a pair of strings;
// clusterEvent counts under the label of the operation's cluster event.
type reason uint8

const (
	noCount                reason = iota // not counted
	unschedulablePodAdd                  // Add (classic)
	unschedulablePodUpdate               // Update of an unknown pod, or of an unschedulable one (classic)
	scheduleAttemptFailure               // AddUnschedulableIfNotPresent
	backoffComplete                      // the backoffQ flush
	forceActivate                        // Activate
	unscheduledPodAdd                    // Add (hints)
	popFromBackoffQ                      // Pop from backoffQ (hints), counted as entering activeQ
	clusterEvent                         // a move request, or an Update's event (hints)
	numReasons
)

var reasonLabels = [numReasons]string{
	unschedulablePodAdd:    spec.EventUnscheduledPodAdd.EventLabel(),
	unschedulablePodUpdate: spec.EventUnscheduledPodUpdate.EventLabel(),
	scheduleAttemptFailure: spec.ScheduleAttemptFailure,
	backoffComplete:        spec.BackoffComplete,
	forceActivate:          spec.ForceActivate,
	unscheduledPodAdd:      UnscheduledPodAdd,
	popFromBackoffQ:        PopFromBackoffQ,
}

// Event labels of the hints profile (R14h) that the classic one has not.
const (
	// UnscheduledPodAdd is v1.37.2's label for Add (classic:
	// "UnschedulablePodAdd").
	UnscheduledPodAdd = "UnscheduledPodAdd"
	// PopFromBackoffQ counts pods Pop took from backoffQ (R2h).
	PopFromBackoffQ = "PopFromBackoffQ"
)

// queueLabel is the "queue" label of a place a pod is counted entering. A
// pod Pop takes from backoffQ goes in flight through activeQ, as upstream
// counts it.
func queueLabel(p place) string {
	switch p {
	case inActiveQ, inFlight:
		return QueueActive
	case inBackoffQ:
		return QueueBackoff
	}
	return QueueUnschedulable
}

// counters holds MetricQueueIncomingPods. It is guarded by the queue's
// mutex; the pending gauge needs no state, it is read off the queues.
type counters struct {
	hot [numReasons][inFlight + 1]uint64
	// byEvent counts moves raised by cluster events (R4, R6, R11), whose
	// labels are open-ended. It is touched once per operation, not per pod:
	// the operation's moves are counted in batch, under event, and added
	// when it ends (PriorityQueue.unlock).
	byEvent map[IncomingKey]uint64
	batch   [inFlight + 1]uint64
	batched bool
	event   spec.ClusterEvent
	// labels is the set of event labels counted separately, at most
	// MaxEventLabels.
	labels map[string]struct{}
}

// label returns the label to count event's moves under: event itself if it
// is counted separately or there is room for it, else OverflowEventLabel.
func (c *counters) label(event string) string {
	if _, ok := c.labels[event]; ok {
		return event
	}
	if len(c.labels) >= MaxEventLabels {
		return OverflowEventLabel
	}
	if c.labels == nil {
		c.labels = make(map[string]struct{})
	}
	c.labels[event] = struct{}{}
	return event
}

// count counts a pod entering place to for why.
func (c *counters) count(why reason, to place) {
	switch why {
	case noCount:
	case clusterEvent:
		c.batch[to]++
		c.batched = true
	default:
		c.hot[why][to]++
	}
}

// commit adds the batch of the operation's cluster-event moves under the
// event's label, if it moved any.
func (c *counters) commit(label string) {
	if c.byEvent == nil {
		c.byEvent = make(map[IncomingKey]uint64)
	}
	label = c.label(label)
	for to, n := range c.batch {
		if n > 0 {
			c.byEvent[IncomingKey{queueLabel(place(to)), label}] += n
		}
	}
	c.batch, c.batched = [inFlight + 1]uint64{}, false
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
		IncomingPods: make(map[IncomingKey]uint64, len(q.metrics.byEvent)+int(numReasons)),
	}
	for k, v := range q.metrics.byEvent {
		m.IncomingPods[k] += v
	}
	for why, byPlace := range q.metrics.hot {
		for to, v := range byPlace {
			if v > 0 && reason(why) != noCount {
				m.IncomingPods[IncomingKey{queueLabel(place(to)), reasonLabels[why]}] += v
			}
		}
	}
	q.p.metrics(view{q: q}, &m)
	return m
}
