package impl

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/schedq/schedq/spec"
)

// This file is the podgroups profile (spec.ProfilePodGroups, rules G1-G11
// on spec.PodGroupQueue): the hints profile plus pod groups. A pod that
// names no group goes through the hints profile and the queue's own
// places untouched. The members of groups live in a layer of their own,
// groupLayer, under the queue's one mutex: the queue's heaps and
// unschedulablePods never hold a member. A member has an entry like any
// pod, indexed by key and UID (so I1's key and UID checks, Done and the
// nominator need nothing new), and its entry's loc says which of the
// layer's places holds it; in flight it is an ordinary in-flight entry
// with its marker (R15), and Done ends it as any pod.
//
// queue.go calls the layer at a few hooks (Add, Pop's choice, the failure
// of a member, a move request's two phases, the backoffQ and leftover
// flushes, Activate, Update, Delete, Snapshot), each a call guarded by
// groupLayer.owns or by the member's place; outside this profile the
// layer is nil and every hook is a nil check.

// The places of members, beyond spec's four: in a queued entity (the
// entity's place says which queue), in pendingPodGroupPods, in
// incompletePodGroupPods. groupNext is not a place: it is what popFrom
// answers when the next entity is a group.
const (
	inEntity     place = 20 + iota
	inPending          // pendingPodGroupPods
	inIncomplete       // incompletePodGroupPods
	groupNext
)

// podgroupsProfile is the hints profile with Pop's choice over entities;
// layer is the queue's groupLayer, for the consistency check.
type podgroupsProfile struct {
	*hints
	layer *groupLayer
}

// check verifies the hints profile's in-flight list and the layer: every
// indexed member at one of the layer's places is where the layer keeps
// it, and every member the layer keeps is indexed there (IG1).
func (p *podgroupsProfile) check(keyed map[*entry]bool, bad func(string, ...any)) {
	p.hints.check(keyed, bad)
	g := p.layer
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
		if g.holds(e) != held[e] {
			bad("IG1: %s at %d: indexed and held by the layer disagree", describe(e), e.loc)
		}
	}
}

