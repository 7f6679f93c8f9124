package impl_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/schedq/schedq/impl"
	"github.com/schedq/schedq/spec"
)

var t0 = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// events is a small plugin registry: NodeFit waits for nodes, PodAffinity
// for pods.
var events = spec.PluginEvents{
	"NodeFit":     {{Resource: spec.ResourceNode, ActionType: spec.Add}},
	"PodAffinity": {{Resource: spec.ResourcePod, ActionType: spec.Add}},
}

var nodeAdd = spec.ClusterEvent{Resource: spec.ResourceNode, ActionType: spec.Add}

// newQueue returns a queue on a fake clock at t0 whose consistency is
// checked after every operation (see checked), closed at the end of the
// test.
func newQueue(t testing.TB, cfg spec.Config) (*checked, *clocktesting.FakeClock) {
	t.Helper()
	fc := clocktesting.NewFakeClock(t0)
	q, err := impl.New(cfg, impl.WithClock(fc))
	if err != nil {
		t.Fatal(err)
	}
	c := &checked{q, t}
	t.Cleanup(c.Close)
	return c, fc
}

func pod(name string, prio int32) *spec.Pod {
	return &spec.Pod{Namespace: "default", Name: name, UID: spec.UID("uid-" + name), Priority: prio}
}

// eventually polls cond until it holds; it never sleeps longer than a
// millisecond at a time and fails after five seconds.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func mustPop(t *testing.T, q spec.Queue) (*spec.QueuedPodInfo, int64) {
	t.Helper()
	p, c, err := q.Pop()
	if err != nil {
		t.Fatalf("Pop: %v", err)
	}
	return p, c
}

func TestNewRejectsInvalidConfig(t *testing.T) {
	cfg := spec.DefaultConfig(events)
	cfg.BackoffQFlushPeriod = 0
	if _, err := impl.New(cfg); !errors.Is(err, spec.ErrInvalidConfig) {
		t.Fatalf("New with a zero flush period: err = %v, want ErrInvalidConfig", err)
	}
}

