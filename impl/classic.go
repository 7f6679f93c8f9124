package impl

import (
	"time"

	"github.com/schedq/schedq/spec"
)

// classic answers the decisions of spec.ProfileClassic (R1-R14): no
// PreEnqueue, Pop from activeQ only, the moveRequestCycle shortcut, no
// in-flight list. It has no state of its own: moveRequestCycle lives in the
// queue because I3 and I6 are stated over it.
type classic struct{}

// added (D6): every pod is admitted.
func (classic) added(q *PriorityQueue, e *entry, _ place, now time.Time, counter hotCounter) bool {
	q.moveToActiveQ(e, now)
	q.metrics.hot[counter]++
	return true
}

// canPop and next (D4): activeQ only.
func (classic) canPop(q *PriorityQueue) bool { return q.activeQ.len() > 0 }

func (classic) next(q *PriorityQueue) *entry { return q.activeQ.popMin() }

// popped (D4): Pop clears the rejecting plugins; the scheduler fills them
// again if the attempt fails (R2). The interned set is never handed out.
func (classic) popped(_ *PriorityQueue, e *entry, out *spec.QueuedPodInfo) {
	e.info.UnschedulablePlugins = nil
	out.UnschedulablePlugins = nil
}

// failed (D1) is R3's placement: backoffQ if a move request happened
// during or after the pod's cycle or no plugin rejected it, else
// unschedulablePods.
func (classic) failed(q *PriorityQueue, e *entry, _ spec.UID, podSchedulingCycle int64, _ time.Time) {
	if q.moveRequestCycle >= podSchedulingCycle || len(e.info.UnschedulablePlugins) == 0 {
		q.pushBackoffQ(e)
		q.metrics.hot[backoffScheduleAttemptFailure]++
	} else {
		q.unschedulablePods.add(e)
		q.metrics.hot[unschedulableScheduleAttemptFailure]++
	}
}

// move (D2) is R4 (see movePods).
func (classic) move(q *PriorityQueue, occ spec.Occurrence, now time.Time, keep func(*entry) bool) {
	q.movePods(occ.Event, now, keep)
}

// assignedPodAdded (D2) is R11: only the pods the assigned pod may help.
func (classic) assignedPodAdded(q *PriorityQueue, pod *spec.Pod, now time.Time) {
	q.movePods(spec.EventAssignedPodAdd, now, crossTopology(pod))
}

// assignedPodUpdated (D2) is R11 for an update: a scale-down may help any
// pod, any other update is prefiltered like an add.
func (classic) assignedPodUpdated(q *PriorityQueue, _, newPod *spec.Pod, event spec.ClusterEvent, now time.Time) {
	if (spec.ClusterEvent{Resource: spec.ResourcePod, ActionType: spec.UpdatePodScaleDown}).Match(event) {
		q.movePods(event, now, func(*entry) bool { return true })
		return
	}
	q.movePods(event, now, crossTopology(newPod))
}

// leftover (D7) is R6: pods older than PodMaxInUnschedulablePodsDuration
// by Timestamp get a wildcard move request, when there are some.
func (classic) leftover(q *PriorityQueue, now time.Time) {
	leftover := func(e *entry) bool {
		return now.Sub(e.info.Timestamp) > q.cfg.PodMaxInUnschedulablePodsDuration
	}
	if q.unschedulablePods.any(leftover) {
		q.movePods(spec.EventUnschedulableTimeout, now, leftover)
	}
}

// updateUnschedulable (D7) is R9: requeue if something but the status
// changed; not a move request.
func (classic) updateUnschedulable(q *PriorityQueue, e *entry, oldPod, newPod *spec.Pod, now time.Time) {
	if !spec.IsPodUpdated(oldPod, newPod) {
		return
	}
	q.unschedulablePods.remove(q.unschedulablePods.groupOfEntry(e), e)
	if q.requeue(e, now) {
		q.metrics.hot[activeUnschedulablePodUpdate]++
		q.cond.Signal()
	} else {
		q.metrics.hot[backoffUnschedulablePodUpdate]++
	}
}

// resortBackoffQ: backoffQ is ordered by expiry alone.
func (classic) resortBackoffQ(*PriorityQueue, *entry) {}

// activateParked (R8): an unschedulable pod enters activeQ.
func (classic) activateParked(q *PriorityQueue, e *entry, now time.Time) bool {
	q.detach(e)
	q.moveToActiveQ(e, now)
	return true
}

// updateInFlight (D5): nothing is recorded.
func (classic) updateInFlight(*PriorityQueue, *entry, *spec.Pod, *spec.Pod) {}

// activateOther (D5) is R8 for a pod not parked: moveRequestCycle becomes
// schedulingCycle, so an in-flight pod takes the shortcut when it fails.
func (classic) activateOther(q *PriorityQueue, _ *entry, _ *spec.Pod) {
	q.moveRequestCycle = q.schedulingCycle
}

// leftFlight (D5): nothing to trim.
func (classic) leftFlight(*PriorityQueue, *entry) {}

func (classic) snapshot(*spec.Snapshot) {}

// metrics: this profile has no gates and no per-plugin gauge.
func (classic) metrics(*PriorityQueue, *MetricsSnapshot) {}

func (classic) check(*PriorityQueue, map[*entry]bool, func(string, ...any)) {}

func (classic) backoffFlushDelay(_ time.Time, period time.Duration) time.Duration { return period }

func (classic) alignedFlushes() bool { return false }
