// Package model is the executable form of the contract of spec.Queue: a
// sequential state machine over spec types, written to be read, whose
// methods carry out the rules R1-R19 as spec.Queue states them. Time is an
// input (Step), both flushes are explicit operations, and where the
// contract allows more than one outcome the model says which instead of
// picking one: PopCandidates lists every pod Pop may return.
//
// The model is the oracle of every other suite. It knows nothing of
// goroutines, locks or wall time.
package model

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/schedq/schedq/spec"
)

// Model is the queue state. The zero value is not usable; call New.
type Model struct {
	cfg              spec.Config
	now              time.Time
	pods             map[spec.PodKey]record
	schedulingCycle  int64
	moveRequestCycle int64
	closed           bool
	p                profile // the decisions of cfg.Profile (profile.go)
	nom              nominator
}

// record is one pod and where it is. Records are values, so Clone is a map
// copy; the Pod pointers they share are immutable by contract.
type record struct {
	info spec.QueuedPodInfo
	loc  spec.Location
}

var _ spec.ObjectQueue = (*Model)(nil)

// New returns an empty model whose clock reads now.
func New(cfg spec.Config, now time.Time) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	p, err := newProfile(cfg)
	if err != nil {
		return nil, err
	}
	return &Model{cfg: cfg, now: now, pods: make(map[spec.PodKey]record), moveRequestCycle: -1, p: p, nom: newNominator()}, nil
}

// Config returns the model's config.
func (m *Model) Config() spec.Config { return m.cfg }

// Now returns the model's clock.
func (m *Model) Now() time.Time { return m.now }

// Step advances the clock by d. Time never runs backwards: a negative d is
// an error and changes nothing.
func (m *Model) Step(d time.Duration) error {
	if d < 0 {
		return fmt.Errorf("model: clock step %v is negative", d)
	}
	m.now = m.now.Add(d)
	return nil
}

// Clone returns an independent copy.
func (m *Model) Clone() *Model {
	c := *m
	c.pods = maps.Clone(m.pods)
	c.p = m.p.clone()
	c.nom = m.nom.clone()
	return &c
}

// Equal reports whether two models are in the same state.
func (m *Model) Equal(o *Model) bool {
	if !m.now.Equal(o.now) || m.schedulingCycle != o.schedulingCycle ||
		m.moveRequestCycle != o.moveRequestCycle || m.closed != o.closed || len(m.pods) != len(o.pods) ||
		!m.p.equal(o.p) || !m.nom.equal(o.nom) {
		return false
	}
	for k, r := range m.pods {
		s, ok := o.pods[k]
		if !ok || r.loc != s.loc || !infoEqual(&r.info, &s.info) {
			return false
		}
	}
	return true
}

func infoEqual(a, b *spec.QueuedPodInfo) bool {
	return spec.PodsEqual(a.Pod, b.Pod) &&
		a.Timestamp.Equal(b.Timestamp) && a.Attempts == b.Attempts &&
		slices.Equal(a.UnschedulablePlugins, b.UnschedulablePlugins) &&
		a.InitialAttemptTimestamp.Equal(b.InitialAttemptTimestamp) &&
		spec.HintFieldsEqual(&a.HintFields, &b.HintFields)
}

// Snapshot implements spec.Queue.Snapshot.
func (m *Model) Snapshot() spec.Snapshot {
	s := spec.Snapshot{Now: m.now, SchedulingCycle: m.schedulingCycle, MoveRequestCycle: m.moveRequestCycle, Closed: m.closed}
	for _, r := range m.pods {
		r.info.UnschedulablePlugins = slices.Clone(r.info.UnschedulablePlugins)
		r.info.PendingPlugins = slices.Clone(r.info.PendingPlugins)
		switch r.loc {
		case spec.InActiveQ:
			s.ActiveQ = append(s.ActiveQ, r.info)
		case spec.InBackoffQ:
			s.BackoffQ = append(s.BackoffQ, r.info)
		case spec.InUnschedulablePods:
			s.UnschedulablePods = append(s.UnschedulablePods, r.info)
		case spec.InFlight:
			s.InFlight = append(s.InFlight, r.info)
		}
	}
	spec.SortPods(s.ActiveQ)
	spec.SortPods(s.BackoffQ)
	spec.SortPods(s.UnschedulablePods)
	spec.SortPods(s.InFlight)
	m.p.snapshot(&s)
	if g := m.groups(); g != nil { // members waiting for their group (G1)
		s.PodGroups = g.state(m)
	}
	return s
}

