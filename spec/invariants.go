package spec

import (
	"errors"
	"fmt"
)

// StepRecord describes one operation between two snapshots, for the
// invariants that are about a step rather than a state: which rule ran, on
// which pod, and what it returned.
type StepRecord struct {
	Rule Rule
	// Pod is the pod the operation named (R1, R3, R9, R10, R12) or, for
	// R2, the pod Pop returned.
	Pod PodKey
	// PodSchedulingCycle is the cycle passed to R3.
	PodSchedulingCycle int64
	// Group is the pod group the operation named (G5, G11) or, for G3,
	// the group PopEntity returned; empty otherwise.
	Group PodGroupKey
	// Err is what the operation returned. A failed operation must change
	// nothing.
	Err error
	// Move is what a move request step (R4, R11) was asked, when its
	// recorder kept it (I8 needs it); nil otherwise. A pointer keeps
	// StepRecord comparable.
	Move *MoveRecord
}

// MoveRecord is a move request as it was asked: the event with its
// objects, and the caller's preCheck (nil lets every pod through).
type MoveRecord struct {
	Occurrence Occurrence
	PreCheck   PreEnqueueCheck
}

// InvariantError names the invariant a check found broken.
type InvariantError struct {
	Invariant string // "I1".."I6"
	Detail    string
}

func (e *InvariantError) Error() string { return e.Invariant + ": " + e.Detail }

func broken(inv, format string, args ...any) error {
	return &InvariantError{Invariant: inv, Detail: fmt.Sprintf(format, args...)}
}

// CheckState checks the invariants that are about one state: I1 and the
// state half of I6. A queue satisfies them after every operation.
func CheckState(s *Snapshot) error {
	return errors.Join(I1SingleQueueMembership(s), I6Cycles(s))
}

// CheckStep checks the invariants that are about one operation, I2-I6,
// given the snapshots before and after it and what it was (step), together
// with CheckState of the state after it. A queue satisfies them for every
// operation, failed ones included. It returns every broken invariant, each
// an *InvariantError, joined.
func CheckStep(cfg Config, before, after *Snapshot, step StepRecord) error {
	if cfg.Profile == ProfilePodGroups { // the profile's own invariants, see podgroups_invariants.go
		return CheckPodGroupsStep(cfg, before, after, step)
	}
	if cfg.Profile == ProfileHints { // the profile's own invariants, see hints_invariants.go
		return CheckHintsStep(cfg, before, after, step)
	}
	return errors.Join(
		CheckState(after),
		I2BackoffMonotonicity(cfg, before, after, step),
		I3MoveRequestShortcut(before, after, step),
		I4Conservation(before, after, step),
		I5Order(before, step),
		I6CyclesStep(before, after, step),
	)
}

// I1SingleQueueMembership checks I1, single-queue membership, on one
// state: every pod the queue holds is in exactly one of activeQ, backoffQ,
// unschedulablePods and in flight, and only once there; no UID is held under
// two keys (a UID names one pod object, and Done names pods by UID); no
// entry has a nil Pod. It also checks what Queue.Snapshot promises: every
// list is sorted by key, without repeats.
func I1SingleQueueMembership(s *Snapshot) error {
	seen := make(map[PodKey]string)
	uids := make(map[UID]PodKey)
	for _, pl := range s.Places() {
		if err := listMembership("I1", pl.Loc.String(), pl.Pods, seen, uids); err != nil {
			return err
		}
	}
	return nil
}

