//go:build !k8s133 && !k8s134 && !k8s135 && !k8s136

package upstream

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"
	"unsafe"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/backend/heap"
	"k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/schedq/schedq/conformance"
	"github.com/schedq/schedq/spec"
)

// The podgroups profile from v1.37 (GenericWorkload on): the target is a
// spec.PodGroupQueue in all but ObjectQueue, which the upstream adapter
// does not implement in any profile. A member's group travels as
// pod.Spec.SchedulingGroup; the pod-group objects as scheduling/v1beta1
// PodGroups with the group's priority. The adapter keeps the popped
// QueuedPodGroupInfo of each open cycle to hand back to
// AddAttemptedPodGroupIfNeeded, as the scheduler keeps the one Pop
// returned. What upstream holds and does not export (the pod-group
// objects, the last popped entity, the members waiting in
// pendingPodGroupPods and incompletePodGroupPods, activeQ's head) is read
// by reflection, for observation only.

// hasPodGroups: the release queues pod groups as entities.
func hasPodGroups() bool { return true }

// poppedGroup is what the adapter keeps of a popped group until the end
// of its cycle.
type poppedGroup = *framework.QueuedPodGroupInfo

func setGroup(p *v1.Pod, group string) {
	if group != "" {
		g := group
		p.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: &g}
	}
}

func groupOf(p *v1.Pod) string {
	if sg := p.Spec.SchedulingGroup; sg != nil && sg.PodGroupName != nil {
		return *sg.PodGroupName
	}
	return ""
}

func toV1PodGroup(g *spec.PodGroup) *schedulingv1beta1.PodGroup {
	prio := g.Priority
	return &schedulingv1beta1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: g.Namespace, Name: g.Name},
		Spec: schedulingv1beta1.PodGroupSpec{Priority: &prio}}
}

func toSpecPodGroup(pg *schedulingv1beta1.PodGroup) spec.PodGroup {
	out := spec.PodGroup{Namespace: pg.Namespace, Name: pg.Name}
	if pg.Spec.Priority != nil {
		out.Priority = *pg.Spec.Priority
	}
	return out
}

func entityParams(qp *framework.QueueingParams) spec.EntityParams {
	out := spec.EntityParams{Timestamp: qp.Timestamp, Attempts: qp.Attempts, BackoffExpiry: qp.BackoffExpiration,
		HintFields: spec.HintFields{UnschedulableCount: qp.UnschedulableCount, ConsecutiveErrorsCount: qp.ConsecutiveErrorsCount,
			GatingPlugin: qp.GatingPlugin, FlushTimestamp: qp.FlushTimestamp}}
	if qp.InitialAttemptTimestamp != nil {
		out.InitialAttemptTimestamp = *qp.InitialAttemptTimestamp
	}
	if qp.UnschedulableCount == 0 && qp.ConsecutiveErrorsCount == 0 {
		// The expiry upstream backs off by: none with both counts 0
		// (backoff_queue.go:232-236, getBackoffTime), whatever is cached.
		// A successful cycle resets the counts and leaves the expiry of
		// the failed cycle before it cached, never read.
		out.BackoffExpiry = time.Time{}
	}
	if len(qp.PendingPlugins) > 0 {
		out.PendingPlugins = spec.NewPluginSet(slices.Collect(maps.Keys(qp.PendingPlugins))...)
	}
	return out
}

// groupInfo is the popped group in schedq's words, members sorted by key.
func (t *Target) groupInfo(g *framework.QueuedPodGroupInfo) *spec.QueuedPodGroupInfo {
	out := &spec.QueuedPodGroupInfo{EntityParams: entityParams(&g.QueueingParams)}
	if ns, name, pg := groupObject(g.PodGroupInfo); pg != nil {
		spg := toSpecPodGroup(pg)
		out.PodGroup = &spg
	} else {
		out.PodGroup = &spec.PodGroup{Namespace: ns, Name: name}
	}
	for pi := range members(g) {
		out.Members = append(out.Members, t.info(pi))
	}
	spec.SortPods(out.Members)
	return out
}

// PopEntity is G3: upstream's Pop, which returns a pod or a pod group.
func (t *Target) PopEntity() (spec.QueuedEntity, int64, error) {
	e, err := t.q.Pop(t.logger)
	if err != nil {
		return spec.QueuedEntity{}, 0, err
	}
	return t.recordEntity(e, t.q.SchedulingCycle())
}

