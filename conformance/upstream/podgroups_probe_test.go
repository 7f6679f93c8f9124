//go:build !k8s133 && !k8s134 && !k8s135 && !k8s136

package upstream

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/schedq/schedq/schedqtest"
)

// The three probes of upstream v1.37.2's pod-group queue (GenericWorkload
// on), written against the queue itself, not through the conformance
// adapter, so that what they find is upstream's alone. Each has a
// sequential reproduction, which must keep finding what
// docs/podgroups-upstream.md says it finds (a test that fails the day
// upstream changes), and a concurrent run that reports how often the
// interleaving of two goroutines finds it: found N of M. The probes play
// the scheduler's part as kube-scheduler v1.37.2 plays it: a group's
// failing members come back through AddUnschedulablePodIfNotPresent, the
// group's cycle ends with AddAttemptedPodGroupIfNeeded, and a pod popped
// earlier fails in its binding cycle on a goroutine of its own.
//
// The concurrent runs take SCHEDQ_PROBE_ITERATIONS iterations (default
// 500, so that the package's full run stays short; the rates in the doc
// are from 2000).

const (
	probeNS       = "ns"
	probeRejector = "NodeResourcesFit"
)

// pgWorld is one upstream queue with GenericWorkload on.
type pgWorld struct {
	t      testing.TB
	q      *queue.PriorityQueue
	clk    *testingclock.FakeClock
	logger klog.Logger
	ctx    context.Context
}

func newPGWorld(t testing.TB) *pgWorld {
	t.Helper()
	q, clk, _, stop, err := newQueueGated(schedqtest.HintsConfig(), time.Unix(1_000_000, 0), false, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	t.Cleanup(q.Close)
	logger := klog.Background()
	return &pgWorld{t: t, q: q, clk: clk, logger: logger, ctx: klog.NewContext(context.Background(), logger)}
}

// probePod is a pod of the namespace, in group when group is not empty.
func probePod(name, group string) *v1.Pod {
	prio := int32(0)
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: probeNS, Name: name, UID: types.UID("uid-" + name)},
		Spec:       v1.PodSpec{SchedulerName: SchedulerName, Priority: &prio},
	}
	if group != "" {
		g := group
		p.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: &g}
	}
	return p
}

func probePodGroup(name string) *schedulingv1beta1.PodGroup {
	return &schedulingv1beta1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: probeNS, Name: name}}
}

// add adds pods one clock tick apart, so that their order in activeQ is
// the order given.
func (w *pgWorld) add(pods ...*v1.Pod) {
	for _, p := range pods {
		w.q.Add(w.ctx, p)
		w.clk.Step(time.Millisecond)
	}
}

func (w *pgWorld) popPod() *framework.QueuedPodInfo {
	w.t.Helper()
	e, err := w.q.Pop(w.logger)
	if err != nil {
		w.t.Fatal(err)
	}
	pi, ok := e.(*framework.QueuedPodInfo)
	if !ok {
		w.t.Fatalf("Pop returned %T, want a pod", e)
	}
	return pi
}

func (w *pgWorld) popGroup() *framework.QueuedPodGroupInfo {
	w.t.Helper()
	e, err := w.q.Pop(w.logger)
	if err != nil {
		w.t.Fatal(err)
	}
	g, ok := e.(*framework.QueuedPodGroupInfo)
	if !ok {
		w.t.Fatalf("Pop returned %T, want a pod group", e)
	}
	return g
}

// member is the popped group's QueuedPodInfo of the named member.
func member(g *framework.QueuedPodGroupInfo, name string) *framework.QueuedPodInfo {
	for pi := range members(g) {
		if pi.Pod.Name == name {
			return pi
		}
	}
	return nil
}

// fail is the scheduler's failure handler for a pod rejected by a plugin:
// the QueuedPodInfo Pop returned, with its rejector, back to the queue.
func (w *pgWorld) fail(pi *framework.QueuedPodInfo) error {
	pi.UnschedulablePlugins = sets.New(probeRejector)
	return addUnschedulable(w.q, w.logger, pi, w.q.SchedulingCycle())
}