// popFrom (D4) is R2h over entities (G3): the next entity is a group when
// a group's entity in activeQ precedes the first pod of activeQ (ties go
// to the pod: any maximal entity is allowed).
func (p *podgroupsProfile) popFrom(v view) place {
	g := v.q.groups.best()
	if g == nil {
		return p.hints.popFrom(v)
	}
	if v.activeQHasPods() {
		first := v.q.activeQ.min().info.full()
		order := spec.GroupOrderInfo(v.q.groups.objects[g.key], &g.params)
		if !spec.Less(&order, &first) {
			return inActiveQ
		}
	}
	return groupNext
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

// groupLayer holds the pod groups of a queue in the podgroups profile.
type groupLayer struct {
	q        *PriorityQueue
	h        *hints
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

// drop takes ent out of the queue's entities.
func (g *groupLayer) drop(ent *gentity) {
	delete(g.entities, ent.key)
	g.unindex(ent)
}

// index and unindex keep at and parked in step with ent's place.
func (g *groupLayer) index(ent *gentity) {
	g.at[ent.place][ent.key] = ent
	if ent.place == inUnschedulablePods {
		ent.parkedAs = ent.params.GatingPlugin
		if g.parked[ent.parkedAs] == nil {
			g.parked[ent.parkedAs] = map[spec.PodGroupKey]*gentity{}
		}
		g.parked[ent.parkedAs][ent.key] = ent
	}
}

func (g *groupLayer) unindex(ent *gentity) {
	delete(g.at[ent.place], ent.key)
	if ent.place == inUnschedulablePods {
		delete(g.parked[ent.parkedAs], ent.key)
		if len(g.parked[ent.parkedAs]) == 0 {
			delete(g.parked, ent.parkedAs)
		}
	}
}

// newGroupLayer returns the layer of q's profile: nil unless podgroups.
func newGroupLayer(q *PriorityQueue) *groupLayer {
	p, ok := q.p.(*podgroupsProfile)
	if !ok {
		return nil
	}
	p.layer = &groupLayer{q: q, h: p.hints, objects: map[spec.PodGroupKey]*spec.PodGroup{},
		entities: map[spec.PodGroupKey]*gentity{}, inCycle: map[spec.PodGroupKey]bool{},
		waiting: map[spec.PodGroupKey]map[spec.PodKey]*entry{}, at: map[place]map[spec.PodGroupKey]*gentity{},
		parked: map[string]map[spec.PodGroupKey]*gentity{}}
	for _, pl := range []place{inActiveQ, inBackoffQ, inUnschedulablePods} {
		p.layer.at[pl] = map[spec.PodGroupKey]*gentity{}
	}
	return p.layer
}

var _ spec.PodGroupQueue = (*PriorityQueue)(nil)

// owns is G1: pod is a member of a group and the queue runs this profile.
func (g *groupLayer) owns(pod *spec.Pod) bool { return g != nil && pod.Group != "" }

// ownsKey is owns, or the pod held under pod's key (e, nil if none) is a
// member: the queue keeps its own object (R8), so a caller's stale object
// without the group does not make a member a pod alone.
func (g *groupLayer) ownsKey(pod *spec.Pod, e *entry) bool {
	return g.owns(pod) || g != nil && e != nil && e.info.Pod.Group != ""
}

// holds reports whether e is in one of the layer's places.
func (g *groupLayer) holds(e *entry) bool {
	return g != nil && (e.loc == inEntity || e.loc == inPending || e.loc == inIncomplete)
}

// best is the entity of activeQ Pop would take: a maximal one, the
// earliest to enter activeQ among ties.
func (g *groupLayer) best() *gentity {
	if g == nil {
		return nil
	}
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

// --- placing members and entities ---

// admit runs PreEnqueue (R17) for each member of ent, in key order, and
// puts ent towards to, or gated in unschedulablePods by the first member
// refused (G2).
func (g *groupLayer) admit(ent *gentity, to place, now time.Time) {
	g.admitWith(ent, to, now, g.refusals(ent))
}

// refusals runs the PreEnqueue plugins (caller code) for each member of
// ent and returns, member by member, the plugin that refuses it ("":
// admitted). It changes nothing.
func (g *groupLayer) refusals(ent *gentity) []string {
	out := make([]string, len(ent.members))
	for i, m := range ent.members {
		out[i] = g.h.preEnqueue(m.info.Pod, m.info.gating())
	}
	return out
}

// admitWith is admit with the refusals already known.
func (g *groupLayer) admitWith(ent *gentity, to place, now time.Time, refused []string) {
	gate := ""
	for i, m := range ent.members {
		if name := refused[i]; name != "" {
			g.q.gate(m, name)
			if gate == "" {
				gate = name
			}
		} else if m.info.hints != nil {
			m.info.hints.GatingPlugin = ""
		}
	}
	ent.params.GatingPlugin = gate
	if gate != "" {
		to = inUnschedulablePods
	}
	g.put(ent, to, now)
}

// put places ent at to without PreEnqueue; entering activeQ readies a Pop.
func (g *groupLayer) put(ent *gentity, to place, now time.Time) {
	if old := g.entities[ent.key]; old != nil {
		g.unindex(old) // ent itself, or an entity of the key ent replaces
	}
	ent.place = to
	g.entities[ent.key] = ent
	g.index(ent)
	for _, m := range ent.members {
		m.loc = inEntity
	}
	if to != inActiveQ {
		return
	}
	g.seq++
	ent.seq = g.seq
	if ent.params.InitialAttemptTimestamp.IsZero() {
		ent.params.InitialAttemptTimestamp = now
	}
	for _, m := range ent.members {
		if m.info.InitialAttemptTimestamp.IsZero() {
			m.info.InitialAttemptTimestamp = now
		}
	}
	g.q.ready++
}

// replace places ent again after a member joined or left, by the place it
// was in (G2, G8); with no member left it leaves the queue.
func (g *groupLayer) replace(ent *gentity, now time.Time) {
	switch {
	case len(ent.members) == 0:
		g.drop(ent)
	case ent.place == inUnschedulablePods:
		g.put(ent, inUnschedulablePods, now)
	case ent.place == inBackoffQ && spec.GroupIsBackingOff(ent.params.BackoffExpiry, now):
		g.admit(ent, inBackoffQ, now)
	default:
		g.admit(ent, inActiveQ, now)
	}
}

func (g *groupLayer) wait(e *entry, loc place) {
	k := e.info.Pod.GroupKey()
	if g.waiting[k] == nil {
		g.waiting[k] = map[spec.PodKey]*entry{}
	}
	g.waiting[k][e.info.Key()] = e
	e.loc = loc
}

// waiters removes and returns, sorted by key, group k's members at loc.
func (g *groupLayer) waiters(k spec.PodGroupKey, loc place) []*entry {
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

// place is G2's placement of a member's entry, detached and indexed.
func (g *groupLayer) place(e *entry, now time.Time) {
	k := e.info.Pod.GroupKey()
	ent, queued := g.entities[k]
	switch {
	case g.objects[k] == nil:
		g.wait(e, inIncomplete)
	case queued:
		i, _ := slices.BinarySearchFunc(ent.members, e, func(a, b *entry) int { return compareKeys(a.info.Pod, b.info.Pod) })
		ent.members = slices.Insert(ent.members, i, e)
		g.replace(ent, now)
	case g.inCycle[k]:
		g.wait(e, inPending)
	default:
		ent := &gentity{key: k, members: []*entry{e}, params: spec.EntityParams{Timestamp: now}}
		g.admit(ent, inActiveQ, now)
	}
}

// remove takes e out of the layer's places; its entity is placed again.
func (g *groupLayer) remove(e *entry, now time.Time) {
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
		g.replace(ent, now)
	}
	e.loc = nowhere
}

// --- the hooks of queue.go ---

// add is G2 for Add (and Update of an unknown member): e is the entry of
// the key, nil if none.
func (g *groupLayer) add(pod *spec.Pod, h hashes, e *entry) error {
	q := g.q
	if e != nil {
		return fmt.Errorf("%w: Add of member %s, which is held", spec.ErrAlreadyQueued, pod.Key())
	}
	if err := q.uidHeldElsewhere(pod, h, nil); err != nil {
		return err
	}
	now := q.clock.Now()
	e = q.entryFor(nil, pod, h)
	e.info = podInfo{Pod: pod, Timestamp: now}
	q.nom.add(pod, spec.NominateNoop, "") // R18
	g.place(e, now)
	return nil
}

// failed (D1) is R3h for a pod alone and G4 for a member: one count, as
// R3h and before the branch on membership (as upstream); then a pod alone
// is requeued as in the hints profile, and a member, its flight ended
// with no replay, joins its group as by G2 (put applies inEntity).
func (p *podgroupsProfile) failed(v view, e *entry, flightUID spec.UID, _ int64) move {
	countFailure(e.info.hf(), e.info.rejected())
	if e.info.Pod.Group == "" {
		return p.requeue(v, e, flightUID)
	}
	if flightUID != "" {
		p.leave(e, flightUID)
	}
	return move{to: inEntity}
}

// decision is a move request's verdict for one parked entity, with its
// members' PreEnqueue verdicts.
type decision struct {
	ent     *gentity
	to      place
	refused []string
}

// decide is G10's first phase: which parked entities occ moves, where,
// and what PreEnqueue says of their members. It only reads: the hints,
// the caller's keep and the PreEnqueue plugins may panic, and the move
// request is all or nothing (moveRequest). keep
// selects by members; for the leftover flush (stamp) entities are taken
// by their own age instead.
func (g *groupLayer) decide(occ spec.Occurrence, now time.Time, keep func(*entry) bool, stamp bool) []decision {
	if g == nil {
		return nil
	}
	var out []decision
	for gp, ents := range g.parked {
		if gp != "" && !g.h.cfg.GatingEventMatches(gp, occ.Event) {
			continue // no group its gate parks is examined
		}
		for _, ent := range ents {
			if stamp {
				if !g.old(ent, now) {
					continue
				}
			} else if !slices.ContainsFunc(ent.members, keep) {
				continue
			}
			if to := g.strategyPlace(ent, occ, now); to != nowhere {
				out = append(out, decision{ent, to, g.refusals(ent)})
			}
		}
	}
	// In key order, so that the groups entering activeQ together tie
	// there in the same order on every run.
	slices.SortFunc(out, func(a, b decision) int { return strings.Compare(string(a.ent.key), string(b.ent.key)) })
	return out
}

// strategyPlace is where G10's strategy for occ sends ent (nowhere: it
// stays).
func (g *groupLayer) strategyPlace(ent *gentity, occ spec.Occurrence, now time.Time) place {
	best := spec.StrategySkip
	for _, m := range ent.members {
		best = max(best, g.h.podStrategy(&m.info, occ))
	}
	switch {
	case best == spec.StrategySkip:
		return nowhere
	case best == spec.StrategyAfterBackoff && spec.GroupIsBackingOff(ent.params.BackoffExpiry, now):
		return inBackoffQ
	}
	return inActiveQ
}

// apply is G10's second phase.
func (g *groupLayer) apply(ds []decision, now time.Time, stamp bool) {
	for _, d := range ds {
		if stamp {
			d.ent.params.FlushTimestamp = now
		}
		g.admitWith(d.ent, d.to, now, d.refused)
	}
}

// old is R6h's age test for an entity.
func (g *groupLayer) old(ent *gentity, now time.Time) bool {
	last := ent.params.Timestamp
	if ent.params.FlushTimestamp.After(last) {
		last = ent.params.FlushTimestamp
	}
	return now.Sub(last) > g.h.cfg.PodMaxInUnschedulablePodsDuration
}

// anyOld reports whether the leftover flush takes some entity.
func (g *groupLayer) anyOld(now time.Time) bool {
	if g == nil {
		return false
	}
	for _, ent := range g.at[inUnschedulablePods] {
		if g.old(ent, now) {
			return true
		}
	}
	return false
}

// flushBackoff is R5h for entities.
func (g *groupLayer) flushBackoff(now time.Time) {
	if g == nil {
		return
	}
	for _, k := range slices.Sorted(maps.Keys(g.at[inBackoffQ])) {
		if ent := g.entities[k]; !spec.GroupIsBackingOff(ent.params.BackoffExpiry, now) {
			g.put(ent, inActiveQ, now)
		}
	}
}

// activate is G7.
func (g *groupLayer) activate(p *spec.Pod, now time.Time) {
	e := g.q.pods.findKey(keyHash(p.Namespace, p.Name), p.Namespace, p.Name)
	k := p.GroupKey()
	if e != nil && e.info.Pod.Group != "" {
		k = e.info.Pod.GroupKey()
	}
	if g.objects[k] == nil {
		return
	}
	if ent, ok := g.entities[k]; ok {
		switch ent.place {
		case inUnschedulablePods:
			g.admit(ent, inActiveQ, now)
		case inBackoffQ:
			g.put(ent, inActiveQ, now)
		}
		return
	}
	g.h.activatedOther(e, p)
}

// checkUpdate is G9's precondition: a member's group never changes. e is
// the entry of the key, nil if none.
func (g *groupLayer) checkUpdate(e *entry, oldPod, newPod *spec.Pod) error {
	if g == nil {
		return nil
	}
	held := oldPod.Group
	if e != nil {
		held = e.info.Pod.Group
	}
	if oldPod.Group != newPod.Group || held != newPod.Group {
		return fmt.Errorf("%w: Update of %s changes its pod group from %q to %q", spec.ErrInvalidPod, newPod.Key(), held, newPod.Group)
	}
	return nil
}

// updated is G9 for a member in one of the layer's places (its entry
// already holds newPod).
func (g *groupLayer) updated(e *entry, oldPod, newPod *spec.Pod, change *spec.PodChange, now time.Time) {
	if e.loc != inEntity {
		return
	}
	ent := g.entities[newPod.GroupKey()]
	if ent.place != inUnschedulablePods {
		return
	}
	for _, ev := range updateEvents(oldPod, newPod, change) {
		if to := g.strategyPlace(ent, spec.Occurrence{Event: ev, Old: oldPod, New: newPod}, now); to != nowhere {
			g.admit(ent, to, now)
		}
		if ent.place != inUnschedulablePods {
			return
		}
	}
}

// snapshot adds the members the layer holds to their places and the
// pod-group state to s.
func (g *groupLayer) snapshot(s *spec.Snapshot) {
	if g == nil {
		return
	}
	st := &spec.PodGroupsState{}
	for _, k := range slices.Sorted(maps.Keys(g.objects)) {
		st.PodGroups = append(st.PodGroups, *g.objects[k])
	}
	for _, k := range slices.Sorted(maps.Keys(g.entities)) {
		ent := g.entities[k]
		pe := spec.PodGroupEntity{Group: k, Place: spec.Location(ent.place), EntityParams: ent.params}
		for _, m := range ent.members {
			pe.Members = append(pe.Members, m.info.Key())
			switch ent.place {
			case inActiveQ:
				s.ActiveQ = append(s.ActiveQ, m.info.full())
			case inBackoffQ:
				s.BackoffQ = append(s.BackoffQ, m.info.full())
			case inUnschedulablePods:
				s.UnschedulablePods = append(s.UnschedulablePods, m.info.full())
			}
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

// --- spec.PodGroupQueue ---

func (q *PriorityQueue) noGroups(op string) error {
	return fmt.Errorf("%w: %s outside the podgroups profile", spec.ErrInvalidConfig, op)
}

// PopEntity is G3 of spec.PodGroupQueue: Pop over entities. It blocks
// while nothing may be taken, as Pop does.
func (q *PriorityQueue) PopEntity() (spec.QueuedEntity, int64, error) {
	if q.groups == nil {
		return spec.QueuedEntity{}, 0, q.noGroups("PopEntity")
	}
	q.mu.Lock()
	defer q.unlock()
	for {
		if q.closed {
			return spec.QueuedEntity{}, 0, spec.ErrClosed
		}
		switch from := q.p.popFrom(view{q: q}); from {
		case nowhere:
		case groupNext:
			return q.groups.pop()
		default:
			info, cycle, err := q.popLocked(from)
			return spec.QueuedEntity{Pod: info}, cycle, err
		}
		q.waiting++
		q.cond.Wait()
		q.waiting--
	}
}

// pop is G3 for the best group entity of activeQ.
func (g *groupLayer) pop() (spec.QueuedEntity, int64, error) {
	q := g.q
	ent := g.best()
	g.drop(ent)
	ent.params.Attempts++
	out := &spec.QueuedPodGroupInfo{PodGroup: g.objects[ent.key], EntityParams: ent.params}
	for _, m := range ent.members {
		m.info.Attempts++
		token, _ := q.p.popped(m)
		m.loc = inFlight
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
	if q.groups == nil {
		return q.noGroups("AddAttemptedPodGroupIfNeeded")
	}
	if err := gInfo.Validate(); err != nil {
		return err
	}
	if status < spec.AttemptSuccess || status > spec.AttemptError {
		return fmt.Errorf("%w: attempt status %v", spec.ErrInvalidPodGroup, status)
	}
	uids := make(map[spec.UID]bool, len(gInfo.Members))
	for i := range gInfo.Members {
		uids[gInfo.Members[i].Pod.UID] = true
	}
	q.mu.Lock()
	defer q.unlock()
	g := q.groups
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
			g.wait(e, inIncomplete)
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
		if !slices.ContainsFunc(pending, func(e *entry) bool { return uids[e.info.Pod.UID] }) {
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
	g.admit(ent, to, now)
	return nil
}

// AddPodGroup is G11 of spec.PodGroupQueue.
func (q *PriorityQueue) AddPodGroup(pg *spec.PodGroup) error {
	if q.groups == nil {
		return q.noGroups("AddPodGroup")
	}
	if err := pg.Validate(); err != nil {
		return err
	}
	q.mu.Lock()
	defer q.unlock()
	g := q.groups
	k := pg.Key()
	if g.objects[k] != nil {
		return fmt.Errorf("%w: AddPodGroup of %s", spec.ErrPodGroupExists, k)
	}
	g.objects[k] = pg
	now := q.clock.Now()
	for _, e := range g.waiters(k, inIncomplete) {
		g.place(e, now)
	}
	return nil
}

// UpdatePodGroup is G11 of spec.PodGroupQueue.
func (q *PriorityQueue) UpdatePodGroup(oldPG, newPG *spec.PodGroup) error {
	if q.groups == nil {
		return q.noGroups("UpdatePodGroup")
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
	if q.groups.objects[newPG.Key()] == nil {
		return fmt.Errorf("%w: UpdatePodGroup of %s", spec.ErrPodGroupNotFound, newPG.Key())
	}
	q.groups.objects[newPG.Key()] = newPG
	return nil
}

// DeletePodGroup is G11 of spec.PodGroupQueue.
func (q *PriorityQueue) DeletePodGroup(pg *spec.PodGroup) error {
	if q.groups == nil {
		return q.noGroups("DeletePodGroup")
	}
	if err := pg.Validate(); err != nil {
		return err
	}
	q.mu.Lock()
	defer q.unlock()
	g := q.groups
	k := pg.Key()
	if g.objects[k] == nil {
		return fmt.Errorf("%w: DeletePodGroup of %s", spec.ErrPodGroupNotFound, k)
	}
	delete(g.objects, k)
	for _, e := range g.waiters(k, inPending) {
		g.wait(e, inIncomplete)
	}
	if ent, ok := g.entities[k]; ok {
		g.drop(ent)
		for _, e := range ent.members {
			g.wait(e, inIncomplete)
		}
	}
	return nil
}
