package impl

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/schedq/schedq/spec"
)

// This file is the podgroups profile (spec.ProfilePodGroups, rules G1-G14
// on spec.PodGroupQueue): the hints profile plus pod groups. A pod that
// names no group goes through the hints profile untouched. A queued group
// is one entity at one of the queue's places, kept here, never in the
// queue's heaps or unschedulablePods; the members of a group not queued
// wait in pendingPodGroupPods or incompletePodGroupPods. A member has an
// entry like any pod, indexed by key and UID (so I1, Done and the
// nominator need nothing new), whose loc names the group place holding
// it; in flight it is an ordinary in-flight entry with its marker (R15).
//
// The profile decides and queue.go applies, as for the other profiles: a
// failed or added member goes to inEntity, and a group operation returns
// a decision (an entity, where it goes, its members' PreEnqueue verdicts);
// put moves a member, putGroup an entity. The profile keeps the groups'
// state and the entities' places (join, settle and wait, which put and
// putGroup call as they call heap.go for activeQ). queue.go reaches all
// of it through profile's groupRules, never by this type's name; only the
// operations of spec.PodGroupQueue, at the end of this file, need it.

// podgroupsProfile is the hints profile (its rules for a pod alone, and
// for the members' hints and PreEnqueue) plus the state of the pod groups.
type podgroupsProfile struct {
	*hints
	objects  map[spec.PodGroupKey]*spec.PodGroup
	entities map[spec.PodGroupKey]*gentity
	inCycle  map[spec.PodGroupKey]bool
	// waiting are the members in pendingPodGroupPods and
	// incompletePodGroupPods, by group; each entry's loc says which.
	waiting map[spec.PodGroupKey]map[spec.PodKey]*entry
	// at indexes entities by their place (inActiveQ, inBackoffQ,
	// inUnschedulablePods), so that Pop's choice, the backoff flush and a
	// move each read only the entities of their own place, not every
	// group of the queue.
	at map[place]map[spec.PodGroupKey]*gentity
	// parked indexes the entities of unschedulablePods by the plugin that
	// gates them (only PreEnqueue parks a group, G2), so that a move
	// request reads only the groups whose gate the event may concern.
	parked map[string]map[spec.PodGroupKey]*gentity
	seq    uint64
}

// gentity is a queued group entity.
type gentity struct {
	key     spec.PodGroupKey
	place   place // inActiveQ, inBackoffQ or inUnschedulablePods
	params  spec.EntityParams
	members []*entry // sorted by key
	seq     uint64   // when it entered activeQ: ties go to the earlier
	// parkedAs is the gate it is indexed under in parked while in
	// unschedulablePods.
	parkedAs string
}

// decision is the profile's verdict for one entity: where it goes, and
// its members' PreEnqueue verdicts (refused[i] for members[i], "":
// admitted; empty, not nil: every member admitted; nil: not examined,
// its gate as it was; unasked[i]: PreEnqueue stopped before members[i],
// G12, which keeps its gate as it was). The zero decision moves nothing.
type decision struct {
	ent     *gentity
	to      place
	refused []string
	unasked []bool
}

func newPodGroups(cfg *spec.Config) *podgroupsProfile {
	g := &podgroupsProfile{hints: newHints(cfg), objects: map[spec.PodGroupKey]*spec.PodGroup{},
		entities: map[spec.PodGroupKey]*gentity{}, inCycle: map[spec.PodGroupKey]bool{},
		waiting: map[spec.PodGroupKey]map[spec.PodKey]*entry{}, at: map[place]map[spec.PodGroupKey]*gentity{},
		parked: map[string]map[spec.PodGroupKey]*gentity{}}
	for _, pl := range []place{inActiveQ, inBackoffQ, inUnschedulablePods} {
		g.at[pl] = map[spec.PodGroupKey]*gentity{}
	}
	return g
}

var _ spec.PodGroupQueue = (*PriorityQueue)(nil)

