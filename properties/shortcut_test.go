package properties

import (
	"bytes"
	"runtime"
	"slices"
	"testing"
	"time"

	testingclock "k8s.io/utils/clock/testing"
	"pgregory.net/rapid"

	"github.com/schedq/schedq/impl"
	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// TestShortcutNoLostWakeUp is the moveRequestCycle shortcut (R3, I3) with
// its own oracle rather than the model's: over random interleavings of
// Pops, move requests (interesting events, events of no interest, Activate
// of a pod in flight) and failures, it counts Pops and remembers the cycle
// of the last move request itself, and requires of every failure:
//
//   - a pod no plugin rejected, or that failed in a cycle during or after
//     which a move request happened, lands in backoffQ (no lost wake-up:
//     the event that might have made it schedulable came while it was in
//     flight);
//   - any other failed pod lands in unschedulablePods.
//
// And at the end, that no pod is stuck forever: with a Pop blocked on an
// empty activeQ, one PodMaxInUnschedulablePodsDuration plus one leftover
// flush period later the leftover flush and the backoffQ flush bring every
// pod back to activeQ, and the blocked Pop wakes.
func TestShortcutNoLostWakeUp(t *testing.T) {
	interesting := []spec.ClusterEvent{schedqtest.NodeAdd, schedqtest.NodeTaint, schedqtest.AssignedPodDelete, spec.WildCardEvent}
	uninteresting := slices.DeleteFunc(slices.Clone(classic.Events), schedqtest.Registry.IsEventOfInterest)

	rapid.Check(t, func(t *rapid.T) {
		cfg := schedqtest.Config()
		clk := testingclock.NewFakeClock(schedqtest.Start)
		q, err := impl.New(cfg, impl.WithClock(clk))
		if err != nil {
			t.Fatal(err)
		}
		defer q.Close()

		var cycle int64       // Pops so far, counted here
		lastMove := int64(-1) // schedulingCycle at the last move request, tracked here
		inFlight := map[spec.PodKey]schedqtest.Popped{}
		flying := func() []spec.PodKey {
			return slices.Sorted(func(y func(spec.PodKey) bool) {
				for k := range inFlight {
					if !y(k) {
						return
					}
				}
			})
		}
		pods := map[spec.PodKey]*spec.Pod{}
		for _, name := range classic.Names[:4] {
			k := schedqtest.Key(name)
			pods[k] = schedqtest.Pod(name, 0)
			if err := q.Add(pods[k]); err != nil {
				t.Fatal(err)
			}
		}
		activeLen := func() int { s := q.Snapshot(); return len(s.ActiveQ) }

		pop := func(t *rapid.T) spec.PodKey {
			info, c, err := q.Pop()
			if err != nil {
				t.Fatal(err)
			}
			cycle++
			if c != cycle {
				t.Fatalf("Pop returned cycle %d, want %d", c, cycle)
			}
			inFlight[info.Key()] = schedqtest.Popped{Info: *info, Cycle: c}
			return info.Key()
		}
		fail := func(t *rapid.T, k spec.PodKey, plugins spec.PluginSet) {
			rec := inFlight[k]
			delete(inFlight, k)
			rec.Info.UnschedulablePlugins = plugins
			if err := q.AddUnschedulableIfNotPresent(&rec.Info, rec.Cycle); err != nil {
				t.Fatal(err)
			}
			want := spec.InUnschedulablePods
			if lastMove >= rec.Cycle || len(plugins) == 0 {
				want = spec.InBackoffQ
			}
			s := q.Snapshot()
			if got, _ := s.Find(k); got != want {
				t.Fatalf("pod %s failed in cycle %d (plugins %v, last move request in cycle %d): in %s, want %s",
					k, rec.Cycle, plugins, lastMove, got, want)
			}
		}
		drawPlugins := func(t *rapid.T) spec.PluginSet {
			return spec.NewPluginSet(rapid.SliceOfNDistinct(rapid.SampledFrom(schedqtest.Plugins), 0, 3, rapid.ID[string]).Draw(t, "plugins")...)
		}

		t.Repeat(map[string]func(*rapid.T){
			"Pop": func(t *rapid.T) {
				if activeLen() == 0 {
					t.Skip("activeQ empty")
				}
				pop(t)
			},
			"Fail": func(t *rapid.T) {
				f := flying()
				if len(f) == 0 {
					t.Skip("nothing in flight")
				}
				fail(t, rapid.SampledFrom(f).Draw(t, "pod"), drawPlugins(t))
			},
			"MoveRequest": func(t *rapid.T) {
				q.MoveAllToActiveOrBackoffQueue(rapid.SampledFrom(interesting).Draw(t, "event"), nil)
				lastMove = cycle
			},
			"EventOfNoInterest": func(t *rapid.T) {
				q.MoveAllToActiveOrBackoffQueue(rapid.SampledFrom(uninteresting).Draw(t, "event"), nil)
			},
			"ActivateInFlight": func(t *rapid.T) {
				f := flying()
				if len(f) == 0 {
					t.Skip("nothing in flight")
				}
				if err := q.Activate([]*spec.Pod{pods[rapid.SampledFrom(f).Draw(t, "pod")]}); err != nil {
					t.Fatal(err)
				}
				lastMove = cycle
			},
			"TickAndFlush": func(t *rapid.T) {
				clk.Step(time.Duration(rapid.IntRange(0, 12).Draw(t, "seconds")) * time.Second)
				q.FlushBackoffQCompleted()
			},
		})

		// Nothing is stuck forever. Fail what is in flight and whatever
		// activeQ still holds, so that every pod is parked...
		for len(inFlight) > 0 || activeLen() > 0 {
			for _, k := range flying() {
				fail(t, k, drawPlugins(t))
			}
			if activeLen() > 0 {
				pop(t)
			}
		}
		// ...then wait in Pop on the empty activeQ while time passes.
		got := make(chan spec.PodKey, 1)
		go func() {
			info, _, err := q.Pop()
			if err != nil {
				got <- ""
				return
			}
			got <- info.Key()
		}()
		// Only a Pop already waiting can miss a wake-up.
		if !waitBlockedInPop(10 * time.Second) {
			t.Fatalf("Pop on an empty activeQ did not block")
		}
		clk.Step(cfg.PodMaxInUnschedulablePodsDuration + cfg.UnschedulablePodsFlushPeriod)
		q.FlushUnschedulablePodsLeftover()
		q.FlushBackoffQCompleted()
		s := q.Snapshot()
		if len(s.UnschedulablePods)+len(s.BackoffQ) > 0 {
			t.Fatalf("pods stuck after the unschedulable limit and a leftover flush: %+v", s)
		}
		select {
		case k := <-got:
			if k == "" {
				t.Fatalf("the blocked Pop failed")
			}
		case <-time.After(2 * time.Second): // a woken Pop takes microseconds
			t.Fatalf("lost wake-up: Pop still blocked with activeQ %v", s.ActiveQ)
		}
	})
}

// waitBlockedInPop polls the goroutine stacks until one is waiting on the
// queue's condition variable inside Pop.
func waitBlockedInPop(timeout time.Duration) bool {
	buf := make([]byte, 1<<20)
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(100 * time.Microsecond) {
		n := runtime.Stack(buf, true)
		for _, g := range bytes.Split(buf[:n], []byte("\n\n")) {
			if bytes.Contains(g, []byte("sync.(*Cond).Wait")) && bytes.Contains(g, []byte("impl.(*PriorityQueue).Pop")) {
				return true
			}
		}
	}
	return false
}