// endCycle is the end of a group's scheduling cycle, the group rejected.
func (w *pgWorld) endCycle(g *framework.QueuedPodGroupInfo) error {
	return w.q.AddAttemptedPodGroupIfNeeded(w.logger, g, w.q.SchedulingCycle(), fwk.NewStatus(fwk.Unschedulable, "no fit"))
}

// where says in which of the queue's places each pod is; a pod in none is
// absent from the map, a pod in several has them all.
func (w *pgWorld) where() map[string][]string {
	out := map[string][]string{}
	note := func(place string, pods []*v1.Pod) {
		for _, p := range pods {
			out[p.Name] = append(out[p.Name], place)
		}
	}
	note("activeQ", w.q.PodsInActiveQ())
	note("backoffQ", w.q.PodsInBackoffQ())
	note("unschedulable", w.q.UnschedulablePods())
	note("pending", w.q.PendingPodGroupPods())
	note("incomplete", w.q.IncompletePodGroupPodsPods())
	note("inFlight", w.q.InFlightPods())
	return out
}

// group is the queued entity of the group, if any.
func (w *pgWorld) group(name string) (*framework.QueuedPodGroupInfo, bool) {
	return getPodGroup(w.q, name, probeNS)
}

// probeIterations is the concurrent runs' iteration count.
func probeIterations(t *testing.T) int {
	n := 500
	if s := os.Getenv("SCHEDQ_PROBE_ITERATIONS"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 {
			t.Fatalf("SCHEDQ_PROBE_ITERATIONS=%q: want a positive integer", s)
		}
		n = v
	}
	if testing.Short() {
		n = min(n, 200)
	}
	return n
}

// jitter yields the processor a random number of times, so that the two
// goroutines of a concurrent run meet at varied points.
func jitter(r *rand.Rand) {
	for range r.Intn(4) {
		runtime.Gosched()
	}
}

// race runs a and b on two goroutines released together.
func race(r *rand.Rand, a, b func()) {
	var wg sync.WaitGroup
	start := make(chan struct{})
	wg.Add(2)
	seedA, seedB := r.Int63(), r.Int63()
	go func() { defer wg.Done(); <-start; jitter(rand.New(rand.NewSource(seedA))); a() }()
	go func() { defer wg.Done(); <-start; jitter(rand.New(rand.NewSource(seedB))); b() }()
	close(start)
	wg.Wait()
}

// --- probe (a): the last popped entity cleared by an unrelated pod ---

// probeAState is the state probe (a) and (b) start from: a plain pod p
// popped first (now in its binding cycle), then group g with members a
// and b popped (its scheduling cycle running).
func probeAState(t testing.TB) (*pgWorld, *framework.QueuedPodInfo, *framework.QueuedPodGroupInfo) {
	w := newPGWorld(t)
	addPodGroup(w.q, w.logger, probePodGroup("g"))
	w.add(probePod("p", ""), probePod("a", "g"), probePod("b", "g"))
	p := w.popPod()
	g := w.popGroup()
	return w, p, g
}

