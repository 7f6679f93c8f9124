package model_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/schedq/schedq/model"
	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// R19 (caller objects) and the caller's update verdict (R9, R9h), checked
// on any spec.ObjectQueue: the model passes, and two broken queues built
// on it (an object dropper and a verdict ignorer) must fail, so that each
// check is shown able to fail.

// callerPod is a caller's own pod object, opaque to the queue.
type callerPod struct{ spec string }

// seen records what a hint was shown.
type seen struct{ objs []any }

// objectsCfg is the hints profile with Fit's NodeAdd hint recording the
// event objects it sees (and answering by NodeZoneHint).
func objectsCfg(s *seen) spec.Config {
	cfg := schedqtest.HintsConfig()
	cfg.QueueingHints[spec.HintKey{Plugin: schedqtest.PluginFit, Event: nodeAdd}] = func(p *spec.Pod, ev spec.Occurrence) (spec.QueueingHint, error) {
		s.objs = append(s.objs, ev.NewObject)
		return schedqtest.NodeZoneHint(p, ev)
	}
	return cfg
}

// checkObjects runs R19's promises on q, made with objectsCfg(s): the pod's
// Object comes back untouched from Pop and Snapshot; the event's object
// reaches the hint on a move and, recorded, on the replay of a pod that
// was in flight.
func checkObjects(q spec.ObjectQueue, s *seen) error {
	obj := &callerPod{spec: "tolerations: [gpu]"}
	a := &spec.Pod{Namespace: "ns", Name: "a", UID: "uid-a", Labels: map[string]string{"zone": "b"}, Object: obj}
	if err := q.Add(a); err != nil {
		return err
	}
	info, cycle, err := q.Pop()
	if err != nil {
		return err
	}
	if info.Pod.Object != obj {
		return fmt.Errorf("Pop returned the pod with Object %v, want the caller's %p", info.Pod.Object, obj)
	}
	node := &schedqtest.Node{Name: "n1", Labels: map[string]string{"zone": "a"}}
	if err := q.MoveAllToActiveOrBackoffQueueWithObjects(spec.Occurrence{Event: nodeAdd, NewObject: node}, nil); err != nil {
		return err
	}
	info.UnschedulablePlugins = spec.NewPluginSet(schedqtest.PluginFit)
	if err := q.AddUnschedulableIfNotPresent(info, cycle); err != nil {
		return err
	}
	if len(s.objs) != 1 || s.objs[0] != node {
		return fmt.Errorf("the replay showed the hint %v, want the recorded node %p", s.objs, node)
	}
	snap := q.Snapshot()
	if loc, got := snap.Find(a.Key()); loc != spec.InUnschedulablePods || got.Pod.Object != obj {
		return fmt.Errorf("after the replay a is in %v with Object %v; want unschedulablePods (the node of zone a does not help) and the caller's object", loc, got.Pod.Object)
	}
	zoneB := &schedqtest.Node{Name: "n2", Labels: map[string]string{"zone": "b"}}
	if err := q.MoveAllToActiveOrBackoffQueueWithObjects(spec.Occurrence{Event: nodeAdd, NewObject: zoneB}, nil); err != nil {
		return err
	}
	if len(s.objs) != 2 || s.objs[1] != zoneB {
		return fmt.Errorf("the move showed the hint %v, want the node %p last", s.objs, zoneB)
	}
	snap = q.Snapshot()
	if loc, _ := snap.Find(a.Key()); loc != spec.InBackoffQ {
		return fmt.Errorf("a node of zone b helps a: it is in %v, want backoffQ", loc)
	}
	return nil
}

// checkVerdict runs the caller's verdict in the classic profile on q: an
// update the caller calls relevant requeues a parked pod although no field
// Pod models changed; one it calls irrelevant leaves it parked although
// its labels changed.
func checkVerdict(q spec.ObjectQueue) error {
	for _, n := range []string{"a", "b"} {
		if err := q.Add(schedqtest.Pod(n, 0)); err != nil {
			return err
		}
		info, cycle, err := q.Pop()
		if err != nil {
			return err
		}
		info.UnschedulablePlugins = spec.NewPluginSet("TaintToleration")
		if err := q.AddUnschedulableIfNotPresent(info, cycle); err != nil {
			return err
		}
	}
	a := schedqtest.Pod("a", 0)
	if err := q.UpdateWithChange(a, a, &spec.PodChange{Relevant: true}); err != nil {
		return err
	}
	b, b2 := schedqtest.Pod("b", 0), schedqtest.Pod("b", 0)
	b2.Labels = map[string]string{"v": "x"}
	if err := q.UpdateWithChange(b, b2, &spec.PodChange{Relevant: false}); err != nil {
		return err
	}
	s := q.Snapshot()
	if loc, _ := s.Find("ns/a"); loc == spec.InUnschedulablePods {
		return fmt.Errorf("%s: a relevant update (caller's verdict) left a in unschedulablePods", spec.R9Update)
	}
	if loc, _ := s.Find("ns/b"); loc != spec.InUnschedulablePods {
		return fmt.Errorf("%s: an irrelevant update (caller's verdict) moved b to %v", spec.R9Update, loc)
	}
	return nil
}

