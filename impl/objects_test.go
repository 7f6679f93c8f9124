package impl_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/schedq/schedq/impl"
	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// Caller objects and verdicts (R19, spec.ObjectQueue) at the edges the
// scenarios do not reach: bad events change nothing, and a hint that
// panics under the queue's lock answers Queue instead of bringing the
// queue down.

// parkedUnder returns a hints queue on cfg with pod a parked in
// unschedulablePods, rejected by Fit.
func parkedUnder(t *testing.T, cfg spec.Config) *impl.PriorityQueue {
	t.Helper()
	q, err := impl.New(cfg, impl.WithClock(clocktesting.NewFakeClock(t0)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(q.Close)
	if err := q.Add(schedqtest.Pod("a", 0)); err != nil {
		t.Fatal(err)
	}
	p, cycle := mustPop(t, q)
	p.UnschedulablePlugins = spec.NewPluginSet(schedqtest.PluginFit)
	if err := q.AddUnschedulableIfNotPresent(p, cycle); err != nil {
		t.Fatal(err)
	}
	if s := q.Snapshot(); len(s.UnschedulablePods) != 1 {
		t.Fatalf("a is not parked: %+v", s)
	}
	return q
}

// TestInvalidEventsChangeNothing: an unknown action bit, or no resource,
// is spec.ErrInvalidEvent from every method that takes a caller's event,
// and the queue is as before, in both profiles.
func TestInvalidEventsChangeNothing(t *testing.T) {
	bad := []spec.ClusterEvent{
		{Resource: spec.ResourceNode, ActionType: 1 << 40},
		{ActionType: spec.Add},
	}
	for _, cfg := range []spec.Config{schedqtest.Config(), schedqtest.HintsConfig()} {
		q := parkedUnder(t, cfg)
		before := q.Snapshot()
		for _, ev := range bad {
			if err := q.MoveAllToActiveOrBackoffQueueWithObjects(spec.Occurrence{Event: ev, NewObject: &schedqtest.Node{Name: "n"}}, nil); !errors.Is(err, spec.ErrInvalidEvent) {
				t.Errorf("%v: move with %+v: %v, want ErrInvalidEvent", cfg.Profile, ev, err)
			}
			pod := schedqtest.Pod("a", 0)
			if err := q.UpdateWithChange(pod, pod, &spec.PodChange{Relevant: true, Events: []spec.ClusterEvent{ev}}); !errors.Is(err, spec.ErrInvalidEvent) {
				t.Errorf("%v: update with %+v: %v, want ErrInvalidEvent", cfg.Profile, ev, err)
			}
			if err := q.AssignedPodUpdated(nil, schedqtest.Pod("x", 0), ev); !errors.Is(err, spec.ErrInvalidEvent) {
				t.Errorf("%v: assigned update with %+v: %v, want ErrInvalidEvent", cfg.Profile, ev, err)
			}
		}
		after := q.Snapshot()
		after.Now = before.Now
		if d := cmp.Diff(before, after); d != "" {
			t.Errorf("%v: invalid events changed the queue (-before +after):\n%s", cfg.Profile, d)
		}
	}
}

// TestPanickingHintCountsAsQueue (R16): a hint that panics is an answer
// it could not give, Queue, as spec.Config's hint call has it; the queue
// stays usable.
func TestPanickingHintCountsAsQueue(t *testing.T) {
	cfg := schedqtest.HintsConfig()
	cfg.QueueingHints[spec.HintKey{Plugin: schedqtest.PluginFit, Event: schedqtest.NodeAdd}] = func(*spec.Pod, spec.Occurrence) (spec.QueueingHint, error) {
		panic("a hint that dereferences a nil node")
	}
	q := parkedUnder(t, cfg)
	if err := q.MoveAllToActiveOrBackoffQueueWithObjects(spec.Occurrence{Event: schedqtest.NodeAdd}, nil); err != nil {
		t.Fatal(err)
	}
	if s := q.Snapshot(); len(s.UnschedulablePods) != 0 || len(s.BackoffQ)+len(s.ActiveQ) != 1 {
		t.Errorf("after a panicking hint: %+v, want a requeued", s)
	}
	if err := q.CheckConsistency(); err != nil {
		t.Error(err)
	}
}
