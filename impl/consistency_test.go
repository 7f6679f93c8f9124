package impl

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/schedq/schedq/spec"
)

var nodeAddEvent = spec.ClusterEvent{Resource: spec.ResourceNode, ActionType: spec.Add}

func newTestQueue(t *testing.T) (*PriorityQueue, *clocktesting.FakeClock) {
	t.Helper()
	fc := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	q, err := New(spec.DefaultConfig(spec.PluginEvents{"NodeFit": {nodeAddEvent}}), WithClock(fc))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(q.Close)
	return q, fc
}

// deleteLeakingUID is an index-leak mutant of Delete (R10), kept in test
// code: it forgets to remove the pod from the UID index, the bug no suite
// saw, because a lookup of the old UID compares the UID of the entry it
// finds and the entry, recycled, now holds another pod.
func (q *PriorityQueue) deleteLeakingUID(pod *spec.Pod) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	e := q.pods.findKey(keyHash(pod.Namespace, pod.Name), pod.Namespace, pod.Name)
	if e == nil {
		return spec.ErrPodNotFound
	}
	q.detach(e)
	q.pods.remove(e) // the mutation: q.untrack(e) also removes it from byUID
	q.freeEntry(e)
	return nil
}

// uidLeakScenario: a pod deleted while in flight comes back under a new
// UID and is popped again; del is the Delete under test. It returns the queue and the consistency error after
// each step, if any.
func uidLeakScenario(t *testing.T, del func(q *PriorityQueue, p *spec.Pod) error) (*PriorityQueue, []string) {
	q, _ := newTestQueue(t)
	var found []string
	step := func(name string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := q.CheckConsistency(); err != nil {
			found = append(found, fmt.Sprintf("after %s: %v", name, err))
		}
	}
	old := &spec.Pod{Namespace: "ns", Name: "p", UID: "uid-1"}
	step("Add(ns/p uid-1)", q.Add(old))
	_, _, err := q.Pop()
	step("Pop", err)
	step("Delete(ns/p) while in flight", del(q, old))
	renewed := &spec.Pod{Namespace: "ns", Name: "p", UID: "uid-2"}
	step("Add(ns/p uid-2)", q.Add(renewed))
	_, _, err = q.Pop()
	step("Pop", err)
	return q, found
}

// TestCheckConsistencyCatchesUIDLeak: with the leaking Delete, every
// observable answer is the correct queue's (the snapshot after each step,
// Done of the old UID refused), so no suite comparing behaviour with the
// model can notice; CheckConsistency reports the leaked UID entry at the
// step that leaked it. With the real Delete it reports nothing.
func TestCheckConsistencyCatchesUIDLeak(t *testing.T) {
	good, found := uidLeakScenario(t, (*PriorityQueue).Delete)
	if len(found) > 0 {
		t.Fatalf("the correct queue fails its consistency check:\n%s", strings.Join(found, "\n"))
	}
	bad, found := uidLeakScenario(t, (*PriorityQueue).deleteLeakingUID)
	gs, bs := good.Snapshot(), bad.Snapshot()
	if d := gs.Diff(&bs); d != "" {
		t.Fatalf("the mutant is observable in snapshots, the test shows nothing new:\n%s", d)
	}
	if err := bad.Done("uid-1"); err == nil {
		t.Fatal("the mutant accepts Done of the deleted UID: observable, the test shows nothing new")
	}
	if len(found) == 0 {
		t.Fatal("CheckConsistency did not catch the leaked UID index entry")
	}
	if !strings.HasPrefix(found[0], "after Delete(ns/p) while in flight:") || !strings.Contains(found[0], "UID index") {
		t.Fatalf("caught late or for another reason, want at the Delete, in the UID index:\n%s", strings.Join(found, "\n"))
	}
	t.Logf("caught: %s", found[0])
}

