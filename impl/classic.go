package impl

import (
	"slices"
	"time"

	"github.com/schedq/schedq/spec"
)

// classic answers the decisions of spec.ProfileClassic (R1-R14): no
// PreEnqueue, Pop from activeQ only, the moveRequestCycle shortcut, no
// in-flight list. It has no state of its own: moveRequestCycle lives in the
// queue because I3 and I6 are stated over it.
type classic struct{ cfg *spec.Config }

// added (D6): every pod is admitted to activeQ.
func (*classic) added(_ *entry, _ place, update bool) move {
	if update {
		return move{to: inActiveQ, why: unschedulablePodUpdate}
	}
	return move{to: inActiveQ, why: unschedulablePodAdd}
}

// popFrom (D4): activeQ only.
func (*classic) popFrom(v view) place {
	if v.activeQHasPods() {
		return inActiveQ
	}
	return nowhere
}

func (*classic) windowed() bool { return false }

// popped (D4): Pop clears the rejecting plugins; the scheduler fills them
// again if the attempt fails (R2).
func (*classic) popped(*entry) (uint32, bool) { return 0, true }

// failed (D1) is R3's placement: backoffQ if a move request happened
// during or after the pod's cycle or no plugin rejected it, else
// unschedulablePods.
func (*classic) failed(v view, e *entry, _ spec.UID, podSchedulingCycle int64) move {
	if v.moveRequestCycle() >= podSchedulingCycle || len(e.info.UnschedulablePlugins) == 0 {
		return move{to: inBackoffQ, why: scheduleAttemptFailure}
	}
	return move{to: inUnschedulablePods, why: scheduleAttemptFailure}
}

// ofInterest, mayHelp and moveTo (D2) are R4: an event some plugin
// registered for (or a wildcard) requeues each unschedulable pod one of
// whose rejectors registered it.
func (c *classic) ofInterest(ev spec.ClusterEvent) bool {
	return c.cfg.PluginEvents.IsEventOfInterest(ev)
}

func (c *classic) mayHelp(plugins spec.PluginSet, ev spec.ClusterEvent) bool {
	return c.cfg.PluginEvents.IsPodWorthRequeuing(plugins, ev)
}

func (c *classic) moveTo(v view, e *entry, occ spec.Occurrence, grouped bool) move {
	if !grouped && !c.cfg.PluginEvents.IsPodWorthRequeuing(e.info.UnschedulablePlugins, occ.Event) {
		return move{}
	}
	return move{to: requeue(v, e), why: clusterEvent}
}

// requeue is "requeueing a pod" of spec.Queue: backoffQ while the pod
// backs off, else activeQ.
func requeue(v view, e *entry) place {
	if v.backingOff(e) {
		return inBackoffQ
	}
	return inActiveQ
}

// requested (D2): every move request of interest sets moveRequestCycle.
func (*classic) requested(spec.Occurrence) bool { return true }

// assigned (D2) is R11: a scale-down may help any pod; any other add or
// update of an assigned pod only the pods it may help (crossTopology).
func (*classic) assigned(newPod *spec.Pod, event spec.ClusterEvent) func(*entry) bool {
	if (spec.ClusterEvent{Resource: spec.ResourcePod, ActionType: spec.UpdatePodScaleDown}).Match(event) {
		return everyPod
	}
	return crossTopology(newPod)
}

// crossTopology selects the unschedulable pods an assigned pod may help,
// as spec.Queue.AssignedPodAdded defines them (R11).
func crossTopology(assigned *spec.Pod) func(*entry) bool {
	return func(e *entry) bool {
		p := e.info.Pod
		if e.info.UnschedulablePlugins.Has(spec.PluginPodTopologySpread) && p.Namespace == assigned.Namespace {
			return true
		}
		return slices.ContainsFunc(p.RequiredAffinityTerms, func(t spec.AffinityTerm) bool {
			return t.Matches(p.Namespace, assigned)
		})
	}
}

// everyPod is the selection of a move request over all unschedulable pods.
func everyPod(*entry) bool { return true }

// leftover (D7) is R6: pods older than PodMaxInUnschedulablePodsDuration
// by Timestamp.
func (c *classic) leftover(v view) (func(*entry) bool, bool) {
	return func(e *entry) bool {
		return v.now.Sub(e.info.Timestamp) > c.cfg.PodMaxInUnschedulablePodsDuration
	}, false
}

// updatedUnschedulable (D7) is R9: requeue if something but the status
// changed; not a move request.
func (*classic) updatedUnschedulable(v view, e *entry, oldPod, newPod *spec.Pod) (move, spec.ClusterEvent) {
	if !spec.IsPodUpdated(oldPod, newPod) {
		return move{}, spec.ClusterEvent{}
	}
	return move{to: requeue(v, e), why: unschedulablePodUpdate}, spec.ClusterEvent{}
}

// activated (R8): an unschedulable pod enters activeQ.
func (*classic) activated(*entry) move { return move{to: inActiveQ, why: forceActivate} }

// updatedInFlight (D5): nothing is recorded.
func (*classic) updatedInFlight(*entry, *spec.Pod, *spec.Pod) {}

// activatedOther (D5) is R8 for a pod not parked: moveRequestCycle becomes
// schedulingCycle, so an in-flight pod takes the shortcut when it fails.
func (*classic) activatedOther(*entry, *spec.Pod) bool { return true }

// leftFlight (D5): nothing to trim.
func (*classic) leftFlight(*entry) {}

func (*classic) snapshot(*spec.Snapshot) {}

// metrics: this profile has no gates and no per-plugin gauge.
func (*classic) metrics(view, *MetricsSnapshot) {}

func (*classic) check(map[*entry]bool, func(string, ...any)) {}

func (*classic) backoffFlushDelay(_ time.Time, period time.Duration) time.Duration { return period }

func (*classic) alignedFlushes() bool { return false }