// member is G1 for pod, e being the entry held under its key (nil if
// none): pod names a group, or e holds a member. The queue keeps its own
// object (R8), so a caller's stale object without the group does not make
// a member a pod alone.
func (g *podgroupsProfile) member(pod *spec.Pod, e *entry) bool {
	return pod.Group != "" || e != nil && e.info.Pod.Group != ""
}

// --- D1-D7 where a member differs ---

// added (D6) is R1h for a pod alone; a member joins its group (G2).
func (g *podgroupsProfile) added(e *entry, from place, update bool) move {
	if e.info.Pod.Group != "" {
		return move{to: inEntity}
	}
	return g.hints.added(e, from, update)
}

// failed (D1) is R3h for a pod alone and G4 for a member: one count, as
// R3h and before the branch on membership (as upstream); then a pod alone
// is requeued as in the hints profile, and a member, its flight ended
// with no replay, joins its group as by G2.
func (g *podgroupsProfile) failed(v view, e *entry, flightUID spec.UID, _ int64) move {
	countFailure(e.info.hf(), e.info.rejected())
	if e.info.Pod.Group == "" {
		return g.requeue(v, e, flightUID)
	}
	if flightUID != "" {
		g.leave(e, flightUID)
	}
	return move{to: inEntity}
}

// popFrom (D4) is R2h over entities (G3): the next entity is a group when
// a group's entity in activeQ precedes the first pod of activeQ (ties go
// to the pod: any maximal entity is allowed).
func (g *podgroupsProfile) popFrom(v view) place {
	b := g.best()
	if b == nil {
		return g.hints.popFrom(v)
	}
	if v.activeQHasPods() {
		first := v.q.activeQ.min().info.full()
		order := spec.GroupOrderInfo(g.objects[b.key], &b.params)
		if !spec.Less(&order, &first) {
			return inActiveQ
		}
	}
	return groupNext
}

// best is the entity of activeQ Pop would take: a maximal one, the
// earliest to enter activeQ among ties.
func (g *podgroupsProfile) best() *gentity {
	var b *gentity
	var bo spec.QueuedPodInfo
	for _, e := range g.at[inActiveQ] {
		o := spec.GroupOrderInfo(g.objects[e.key], &e.params)
		if b == nil || spec.Less(&o, &bo) || !spec.Less(&bo, &o) && e.seq < b.seq {
			b, bo = e, o
		}
	}
	return b
}

// snapshot adds the in-flight list, the members to their places and the
// pod-group state to s.
func (g *podgroupsProfile) snapshot(s *spec.Snapshot) {
	g.hints.snapshot(s)
	st := &spec.PodGroupsState{}
	for _, k := range slices.Sorted(maps.Keys(g.objects)) {
		st.PodGroups = append(st.PodGroups, *g.objects[k])
	}
	for _, k := range slices.Sorted(maps.Keys(g.entities)) {
		ent := g.entities[k]
		pe := spec.PodGroupEntity{Group: k, Place: spec.Location(ent.place), EntityParams: ent.params}
		for _, m := range ent.members {
			pe.Members = append(pe.Members, m.info.Key())
			snapshotAt(s, ent.place, m)
		}
		st.Entities = append(st.Entities, pe)
	}
	st.InCycle = slices.Sorted(maps.Keys(g.inCycle))
	for _, ws := range g.waiting {
		for _, e := range ws {
			info := e.info.full()
			info.UnschedulablePlugins = slices.Clone(info.UnschedulablePlugins)
			info.PendingPlugins = slices.Clone(info.PendingPlugins)
			if e.loc == inPending {
				st.PendingPodGroupPods = append(st.PendingPodGroupPods, info)
			} else {
				st.IncompletePodGroupPods = append(st.IncompletePodGroupPods, info)
			}
		}
	}
	sortByKey(st.PendingPodGroupPods)
	sortByKey(st.IncompletePodGroupPods)
	s.PodGroups = st
}

