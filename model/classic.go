package model

import (
	"slices"

	"github.com/schedq/schedq/spec"
)

// classic answers the decisions of spec.ProfileClassic: kube-scheduler
// v1.33.13 with SchedulerQueueingHints and SchedulerPopFromBackoffQ off
// (R1-R14). It has no state of its own: moveRequestCycle lives in the shared
// Model because I3 and I6 are stated over it.
type classic struct{}

// admit (D6) is R17's classic text: a pod bound for activeQ must pass the
// PreEnqueue plugins; refused, it is gated: the refusing plugin becomes its
// GatingPlugin and joins its UnschedulablePlugins, and it waits in
// unschedulablePods with its Timestamp and Attempts unchanged. A pod bound
// for backoffQ goes there unexamined (v1.33 runs PreEnqueue on entering
// backoffQ only with SchedulerPopFromBackoffQ on), its GatingPlugin kept.
// Without PreEnqueue plugins every pod is admitted: R1-R14 as before.
func (classic) admit(m *Model, info spec.QueuedPodInfo, to spec.Location) {
	if to == spec.InBackoffQ {
		m.pods[info.Key()] = record{info: info, loc: spec.InBackoffQ}
		return
	}
	if g := m.cfg.RunPreEnqueue(info.Pod, info.GatingPlugin); g != "" {
		info.GatingPlugin = g
		info.UnschedulablePlugins = spec.NewPluginSet(append(slices.Clone(info.UnschedulablePlugins), g)...)
		m.pods[info.Key()] = record{info: info, loc: spec.InUnschedulablePods}
		return
	}
	info.GatingPlugin = ""
	m.moveToActiveQ(info)
}

// fromBackoffQ (D6): a pod leaving backoffQ for activeQ (the backoffQ
// flush, Activate) passes PreEnqueue like any pod entering activeQ (R17).
func (c classic) fromBackoffQ(m *Model, info spec.QueuedPodInfo) { c.admit(m, info, spec.InActiveQ) }

// popCandidates (D4): the maximal pods of activeQ (I5).
func (classic) popCandidates(m *Model) []spec.PodKey {
	c := spec.MaximalPods(m.Snapshot().ActiveQ)
	slices.Sort(c)
	return c
}

// popped (D4): Pop clears the rejecting plugins; the scheduler fills them
// again if the attempt fails (R2).
func (classic) popped(_ *Model, info *spec.QueuedPodInfo) { info.UnschedulablePlugins = nil }

// failed (D1) is R3's placement: backoffQ if a move request happened during
// or after the pod's cycle (moveRequestCycle >= podSchedulingCycle) or no
// plugin rejected it, else unschedulablePods.
func (classic) failed(m *Model, info spec.QueuedPodInfo, podSchedulingCycle int64) {
	loc := spec.InUnschedulablePods
	if m.moveRequestCycle >= podSchedulingCycle || len(info.UnschedulablePlugins) == 0 {
		loc = spec.InBackoffQ
	}
	m.pods[info.Key()] = record{info: info, loc: loc}
}

// move (D2) is the heart of R4, shared by R6 and R11. An event no plugin
// registered for (and not a wildcard) is a complete no-op: upstream returns
// before touching anything, moveRequestCycle included. Otherwise each listed
// pod that the event may help is requeued, and moveRequestCycle becomes the
// current schedulingCycle even if no pod moved, so that pods in flight now
// take the shortcut when they fail (I3). A pod gated by SchedulingGates is
// not examined at all, wildcards included (R17). Moves commute, so the
// order of the list (map order upstream) does not matter.
func (classic) move(m *Model, keys []spec.PodKey, occ spec.Occurrence) {
	if !m.cfg.PluginEvents.IsEventOfInterest(occ.Event) {
		return
	}
	for _, k := range keys {
		r := m.pods[k]
		if spec.SkippedWhileGated(&r.info) {
			continue
		}
		if m.cfg.PluginEvents.IsPodWorthRequeuing(r.info.UnschedulablePlugins, occ.Event) {
			m.requeue(r.info)
		}
	}
	m.moveRequestCycle = m.schedulingCycle
}

// assignedPodAdded (D2) is R11: only the unschedulable pods the assigned pod
// may help (crossTopology) are examined.
func (c classic) assignedPodAdded(m *Model, pod *spec.Pod) {
	c.move(m, m.crossTopology(pod), spec.Occurrence{Event: spec.EventAssignedPodAdd, New: pod})
}

// assignedPodUpdated (D2) is R11 for an update. A scale-down may free
// resources for any pod, so it is a move request over all unschedulable
// pods; any other update is prefiltered like assignedPodAdded.
func (c classic) assignedPodUpdated(m *Model, oldPod, newPod *spec.Pod, event spec.ClusterEvent) {
	if (spec.ClusterEvent{Resource: spec.ResourcePod, ActionType: spec.UpdatePodScaleDown}).Match(event) {
		m.MoveAllToActiveOrBackoffQueue(event, nil)
		return
	}
	c.move(m, m.crossTopology(newPod), spec.Occurrence{Event: event, Old: oldPod, New: newPod})
}

// leftover (D7) is R6's choice: pods whose Timestamp lies strictly more than
// PodMaxInUnschedulablePodsDuration in the past.
func (classic) leftover(m *Model) []spec.PodKey {
	return m.unschedulable(func(r record) bool {
		return m.now.Sub(r.info.Timestamp) > m.cfg.PodMaxInUnschedulablePodsDuration
	})
}

// updateUnschedulable (D7) is R9's unschedulablePods case: if the update
// may make the pod schedulable (the caller's PodChange.Relevant, by default
// spec.IsPodUpdated) it moves to backoffQ when still backing off, else
// towards activeQ through PreEnqueue (R17: an update that lifts the gate
// releases a gated pod). This move is not an event: moveRequestCycle is
// left alone, as upstream.
func (classic) updateUnschedulable(m *Model, key spec.PodKey, _, _ *spec.Pod, change spec.PodChange) {
	if change.Relevant {
		m.requeue(m.pods[key].info)
	}
}

// updateInFlight (D5): nothing is recorded; the pod was replaced in place.
func (classic) updateInFlight(*Model, *spec.Pod, *spec.Pod, spec.PodChange) {}

// activateOther (D5) is R8 for a pod that is neither in unschedulablePods
// nor in backoffQ (in activeQ, in flight, or unknown): upstream v1.33 sets
// moveRequestCycle = schedulingCycle, unconditionally: that is how an
// in-flight pod activated while it is being scheduled gets the shortcut
// when it fails. An unknown pod is not added but does advance
// moveRequestCycle.
func (classic) activateOther(m *Model, _ *spec.Pod) { m.moveRequestCycle = m.schedulingCycle }

// leftFlight (D5): nothing to trim.
func (classic) leftFlight(*Model, spec.UID) {}

func (classic) clone() profile          { return classic{} }
func (classic) equal(o profile) bool    { _, ok := o.(classic); return ok }
func (classic) snapshot(*spec.Snapshot) {}