// TestProbePodGroupsClearedMarkerSequential is probe (a), sequentially.
// Control: member a fails during g's cycle and g's cycle ends rejected:
// a waits in pending, then g goes to backoffQ with UnschedulableCount 1.
// Probe: the same, but p's binding failure comes first. p's
// AddUnschedulablePodIfNotPresent clears the last popped entity (g's), so
// a's failure no longer sees g in flight and makes a second entity of g in
// activeQ, with no backoff and a count of 0; the end of g's cycle then
// fails ("already present in the active queue") and the rejection is
// never counted.
func TestProbePodGroupsClearedMarkerSequential(t *testing.T) {
	t.Run("control", func(t *testing.T) {
		w, _, g := probeAState(t)
		if err := w.fail(member(g, "a")); err != nil {
			t.Fatal(err)
		}
		if got := w.where()["a"]; !slices.Equal(got, []string{"pending"}) {
			t.Fatalf("a in %v, want pending while g's cycle runs", got)
		}
		if err := w.endCycle(g); err != nil {
			t.Fatalf("end of g's cycle: %v", err)
		}
		if got := w.where()["a"]; !slices.Equal(got, []string{"backoffQ"}) {
			t.Fatalf("a in %v after g's rejected cycle, want backoffQ", got)
		}
		if e, _ := w.group("g"); e.UnschedulableCount != 1 {
			t.Fatalf("g's UnschedulableCount %d, want 1", e.UnschedulableCount)
		}
	})
	t.Run("probe", func(t *testing.T) {
		w, p, g := probeAState(t)
		if err := w.fail(p); err != nil { // p's binding cycle fails
			t.Fatal(err)
		}
		if err := w.fail(member(g, "a")); err != nil {
			t.Fatal(err)
		}
		if got := w.where(); !slices.Equal(got["a"], []string{"activeQ"}) || !slices.Equal(got["b"], []string{"inFlight"}) {
			t.Fatalf("a in %v, b in %v: want a second entity of g in activeQ (a) while g's cycle runs (b in flight)", got["a"], got["b"])
		}
		err := w.endCycle(g)
		if err == nil {
			t.Fatal("end of g's cycle succeeded: upstream no longer makes a second entity of g (update docs/podgroups-upstream.md)")
		}
		e, _ := w.group("g")
		if got := w.where()["a"]; !slices.Equal(got, []string{"activeQ"}) || e.UnschedulableCount != 0 {
			t.Fatalf("a in %v, g's UnschedulableCount %d: want activeQ, 0 (the rejection skipped)", got, e.UnschedulableCount)
		}
		t.Logf("found: end of g's cycle: %v; g back in activeQ with UnschedulableCount 0, no backoff", err)
	})
	t.Run("probe-new-member", func(t *testing.T) {
		// The same with a member created during the cycle (c, a new pod of
		// g) instead of a failing one.
		w, p, g := probeAState(t)
		if err := w.fail(p); err != nil {
			t.Fatal(err)
		}
		w.add(probePod("c", "g"))
		if got := w.where(); !slices.Equal(got["c"], []string{"activeQ"}) {
			t.Fatalf("c in %v, want activeQ (a second entity of g)", got["c"])
		}
		if err := w.endCycle(g); err == nil {
			t.Fatal("end of g's cycle succeeded: upstream no longer makes a second entity of g")
		}
	})
}

// TestProbePodGroupsClearedMarkerConcurrent is probe (a) with p's binding
// failure on a goroutine of its own, racing the scheduling goroutine's
// failure of member a and the end of g's cycle. Found: g's cycle ends in
// the error and g is in activeQ with UnschedulableCount 0.
func TestProbePodGroupsClearedMarkerConcurrent(t *testing.T) {
	n, found := probeIterations(t), 0
	r := rand.New(rand.NewSource(1))
	for range n {
		w, p, g := probeAState(t)
		var endErr error
		race(r,
			func() { _ = w.fail(p) },
			func() { _ = w.fail(member(g, "a")); endErr = w.endCycle(g) })
		e, ok := w.group("g")
		switch {
		case endErr != nil && ok && e.UnschedulableCount == 0 && slices.Equal(w.where()["a"], []string{"activeQ"}):
			found++
		case endErr == nil && ok && e.UnschedulableCount == 1 && slices.Equal(w.where()["a"], []string{"backoffQ"}):
		default:
			t.Fatalf("an outcome the probe does not know: end of cycle %v, a in %v, group queued %v", endErr, w.where()["a"], ok)
		}
	}
	t.Logf("probe (a): found %d of %d (the end of g's cycle fails and g skips its backoff)", found, n)
}

// --- probe (b): members left pending ---