// TestShrinkAfterDrain: 57 MiB stayed allocated after a 1M-pod burst had
// drained. Now a drained queue refers to no entry at once, and every
// structure is back within its documented slack once it has idled for
// shrinkAfter with its flushes running: a burst through activeQ, one parked
// in unschedulablePods and backoffQ, then drained.
func TestShrinkAfterDrain(t *testing.T) {
	q, fc := newTestQueue(t)
	const n = 6000
	pods := make([]*spec.Pod, n)
	for i := range pods {
		pods[i] = &spec.Pod{Namespace: "ns", Name: fmt.Sprint("p", i), UID: spec.UID(fmt.Sprint("u", i)), Priority: int32(i % 100)}
		if err := q.Add(pods[i]); err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		p, cycle, err := q.Pop()
		if err != nil {
			t.Fatal(err)
		}
		switch i % 3 {
		case 0:
			p.UnschedulablePlugins = spec.NewPluginSet("NodeFit")
			fallthrough
		case 1:
			if err := q.AddUnschedulableIfNotPresent(p, cycle); err != nil {
				t.Fatal(err)
			}
		default:
			if err := q.Done(p.Pod.UID); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := q.checkSlack(); err != nil {
		t.Logf("at the peak, before a flush (slack is not bounded yet): %v", err)
	}
	fc.Step(time.Minute)
	q.MoveAllToActiveOrBackoffQueue(nodeAddEvent, nil)
	q.FlushBackoffQCompleted()
	for q.activeQ.len() > 0 {
		p, _, _ := q.Pop()
		if err := q.Done(p.Pod.UID); err != nil {
			t.Fatal(err)
		}
	}
	if err := q.CheckConsistency(); err != nil {
		t.Fatal(err)
	}
	// Idle and running: a flush a second. Nothing shrinks before
	// shrinkAfter, everything after it.
	blocks := len(q.pods.blocks)
	for range shrinkAfter / time.Second {
		fc.Step(time.Second)
		q.FlushBackoffQCompleted()
	}
	if len(q.pods.blocks) != blocks {
		t.Fatalf("the key index shrank before shrinkAfter: %d blocks, had %d", len(q.pods.blocks), blocks)
	}
	for range 2 {
		fc.Step(time.Second)
		q.FlushBackoffQCompleted()
	}
	if err := q.checkSlack(); err != nil {
		t.Fatalf("after a drain and shrinkAfter idle, structures exceed their slack:\n%v", err)
	}
	if err := q.CheckConsistency(); err != nil {
		t.Fatal(err)
	}
	if nb := len(q.pods.blocks) + len(q.byUID.blocks); nb != 2*minBlocks {
		t.Fatalf("the empty indexes keep %d blocks, want %d", nb, 2*minBlocks)
	}
	if c := cap(q.activeQ.s) + cap(q.backoffQ.s); c > 0 {
		t.Fatalf("the empty heaps keep room for %d slots", c)
	}
	// The queue still works after shrinking, and grows again.
	for _, p := range pods[:1000] {
		if err := q.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := q.CheckConsistency(); err != nil {
		t.Fatal(err)
	}
}

// TestNoShrinkUnderSteadyLoad: a queue that fills and drains between every
// two flushes, for longer than shrinkAfter, is never oversized at a flush
// and keeps its room: a steady load pays no rehash or reallocation.
func TestNoShrinkUnderSteadyLoad(t *testing.T) {
	q, fc := newTestQueue(t)
	const n = 400
	pods := make([]*spec.Pod, n)
	for i := range pods {
		pods[i] = &spec.Pod{Namespace: "ns", Name: fmt.Sprint("p", i), UID: spec.UID(fmt.Sprint("u", i))}
	}
	var blocks, slots int
	for round := range int(shrinkAfter/time.Second) + 10 {
		for _, p := range pods {
			if err := q.Add(p); err != nil {
				t.Fatal(err)
			}
		}
		for range n {
			p, _, _ := q.Pop()
			if err := q.Done(p.Pod.UID); err != nil {
				t.Fatal(err)
			}
		}
		fc.Step(time.Second)
		q.FlushBackoffQCompleted()
		if round == 0 {
			blocks, slots = len(q.pods.blocks), cap(q.activeQ.s)
			continue
		}
		if len(q.pods.blocks) != blocks || cap(q.activeQ.s) != slots {
			t.Fatalf("round %d: the structures of a steadily loaded queue shrank: %d blocks (had %d), activeQ room %d (had %d)",
				round, len(q.pods.blocks), blocks, cap(q.activeQ.s), slots)
		}
	}
	if err := q.CheckConsistency(); err != nil {
		t.Fatal(err)
	}
}

// TestCheckConsistencyCatchesRecycledLastPopped: Done tries the entry Pop
// returned last before the UID index, so recycling that entry (Delete in
// flight) must forget it. With the real queue the check passes and Done
// of the deleted pod's UID is refused; with lastPopped left pointing at
// the recycled entry (the mutation of freeEntry that skips the clearing),
// CheckConsistency names it.
func TestCheckConsistencyCatchesRecycledLastPopped(t *testing.T) {
	for _, mutant := range []bool{false, true} {
		q, _ := newTestQueue(t)
		p := &spec.Pod{Namespace: "ns", Name: "p", UID: "uid-1"}
		if err := q.Add(p); err != nil {
			t.Fatal(err)
		}
		if _, _, err := q.Pop(); err != nil {
			t.Fatal(err)
		}
		popped := q.lastPopped
		if popped == nil {
			t.Fatal("Pop did not record the entry it popped")
		}
		if err := q.Delete(p); err != nil {
			t.Fatal(err)
		}
		if mutant {
			q.lastPopped = popped
		} else if q.lastPopped != nil {
			t.Fatalf("Delete recycled the popped entry but lastPopped still points at it")
		}
		if err := q.Done(p.UID); !errors.Is(err, spec.ErrNotInFlight) {
			t.Fatalf("mutant=%v: Done of a deleted pod's UID = %v, want ErrNotInFlight (R12)", mutant, err)
		}
		err := q.CheckConsistency()
		switch {
		case !mutant && err != nil:
			t.Fatalf("the correct queue fails its consistency check: %v", err)
		case mutant && (err == nil || !strings.Contains(err.Error(), "lastPopped")):
			t.Fatalf("a recycled lastPopped went unreported: %v", err)
		}
	}
}

// A pod in backoffQ that says it is in activeQ (a move that changed the
// place but neither heap): backoffQ's count mismatch names the pod its
// counter still counts, as activeQ's names the pod it lacks.
func TestCheckConsistencyNamesThePodOnABackoffQMismatch(t *testing.T) {
	q, _ := newTestQueue(t)
	p := &spec.Pod{Namespace: "ns", Name: "p", UID: "uid-1"}
	if err := q.Add(p); err != nil {
		t.Fatal(err)
	}
	popped, cycle, err := q.Pop()
	if err != nil {
		t.Fatal(err)
	}
	if err := q.AddUnschedulableIfNotPresent(popped, cycle); err != nil {
		t.Fatal(err)
	}
	if err := q.CheckConsistency(); err != nil {
		t.Fatalf("the correct queue fails its consistency check: %v", err)
	}
	q.mu.Lock()
	e := q.pods.findKey(keyHash(p.Namespace, p.Name), p.Namespace, p.Name)
	if e == nil || e.loc != inBackoffQ {
		q.mu.Unlock()
		t.Fatalf("the pod is not in backoffQ after a failure with no plugins: %v", e)
	}
	e.loc = inActiveQ // the mutation
	q.mu.Unlock()
	err = q.CheckConsistency()
	if err == nil {
		t.Fatal("CheckConsistency did not catch a backoffQ slot whose pod says it is in activeQ")
	}
	for _, want := range []string{"backoffQ: 0 live slots, the heap counts 1, 0 indexed pods say they are here; its stale slots hold slot 0: ns/p", "activeQ: ns/p"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the report lacks %q:\n%v", want, err)
		}
	}
	t.Logf("caught: %v", err)
}
