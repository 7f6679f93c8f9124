package impl_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/schedq/schedq/impl"
	"github.com/schedq/schedq/spec"
)

// The tests of this file each keep one finding of the adversarial review of
// impl as a queue others embed (a panicking preCheck, Snapshot under the
// lock, memory that never shrank, unbounded metric labels, a nil clock, a
// 1ns flush period, no context); the internal ones (a leaked UID index
// entry, shrinking) are in consistency_test.go.

// parkUnschedulable adds the pods and parks each in unschedulablePods,
// rejected by NodeFit.
func parkUnschedulable(t *testing.T, q spec.Queue, names ...string) {
	t.Helper()
	for _, n := range names {
		if err := q.Add(pod(n, 0)); err != nil {
			t.Fatal(err)
		}
		p, cycle := mustPop(t, q)
		p.UnschedulablePlugins = spec.NewPluginSet("NodeFit")
		if err := q.AddUnschedulableIfNotPresent(p, cycle); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPanickingPreCheckMovesNothing (R4): with 4 candidate pods and a
// preCheck that panics on the 3rd, a move request used to move 2 pods,
// leave moveRequestCycle and the metrics behind, and send no wake-up, so a
// Pop blocked before the call slept with a pod in activeQ. Now the panic
// reaches the caller and nothing changed: the same snapshot, metrics and
// moveRequestCycle, the structures consistent, the Pop still blocked (no
// pod for it), and the next operations still wake it.
func TestPanickingPreCheckMovesNothing(t *testing.T) {
	q, fc := newQueue(t, spec.DefaultConfig(events))
	parkUnschedulable(t, q, "a", "b", "c", "d")
	fc.Step(spec.DefaultPodMaxBackoffDuration + time.Second) // backoff over: a move goes to activeQ

	popped := make(chan *spec.QueuedPodInfo, 1)
	go func() {
		p, _, err := q.Pop()
		if err != nil {
			p = nil
		}
		popped <- p
	}()
	eventually(t, "Pop to block on the empty activeQ", func() bool { return q.BlockedPops() == 1 })

	before, metricsBefore := q.Snapshot(), q.Metrics()
	calls := 0
	recovered := func() (r any) {
		defer func() { r = recover() }()
		q.MoveAllToActiveOrBackoffQueue(nodeAdd, func(*spec.Pod) bool {
			calls++
			if calls == 3 {
				panic("preCheck failed on the 3rd pod")
			}
			return true
		})
		return nil
	}()
	if recovered != "preCheck failed on the 3rd pod" {
		t.Fatalf("the caller recovered %v, want preCheck's panic", recovered)
	}
	if calls != 3 {
		t.Fatalf("preCheck ran %d times before the panic, want 3", calls)
	}
	after := q.Snapshot()
	if d := before.Diff(&after); d != "" {
		t.Fatalf("R4 all or nothing: a move request whose preCheck panicked changed the queue (model: unchanged):\n%s", d)
	}
	if m := q.Metrics(); fmt.Sprint(m) != fmt.Sprint(metricsBefore) {
		t.Fatalf("R14: the panicking request changed the metrics:\nbefore %v\nafter  %v", metricsBefore, m)
	}
	if got := q.MoveRequestCycle(); got != before.MoveRequestCycle {
		t.Fatalf("moveRequestCycle = %d after a request that did not happen, want %d", got, before.MoveRequestCycle)
	}
	if n := q.BlockedPops(); n != 1 {
		t.Fatalf("%d Pops blocked, want the one still waiting (activeQ is empty)", n)
	}

	// The queue works on: the same request without the panic moves the
	// four pods and wakes the Pop.
	q.MoveAllToActiveOrBackoffQueue(nodeAdd, nil)
	select {
	case p := <-popped:
		if p == nil {
			t.Fatal("the blocked Pop failed")
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("lost wake-up: the Pop blocked before the panic still sleeps with %d pods in activeQ", len(q.Snapshot().ActiveQ))
	}
	s := q.Snapshot()
	if len(s.ActiveQ) != 3 || s.MoveRequestCycle != before.SchedulingCycle {
		t.Fatalf("after the retried request: activeQ %d pods (want 3), moveRequestCycle %d (want %d)", len(s.ActiveQ), s.MoveRequestCycle, before.SchedulingCycle)
	}
	if got := q.Metrics().IncomingPods[impl.IncomingKey{Queue: impl.QueueActive, Event: "NodeAdd"}]; got != 4 {
		t.Fatalf("NodeAdd moves counted: %d, want 4", got)
	}
}

// TestPanickingPreCheckThenAddWakesPop: after a panicking request, an Add
// still wakes a Pop that blocked before it.
func TestPanickingPreCheckThenAddWakesPop(t *testing.T) {
	q, _ := newQueue(t, spec.DefaultConfig(events))
	parkUnschedulable(t, q, "a", "b")
	done := make(chan error, 1)
	go func() { _, _, err := q.Pop(); done <- err }()
	eventually(t, "Pop to block", func() bool { return q.BlockedPops() == 1 })
	func() {
		defer func() { _ = recover() }()
		q.MoveAllToActiveOrBackoffQueue(nodeAdd, func(*spec.Pod) bool { panic("boom") })
	}()
	if err := q.Add(pod("x", 0)); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("an Add after a panicking move request did not wake the blocked Pop")
	}
}

// TestSnapshotKeyOrder: Snapshot sorts without building keys, yet in the
// order of the keys as strings (spec.SortPods), also where one namespace is
// a prefix of another and the byte after it sorts before or after "/".
func TestSnapshotKeyOrder(t *testing.T) {
	q, _ := newQueue(t, spec.DefaultConfig(events))
	namespaces := []string{"", "a", "a-b", "a.b", "a0", "ab", "b", "a-", "A", "a~"}
	names := []string{"x", "x-1", "x.1", "x0", "y", "-", "0"}
	r := rand.New(rand.NewPCG(3, 4))
	i := 0
	for _, ns := range namespaces {
		for _, n := range names {
			p := &spec.Pod{Namespace: ns, Name: n, UID: spec.UID(fmt.Sprint("u", i)), Priority: r.Int32N(3)}
			i++
			if err := q.Add(p); err != nil {
				t.Fatal(err)
			}
		}
	}
	for range i / 2 {
		mustPop(t, q) // some pods in flight too
	}
	s := q.Snapshot()
	for _, pl := range s.Places() {
		want := slices.Clone(pl.Pods)
		spec.SortPods(want)
		for j := range want {
			if want[j].Key() != pl.Pods[j].Key() {
				t.Fatalf("%s is not in key order at %d: got %s, spec.SortPods puts %s", pl.Loc, j, pl.Pods[j].Key(), want[j].Key())
			}
		}
	}
}

// TestSnapshotAllocations: Snapshot allocated a key string per comparison
// of its sort (57% of its CPU at 100k pods); now it allocates its four
// slices and nothing per pod or per comparison when no pod has plugins.
func TestSnapshotAllocations(t *testing.T) {
	c, _ := newQueue(t, spec.DefaultConfig(events))
	q := c.PriorityQueue // unchecked per step: 2000 checks of up to 2000 pods
	for i := range 2000 {
		if err := q.Add(pod(fmt.Sprint("p", i), int32(i%7))); err != nil {
			t.Fatal(err)
		}
	}
	for range 500 {
		mustPop(t, q)
	}
	if err := q.CheckConsistency(); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(5, func() { _ = q.Snapshot() })
	if allocs > 4 {
		t.Fatalf("Snapshot of 2000 pods made %v allocations, want at most 4 (its slices)", allocs)
	}
}

// TestEventLabelsBounded (R14): 200k caller-minted event labels made 200k
// metric series, never freed. Now at most MaxEventLabels labels are
// counted separately, the rest under OverflowEventLabel, and no pod is
// lost from the counts.
func TestEventLabelsBounded(t *testing.T) {
	cfg := spec.DefaultConfig(spec.PluginEvents{"NodeFit": {{Resource: spec.ResourceNode, ActionType: spec.All}}})
	q, fc := newQueue(t, cfg)
	const n = impl.MaxEventLabels + 50
	parkUnschedulable(t, q, "p")
	fc.Step(time.Hour)
	for i := range n {
		ev := spec.ClusterEvent{Resource: spec.ResourceNode, ActionType: spec.Add, Label: fmt.Sprint("minted-", i)}
		q.MoveAllToActiveOrBackoffQueue(ev, nil) // p -> activeQ
		p, cycle := mustPop(t, q)
		p.UnschedulablePlugins = spec.NewPluginSet("NodeFit")
		if err := q.AddUnschedulableIfNotPresent(p, cycle); err != nil {
			t.Fatal(err)
		}
		fc.Step(time.Hour)
	}
	labels := map[string]uint64{}
	var total uint64
	for k, v := range q.Metrics().IncomingPods {
		if k.Queue == impl.QueueActive && strings.HasPrefix(k.Event, "minted-") || k.Event == impl.OverflowEventLabel {
			labels[k.Event] += v
			total += v
		}
	}
	if len(labels) != impl.MaxEventLabels+1 {
		t.Fatalf("%d event labels counted, want MaxEventLabels (%d) and %q", len(labels), impl.MaxEventLabels, impl.OverflowEventLabel)
	}
	if labels[impl.OverflowEventLabel] != 50 || total != n {
		t.Fatalf("%q counts %d moves (want 50), all labels %d (want %d)", impl.OverflowEventLabel, labels[impl.OverflowEventLabel], total, n)
	}
	// A label counted before the bound was reached keeps being counted.
	q.MoveAllToActiveOrBackoffQueue(spec.ClusterEvent{Resource: spec.ResourceNode, ActionType: spec.Add, Label: "minted-0"}, nil)
	if got := q.Metrics().IncomingPods[impl.IncomingKey{Queue: impl.QueueActive, Event: "minted-0"}]; got != 2 {
		t.Fatalf("minted-0 counts %d moves, want 2", got)
	}
}

// TestNewRejectsNilClock: impl.New(cfg, WithClock(nil)) panicked; it is a
// configuration error now, also for a nil pointer in the interface.
func TestNewRejectsNilClock(t *testing.T) {
	for name, c := range map[string]clock.WithTicker{
		"nil":            nil,
		"nil *FakeClock": (*clocktesting.FakeClock)(nil),
	} {
		q, err := impl.New(spec.DefaultConfig(events), impl.WithClock(c))
		if !errors.Is(err, spec.ErrInvalidConfig) || q != nil {
			t.Errorf("New with a %s clock: (%v, %v), want ErrInvalidConfig and no queue", name, q, err)
		}
	}
}

// TestConfigRejectsTinyFlushPeriod: a 1ns flush period kept an idle running
// queue at a third of a core; periods below spec.MinFlushPeriod are
// rejected, the minimum itself is accepted.
func TestConfigRejectsTinyFlushPeriod(t *testing.T) {
	for _, d := range []time.Duration{time.Nanosecond, spec.MinFlushPeriod - 1} {
		for name, set := range map[string]func(*spec.Config){
			"BackoffQFlushPeriod":          func(c *spec.Config) { c.BackoffQFlushPeriod = d },
			"UnschedulablePodsFlushPeriod": func(c *spec.Config) { c.UnschedulablePodsFlushPeriod = d },
		} {
			cfg := spec.DefaultConfig(events)
			set(&cfg)
			if _, err := impl.New(cfg); !errors.Is(err, spec.ErrInvalidConfig) || !strings.Contains(err.Error(), name) {
				t.Errorf("%s = %v: err = %v, want ErrInvalidConfig naming it", name, d, err)
			}
		}
	}
	cfg := spec.DefaultConfig(events)
	cfg.BackoffQFlushPeriod, cfg.UnschedulablePodsFlushPeriod = spec.MinFlushPeriod, spec.MinFlushPeriod
	q, err := impl.New(cfg)
	if err != nil {
		t.Fatalf("New with MinFlushPeriod: %v", err)
	}
	q.Close()
}

// TestRunContextStopsFlushes: cancelling RunContext's context stops the
// flushes (goroutines gone, ticks no longer flush) without closing the
// queue; Run starts them again; Close still stops them (and goleak checks
// every goroutine is gone at the end of the package).
func TestRunContextStopsFlushes(t *testing.T) {
	q, fc := newQueue(t, spec.DefaultConfig(events))
	ctx, cancel := context.WithCancel(context.Background())
	q.RunContext(ctx)
	if !q.FlushesRunning() {
		t.Fatal("RunContext started no flush")
	}
	cancel()
	eventually(t, "the flushes to stop after cancel", func() bool { return !q.FlushesRunning() })

	_ = q.Add(pod("a", 0))
	p, cycle := mustPop(t, q)
	_ = q.AddUnschedulableIfNotPresent(p, cycle) // backoffQ for 1s
	fc.Step(2 * time.Second)
	time.Sleep(10 * time.Millisecond) // a flush still running would have had its tick
	if s := q.Snapshot(); len(s.BackoffQ) != 1 || s.Closed {
		t.Fatalf("after cancel: backoffQ %d pods (want 1: no flush runs), closed %v (want open)", len(s.BackoffQ), s.Closed)
	}

	q.RunContext(ctx) // a done context starts nothing
	if q.FlushesRunning() {
		t.Fatal("RunContext with a done context started the flushes")
	}
	q.Run()
	if !q.FlushesRunning() {
		t.Fatal("Run after a cancelled RunContext started nothing")
	}
	fc.Step(time.Second)
	eventually(t, "the restarted flush to drain backoffQ", func() bool { return len(q.Snapshot().BackoffQ) == 0 })
	q.Close()
	if q.FlushesRunning() {
		t.Fatal("Close returned with the flushes running")
	}
}

// TestPopContext: a Pop blocked on an empty activeQ returns the context's
// error when it is cancelled and changes nothing; with a pod it pops.
func TestPopContext(t *testing.T) {
	q, _ := newQueue(t, spec.DefaultConfig(events))
	ctx, cancel := context.WithCancel(context.Background())
	errs := make(chan error, 1)
	go func() { _, _, err := q.PopContext(ctx); errs <- err }()
	eventually(t, "PopContext to block", func() bool { return q.BlockedPops() == 1 })
	before := q.Snapshot()
	cancel()
	select {
	case err := <-errs:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("PopContext returned %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("PopContext stayed blocked after cancel")
	}
	after := q.Snapshot()
	if d := before.Diff(&after); d != "" || after.SchedulingCycle != 0 {
		t.Fatalf("a cancelled PopContext changed the queue:\n%s", d)
	}
	_ = q.Add(pod("a", 0))
	if p, _, err := q.PopContext(ctx); err != nil || p.Pod.Name != "a" {
		t.Fatalf("PopContext with a pod in activeQ and a done context = %v, %v; want the pod", p, err)
	}
}