// TestProbePodGroupsStrandedPendingSequential is probe (b): a member left
// in pendingPodGroupPods after its group's cycle ended, where nothing
// brings it back. a fails first (pending, as it should), p's binding
// failure clears g's marker, b's failure makes a second entity of g in
// activeQ, and the end of g's cycle returns its error before it collects
// the pending members: a stays pending. Then b is deleted (its entity goes
// with it): a is in pending with no cycle of g to end, and a move request,
// both flushes and Activate of a leave it there.
func TestProbePodGroupsStrandedPendingSequential(t *testing.T) {
	w, p, g := probeAState(t)
	if err := w.fail(member(g, "a")); err != nil {
		t.Fatal(err)
	}
	if err := w.fail(p); err != nil {
		t.Fatal(err)
	}
	if err := w.fail(member(g, "b")); err != nil {
		t.Fatal(err)
	}
	if err := w.endCycle(g); err == nil {
		t.Fatal("end of g's cycle succeeded: upstream no longer strands a (update docs/podgroups-upstream.md)")
	}
	if got := w.where(); !slices.Equal(got["a"], []string{"pending"}) || !slices.Equal(got["b"], []string{"activeQ"}) {
		t.Fatalf("after g's cycle: a in %v, b in %v; want pending, activeQ", got["a"], got["b"])
	}
	w.q.Delete(w.logger, probePod("b", "g"))
	w.clk.Step(time.Hour)
	w.q.MoveAllToActiveOrBackoffQueue(w.logger, framework.EventUnschedulableTimeout, nil, nil, nil)
	flushBackoffQCompleted(w.q, w.logger)
	flushLeftover(w.q, w.logger)
	w.q.Activate(w.logger, map[string]*v1.Pod{"a": probePod("a", "g")})
	if got := w.where(); !slices.Equal(got["a"], []string{"pending"}) {
		t.Fatalf("a in %v, want still pending", got["a"])
	}
	if _, ok := w.group("g"); ok {
		t.Fatal("g is queued: a is not stranded")
	}
	t.Log("found: a stays in pendingPodGroupPods with g in no queue and no cycle of g running, after a move request, both flushes and Activate")
}

// TestProbePodGroupsStrandedPendingConcurrent is probe (b) with p's
// binding failure racing the scheduling goroutine's failures of a and b
// and the end of g's cycle. Found: once g's cycle has ended, a member is
// still in pendingPodGroupPods (the invariant: none waits there once its
// group's cycle ends).
func TestProbePodGroupsStrandedPendingConcurrent(t *testing.T) {
	n, found := probeIterations(t), 0
	r := rand.New(rand.NewSource(2))
	for range n {
		w, p, g := probeAState(t)
		race(r,
			func() { _ = w.fail(p) },
			func() {
				_ = w.fail(member(g, "a"))
				_ = w.fail(member(g, "b"))
				_ = w.endCycle(g)
			})
		if len(w.q.PendingPodGroupPods()) > 0 {
			found++
		}
		for _, name := range []string{"a", "b"} {
			if got := w.where()[name]; len(got) != 1 {
				t.Fatalf("%s in %v: want exactly one place", name, got)
			}
		}
	}
	t.Logf("probe (b): found %d of %d (a member pending after its group's cycle ended)", found, n)
}

// --- probe (c): a member's failure racing the end of its group's cycle ---

// probeCState: group g with members a and b popped; b passed the cycle
// and is in its binding cycle (still in flight); with aPending, a failed
// in the cycle and waits in pending, otherwise a was scheduled.
func probeCState(t testing.TB, aPending bool) (*pgWorld, *framework.QueuedPodGroupInfo) {
	w := newPGWorld(t)
	addPodGroup(w.q, w.logger, probePodGroup("g"))
	w.add(probePod("a", "g"), probePod("b", "g"))
	g := w.popGroup()
	if aPending {
		if err := w.fail(member(g, "a")); err != nil {
			t.Fatal(err)
		}
	} else {
		w.q.Done(member(g, "a").Pod.UID)
	}
	return w, g
}

