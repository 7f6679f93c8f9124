package spec

import (
	"errors"
	"slices"
)

// CheckPodGroupsState checks the podgroups profile's state invariants: I1
// over every member wherever it waits (pendingPodGroupPods and
// incompletePodGroupPods included), I6, I7, and IG1, IG3 and IG4 (see
// PodGroupQueue).
func CheckPodGroupsState(s *Snapshot) error {
	return errors.Join(I1SingleQueueMembership(s), I6Cycles(s), I7InFlightEventsBounded(s), IGPodGroups(s))
}

// heldLocations maps every pod the queue holds to its place, members in
// pendingPodGroupPods and incompletePodGroupPods at Nowhere+1 and +2: the
// keys of held pods, for conservation.
func heldLocations(s *Snapshot) map[PodKey]Location {
	m := s.Locations()
	if s.PodGroups != nil {
		for i := range s.PodGroups.PendingPodGroupPods {
			m[s.PodGroups.PendingPodGroupPods[i].Key()] = -1
		}
		for i := range s.PodGroups.IncompletePodGroupPods {
			m[s.PodGroups.IncompletePodGroupPods[i].Key()] = -2
		}
	}
	return m
}

// IGPodGroups checks IG1, IG3 and IG4 on one state.
func IGPodGroups(s *Snapshot) error {
	g := s.PodGroups
	if g == nil {
		return broken("IG1", "the snapshot has no pod-group state")
	}
	locs := s.Locations()
	// The places were checked by I1: they seed the check of the two lists.
	seen := make(map[PodKey]string)
	uids := make(map[UID]PodKey)
	for _, pl := range s.Places() {
		for i := range pl.Pods {
			seen[pl.Pods[i].Key()] = pl.Loc.String()
			uids[pl.Pods[i].Pod.UID] = pl.Pods[i].Key()
		}
	}
	for _, l := range []struct {
		name string
		pods []QueuedPodInfo
	}{{"pendingPodGroupPods", g.PendingPodGroupPods}, {"incompletePodGroupPods", g.IncompletePodGroupPods}} {
		for i := range l.pods {
			if p := &l.pods[i]; p.Pod != nil && p.Pod.Group == "" {
				return broken("IG1", "pod %s names no group but waits in %s", p.Key(), l.name)
			}
		}
		if err := listMembership("IG1", l.name, l.pods, seen, uids); err != nil {
			return err
		}
	}
	for i := range g.PendingPodGroupPods {
		if p := &g.PendingPodGroupPods[i]; !slices.Contains(g.InCycle, p.Pod.GroupKey()) {
			return broken("IG3", "member %s waits in pendingPodGroupPods but the cycle of %s is not open", p.Key(), p.Pod.GroupKey())
		}
	}
	for i := range g.IncompletePodGroupPods {
		if p := &g.IncompletePodGroupPods[i]; func() bool { _, ok := g.Known(p.Pod.GroupKey()); return ok }() {
			return broken("IG1", "member %s waits in incompletePodGroupPods but its group %s is known", p.Key(), p.Pod.GroupKey())
		}
	}
	// Every queued member is in its group's entity, and the entity lists
	// exactly the members held in its place.
	inEntity := make(map[PodKey]PodGroupKey)
	for i, e := range g.Entities {
		if i > 0 && g.Entities[i-1].Group >= e.Group {
			return broken("IG1", "entities are not sorted, or %s has two", e.Group)
		}
		if _, ok := g.Known(e.Group); !ok {
			return broken("IG1", "entity of %s is queued but the group is unknown", e.Group)
		}
		if e.Place != InActiveQ && e.Place != InBackoffQ && e.Place != InUnschedulablePods {
			return broken("IG1", "entity of %s is in %s", e.Group, e.Place)
		}
		if len(e.Members) == 0 {
			return broken("IG1", "entity of %s has no member", e.Group)
		}
		if e.Place == InUnschedulablePods && !e.Gated() {
			return broken("IG4", "entity of %s waits in unschedulablePods but is not gated", e.Group)
		}
		for _, m := range e.Members {
			if locs[m] != e.Place {
				return broken("IG1", "member %s of the entity of %s (in %s) is in %s", m, e.Group, e.Place, locs[m])
			}
			inEntity[m] = e.Group
		}
	}
	for _, pl := range s.Places() {
		if pl.Loc == InFlight {
			continue
		}
		for i := range pl.Pods {
			p := &pl.Pods[i]
			gk := p.Pod.GroupKey()
			if gk == "" {
				continue
			}
			if inEntity[p.Key()] != gk {
				return broken("IG1", "member %s is in %s outside the entity of its group %s", p.Key(), pl.Loc, gk)
			}
		}
	}
	return nil
}

// CheckPodGroupsStep checks the podgroups profile's step invariants, and
// the state invariants of the state after the step: a failed operation
// changes nothing; only Add, Update and AddUnschedulableIfNotPresent add
// a pod (the one named) and only Delete and Done remove one; a Pop (R2,
// G3) grows schedulingCycle by one and nothing else does; IG2: a group
// popped has all its entity's members in flight and none left queued.
func CheckPodGroupsStep(cfg Config, before, after *Snapshot, step StepRecord) error {
	if step.Err != nil {
		return errors.Join(CheckPodGroupsState(after), unchangedByFailure(before, after, step))
	}
	al := heldLocations(after)
	errs := []error{CheckPodGroupsState(after), I6CyclesStep(before, after, step), heldChanges(step, heldLocations(before), al)}
	if step.Rule == G3PopGroup {
		e, ok := before.PodGroups.Entity(step.Group)
		switch {
		case !ok || e.Place != InActiveQ:
			errs = append(errs, broken("IG2", "PopEntity returned group %s, whose entity was not in activeQ", step.Group))
		default:
			for _, m := range e.Members {
				if al[m] != InFlight {
					errs = append(errs, broken("IG2", "PopEntity of %s left member %s in %s", step.Group, m, al[m]))
				}
			}
			if _, still := after.PodGroups.Entity(step.Group); still {
				errs = append(errs, broken("IG2", "PopEntity of %s left its entity queued", step.Group))
			}
			if !slices.Contains(after.PodGroups.InCycle, step.Group) {
				errs = append(errs, broken("IG3", "PopEntity of %s did not open its cycle", step.Group))
			}
		}
	}
	if step.Rule == G5GroupAttempt {
		for i := range after.PodGroups.PendingPodGroupPods {
			if p := &after.PodGroups.PendingPodGroupPods[i]; p.Pod.GroupKey() == step.Group {
				errs = append(errs, broken("IG3", "member %s still pending after the cycle of %s ended", p.Key(), step.Group))
			}
		}
	}
	return errors.Join(errs...)
}
