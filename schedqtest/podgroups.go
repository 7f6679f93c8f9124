package schedqtest

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/schedq/schedq/spec"
)

// The scenario language of the podgroups profile ("config
// profile=podgroups", spec.ProfilePodGroups, rules G1-G11):
//
//	add a group=g1 [prio=N]          a member of pod group g1 (G1, G2)
//	podgroup-add g1 [prio=N]         the informer saw PodGroup g1 (G11)
//	podgroup-update g1 prio=N        a new version of it (G11)
//	podgroup-delete g1               it was deleted (G11)
//	pop [choose=a|choose=group:g1]   PopEntity (G3): a pod alone or a group
//	fail a plugins=(Fit)             a member's failure (G4), as any pod's
//	attempted g1 status=rejected     the end of g1's cycle (G5), handing
//	                                 back what PopEntity returned for g1
//
// In this profile "pop" is PopEntity: its result line is PopText for a pod
// alone and "popped group g1 cycle=N attempts=N members=a,b" for a group,
// and "fail" of a member hands back the member's QueuedPodInfo as the
// group's Pop returned it. States print the pod groups after the four
// places (spec.PodGroupsState): the known objects, the queued entities
// with their members and fields, the groups whose cycle is open, and the
// members waiting in pendingPodGroupPods and incompletePodGroupPods.

// ErrNoPodGroupQueue: the queue does not implement spec.PodGroupQueue,
// so the podgroups profile's operations do not apply to it.
var ErrNoPodGroupQueue = errors.New("the queue has no pod groups (spec.PodGroupQueue)")

// IsPodGroupOp reports whether the operation exists only in the
// podgroups profile.
func (o Op) IsPodGroupOp() bool {
	switch o.Kind {
	case KindPodGroupAdd, KindPodGroupUpdate, KindPodGroupDelete, KindAttempted:
		return true
	}
	return o.Pod.Group != nil
}

func (p *argParser) podGroupArgs(op *Op) {
	op.Group = p.positional("pod group name")
	switch op.Kind {
	case KindPodGroupAdd, KindPodGroupUpdate:
		if p.has("prio") {
			op.GroupPriority = int32(p.int("prio", 32))
		}
	case KindAttempted:
		s, err := spec.ParseAttemptStatus(p.str("status"))
		if err != nil && p.err == nil {
			p.fail("attempted: %v", err)
		}
		op.Status = s
	}
}

func (o Op) podGroupWords() []string {
	w := []string{o.Group}
	switch o.Kind {
	case KindPodGroupAdd, KindPodGroupUpdate:
		if o.GroupPriority != 0 {
			w = append(w, fmt.Sprintf("prio=%d", o.GroupPriority))
		}
	case KindAttempted:
		w = append(w, "status="+o.Status.String())
	}
	return w
}

// PodGroupOf is the pod group a name stands for: namespace "ns".
func PodGroupOf(name string, prio int32) *spec.PodGroup {
	return &spec.PodGroup{Namespace: Namespace, Name: name, Priority: prio}
}

// GroupKey is the key of the pod group a name stands for.
func GroupKey(name string) spec.PodGroupKey { return spec.PodGroupKey(Namespace + "/" + name) }

// EntityKeyOf is the entity a "choose=" names: "group:g1" for a pod
// group, a pod name otherwise.
func EntityKeyOf(choose string) spec.EntityKey {
	if g, ok := strings.CutPrefix(choose, "group:"); ok {
		return spec.GroupEntityKey(GroupKey(g))
	}
	return spec.PodEntityKey(Key(choose))
}

// EntityName is the inverse of EntityKeyOf.
func EntityName(k spec.EntityKey) string {
	if g, ok := strings.CutPrefix(string(k), "group:"); ok {
		return "group:" + strings.TrimPrefix(g, Namespace+"/")
	}
	return NameOf(spec.PodKey(k))
}