// TestProbePodGroupsLateMemberFailureSequential is probe (c) in its two
// orders: b's failure (a binding failure, on its own goroutine in the
// scheduler) before or after the end of g's cycle, g rejected. Both calls
// take the queue's lock, so these two orders are all there is. With a
// pending the orders agree: g goes to backoffQ with both members. With
// nothing pending they do not: b first joins the pending members and g
// backs off (UnschedulableCount 1); b after finds g in no queue and the
// marker cleared, and makes a new entity of g straight in activeQ, with
// UnschedulableCount 0: which goroutine wins decides whether the group
// backs off. A member whose binding fails after a successful group cycle
// takes that second path every time: the last subtest fails b three times
// in a row and sees it back in activeQ each time, where a plain pod would
// back off.
func TestProbePodGroupsLateMemberFailureSequential(t *testing.T) {
	for _, tc := range []struct {
		name             string
		aPending, bFirst bool
		want             string // b's place and g's UnschedulableCount
	}{
		{name: "a-pending/failure-first", aPending: true, bFirst: true, want: "backoffQ 1"},
		{name: "a-pending/end-first", aPending: true, want: "backoffQ 1"},
		{name: "none-pending/failure-first", bFirst: true, want: "backoffQ 1"},
		{name: "none-pending/end-first", want: "activeQ 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, g := probeCState(t, tc.aPending)
			b := member(g, "b")
			if tc.bFirst {
				if err := w.fail(b); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.endCycle(g); err != nil {
				t.Fatal(err)
			}
			if !tc.bFirst {
				if err := w.fail(b); err != nil {
					t.Fatal(err)
				}
			}
			if got := w.probeCOutcome(); got != tc.want {
				t.Fatalf("b and g's count: %s, want %s", got, tc.want)
			}
		})
	}
	t.Run("repeated-binding-failures", func(t *testing.T) {
		w := newPGWorld(t)
		addPodGroup(w.q, w.logger, probePodGroup("g"))
		w.add(probePod("b", "g"))
		for round := range 3 {
			g := w.popGroup()
			if err := w.q.AddAttemptedPodGroupIfNeeded(w.logger, g, w.q.SchedulingCycle(), fwk.NewStatus(fwk.Success)); err != nil {
				t.Fatal(err)
			}
			if err := w.fail(member(g, "b")); err != nil {
				t.Fatal(err)
			}
			if got := w.probeCOutcome(); got != "activeQ 0" {
				t.Fatalf("round %d: b and g's count: %s, want activeQ 0", round, got)
			}
		}
		t.Log("found: three binding failures of b in a row, each straight back to activeQ with g's UnschedulableCount 0 (no backoff)")
	})
}

// probeCOutcome is where b is and g's UnschedulableCount, checking that a
// and b are each in one place and nothing is left pending.
func (w *pgWorld) probeCOutcome() string {
	w.t.Helper()
	got := w.where()
	e, ok := w.group("g")
	if !ok || len(got["b"]) != 1 || len(got["a"]) > 1 || len(w.q.PendingPodGroupPods()) > 0 {
		w.t.Fatalf("a in %v, b in %v, g queued %v, pending %d", got["a"], got["b"], ok, len(w.q.PendingPodGroupPods()))
	}
	return fmt.Sprintf("%s %d", got["b"][0], e.UnschedulableCount)
}

// TestProbePodGroupsLateMemberFailureConcurrent is probe (c): b's failure
// on its goroutine races the end of g's cycle (rejected, nothing else
// pending) on the scheduling goroutine. Found: b's failure came second and
// g is in activeQ with no backoff. Every run also checks that no member is
// lost, duplicated or left pending.
func TestProbePodGroupsLateMemberFailureConcurrent(t *testing.T) {
	n := probeIterations(t)
	r := rand.New(rand.NewSource(3))
	outcomes := map[string]int{}
	for range n {
		w, g := probeCState(t, false)
		b := member(g, "b")
		var failErr, endErr error
		race(r, func() { failErr = w.fail(b) }, func() { endErr = w.endCycle(g) })
		if failErr != nil || endErr != nil {
			t.Fatalf("failure of b: %v; end of g's cycle: %v", failErr, endErr)
		}
		outcomes[w.probeCOutcome()]++
	}
	for o := range outcomes {
		if o != "activeQ 0" && o != "backoffQ 1" {
			t.Fatalf("an outcome the probe does not know: %v", outcomes)
		}
	}
	t.Logf("probe (c): found %d of %d (b's failure after the end of g's cycle: g in activeQ, no backoff); outcomes %v", outcomes["activeQ 0"], n, outcomes)
}
