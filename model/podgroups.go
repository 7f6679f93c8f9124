package model

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/schedq/schedq/spec"
)

// podgroups answers the decisions of spec.ProfilePodGroups: the hints
// profile plus pod groups (rules G1-G11 on spec.PodGroupQueue). A pod that
// names no group goes through the embedded hints profile unchanged. Its
// own state is the pod groups': the objects the queue knows, the queued
// entities, and the groups whose cycle is open.
//
// Members live in Model.pods like every pod: a member of a queued entity
// at the entity's place (so that Snapshot lists it there), a member in
// flight in flight, and the members waiting for their group at the two
// places only this profile has, inPending and inIncomplete. The members of
// an entity are therefore not stored twice: they are the queued records
// whose pod names the group (Model.members).
type podgroups struct {
	*hints
	objects  map[spec.PodGroupKey]*spec.PodGroup
	entities map[spec.PodGroupKey]entity
	inCycle  map[spec.PodGroupKey]bool
}

// entity is a queued group entity: its place and its fields.
type entity struct {
	place  spec.Location
	params spec.EntityParams
}

// The places of members waiting for their group (G2, G4, G11), beyond the
// four of spec.Location. Snapshot lists them in Snapshot.PodGroups.
const (
	inPending    spec.Location = 100 + iota // pendingPodGroupPods
	inIncomplete                            // incompletePodGroupPods
)

func newPodGroups() *podgroups {
	return &podgroups{hints: &hints{}, objects: map[spec.PodGroupKey]*spec.PodGroup{},
		entities: map[spec.PodGroupKey]entity{}, inCycle: map[spec.PodGroupKey]bool{}}
}

var _ spec.PodGroupQueue = (*Model)(nil)

// groups returns the podgroups profile, nil in the other profiles.
func (m *Model) groups() *podgroups {
	g, _ := m.p.(*podgroups)
	return g
}

// isMember is G1: pod names a group, or the pod the queue holds under its
// key does (the queue keeps its own object, as R8 says, so a caller's stale
// object without the group does not make a member a pod alone).
func (m *Model) isMember(pod *spec.Pod) bool { return m.groupOf(pod) != "" }

// groupOf is the group of the member pod's key stands for, "" for none.
func (m *Model) groupOf(pod *spec.Pod) spec.PodGroupKey {
	if m.groups() == nil {
		return ""
	}
	if r, ok := m.pods[pod.Key()]; ok && r.info.Pod.Group != "" {
		return r.info.Pod.GroupKey()
	}
	return pod.GroupKey()
}

// members returns, sorted, the keys of the queued members of group k.
func (m *Model) members(k spec.PodGroupKey) []spec.PodKey {
	var out []spec.PodKey
	for key, r := range m.pods {
		if (r.loc == spec.InActiveQ || r.loc == spec.InBackoffQ || r.loc == spec.InUnschedulablePods) && r.info.Pod.GroupKey() == k {
			out = append(out, key)
		}
	}
	slices.Sort(out)
	return out
}

// waiting returns, sorted, the keys of the members of group k at loc
// (inPending or inIncomplete).
func (m *Model) waiting(k spec.PodGroupKey, loc spec.Location) []spec.PodKey {
	var out []spec.PodKey
	for key, r := range m.pods {
		if r.loc == loc && r.info.Pod.GroupKey() == k {
			out = append(out, key)
		}
	}
	slices.Sort(out)
	return out
}