// check verifies the hints profile's in-flight list and the groups: every
// indexed member at one of the group places is where the profile keeps
// it, and every member the profile keeps is indexed there (IG1).
func (g *podgroupsProfile) check(keyed map[*entry]bool, bad func(string, ...any)) {
	g.hints.check(keyed, bad)
	held := map[*entry]bool{}
	for pl, ents := range g.at {
		for k, ent := range ents {
			if g.entities[k] != ent || ent.place != pl {
				bad("entity %s is indexed in %d but is in %d", k, pl, ent.place)
			}
		}
	}
	for gate, ents := range g.parked {
		for k, ent := range ents {
			if g.at[inUnschedulablePods][k] != ent || ent.params.GatingPlugin != gate {
				bad("entity %s is indexed as parked by %q but is in %d, gated by %q", k, gate, ent.place, ent.params.GatingPlugin)
			}
		}
	}
	for k, ent := range g.entities {
		if g.at[ent.place][k] != ent {
			bad("entity %s in %d: the index by place disagrees", k, ent.place)
		}
		if ent.key != k || len(ent.members) == 0 || g.objects[k] == nil {
			bad("IG1: entity %s: key %s, %d members, object known %v", k, ent.key, len(ent.members), g.objects[k] != nil)
		}
		for i, m := range ent.members {
			if m.loc != inEntity || m.info.Pod.GroupKey() != k || held[m] {
				bad("IG1: member %s of entity %s is at %d, of group %s, or twice", describe(m), k, m.loc, m.info.Pod.GroupKey())
			}
			if i > 0 && compareKeys(ent.members[i-1].info.Pod, m.info.Pod) >= 0 {
				bad("entity %s: members not sorted at %s", k, describe(m))
			}
			held[m] = true
		}
	}
	for k, ws := range g.waiting {
		for pk, e := range ws {
			if e.info.Key() != pk || e.info.Pod.GroupKey() != k || (e.loc != inPending && e.loc != inIncomplete) || held[e] {
				bad("IG1: waiting member %s of group %s at %d", describe(e), k, e.loc)
			}
			held[e] = true
		}
	}
	for e := range keyed {
		if e.loc.grouped() != held[e] {
			bad("IG1: %s at %d: indexed and held by the profile disagree", describe(e), e.loc)
		}
	}
}

// --- the group decisions; they read, and change only the groups' own
// state (members joining and leaving, cycles), never a place ---

// admitEntity is G2's way towards to: PreEnqueue (R17) runs for each
// member of ent, in key order (G12 with PodGroupsV138: in MemberOrder up
// to the first refused); putGroup gates the entity by the first member
// refused.
func (g *podgroupsProfile) admitEntity(ent *gentity, to place) decision {
	if g.cfg.PodGroupsV138 {
		refused, unasked := g.firstRefusal(ent)
		return decision{ent, to, refused, unasked}
	}
	return decision{ent, to, g.refusals(ent), nil}
}

// refusals runs the PreEnqueue plugins (caller code) for each member of
// ent and returns, member by member, the plugin that refuses it ("":
// admitted), or allAdmitted if none refuses. It changes nothing. A member
// joining a queued group re-admits the group, which asks every member
// again, as upstream's re-queue of the group does: so the verdicts cost
// nothing to keep while every member passes (no plugin at all, the
// common case, asks nothing), and allocate only once one is refused.
func (g *podgroupsProfile) refusals(ent *gentity) []string {
	if len(g.names) == 0 {
		return allAdmitted
	}
	var out []string
	for i, m := range ent.members {
		if name := g.preEnqueue(m.info.Pod, m.info.gating()); name != "" {
			if out == nil {
				out = make([]string, len(ent.members))
			}
			out[i] = name
		}
	}
	if out == nil {
		return allAdmitted
	}
	return out
}

// allAdmitted is refusals' verdict when no member is refused.
var allAdmitted = []string{}

