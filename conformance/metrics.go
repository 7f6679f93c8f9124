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
// metrics of R14, or of R14h in the hints profile (see "Metrics" in the
// doc of spec.Queue, and R14h in spec/hints.go). A target that implements
// it sets TargetInfo.Observes.Metrics, and the suite then compares its
// metrics with the model's after every step, in either profile.
type MetricsReporter interface {
	// Metrics returns the queue's metrics now. The counters count from
	// the target's creation: a target whose metrics live in a registry
	// shared with other queues reports what its own queue added.
	Metrics() Metrics
}

// Metrics is what a queue exports under upstream's names (R14, R14h).
type Metrics struct {
	// PendingPods is scheduler_pending_pods: value of the label "queue"
	// ("active", "backoff", "unschedulable", "gated") -> pods. A missing
	// label reads 0. In the hints profile "unschedulable" leaves out the
	// gated pods of unschedulablePods, which "gated" counts (R14h).
	PendingPods map[string]int
	// IncomingPods is scheduler_queue_incoming_pods_total: series -> pods
	// counted so far. A missing series reads 0.
	IncomingPods map[IncomingSeries]uint64
	// UnschedulablePods is scheduler_unschedulable_pods of the hints
	// profile (R14h): value of the label "plugin" -> the queued pods (in
	// activeQ, backoffQ or unschedulablePods; not in flight) that have the
	// plugin as a rejector (UnschedulablePlugins or PendingPlugins, which
	// include a gating PreEnqueue plugin). A missing plugin reads 0. The
	// series' other label, "profile", is the queue's scheduler name: a
	// target is one queue of one profile, so the suite compares by plugin.
	// It is compared only in the hints profile: the classic profile's
	// contract (R14) does not name it, and a target may leave it nil there.
	UnschedulablePods map[string]int
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

// Event labels of the hints profile (R14h) that the classic one has not.
const (
	// eventUnscheduledPodAdd is v1.37.2's label for Add (classic:
	// "UnschedulablePodAdd").
	eventUnscheduledPodAdd = "UnscheduledPodAdd"
	// eventPopFromBackoffQ counts, under queue "active", the pods Pop took
	// from backoffQ (R2h).
	eventPopFromBackoffQ = "PopFromBackoffQ"
)

// metricLabels maps a place to its "queue" label.
var metricLabels = map[spec.Location]string{
	spec.InActiveQ:           MetricQueueActive,
	spec.InBackoffQ:          MetricQueueBackoff,
	spec.InUnschedulablePods: MetricQueueUnschedulable,
}

// metricsModel counts what R14 (R14h in the hints profile) says the
// model's steps count. The model itself keeps no metrics: the counts are a
// function of each step (which pods entered which place, and the operation
// that moved them), so they are derived from the shadow model's snapshots
// around each operation; the gauges are functions of the state.
type metricsModel struct {
	// cfg is the scenario's: its Profile says which rule counts, and in
	// the hints profile its hints say which event of an update moved a pod.
	cfg      spec.Config
	incoming map[IncomingSeries]uint64
}

func (mm *metricsModel) hints() bool { return mm.cfg.Profile.HasHints() }

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

// hintsEventLabel is the "event" label R14h gives pod k, which op moved
// into a place: as R14 except that Add, and an Update that adds a pod
// (unknown, or in flight under another UID), say "UnscheduledPodAdd", and
// an Update that moves a pod out of unschedulablePods says the label of
// the update's event that moved it: the first of spec.PodUpdateEvents
// (of the caller's events, op.Change, if it gave them) whose strategy is
// not Skip (R9h tries them in turn; PreEnqueue, a function of the pod,
// refuses a later one if it refused an earlier one). The events are those
// between the old and the new object the caller passed (upd), as R9h
// evaluates them, not between the objects the queue held before and
// after: a parked pod's object is the one its failure handed back, while
// the caller's old one may be a later version, updated in flight.
func (mm *metricsModel) hintsEventLabel(op schedqtest.Op, upd update, k spec.PodKey, before *spec.Snapshot) string {
	switch op.Kind {
	case schedqtest.KindAdd:
		return eventUnscheduledPodAdd
	case schedqtest.KindUpdate:
		loc, was := before.Find(k)
		if loc != spec.InUnschedulablePods {
			return eventUnscheduledPodAdd
		}
		info := was
		info.Pod = upd.newPod
		evs := spec.PodUpdateEvents(upd.oldPod, upd.newPod)
		if op.Change != nil {
			evs = op.Change.Events // the caller's verdict (R9h, R19)
		}
		for _, ev := range evs {
			if mm.cfg.PodStrategy(&info, spec.Occurrence{Event: ev, Old: upd.oldPod, New: upd.newPod}) != spec.StrategySkip {
				return ev.EventLabel()
			}
		}
		return "(no event of the update moves " + string(k) + ")"
	}
	return eventLabel(op)
}

// update is the old and new object an "update" operation passes to the
// queue (schedqtest.Executor.UpdatePods, read before the operation runs);
// zero for any other operation.
type update struct{ oldPod, newPod *spec.Pod }

// updateOf is op's update as run's executor will pass it; call it before
// the run applies op (the executor then records the new version).
func updateOf(run *schedqtest.ModelRun, op schedqtest.Op) update {
	if op.Kind != schedqtest.KindUpdate {
		return update{}
	}
	o, n := run.Exec.UpdatePods(op)
	return update{o, n}
}

// step counts the pods that op moved into activeQ, backoffQ or
// unschedulablePods: those whose place after the operation is one of them
// and differs from their place before it. In the hints profile a pod Pop
// took from backoffQ counts too (popsFromBackoffQ). upd is op's update.
func (mm *metricsModel) step(op schedqtest.Op, upd update, before, after *spec.Snapshot) {
	was := before.Locations()
	for k, loc := range after.Locations() {
		q, ok := metricLabels[loc]
		if !ok || was[k] == loc {
			continue
		}
		ev := eventLabel(op)
		if mm.hints() {
			ev = mm.hintsEventLabel(op, upd, k, before)
		}
		if ev == "" {
			ev = "(" + string(op.Kind) + " moves no pod)"
		}
		mm.count(IncomingSeries{q, ev}, 1)
	}
	mm.popsFromBackoffQ(before, after)
}

// popsFromBackoffQ counts ("active", "PopFromBackoffQ") for every pod that
// was in backoffQ before and is in flight after (R2h, R14h): only a Pop
// does that. The driver also calls it around the Pops an operation woke.
// The classic profile's Pop never takes from backoffQ.
func (mm *metricsModel) popsFromBackoffQ(before, after *spec.Snapshot) {
	if !mm.hints() {
		return
	}
	was := before.Locations()
	for k, loc := range after.Locations() {
		if loc == spec.InFlight && was[k] == spec.InBackoffQ {
			mm.count(IncomingSeries{MetricQueueActive, eventPopFromBackoffQ}, 1)
		}
	}
}

func (mm *metricsModel) count(s IncomingSeries, n uint64) {
	if mm.incoming == nil {
		mm.incoming = make(map[IncomingSeries]uint64)
	}
	mm.incoming[s] += n
}

// expected returns the metrics the model reports in state s.
func (mm *metricsModel) expected(s *spec.Snapshot) Metrics {
	m := Metrics{
		PendingPods: map[string]int{
			MetricQueueActive:        len(s.ActiveQ),
			MetricQueueBackoff:       len(s.BackoffQ),
			MetricQueueUnschedulable: len(s.UnschedulablePods),
			MetricQueueGated:         0,
		},
		IncomingPods: maps.Clone(mm.incoming),
	}
	// Gated pods (R17, both profiles) count as "gated", not "unschedulable".
	for i := range s.UnschedulablePods {
		if s.UnschedulablePods[i].Gated() {
			m.PendingPods[MetricQueueGated]++
			m.PendingPods[MetricQueueUnschedulable]--
		}
	}
	if !mm.hints() {
		return m
	}
	m.UnschedulablePods = map[string]int{}
	for _, pods := range [][]spec.QueuedPodInfo{s.ActiveQ, s.BackoffQ, s.UnschedulablePods} {
		for i := range pods {
			for _, p := range pods[i].Rejectors() {
				m.UnschedulablePods[p]++
			}
		}
	}
	return m
}

// diffMetrics describes how the target's metrics differ from the model's,
// one "model: X / target: Y" line per series, or "" if they agree.
// scheduler_unschedulable_pods is compared where the model reports it
// (UnschedulablePods not nil: the hints profile).
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
	if model.UnschedulablePods != nil {
		plugins := slices.Collect(maps.Keys(model.UnschedulablePods))
		for p := range target.UnschedulablePods {
			if _, ok := model.UnschedulablePods[p]; !ok {
				plugins = append(plugins, p)
			}
		}
		slices.Sort(plugins)
		for _, p := range plugins {
			if m, t := model.UnschedulablePods[p], target.UnschedulablePods[p]; m != t {
				fmt.Fprintf(&b, "  scheduler_unschedulable_pods{plugin=%q}: model: %d / target: %d\n", p, m, t)
			}
		}
	}
	return b.String()
}