// recordEntity is the adapter's part of PopEntity, after upstream's Pop:
// the popped pods go in flight in the adapter's records, a group is kept
// for the end of its cycle.
func (t *Target) recordEntity(e framework.QueuedEntityInfo, cycle int64) (spec.QueuedEntity, int64, error) {
	switch e := e.(type) {
	case nil:
		return spec.QueuedEntity{}, 0, spec.ErrClosed
	case *framework.QueuedPodInfo:
		t.flightMu.Lock()
		t.inFlight[podKeyOf(e.Pod)] = e
		t.flightMu.Unlock()
		out := t.info(e)
		return spec.QueuedEntity{Pod: &out}, cycle, nil
	case *framework.QueuedPodGroupInfo:
		out := t.groupInfo(e)
		t.flightMu.Lock()
		for pi := range members(e) {
			t.inFlight[podKeyOf(pi.Pod)] = pi
		}
		t.popped[out.Key()] = e
		t.flightMu.Unlock()
		return spec.QueuedEntity{Group: out}, cycle, nil
	default:
		return spec.QueuedEntity{}, 0, fmt.Errorf("upstream Pop returned a %T", e)
	}
}

func podKeyOf(p *v1.Pod) spec.PodKey { return spec.PodKey(p.Namespace + "/" + p.Name) }

// popGuard is Pop's refusal of a group (ErrGroupEntity) in the podgroups
// profile: Pop cannot carry a group, and upstream's Pop would take it, so
// the adapter looks at activeQ's head first (under activeQ's lock). With
// activeQ empty upstream's Pop takes from backoffQ, which in this profile
// yields pods only (a group has no rejectors of its own).
func (t *Target) popGuard() error {
	if t.cfg.Profile != spec.ProfilePodGroups {
		return nil
	}
	aq, ok := activeQueueOf(t.q)
	if !ok {
		panic("upstream adapter: cannot read activeQ (activeQueue.queue): upstream's layout changed")
	}
	aq.lock.RLock()
	head, ok := aq.queue.Peek()
	aq.lock.RUnlock()
	if ok {
		if _, group := head.(*framework.QueuedPodGroupInfo); group {
			return spec.ErrGroupEntity
		}
	}
	return nil
}

// toStatus is the scheduler's status for an attempt.
func toStatus(s spec.AttemptStatus) *fwk.Status {
	switch s {
	case spec.AttemptSuccess:
		return fwk.NewStatus(fwk.Success)
	case spec.AttemptRejected:
		return fwk.NewStatus(fwk.Unschedulable, "rejected")
	}
	return fwk.AsStatus(errors.New("scheduling error"))
}

// AddAttemptedPodGroupIfNeeded is G5: the QueuedPodGroupInfo Pop returned,
// its counts as the caller hands them back; for a group never popped (no
// open cycle), a new one built from gInfo, as a scheduler that kept a copy
// would hand it.
func (t *Target) AddAttemptedPodGroupIfNeeded(gInfo *spec.QueuedPodGroupInfo, cycle int64, status spec.AttemptStatus) error {
	if err := gInfo.Validate(); err != nil {
		return err
	}
	if status < spec.AttemptSuccess || status > spec.AttemptError {
		return fmt.Errorf("%w: attempt status %v", spec.ErrInvalidPodGroup, status)
	}
	// The group leaves the adapter's records before upstream requeues it,
	// as a failed pod does (AddUnschedulableIfNotPresent): a blocked
	// PopEntity may take the group again before the call returns.
	k := gInfo.Key()
	t.flightMu.Lock()
	pg, ok := t.popped[k]
	delete(t.popped, k)
	t.flightMu.Unlock()
	if !ok {
		pg = &framework.QueuedPodGroupInfo{PodGroupInfo: newPodGroupInfo(toV1PodGroup(gInfo.PodGroup))}
		pg.Timestamp = gInfo.Timestamp
		if !gInfo.InitialAttemptTimestamp.IsZero() {
			ts := gInfo.InitialAttemptTimestamp
			pg.InitialAttemptTimestamp = &ts
		}
	}
	pg.Attempts = gInfo.Attempts
	pg.UnschedulableCount = gInfo.UnschedulableCount
	pg.ConsecutiveErrorsCount = gInfo.ConsecutiveErrorsCount
	err := t.q.AddAttemptedPodGroupIfNeeded(t.logger, pg, cycle, toStatus(status))
	if err != nil {
		// Refused: nothing was queued, the cycle stays open.
		if ok {
			t.flightMu.Lock()
			t.popped[k] = pg
			t.flightMu.Unlock()
		}
		return fmt.Errorf("%w: %v", spec.ErrAlreadyQueued, err)
	}
	return nil
}

// AddPodGroup is G11. Upstream returns nothing: a group it knows is
// replaced (SilentNoOps).
func (t *Target) AddPodGroup(pg *spec.PodGroup) error {
	if err := pg.Validate(); err != nil {
		return err
	}
	addPodGroup(t.q, t.logger, toV1PodGroup(pg))
	return nil
}