// listMembership checks inv (I1, or IG1 on the pod-group lists) on one
// list of pods named where, given the lists checked before it (seen and
// uids, which it extends): no nil pod, no key or UID held twice, sorted by
// key without repeats.
func listMembership(inv, where string, pods []QueuedPodInfo, seen map[PodKey]string, uids map[UID]PodKey) error {
	for i := range pods {
		p := &pods[i]
		if p.Pod == nil {
			return broken(inv, "nil pod in %s", where)
		}
		k := p.Key()
		if prev, dup := seen[k]; dup {
			return broken(inv, "pod %s is in %s and in %s", k, prev, where)
		}
		seen[k] = where
		if other, dup := uids[p.Pod.UID]; dup {
			return broken(inv, "UID %s is held by %s and %s", p.Pod.UID, other, k)
		}
		uids[p.Pod.UID] = k
		if i > 0 && pods[i-1].Key() >= k {
			return broken(inv, "%s is not sorted by key at %s", where, k)
		}
	}
	return nil
}

// CheckBackoffMonotonic checks the half of I2 that is about the backoff
// formula (R7) alone: BackoffDuration of 0 attempts is 0, and for attempts 1
// to maxAttempts the backoff is positive, never below that of one attempt
// fewer, and never above PodMaxBackoffDuration.
func CheckBackoffMonotonic(cfg Config, maxAttempts int) error {
	prev := BackoffDuration(0, cfg.PodInitialBackoffDuration, cfg.PodMaxBackoffDuration)
	if prev != 0 {
		return broken("I2", "backoff for 0 attempts is %v, want 0", prev)
	}
	for a := 1; a <= maxAttempts; a++ {
		d := cfg.BackoffDuration(a)
		if d < prev || d > cfg.PodMaxBackoffDuration || d <= 0 {
			return broken("I2", "backoff(%d)=%v after backoff(%d)=%v with max %v", a, d, a-1, prev, cfg.PodMaxBackoffDuration)
		}
		prev = d
	}
	return nil
}

// I2BackoffMonotonicity checks the half of I2, backoff monotonicity, that
// is about one successful operation (a failed one changes nothing, I4):
//   - a pod in backoffQ both before and after keeps an expiry
//     (Config.BackoffExpiry) no earlier than it had;
//   - after the backoffQ flush (R5) every pod still in backoffQ is backing
//     off at the new now, and every pod that left it went to activeQ (or,
//     refused by PreEnqueue on the way, R17, to unschedulablePods, gated)
//     and was no longer backing off (R7: its expiry strictly before now);
//   - a move request (R4, R6, R11) or an Update (R9) moves no pod from
//     unschedulablePods to activeQ while it is backing off at the new now.
//
// Activate (R8) may move a pod that is backing off to activeQ: that is
// what it is for. In the hints profile it checks I2h, which differs twice:
// the flush moves pods to activeQ only, and an event may move a pod that is
// backing off if a pending plugin of the pod may have said Queue.
func I2BackoffMonotonicity(cfg Config, before, after *Snapshot, step StepRecord) error {
	if step.Err != nil {
		return nil
	}
	hints := cfg.Profile == ProfileHints
	inv := "I2"
	if hints {
		inv = "I2h"
	}
	for i := range after.BackoffQ {
		p := &after.BackoffQ[i]
		if loc, old := before.Find(p.Key()); loc == InBackoffQ {
			if cfg.BackoffExpiry(p).Before(cfg.BackoffExpiry(&old)) {
				return broken(inv, "pod %s: backoff expiry moved earlier, %v -> %v", p.Key(), cfg.BackoffExpiry(&old), cfg.BackoffExpiry(p))
			}
		}
		if step.Rule == R5FlushBackoffQ && !cfg.IsBackingOff(p, after.Now) {
			return broken(inv, "pod %s: backoff completed at %v but the flush at %v kept it in backoffQ", p.Key(), cfg.BackoffExpiry(p), after.Now)
		}
	}
	for i := range before.BackoffQ {
		p := &before.BackoffQ[i]
		loc, _ := after.Find(p.Key())
		if step.Rule == R5FlushBackoffQ && loc != InBackoffQ {
			if _, now := after.Find(p.Key()); loc != InActiveQ && (hints || !(loc == InUnschedulablePods && now.Gated())) {
				return broken(inv, "pod %s: the backoffQ flush moved it to %s", p.Key(), loc)
			}
			if cfg.IsBackingOff(p, after.Now) {
				return broken(inv, "pod %s: left backoffQ at %v, before its backoff expiry %v", p.Key(), after.Now, cfg.BackoffExpiry(p))
			}
		}
	}
	if step.Rule == R4MoveAll || step.Rule == R6FlushUnschedulable || step.Rule == R9Update || step.Rule == R11AssignedPod {
		for i := range before.UnschedulablePods {
			p := &before.UnschedulablePods[i]
			if loc, now := after.Find(p.Key()); loc == InActiveQ && cfg.IsBackingOff(&now, after.Now) && (!hints || len(now.PendingPlugins) == 0) {
				return broken(inv, "pod %s: moved from unschedulablePods to activeQ while backing off until %v (now %v), pending plugins %v",
					p.Key(), cfg.BackoffExpiry(&now), after.Now, now.PendingPlugins)
			}
		}
	}
	return nil
}

