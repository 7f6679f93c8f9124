package impl

import (
	"time"

	"github.com/schedq/schedq/spec"
)

// profile answers, for the concurrent queue, the decisions that
// spec.Profile names (D1-D7), as package model's profiles do for the
// model: the shared machine in queue.go calls these methods at exactly those
// points and never asks which profile it runs. classic.go answers for
// spec.ProfileClassic, hints.go for spec.ProfileHints. D3 (backoff) is a
// pure function answered in spec (Config.BackoffExpiry, IsBackingOff). All
// methods run under the queue's mutex.
type profile interface {
	// D6 admission of a fresh pod (Add, or Update of an unknown pod): e is
	// detached with its fresh info; from is where its key was before (an
	// entry replaced, or nowhere). It counts the pod's entry under counter
	// (or the profile's own label) and reports whether it reached activeQ.
	added(q *PriorityQueue, e *entry, from place, now time.Time, counter hotCounter) bool
	// D4 Pop: whether Pop has a pod to take now, and taking it (detached).
	canPop(q *PriorityQueue) bool
	next(q *PriorityQueue) *entry
	// popped (D4, D5) runs on the popped entry, already in flight with
	// Attempts counted, and on out, the copy handed to the caller.
	popped(q *PriorityQueue, e *entry, out *spec.QueuedPodInfo)
	// D1 failure: place e, detached, whose info is what the scheduler
	// handed back with Timestamp now. flightUID is the UID of the pod that
	// was in flight under this key ("" if none): its time in flight ends.
	failed(q *PriorityQueue, e *entry, flightUID spec.UID, podSchedulingCycle int64, now time.Time)
	// D2 move request for occ over the unschedulable pods keep selects.
	move(q *PriorityQueue, occ spec.Occurrence, now time.Time, keep func(*entry) bool)
	assignedPodAdded(q *PriorityQueue, pod *spec.Pod, now time.Time)
	assignedPodUpdated(q *PriorityQueue, oldPod, newPod *spec.Pod, event spec.ClusterEvent, now time.Time)
	// D7 re-examination: the leftover flush, and an Update of the
	// unschedulable pod e (its pod already newPod).
	leftover(q *PriorityQueue, now time.Time)
	updateUnschedulable(q *PriorityQueue, e *entry, oldPod, newPod *spec.Pod, now time.Time)
	// resortBackoffQ: the priority of e, in backoffQ, changed (Update).
	resortBackoffQ(q *PriorityQueue, e *entry)
	// D6/D8 Activate of e, parked in unschedulablePods: reports whether it
	// reached activeQ.
	activateParked(q *PriorityQueue, e *entry, now time.Time) bool
	// D5 in-flight bookkeeping: an Update of the in-flight pod e (pod
	// already newPod, with the same UID: a new UID ends the attempt, R9),
	// an Activate of a pod not parked (e its entry, nil
	// if not held), and the in-flight pod e leaving flight (Done, Delete).
	updateInFlight(q *PriorityQueue, e *entry, oldPod, newPod *spec.Pod)
	activateOther(q *PriorityQueue, e *entry, pod *spec.Pod)
	leftFlight(q *PriorityQueue, e *entry)
	// The profile's own state: snapshot, metrics, consistency.
	snapshot(s *spec.Snapshot)
	metrics(q *PriorityQueue, m *MetricsSnapshot)
	check(q *PriorityQueue, keyed map[*entry]bool, bad func(string, ...any))
	// backoffFlushDelay is how long the first periodic backoffQ flush
	// waits after Run: the period (classic), or up to the next window
	// start (hints, R5h).
	backoffFlushDelay(now time.Time, period time.Duration) time.Duration
	// alignedFlushes reports whether each backoffQ flush is scheduled
	// for the next window start rather than one period after the last.
	alignedFlushes() bool
}

// newProfile is the one place the queue looks at cfg.Profile.
func newProfile(cfg spec.Config) profile {
	if cfg.Profile == spec.ProfileHints {
		return newHints(cfg)
	}
	return classic{}
}