// UpdatePodGroup is G11.
func (t *Target) UpdatePodGroup(oldPG, newPG *spec.PodGroup) error {
	if err := oldPG.Validate(); err != nil {
		return err
	}
	if err := newPG.Validate(); err != nil {
		return err
	}
	if oldPG.Key() != newPG.Key() {
		return fmt.Errorf("%w: the key changes", spec.ErrInvalidPodGroup)
	}
	updatePodGroup(t.q, t.logger, toV1PodGroup(newPG))
	return nil
}

// DeletePodGroup is G11.
func (t *Target) DeletePodGroup(pg *spec.PodGroup) error {
	if err := pg.Validate(); err != nil {
		return err
	}
	deletePodGroup(t.q, t.logger, toV1PodGroup(pg))
	return nil
}

// podGroupsState is Snapshot.PodGroups, from upstream's own structures,
// for the snapshot s whose four places are filled. InCycle is the group of
// upstream's last popped entity: the one marker upstream keeps of an open
// cycle.
func (t *Target) podGroupsState(s *spec.Snapshot) *spec.PodGroupsState {
	in, ok := readPodGroupInternals(t.q)
	if !ok {
		panic("upstream adapter: cannot read the pod-group state (workloadForest, pendingPodGroupPods, lastPoppedEntityKey): upstream's layout changed")
	}
	out := &spec.PodGroupsState{}
	groups := map[spec.PodGroupKey]bool{}
	for _, pg := range in.podGroups {
		g := toSpecPodGroup(pg)
		out.PodGroups = append(out.PodGroups, g)
		groups[g.Key()] = true
	}
	slices.SortFunc(out.PodGroups, func(a, b spec.PodGroup) int { return strings.Compare(string(a.Key()), string(b.Key())) })
	places := map[spec.PodKey]spec.Location{}
	for _, pl := range s.Places() {
		for i := range pl.Pods {
			places[pl.Pods[i].Key()] = pl.Loc
			if gk := pl.Pods[i].Pod.GroupKey(); gk != "" {
				groups[gk] = true // an entity of a group upstream no longer knows, if any
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(groups)) {
		ns, name, _ := strings.Cut(string(k), "/")
		e, ok := getPodGroup(t.q, name, ns)
		if !ok {
			continue
		}
		ent := spec.PodGroupEntity{Group: k, Place: spec.Nowhere, EntityParams: entityParams(&e.QueueingParams)}
		for pi := range members(e) {
			pk := podKeyOf(pi.Pod)
			ent.Members = append(ent.Members, pk)
			if l, ok := places[pk]; ok {
				ent.Place = l
			}
		}
		slices.Sort(ent.Members)
		out.Entities = append(out.Entities, ent)
	}
	if k, ok := strings.CutPrefix(in.lastPopped, string(fwk.PodGroupKeyType)+"/"); ok {
		out.InCycle = []spec.PodGroupKey{spec.PodGroupKey(k)}
	}
	for _, pi := range in.pending {
		out.PendingPodGroupPods = append(out.PendingPodGroupPods, t.info(pi))
	}
	for _, pi := range in.incomplete {
		out.IncompletePodGroupPods = append(out.IncompletePodGroupPods, t.info(pi))
	}
	spec.SortPods(out.PendingPodGroupPods)
	spec.SortPods(out.IncompletePodGroupPods)
	return out
}

// activeQueueView is what the adapter reads of upstream's activeQueue.
type activeQueueView struct {
	lock  *sync.RWMutex
	queue *heap.Heap[framework.QueuedEntityInfo]
}

// field returns the named field of the struct v points to, addressable
// and readable although unexported.
func field(v reflect.Value, name string) (reflect.Value, bool) {
	if v.Kind() == reflect.Interface {
		v = v.Elem()
	}
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return reflect.Value{}, false
	}
	f := v.Elem().FieldByName(name)
	if !f.IsValid() {
		return reflect.Value{}, false
	}
	return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem(), true
}

func activeQueueOf(q *queue.PriorityQueue) (activeQueueView, bool) {
	aq, ok := field(reflect.ValueOf(q), "activeQ")
	if !ok {
		return activeQueueView{}, false
	}
	l, ok1 := field(aq, "lock")
	h, ok2 := field(aq, "queue")
	if !ok1 || !ok2 || l.Type() != reflect.TypeFor[sync.RWMutex]() || h.Type() != reflect.TypeFor[*heap.Heap[framework.QueuedEntityInfo]]() {
		return activeQueueView{}, false
	}
	return activeQueueView{lock: l.Addr().Interface().(*sync.RWMutex), queue: h.Interface().(*heap.Heap[framework.QueuedEntityInfo])}, true
}

type podGroupInternals struct {
	podGroups           []*schedulingv1beta1.PodGroup
	lastPopped          string
	pending, incomplete []*framework.QueuedPodInfo
}

// readPodGroupInternals reads, under the queue's locks, the pod-group
// objects of the workload forest, activeQ's last popped entity, and the
// members waiting in pendingPodGroupPods and incompletePodGroupPods.
func readPodGroupInternals(q *queue.PriorityQueue) (podGroupInternals, bool) {
	var out podGroupInternals
	pq := reflect.ValueOf(q)
	lock, ok := field(pq, "lock")
	if !ok || lock.Type() != reflect.TypeFor[sync.RWMutex]() {
		return out, false
	}
	mu := lock.Addr().Interface().(*sync.RWMutex)
	mu.RLock()
	defer mu.RUnlock()
	forest, ok := field(pq, "workloadForest")
	if !ok {
		return out, false
	}
	pgs, ok := field(forest, "podGroups")
	if !ok {
		return out, false
	}
	if out.podGroups, ok = forestPodGroups(pgs.Interface()); !ok {
		return out, false
	}
	members := func(name string) ([]*framework.QueuedPodInfo, bool) {
		store, ok := field(pq, name)
		if !ok {
			return nil, false
		}
		m, ok := field(store, "podGroupToPodInfos")
		if !ok || m.Type() != reflect.TypeFor[map[fwk.EntityKey]map[fwk.EntityKey]*framework.QueuedPodInfo]() {
			return nil, false
		}
		var pis []*framework.QueuedPodInfo
		for _, byPod := range m.Interface().(map[fwk.EntityKey]map[fwk.EntityKey]*framework.QueuedPodInfo) {
			pis = slices.AppendSeq(pis, maps.Values(byPod))
		}
		return pis, true
	}
	var ok1, ok2 bool
	out.pending, ok1 = members("pendingPodGroupPods")
	out.incomplete, ok2 = members("incompletePodGroupPods")
	if !ok1 || !ok2 {
		return out, false
	}
	aq, ok := field(pq, "activeQ")
	if !ok {
		return out, false
	}
	al, ok1 := field(aq, "lock")
	lp, ok2 := field(aq, "lastPoppedEntityKey")
	if !ok1 || !ok2 || lp.Kind() != reflect.String {
		return out, false
	}
	amu := al.Addr().Interface().(*sync.RWMutex)
	amu.RLock()
	out.lastPopped = lp.String()
	amu.RUnlock()
	return out, true
}

// groupTarget is the target of the podgroups profile: Target with
// spec.ObjectQueue's two calls, so that it is a spec.PodGroupQueue, which
// the scenario runner asks of a podgroups target. The classic and hints
// targets stay without them (their scenarios with caller objects are n/a
// on upstream). Upstream takes a move's pod objects but hands its hints
// no other caller object through this adapter, and decides an update's
// verdict itself: those two are refused with ErrNoCallerObjects, and
// nothing changes.
type groupTarget struct{ *Target }

var _ spec.PodGroupQueue = groupTarget{}

// wrapProfile is the target for cfg's profile.
func wrapProfile(t *Target) conformance.Target {
	switch {
	case t.cfg.Profile == spec.ProfilePodGroups:
		return groupTarget{t}
	case t.cfg.PreQueueing:
		return objectTarget{t}
	}
	return t
}

// MoveAllToActiveOrBackoffQueueWithObjects is R4h with the event's pods.
func (g groupTarget) MoveAllToActiveOrBackoffQueueWithObjects(occ spec.Occurrence, pre spec.PreEnqueueCheck) error {
	if err := occ.Validate(); err != nil {
		return err
	}
	if g.cfg.PreQueueing {
		// G14: the pre-queueing hints read the event's node objects, as
		// in the hints profile.
		return objectTarget(g).MoveAllToActiveOrBackoffQueueWithObjects(occ, pre)
	}
	if occ.OldObject != nil || occ.NewObject != nil {
		return errNoCallerObjects
	}
	var oldObj, newObj any
	if occ.Old != nil {
		oldObj = toV1(occ.Old)
	}
	if occ.New != nil {
		newObj = toV1(occ.New)
	}
	g.countedMove(occ.Event, func() {
		g.q.MoveAllToActiveOrBackoffQueue(g.logger, toEvent(occ.Event), oldObj, newObj, g.preCheck(pre))
	})
	return nil
}

// UpdateWithChange is R9h; upstream derives the verdict itself, so only a
// nil change (Update's own) is taken.
func (g groupTarget) UpdateWithChange(oldPod, newPod *spec.Pod, change *spec.PodChange) error {
	return g.updateWithChange(oldPod, newPod, change)
}