// TestPopOrder checks I5 and the deterministic tie-break: higher priority
// first, then earlier Timestamp, then arrival order in activeQ.
func TestPopOrder(t *testing.T) {
	q, fc := newQueue(t, spec.DefaultConfig(events))
	for _, p := range []*spec.Pod{pod("low", 1), pod("tie-a", 5), pod("tie-b", 5)} {
		if err := q.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	fc.Step(time.Second)
	if err := q.Add(pod("late-high", 5)); err != nil {
		t.Fatal(err)
	}
	if err := q.Add(pod("top", 9)); err != nil {
		t.Fatal(err)
	}
	for i, want := range []spec.PodKey{"default/top", "default/tie-a", "default/tie-b", "default/late-high", "default/low"} {
		p, cycle := mustPop(t, q)
		if p.Key() != want || cycle != int64(i+1) || p.Attempts != 1 {
			t.Fatalf("Pop %d = %s cycle %d attempts %d, want %s cycle %d attempts 1", i, p.Key(), cycle, p.Attempts, want, i+1)
		}
	}
}

// TestUpdateResortsActiveQ: a priority change of a pod waiting in activeQ
// takes effect at once (R9).
func TestUpdateResortsActiveQ(t *testing.T) {
	q, _ := newQueue(t, spec.DefaultConfig(events))
	a, b := pod("a", 1), pod("b", 2)
	_ = q.Add(a)
	_ = q.Add(b)
	a2 := *a
	a2.Priority = 3
	if err := q.Update(a, &a2); err != nil {
		t.Fatal(err)
	}
	if p, _ := mustPop(t, q); p.Key() != a.Key() || p.Pod.Priority != 3 {
		t.Fatalf("Pop = %s prio %d, want the updated default/a", p.Key(), p.Pod.Priority)
	}
}

// TestPopReturnsACopy: the caller owns what Pop returns (R2, R3).
func TestPopReturnsACopy(t *testing.T) {
	q, _ := newQueue(t, spec.DefaultConfig(events))
	_ = q.Add(pod("a", 0))
	p, cycle := mustPop(t, q)
	plugins := []string{"PodAffinity", "NodeFit", "NodeFit"}
	p.UnschedulablePlugins = plugins
	p.Attempts = 42
	if s := q.Snapshot(); s.InFlight[0].Attempts != 1 || s.InFlight[0].UnschedulablePlugins != nil {
		t.Fatalf("mutating the popped pod changed the queue: %+v", s.InFlight[0])
	}
	if err := q.AddUnschedulableIfNotPresent(p, cycle); err != nil {
		t.Fatal(err)
	}
	plugins[0] = "changed"
	got := q.Snapshot().UnschedulablePods
	if len(got) != 1 || got[0].Attempts != 42 || fmt.Sprint(got[0].UnschedulablePlugins) != "[NodeFit PodAffinity]" {
		t.Fatalf("unschedulablePods = %+v, want default/a with the normalised plugins of the caller", got)
	}
}

func TestBadInputChangesNothing(t *testing.T) {
	q, _ := newQueue(t, spec.DefaultConfig(events))
	_ = q.Add(pod("a", 0))
	before := q.Snapshot()
	noUID := pod("x", 0)
	noUID.UID = ""
	other := pod("b", 0)
	for _, tc := range []struct {
		name string
		err  error
		want error
	}{
		{"Add nil", q.Add(nil), spec.ErrNilPod},
		{"Add no UID", q.Add(noUID), spec.ErrInvalidPod},
		{"Add twice", q.Add(pod("a", 0)), spec.ErrAlreadyQueued},
		{"AddUnschedulable nil", q.AddUnschedulableIfNotPresent(nil, 0), spec.ErrNilPod},
		{"AddUnschedulable of a pod in activeQ", q.AddUnschedulableIfNotPresent(&spec.QueuedPodInfo{Pod: pod("a", 0)}, 0), spec.ErrAlreadyQueued},
		{"AddUnschedulable negative attempts", q.AddUnschedulableIfNotPresent(&spec.QueuedPodInfo{Pod: other, Attempts: -1}, 0), spec.ErrInvalidPod},
		{"Update changing the key", q.Update(pod("a", 0), other), spec.ErrInvalidPod},
		{"Delete unknown", q.Delete(other), spec.ErrPodNotFound},
		{"Done unknown", q.Done("nope"), spec.ErrNotInFlight},
		{"Done of a pod in activeQ", q.Done("uid-a"), spec.ErrNotInFlight},
		{"Activate with nil", q.Activate([]*spec.Pod{other, nil}), spec.ErrNilPod},
		{"AssignedPodAdded nil", q.AssignedPodAdded(nil), spec.ErrNilPod},
	} {
		if !errors.Is(tc.err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.name, tc.err, tc.want)
		}
	}
	after := q.Snapshot()
	if d := before.Diff(&after); d != "" {
		t.Fatalf("bad input changed the queue:\n%s", d)
	}
}

