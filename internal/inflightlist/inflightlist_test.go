package inflightlist

import (
	"container/list"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/schedq/schedq/spec"
)

// Stand-ins with upstream's layout (names as in active_queue.go).
type (
	pod          struct{ ns, name, uid string }
	clusterEvent struct {
		event          string
		oldObj, newObj any
	}
	activeQueuer interface{ len() int }
	activeQueue  struct{ inFlightEvents *list.List }
	queue        struct{ activeQ activeQueuer }
	renamed      struct{ events *list.List }
)

func (*activeQueue) len() int { return 0 }
func (*renamed) len() int     { return 0 }

var convert = Convert{
	Marker: func(v any) (spec.InFlightEntry, bool) {
		p, ok := v.(*pod)
		if !ok {
			return spec.InFlightEntry{}, false
		}
		return spec.InFlightEntry{UID: spec.UID(p.uid), Key: spec.PodKey(p.ns + "/" + p.name)}, true
	},
	Event: func(v any) (spec.ClusterEvent, bool) {
		s, ok := v.(string)
		return spec.ClusterEvent{Resource: spec.ResourceNode, ActionType: spec.Add, Label: s}, ok
	},
	Pod: func(v any) *spec.Pod {
		if p, ok := v.(*pod); ok {
			return &spec.Pod{Namespace: p.ns, Name: p.name, UID: spec.UID(p.uid)}
		}
		return nil
	},
}

func TestRead(t *testing.T) {
	l := list.New()
	a := &pod{"ns", "a", "uid-a"}
	l.PushBack(a)
	l.PushBack(&clusterEvent{event: "NodeAdd", newObj: a})
	l.PushBack(&clusterEvent{event: "NodeAdd", oldObj: "not a pod"})
	got, ok := Read(&queue{activeQ: &activeQueue{inFlightEvents: l}}, convert)
	want := []spec.InFlightEntry{
		{UID: "uid-a", Key: "ns/a"},
		{Event: spec.Occurrence{Event: spec.ClusterEvent{Resource: spec.ResourceNode, ActionType: spec.Add, Label: "NodeAdd"},
			New: &spec.Pod{Namespace: "ns", Name: "a", UID: "uid-a"}}},
		{Event: spec.Occurrence{Event: spec.ClusterEvent{Resource: spec.ResourceNode, ActionType: spec.Add, Label: "NodeAdd"}}},
	}
	if !ok {
		t.Fatal("Read: the layout was not recognised")
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Read (-want +got):\n%s", d)
	}
	if got, ok := Read(&queue{activeQ: &activeQueue{}}, convert); !ok || got != nil {
		t.Errorf("a nil list: %v, %v; want nil, true", got, ok)
	}
}

// A layout that changed is reported, never misread.
func TestReadRefusesAnotherLayout(t *testing.T) {
	l := list.New()
	l.PushBack(42) // neither a marker nor a record
	for name, q := range map[string]any{
		"not a pointer":        queue{},
		"no activeQ":           &struct{ other int }{},
		"nil activeQ":          &queue{},
		"list renamed":         &queue{activeQ: &renamed{events: list.New()}},
		"unknown value":        &queue{activeQ: &activeQueue{inFlightEvents: l}},
		"record without event": &queue{activeQ: &activeQueue{inFlightEvents: listOf(&struct{ oldObj, newObj any }{})}},
	} {
		if got, ok := Read(q, convert); ok {
			t.Errorf("%s: read as %v", name, got)
		}
	}
}

func listOf(vs ...any) *list.List {
	l := list.New()
	for _, v := range vs {
		l.PushBack(v)
	}
	return l
}
