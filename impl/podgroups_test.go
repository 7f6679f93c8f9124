package impl_test

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/schedq/schedq/impl"
	"github.com/schedq/schedq/internal/cputime"
	"github.com/schedq/schedq/spec"
)

// TestPodGroupsConcurrentGangs runs the podgroups profile under
// concurrency (run it with -race): informer goroutines add the members of
// eight groups and their PodGroup objects in any order, while one
// scheduler goroutine pops entities and, for a group, fails every other
// member, binds the rest and hands the cycle back rejected (no backoff:
// max-backoff 0, so the group returns at once). Every member must end
// bound, the queue empty and consistent; a Pop that waits for nothing,
// or a member lost or stuck pending, shows as a hang (bounded by the test
// timeout) or as a count that does not match.
func TestPodGroupsConcurrentGangs(t *testing.T) {
	cfg := spec.DefaultHintsConfig(events)
	cfg.Profile = spec.ProfilePodGroups
	cfg.PodMaxBackoffDuration = 0
	q, err := impl.New(cfg, impl.WithClock(clocktesting.NewFakeClock(t0)))
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	const groups, size = 8, 6
	var informers sync.WaitGroup
	for g := range groups {
		informers.Add(1)
		go func() {
			defer informers.Done()
			name := fmt.Sprintf("g%d", g)
			for i := range size {
				if i == size/2 {
					if err := q.AddPodGroup(&spec.PodGroup{Namespace: "ns", Name: name, Priority: int32(g)}); err != nil {
						t.Error(err)
					}
				}
				p := &spec.Pod{Namespace: "ns", Name: fmt.Sprintf("%s-%d", name, i), UID: spec.UID(fmt.Sprintf("u-%s-%d", name, i)), Group: name}
				if err := q.Add(p); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	bound := 0
	failedOnce := map[spec.PodKey]bool{}
	for bound < groups*size {
		ent, cycle, err := q.PopEntity()
		if err != nil {
			t.Fatalf("PopEntity: %v", err)
		}
		if ent.Group == nil {
			t.Fatalf("PopEntity returned a pod alone: %v", ent.Pod.Key())
		}
		for i, m := range ent.Group.Members {
			if i%2 == 0 && !failedOnce[m.Key()] {
				failedOnce[m.Key()] = true
				m.UnschedulablePlugins = spec.NewPluginSet("NodeFit")
				if err := q.AddUnschedulableIfNotPresent(&m, cycle); err != nil {
					t.Fatalf("failure of %s: %v", m.Key(), err)
				}
				continue
			}
			if err := q.Done(m.Pod.UID); err != nil {
				t.Fatalf("Done of %s: %v", m.Key(), err)
			}
			bound++
		}
		if err := q.AddAttemptedPodGroupIfNeeded(ent.Group, cycle, spec.AttemptRejected); err != nil {
			t.Fatalf("end of the cycle of %s: %v", ent.Group.Key(), err)
		}
	}
	informers.Wait()
	s := q.Snapshot()
	if s.Len() != 0 || len(s.PodGroups.PendingPodGroupPods) != 0 || len(s.PodGroups.IncompletePodGroupPods) != 0 || len(s.PodGroups.InCycle) != 0 {
		t.Errorf("the queue is not empty after every member was bound: %+v", s.PodGroups)
	}
	if err := spec.CheckPodGroupsState(&s); err != nil {
		t.Error(err)
	}
	if err := q.CheckConsistency(); err != nil {
		t.Error(err)
	}
}

// TestPodGroupsOutsideTheProfile: the PodGroupQueue methods of a queue of
// another profile refuse with ErrInvalidConfig and change nothing, and a
// pod that names a group is a pod alone there (G1).
func TestPodGroupsOutsideTheProfile(t *testing.T) {
	q, err := impl.New(spec.DefaultHintsConfig(events), impl.WithClock(clocktesting.NewFakeClock(t0)))
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	if err := q.AddPodGroup(&spec.PodGroup{Namespace: "ns", Name: "g"}); !errors.Is(err, spec.ErrInvalidConfig) {
		t.Errorf("AddPodGroup in the hints profile: %v", err)
	}
	if err := q.Add(&spec.Pod{Namespace: "ns", Name: "a", UID: "u-a", Group: "g"}); err != nil {
		t.Fatal(err)
	}
	p, _, err := q.Pop()
	if err != nil || p.Key() != "ns/a" {
		t.Errorf("Pop in the hints profile: %v %v", p, err)
	}
	if s := q.Snapshot(); s.PodGroups != nil {
		t.Errorf("a hints-profile snapshot has pod-group state: %+v", s.PodGroups)
	}
}

// TestPodGroupsMoveRequestIsAllOrNothing: a PreEnqueue plugin that panics
// while a move request examines parked groups leaves the queue as it was,
// even when the request would move another group first: the request's
// first phase runs every piece of caller code (the hints, PreEnqueue)
// before any pod moves. Here Gate first holds both groups (closed); once
// it opens, the wildcard would release g1, but Gate panics on g2's member
// c.
func TestPodGroupsMoveRequestIsAllOrNothing(t *testing.T) {
	var closed, boom atomic.Bool
	closed.Store(true)
	cfg := spec.DefaultHintsConfig(events)
	cfg.Profile = spec.ProfilePodGroups
	cfg.PreEnqueuePlugins = spec.PreEnqueuePlugins{"Gate": func(p *spec.Pod) bool {
		if boom.Load() && p.Name == "c" {
			panic("boom")
		}
		return !closed.Load()
	}}
	q, err := impl.New(cfg, impl.WithClock(clocktesting.NewFakeClock(t0)))
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	for _, g := range []string{"g1", "g2"} {
		if err := q.AddPodGroup(&spec.PodGroup{Namespace: "ns", Name: g}); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []*spec.Pod{
		{Namespace: "ns", Name: "a", UID: "u-a", Group: "g1"},
		{Namespace: "ns", Name: "c", UID: "u-c", Group: "g2"},
	} {
		if err := q.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	before := q.Snapshot()
	if len(before.PodGroups.Entities) != 2 || before.PodGroups.Entities[0].Place != spec.InUnschedulablePods {
		t.Fatalf("both groups should wait gated: %+v", before.PodGroups)
	}
	closed.Store(false)
	boom.Store(true)
	func() {
		defer func() {
			if recover() == nil {
				t.Error("the plugin's panic did not reach the caller")
			}
		}()
		q.MoveAllToActiveOrBackoffQueue(spec.WildCardEvent, nil)
	}()
	boom.Store(false)
	after := q.Snapshot()
	before.Now, after.Now = time.Time{}, time.Time{}
	if d := before.Diff(&after); d != "" {
		t.Errorf("the panicking move request changed the queue:\n%s", d)
	}
	if err := q.CheckConsistency(); err != nil {
		t.Error(err)
	}
	q.MoveAllToActiveOrBackoffQueue(spec.WildCardEvent, nil)
	if s := q.Snapshot(); len(s.ActiveQ) != 2 {
		t.Errorf("once Gate stops panicking the wildcard releases both groups: %+v", s.PodGroups)
	}
}

// BenchmarkPodGroupCycle is one gang's way through the queue in the
// podgroups profile: its members added, the group popped, half of them
// failing, the rest bound, the cycle handed back rejected, the group
// popped again and bound. parked groups wait gated in unschedulablePods
// meanwhile, which the Pops and the move request must not pay for per
// group more than the layer's scans cost.
func BenchmarkPodGroupCycle(b *testing.B) {
	for _, bc := range []struct{ size, parked int }{{8, 0}, {64, 0}, {8, 1000}} {
		b.Run(fmt.Sprintf("size=%d/parked=%d", bc.size, bc.parked), func(b *testing.B) {
			cfg := spec.DefaultHintsConfig(events)
			cfg.Profile = spec.ProfilePodGroups
			cfg.PodMaxBackoffDuration = 0
			cfg.PreEnqueuePlugins = spec.PreEnqueuePlugins{"Gate": func(p *spec.Pod) bool { return p.Labels["gated"] != "yes" }}
			q, err := impl.New(cfg, impl.WithClock(clocktesting.NewFakeClock(t0)))
			if err != nil {
				b.Fatal(err)
			}
			defer q.Close()
			for i := range bc.parked {
				name := fmt.Sprintf("parked%d", i)
				if err := q.AddPodGroup(&spec.PodGroup{Namespace: "ns", Name: name}); err != nil {
					b.Fatal(err)
				}
				if err := q.Add(&spec.Pod{Namespace: "ns", Name: name, UID: spec.UID(name), Group: name, Labels: map[string]string{"gated": "yes"}}); err != nil {
					b.Fatal(err)
				}
			}
			pods := make([]*spec.Pod, bc.size)
			b.ResetTimer()
			cpu := cputime.Start()
			defer cpu.Report(b)
			for n := range b.N {
				g := fmt.Sprintf("g%d", n)
				if err := q.AddPodGroup(&spec.PodGroup{Namespace: "ns", Name: g}); err != nil {
					b.Fatal(err)
				}
				for i := range pods {
					pods[i] = &spec.Pod{Namespace: "ns", Name: fmt.Sprintf("%s-%d", g, i), UID: spec.UID(fmt.Sprintf("%s-%d", g, i)), Group: g}
					if err := q.Add(pods[i]); err != nil {
						b.Fatal(err)
					}
				}
				q.MoveAllToActiveOrBackoffQueue(nodeAdd, nil)
				for round := range 2 {
					ent, cycle, err := q.PopEntity()
					if err != nil || ent.Group == nil {
						b.Fatalf("PopEntity: %v %v", ent, err)
					}
					for i := range ent.Group.Members {
						m := &ent.Group.Members[i]
						if round == 0 && i%2 == 0 {
							m.UnschedulablePlugins = spec.NewPluginSet("NodeFit")
							if err := q.AddUnschedulableIfNotPresent(m, cycle); err != nil {
								b.Fatal(err)
							}
						} else if err := q.Done(m.Pod.UID); err != nil {
							b.Fatal(err)
						}
					}
					if err := q.AddAttemptedPodGroupIfNeeded(ent.Group, cycle, spec.AttemptRejected); err != nil {
						b.Fatal(err)
					}
				}
				if err := q.DeletePodGroup(&spec.PodGroup{Namespace: "ns", Name: g}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
