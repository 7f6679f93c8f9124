package schedqtest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/schedq/schedq/spec"
)

// Start is when every scenario begins: the clock of a fresh target reads
// Start, and rendered times are relative to it.
var Start = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Render is the state as the model prints it in scenarios (see
// spec.Snapshot.Format): times relative to start, nanosecond exact, each
// backoffQ pod with its expiry under cfg.
func Render(s spec.Snapshot, start time.Time, cfg spec.Config) string {
	return s.Format(start, cfg)
}

// Popped is what one Pop returned for a pod: the QueuedPodInfo and the
// podSchedulingCycle to hand back with it.
type Popped struct {
	Info  spec.QueuedPodInfo
	Cycle int64
}

// ErrNoObjectQueue: the queue does not implement spec.ObjectQueue, so an
// operation with event objects or an update verdict does not apply to it.
var ErrNoObjectQueue = errors.New("the queue takes no caller objects or update verdicts (spec.ObjectQueue, R19)")

// ErrNoNominator: the queue does not implement spec.Nominator, so the
// nominator operations do not apply to it.
var ErrNoNominator = errors.New("the queue has no nominator (spec.Nominator)")

// Executor applies operations to a spec.Queue, keeping the bookkeeping a
// scenario needs by pod key: the last version of each pod it added or
// updated (so "update a labels=(v=x)" changes that version, and "delete a"
// passes it), and what each Pop returned (so "fail a" hands back that
// QueuedPodInfo and cycle, as a scheduler would). It does not check
// anything: callers compare Outcomes and snapshots.
type Executor struct {
	q        spec.Queue
	tick     func(time.Duration) error
	versions map[spec.PodKey]*spec.Pod
	popped   map[spec.PodKey]Popped
	// entities: the podgroups profile, where "pop" is PopEntity;
	// groups and poppedGroups are its pod groups' last versions and what
	// PopEntity returned for each (podgroups.go).
	entities     bool
	groups       map[spec.PodGroupKey]*spec.PodGroup
	poppedGroups map[spec.PodGroupKey]PoppedGroup
}

// NewExecutor returns an executor for q whose "tick" calls tick (the
// queue's clock step; nil makes tick a scenario error).
func NewExecutor(q spec.Queue, tick func(time.Duration) error) *Executor {
	return &Executor{q: q, tick: tick, versions: map[spec.PodKey]*spec.Pod{}, popped: map[spec.PodKey]Popped{},
		groups: map[spec.PodGroupKey]*spec.PodGroup{}, poppedGroups: map[spec.PodGroupKey]PoppedGroup{}}
}

// ForProfile makes "pop" PopEntity when p is the podgroups profile, and
// returns e.
func (e *Executor) ForProfile(p spec.Profile) *Executor {
	e.entities = p == spec.ProfilePodGroups
	return e
}

// Queue is the queue the executor drives.
func (e *Executor) Queue() spec.Queue { return e.q }

// Popped returns what the last Pop returned for the pod with this key.
func (e *Executor) Popped(k spec.PodKey) (Popped, bool) {
	p, ok := e.popped[k]
	return p, ok
}

// Remember makes p the last version of its pod, as if the executor had
// added it: the operations that name the pod pass p. A caller that
// replays an operation on another queue (linearizability's model) hands
// it the pods the first queue was passed.
func (e *Executor) Remember(p *spec.Pod) { e.versions[p.Key()] = p }

// RememberPop records p as what Pop returned for its pod, as ApplyPop
// does: a "fail" of the pod hands it back.
func (e *Executor) RememberPop(p Popped) { e.popped[p.Info.Key()] = p }

// Outcome is what one operation did.
type Outcome struct {
	Op Op
	// Step is the operation as spec.CheckStep takes it: rule, pod,
	// podSchedulingCycle and the error the queue returned.
	Step spec.StepRecord
	// Popped is what Pop returned (pop only, nil on error).
	Popped *spec.QueuedPodInfo
	// Cycle is the podSchedulingCycle Pop returned.
	Cycle int64
	// Nominated is what "nominated" returned: the names of the pods
	// nominated to the node, in nomination order.
	Nominated []string
	// NominatedPods are those pods as the queue listed them.
	NominatedPods []*spec.Pod
	// Entity is what PopEntity returned (pop in the podgroups profile).
	Entity *spec.QueuedEntity
}

// Err is the error the queue returned.
func (o Outcome) Err() error { return o.Step.Err }

// String is the result line of a scenario: "ok", "error: <sentinel
// text>", or for pop "popped a cycle=1 attempts=1".
func (o Outcome) String() string {
	if o.Step.Err != nil {
		return "error: " + ErrorText(o.Step.Err)
	}
	if o.Op.Kind == KindPop {
		if o.Entity != nil {
			return EntityText(o.Entity, o.Cycle)
		}
		return PopText(o.Popped, o.Cycle)
	}
	if o.Op.Kind == KindNominated {
		if len(o.Nominated) == 0 {
			return "nominated to " + o.Op.Node + ": -"
		}
		return "nominated to " + o.Op.Node + ": " + strings.Join(o.Nominated, " ")
	}
	return "ok"
}

// PopText is the result line of a successful Pop.
func PopText(p *spec.QueuedPodInfo, cycle int64) string {
	if p == nil || p.Pod == nil {
		return fmt.Sprintf("popped <nil> cycle=%d", cycle)
	}
	s := fmt.Sprintf("popped %s cycle=%d attempts=%d", NameOf(p.Key()), cycle, p.Attempts)
	if len(p.UnschedulablePlugins) > 0 {
		s += " plugins=" + strings.Join(p.UnschedulablePlugins, ",")
	}
	return s
}

// version is the last version of the pod r names, or r built afresh.
func (e *Executor) version(r PodRef) *spec.Pod {
	if r.Nil {
		return nil
	}
	if p, ok := e.versions[r.Key()]; ok && r.UID == nil {
		return p
	}
	return PodRef{Name: r.Name, Namespace: r.Namespace, UID: r.UID}.Build()
}

// Apply performs op on the queue. The error is a mistake in the scenario
// (e.g. "fail a" for a pod never popped, or "pop blocked", which the
// caller must run itself); what the queue returned is in the Outcome.
func (e *Executor) Apply(op Op) (Outcome, error) {
	o := Outcome{Op: op, Step: spec.StepRecord{Rule: op.Rule()}}
	q := e.q
	switch op.Kind {
	case KindAdd:
		p := op.Pod.Build()
		o.Step.Pod = op.Pod.Key()
		if o.Step.Err = q.Add(p); o.Step.Err == nil {
			e.versions[p.Key()] = p
		}
	case KindPop:
		if op.Blocked {
			return o, fmt.Errorf("pop blocked: the executor does not run blocking Pops")
		}
		if op.Choose != "" {
			return o, fmt.Errorf("pop choose=%s: only a model run can choose", op.Choose)
		}
		if e.entities {
			pq, err := e.podGroupQueue(op.Kind)
			if err != nil {
				return o, err
			}
			return e.ApplyPopEntity(pq.PopEntity), nil
		}
		return e.ApplyPop(q.Pop), nil
	case KindFail:
		info, cycle, err := e.FailInfo(op)
		if err != nil {
			return o, err
		}
		o.Step.Pod, o.Step.PodSchedulingCycle = info.Key(), cycle
		o.Step.Err = q.AddUnschedulableIfNotPresent(info, cycle)
	case KindMove:
		o.Step.Move = &spec.MoveRecord{Occurrence: spec.Occurrence{Event: op.Event}, PreCheck: PreCheck(op.PreCheck)}
		if !op.NeedsObjectQueue() {
			q.MoveAllToActiveOrBackoffQueue(op.Event, o.Step.Move.PreCheck)
			break
		}
		oq, ok := q.(spec.ObjectQueue)
		if !ok {
			return o, fmt.Errorf("%s: %w", op.Kind, ErrNoObjectQueue)
		}
		occ := spec.Occurrence{Event: op.Event}
		if op.OldObject != nil {
			occ.OldObject = op.OldObject
		}
		if op.NewObject != nil {
			occ.NewObject = op.NewObject
		}
		o.Step.Move.Occurrence = occ
		o.Step.Err = oq.MoveAllToActiveOrBackoffQueueWithObjects(occ, o.Step.Move.PreCheck)
	case KindFlushBackoff:
		q.FlushBackoffQCompleted()
	case KindFlushLeftover:
		q.FlushUnschedulablePodsLeftover()
	case KindTick:
		if e.tick == nil {
			return o, fmt.Errorf("tick: this queue has no clock to step")
		}
		if err := e.tick(op.Duration); err != nil {
			return o, fmt.Errorf("tick %v: %w", op.Duration, err)
		}
	case KindActivate:
		pods := make([]*spec.Pod, len(op.Pods))
		for i, r := range op.Pods {
			pods[i] = e.version(r)
		}
		o.Step.Err = q.Activate(pods)
	case KindUpdate:
		old, nw := e.UpdatePods(op)
		o.Step.Pod = nw.Key()
		update := q.Update
		if op.Change != nil {
			oq, ok := q.(spec.ObjectQueue)
			if !ok {
				return o, fmt.Errorf("%s: %w", op.Kind, ErrNoObjectQueue)
			}
			update = func(old, nw *spec.Pod) error { return oq.UpdateWithChange(old, nw, op.Change) }
		}
		if o.Step.Err = update(old, nw); o.Step.Err == nil {
			e.versions[nw.Key()] = nw
		}
	case KindDelete:
		p := e.version(op.Pod)
		o.Step.Pod = op.Pod.Key()
		if o.Step.Err = q.Delete(p); o.Step.Err == nil && p != nil {
			delete(e.versions, p.Key())
		}
	case KindAssignedAdd:
		p := op.Pod.Build()
		o.Step.Move = &spec.MoveRecord{Occurrence: spec.Occurrence{Event: spec.EventAssignedPodAdd, New: p}}
		o.Step.Err = q.AssignedPodAdded(p)
	case KindAssignedUpdate:
		old, nw := AssignedPods(op)
		o.Step.Move = &spec.MoveRecord{Occurrence: spec.Occurrence{Event: op.Event, Old: old, New: nw}}
		o.Step.Err = q.AssignedPodUpdated(old, nw, op.Event)
	case KindDone:
		snap := q.Snapshot()
		for _, p := range snap.InFlight {
			if p.Pod.UID == spec.UID(op.UID) {
				o.Step.Pod = p.Key()
			}
		}
		o.Step.Err = q.Done(spec.UID(op.UID))
	case KindClose:
		q.Close()
	case KindPodGroupAdd, KindPodGroupUpdate, KindPodGroupDelete, KindAttempted:
		if err := e.applyPodGroupOp(op, &o); err != nil {
			return o, err
		}
	case KindNominate, KindNominated:
		n, ok := q.(spec.Nominator)
		if !ok {
			return o, fmt.Errorf("%s: %w", op.Kind, ErrNoNominator)
		}
		if op.Kind == KindNominated {
			o.NominatedPods = n.NominatedPodsForNode(op.Node)
			for _, p := range o.NominatedPods {
				o.Nominated = append(o.Nominated, NameOf(p.Key()))
			}
			break
		}
		p := e.version(op.Pod)
		o.Step.Pod = op.Pod.Key()
		mode := spec.NominateOverride
		if op.Noop {
			mode = spec.NominateNoop
		}
		o.Step.Err = n.AddNominatedPod(p, mode, op.Node)
	default:
		return o, fmt.Errorf("unknown operation %q", op.Kind)
	}
	return o, nil
}

// ApplyPop performs a Pop through pop (the queue's Pop, or a caller's that
// chooses among the allowed pods) and records what it returned.
func (e *Executor) ApplyPop(pop func() (*spec.QueuedPodInfo, int64, error)) Outcome {
	o := Outcome{Op: Op{Kind: KindPop}, Step: spec.StepRecord{Rule: spec.R2Pop}}
	p, cycle, err := pop()
	o.Step.Err = err
	if err == nil && p != nil && p.Pod != nil {
		o.Step.Pod = p.Key()
		o.Popped, o.Cycle = p, cycle
		e.popped[p.Key()] = Popped{Info: *p, Cycle: cycle}
	}
	return o
}

// FailInfo is the QueuedPodInfo and cycle "fail" hands back: a copy of
// what Pop returned for the pod (or, for never-popped, one made up from
// its last version and Attempts), with the rejecting plugins set and the
// cycle overridden if the op says so.
func (e *Executor) FailInfo(op Op) (*spec.QueuedPodInfo, int64, error) {
	k := op.Pod.Key()
	var info spec.QueuedPodInfo
	var cycle int64
	if op.NeverPopped {
		info = spec.QueuedPodInfo{Pod: e.version(op.Pod), Attempts: op.Attempts}
	} else {
		rec, ok := e.popped[k]
		if !ok {
			return nil, 0, fmt.Errorf("fail %s: Pop never returned this pod; write \"fail %s never-popped attempts=N\" to hand back a made-up one",
				NameOf(k), NameOf(k))
		}
		info, cycle = rec.Info, rec.Cycle
	}
	if op.Cycle != nil {
		cycle = *op.Cycle
	}
	// As written, not normalised: every queue must normalise the sets it
	// is handed (R3), and conformance checks that it does. The scheduler
	// replaces both sets of rejectors with the new attempt's (R3h): in the
	// hints profile Pop no longer clears them.
	info.UnschedulablePlugins = spec.PluginSet(slices.Clone(op.Plugins))
	info.PendingPlugins = spec.PluginSet(slices.Clone(op.Pending))
	return &info, cycle, nil
}

// UpdatePods are the old and new versions "update" passes: the old one is
// the pod's last version (or the named pod afresh), the new one a copy with
// the op's changes; uid= gives the new one another UID (a re-created pod).
func (e *Executor) UpdatePods(op Op) (oldPod, newPod *spec.Pod) {
	last := op.Pod
	last.UID = nil // uid= is the new version's: the pod was re-created
	oldPod = e.version(last)
	nw := *oldPod
	if op.Pod.UID != nil {
		nw.UID = spec.UID(*op.Pod.UID)
	}
	if op.Pod.Priority != nil {
		nw.Priority = *op.Pod.Priority
	}
	if op.Pod.Labels != nil {
		nw.Labels = PodRef{Labels: op.Pod.Labels}.Build().Labels
	}
	if op.Pod.Affinity != nil {
		nw.RequiredAffinityTerms = PodRef{Affinity: op.Pod.Affinity}.Build().RequiredAffinityTerms
	}
	if op.Touch {
		nw.ResourceVersion += "1"
		nw.Status = "PodScheduled=False"
	}
	if op.Rename != "" {
		nw.Name, nw.UID = op.Rename, UIDOf(op.Rename)
	}
	if op.Pod.Group != nil {
		nw.Group = *op.Pod.Group
	}
	return oldPod, &nw
}

// AssignedPods are the old and new versions "assigned-update" passes.
func AssignedPods(op Op) (oldPod, newPod *spec.Pod) {
	newPod = op.Pod.Build()
	if newPod == nil {
		return nil, nil
	}
	o := *newPod
	if op.OldLabels != nil {
		o.Labels = PodRef{Labels: op.OldLabels}.Build().Labels
	}
	return &o, newPod
}

// PreCheck is the preCheck of "move ... precheck=(names)": it lets through
// the pods with these names; nil names give a nil preCheck.
func PreCheck(names []string) spec.PreEnqueueCheck {
	if names == nil {
		return nil
	}
	names = slices.Clone(names)
	return func(p *spec.Pod) bool { return slices.Contains(names, p.Name) }
}