// admitEntity puts group k's entity, whose members are the records listed
// in keys, towards to (activeQ or backoffQ) through PreEnqueue (R17, G2):
// every member's plugins run, the first member refused gates the entity,
// and a gated entity waits in unschedulablePods.
func (m *Model) admitEntity(k spec.PodGroupKey, keys []spec.PodKey, e entity, to spec.Location) {
	gate := ""
	if m.cfg.PodGroupsV138 {
		// G12: in MemberOrder, up to the first member refused.
		keys = slices.Clone(keys)
		slices.SortFunc(keys, func(a, b spec.PodKey) int {
			ra, rb := m.pods[a], m.pods[b]
			return spec.MemberOrder(&ra.info, &rb.info)
		})
	}
	for _, key := range keys {
		r := m.pods[key]
		if g := m.cfg.RunPreEnqueue(r.info.Pod, r.info.GatingPlugin); g != "" {
			r.info.GatingPlugin = g
			r.info.UnschedulablePlugins = spec.NewPluginSet(append(slices.Clone(r.info.UnschedulablePlugins), g)...)
			if gate == "" {
				gate = g
			}
		} else {
			r.info.GatingPlugin = ""
		}
		m.pods[key] = r
		if gate != "" && m.cfg.PodGroupsV138 {
			break
		}
	}
	e.params.GatingPlugin = gate
	if gate != "" {
		to = spec.InUnschedulablePods
	}
	m.placeEntity(k, keys, e, to)
}

// placeEntity puts the entity and its members at to, without PreEnqueue.
// Entering activeQ sets the zero InitialAttemptTimestamps, the entity's and
// its members', to now.
func (m *Model) placeEntity(k spec.PodGroupKey, keys []spec.PodKey, e entity, to spec.Location) {
	e.place = to
	if to == spec.InActiveQ && e.params.InitialAttemptTimestamp.IsZero() {
		e.params.InitialAttemptTimestamp = m.now
	}
	for _, key := range keys {
		r := m.pods[key]
		r.loc = to
		if to == spec.InActiveQ && r.info.InitialAttemptTimestamp.IsZero() {
			r.info.InitialAttemptTimestamp = m.now
		}
		m.pods[key] = r
	}
	m.groups().entities[k] = e
}

// replaceEntity places group k's entity again after a member joined or
// left it, by the place it was in (G2, G8): from activeQ towards activeQ;
// from backoffQ towards backoffQ while backing off (G6), else activeQ;
// from unschedulablePods it stays. An entity left with no member leaves
// the queue.
func (m *Model) replaceEntity(k spec.PodGroupKey) {
	g := m.groups()
	e := g.entities[k]
	keys := m.members(k)
	if len(keys) == 0 {
		delete(g.entities, k)
		return
	}
	switch {
	case e.place == spec.InUnschedulablePods:
		m.placeEntity(k, keys, e, spec.InUnschedulablePods)
	case e.place == spec.InBackoffQ && spec.GroupIsBackingOff(e.params.BackoffExpiry, m.now):
		m.admitEntity(k, keys, e, spec.InBackoffQ)
	default:
		m.admitEntity(k, keys, e, spec.InActiveQ)
	}
}

// placeMember is G2's placement of a member with its QueuedPodInfo: into
// incompletePodGroupPods if its group is unknown, into its queued entity,
// into pendingPodGroupPods while its group's cycle is open, else into a
// new entity towards activeQ.
func (m *Model) placeMember(info spec.QueuedPodInfo) {
	g := m.groups()
	k := info.Pod.GroupKey()
	key := info.Key()
	switch e, queued := g.entities[k]; {
	case g.objects[k] == nil:
		m.pods[key] = record{info: info, loc: inIncomplete}
	case queued:
		m.pods[key] = record{info: info, loc: e.place}
		m.replaceEntity(k)
	case g.inCycle[k]:
		m.pods[key] = record{info: info, loc: inPending}
	default:
		m.pods[key] = record{info: info, loc: spec.InActiveQ}
		m.admitEntity(k, []spec.PodKey{key}, entity{params: spec.EntityParams{Timestamp: m.now}}, spec.InActiveQ)
	}
}

