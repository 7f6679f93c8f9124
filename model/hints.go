package model

import (
	"slices"
	"time"

	"github.com/schedq/schedq/spec"
)

// hints answers the decisions of spec.ProfileHints: kube-scheduler v1.37.2
// with its default feature gates (rules R1h-R14h and R15-R19 on spec.Queue). Its state
// is the in-flight list (R15). moveRequestCycle does not exist in this
// profile; the shared Model keeps it at -1.
type hints struct {
	inFlight []spec.InFlightEntry
}

// admit (D6) is R17: the pod must pass the PreEnqueue plugins. A refused pod
// is gated: its gating plugin joins its rejectors and it waits in
// unschedulablePods with its Timestamp unchanged. An admitted pod is no
// longer gated and goes where it was sent.
func (h *hints) admit(m *Model, info spec.QueuedPodInfo, to spec.Location) {
	if g := m.cfg.RunPreEnqueue(info.Pod, info.GatingPlugin); g != "" {
		info.GatingPlugin = g
		info.UnschedulablePlugins = spec.NewPluginSet(append(slices.Clone(info.UnschedulablePlugins), g)...)
		m.pods[info.Key()] = record{info: info, loc: spec.InUnschedulablePods}
		return
	}
	info.GatingPlugin = ""
	if to == spec.InBackoffQ {
		m.pods[info.Key()] = record{info: info, loc: spec.InBackoffQ}
		return
	}
	m.moveToActiveQ(info)
}

// place sends a pod where its strategy says (R3h, R4h): nowhere new for
// StrategySkip (it is parked in unschedulablePods), backoffQ for
// StrategyAfterBackoff while it backs off, activeQ otherwise; admission
// (R17) first, except for the park.
func (h *hints) place(m *Model, info spec.QueuedPodInfo, s spec.Strategy) {
	switch {
	case s == spec.StrategySkip:
		m.pods[info.Key()] = record{info: info, loc: spec.InUnschedulablePods}
	case s == spec.StrategyAfterBackoff && m.cfg.IsBackingOff(&info, m.now):
		h.admit(m, info, spec.InBackoffQ)
	default:
		h.admit(m, info, spec.InActiveQ)
	}
}

// fromBackoffQ (D6) is R5h and R8h for a pod in backoffQ: it passed
// PreEnqueue on entering backoffQ and enters activeQ unexamined.
func (h *hints) fromBackoffQ(m *Model, info spec.QueuedPodInfo) { m.moveToActiveQ(info) }

// popCandidates (D4) is R2h: the maximal pods of activeQ; activeQ being
// empty, the first pods of backoffQ in ordering-window order.
func (h *hints) popCandidates(m *Model) []spec.PodKey {
	s := m.Snapshot()
	if len(s.ActiveQ) > 0 {
		c := spec.MaximalPods(s.ActiveQ)
		slices.Sort(c)
		return c
	}
	return m.cfg.BackoffPopCandidates(s.BackoffQ)
}

// popped (D4, D5): Pop clears nothing; the pod's marker is appended to the
// in-flight list (R15).
func (h *hints) popped(_ *Model, info *spec.QueuedPodInfo) {
	h.inFlight = append(h.inFlight, spec.InFlightEntry{UID: info.Pod.UID, Key: info.Key()})
}

// failed (D1) is R3h: count, then requeue.
func (h *hints) failed(m *Model, info spec.QueuedPodInfo, _ int64) {
	h.requeue(m, counted(info))
}

// counted is info with its failure counted (R3h, G4): the one count of
// both hints profiles, which the podgroups profile takes before it asks
// whether the pod is a member, as upstream does.
func counted(info spec.QueuedPodInfo) spec.QueuedPodInfo {
	info.PendingPlugins = spec.NewPluginSet(info.PendingPlugins...)
	countFailure(&info.HintFields, len(info.Rejectors()) > 0)
	return info
}

// countFailure is the one count of a failed attempt, R3h for a pod and G4
// and G5 for a member and a group alike: with a rejector (rejected),
// UnschedulableCount grows and ConsecutiveErrorsCount starts over;
// without, ConsecutiveErrorsCount grows. FlushTimestamp is cleared: the
// leftover clock starts again from the failure.
func countFailure(h *spec.HintFields, rejected bool) {
	if rejected {
		h.UnschedulableCount++
		h.ConsecutiveErrorsCount = 0
	} else {
		h.ConsecutiveErrorsCount++
	}
	h.FlushTimestamp = time.Time{}
}

// requeue is R3h after the count: replay the events recorded since the
// pod's Pop through its rejectors' hints and place it accordingly. A pod
// with no marker (never popped) has nothing to replay and is retried after
// backoff, as upstream.
func (h *hints) requeue(m *Model, info spec.QueuedPodInfo) {
	s := spec.StrategyAfterBackoff
	if h.hasMarker(info.Pod.UID) {
		s = m.cfg.ReplayStrategy(&info, spec.EventsAfter(h.inFlight, info.Pod.UID))
	}
	h.place(m, info, s)
}

func (h *hints) hasMarker(uid spec.UID) bool {
	return slices.ContainsFunc(h.inFlight, func(e spec.InFlightEntry) bool { return e.IsMarker() && e.UID == uid })
}