// SchedulingCycle implements spec.Queue.SchedulingCycle.
func (m *Model) SchedulingCycle() int64 { return m.schedulingCycle }

// MoveRequestCycle is the cycle of the last move request, -1 before any.
func (m *Model) MoveRequestCycle() int64 { return m.moveRequestCycle }

// Closed reports whether Close was called.
func (m *Model) Closed() bool { return m.closed }

// Where returns where the pod with this key is.
func (m *Model) Where(key spec.PodKey) spec.Location { return m.pods[key].loc }

// uidHeldElsewhere reports ErrAlreadyQueued if another key holds the pod's
// UID (I1 of spec.Queue).
func (m *Model) uidHeldElsewhere(pod *spec.Pod) error {
	for k, r := range m.pods {
		if r.info.Pod.UID == pod.UID && k != pod.Key() {
			return fmt.Errorf("%w: UID %q of %s is held by %s", spec.ErrAlreadyQueued, pod.UID, pod.Key(), k)
		}
	}
	return nil
}

// moveToActiveQ puts a pod in activeQ: "entering activeQ" in the Moves of
// spec.Queue. The model has no blocked Pop to wake.
func (m *Model) moveToActiveQ(info spec.QueuedPodInfo) {
	if info.InitialAttemptTimestamp.IsZero() {
		info.InitialAttemptTimestamp = m.now
	}
	m.pods[info.Key()] = record{info: info, loc: spec.InActiveQ}
}

// requeue is "requeueing a pod" in the Moves of spec.Queue (R4, R6, R9,
// R11).
func (m *Model) requeue(info spec.QueuedPodInfo) {
	if m.cfg.IsBackingOff(&info, m.now) {
		m.p.admit(m, info, spec.InBackoffQ)
		return
	}
	m.p.admit(m, info, spec.InActiveQ)
}

// Add is R1 of spec.Queue.
func (m *Model) Add(pod *spec.Pod) error {
	if err := pod.Validate(); err != nil {
		return err
	}
	if m.isMember(pod) {
		return m.addMember(pod) // G2
	}
	if r, ok := m.pods[pod.Key()]; ok && (r.loc == spec.InActiveQ || r.loc == spec.InFlight) {
		return fmt.Errorf("%w: Add of %s, which is in %s", spec.ErrAlreadyQueued, pod.Key(), r.loc)
	}
	if err := m.uidHeldElsewhere(pod); err != nil {
		return err
	}
	m.nom.add(pod, spec.NominateNoop, "") // R18
	m.p.admit(m, spec.QueuedPodInfo{Pod: pod, Timestamp: m.now}, spec.InActiveQ)
	return nil
}

// PopCandidates returns, sorted, the keys of every pod Pop may return now:
// the maximal pods of activeQ (I5).
func (m *Model) PopCandidates() []spec.PodKey {
	return m.p.popCandidates(m)
}

// Pop is R2 of spec.Queue with the model's own choice among PopCandidates:
// the smallest key. Callers that must accept any allowed outcome use
// PopCandidates and PopPod. On an empty activeQ the model cannot wait, so
// it returns spec.ErrWouldBlock.
func (m *Model) Pop() (*spec.QueuedPodInfo, int64, error) {
	if m.closed {
		return nil, 0, spec.ErrClosed
	}
	c := m.PopCandidates()
	if len(c) == 0 {
		if g := m.groups(); g != nil { // G3: a group is PopEntity's
			if err := g.popGuard(m); err != nil {
				return nil, 0, err
			}
		}
		return nil, 0, spec.ErrWouldBlock
	}
	return m.PopPod(c[0])
}

// PopPod is R2 of spec.Queue returning the given pod, which must be one of
// PopCandidates; any other pod is an error and changes nothing.
func (m *Model) PopPod(key spec.PodKey) (*spec.QueuedPodInfo, int64, error) {
	if m.closed {
		return nil, 0, spec.ErrClosed
	}
	if !slices.Contains(m.PopCandidates(), key) {
		return nil, 0, fmt.Errorf("model: Pop may not return %s now; candidates are %v", key, m.PopCandidates())
	}
	r := m.pods[key]
	r.info.Attempts++
	m.p.popped(m, &r.info)
	r.loc = spec.InFlight
	m.pods[key] = r
	m.schedulingCycle++
	out := r.info
	return &out, m.schedulingCycle, nil
}