// addMember is G2 (Add of a member).
func (m *Model) addMember(pod *spec.Pod) error {
	if r, ok := m.pods[pod.Key()]; ok {
		return fmt.Errorf("%w: Add of member %s, which is in %s", spec.ErrAlreadyQueued, pod.Key(), locName(r.loc))
	}
	if err := m.uidHeldElsewhere(pod); err != nil {
		return err
	}
	m.nom.add(pod, spec.NominateNoop, "") // R18
	m.placeMember(spec.QueuedPodInfo{Pod: pod, Timestamp: m.now})
	return nil
}

func locName(l spec.Location) string {
	switch l {
	case inPending:
		return "pendingPodGroupPods"
	case inIncomplete:
		return "incompletePodGroupPods"
	}
	return l.String()
}

// entityOrder lists the entities of activeQ with what orders them.
func (m *Model) entityOrder() []spec.OrderedEntity {
	g := m.groups()
	var out []spec.OrderedEntity
	for k, r := range m.pods {
		if r.loc == spec.InActiveQ && r.info.Pod.Group == "" {
			out = append(out, spec.OrderedEntity{Key: spec.PodEntityKey(k), Info: r.info})
		}
	}
	for k, e := range g.entities {
		if e.place == spec.InActiveQ {
			out = append(out, spec.OrderedEntity{Key: spec.GroupEntityKey(k), Info: spec.GroupOrderInfo(g.objects[k], &e.params)})
		}
	}
	return out
}

// EntityCandidates returns, sorted, the keys of every entity PopEntity may
// return now (G3): the maximal entities of activeQ or, activeQ being
// empty, the pods R2h takes from backoffQ (never a group). Nil outside the
// podgroups profile.
func (m *Model) EntityCandidates() []spec.EntityKey {
	if m.groups() == nil {
		return nil
	}
	if order := m.entityOrder(); len(order) > 0 {
		return spec.MaximalEntities(order)
	}
	var backoffQ []spec.QueuedPodInfo
	for _, r := range m.pods {
		if r.loc == spec.InBackoffQ && r.info.Pod.Group == "" {
			backoffQ = append(backoffQ, r.info)
		}
	}
	spec.SortPods(backoffQ)
	var out []spec.EntityKey
	for _, k := range m.cfg.BackoffPopCandidates(backoffQ) {
		out = append(out, spec.PodEntityKey(k))
	}
	return out
}

// popCandidates (D4) is R2h over entities: the pods among
// EntityCandidates. A group among them is PopEntity's alone.
func (g *podgroups) popCandidates(m *Model) []spec.PodKey {
	var out []spec.PodKey
	for _, k := range m.EntityCandidates() {
		if !strings.HasPrefix(string(k), "group:") {
			out = append(out, spec.PodKey(k))
		}
	}
	return out
}

// popGuard is G3's Pop of a group: ErrGroupEntity when every entity Pop
// may take is a group, nil otherwise.
func (g *podgroups) popGuard(m *Model) error {
	c := m.EntityCandidates()
	if len(c) > 0 && len(g.popCandidates(m)) == 0 {
		return fmt.Errorf("%w: %v", spec.ErrGroupEntity, c)
	}
	return nil
}

// PopEntity is G3 with the model's own choice among EntityCandidates: the
// smallest key.
func (m *Model) PopEntity() (spec.QueuedEntity, int64, error) {
	if m.closed {
		return spec.QueuedEntity{}, 0, spec.ErrClosed
	}
	c := m.EntityCandidates()
	if len(c) == 0 {
		return spec.QueuedEntity{}, 0, spec.ErrWouldBlock
	}
	return m.PopEntityKey(c[0])
}

