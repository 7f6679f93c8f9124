package model

import (
	"errors"
	"testing"
	"time"

	"github.com/schedq/schedq/spec"
)

// TestPodGroupCycle walks one group through G2, G3, G4 and G5 and checks
// the podgroups invariants after every step.
func TestPodGroupCycle(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cfg := spec.DefaultHintsConfig(spec.PluginEvents{"P": {{Resource: spec.ResourceNode, ActionType: spec.Add}}})
	cfg.Profile = spec.ProfilePodGroups
	m, err := New(cfg, t0)
	if err != nil {
		t.Fatal(err)
	}
	check := func(step string) {
		t.Helper()
		s := m.Snapshot()
		if err := spec.CheckPodGroupsState(&s); err != nil {
			t.Fatalf("after %s: %v\n%s", step, err, m)
		}
	}
	pod := func(name string) *spec.Pod {
		return &spec.Pod{Namespace: "ns", Name: name, UID: spec.UID(name), Group: "g1"}
	}
	a, b := pod("a"), pod("b")
	if err := m.Add(a); err != nil {
		t.Fatal(err)
	}
	check("Add a")
	if m.Where(a.Key()) != inIncomplete {
		t.Fatalf("a should wait in incompletePodGroupPods:\n%s", m)
	}
	g1 := &spec.PodGroup{Namespace: "ns", Name: "g1"}
	if err := m.AddPodGroup(g1); err != nil {
		t.Fatal(err)
	}
	check("AddPodGroup")
	if err := m.Add(b); err != nil {
		t.Fatal(err)
	}
	check("Add b")
	if _, _, err := m.Pop(); !errors.Is(err, spec.ErrGroupEntity) {
		t.Fatalf("Pop of a group: %v", err)
	}
	ent, _, err := m.PopEntity()
	if err != nil || ent.Group == nil || ent.Group.Size() != 2 {
		t.Fatalf("PopEntity: %+v %v\n%s", ent, err, m)
	}
	check("PopEntity")
	fa := ent.Group.Members[0]
	fa.UnschedulablePlugins = spec.NewPluginSet("P")
	if err := m.AddUnschedulableIfNotPresent(&fa, 1); err != nil {
		t.Fatal(err)
	}
	check("failure of a")
	if m.Where(a.Key()) != inPending {
		t.Fatalf("a should be pending:\n%s", m)
	}
	if err := m.Done(b.UID); err != nil {
		t.Fatal(err)
	}
	if err := m.AddAttemptedPodGroupIfNeeded(ent.Group, 1, spec.AttemptRejected); err != nil {
		t.Fatal(err)
	}
	check("AddAttempted")
	s := m.Snapshot()
	e, ok := s.PodGroups.Entity(g1.Key())
	if !ok || e.Place != spec.InBackoffQ || e.UnschedulableCount != 1 || len(e.Members) != 1 {
		t.Fatalf("the group should back off with a alone:\n%s", m)
	}
	m.Step(2 * time.Second)
	m.FlushBackoffQCompleted()
	check("flush")
	if m.Where(a.Key()) != spec.InActiveQ {
		t.Fatalf("a should be back in activeQ:\n%s", m)
	}
}