// AddUnschedulableIfNotPresent is R3 of spec.Queue.
func (m *Model) AddUnschedulableIfNotPresent(pInfo *spec.QueuedPodInfo, podSchedulingCycle int64) error {
	if err := pInfo.Validate(); err != nil {
		return err
	}
	if r, ok := m.pods[pInfo.Key()]; ok && r.loc != spec.InFlight {
		return fmt.Errorf("%w: pod %s is already present in %s", spec.ErrAlreadyQueued, pInfo.Key(), r.loc)
	}
	if err := m.uidHeldElsewhere(pInfo.Pod); err != nil {
		return err
	}
	info := *pInfo
	info.UnschedulablePlugins = spec.NewPluginSet(pInfo.UnschedulablePlugins...)
	info.Timestamp = m.now
	var wasInFlight spec.UID
	if r, ok := m.pods[info.Key()]; ok {
		wasInFlight = r.info.Pod.UID
	}
	m.p.failed(m, info, podSchedulingCycle)
	if wasInFlight != "" {
		m.p.leftFlight(m, wasInFlight)
	}
	return nil
}

// MoveAllToActiveOrBackoffQueue is R4 of spec.Queue.
func (m *Model) MoveAllToActiveOrBackoffQueue(event spec.ClusterEvent, preCheck spec.PreEnqueueCheck) {
	m.moveAll(spec.Occurrence{Event: event}, preCheck)
}

// MoveAllToActiveOrBackoffQueueWithObjects is R4 with the event's objects
// (R19, spec.ObjectQueue).
func (m *Model) MoveAllToActiveOrBackoffQueueWithObjects(occ spec.Occurrence, preCheck spec.PreEnqueueCheck) error {
	if err := occ.Validate(); err != nil {
		return err
	}
	m.moveAll(occ, preCheck)
	return nil
}

func (m *Model) moveAll(occ spec.Occurrence, preCheck spec.PreEnqueueCheck) {
	keys := m.unschedulable(func(r record) bool { return preCheck == nil || preCheck(r.info.Pod) })
	m.p.move(m, keys, occ)
}

func (m *Model) unschedulable(keep func(record) bool) []spec.PodKey {
	var ks []spec.PodKey
	for k, r := range m.pods {
		if r.loc == spec.InUnschedulablePods && keep(r) {
			ks = append(ks, k)
		}
	}
	return ks
}

// FlushBackoffQCompleted is R5 of spec.Queue.
func (m *Model) FlushBackoffQCompleted() {
	for _, r := range m.pods {
		if r.loc == spec.InBackoffQ && !m.isMember(r.info.Pod) && !m.cfg.IsBackingOff(&r.info, m.now) {
			m.p.fromBackoffQ(m, r.info)
		}
	}
	if g := m.groups(); g != nil { // G10: entities back off as a whole
		g.flushBackoff(m)
	}
}

// FlushUnschedulablePodsLeftover is R6 of spec.Queue.
func (m *Model) FlushUnschedulablePodsLeftover() {
	leftover := m.p.leftover(m)
	if len(leftover) > 0 {
		m.p.move(m, leftover, spec.Occurrence{Event: spec.EventUnschedulableTimeout})
	}
}

// Activate is R8 of spec.Queue, including its case of a pod the queue does
// not hold: the pod is not added, but moveRequestCycle advances.
func (m *Model) Activate(pods []*spec.Pod) error {
	for _, p := range pods {
		if err := p.Validate(); err != nil {
			return err
		}
	}
	for _, p := range pods {
		if m.isMember(p) {
			m.groups().activate(m, p) // G7
			continue
		}
		r, ok := m.pods[p.Key()]
		switch {
		case ok && r.loc == spec.InUnschedulablePods:
			m.p.admit(m, r.info, spec.InActiveQ)
		case ok && r.loc == spec.InBackoffQ:
			m.p.fromBackoffQ(m, r.info)
		default:
			m.p.activateOther(m, p)
			continue
		}
		if m.pods[p.Key()].loc != spec.InActiveQ {
			// PreEnqueue kept it out (R17): as for a pod not parked,
			// upstream records the activation (R8, R8h).
			m.p.activateOther(m, p)
		}
	}
	return nil
}

// Update is R9 of spec.Queue, with the derived verdict.
func (m *Model) Update(oldPod, newPod *spec.Pod) error {
	return m.UpdateWithChange(oldPod, newPod, nil)
}