// PopEntityKey is G3 returning the given entity, which must be one of
// EntityCandidates; any other is an error and changes nothing.
func (m *Model) PopEntityKey(key spec.EntityKey) (spec.QueuedEntity, int64, error) {
	g := m.groups()
	if g == nil {
		return spec.QueuedEntity{}, 0, fmt.Errorf("%w: PopEntity outside the podgroups profile", spec.ErrInvalidConfig)
	}
	if m.closed {
		return spec.QueuedEntity{}, 0, spec.ErrClosed
	}
	if !slices.Contains(m.EntityCandidates(), key) {
		return spec.QueuedEntity{}, 0, fmt.Errorf("model: PopEntity may not return %s now; candidates are %v", key, m.EntityCandidates())
	}
	k, isGroup := strings.CutPrefix(string(key), "group:")
	if !isGroup {
		info, cycle, err := m.PopPod(spec.PodKey(key))
		return spec.QueuedEntity{Pod: info}, cycle, err
	}
	gk := spec.PodGroupKey(k)
	e := g.entities[gk]
	e.params.Attempts++
	out := &spec.QueuedPodGroupInfo{PodGroup: g.objects[gk], EntityParams: e.params}
	for _, mk := range m.members(gk) {
		r := m.pods[mk]
		r.info.Attempts++
		g.popped(m, &r.info)
		r.loc = spec.InFlight
		m.pods[mk] = r
		out.Members = append(out.Members, r.info)
	}
	delete(g.entities, gk)
	g.inCycle[gk] = true
	m.schedulingCycle++
	return spec.QueuedEntity{Group: out}, m.schedulingCycle, nil
}

// failed (D1) is R3h for a pod alone and G4 for a member: one count, as
// R3h and before the branch on membership (as upstream); then a pod alone
// is requeued as in the hints profile and a member, with no replay, placed
// as by G2. Model.AddUnschedulableIfNotPresent takes its marker away after.
func (g *podgroups) failed(m *Model, info spec.QueuedPodInfo, _ int64) {
	info = counted(info)
	if info.Pod.Group == "" {
		g.hints.requeue(m, info)
		return
	}
	m.placeMember(info)
}

// AddAttemptedPodGroupIfNeeded is G5 of spec.PodGroupQueue.
func (m *Model) AddAttemptedPodGroupIfNeeded(gInfo *spec.QueuedPodGroupInfo, _ int64, status spec.AttemptStatus) error {
	g := m.groups()
	if g == nil {
		return fmt.Errorf("%w: AddAttemptedPodGroupIfNeeded outside the podgroups profile", spec.ErrInvalidConfig)
	}
	if err := gInfo.Validate(); err != nil {
		return err
	}
	if status < spec.AttemptSuccess || status > spec.AttemptError {
		return fmt.Errorf("%w: attempt status %v", spec.ErrInvalidPodGroup, status)
	}
	k := gInfo.Key()
	if e, ok := g.entities[k]; ok {
		return fmt.Errorf("%w: pod group %s is already present in %s", spec.ErrAlreadyQueued, k, e.place)
	}
	delete(g.inCycle, k)
	pending := m.waiting(k, inPending)
	if len(pending) == 0 {
		return nil
	}
	if g.objects[k] == nil {
		for _, key := range pending {
			r := m.pods[key]
			r.loc = inIncomplete
			m.pods[key] = r
		}
		return nil
	}
	e := entity{params: gInfo.EntityParams}
	e.params.PendingPlugins = nil
	e.params.FlushTimestamp = time.Time{}
	to := spec.InActiveQ
	switch status {
	case spec.AttemptSuccess:
		e.params.UnschedulableCount, e.params.ConsecutiveErrorsCount = 0, 0
		e.params.BackoffExpiry = time.Time{}
		if !hadMember(gInfo, m, pending) {
			e.params.Timestamp = m.now
		}
	default:
		countFailure(&e.params.HintFields, status == spec.AttemptRejected)
		e.params.Timestamp = m.now
		e.params.BackoffExpiry = m.cfg.GroupBackoffExpiry(&e.params.HintFields, len(pending), m.now)
		if spec.GroupIsBackingOff(e.params.BackoffExpiry, m.now) {
			to = spec.InBackoffQ
		}
	}
	m.admitEntity(k, pending, e, to)
	return nil
}