// firstRefusal is G12: refusals in spec.MemberOrder, stopping at the first
// member refused; unasked marks the members after it (nil if none).
func (g *podgroupsProfile) firstRefusal(ent *gentity) (refused []string, unasked []bool) {
	if len(g.names) == 0 {
		return allAdmitted, nil
	}
	order := make([]int, len(ent.members))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		x, y := ent.members[a].info.full(), ent.members[b].info.full()
		return spec.MemberOrder(&x, &y)
	})
	refused = make([]string, len(ent.members))
	for n, i := range order {
		m := ent.members[i]
		if refused[i] = g.preEnqueue(m.info.Pod, m.info.gating()); refused[i] != "" {
			if rest := order[n+1:]; len(rest) > 0 {
				unasked = make([]bool, len(ent.members))
				for _, j := range rest {
					unasked[j] = true
				}
			}
			break
		}
	}
	return refused, unasked
}

// replace decides ent's place again after a member joined or left, by
// the place it was in (G2, G8); with no member left it leaves the queue.
func (g *podgroupsProfile) replace(ent *gentity, now time.Time) decision {
	switch {
	case len(ent.members) == 0:
		g.drop(ent)
		return decision{}
	case ent.place == inUnschedulablePods:
		return decision{ent: ent, to: inUnschedulablePods}
	case ent.place == inBackoffQ && spec.GroupIsBackingOff(ent.params.BackoffExpiry, now):
		return g.admitEntity(ent, inBackoffQ)
	}
	return g.admitEntity(ent, inActiveQ)
}

// leaveGroup takes e, a member at one of the group places, out of its
// group (G8); its entity's place is decided again.
func (g *podgroupsProfile) leaveGroup(e *entry, now time.Time) decision {
	k := e.info.Pod.GroupKey()
	switch e.loc {
	case inPending, inIncomplete:
		delete(g.waiting[k], e.info.Key())
		if len(g.waiting[k]) == 0 {
			delete(g.waiting, k)
		}
	case inEntity:
		ent := g.entities[k]
		ent.members = slices.DeleteFunc(ent.members, func(m *entry) bool { return m == e })
		e.loc = nowhere
		return g.replace(ent, now)
	}
	return decision{}
}

// groupMoves is G10's first phase: which parked entities occ moves, where,
// and what PreEnqueue says of their members. It only reads: the hints,
// the caller's keep and the PreEnqueue plugins may panic, and the move
// request is all or nothing (moveRequest). keep selects by members; for
// the leftover flush (stamp) entities are taken by their own age instead.
func (g *podgroupsProfile) groupMoves(occ spec.Occurrence, now time.Time, keep func(*entry) bool, stamp bool, n *narrowed, named []spec.PodGroupKey) []decision {
	var out []decision
	consider := func(ent *gentity) {
		if stamp {
			if !g.old(ent, now) {
				return
			}
		} else if !slices.ContainsFunc(ent.members, keep) {
			return
		}
		if to := g.strategyPlace(ent, occ, n, now); to != nowhere {
			out = append(out, g.admitEntity(ent, to))
		}
	}
	if n != nil && !n.AllPods {
		// G14: only the parked entities of the named members' groups,
		// each once: in proportion to the named pods, not to the parked
		// entities.
		slices.Sort(named)
		for _, k := range slices.Compact(named) {
			ent := g.entities[k]
			if ent == nil || ent.place != inUnschedulablePods {
				continue
			}
			if gp := ent.params.GatingPlugin; gp != "" && !g.cfg.GatingEventMatches(gp, occ.Event) {
				continue
			}
			consider(ent)
		}
	} else {
		for gp, ents := range g.parked {
			if gp != "" && !g.cfg.GatingEventMatches(gp, occ.Event) {
				continue // no group its gate parks is examined
			}
			for _, ent := range ents {
				consider(ent)
			}
		}
	}
	// In key order, so that the groups entering activeQ together tie
	// there in the same order on every run.
	slices.SortFunc(out, func(a, b decision) int { return strings.Compare(string(a.ent.key), string(b.ent.key)) })
	return out
}

