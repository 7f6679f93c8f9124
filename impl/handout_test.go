package impl_test

import (
	"testing"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/schedq/schedq/impl"
	"github.com/schedq/schedq/spec"
)

// Pop's copy is reused as spec.Queue's Pop allows: the pod's next Pop
// fills the copy the caller handed back (while the pod waits in backoffQ;
// a pod parked in unschedulablePods lets go of it), Done frees it for any
// Pop, and a caller that hands back an object of its own keeps the copy. So the
// steady state of the scheduler's loop allocates nothing, in both
// profiles. (A queue that copied every Pop fails the counts; one that
// reused a copy the caller still owns fails the identities.)
func TestPopReusesHandedBackCopies(t *testing.T) {
	for _, cfg := range []spec.Config{spec.DefaultConfig(events), spec.DefaultHintsConfig(events)} {
		t.Run(cfg.Profile.String(), func(t *testing.T) {
			fc := clocktesting.NewFakeClock(t0)
			q, err := impl.New(cfg, impl.WithClock(fc))
			if err != nil {
				t.Fatal(err)
			}
			defer q.Close()
			a, b := pod("a", 1), pod("b", 0)
			if err := q.Add(a); err != nil {
				t.Fatal(err)
			}
			first, cycle := mustPop(t, q)
			first.UnschedulablePlugins = nil // an error: to backoffQ
			if err := q.AddUnschedulableIfNotPresent(first, cycle); err != nil {
				t.Fatal(err)
			}
			if err := q.Activate([]*spec.Pod{a}); err != nil {
				t.Fatal(err)
			}
			again, cycle := mustPop(t, q)
			if again != first || again.Attempts != 2 {
				t.Fatalf("the handed-back copy %p was not refilled for a's next Pop: got %p (attempts %d)", first, again, again.Attempts)
			}
			// A caller's own object handed back: the queue forgets its
			// copy, which stays the caller's.
			own := *again
			if err := q.AddUnschedulableIfNotPresent(&own, cycle); err != nil {
				t.Fatal(err)
			}
			if err := q.Activate([]*spec.Pod{a}); err != nil {
				t.Fatal(err)
			}
			third, _ := mustPop(t, q)
			if third == again || third == &own {
				t.Fatalf("Pop reused %p, which the caller still owns", third)
			}
			if err := q.Done(a.UID); err != nil {
				t.Fatal(err)
			}
			if err := q.Add(b); err != nil {
				t.Fatal(err)
			}
			if got, _ := mustPop(t, q); got != third || got.Pod != b {
				t.Fatalf("Done did not free a's copy %p for the next Pop: got %p of %v", third, got, got.Pod)
			}
			if err := q.Done(b.UID); err != nil {
				t.Fatal(err)
			}
			if err := q.CheckConsistency(); err != nil {
				t.Fatal(err)
			}
			allocs := testing.AllocsPerRun(100, func() {
				_ = q.Add(a)
				info, cycle, _ := q.Pop()
				info.UnschedulablePlugins = spec.NewPluginSet()
				_ = q.AddUnschedulableIfNotPresent(info, cycle)
				_ = q.Activate([]*spec.Pod{a})
				info, _, _ = q.Pop()
				_ = q.Done(info.Pod.UID)
			})
			if allocs != 0 {
				t.Errorf("Add, Pop, failure, Pop, Done allocated %v times per round, want 0", allocs)
			}
		})
	}
}
