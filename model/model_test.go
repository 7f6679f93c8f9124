package model_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/schedq/schedq/model"
	"github.com/schedq/schedq/spec"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func pod(name string, prio int32) *spec.Pod {
	return &spec.Pod{Namespace: "ns", Name: name, UID: spec.UID("uid-" + name), Priority: prio}
}

func newModel(t *testing.T) *model.Model {
	t.Helper()
	m, err := model.New(spec.DefaultConfig(nil), t0)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Ties in activeQ are unordered upstream: the model lists every pod Pop may
// return, and PopPod refuses any other.
func TestPopCandidatesExposeTies(t *testing.T) {
	m := newModel(t)
	for _, p := range []*spec.Pod{pod("b", 1), pod("a", 1), pod("low", 0)} {
		if err := m.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := m.PopCandidates(), []spec.PodKey{"ns/a", "ns/b"}; !slices.Equal(got, want) {
		t.Fatalf("PopCandidates = %v, want %v", got, want)
	}
	if _, _, err := m.PopPod("ns/low"); err == nil {
		t.Fatal("PopPod of a non-maximal pod succeeded")
	}
	p, cycle, err := m.PopPod("ns/b")
	if err != nil || p.Key() != "ns/b" || cycle != 1 {
		t.Fatalf("PopPod(b) = %v, %d, %v", p, cycle, err)
	}
}

func TestPopOnEmptyWouldBlock(t *testing.T) {
	m := newModel(t)
	if _, _, err := m.Pop(); !errors.Is(err, spec.ErrWouldBlock) {
		t.Fatalf("Pop on empty = %v, want ErrWouldBlock", err)
	}
	m.Close()
	if _, _, err := m.Pop(); !errors.Is(err, spec.ErrClosed) {
		t.Fatalf("Pop after Close = %v, want ErrClosed", err)
	}
}

func TestCloneIsIndependentAndEqual(t *testing.T) {
	m := newModel(t)
	if err := m.Add(pod("a", 0)); err != nil {
		t.Fatal(err)
	}
	c := m.Clone()
	if !c.Equal(m) || !m.Equal(c) {
		t.Fatal("a clone is not equal to its original")
	}
	if _, _, err := c.Pop(); err != nil {
		t.Fatal(err)
	}
	if c.Equal(m) {
		t.Fatal("popping the clone changed nothing it can see")
	}
	if m.Where("ns/a") != spec.InActiveQ {
		t.Fatalf("popping the clone moved the original's pod to %s", m.Where("ns/a"))
	}
	d := m.Clone()
	if err := d.Step(time.Second); err != nil {
		t.Fatal(err)
	}
	if d.Equal(m) {
		t.Fatal("models at different times compare equal")
	}
}

func TestStepRejectsNegative(t *testing.T) {
	m := newModel(t)
	if err := m.Step(-time.Nanosecond); err == nil || !m.Now().Equal(t0) {
		t.Fatalf("negative step: err=%v now=%v", err, m.Now())
	}
}

func TestStringNamesQueues(t *testing.T) {
	m := newModel(t)
	_ = m.Add(pod("a", 3))
	s := m.String()
	for _, want := range []string{"activeQ: a(prio=3 ts=", "attempts=0)", "moveRequestCycle=-1", "backoffQ:", "unschedulablePods:", "inFlight:"} {
		if !strings.Contains(s, want) {
			t.Errorf("String() lacks %q:\n%s", want, s)
		}
	}
}