// I3MoveRequestShortcut checks I3, no lost wake-up, on a successful
// AddUnschedulableIfNotPresent (R3): if the pod landed in
// unschedulablePods, then before the step moveRequestCycle was below
// step.PodSchedulingCycle (no move request happened during or after the
// pod's cycle) and the pod's UnschedulablePlugins are not empty. A pod
// that missed the event meant for it, or that no plugin's event can help,
// must not wait in unschedulablePods, where no event might ever come to
// wake it.
func I3MoveRequestShortcut(before, after *Snapshot, step StepRecord) error {
	if step.Rule != R3AddUnschedulable || step.Err != nil {
		return nil
	}
	loc, p := after.Find(step.Pod)
	if loc != InUnschedulablePods {
		return nil
	}
	if before.MoveRequestCycle >= step.PodSchedulingCycle {
		return broken("I3", "pod %s failed in cycle %d, moveRequestCycle was %d, yet it landed in unschedulablePods",
			step.Pod, step.PodSchedulingCycle, before.MoveRequestCycle)
	}
	if len(p.UnschedulablePlugins) == 0 {
		return broken("I3", "pod %s was rejected by no plugin, yet it landed in unschedulablePods", step.Pod)
	}
	return nil
}

// I4Conservation checks I4, conservation: no operation loses, duplicates
// or invents a pod.
//   - A failed operation (step.Err != nil) leaves the snapshot unchanged,
//     Now aside.
//   - Add (R1), AddUnschedulableIfNotPresent (R3) and Update (R9) add at
//     most the pod they name, remove none, and the pod is held afterwards.
//   - Delete (R10) and Done (R12) add none and remove at most the pod they
//     name.
//   - Pop (R2) moves the pod it returned from activeQ to in flight and
//     moves no other pod.
//   - Every other operation neither adds nor removes a pod.
func I4Conservation(before, after *Snapshot, step StepRecord) error {
	if step.Err != nil {
		return unchangedByFailure(before, after, step)
	}
	bl, al := before.Locations(), after.Locations()
	if err := heldChanges(step, bl, al); err != nil {
		return err
	}
	switch step.Rule {
	case R1Add, R3AddUnschedulable, R9Update:
		if al[step.Pod] == Nowhere {
			return broken("I4", "%s of %s: pod is not held afterwards", step.Rule, step.Pod)
		}
	case R2Pop:
		if bl[step.Pod] != InActiveQ || al[step.Pod] != InFlight {
			return broken("I4", "Pop returned %s, which moved from %s to %s, not from activeQ to inFlight", step.Pod, bl[step.Pod], al[step.Pod])
		}
		for k, l := range al {
			if k != step.Pod && l != bl[k] {
				return broken("I4", "Pop of %s also moved %s from %s to %s", step.Pod, k, bl[k], l)
			}
		}
	}
	return nil
}

