package spec

import (
	"errors"
	"slices"
)

// The invariants of the hints profile. I1 (single membership: gated pods
// are in unschedulablePods like any other parked pod) and I6 (cycles;
// moveRequestCycle stays -1) hold unchanged. The others are restated:
//
//   - I2h backoff monotone in the counts: the backoff duration never
//     decreases with the count and never exceeds the max; it is 0 exactly
//     for count 0 or a max of 0. A pod's expiry never moves earlier while it
//     waits in backoffQ; the backoffQ flush moves exactly the pods no longer
//     backing off, to activeQ; and an event never moves a backing-off pod
//     from unschedulablePods to activeQ unless a pending plugin may have
//     said Queue.
//   - I3h no lost event: a pod handed back after a failure never lands
//     (ungated) in unschedulablePods if it has no rejectors, was not in
//     flight, or one of the events recorded while it was in flight makes a
//     hint of its rejectors answer Queue.
//   - I4h conservation: I4, except that Pop takes its pod from backoffQ when
//     activeQ is empty.
//   - I5h order: Pop returns a maximal pod of activeQ or, activeQ being
//     empty, one of BackoffPopCandidates.
//   - I7 bounded in-flight list: the markers of the list are exactly the
//     pods in flight, one each; the list is empty when nothing is in flight
//     and never starts with an event record, so it holds only events some
//     in-flight pod may still replay.

// CheckHintsState checks the hints profile's state invariants: I1, I6, I7.
func CheckHintsState(s *Snapshot) error {
	return errors.Join(CheckState(s), I7InFlightEventsBounded(s))
}

// CheckHintsStep checks the hints profile's step invariants for one
// operation, and the state invariants of the state after it. CheckStep
// calls it for a Config whose Profile is ProfileHints.
func CheckHintsStep(cfg Config, before, after *Snapshot, step StepRecord) error {
	return errors.Join(
		CheckHintsState(after),
		I2BackoffMonotonicity(cfg, before, after, step), // I2h in this profile
		I3hNoLostEvent(cfg, before, after, step),
		I4hConservation(cfg, before, after, step),
		I5hOrder(cfg, before, step),
		I6CyclesStep(before, after, step),
		I8NarrowingOnlySkips(cfg, before, after, step),
	)
}

// I7InFlightEventsBounded: every pod in flight has exactly one marker in the
// in-flight list and every marker is a pod in flight (same UID and key);
// nothing in flight means an empty list; a non-empty list starts with a
// marker.
func I7InFlightEventsBounded(s *Snapshot) error {
	inFlight := make(map[UID]PodKey, len(s.InFlight))
	for i := range s.InFlight {
		inFlight[s.InFlight[i].Pod.UID] = s.InFlight[i].Key()
	}
	seen := make(map[UID]bool)
	for i, e := range s.InFlightEvents {
		if !e.IsMarker() {
			if i == 0 {
				return broken("I7", "the in-flight list starts with event %s, which no pod in flight needs", e)
			}
			continue
		}
		k, ok := inFlight[e.UID]
		if !ok || k != e.Key {
			return broken("I7", "marker %s (UID %s) of a pod that is not in flight", e.Key, e.UID)
		}
		if seen[e.UID] {
			return broken("I7", "pod %s has two markers", e.Key)
		}
		seen[e.UID] = true
	}
	for uid, k := range inFlight {
		if !seen[uid] {
			return broken("I7", "pod %s is in flight but has no marker", k)
		}
	}
	return nil
}

// CheckHintsBackoffMonotonic is the pure half of I2h: over counts
// 0..maxCount the duration never decreases, never exceeds the max, and is 0
// exactly for count 0 or a max of 0.
func CheckHintsBackoffMonotonic(cfg Config, maxCount int) error {
	initial, maxB := cfg.PodInitialBackoffDuration, cfg.PodMaxBackoffDuration
	if d := HintsBackoffDuration(0, initial, maxB); d != 0 {
		return broken("I2h", "backoff for count 0 is %v, want 0", d)
	}
	prev := HintsBackoffDuration(0, initial, maxB)
	for n := 1; n <= maxCount; n++ {
		d := HintsBackoffDuration(n, initial, maxB)
		switch {
		case maxB == 0 && d != 0:
			return broken("I2h", "backoff(%d)=%v with max backoff 0, want 0", n, d)
		case maxB != 0 && (d < prev || d > maxB || d <= 0):
			return broken("I2h", "backoff(%d)=%v after backoff(%d)=%v with max %v", n, d, n-1, prev, maxB)
		}
		prev = d
	}
	return nil
}

// I3hNoLostEvent: see the list above. Gated pods are exempt: they wait for
// their PreEnqueue plugin, not for an event.
func I3hNoLostEvent(cfg Config, before, after *Snapshot, step StepRecord) error {
	if step.Rule != R3AddUnschedulable || step.Err != nil {
		return nil
	}
	loc, p := after.Find(step.Pod)
	if loc != InUnschedulablePods || p.Gated() {
		return nil
	}
	if len(p.Rejectors()) == 0 {
		return broken("I3h", "pod %s was rejected by no plugin, yet it landed in unschedulablePods", step.Pod)
	}
	bloc, bp := before.Find(step.Pod)
	if bloc != InFlight {
		return broken("I3h", "pod %s was not in flight, so no event could be checked, yet it landed in unschedulablePods", step.Pod)
	}
	for _, occ := range EventsAfter(before.InFlightEvents, bp.Pod.UID) {
		if s := cfg.PodStrategy(&p, occ); s != StrategySkip {
			return broken("I3h", "pod %s landed in unschedulablePods, but event %s, received while it was in flight, gives %s",
				step.Pod, occ, s)
		}
	}
	return nil
}

// I4hConservation is I4 with Pop allowed to take from backoffQ when activeQ
// is empty.
func I4hConservation(cfg Config, before, after *Snapshot, step StepRecord) error {
	if step.Rule != R2Pop || step.Err != nil || len(before.ActiveQ) > 0 {
		return I4Conservation(before, after, step)
	}
	bl, al := before.Locations(), after.Locations()
	if bl[step.Pod] != InBackoffQ || al[step.Pod] != InFlight {
		return broken("I4h", "Pop on an empty activeQ returned %s, which moved from %s to %s, not from backoffQ to inFlight", step.Pod, bl[step.Pod], al[step.Pod])
	}
	if len(bl) != len(al) {
		return broken("I4h", "Pop of %s changed the number of pods %d -> %d", step.Pod, len(bl), len(al))
	}
	for k, l := range al {
		if k != step.Pod && l != bl[k] {
			return broken("I4h", "Pop of %s also moved %s from %s to %s", step.Pod, k, bl[k], l)
		}
	}
	return nil
}

// I5hOrder: Pop returns a maximal pod of activeQ, or, activeQ being empty,
// one of BackoffPopCandidates.
func I5hOrder(cfg Config, before *Snapshot, step StepRecord) error {
	if step.Rule != R2Pop || step.Err != nil {
		return nil
	}
	if len(before.ActiveQ) > 0 {
		if slices.Contains(MaximalPods(before.ActiveQ), step.Pod) {
			return nil
		}
		return broken("I5h", "Pop returned %s; the maximal pods of activeQ were %v", step.Pod, MaximalPods(before.ActiveQ))
	}
	if c := cfg.BackoffPopCandidates(before.BackoffQ); slices.Contains(c, step.Pod) {
		return nil
	}
	return broken("I5h", "Pop on an empty activeQ returned %s; the first pods of backoffQ were %v", step.Pod, cfg.BackoffPopCandidates(before.BackoffQ))
}