// objectDropper is a broken ObjectQueue: it moves without the objects.
type objectDropper struct{ *model.Model }

func (q objectDropper) MoveAllToActiveOrBackoffQueueWithObjects(occ spec.Occurrence, pre spec.PreEnqueueCheck) error {
	q.MoveAllToActiveOrBackoffQueue(occ.Event, pre)
	return nil
}

// verdictIgnorer is a broken ObjectQueue: it derives the verdict itself.
type verdictIgnorer struct{ *model.Model }

func (q verdictIgnorer) UpdateWithChange(oldPod, newPod *spec.Pod, _ *spec.PodChange) error {
	return q.Update(oldPod, newPod)
}

func newObjModel(t *testing.T, cfg spec.Config) *model.Model {
	t.Helper()
	m, err := model.New(cfg, t0)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestR19CallerObjects(t *testing.T) {
	var s seen
	if err := checkObjects(newObjModel(t, objectsCfg(&s)), &s); err != nil {
		t.Fatalf("%s: %v", spec.R19Objects, err)
	}
	var d seen
	if err := checkObjects(objectDropper{newObjModel(t, objectsCfg(&d))}, &d); err == nil {
		t.Errorf("%s: the object dropper passed the check", spec.R19Objects)
	}
}

func TestR9CallerVerdict(t *testing.T) {
	if err := checkVerdict(newObjModel(t, schedqtest.Config())); err != nil {
		t.Fatal(err)
	}
	if err := checkVerdict(verdictIgnorer{newObjModel(t, schedqtest.Config())}); err == nil {
		t.Errorf("%s: the verdict ignorer passed the check", spec.R9Update)
	}
}

// A hint shown an object of the wrong type, or none, or that panics,
// answers Queue (R16); the queue never panics.
func TestR16BadObjectsCountAsQueue(t *testing.T) {
	for name, occ := range map[string]spec.Occurrence{
		"no object":        {Event: nodeAdd},
		"a nil node":       {Event: nodeAdd, NewObject: (*schedqtest.Node)(nil)},
		"a pod, not nodes": {Event: nodeAdd, NewObject: &callerPod{}},
		"panicking hint":   {Event: nodeAdd, NewObject: "panic"},
	} {
		t.Run(name, func(t *testing.T) {
			cfg := schedqtest.HintsConfig()
			cfg.QueueingHints[spec.HintKey{Plugin: schedqtest.PluginFit, Event: nodeAdd}] = func(p *spec.Pod, ev spec.Occurrence) (spec.QueueingHint, error) {
				if ev.NewObject == "panic" {
					panic("a broken hint")
				}
				return schedqtest.NodeZoneHint(p, ev)
			}
			m := newObjModel(t, cfg)
			_ = m.Add(labelled("a", "zone", "b"))
			info, cycle, _ := m.Pop()
			info.UnschedulablePlugins = spec.NewPluginSet(schedqtest.PluginFit)
			_ = m.AddUnschedulableIfNotPresent(info, cycle)
			if err := m.MoveAllToActiveOrBackoffQueueWithObjects(occ, nil); err != nil {
				t.Fatal(err)
			}
			if loc := m.Where("ns/a"); loc != spec.InBackoffQ {
				t.Errorf("%s: a is in %v, want backoffQ (Queue)", spec.R16QueueingHints, loc)
			}
		})
	}
}

// An event with an unknown action bit is ErrInvalidEvent and changes
// nothing (I4).
func TestInvalidEventChangesNothing(t *testing.T) {
	m := newObjModel(t, schedqtest.Config())
	_ = m.Add(schedqtest.Pod("a", 0))
	before := m.Snapshot()
	for _, occ := range []spec.Occurrence{
		{Event: spec.ClusterEvent{Resource: spec.ResourceNode, ActionType: spec.All + 1}},
		{Event: spec.ClusterEvent{ActionType: spec.Add}},
		{Event: spec.ClusterEvent{Resource: spec.ResourceNode}},
	} {
		if err := m.MoveAllToActiveOrBackoffQueueWithObjects(occ, nil); !errors.Is(err, spec.ErrInvalidEvent) {
			t.Errorf("%v: %v, want ErrInvalidEvent", occ.Event, err)
		}
	}
	bad := &spec.PodChange{Events: []spec.ClusterEvent{{Resource: spec.ResourceTargetPod, ActionType: 1 << 40}}}
	if err := m.UpdateWithChange(schedqtest.Pod("a", 0), schedqtest.Pod("a", 0), bad); !errors.Is(err, spec.ErrInvalidEvent) {
		t.Errorf("UpdateWithChange with an unknown action: %v, want ErrInvalidEvent", err)
	}
	after := m.Snapshot()
	if d := before.Diff(&after); d != "" {
		t.Errorf("a rejected event changed the state: %s", d)
	}
}