// strategyPlace is where G10's strategy for occ sends ent (nowhere: it
// stays), each member asking only the rejectors n allows (R22, G14; nil:
// every rejector).
func (g *podgroupsProfile) strategyPlace(ent *gentity, occ spec.Occurrence, n *narrowed, now time.Time) place {
	// G13 (spec.Config.GatedEntityStrategy): a gated entity's members
	// without rejectors are skipped, unless no member is gated any more.
	skipping := g.cfg.PodGroupsV138 && ent.params.Gated()
	var sawGated, skipped bool
	best := spec.StrategySkip
	for _, m := range ent.members {
		if m.info.gating() != "" {
			sawGated = true
		}
		if skipping && !m.info.rejected() {
			skipped = true
			continue
		}
		best = max(best, g.narrowedStrategy(&m.info, occ, n))
	}
	if skipping && !sawGated && skipped {
		best = max(best, spec.StrategyAfterBackoff)
	}
	switch {
	case best == spec.StrategySkip:
		return nowhere
	case best == spec.StrategyAfterBackoff && spec.GroupIsBackingOff(ent.params.BackoffExpiry, now):
		return inBackoffQ
	}
	return inActiveQ
}

// old is R6h's age test for an entity.
func (g *podgroupsProfile) old(ent *gentity, now time.Time) bool {
	last := ent.params.Timestamp
	if ent.params.FlushTimestamp.After(last) {
		last = ent.params.FlushTimestamp
	}
	return now.Sub(last) > g.cfg.PodMaxInUnschedulablePodsDuration
}

// anyOldGroup reports whether the leftover flush takes some entity.
func (g *podgroupsProfile) anyOldGroup(now time.Time) bool {
	for _, ent := range g.at[inUnschedulablePods] {
		if g.old(ent, now) {
			return true
		}
	}
	return false
}

// backedOffGroups is R5h for entities: those of backoffQ done backing off, in
// key order, for activeQ without PreEnqueue.
func (g *podgroupsProfile) backedOffGroups(now time.Time) []decision {
	var out []decision
	for _, k := range slices.Sorted(maps.Keys(g.at[inBackoffQ])) {
		if ent := g.entities[k]; !spec.GroupIsBackingOff(ent.params.BackoffExpiry, now) {
			out = append(out, decision{ent: ent, to: inActiveQ})
		}
	}
	return out
}

// activateMember is G7 for an Activate of member p (e the entry of its key,
// nil if none): its group's entity leaves unschedulablePods (through
// PreEnqueue) or backoffQ for activeQ; a member in flight gets the hints
// profile's ForceActivate record.
func (g *podgroupsProfile) activateMember(p *spec.Pod, e *entry) decision {
	k := p.GroupKey()
	if e != nil && e.info.Pod.Group != "" {
		k = e.info.Pod.GroupKey()
	}
	if g.objects[k] == nil {
		return decision{}
	}
	ent, ok := g.entities[k]
	switch {
	case !ok:
		g.activatedOther(e, p)
	case ent.place == inUnschedulablePods:
		return g.admitEntity(ent, inActiveQ)
	case ent.place == inBackoffQ:
		return decision{ent: ent, to: inActiveQ}
	}
	return decision{}
}

// checkUpdate is G9's precondition: a member's group never changes. e is
// the entry of the key, nil if none.
func (g *podgroupsProfile) checkUpdate(e *entry, oldPod, newPod *spec.Pod) error {
	held := oldPod.Group
	if e != nil {
		held = e.info.Pod.Group
	}
	if oldPod.Group != newPod.Group || held != newPod.Group {
		return fmt.Errorf("%w: Update of %s changes its pod group from %q to %q", spec.ErrInvalidPod, newPod.Key(), held, newPod.Group)
	}
	return nil
}