// unchangedByFailure is the half of I4 about a failed operation: it
// leaves the snapshot unchanged, Now aside.
func unchangedByFailure(before, after *Snapshot, step StepRecord) error {
	b := *before
	b.Now = after.Now
	if d := b.Diff(after); d != "" {
		return broken("I4", "%s failed with %q yet changed the queue:\n%s", step.Rule, step.Err, d)
	}
	return nil
}

// heldChanges is the half of I4 about which pods a successful operation
// adds and removes, given where the pods are held before (bl) and after
// (al): only Add, AddUnschedulableIfNotPresent and Update add one, the one
// they name; only Delete and Done remove one, the one they name.
func heldChanges(step StepRecord, bl, al map[PodKey]Location) error {
	added, removed := keysAddedRemoved(bl, al)
	oneOf := func(ks []PodKey) bool { return len(ks) == 0 || len(ks) == 1 && ks[0] == step.Pod }
	switch step.Rule {
	case R1Add, R3AddUnschedulable, R9Update:
		if !oneOf(added) || len(removed) > 0 {
			return broken("I4", "%s of %s added %v and removed %v", step.Rule, step.Pod, added, removed)
		}
	case R10Delete, R12Done:
		if len(added) > 0 || !oneOf(removed) {
			return broken("I4", "%s of %s added %v and removed %v", step.Rule, step.Pod, added, removed)
		}
	default:
		if len(added) > 0 || len(removed) > 0 {
			return broken("I4", "%s added %v and removed %v", step.Rule, added, removed)
		}
	}
	return nil
}

// I5Order checks I5, order, on a successful Pop (R2): the pod it returned
// is one of MaximalPods of activeQ before the Pop, that is no pod then in
// activeQ precedes it under Less.
func I5Order(before *Snapshot, step StepRecord) error {
	if step.Rule != R2Pop || step.Err != nil {
		return nil
	}
	for _, k := range MaximalPods(before.ActiveQ) {
		if k == step.Pod {
			return nil
		}
	}
	return broken("I5", "Pop returned %s; the maximal pods of activeQ were %v", step.Pod, MaximalPods(before.ActiveQ))
}

// I6Cycles checks the half of I6, cycles, that is about one state:
// 0 <= schedulingCycle and -1 <= moveRequestCycle <= schedulingCycle.
func I6Cycles(s *Snapshot) error {
	if s.SchedulingCycle < 0 || s.MoveRequestCycle < -1 || s.MoveRequestCycle > s.SchedulingCycle {
		return broken("I6", "schedulingCycle=%d moveRequestCycle=%d", s.SchedulingCycle, s.MoveRequestCycle)
	}
	return nil
}

// I6CyclesStep checks the half of I6 that is about one operation:
// schedulingCycle grows by exactly one on a successful Pop (R2, or G3 of a
// pod group) and does not change on any other operation, failed Pops
// included; moveRequestCycle never decreases.
func I6CyclesStep(before, after *Snapshot, step StepRecord) error {
	want := before.SchedulingCycle
	if (step.Rule == R2Pop || step.Rule == G3PopGroup) && step.Err == nil {
		want++
	}
	if after.SchedulingCycle != want {
		return broken("I6", "%s: schedulingCycle %d -> %d, want %d", step.Rule, before.SchedulingCycle, after.SchedulingCycle, want)
	}
	if after.MoveRequestCycle < before.MoveRequestCycle {
		return broken("I6", "%s: moveRequestCycle decreased %d -> %d", step.Rule, before.MoveRequestCycle, after.MoveRequestCycle)
	}
	return nil
}

// keysAddedRemoved returns the pods held after and not before (added) and
// before and not after (removed): what I4 weighs against the step's rule.
func keysAddedRemoved(before, after map[PodKey]Location) (added, removed []PodKey) {
	for k := range after {
		if _, ok := before[k]; !ok {
			added = append(added, k)
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			removed = append(removed, k)
		}
	}
	return added, removed
}
