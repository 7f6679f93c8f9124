package properties

import (
	"errors"
	"slices"
	"testing"

	testingclock "k8s.io/utils/clock/testing"
	"pgregory.net/rapid"

	"github.com/schedq/schedq/impl"
	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// TestConservation is I4 over long runs with its own bookkeeping: what was
// added (Add, AddUnschedulableIfNotPresent or Update of a pod the queue
// did not hold) minus what was deleted or done is exactly what the queue
// holds, key by key and pod object by pod object, after every one of a few
// hundred operations; and Pop returns only pods that were in activeQ.
func TestConservation(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := classic.DrawConfig(rapidChooser(t)).Apply(schedqtest.Config())
		clk := testingclock.NewFakeClock(schedqtest.Start)
		q, err := impl.New(cfg, impl.WithClock(clk))
		if err != nil {
			t.Fatal(err)
		}
		defer q.Close()
		c := rapidChooser(t)

		held := map[spec.PodKey]*spec.Pod{} // what the queue must hold
		added, removed := 0, 0
		handBack := map[spec.PodKey]schedqtest.Popped{}
		enter := func(k spec.PodKey, p *spec.Pod) {
			if _, ok := held[k]; !ok {
				added++
			}
			held[k] = p
		}
		leave := func(k spec.PodKey) {
			if _, ok := held[k]; !ok {
				t.Fatalf("%s left the queue, which did not hold it", k)
			}
			delete(held, k)
			removed++
		}
		mustErr := func(op string, err, want error) {
			if !errors.Is(err, want) {
				t.Fatalf("%s: got error %v, want %v", op, err, want)
			}
		}

		n := rapid.IntRange(100, 400).Draw(t, "operations")
		for range n {
			s := q.Snapshot()
			switch rapid.IntRange(0, 9).Draw(t, "op") {
			case 0: // Add
				p := classic.DrawPod(c)
				k := p.Key()
				if err := q.Add(p); err != nil {
					mustErr("Add", err, spec.ErrAlreadyQueued)
				} else {
					enter(k, p)
				}
			case 1: // Pop
				if len(s.ActiveQ) == 0 {
					continue
				}
				info, cycle, err := q.Pop()
				if err != nil {
					t.Fatal(err)
				}
				if loc, was := s.Find(info.Key()); loc != spec.InActiveQ || was.Pod != held[info.Key()] {
					t.Fatalf("Pop returned %s, which was in %s", info.Key(), loc)
				}
				handBack[info.Key()] = schedqtest.Popped{Info: *info, Cycle: cycle}
			case 2: // AddUnschedulableIfNotPresent, possibly stale
				ks := slices.Sorted(func(y func(spec.PodKey) bool) {
					for k := range handBack {
						if !y(k) {
							return
						}
					}
				})
				if len(ks) == 0 {
					continue
				}
				rec := handBack[pick(c, "hand back", ks)]
				rec.Info.UnschedulablePlugins = spec.NewPluginSet(rapid.SliceOfN(rapid.SampledFrom(schedqtest.Plugins), 0, 2).Draw(t, "plugins")...)
				if err := q.AddUnschedulableIfNotPresent(&rec.Info, rec.Cycle); err != nil {
					mustErr("AddUnschedulableIfNotPresent", err, spec.ErrAlreadyQueued)
				} else {
					enter(rec.Info.Key(), rec.Info.Pod)
				}
			case 3: // Update
				np := classic.DrawPod(c)
				k := np.Key()
				old := held[k]
				if old == nil {
					old = classic.DrawPodRef(c, np.Name).Build()
				}
				if err := q.Update(old, np); err != nil {
					t.Fatalf("Update: %v", err)
				}
				enter(k, np)
			case 4: // Delete
				p := classic.DrawPod(c)
				k := p.Key()
				if err := q.Delete(p); err != nil {
					mustErr("Delete", err, spec.ErrPodNotFound)
					if held[k] != nil {
						t.Fatalf("Delete of held %s: %v", k, err)
					}
				} else {
					leave(k)
				}
			case 5: // Done
				if len(s.InFlight) == 0 || rapid.Bool().Draw(t, "unknown uid") {
					mustErr("Done", q.Done("uid-ghost"), spec.ErrNotInFlight)
					continue
				}
				f := pick(c, "in flight", s.InFlight)
				if err := q.Done(f.Pod.UID); err != nil {
					t.Fatalf("Done of %s in flight: %v", f.Key(), err)
				}
				leave(f.Key())
			case 6:
				q.MoveAllToActiveOrBackoffQueue(pick(c, "event", classic.Events), schedqtest.PreCheck(classic.DrawPreCheck(c)))
			case 7:
				clk.Step(pick(c, "tick", classic.Steps))
			case 8:
				q.FlushBackoffQCompleted()
				q.FlushUnschedulablePodsLeftover()
			case 9:
				pods := []*spec.Pod{classic.DrawPod(c)}
				if err := q.Activate(pods); err != nil {
					t.Fatal(err)
				}
			}
			after := q.Snapshot()
			if after.Len() != added-removed || len(held) != added-removed {
				t.Fatalf("the queue holds %d pods; added %d - removed %d = %d (tracked %d)", after.Len(), added, removed, added-removed, len(held))
			}
			for k, p := range held {
				if loc, info := after.Find(k); loc == spec.Nowhere || info.Pod != p {
					t.Fatalf("pod %s: the queue holds %v in %s, want the object last handed in", k, info.Pod, loc)
				}
			}
		}
	})
}