// EntityText is the result line of a successful PopEntity.
func EntityText(e *spec.QueuedEntity, cycle int64) string {
	if e == nil || e.Group == nil {
		if e == nil {
			return PopText(nil, cycle)
		}
		return PopText(e.Pod, cycle)
	}
	g := e.Group
	names := make([]string, len(g.Members))
	for i := range g.Members {
		names[i] = NameOf(g.Members[i].Key())
	}
	return fmt.Sprintf("popped group %s cycle=%d attempts=%d members=%s", g.PodGroup.Name, cycle, g.Attempts, strings.Join(names, ","))
}

// podGroupQueue is the queue as a spec.PodGroupQueue.
func (e *Executor) podGroupQueue(k Kind) (spec.PodGroupQueue, error) {
	pq, ok := e.q.(spec.PodGroupQueue)
	if !ok {
		return nil, fmt.Errorf("%s: %w", k, ErrNoPodGroupQueue)
	}
	return pq, nil
}

// applyPodGroupOp performs the podgroups profile's own operations.
func (e *Executor) applyPodGroupOp(op Op, o *Outcome) error {
	pq, err := e.podGroupQueue(op.Kind)
	if err != nil {
		return err
	}
	k := GroupKey(op.Group)
	o.Step.Group = k
	switch op.Kind {
	case KindPodGroupAdd:
		pg := PodGroupOf(op.Group, op.GroupPriority)
		if o.Step.Err = pq.AddPodGroup(pg); o.Step.Err == nil {
			e.groups[k] = pg
		}
	case KindPodGroupUpdate:
		old, ok := e.groups[k]
		if !ok {
			old = PodGroupOf(op.Group, 0)
		}
		nw := *old
		nw.Priority = op.GroupPriority
		if o.Step.Err = pq.UpdatePodGroup(old, &nw); o.Step.Err == nil {
			e.groups[k] = &nw
		}
	case KindPodGroupDelete:
		pg, ok := e.groups[k]
		if !ok {
			pg = PodGroupOf(op.Group, 0)
		}
		if o.Step.Err = pq.DeletePodGroup(pg); o.Step.Err == nil {
			delete(e.groups, k)
		}
	case KindAttempted:
		rec, ok := e.poppedGroups[k]
		if !ok {
			return fmt.Errorf("attempted %s: PopEntity never returned this group", op.Group)
		}
		info := rec.Info
		info.Members = slices.Clone(info.Members)
		o.Step.Err = pq.AddAttemptedPodGroupIfNeeded(&info, rec.Cycle, op.Status)
	}
	return nil
}

// PoppedGroup returns what the last PopEntity returned for the group k.
func (e *Executor) PoppedGroup(k spec.PodGroupKey) (PoppedGroup, bool) {
	p, ok := e.poppedGroups[k]
	return p, ok
}

// PodGroupsOnly reports whether the operation exists only in the
// podgroups profile's language.
func (k Kind) PodGroupsOnly() bool {
	switch k {
	case KindPodGroupAdd, KindPodGroupUpdate, KindPodGroupDelete, KindAttempted:
		return true
	}
	return false
}

// PoppedGroup is what one PopEntity returned for a pod group.
type PoppedGroup struct {
	Info  spec.QueuedPodGroupInfo
	Cycle int64
}

// ApplyPopEntity performs a PopEntity through pop and records what it
// returned: for a group, the group for "attempted" and each member for
// "fail".
func (e *Executor) ApplyPopEntity(pop func() (spec.QueuedEntity, int64, error)) Outcome {
	o := Outcome{Op: Op{Kind: KindPop}, Step: spec.StepRecord{Rule: spec.R2Pop}}
	ent, cycle, err := pop()
	o.Step.Err = err
	if err != nil {
		return o
	}
	o.Entity, o.Cycle = &ent, cycle
	switch {
	case ent.Group != nil:
		o.Step.Rule, o.Step.Group = spec.G3PopGroup, ent.Group.Key()
		e.poppedGroups[ent.Group.Key()] = PoppedGroup{Info: *ent.Group, Cycle: cycle}
		for _, m := range ent.Group.Members {
			e.popped[m.Key()] = Popped{Info: m, Cycle: cycle}
		}
	case ent.Pod != nil:
		o.Step.Pod = ent.Pod.Key()
		o.Popped = ent.Pod
		e.popped[ent.Pod.Key()] = Popped{Info: *ent.Pod, Cycle: cycle}
	}
	return o
}