// UpdateWithChange is R9 of spec.Queue with the caller's verdict on the
// update (spec.ObjectQueue); nil derives it (spec.DerivePodChange).
func (m *Model) UpdateWithChange(oldPod, newPod *spec.Pod, change *spec.PodChange) error {
	if err := oldPod.Validate(); err != nil {
		return err
	}
	if err := newPod.Validate(); err != nil {
		return err
	}
	if err := change.Validate(); err != nil {
		return err
	}
	if oldPod.Key() != newPod.Key() {
		return fmt.Errorf("%w: Update from %s to %s changes the key", spec.ErrInvalidPod, oldPod.Key(), newPod.Key())
	}
	if g := m.groups(); g != nil {
		if err := g.checkUpdate(m, oldPod, newPod); err != nil { // G9
			return err
		}
	}
	if err := m.uidHeldElsewhere(newPod); err != nil {
		return err
	}
	r, ok := m.pods[newPod.Key()]
	if !ok {
		return m.Add(newPod)
	}
	if r.loc == spec.InFlight && r.info.Pod.UID != newPod.UID {
		// R9: a new object under the key. The attempt in flight was on
		// the old one: it ends as by Delete, and newPod is added.
		m.nom.remove(r.info.Pod.UID)
		delete(m.pods, newPod.Key())
		m.p.leftFlight(m, r.info.Pod.UID)
		return m.Add(newPod)
	}
	if r.loc != spec.InFlight {
		m.nom.update(oldPod, newPod) // R18
	}
	r.info.Pod = newPod
	m.pods[newPod.Key()] = r
	c := spec.DerivePodChange(oldPod, newPod)
	if change != nil {
		c = *change
	}
	switch r.loc {
	case spec.InUnschedulablePods:
		m.p.updateUnschedulable(m, newPod.Key(), oldPod, newPod, c)
	case spec.InFlight:
		m.p.updateInFlight(m, oldPod, newPod, c)
	}
	return nil
}

// Delete is R10 of spec.Queue.
func (m *Model) Delete(pod *spec.Pod) error {
	if err := pod.Validate(); err != nil {
		return err
	}
	nominated := m.nom.remove(pod.UID) // R18
	r, ok := m.pods[pod.Key()]
	if !ok {
		if nominated {
			return nil
		}
		return fmt.Errorf("%w: Delete of %s", spec.ErrPodNotFound, pod.Key())
	}
	delete(m.pods, pod.Key())
	if r.loc == spec.InFlight {
		m.p.leftFlight(m, r.info.Pod.UID)
	}
	if g := m.groups(); g != nil {
		g.deleted(m, r) // G8
	}
	return nil
}

// AssignedPodAdded is R11 of spec.Queue.
func (m *Model) AssignedPodAdded(pod *spec.Pod) error {
	if err := pod.Validate(); err != nil {
		return err
	}
	m.p.assignedPodAdded(m, pod)
	return nil
}

// AssignedPodUpdated is R11 of spec.Queue for an update of an assigned pod.
func (m *Model) AssignedPodUpdated(oldPod, newPod *spec.Pod, event spec.ClusterEvent) error {
	if err := newPod.Validate(); err != nil {
		return err
	}
	if err := event.Validate(); err != nil {
		return err
	}
	if oldPod != nil {
		if err := oldPod.Validate(); err != nil {
			return err
		}
	}
	m.p.assignedPodUpdated(m, oldPod, newPod, event)
	return nil
}

// crossTopology lists the unschedulable pods an assigned pod may help, as
// spec.Queue.AssignedPodAdded selects them (R11).
func (m *Model) crossTopology(assigned *spec.Pod) []spec.PodKey {
	return m.unschedulable(func(r record) bool {
		p := r.info.Pod
		if r.info.UnschedulablePlugins.Has(spec.PluginPodTopologySpread) && p.Namespace == assigned.Namespace {
			return true
		}
		return slices.ContainsFunc(p.RequiredAffinityTerms, func(t spec.AffinityTerm) bool {
			return t.Matches(p.Namespace, assigned)
		})
	})
}

// Done is R12 of spec.Queue. UIDs are unique among held pods (I1), so at
// most one pod matches.
func (m *Model) Done(uid spec.UID) error {
	for k, r := range m.pods {
		if r.loc == spec.InFlight && r.info.Pod.UID == uid {
			delete(m.pods, k)
			m.p.leftFlight(m, uid)
			return nil
		}
	}
	return fmt.Errorf("%w: Done of UID %q", spec.ErrNotInFlight, uid)
}

// Close is R13 of spec.Queue. The model has no blocked Pop and no flush
// loop: it only records that it is closed.
func (m *Model) Close() { m.closed = true }

// String renders the state in queue terms, one place a line, in the format
// of spec.Snapshot.Format with absolute times (the model does not know
// when a scenario started).
func (m *Model) String() string {
	s := m.Snapshot()
	return s.Format(time.Time{}, m.cfg)
}
