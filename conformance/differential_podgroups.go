package conformance

import (
	"cmp"
	"slices"
	"strings"

	"pgregory.net/rapid"

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
// And four findings of these runs, each declared for v1.37.2 with a
// scenario of conformance/testdata/podgroups (named below): Activate of a member
// in flight, its group known, when its group's queued entity does not move
// to activeQ (it is in activeQ already, or PreEnqueue gates it again in
// unschedulablePods), records a ForceActivate for the member in the
// in-flight list upstream (activate reports no move, so Activate falls
// through to addEventsIfPodInFlight: v1.37.2 scheduling_queue.go:986-994),
// and nothing in the model (G7). A member's failure replays nothing (G4),
// so only the in-flight list differs
// (G7-activate-of-a-member-in-flight-records-no-event).
//
// And a second one: PopEntity of a group puts its members in flight, and
// their markers in the in-flight list, in the order upstream keeps a
// group's members (framework.PodGroupMemberPodsOrderingFunc: priority
// descending, then attempts descending, Timestamp, name), where the model
// takes them in key order. No event can come between markers of one Pop,
// so the order changes no decision; the runs pop a group only when the two
// orders agree (upstreamMemberOrder; G3-pop-puts-members-in-flight-in-key-order).
//
// And a third: Update of a member in flight whose PodGroup object is gone
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
// And a fourth, which changes what Pop returns: UpdatePodGroup of a group
// whose entity waits in activeQ (or backoffQ) changes the entity's
// PodGroup, and so its priority, in place, without fixing the heap
// (v1.37.2 scheduling_queue.go:1611-1618, rootInfo.UpdatePodGroup): a
// group whose priority rose stays behind a pod it now precedes, and a
// heap whose element changed key no longer keeps its order. The model
// ranks the entity by its group's new priority
// (G11-an-update-of-a-queued-group-reorders-activeQ).
func init() {
	d := drawings[spec.ProfileHints]
	d.test, d.scenario = "differential-podgroups", "model-differential random runs (podgroups)"
	d.rules = []spec.Rule{"G1-G11"}
	// The profile leaves the metrics of entities out of its contract
	// (spec.PodGroupQueue): none is compared (driver.begin).
	d.metrics = ""
	d.addAgain = []spec.Location{spec.Nowhere}
	d.more = podGroupActions
	drawings[spec.ProfilePodGroups] = d
}

// diffGroups are the pod groups of the random runs.
var diffGroups = []string{"g1", "g2"}

// podGroupActions adds the podgroups profile's actions to the generator's
// and replaces its add, pop, fail, activate and update, which must stay
// away from what the comment above lists.
func podGroupActions(g *generator, dr drawing, actions map[string]func(*rapid.T)) {
	state := func() *spec.PodGroupsState { return g.d.shadow.Model.Snapshot().PodGroups }
	known := func(name string) bool {
		_, ok := state().Known(schedqtest.GroupKey(name))
		return ok
	}
	group := rapid.SampledFrom(diffGroups)
	prio := rapid.SampledFrom([]int32{0, 1, 3})
	actions["add"] = func(rt *rapid.T) {
		n := rapid.SampledFrom(diffNames).Draw(rt, "pod")
		if g.where(n) != spec.Nowhere {
			rt.Skip("an Add of a pod the queue holds is a declared difference")
		}
		op := schedqtest.Op{Kind: schedqtest.KindAdd, Pod: rapid.SampledFrom(dr.shapes).Draw(rt, "shape")}
		op.Pod.Name = n
		if p := int32(rapid.IntRange(0, 2).Draw(rt, "priority")); p != 0 {
			op.Pod.Priority = &p
		}
		// Two of three pods are members: groups of a few members.
		if k := rapid.IntRange(0, 2).Draw(rt, "member"); k > 0 {
			gr := diffGroups[k-1]
			op.Pod.Group = &gr
		}
		g.do(rt, op)
	}
	actions["activate"] = func(rt *rapid.T) {
		n := rapid.SampledFrom(diffNames).Draw(rt, "pod")
		if g.where(n) == spec.InFlight {
			snap := g.d.shadow.Model.Snapshot()
			_, info := snap.Find(schedqtest.Key(n))
			k := info.Pod.GroupKey()
			e, queued := state().Entity(k)
			_, isKnown := state().Known(k)
			if k != "" && isKnown && queued && e.Place != spec.InBackoffQ {
				rt.Skip("Activate of a member in flight while its group's entity does not move: a finding (above)")
			}
		}
		g.do(rt, schedqtest.Op{Kind: schedqtest.KindActivate, Pods: []schedqtest.PodRef{{Name: n}}})
	}
	actions["fail"] = func(rt *rapid.T) {
		snap := g.d.shadow.Model.Snapshot()
		var names []string
		for i := range snap.InFlight {
			info := &snap.InFlight[i]
			k := info.Pod.GroupKey()
			if k == "" && len(snap.PodGroups.InCycle) > 0 {
				continue // clears upstream's marker: declared
			}
			_, queued := snap.PodGroups.Entity(k)
			_, known := snap.PodGroups.Known(k)
			if k != "" && known && !queued && !slices.Contains(snap.PodGroups.InCycle, k) {
				continue // a new entity with the member's history: declared
			}
			names = append(names, info.Pod.Name)
		}
		if len(names) == 0 {
			rt.Skip("nothing in flight that may fail here")
		}
		op := schedqtest.Op{Kind: schedqtest.KindFail, Pod: schedqtest.PodRef{Name: rapid.SampledFrom(names).Draw(rt, "failed")}}
		if ps := rapid.SliceOfNDistinct(rapid.SampledFrom(dr.plugins), 0, 2, rapid.ID).Draw(rt, "plugins"); len(ps) > 0 {
			op.Plugins = ps
		}
		if dr.pending && rapid.IntRange(0, 3).Draw(rt, "pending?") == 0 {
			op.Pending = rapid.SliceOfNDistinct(rapid.SampledFrom(dr.plugins), 1, 1, rapid.ID).Draw(rt, "pending")
		}
		g.do(rt, op)
	}
	actions["update"] = func(rt *rapid.T) {
		n := rapid.SampledFrom(diffNames).Draw(rt, "pod")
		if g.where(n) == spec.InFlight {
			snap := g.d.shadow.Model.Snapshot()
			_, info := snap.Find(schedqtest.Key(n))
			if k := info.Pod.GroupKey(); k != "" && !known(strings.TrimPrefix(string(k), schedqtest.Namespace+"/")) {
				rt.Skip("Update of a member in flight whose group is unknown: a finding (above)")
			}
		}
		op := schedqtest.Op{Kind: schedqtest.KindUpdate, Pod: schedqtest.PodRef{Name: n}}
		if op.Pod.Labels = rapid.SampledFrom(dr.updates).Draw(rt, "labels"); op.Pod.Labels == nil {
			op.Touch = true
		}
		if _, nw := g.d.shadow.Exec.UpdatePods(op); g.where(n) == spec.Nowhere && nw.Group != "" && !known(nw.Group) {
			rt.Skip("Update of a member the queue does not hold, its group unknown: a finding (above)")
		}
		g.do(rt, op)
	}
	actions["pop"] = func(rt *rapid.T) {
		cands := g.d.shadow.Model.EntityCandidates()
		if len(cands) == 0 {
			rt.Skip("PopEntity would block")
		}
		snap := g.d.shadow.Model.Snapshot()
		if len(snap.PodGroups.InCycle) > 0 {
			rt.Skip("a Pop while a group's cycle is open overwrites upstream's single marker: declared")
		}
		for _, c := range cands {
			if !upstreamMemberOrder(&snap, c) {
				rt.Skip("a group whose members upstream puts in flight in another order than the model: a finding (above)")
			}
		}
		g.do(rt, schedqtest.Op{Kind: schedqtest.KindPop})
	}
	actions["podgroup-add"] = func(rt *rapid.T) {
		n := group.Draw(rt, "group")
		if known(n) {
			rt.Skip("AddPodGroup of a known group is bad input")
		}
		now, waiting := g.d.shadow.Model.Now(), 0
		for _, m := range state().IncompletePodGroupPods {
			if m.Pod.Group != n {
				continue
			}
			if waiting++; waiting > 1 || !m.Timestamp.Equal(now) || m.Attempts > 0 || !m.InitialAttemptTimestamp.IsZero() {
				rt.Skip("AddPodGroup releasing members in map order, or with a Timestamp from before now, is a declared difference")
			}
		}
		g.do(rt, schedqtest.Op{Kind: schedqtest.KindPodGroupAdd, Group: n, GroupPriority: prio.Draw(rt, "groupPriority")})
	}
	actions["podgroup-update"] = func(rt *rapid.T) {
		n := group.Draw(rt, "group")
		if !known(n) {
			rt.Skip("UpdatePodGroup of an unknown group is a declared difference")
		}
		if e, ok := state().Entity(schedqtest.GroupKey(n)); ok && (e.Place == spec.InActiveQ || e.Place == spec.InBackoffQ) {
			rt.Skip("UpdatePodGroup of a group queued in a heap: a finding (above)")
		}
		g.do(rt, schedqtest.Op{Kind: schedqtest.KindPodGroupUpdate, Group: n, GroupPriority: prio.Draw(rt, "groupPriority")})
	}
	actions["podgroup-delete"] = func(rt *rapid.T) {
		n := group.Draw(rt, "group")
		if !known(n) {
			rt.Skip("DeletePodGroup of an unknown group is bad input")
		}
		g.do(rt, schedqtest.Op{Kind: schedqtest.KindPodGroupDelete, Group: n})
	}
	actions["attempted"] = func(rt *rapid.T) {
		var open []string
		for _, k := range state().InCycle {
			if _, ok := g.d.shadow.Exec.PoppedGroup(k); ok {
				open = append(open, string(k))
			}
		}
		if len(open) == 0 {
			rt.Skip("no group's cycle is open")
		}
		k := spec.PodGroupKey(rapid.SampledFrom(open).Draw(rt, "group"))
		name := schedqtest.EntityName(spec.GroupEntityKey(k))[len("group:"):]
		st := rapid.SampledFrom([]spec.AttemptStatus{spec.AttemptSuccess, spec.AttemptRejected, spec.AttemptError}).Draw(rt, "status")
		g.do(rt, schedqtest.Op{Kind: schedqtest.KindAttempted, Group: name, Status: st})
	}
}

// upstreamMemberOrder reports whether entity k, if a group, has its
// members in the same order by key (the model's) as by upstream's
// ordering of a group's members: priority descending, attempts
// descending, Timestamp ascending, name.
func upstreamMemberOrder(s *spec.Snapshot, k spec.EntityKey) bool {
	e, ok := s.PodGroups.Entity(spec.PodGroupKey(strings.TrimPrefix(string(k), "group:")))
	if !ok || !strings.HasPrefix(string(k), "group:") {
		return true
	}
	infos := make([]spec.QueuedPodInfo, len(e.Members))
	for i, m := range e.Members {
		_, infos[i] = s.Find(m)
	}
	return slices.IsSortedFunc(infos, func(a, b spec.QueuedPodInfo) int {
		switch {
		case a.Pod.Priority != b.Pod.Priority:
			return cmp.Compare(b.Pod.Priority, a.Pod.Priority)
		case a.Attempts != b.Attempts:
			return cmp.Compare(b.Attempts, a.Attempts)
		case !a.Timestamp.Equal(b.Timestamp):
			return a.Timestamp.Compare(b.Timestamp)
		}
		return strings.Compare(a.Pod.Name, b.Pod.Name)
	})
}
