package impl

import (
	"slices"
	"time"

	"github.com/schedq/schedq/spec"
)

// classic answers the decisions of spec.ProfileClassic (R1-R14, and R17's
// classic text): PreEnqueue on every way into activeQ and none into
// backoffQ, Pop from activeQ only, the moveRequestCycle shortcut, no
// in-flight list. Its only state is the PreEnqueue plugins: moveRequestCycle
// lives in the queue because I3 and I6 are stated over it.
type classic struct {
	cfg *spec.Config
	gates
	noGroups
}

// added (D6): a fresh pod enters activeQ if PreEnqueue admits it, else it
// waits gated in unschedulablePods; it counts where it went unless its key
// was already parked there (it did not move).
func (c *classic) added(e *entry, from place, update bool) move {
	m := c.admit(&e.info, inActiveQ)
	if m.to == inActiveQ || from != inUnschedulablePods {
		m.why = unschedulablePodAdd
		if update {
			m.why = unschedulablePodUpdate
		}
	}
	return m
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
		return move{to: inBackoffQ, why: scheduleAttemptFailure, unexamined: true}
	}
	return move{to: inUnschedulablePods, why: scheduleAttemptFailure}
}

// ofInterest, mayHelp and moveTo (D2) are R4: an event some plugin
// registered for (or a wildcard) requeues each unschedulable pod one of
// whose rejectors registered it, except a pod SchedulingGates gates, which
// no event examines (R17, spec.SkippedWhileGated).
func (c *classic) ofInterest(ev spec.ClusterEvent) bool {
	return c.cfg.PluginEvents.IsEventOfInterest(ev)
}

func (c *classic) mayHelp(plugins spec.PluginSet, ev spec.ClusterEvent) bool {
	return c.cfg.PluginEvents.IsPodWorthRequeuing(plugins, ev)
}

// narrowing (D8): the classic profile has no pre-queueing hints.
func (c *classic) narrowing(spec.Occurrence) *narrowed { return nil }

func (c *classic) moveTo(v view, e *entry, occ spec.Occurrence, _ *narrowed, grouped bool) move {
	if skippedWhileGated(&e.info) {
		return move{}
	}
	if !grouped && !c.cfg.PluginEvents.IsPodWorthRequeuing(e.info.UnschedulablePlugins, occ.Event) {
		return move{}
	}
	return c.requeue(v, e, clusterEvent)
}

// skippedWhileGated is spec.SkippedWhileGated of e.
func skippedWhileGated(i *podInfo) bool {
	return i.gating() != "" && i.UnschedulablePlugins.Has(spec.PluginSchedulingGates)
}

// requeue is "requeueing a pod" of spec.Queue for e, in unschedulablePods:
// backoffQ while it backs off, unexamined (gated or not); else activeQ if
// PreEnqueue admits it, counted under why. Refused, it waits gated where
// it was, and did not move, so nothing counts.
func (c *classic) requeue(v view, e *entry, why reason) move {
	if v.backingOff(e) {
		return move{to: inBackoffQ, why: why, unexamined: true}
	}
	m := c.admit(&e.info, inActiveQ)
	if m.gate == "" {
		m.why = why
	}
	return m
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
func (c *classic) updatedUnschedulable(v view, e *entry, oldPod, newPod *spec.Pod, change *spec.PodChange) (move, spec.ClusterEvent) {
	if change != nil && !change.Relevant || change == nil && !spec.IsPodUpdated(oldPod, newPod) {
		return move{}, spec.ClusterEvent{}
	}
	return c.requeue(v, e, unschedulablePodUpdate), spec.ClusterEvent{}
}

// activated (R8): an unschedulable pod enters activeQ if PreEnqueue admits
// it; refused, it stays, gated (and Activate sets moveRequestCycle).
func (c *classic) activated(e *entry) move {
	m := c.admit(&e.info, inActiveQ)
	if m.gate == "" {
		m.why = forceActivate
	}
	return m
}

// fromBackoffQ (R5, R8): a pod leaving backoffQ passes PreEnqueue like any
// pod entering activeQ (R17); refused, it is gated in unschedulablePods and
// counts there under why.
func (c *classic) fromBackoffQ(e *entry, why reason) move {
	m := c.admit(&e.info, inActiveQ)
	m.why = why
	return m
}

// updatedInFlight (D5): nothing is recorded.
func (*classic) updatedInFlight(*entry, *spec.Pod, *spec.Pod, *spec.PodChange) {}

// activatedOther (D5) is R8 for a pod not parked: moveRequestCycle becomes
// schedulingCycle, so an in-flight pod takes the shortcut when it fails.
func (*classic) activatedOther(*entry, *spec.Pod) bool { return true }

// leftFlight (D5): nothing to trim.
func (*classic) leftFlight(*entry) {}

func (*classic) snapshot(*spec.Snapshot) {}

// metrics (R14, R17): gated pods count as "gated", not "unschedulable";
// there is no per-plugin gauge. It walks every pod, O(pods) per scrape,
// and only if PreEnqueue plugins may have gated some.
func (c *classic) metrics(v view, m *MetricsSnapshot) {
	if len(c.names) == 0 {
		return
	}
	gated := 0
	v.pods(func(e *entry) {
		if e.loc == inUnschedulablePods && e.info.gating() != "" {
			gated++
		}
	})
	m.PendingPods[QueueGated] = gated
	m.PendingPods[QueueUnschedulable] -= gated
}

func (*classic) check(map[*entry]bool, func(string, ...any)) {}

func (*classic) backoffFlushDelay(_ time.Time, period time.Duration) time.Duration { return period }

func (*classic) alignedFlushes() bool { return false }
