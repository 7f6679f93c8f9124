package boundary

import (
	"slices"
	"testing"
	"time"

	"github.com/schedq/schedq/spec"
)

func TestStepsLandOnEveryBoundary(t *testing.T) {
	cfg := spec.DefaultConfig(nil)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := t0.Add(500 * time.Millisecond)
	p := func(n string) *spec.Pod { return &spec.Pod{Namespace: "ns", Name: n, UID: spec.UID(n)} }
	s := spec.Snapshot{
		Now:               now,
		BackoffQ:          []spec.QueuedPodInfo{{Pod: p("b"), Timestamp: t0, Attempts: 1}},                 // expiry t0+1s
		UnschedulablePods: []spec.QueuedPodInfo{{Pod: p("u"), Timestamp: t0, Attempts: 2}},                 // expiry t0+2s, limit t0+5m
		ActiveQ:           []spec.QueuedPodInfo{{Pod: p("a"), Timestamp: t0, Attempts: 3}},                 // no boundary: it is poppable
		InFlight:          []spec.QueuedPodInfo{{Pod: p("f"), Timestamp: t0.Add(-time.Hour), Attempts: 1}}, // none either
	}
	want := []time.Duration{}
	for _, at := range []time.Duration{time.Second, 2 * time.Second, cfg.PodMaxInUnschedulablePodsDuration} {
		d := t0.Add(at).Sub(now)
		want = append(want, d-1, d, d+1)
	}
	if got := Steps(s, cfg); !slices.Equal(got, want) {
		t.Errorf("Steps = %v, want %v", got, want)
	}
	// Stepping by each lands exactly on, before or after the boundary.
	for _, d := range Steps(s, cfg) {
		at := now.Add(d)
		b := s.BackoffQ[0]
		exp := cfg.BackoffExpiry(&b)
		if diff := at.Sub(exp); diff >= -1 && diff <= 1 {
			if back := cfg.IsBackingOff(&b, at); back != (diff <= 0) {
				t.Errorf("at expiry%+dns IsBackingOff = %v", diff, back)
			}
		}
	}
	if _, ok := Pick(spec.Snapshot{Now: now}, cfg, 3); ok {
		t.Error("Pick found a boundary in an empty queue")
	}
	// A boundary already passed gives no step.
	late := s
	late.Now = t0.Add(time.Hour)
	if got := Steps(late, cfg); len(got) != 0 {
		t.Errorf("Steps after every boundary = %v", got)
	}
}