// TestCloseUnblocksPops is R13: Pops blocked on an empty activeQ return
// ErrClosed when the queue closes, and so does every later Pop, even with
// pods in activeQ.
func TestCloseUnblocksPops(t *testing.T) {
	q, _ := newQueue(t, spec.DefaultConfig(events))
	const n = 4
	errs := make(chan error, n)
	for range n {
		go func() {
			_, _, err := q.Pop()
			errs <- err
		}()
	}
	eventually(t, "all Pops to block", func() bool { return q.BlockedPops() == n })
	q.Close()
	for range n {
		if err := <-errs; !errors.Is(err, spec.ErrClosed) {
			t.Fatalf("blocked Pop returned %v, want ErrClosed", err)
		}
	}
	if err := q.Add(pod("a", 0)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := q.Pop(); !errors.Is(err, spec.ErrClosed) {
		t.Fatalf("Pop after Close returned %v, want ErrClosed", err)
	}
	q.Close() // idempotent
	if !q.Snapshot().Closed {
		t.Fatal("Snapshot().Closed = false after Close")
	}
}

// TestAddWakesBlockedPop: R1 wakes a Pop blocked on an empty activeQ.
func TestAddWakesBlockedPop(t *testing.T) {
	q, _ := newQueue(t, spec.DefaultConfig(events))
	got := make(chan spec.PodKey)
	go func() {
		p, _, err := q.Pop()
		if err != nil {
			got <- ""
			return
		}
		got <- p.Key()
	}()
	eventually(t, "Pop to block", func() bool { return q.BlockedPops() == 1 })
	_ = q.Add(pod("a", 0))
	if k := <-got; k != "default/a" {
		t.Fatalf("blocked Pop returned %q, want default/a", k)
	}
}

// TestRunDrainsBackoffQ drives the periodic flushes with a fake clock: a pod
// backing off for 1s leaves backoffQ at the first tick strictly after its
// expiry (R5, R7), and an unschedulable pod leaves after
// PodMaxInUnschedulablePodsDuration (R6).
func TestRunDrainsBackoffQ(t *testing.T) {
	q, fc := newQueue(t, spec.DefaultConfig(events))
	q.Run()
	q.Run() // a second Run starts nothing more; goleak checks
	for _, name := range []string{"a", "b"} {
		_ = q.Add(pod(name, 0))
	}
	a, ca := mustPop(t, q)
	b, cb := mustPop(t, q)
	// a failed for no plugin: backoffQ. b was rejected by NodeFit:
	// unschedulablePods.
	if err := q.AddUnschedulableIfNotPresent(a, ca); err != nil {
		t.Fatal(err)
	}
	b.UnschedulablePlugins = spec.NewPluginSet("NodeFit")
	if err := q.AddUnschedulableIfNotPresent(b, cb); err != nil {
		t.Fatal(err)
	}
	if s := q.Snapshot(); len(s.BackoffQ) != 1 || len(s.UnschedulablePods) != 1 {
		t.Fatalf("after the failures: %+v", s)
	}

	// The first tick (t0+1s) finds a's expiry equal to now, still backing
	// off (R7, pinned by TestFlushBackoffQBoundary); the second moves it.
	fc.Step(time.Second)
	fc.Step(time.Second)
	eventually(t, "backoffQ to drain", func() bool {
		s := q.Snapshot()
		return len(s.BackoffQ) == 0
	})
	if m := q.Metrics(); m.IncomingPods[impl.IncomingKey{Queue: impl.QueueActive, Event: spec.BackoffComplete}] != 1 {
		t.Fatalf("BackoffComplete count = %v, want 1", m.IncomingPods)
	}

	// b is left over once it has been unschedulable for more than 5m; the
	// leftover flush ticks every 30s.
	for range 10 {
		fc.Step(30 * time.Second)
	}
	eventually(t, "unschedulablePods to drain", func() bool {
		return len(q.Snapshot().UnschedulablePods) == 0
	})
	s := q.Snapshot()
	if loc, _ := s.Find(b.Key()); loc != spec.InActiveQ {
		t.Fatalf("leftover pod is in %s, want activeQ", loc)
	}
	if s.MoveRequestCycle != s.SchedulingCycle {
		t.Fatalf("moveRequestCycle = %d after the leftover flush, want %d", s.MoveRequestCycle, s.SchedulingCycle)
	}
	q.Close()
	q.Run() // after Close: starts nothing
}

// TestFlushBackoffQBoundary pins R7's boundary with explicit flushes.
func TestFlushBackoffQBoundary(t *testing.T) {
	q, fc := newQueue(t, spec.DefaultConfig(events))
	_ = q.Add(pod("a", 0))
	p, c := mustPop(t, q)
	_ = q.AddUnschedulableIfNotPresent(p, c)
	fc.Step(time.Second) // now == expiry
	q.FlushBackoffQCompleted()
	if s := q.Snapshot(); len(s.BackoffQ) != 1 {
		t.Fatalf("a pod whose expiry equals now left backoffQ: %+v", s)
	}
	fc.Step(time.Nanosecond)
	q.FlushBackoffQCompleted()
	if s := q.Snapshot(); len(s.ActiveQ) != 1 {
		t.Fatalf("a pod past its expiry stayed in backoffQ: %+v", s)
	}
}

// TestMoveRequestCycleShortcut is I3: a pod that fails in a cycle during
// which a move request happened goes to backoffQ, not unschedulablePods.
func TestMoveRequestCycleShortcut(t *testing.T) {
	q, _ := newQueue(t, spec.DefaultConfig(events))
	_ = q.Add(pod("a", 0))
	p, c := mustPop(t, q)
	q.MoveAllToActiveOrBackoffQueue(nodeAdd, nil)
	p.UnschedulablePlugins = spec.NewPluginSet("NodeFit")
	_ = q.AddUnschedulableIfNotPresent(p, c)
	if s := q.Snapshot(); len(s.BackoffQ) != 1 || s.MoveRequestCycle != 1 {
		t.Fatalf("shortcut not taken: %+v", s)
	}
}

// TestConcurrentSmoke runs adders, poppers, movers and the periodic flushes
// (on the real clock, with millisecond periods) together under -race, and
// checks that the state invariants hold in every snapshot and that no pod
// is lost or invented (I1, I4, I6). A pod the queue loses would leave the
// poppers asleep for good: a watchdog that sees no Pop return for
// smokeStall fails the test naming each pod not yet done, where the test
// last saw it and where the queue holds it, and closes the queue.
func TestConcurrentSmoke(t *testing.T) {
	cfg := spec.Config{
		PodInitialBackoffDuration:         time.Millisecond,
		PodMaxBackoffDuration:             4 * time.Millisecond,
		PodMaxInUnschedulablePodsDuration: 5 * time.Millisecond,
		BackoffQFlushPeriod:               time.Millisecond,
		UnschedulablePodsFlushPeriod:      2 * time.Millisecond,
		PluginEvents:                      events,
	}
	q, err := impl.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	q.Run()

	const adders, perAdder, poppers = 4, 200, 4
	total := int64(adders * perAdder)
	var done, pops atomic.Int64
	// fail also closes the queue, so that no popper waits forever.
	fail := func(format string, args ...any) {
		t.Errorf(format, args...)
		q.Close()
	}
	// seen is where the test last saw each pod not yet done, by name.
	var seen sync.Map
	stopWatch := make(chan struct{})
	defer close(stopWatch)
	go smokeWatchdog(q, &seen, &pops, stopWatch, fail)
	var wg sync.WaitGroup
	for a := range adders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(a), 1))
			for i := range perAdder {
				p := pod(fmt.Sprintf("p-%d-%d", a, i), r.Int32N(10))
				seen.Store(p.Name, fmt.Sprintf("being added by adder %d", a))
				if err := q.Add(p); err != nil {
					fail("Add: %v", err)
					return
				}
				if i%50 == 0 {
					_ = q.Activate([]*spec.Pod{p})
				}
			}
		}()
	}
	for w := range poppers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 2))
			for {
				p, cycle, err := q.Pop()
				if errors.Is(err, spec.ErrClosed) {
					return
				}
				if err != nil {
					fail("Pop: %v", err)
					return
				}
				pops.Add(1)
				seen.Store(p.Pod.Name, fmt.Sprintf("popped by popper %d at cycle %d", w, cycle))
				switch r.IntN(3) {
				case 0:
					// Read before Done, which ends this popper's hold on p
					// (spec.Queue's Pop: a later Pop may reuse it).
					name := p.Pod.Name
					if err := q.Done(p.Pod.UID); err != nil {
						fail("Done: %v", err)
					}
					seen.Delete(name)
					if done.Add(1) == total {
						q.Close()
					}
				case 1:
					p.UnschedulablePlugins = spec.NewPluginSet("NodeFit")
					fallthrough
				default:
					seen.Store(p.Pod.Name, fmt.Sprintf("handed back by popper %d from cycle %d (AddUnschedulableIfNotPresent, plugins %v)", w, cycle, p.UnschedulablePlugins))
					if err := q.AddUnschedulableIfNotPresent(p, cycle); err != nil {
						fail("AddUnschedulableIfNotPresent: %v", err)
					}
				}
			}
		}()
	}
	stopMover := make(chan struct{})
	var moverWG sync.WaitGroup
	moverWG.Add(1)
	go func() {
		defer moverWG.Done()
		for i := 0; ; i++ {
			select {
			case <-stopMover:
				return
			default:
			}
			switch i % 3 {
			case 0:
				q.MoveAllToActiveOrBackoffQueue(nodeAdd, nil)
			case 1:
				// Done pods are counted after Done returns, so a count
				// read before the snapshot never counts a pod twice.
				d := done.Load()
				s := q.Snapshot()
				if err := spec.CheckState(&s); err != nil {
					fail("invariant broken: %v", err)
				}
				if err := q.CheckConsistency(); err != nil {
					fail("the implementation's structures disagree: %v", err)
				}
				if n := int64(s.Len()) + d; n > total {
					fail("%d pods held + done > %d added", n, total)
				}
			default:
				_ = q.Metrics()
			}
		}
	}()
	wg.Wait()
	close(stopMover)
	moverWG.Wait()
	if t.Failed() {
		return
	}
	if s := q.Snapshot(); s.Len() != 0 || done.Load() != total {
		t.Fatalf("after every pod is done: %d held, %d done of %d", s.Len(), done.Load(), total)
	}
	if err := q.CheckConsistency(); err != nil {
		t.Fatalf("at quiescence, the implementation's structures disagree: %v", err)
	}
}

