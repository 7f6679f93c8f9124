// Package model is the executable specification of the scheduling queue: a
// sequential state machine over spec types, written to be read. Time is an
// input (Step), both flushes are explicit operations, and where upstream is
// nondeterministic the model says which outcomes are allowed instead of
// picking one: PopCandidates lists every pod Pop may return.
//
// The model is the oracle of every other suite. It knows nothing of
// goroutines, locks or wall time.
package model

import (
	"fmt"
	"maps"
	"slices"
	"strings"
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

var _ spec.Queue = (*Model)(nil)

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
		a.HintFields.Equal(&b.HintFields)
}

// Snapshot implements spec.Queue.
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
	return s
}

// SchedulingCycle implements spec.Queue.
func (m *Model) SchedulingCycle() int64 { return m.schedulingCycle }

// MoveRequestCycle is the cycle of the last move request, -1 before any.
func (m *Model) MoveRequestCycle() int64 { return m.moveRequestCycle }

// Closed reports whether Close was called.
func (m *Model) Closed() bool { return m.closed }

// Where returns where the pod with this key is.
func (m *Model) Where(key spec.PodKey) spec.Location { return m.pods[key].loc }

// uidHeldElsewhere reports an error if another key holds the pod's UID: a
// UID names one pod object, and Done (R12) must know which pod it ends.
func (m *Model) uidHeldElsewhere(pod *spec.Pod) error {
	for k, r := range m.pods {
		if r.info.Pod.UID == pod.UID && k != pod.Key() {
			return fmt.Errorf("%w: UID %q of %s is held by %s", spec.ErrAlreadyQueued, pod.UID, pod.Key(), k)
		}
	}
	return nil
}

// moveToActiveQ puts a pod in activeQ. The first time a pod gets there its
// InitialAttemptTimestamp is set, as upstream's moveToActiveQ does.
func (m *Model) moveToActiveQ(info spec.QueuedPodInfo) {
	if info.InitialAttemptTimestamp.IsZero() {
		info.InitialAttemptTimestamp = m.now
	}
	m.pods[info.Key()] = record{info: info, loc: spec.InActiveQ}
}

// requeue is where a pod goes when an event makes it worth retrying: back to
// backoffQ if it is still backing off, else straight to activeQ (R4).
func (m *Model) requeue(info spec.QueuedPodInfo) {
	if m.cfg.IsBackingOff(&info, m.now) {
		m.p.admit(m, info, spec.InBackoffQ)
		return
	}
	m.p.admit(m, info, spec.InActiveQ)
}