// hadMember reports whether a pending member was among the members popped
// with gInfo (by UID, as upstream): a member that failed in this cycle.
func hadMember(gInfo *spec.QueuedPodGroupInfo, m *Model, pending []spec.PodKey) bool {
	for _, key := range pending {
		uid := m.pods[key].info.Pod.UID
		if slices.ContainsFunc(gInfo.Members, func(p spec.QueuedPodInfo) bool { return p.Pod.UID == uid }) {
			return true
		}
	}
	return false
}

// flushBackoff is R5h for entities: an entity no longer backing off
// enters activeQ without PreEnqueue.
func (g *podgroups) flushBackoff(m *Model) {
	for _, k := range slices.Sorted(maps.Keys(g.entities)) {
		if e := g.entities[k]; e.place == spec.InBackoffQ && !spec.GroupIsBackingOff(e.params.BackoffExpiry, m.now) {
			m.placeEntity(k, m.members(k), e, spec.InActiveQ)
		}
	}
}

// activate is G7: Activate of a member activates its group's entity.
func (g *podgroups) activate(m *Model, pod *spec.Pod) {
	k := m.groupOf(pod)
	if g.objects[k] == nil {
		return
	}
	if e, ok := g.entities[k]; ok {
		switch e.place {
		case spec.InUnschedulablePods:
			m.admitEntity(k, m.members(k), e, spec.InActiveQ)
		case spec.InBackoffQ:
			m.placeEntity(k, m.members(k), e, spec.InActiveQ)
		}
		return
	}
	g.activateOther(m, pod)
}

// deleted is G8 for a member whose record Delete just removed: its entity
// is placed again, or leaves with its last member.
func (g *podgroups) deleted(m *Model, r record) {
	k := r.info.Pod.GroupKey()
	if k == "" {
		return
	}
	if e, ok := g.entities[k]; ok && e.place == r.loc {
		m.replaceEntity(k)
	}
}

// entityStrategy is G10 (and G13 for a gated entity): the most urgent
// strategy of group k's members, each asking only the rejectors n allows
// (R22, G14; nil: every rejector).
func (m *Model) entityStrategy(k spec.PodGroupKey, occ spec.Occurrence, n *spec.Narrowing) spec.Strategy {
	var infos []*spec.QueuedPodInfo
	for _, key := range m.members(k) {
		r := m.pods[key]
		infos = append(infos, &r.info)
	}
	e := m.groups().entities[k]
	return m.cfg.GatedEntityStrategy(e.params.Gated(), infos,
		func(info *spec.QueuedPodInfo) spec.Strategy { return m.cfg.MoveStrategy(info, occ, n) })
}

// placeByStrategy requeues a parked entity by its strategy (G10).
func (m *Model) placeByStrategy(k spec.PodGroupKey, s spec.Strategy) {
	g := m.groups()
	e := g.entities[k]
	keys := m.members(k)
	switch {
	case s == spec.StrategySkip:
	case s == spec.StrategyAfterBackoff && spec.GroupIsBackingOff(e.params.BackoffExpiry, m.now):
		m.admitEntity(k, keys, e, spec.InBackoffQ)
	default:
		m.admitEntity(k, keys, e, spec.InActiveQ)
	}
}

