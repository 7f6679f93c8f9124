package properties

import (
	"testing"
	"time"

	testingclock "k8s.io/utils/clock/testing"

	"github.com/schedq/schedq/impl"
	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// The periodic flushes are wired: with Run started on a fake clock, stepping
// the clock is enough for backoffQ to drain within one BackoffQFlushPeriod
// of a pod's expiry and for a leftover to leave unschedulablePods within one
// UnschedulablePodsFlushPeriod after PodMaxInUnschedulablePodsDuration. No
// flush is called by hand. The fake clock fires the ticker during Step; the
// flush goroutine then runs on its own, so each check polls the queue with
// a bounded real-time wait. Every flush after a Step reads the stepped
// clock, so a pod that must stay put is checked right after a sentinel pod
// proves the flush at that time has run.

// eventually polls the queue until cond holds, for at most 10 s of real time.
func eventually(t *testing.T, q *impl.PriorityQueue, what string, cond func(*spec.Snapshot) bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		s := q.Snapshot()
		if cond(&s) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 10s of real time; queue: %+v", what, s)
		}
		time.Sleep(time.Millisecond)
	}
}

func in(loc spec.Location, k spec.PodKey) func(*spec.Snapshot) bool {
	return func(s *spec.Snapshot) bool { l, _ := s.Find(k); return l == loc }
}

func expectIn(t *testing.T, q *impl.PriorityQueue, loc spec.Location, k spec.PodKey) {
	t.Helper()
	s := q.Snapshot()
	if l, _ := s.Find(k); l != loc {
		t.Fatalf("pod %s is in %s, want %s; queue: %+v", k, l, loc, s)
	}
}

func runningQueue(t *testing.T) (*impl.PriorityQueue, *testingclock.FakeClock) {
	t.Helper()
	clk := testingclock.NewFakeClock(schedqtest.Start)
	q, err := impl.New(schedqtest.Config(), impl.WithClock(clk))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(q.Close)
	q.Run()
	return q, clk
}

// pop pops the pod with key k.
func pop(t *testing.T, q *impl.PriorityQueue, k spec.PodKey) schedqtest.Popped {
	t.Helper()
	p, cycle, err := q.Pop()
	if err != nil || p.Key() != k {
		t.Fatalf("Pop = %v, %v; want %s", p, err, k)
	}
	return schedqtest.Popped{Info: *p, Cycle: cycle}
}

// fail hands a popped pod back with plugins.
func fail(t *testing.T, q *impl.PriorityQueue, p schedqtest.Popped, plugins ...string) {
	t.Helper()
	p.Info.UnschedulablePlugins = spec.NewPluginSet(plugins...)
	if err := q.AddUnschedulableIfNotPresent(&p.Info, p.Cycle); err != nil {
		t.Fatal(err)
	}
}

func TestRunFlushesAreWired(t *testing.T) {
	t.Run("backoffQ drains within one flush period of expiry", func(t *testing.T) {
		q, clk := runningQueue(t)
		a, b := schedqtest.Pod("a", 1), schedqtest.Pod("b", 0)
		for _, p := range []*spec.Pod{a, b} {
			if err := q.Add(p); err != nil {
				t.Fatal(err)
			}
		}
		// Both in flight first: once a's backoff ends a tick may bring it
		// back to activeQ at any moment. Ticks come at t0+1s, t0+2s, ...
		pa, pb := pop(t, q, a.Key()), pop(t, q, b.Key())
		clk.Step(100 * time.Millisecond)
		fail(t, q, pa) // no rejecting plugin: backoffQ, expiry t0+1.1s
		clk.Step(800 * time.Millisecond)
		fail(t, q, pb) // expiry t0+1.9s
		expectIn(t, q, spec.InBackoffQ, a.Key())
		expectIn(t, q, spec.InBackoffQ, b.Key())

		// The tick at t0+1s fires when the clock reaches t0+1.5s; its
		// flush, the only one at or after a's expiry, releases a...
		clk.Step(600 * time.Millisecond)
		eventually(t, q, "a reaches activeQ 0.4s after its expiry", in(spec.InActiveQ, a.Key()))
		// ...and keeps b, still backing off; no other flush can come before
		// the next tick.
		expectIn(t, q, spec.InBackoffQ, b.Key())

		// The tick at t0+2s, 0.1s after b's expiry, releases b.
		clk.Step(500 * time.Millisecond)
		eventually(t, q, "b reaches activeQ 0.1s after its expiry", in(spec.InActiveQ, b.Key()))
	})

	t.Run("leftovers leave unschedulablePods after the limit plus one flush period", func(t *testing.T) {
		q, clk := runningQueue(t)
		x, y := schedqtest.Pod("x", 1), schedqtest.Pod("y", 0)
		for _, p := range []*spec.Pod{x, y} {
			if err := q.Add(p); err != nil {
				t.Fatal(err)
			}
		}
		// Leftover ticks come every 30s from t0. No event ever wakes
		// TaintToleration's pods here: only the leftover flush can.
		px, py := pop(t, q, x.Key()), pop(t, q, y.Key())
		clk.Step(time.Second)
		fail(t, q, px, "TaintToleration") // at t0+1s: leftover after t0+301s
		clk.Step(40 * time.Second)
		fail(t, q, py, "TaintToleration") // at t0+41s: leftover after t0+341s
		expectIn(t, q, spec.InUnschedulablePods, x.Key())
		expectIn(t, q, spec.InUnschedulablePods, y.Key())
		moveBefore := q.MoveRequestCycle()

		// The tick at t0+330s (x's limit plus 29s) moves x; its backoff
		// ended long ago, so it goes to activeQ; the move is a move
		// request (R6 as R4).
		clk.Step(330*time.Second - 41*time.Second)
		eventually(t, q, "x leaves unschedulablePods by t0+330s", in(spec.InActiveQ, x.Key()))
		expectIn(t, q, spec.InUnschedulablePods, y.Key()) // 289s old
		if got := q.MoveRequestCycle(); got == moveBefore || got != q.SchedulingCycle() {
			t.Errorf("moveRequestCycle = %d after the leftover flush, want schedulingCycle %d", got, q.SchedulingCycle())
		}

		// y's limit ends at t0+341s; the tick at t0+360s moves it, before
		// t0+371s, its limit plus one flush period.
		clk.Step(41 * time.Second)
		eventually(t, q, "y leaves unschedulablePods by its limit plus 30s", in(spec.InActiveQ, y.Key()))
	})
}