// EntityEqual compares two popped entities: the pod alone as InfoEqual
// with the hint fields, a group by its object, fields and members.
func EntityEqual(a, b *spec.QueuedEntity) bool {
	switch {
	case a == nil || b == nil:
		return a == b
	case a.Group != nil || b.Group != nil:
		if a.Group == nil || b.Group == nil {
			return false
		}
		x, y := a.Group, b.Group
		return spec.PodGroupsEqual(x.PodGroup, y.PodGroup) && spec.EntityParamsEqual(&x.EntityParams, &y.EntityParams) &&
			slices.EqualFunc(x.Members, y.Members, func(p, q spec.QueuedPodInfo) bool {
				return InfoEqual(&p, &q) && spec.HintFieldsEqual(&p.HintFields, &q.HintFields)
			})
	}
	return a.Pod != nil && b.Pod != nil && InfoEqual(a.Pod, b.Pod) && spec.HintFieldsEqual(&a.Pod.HintFields, &b.Pod.HintFields)
}

// stepPopEntity is a "pop" of the podgroups profile: PopEntity on the
// target, the shadow following its choice among the entities the model
// allows (G3).
func (s *Stepper) stepPopEntity(st *Step) (spec.StepRecord, error) {
	m := s.Shadow.Model
	cands := m.EntityCandidates()
	if len(cands) == 0 && !m.Closed() && s.Opts.Blocking {
		return spec.StepRecord{}, fmt.Errorf("%w: pop with nothing to pop would block this target", ErrScenario)
	}
	pq, ok := s.Target.(spec.PodGroupQueue)
	if !ok {
		st.problem("error mismatch", "%s: the target has no pod groups (spec.PodGroupQueue)", spec.G3PopGroup)
		return spec.StepRecord{Rule: spec.R2Pop}, nil
	}
	to := s.Exec.ApplyPopEntity(pq.PopEntity)
	st.Target, st.TargetLines = to, []string{to.String()}
	var mo Outcome
	switch {
	case to.Err() != nil:
		mo = s.Shadow.Exec.ApplyPopEntity(m.PopEntity)
		if !SameError(mo.Err(), to.Err()) {
			st.problem("error mismatch", "%s returned a different outcome\n  model:  %s\n  target: %s", spec.G3PopGroup, mo, to)
		}
	case m.Closed() || !slices.Contains(cands, to.Entity.Key()):
		mo = s.Shadow.Exec.ApplyPopEntity(m.PopEntity)
		st.problem("I5", "I5: PopEntity returned %s; the model allows %v\n  model:  %s\n  target: %s", to.Entity.Key(), cands, mo, to)
	default:
		k := to.Entity.Key()
		mo = s.Shadow.Exec.ApplyPopEntity(func() (spec.QueuedEntity, int64, error) { return m.PopEntityKey(k) })
		if k != cands[0] {
			st.Followed, st.Chosen = true, EntityName(k)
		}
		if mo.Cycle != to.Cycle || !EntityEqual(mo.Entity, to.Entity) {
			st.problem("Pop outcome", "%s returned a different entity\n  model:  %s %+v\n  target: %s %+v", spec.G3PopGroup, mo, entityFields(mo.Entity), to, entityFields(to.Entity))
		}
	}
	st.Model, st.ModelLines = mo, []string{mo.String()}
	return to.Step, nil
}

func entityFields(e *spec.QueuedEntity) any {
	switch {
	case e == nil:
		return nil
	case e.Group != nil:
		return *e.Group
	}
	return e.Pod
}