// move (D2) is R4h over entities (G10): the entities with a listed member
// are evaluated as a whole, those of a named pod only when the request is
// narrowed (G14), the pods alone as the hints profile does.
func (g *podgroups) move(m *Model, keys []spec.PodKey, occ spec.Occurrence) {
	if !m.cfg.IsEventOfInterestHints(occ.Event) {
		return
	}
	n := m.cfg.PreQueueingNarrowing(occ)
	var alone []spec.PodKey
	groups := map[spec.PodGroupKey]bool{}
	for _, k := range keys {
		if gk := m.pods[k].info.Pod.GroupKey(); gk != "" {
			groups[gk] = true
		} else {
			alone = append(alone, k)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(groups)) {
		e, ok := g.entities[k]
		if !ok || e.place != spec.InUnschedulablePods || !m.namesGroup(n, k) {
			continue
		}
		if e.params.Gated() && !m.cfg.GatingEventMatches(e.params.GatingPlugin, occ.Event) {
			continue
		}
		m.placeByStrategy(k, m.entityStrategy(k, occ, n))
	}
	g.hints.move(m, alone, occ)
}

// namesGroup is G14: whether a request narrowed as n evaluates group k's
// parked entity. Not narrowed: yes; narrowed: when some plugin named a pod
// the queue holds as a member of k.
func (m *Model) namesGroup(n *spec.Narrowing, k spec.PodGroupKey) bool {
	if n == nil || n.AllPods {
		return true
	}
	return slices.ContainsFunc(n.Candidates(), func(key spec.PodKey) bool {
		r, ok := m.pods[key]
		return ok && r.info.Pod.GroupKey() == k
	})
}

func (g *podgroups) assignedPodAdded(m *Model, pod *spec.Pod) {
	g.move(m, m.unschedulable(func(record) bool { return true }), spec.Occurrence{Event: spec.EventAssignedPodAdd, New: pod})
}

func (g *podgroups) assignedPodUpdated(m *Model, oldPod, newPod *spec.Pod, event spec.ClusterEvent) {
	g.move(m, m.unschedulable(func(record) bool { return true }), spec.Occurrence{Event: event, Old: oldPod, New: newPod})
}

// leftover (D7) is R6h over entities: pods alone as the hints profile
// takes them, and the parked entities whose later of Timestamp and
// FlushTimestamp is older than the limit (their FlushTimestamp becomes
// now), as the keys of their members.
func (g *podgroups) leftover(m *Model) []spec.PodKey {
	old := func(ts, flushed time.Time) bool {
		if flushed.After(ts) {
			ts = flushed
		}
		return m.now.Sub(ts) > m.cfg.PodMaxInUnschedulablePodsDuration
	}
	keys := m.unschedulable(func(r record) bool { return r.info.Pod.Group == "" && old(r.info.Timestamp, r.info.FlushTimestamp) })
	for _, k := range keys {
		r := m.pods[k]
		r.info.FlushTimestamp = m.now
		m.pods[k] = r
	}
	for _, k := range slices.Sorted(maps.Keys(g.entities)) {
		e := g.entities[k]
		if e.place == spec.InUnschedulablePods && old(e.params.Timestamp, e.params.FlushTimestamp) {
			e.params.FlushTimestamp = m.now
			g.entities[k] = e
			keys = append(keys, m.members(k)...)
		}
	}
	return keys
}

// updateUnschedulable (D7) is R9h for a pod alone and G9 for a member of a
// parked entity: each event of the update in turn is evaluated for the
// entity until one moves it.
func (g *podgroups) updateUnschedulable(m *Model, key spec.PodKey, oldPod, newPod *spec.Pod, change spec.PodChange) {
	k := newPod.GroupKey()
	if k == "" {
		g.hints.updateUnschedulable(m, key, oldPod, newPod, change)
		return
	}
	for _, ev := range change.Events {
		m.placeByStrategy(k, m.entityStrategy(k, spec.Occurrence{Event: ev, Old: oldPod, New: newPod}, nil))
		if g.entities[k].place != spec.InUnschedulablePods {
			return
		}
	}
}

// checkUpdate is G9's precondition: a member's group never changes.
func (g *podgroups) checkUpdate(m *Model, oldPod, newPod *spec.Pod) error {
	held := oldPod.Group
	if r, ok := m.pods[newPod.Key()]; ok {
		held = r.info.Pod.Group
	}
	if oldPod.Group != newPod.Group || held != newPod.Group {
		return fmt.Errorf("%w: Update of %s changes its pod group from %q to %q", spec.ErrInvalidPod, newPod.Key(), held, newPod.Group)
	}
	return nil
}

// AddPodGroup is G11 of spec.PodGroupQueue.
func (m *Model) AddPodGroup(pg *spec.PodGroup) error {
	g := m.groups()
	if g == nil {
		return fmt.Errorf("%w: AddPodGroup outside the podgroups profile", spec.ErrInvalidConfig)
	}
	if err := pg.Validate(); err != nil {
		return err
	}
	k := pg.Key()
	if g.objects[k] != nil {
		return fmt.Errorf("%w: AddPodGroup of %s", spec.ErrPodGroupExists, k)
	}
	g.objects[k] = pg
	for _, key := range m.waiting(k, inIncomplete) {
		m.placeMember(m.pods[key].info)
	}
	return nil
}

// UpdatePodGroup is G11 of spec.PodGroupQueue.
func (m *Model) UpdatePodGroup(oldPG, newPG *spec.PodGroup) error {
	g := m.groups()
	if g == nil {
		return fmt.Errorf("%w: UpdatePodGroup outside the podgroups profile", spec.ErrInvalidConfig)
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
	if g.objects[newPG.Key()] == nil {
		return fmt.Errorf("%w: UpdatePodGroup of %s", spec.ErrPodGroupNotFound, newPG.Key())
	}
	g.objects[newPG.Key()] = newPG
	return nil
}

// DeletePodGroup is G11 of spec.PodGroupQueue.
func (m *Model) DeletePodGroup(pg *spec.PodGroup) error {
	g := m.groups()
	if g == nil {
		return fmt.Errorf("%w: DeletePodGroup outside the podgroups profile", spec.ErrInvalidConfig)
	}
	if err := pg.Validate(); err != nil {
		return err
	}
	k := pg.Key()
	if g.objects[k] == nil {
		return fmt.Errorf("%w: DeletePodGroup of %s", spec.ErrPodGroupNotFound, k)
	}
	delete(g.objects, k)
	keys := append(m.members(k), m.waiting(k, inPending)...)
	for _, key := range keys {
		r := m.pods[key]
		r.loc = inIncomplete
		m.pods[key] = r
	}
	delete(g.entities, k)
	return nil
}

// state is Snapshot.PodGroups.
func (g *podgroups) state(m *Model) *spec.PodGroupsState {
	s := &spec.PodGroupsState{}
	for _, k := range slices.Sorted(maps.Keys(g.objects)) {
		s.PodGroups = append(s.PodGroups, *g.objects[k])
	}
	for _, k := range slices.Sorted(maps.Keys(g.entities)) {
		e := g.entities[k]
		s.Entities = append(s.Entities, spec.PodGroupEntity{Group: k, Place: e.place, Members: m.members(k), EntityParams: e.params})
	}
	s.InCycle = slices.Sorted(maps.Keys(g.inCycle))
	for _, r := range m.pods {
		switch r.loc {
		case inPending:
			s.PendingPodGroupPods = append(s.PendingPodGroupPods, r.info)
		case inIncomplete:
			s.IncompletePodGroupPods = append(s.IncompletePodGroupPods, r.info)
		}
	}
	spec.SortPods(s.PendingPodGroupPods)
	spec.SortPods(s.IncompletePodGroupPods)
	return s
}

func (g *podgroups) clone() profile {
	return &podgroups{hints: g.hints.clone().(*hints), objects: maps.Clone(g.objects),
		entities: maps.Clone(g.entities), inCycle: maps.Clone(g.inCycle)}
}

func (g *podgroups) equal(o profile) bool {
	og, ok := o.(*podgroups)
	return ok && g.hints.equal(og.hints) &&
		maps.EqualFunc(g.objects, og.objects, func(a, b *spec.PodGroup) bool { return spec.PodGroupsEqual(a, b) }) &&
		maps.EqualFunc(g.entities, og.entities, func(a, b entity) bool {
			return a.place == b.place && spec.EntityParamsEqual(&a.params, &b.params)
		}) &&
		maps.Equal(g.inCycle, og.inCycle)
}