// move (D2, D8) is R4h: an event of no interest changes nothing and is not
// recorded; otherwise each listed pod the pre-queueing hints let through
// (R21; all of them without PreQueueing) is evaluated alone — a gated pod
// only if the event may concern its gating plugin — and placed by its
// strategy, asking only the rejectors the narrowing allows (R22); then the
// event is recorded if any pod is in flight, narrowed or not. Pods are
// evaluated in key order; moves commute (hints and PreEnqueue are pure), so
// the order does not matter.
func (h *hints) move(m *Model, keys []spec.PodKey, occ spec.Occurrence) {
	if !m.cfg.IsEventOfInterestHints(occ.Event) {
		return
	}
	n := m.cfg.PreQueueingNarrowing(occ)
	slices.Sort(keys)
	for _, k := range keys {
		r := m.pods[k]
		if !n.Evaluates(k) {
			continue
		}
		if r.info.Gated() && !m.cfg.GatingEventMatches(r.info.GatingPlugin, occ.Event) {
			continue
		}
		if s := m.cfg.MoveStrategy(&r.info, occ, n); s != spec.StrategySkip {
			h.place(m, r.info, s)
		}
	}
	h.record(occ)
}

// record appends an event to the in-flight list if some pod is in flight
// (R15); with nothing in flight no pod could replay it.
func (h *hints) record(occ spec.Occurrence) {
	if len(h.inFlight) > 0 {
		h.inFlight = append(h.inFlight, spec.InFlightEntry{Event: occ})
	}
}

// assignedPodAdded (D2) is R11h: a move request over every unschedulable
// pod with the assigned pod as the event's object; the hints decide.
func (h *hints) assignedPodAdded(m *Model, pod *spec.Pod) {
	h.move(m, m.unschedulable(func(record) bool { return true }), spec.Occurrence{Event: spec.EventAssignedPodAdd, New: pod})
}

// assignedPodUpdated (D2) is R11h for an update.
func (h *hints) assignedPodUpdated(m *Model, oldPod, newPod *spec.Pod, event spec.ClusterEvent) {
	h.move(m, m.unschedulable(func(record) bool { return true }), spec.Occurrence{Event: event, Old: oldPod, New: newPod})
}

// leftover (D7) is R6h's choice: pods, gated ones included, whose later of
// Timestamp and FlushTimestamp lies strictly more than
// PodMaxInUnschedulablePodsDuration in the past; each taken pod's
// FlushTimestamp becomes now.
func (h *hints) leftover(m *Model) []spec.PodKey {
	keys := m.unschedulable(func(r record) bool {
		last := r.info.Timestamp
		if r.info.FlushTimestamp.After(last) {
			last = r.info.FlushTimestamp
		}
		return m.now.Sub(last) > m.cfg.PodMaxInUnschedulablePodsDuration
	})
	for _, k := range keys {
		r := m.pods[k]
		r.info.FlushTimestamp = m.now
		m.pods[k] = r
	}
	return keys
}

// updateUnschedulable (D7) is R9h's unschedulablePods case: each event the
// update raises (the caller's PodChange.Events, by default
// spec.PodUpdateEvents) is evaluated in turn (no gating filter) until one
// moves the pod out of unschedulablePods.
func (h *hints) updateUnschedulable(m *Model, key spec.PodKey, oldPod, newPod *spec.Pod, change spec.PodChange) {
	for _, ev := range change.Events {
		r := m.pods[key]
		if s := m.cfg.PodStrategy(&r.info, spec.Occurrence{Event: ev, Old: oldPod, New: newPod}); s != spec.StrategySkip {
			h.place(m, r.info, s)
		}
		if m.pods[key].loc != spec.InUnschedulablePods {
			return
		}
	}
}

// updateInFlight (D5) is R9h's in-flight case: each event the update raises
// (the caller's, or derived) is recorded for the pod's replay (R15), with
// both pods and their objects (R19).
func (h *hints) updateInFlight(_ *Model, oldPod, newPod *spec.Pod, change spec.PodChange) {
	for _, ev := range change.Events {
		h.inFlight = append(h.inFlight, spec.InFlightEntry{Event: spec.Occurrence{Event: ev, Old: oldPod, New: newPod}})
	}
}

// activateOther (D5) is R8h for a pod not parked: if it is in flight, a
// ForceActivate record aimed at it alone; otherwise nothing.
func (h *hints) activateOther(m *Model, pod *spec.Pod) {
	if r, ok := m.pods[pod.Key()]; ok && r.loc == spec.InFlight && r.info.Pod.UID == pod.UID && h.hasMarker(pod.UID) {
		h.inFlight = append(h.inFlight, spec.InFlightEntry{Event: spec.Occurrence{Event: spec.EventForceActivate, New: pod}})
	}
}

// leftFlight (D5) is R12h: the pod's marker leaves the list, and so do the
// events no remaining in-flight pod needs.
func (h *hints) leftFlight(_ *Model, uid spec.UID) { h.inFlight = spec.TrimInFlight(h.inFlight, uid) }

func (h *hints) clone() profile { return &hints{inFlight: slices.Clone(h.inFlight)} }

func (h *hints) equal(o profile) bool {
	oh, ok := o.(*hints)
	if !ok || len(h.inFlight) != len(oh.inFlight) {
		return false
	}
	var a, b spec.Snapshot
	h.snapshot(&a)
	oh.snapshot(&b)
	return a.Diff(&b) == ""
}

func (h *hints) snapshot(s *spec.Snapshot) { s.InFlightEvents = slices.Clone(h.inFlight) }