// updatedMember is G9 for a member at one of the group places (its entry
// already holds newPod): the first event of the update whose strategy
// moves a parked entity sends it on, through PreEnqueue. (PreEnqueue is
// a function of the members, so an entity it keeps parked stays parked
// whatever the later events say.)
func (g *podgroupsProfile) updatedMember(e *entry, oldPod, newPod *spec.Pod, change *spec.PodChange, now time.Time) decision {
	if e.loc != inEntity {
		return decision{}
	}
	ent := g.entities[newPod.GroupKey()]
	if ent.place != inUnschedulablePods {
		return decision{}
	}
	for _, ev := range updateEvents(oldPod, newPod, change) {
		if to := g.strategyPlace(ent, spec.Occurrence{Event: ev, Old: oldPod, New: newPod}, nil, now); to != nowhere {
			return g.admitEntity(ent, to)
		}
	}
	return decision{}
}

// --- the group places, kept for put and putGroup (queue.go) ---

// join is put's part for e, a detached member bound for its group (G2):
// it waits in incompletePodGroupPods while its group is unknown, in
// pendingPodGroupPods while its group's cycle is open, else it joins its
// group's entity, or a new one, whose place the decision says.
func (g *podgroupsProfile) join(e *entry, now time.Time) decision {
	k := e.info.Pod.GroupKey()
	ent, queued := g.entities[k]
	switch {
	case g.objects[k] == nil:
		g.wait(e, inIncomplete)
	case queued:
		i, _ := slices.BinarySearchFunc(ent.members, e, func(a, b *entry) int { return compareKeys(a.info.Pod, b.info.Pod) })
		ent.members = slices.Insert(ent.members, i, e)
		return g.replace(ent, now)
	case g.inCycle[k]:
		g.wait(e, inPending)
	default:
		// Room for a small group's members: they join one by one.
		ent := &gentity{key: k, members: append(make([]*entry, 0, minGroupRoom), e), params: spec.EntityParams{Timestamp: now}}
		return g.admitEntity(ent, inActiveQ)
	}
	return decision{}
}

// minGroupRoom is the room a new entity makes for its members.
const minGroupRoom = 8

// wait puts e, detached, in pendingPodGroupPods or
// incompletePodGroupPods (loc).
func (g *podgroupsProfile) wait(e *entry, loc place) {
	k := e.info.Pod.GroupKey()
	if g.waiting[k] == nil {
		g.waiting[k] = map[spec.PodKey]*entry{}
	}
	g.waiting[k][e.info.Key()] = e
	e.loc = loc
}

// waiters removes and returns, sorted by key, group k's members at loc.
func (g *podgroupsProfile) waiters(k spec.PodGroupKey, loc place) []*entry {
	var out []*entry
	for pk, e := range g.waiting[k] {
		if e.loc == loc {
			out = append(out, e)
			delete(g.waiting[k], pk)
		}
	}
	if len(g.waiting[k]) == 0 {
		delete(g.waiting, k)
	}
	slices.SortFunc(out, func(a, b *entry) int { return compareKeys(a.info.Pod, b.info.Pod) })
	return out
}

// settle is putGroup's part: ent is at to, indexed there (in place of
// any entity of its key), its members with it; entering activeQ it takes
// the next seq.
func (g *podgroupsProfile) settle(ent *gentity, to place) {
	old := g.entities[ent.key]
	if old == ent && ent.place == to && to != inUnschedulablePods {
		// A member joined a queued entity that stays where it is: the
		// indexes hold it already (parked entities are indexed by their
		// gate, which may have changed).
	} else {
		if old != nil {
			g.unindex(old) // ent itself, or an entity of the key ent replaces
		}
		ent.place = to
		g.entities[ent.key] = ent
		g.index(ent)
	}
	for _, m := range ent.members {
		m.loc = inEntity
	}
	if to == inActiveQ {
		g.seq++
		ent.seq = g.seq
	}
}

// drop takes ent out of the queue's entities.
func (g *podgroupsProfile) drop(ent *gentity) {
	delete(g.entities, ent.key)
	g.unindex(ent)
}

// index and unindex keep at and parked in step with ent's place.
func (g *podgroupsProfile) index(ent *gentity) {
	g.at[ent.place][ent.key] = ent
	if ent.place == inUnschedulablePods {
		ent.parkedAs = ent.params.GatingPlugin
		if g.parked[ent.parkedAs] == nil {
			g.parked[ent.parkedAs] = map[spec.PodGroupKey]*gentity{}
		}
		g.parked[ent.parkedAs][ent.key] = ent
	}
}

