package conformance

import (
	"slices"
	"strings"

	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// The random runs of the podgroups profile (spec.ProfilePodGroups, G1-G11)
// are the hints profile's with pod groups: the same generator, pods, plugins,
// events and clock steps, plus members of two pod groups, the groups'
// objects and the end of a group's cycle. "pop" is PopEntity, which the
// scenario runner compares with the entities the model allows (G3); a
// "fail" of a popped member hands back its QueuedPodInfo as the group's Pop
// returned it (G4).
//
// The runs stay away from bad input and from the podgroups scenarios'
// declared differences with kube-scheduler v1.37.2 (docs/podgroups.md,
// "Where schedq departs"; the scenarios' known-difference lines), which
// the scenarios show with their reasons:
//   - Add of a pod the queue holds anywhere (upstream inserts a member a
//     second time into its entity), so Add only of a pod the queue does
//     not hold;
//   - Delete of a pod in flight (upstream places the rest of its group
//     again);
//   - AddPodGroup of a group with more than one incomplete member, or
//     with one that waited since before now or was queued before: schedq
//     releases them in key order into an entity whose Timestamp is now,
//     upstream drains them in map order into an entity that takes the
//     first one's fields, and the order decides more (docs/podgroups.md, "A new entity's Timestamp");
//     a random run met it as a gated member and an ungated one released
//     together, the ungated one's InitialAttemptTimestamp set upstream in
//     some runs and not in others;
//   - a Pop while a group's cycle is open, and the failure of a pod
//     alone then: upstream keeps one marker of the last popped entity,
//     which both overwrite or clear, where schedq keeps each group's cycle
//     open until its end (docs/podgroups.md, "The group's cycle is the
//     group's own"; probe (a) of docs/podgroups-upstream.md). The runs
//     schedule as kube-scheduler's one scheduling loop does: a group's
//     cycle ends before the next Pop;
//   - the failure of a member that makes a new entity (its group known,
//     with no entity queued and no cycle open): the entity's fields are
//     fresh in schedq (InitialAttemptTimestamp now), the member's
//     upstream (the same declared difference; a popped member has a
//     history its new entity would inherit);
//   - AddPodGroup of a known group, UpdatePodGroup and DeletePodGroup of
//     an unknown one (G11-pod-group-objects: upstream's update makes the
//     group known);
//   - an Update that changes a member's group (G9-update-of-a-member);
//   - AddAttemptedPodGroupIfNeeded of a group whose cycle is not open.
//
// And three findings of these runs, each declared for v1.37.2 with a
// scenario of conformance/testdata/scenarios/podgroups (named below): Activate of a member
// in flight, its group known, when its group's queued entity does not move
// to activeQ (it is in activeQ already, or PreEnqueue gates it again in
// unschedulablePods), records a ForceActivate for the member in the
// in-flight list upstream (activate reports no move, so Activate falls
// through to addEventsIfPodInFlight: v1.37.2 scheduling_queue.go:986-994),
// and nothing in the model (G7). A member's failure replays nothing (G4),
// so only the in-flight list differs
// (G7-activate-of-a-member-in-flight-records-no-event).
//
// And a second: Update of a member in flight whose PodGroup object is gone
// records no TargetPodUpdate in the in-flight list upstream (Update finds
// no root and only looks in incompletePodGroupPods: v1.37.2
// scheduling_queue.go:1362-1370), where the model records it as for any
// pod in flight (R9h). Again only the in-flight list differs (G4 replays
// nothing for a member). The same early return drops an Update of a
// member the queue does not hold (it was finished, say) whose group is
// unknown: the model adds it, as Update adds any pod it does not hold
// (R9), to incompletePodGroupPods; upstream forgets it
// (G9-an-update-of-a-member-in-flight-is-recorded-after-its-group-is-deleted).
//
// And a third, which changes what Pop returns: UpdatePodGroup of a group
// whose entity waits in activeQ (or backoffQ) changes the entity's
// PodGroup, and so its priority, in place, without fixing the heap
// (v1.37.2 scheduling_queue.go:1611-1618, rootInfo.UpdatePodGroup): a
// group whose priority rose stays behind a pod it now precedes, and a
// heap whose element changed key no longer keeps its order. The model
// ranks the entity by its group's new priority
// (G11-an-update-of-a-queued-group-reorders-activeQ).
//
// A group's Pop is compared whatever order upstream puts its members'
// markers in: adjacent markers are the same state in any order
// (spec.InFlightEquivalent). Upstream's order is its member order
// (framework.PodGroupMemberPodsOrderingFunc) as it stood when each member
// joined the entity, not re-sorted when a member's priority changes; a
// predicate that kept the runs to groups whose current order was the key
// order missed that, and a run failed on it.
func init() {
	d := drawings[spec.ProfileHints]
	d.test, d.scenario = "differential-podgroups", "model-differential random runs (podgroups)"
	d.rules = []spec.Rule{"G1-G13"}
	// The profile leaves the metrics of entities out of its contract
	// (spec.PodGroupQueue): none is compared (driver.begin).
	d.metrics = ""
	d.addAgain = []spec.Location{spec.Nowhere}
	// Its runs keep to the group operations and the hints ones they had:
	// no nominations, no caller objects.
	d.nominate, d.objects = false, false
	g := d.gen.Clone()
	g.Weights = valid(spec.ProfilePodGroups, append(slices.Clone(diffKinds), schedqtest.KindPodGroupAdd,
		schedqtest.KindPodGroupUpdate, schedqtest.KindPodGroupDelete, schedqtest.KindAttempted)...).Weights
	g.Configs = []schedqtest.ConfigChange{{Profile: spec.ProfilePodGroups}}
	g.GroupsV138 = false // forTarget draws it for a target that takes it
	g.Groups, g.GroupPriorities = []string{"g1", "g2"}, []int32{0, 1, 3}
	g.Boundaries = false
	d.gen = g
	d.avoid = avoidPodGroups
	drawings[spec.ProfilePodGroups] = d
}

// avoidPodGroups is what the podgroups runs stay away from, beyond the
// hints runs: the declared differences and findings the comment above
// lists.
func avoidPodGroups(op schedqtest.Op, m *schedqtest.ModelRun) string {
	snap := m.Model.Snapshot()
	state := snap.PodGroups
	known := func(name string) bool {
		_, ok := state.Known(schedqtest.GroupKey(name))
		return ok
	}
	where := func(name string) spec.Location { return m.Model.Where(schedqtest.Key(name)) }
	switch op.Kind {
	case schedqtest.KindActivate:
		for _, r := range op.Pods {
			if where(r.Name) != spec.InFlight {
				continue
			}
			_, info := snap.Find(schedqtest.Key(r.Name))
			k := info.Pod.GroupKey()
			e, queued := state.Entity(k)
			_, isKnown := state.Known(k)
			if k != "" && isKnown && queued && e.Place != spec.InBackoffQ {
				return "Activate of a member in flight while its group's entity does not move: a finding (above)"
			}
		}
	case schedqtest.KindFail:
		_, info := snap.Find(schedqtest.Key(op.Pod.Name))
		k := info.Pod.GroupKey()
		if k == "" && len(state.InCycle) > 0 {
			return "the failure of a pod alone while a group's cycle is open clears upstream's marker: declared"
		}
		_, queued := state.Entity(k)
		_, isKnown := state.Known(k)
		if k != "" && isKnown && !queued && !slices.Contains(state.InCycle, k) {
			return "the failure of a member that makes a new entity with the member's history: declared"
		}
	case schedqtest.KindUpdate:
		if where(op.Pod.Name) == spec.InFlight {
			_, info := snap.Find(schedqtest.Key(op.Pod.Name))
			if k := info.Pod.GroupKey(); k != "" && !known(strings.TrimPrefix(string(k), schedqtest.Namespace+"/")) {
				return "Update of a member in flight whose group is unknown: a finding (above)"
			}
		}
		if _, nw := m.Exec.UpdatePods(op); where(op.Pod.Name) == spec.Nowhere && nw.Group != "" && !known(nw.Group) {
			return "Update of a member the queue does not hold, its group unknown: a finding (above)"
		}
	case schedqtest.KindPop:
		if len(state.InCycle) > 0 {
			return "a Pop while a group's cycle is open overwrites upstream's single marker: declared"
		}
	case schedqtest.KindPodGroupAdd:
		if known(op.Group) {
			return "AddPodGroup of a known group is bad input"
		}
		now, waiting := m.Model.Now(), 0
		for _, mb := range state.IncompletePodGroupPods {
			if mb.Pod.Group != op.Group {
				continue
			}
			if waiting++; waiting > 1 || !mb.Timestamp.Equal(now) || mb.Attempts > 0 || !mb.InitialAttemptTimestamp.IsZero() {
				return "AddPodGroup releasing members in map order, or with a Timestamp from before now, is a declared difference"
			}
		}
	case schedqtest.KindPodGroupUpdate:
		if !known(op.Group) {
			return "UpdatePodGroup of an unknown group is a declared difference"
		}
		if e, ok := state.Entity(schedqtest.GroupKey(op.Group)); ok && (e.Place == spec.InActiveQ || e.Place == spec.InBackoffQ) {
			return "UpdatePodGroup of a group queued in a heap: a finding (above)"
		}
	case schedqtest.KindPodGroupDelete:
		if !known(op.Group) {
			return "DeletePodGroup of an unknown group is bad input"
		}
	case schedqtest.KindAttempted:
		if !slices.Contains(state.InCycle, schedqtest.GroupKey(op.Group)) {
			return "AddAttemptedPodGroupIfNeeded of a group whose cycle is not open: declared"
		}
	}
	return ""
}