// smokeStall is how long TestConcurrentSmoke may go without a Pop
// returning before its watchdog calls it a lost pod: with millisecond
// backoffs and flush periods a pod is poppable again within milliseconds,
// so this is progress, not a time budget for the whole test.
const smokeStall = 30 * time.Second

// smokeWatchdog fails the smoke test when no Pop has returned for
// smokeStall: it names every pod not yet done with where the test last
// saw it (seen) and where the queue holds it now.
func smokeWatchdog(q *impl.PriorityQueue, seen *sync.Map, pops *atomic.Int64, stop <-chan struct{}, fail func(string, ...any)) {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	last, since := pops.Load(), time.Now()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		if n := pops.Load(); n != last {
			last, since = n, time.Now()
			continue
		}
		if time.Since(since) < smokeStall {
			continue
		}
		where := map[string]string{}
		snap := make(chan spec.Snapshot, 1)
		go func() { snap <- q.Snapshot() }()
		select {
		case s := <-snap:
			for _, pl := range s.Places() {
				for _, p := range pl.Pods {
					where[p.Pod.Name] = pl.Loc.String()
				}
			}
		case <-time.After(smokeStall):
			fail("no Pop returned for %v, and Snapshot did not return within %v (the queue's lock is held)", smokeStall, smokeStall)
			return
		}
		var lines []string
		seen.Range(func(k, v any) bool {
			held := "nowhere (lost)"
			if loc, ok := where[k.(string)]; ok {
				held = "in " + loc
			}
			lines = append(lines, fmt.Sprintf("  %s: last seen %s; the queue holds it %s", k, v, held))
			return true
		})
		sort.Strings(lines)
		fail("no Pop returned for %v; the pods not done:\n%s", smokeStall, strings.Join(lines, "\n"))
		return
	}
}

// TestFarFutureOrder: heap keys are nanoseconds since the queue was made,
// which saturate about 292 years later; the order must still be spec.Less.
// P fails first, Q is added a second later, then P's backoff completes and
// P enters activeQ after Q. Both keys are saturated, yet P's earlier
// Timestamp must win over Q's earlier arrival (I5).
func TestFarFutureOrder(t *testing.T) {
	q, fc := newQueue(t, spec.DefaultConfig(events))
	const years200 = 200 * 365 * 24 * time.Hour
	fc.Step(years200)
	fc.Step(years200)
	_ = q.Add(pod("p", 0))
	p, cycle := mustPop(t, q)
	_ = q.AddUnschedulableIfNotPresent(p, cycle) // backoffQ, 1s
	fc.Step(time.Second)
	_ = q.Add(pod("q", 0))
	fc.Step(10 * time.Second)
	q.FlushBackoffQCompleted()
	if first, _ := mustPop(t, q); first.Key() != "default/p" {
		t.Fatalf("Pop = %s, want default/p, whose Timestamp is earlier", first.Key())
	}
}