func (g *podgroupsProfile) unindex(ent *gentity) {
	delete(g.at[ent.place], ent.key)
	if ent.place == inUnschedulablePods {
		delete(g.parked[ent.parkedAs], ent.key)
		if len(g.parked[ent.parkedAs]) == 0 {
			delete(g.parked, ent.parkedAs)
		}
	}
}

// --- spec.PodGroupQueue ---

// podGroups is the queue's podgroups profile, or, in another profile,
// the error of the group operation op: the groups are that profile's state.
func (q *PriorityQueue) podGroups(op string) (*podgroupsProfile, error) {
	if g, ok := q.p.(*podgroupsProfile); ok {
		return g, nil
	}
	return nil, fmt.Errorf("%w: %s outside the podgroups profile", spec.ErrInvalidConfig, op)
}

// PopEntity is G3 of spec.PodGroupQueue: Pop over entities. It blocks
// while nothing may be taken, as Pop does.
func (q *PriorityQueue) PopEntity() (spec.QueuedEntity, int64, error) {
	g, err := q.podGroups("PopEntity")
	if err != nil {
		return spec.QueuedEntity{}, 0, err
	}
	q.mu.Lock()
	defer q.unlock()
	from, err := q.waitPop(nil)
	switch {
	case err != nil:
		return spec.QueuedEntity{}, 0, err
	case from == groupNext:
		return q.popGroup(g)
	}
	info, cycle, err := q.popLocked(from)
	return spec.QueuedEntity{Pod: info}, cycle, err
}

// popGroup is G3 for the best group entity of activeQ: its members go
// in flight together.
func (q *PriorityQueue) popGroup(g *podgroupsProfile) (spec.QueuedEntity, int64, error) {
	ent := g.best()
	g.drop(ent)
	ent.params.Attempts++
	out := &spec.QueuedPodGroupInfo{PodGroup: g.objects[ent.key], EntityParams: ent.params,
		Members: make([]spec.QueuedPodInfo, 0, len(ent.members))}
	for _, m := range ent.members {
		m.info.Attempts++
		token, _ := q.p.popped(m)
		q.put(m, move{to: inFlight}, time.Time{})
		m.pos = token
		info := m.info.full()
		info.UnschedulablePlugins = slices.Clone(info.UnschedulablePlugins)
		info.PendingPlugins = slices.Clone(info.PendingPlugins)
		out.Members = append(out.Members, info)
	}
	g.inCycle[ent.key] = true
	q.schedulingCycle++
	return spec.QueuedEntity{Group: out}, q.schedulingCycle, nil
}

// AddAttemptedPodGroupIfNeeded is G5 of spec.PodGroupQueue.
func (q *PriorityQueue) AddAttemptedPodGroupIfNeeded(gInfo *spec.QueuedPodGroupInfo, _ int64, status spec.AttemptStatus) error {
	g, err := q.podGroups("AddAttemptedPodGroupIfNeeded")
	if err != nil {
		return err
	}
	if err := gInfo.Validate(); err != nil {
		return err
	}
	if status < spec.AttemptSuccess || status > spec.AttemptError {
		return fmt.Errorf("%w: attempt status %v", spec.ErrInvalidPodGroup, status)
	}
	q.mu.Lock()
	defer q.unlock()
	k := gInfo.Key()
	if ent, ok := g.entities[k]; ok {
		return fmt.Errorf("%w: pod group %s is already present in %s", spec.ErrAlreadyQueued, k, ent.place)
	}
	delete(g.inCycle, k)
	pending := g.waiters(k, inPending)
	if len(pending) == 0 {
		return nil
	}
	now := q.clock.Now()
	if g.objects[k] == nil {
		for _, e := range pending {
			q.put(e, move{to: inIncomplete}, now)
		}
		return nil
	}
	ent := &gentity{key: k, members: pending, params: gInfo.EntityParams}
	ent.params.PendingPlugins = nil
	ent.params.FlushTimestamp = time.Time{}
	to := inActiveQ
	if status == spec.AttemptSuccess {
		ent.params.UnschedulableCount, ent.params.ConsecutiveErrorsCount = 0, 0
		ent.params.BackoffExpiry = time.Time{}
		if !slices.ContainsFunc(pending, func(e *entry) bool { return attemptedMember(gInfo, e.info.Pod.UID) }) {
			ent.params.Timestamp = now
		}
	} else {
		countFailure(&ent.params.HintFields, status == spec.AttemptRejected)
		ent.params.Timestamp = now
		ent.params.BackoffExpiry = q.cfg.GroupBackoffExpiry(&ent.params.HintFields, len(pending), now)
		if spec.GroupIsBackingOff(ent.params.BackoffExpiry, now) {
			to = inBackoffQ
		}
	}
	q.putGroup(g.admitEntity(ent, to), now)
	return nil
}

