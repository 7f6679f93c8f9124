package impl_test

import (
	"fmt"
	"testing"

	"github.com/schedq/schedq/impl"
	"github.com/schedq/schedq/spec"
)

// Pop's copy is reused as spec.Queue's Pop allows, by the same pod only:
// the pod's next Pop fills the copy the caller handed back (while the pod
// waits in backoffQ; a pod parked in unschedulablePods lets go of it), a
// caller that hands back an object of its own keeps the copy, and Done
// lets the copy go rather than handing it to another pod's Pop (the
// goroutine that popped the pod may still read it). So a pod's retries
// allocate nothing, one copy per stay in the queue (one allocation per
// impl.CopyBlock of them), in both profiles. (A
// queue that copied every Pop fails the counts; one that reused a copy
// the caller still owns fails the identities.)
func TestPopReusesHandedBackCopies(t *testing.T) {
	for _, cfg := range []spec.Config{spec.DefaultConfig(events), spec.DefaultHintsConfig(events)} {
		t.Run(cfg.Profile.String(), func(t *testing.T) {
			// The queue without the per-operation consistency check, which
			// would count in the allocations.
			c, _ := newQueue(t, cfg)
			q := c.PriorityQueue
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
			// Done lets go of a's copy: the goroutine that popped a may still
			// read it, so another pod's Pop must not refill it.
			if got, _ := mustPop(t, q); got == third || third.Pod != a {
				t.Fatalf("b's Pop refilled a's copy %p after Done (it reads as %v)", third, third.Pod)
			}
			if err := q.Done(b.UID); err != nil {
				t.Fatal(err)
			}
			if err := q.CheckConsistency(); err != nil {
				t.Fatal(err)
			}
			// One copy per pod's stay in the queue, from a block of
			// copyBlock: the failure hands it back and the second Pop
			// refills it; Done lets it go.
			allocs := testing.AllocsPerRun(100, func() {
				_ = q.Add(a)
				info, cycle, _ := q.Pop()
				info.UnschedulablePlugins = spec.NewPluginSet()
				_ = q.AddUnschedulableIfNotPresent(info, cycle)
				_ = q.Activate([]*spec.Pod{a})
				info, _, _ = q.Pop()
				_ = q.Done(info.Pod.UID)
			})
			if allocs > 2.0/impl.CopyBlock {
				t.Errorf("Add, Pop, failure, Pop, Done allocated %v times per round, want about 1/%d (the copy, from blocks of %d)", allocs, impl.CopyBlock, impl.CopyBlock)
			}
		})
	}
}

// A move request over parked pods allocates nothing, in the classic and
// hints profiles, whatever the caller's preCheck. The request's selection
// is a closure made per request; passed to a method of the profile
// interface it escaped to the heap, one allocation per request, so
// moveRequest asks the podgroups profile's group decisions by type.
func TestMoveRequestsAllocateNothing(t *testing.T) {
	for _, cfg := range []spec.Config{spec.DefaultConfig(events), spec.DefaultHintsConfig(events)} {
		t.Run(cfg.Profile.String(), func(t *testing.T) {
			c, _ := newQueue(t, cfg)
			q := c.PriorityQueue
			for i := range 16 {
				if err := q.Add(pod(fmt.Sprint("p", i), 0)); err != nil {
					t.Fatal(err)
				}
				info, cycle := mustPop(t, q)
				info.UnschedulablePlugins = spec.NewPluginSet("NodeFit")
				if err := q.AddUnschedulableIfNotPresent(info, cycle); err != nil {
					t.Fatal(err)
				}
			}
			refused := 0
			allocs := testing.AllocsPerRun(100, func() {
				q.MoveAllToActiveOrBackoffQueue(nodeAdd, func(*spec.Pod) bool { refused++; return false })
			})
			if refused == 0 {
				t.Fatal("the preCheck was never asked: the request examined no parked pod")
			}
			if allocs != 0 {
				t.Errorf("a move request allocated %v times, want 0", allocs)
			}
		})
	}
}