// Add is R1.
//
// A pod already in activeQ or in flight is rejected with ErrAlreadyQueued
// and nothing changes: taking it again could only duplicate it (I1) or
// silently reset its attempts. A pod parked in backoffQ or unschedulablePods
// is replaced by a fresh entry in activeQ (Attempts 0, Timestamp now), as
// upstream's moveToActiveQ does when the informer delivers the pod again.
func (m *Model) Add(pod *spec.Pod) error {
	if err := pod.Validate(); err != nil {
		return err
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

// Pop is R2 with the model's own choice among PopCandidates: the smallest
// key. Callers that must accept any allowed outcome use PopCandidates and
// PopPod. On an empty activeQ the model cannot wait, so it returns
// ErrWouldBlock.
func (m *Model) Pop() (*spec.QueuedPodInfo, int64, error) {
	if m.closed {
		return nil, 0, spec.ErrClosed
	}
	c := m.PopCandidates()
	if len(c) == 0 {
		return nil, 0, spec.ErrWouldBlock
	}
	return m.PopPod(c[0])
}

// PopPod is R2 returning the given pod, which must be one of PopCandidates.
// R13: once closed, Pop returns ErrClosed even if activeQ is not empty.
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

// AddUnschedulableIfNotPresent is R3.
//
// A pod in activeQ, backoffQ or unschedulablePods is rejected with
// ErrAlreadyQueued. Otherwise the pod (normally in flight, but upstream
// accepts any pod) gets Timestamp=now and goes to backoffQ if a move request
// happened during or after its cycle (moveRequestCycle >=
// podSchedulingCycle) or no plugin rejected it, else to unschedulablePods.
// Attempts, UnschedulablePlugins and InitialAttemptTimestamp are taken from
// pInfo, as upstream takes the pInfo the scheduler hands back.
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

// MoveAllToActiveOrBackoffQueue is R4 over every unschedulable pod that
// passes preCheck.
func (m *Model) MoveAllToActiveOrBackoffQueue(event spec.ClusterEvent, preCheck spec.PreEnqueueCheck) {
	keys := m.unschedulable(func(r record) bool { return preCheck == nil || preCheck(r.info.Pod) })
	m.p.move(m, keys, spec.Occurrence{Event: event})
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

// FlushBackoffQCompleted is R5: every pod in backoffQ whose backoff has
// completed (strictly before now, see spec.Config.IsBackingOff) moves to
// activeQ.
func (m *Model) FlushBackoffQCompleted() {
	for _, r := range m.pods {
		if r.loc == spec.InBackoffQ && !m.cfg.IsBackingOff(&r.info, m.now) {
			m.moveToActiveQ(r.info)
		}
	}
}

// FlushUnschedulablePodsLeftover is R6: pods that have been in
// unschedulablePods for strictly longer than
// PodMaxInUnschedulablePodsDuration move as in R4 with the wildcard
// UnschedulableTimeout. When there is no such pod nothing happens, not even
// the moveRequestCycle update, as upstream only calls the move when it has
// pods to move.
func (m *Model) FlushUnschedulablePodsLeftover() {
	leftover := m.p.leftover(m)
	if len(leftover) > 0 {
		m.p.move(m, leftover, spec.Occurrence{Event: spec.EventUnschedulableTimeout})
	}
}

// Activate is R8: pods in unschedulablePods or backoffQ move to activeQ.
//
// For every other pod (in activeQ, in flight, or unknown) upstream v1.33
// sets moveRequestCycle = schedulingCycle, unconditionally: that is how an
// in-flight pod activated while it is being scheduled gets the shortcut
// when it fails. DESIGN.md says this for in-flight pods only; the source
// wins, so an unknown pod is not added but does advance moveRequestCycle.
// A nil pod in the list is an error and nothing changes.
func (m *Model) Activate(pods []*spec.Pod) error {
	for _, p := range pods {
		if err := p.Validate(); err != nil {
			return err
		}
	}
	for _, p := range pods {
		r, ok := m.pods[p.Key()]
		switch {
		case ok && r.loc == spec.InUnschedulablePods:
			m.p.admit(m, r.info, spec.InActiveQ)
		case ok && r.loc == spec.InBackoffQ:
			m.moveToActiveQ(r.info)
		default:
			m.p.activateOther(m, p)
		}
	}
	return nil
}

// Update is R9. The old and new pod must have the same key.
//
//   - In activeQ or backoffQ the pod is replaced in place; its Timestamp,
//     attempts and backoff are kept.
//   - In unschedulablePods it is replaced, and if the update may make it
//     schedulable (spec.IsPodUpdated) it moves to backoffQ when still backing
//     off, else to activeQ. This move is not an event: moveRequestCycle is
//     left alone, as upstream.
//   - In flight it is replaced in place. Upstream classic mode does not
//     track in-flight pods and would add a second copy to activeQ; schedq
//     keeps I1 instead (with queueing hints upstream also records the update
//     instead of queueing the pod).
//   - Unknown, it is added as in R1.
func (m *Model) Update(oldPod, newPod *spec.Pod) error {
	if err := oldPod.Validate(); err != nil {
		return err
	}
	if err := newPod.Validate(); err != nil {
		return err
	}
	if oldPod.Key() != newPod.Key() {
		return fmt.Errorf("%w: Update from %s to %s changes the key", spec.ErrInvalidPod, oldPod.Key(), newPod.Key())
	}
	if err := m.uidHeldElsewhere(newPod); err != nil {
		return err
	}
	r, ok := m.pods[newPod.Key()]
	if !ok {
		return m.Add(newPod)
	}
	if r.loc != spec.InFlight {
		m.nom.update(oldPod, newPod) // R18
	}
	r.info.Pod = newPod
	m.pods[newPod.Key()] = r
	switch r.loc {
	case spec.InUnschedulablePods:
		m.p.updateUnschedulable(m, newPod.Key(), oldPod, newPod)
	case spec.InFlight:
		m.p.updateInFlight(m, oldPod, newPod)
	}
	return nil
}

// Delete is R10: the pod leaves whichever place holds it, in flight
// included (a deleted pod must not be retried). ErrPodNotFound if the queue
// does not hold it.
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
	return nil
}

// AssignedPodAdded is R11: unschedulable pods that a newly assigned pod may
// help are moved as in R4 with EventAssignedPodAdd.
func (m *Model) AssignedPodAdded(pod *spec.Pod) error {
	if err := pod.Validate(); err != nil {
		return err
	}
	m.p.assignedPodAdded(m, pod)
	return nil
}

// AssignedPodUpdated is R11 for an update. A scale-down may free resources
// for any pod, so it is a move request over all unschedulable pods; any
// other update is prefiltered like AssignedPodAdded.
func (m *Model) AssignedPodUpdated(oldPod, newPod *spec.Pod, event spec.ClusterEvent) error {
	if err := newPod.Validate(); err != nil {
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

// crossTopology lists the unschedulable pods an assigned pod may help: those
// with a required affinity term it matches, and those PodTopologySpread
// rejected in the same namespace (upstream's
// getUnschedulablePodsWithCrossTopologyTerm).
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

// Done is R12: the pod in flight with this UID leaves the queue (it was
// bound, or given up). UIDs are unique among held pods, so at most one
// matches. ErrNotInFlight otherwise, changing nothing: after a
// failure AddUnschedulableIfNotPresent has already ended its time in flight.
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

// Close is R13: every later Pop returns ErrClosed. Other operations keep
// working on the state, as upstream.
func (m *Model) Close() { m.closed = true }

// String renders the state in queue terms, one place a line.
func (m *Model) String() string {
	s := m.Snapshot()
	var b strings.Builder
	fmt.Fprintf(&b, "now=%s schedulingCycle=%d moveRequestCycle=%d closed=%v\n",
		s.Now.Format(time.TimeOnly+".000"), s.SchedulingCycle, s.MoveRequestCycle, s.Closed)
	for _, pl := range s.Places() {
		fmt.Fprintf(&b, "%s:", pl.Loc)
		for _, p := range pl.Pods {
			fmt.Fprintf(&b, " %s(prio=%d,attempts=%d", p.Key(), p.Pod.Priority, p.Attempts)
			if len(p.UnschedulablePlugins) > 0 {
				fmt.Fprintf(&b, ",rejectedBy=%v", []string(p.UnschedulablePlugins))
			}
			if h := p.HintFields.String(); h != "" {
				b.WriteString("," + h)
			}
			b.WriteString(")")
		}
		b.WriteString("\n")
	}
	m.p.describe(&b)
	return b.String()
}