// attemptedMember reports whether uid is a member of the cycle gInfo
// ended. Read only when members wait pending, which is rare: a scan, not a
// set built for every cycle.
func attemptedMember(gInfo *spec.QueuedPodGroupInfo, uid spec.UID) bool {
	return slices.ContainsFunc(gInfo.Members, func(m spec.QueuedPodInfo) bool { return m.Pod.UID == uid })
}

// AddPodGroup is G11 of spec.PodGroupQueue.
func (q *PriorityQueue) AddPodGroup(pg *spec.PodGroup) error {
	g, err := q.podGroups("AddPodGroup")
	if err != nil {
		return err
	}
	if err := pg.Validate(); err != nil {
		return err
	}
	q.mu.Lock()
	defer q.unlock()
	k := pg.Key()
	if g.objects[k] != nil {
		return fmt.Errorf("%w: AddPodGroup of %s", spec.ErrPodGroupExists, k)
	}
	g.objects[k] = pg
	now := q.clock.Now()
	for _, e := range g.waiters(k, inIncomplete) {
		q.put(e, move{to: inEntity}, now)
	}
	return nil
}

// UpdatePodGroup is G11 of spec.PodGroupQueue.
func (q *PriorityQueue) UpdatePodGroup(oldPG, newPG *spec.PodGroup) error {
	g, err := q.podGroups("UpdatePodGroup")
	if err != nil {
		return err
	}
	if err := oldPG.Validate(); err != nil {
		return err
	}
	if err := newPG.Validate(); err != nil {
		return err
	}
	if oldPG.Key() != newPG.Key() {
		return fmt.Errorf("%w: UpdatePodGroup from %s to %s changes the key", spec.ErrInvalidPodGroup, oldPG.Key(), newPG.Key())
	}
	q.mu.Lock()
	defer q.unlock()
	if g.objects[newPG.Key()] == nil {
		return fmt.Errorf("%w: UpdatePodGroup of %s", spec.ErrPodGroupNotFound, newPG.Key())
	}
	g.objects[newPG.Key()] = newPG
	return nil
}

// DeletePodGroup is G11 of spec.PodGroupQueue.
func (q *PriorityQueue) DeletePodGroup(pg *spec.PodGroup) error {
	g, err := q.podGroups("DeletePodGroup")
	if err != nil {
		return err
	}
	if err := pg.Validate(); err != nil {
		return err
	}
	q.mu.Lock()
	defer q.unlock()
	k := pg.Key()
	if g.objects[k] == nil {
		return fmt.Errorf("%w: DeletePodGroup of %s", spec.ErrPodGroupNotFound, k)
	}
	delete(g.objects, k)
	now := q.clock.Now()
	for _, e := range g.waiters(k, inPending) {
		q.put(e, move{to: inIncomplete}, now)
	}
	if ent, ok := g.entities[k]; ok {
		g.drop(ent)
		for _, e := range ent.members {
			q.put(e, move{to: inIncomplete}, now)
		}
	}
	return nil
}
