package impl_test

import (
	"context"
	"errors"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/schedq/schedq/impl"
	"github.com/schedq/schedq/model"
	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// The hints profile's concurrent behaviour, which the sequential
// differential runs of package properties cannot show: blocking Pop and
// its wake-ups (R2h), Close, and the periodic backoffQ flush aligned to
// the one-second windows (R5h). goleak (TestMain) checks that no goroutine is left.

func hintsQueue(t *testing.T, start time.Time) (*checked, *clocktesting.FakeClock) {
	t.Helper()
	fc := clocktesting.NewFakeClock(start)
	q, err := impl.New(schedqtest.HintsConfig(), impl.WithClock(fc))
	if err != nil {
		t.Fatal(err)
	}
	c := &checked{q, t}
	t.Cleanup(c.Close)
	return c, fc
}

// popAsync starts a Pop and returns where its result arrives.
func popAsync(q *checked) <-chan *spec.QueuedPodInfo {
	ch := make(chan *spec.QueuedPodInfo, 1)
	go func() {
		p, _, err := q.PriorityQueue.Pop()
		if err != nil {
			p = nil
		}
		ch <- p
	}()
	return ch
}

// TestHintsPopWakesOnBackoffQ (R2h): a Pop blocked on an empty queue is
// woken by a failed pod some plugin rejected entering backoffQ, and takes
// it although its backoff has not completed; a pod no plugin rejected (an
// error retry) in backoffQ does not wake it.
func TestHintsPopWakesOnBackoffQ(t *testing.T) {
	q, _ := hintsQueue(t, t0)
	for _, n := range []string{"a", "b"} {
		if err := q.Add(schedqtest.Pod(n, 0)); err != nil {
			t.Fatal(err)
		}
	}
	a, ca := mustPop(t, q)
	b, cb := mustPop(t, q)
	// A move request while both are in flight: Fit's replay says Queue.
	q.MoveAllToActiveOrBackoffQueue(schedqtest.NodeAdd, nil)

	got := popAsync(q)
	eventually(t, "Pop to block", func() bool { return q.BlockedPops() == 1 })
	b.UnschedulablePlugins = nil // an error: backoffQ, never popped early
	if err := q.AddUnschedulableIfNotPresent(b, cb); err != nil {
		t.Fatal(err)
	}
	select {
	case p := <-got:
		t.Fatalf("%s: Pop returned %v, an error retry still backing off", spec.R2hPop, p)
	case <-time.After(50 * time.Millisecond):
	}
	a.UnschedulablePlugins = spec.NewPluginSet("Fit")
	if err := q.AddUnschedulableIfNotPresent(a, ca); err != nil {
		t.Fatal(err)
	}
	select {
	case p := <-got:
		if p == nil || p.Pod.Name != "a" {
			t.Fatalf("%s: Pop returned %v, want a from backoffQ", spec.R2hPop, p)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("%s: a rejected pod entered backoffQ but the blocked Pop was not woken", spec.R2hPop)
	}
}

// TestHintsCloseUnblocksPop (R13h): Close wakes a Pop blocked with only an
// error retry in backoffQ.
func TestHintsCloseUnblocksPop(t *testing.T) {
	q, _ := hintsQueue(t, t0)
	if err := q.Add(schedqtest.Pod("a", 0)); err != nil {
		t.Fatal(err)
	}
	a, ca := mustPop(t, q)
	if err := q.AddUnschedulableIfNotPresent(a, ca); err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() { _, _, err := q.PriorityQueue.Pop(); got <- err }()
	eventually(t, "Pop to block", func() bool { return q.BlockedPops() == 1 })
	q.Close()
	select {
	case err := <-got:
		if !errors.Is(err, spec.ErrClosed) {
			t.Fatalf("%s: blocked Pop returned %v after Close, want ErrClosed", spec.R13hClose, err)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("%s: Close did not wake the blocked Pop", spec.R13hClose)
	}
}

// TestHintsRunFlushesAtWindowStarts (R5h): with Run, backoffQ is flushed
// at the start of every one-second window of the clock, not one period
// after Run. The queue starts 300 ms into a window; a pod failing then
// with an error backs off 1 s, expiry truncated to t0+1s, so it is still
// backing off through the window that starts at t0+1s and completes at the
// flush of t0+2s. Flushes one period after Run would come at t0+1.3s (seen
// at t0+1.9s, when a still backs off) and t0+2.3s, and still hold it at
// t0+2s.
func TestHintsRunFlushesAtWindowStarts(t *testing.T) {
	q, fc := hintsQueue(t, t0.Add(300*time.Millisecond))
	if err := q.Add(schedqtest.Pod("a", 0)); err != nil {
		t.Fatal(err)
	}
	a, ca := mustPop(t, q)
	if err := q.AddUnschedulableIfNotPresent(a, ca); err != nil { // no rejector: error backoff
		t.Fatal(err)
	}
	q.Run()
	armed := func() bool { return fc.HasWaiters() }
	eventually(t, "the flush timer", armed)
	fc.Step(700 * time.Millisecond) // t0+1s: a flush, a still backing off
	eventually(t, "the flush timer again", armed)
	if s := q.Snapshot(); len(s.BackoffQ) != 1 {
		t.Fatalf("%s at t0+1s: backoffQ %v, want a still there (expiry t0+1s is not before the window t0+1s)", spec.R7hBackoff, s.BackoffQ)
	}
	fc.Step(900 * time.Millisecond) // t0+1.9s: no window starts
	// A flush one period after Run would be due now; give it time to run
	// while the clock reads t0+1.9s, or it would read t0+2s and pass. (The
	// aligned queue does nothing here; the pause only lets the test fail.)
	time.Sleep(50 * time.Millisecond)
	fc.Step(100 * time.Millisecond) // t0+2s
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	p, _, err := q.PriorityQueue.PopContext(ctx)
	if err != nil || p.Pod.Name != "a" {
		t.Fatalf("%s: no flush released a at the window start t0+2s: Pop = %v, %v", spec.R5hFlushBackoffQ, p, err)
	}
}

// TestInFlightUIDChangeEndsTheAttempt is R9 for an Update that gives a pod
// in flight another UID: the pod was re-created, so the attempt on the old
// object ends as by Delete and the new pod is added. In both profiles impl
// must agree with the model step by step, return the errors the contract
// names for the old attempt's Done and failure, keep I7 (no marker of a
// pod gone), and let another pod take the old UID.
func TestInFlightUIDChangeEndsTheAttempt(t *testing.T) {
	hintsCfg := schedqtest.HintsConfig()
	classicCfg := spec.DefaultConfig(hintsCfg.PluginEvents)
	for _, cfg := range []spec.Config{classicCfg, hintsCfg} {
		t.Run(cfg.Profile.String(), func(t *testing.T) {
			fc := clocktesting.NewFakeClock(t0)
			q, err := impl.New(cfg, impl.WithClock(fc))
			if err != nil {
				t.Fatal(err)
			}
			defer q.Close()
			m, err := model.New(cfg, t0)
			if err != nil {
				t.Fatal(err)
			}
			step := func(q spec.Queue, d time.Duration) error {
				if q == spec.Queue(m) {
					return m.Step(d)
				}
				fc.Step(d)
				return nil
			}
			checkState := spec.CheckState
			if cfg.Profile == spec.ProfileHints {
				checkState = spec.CheckHintsState
			}
			a, a2, b, x := schedqtest.Pod("a", 0), schedqtest.Pod("a", 0), schedqtest.Pod("b", 0), schedqtest.Pod("x", 0)
			a2.UID = "uid-a-2"
			x.UID = "uid-a" // another pod takes the old UID
			popped := map[spec.UID]*spec.QueuedPodInfo{}
			steps := []struct {
				name string
				want error
				do   func(spec.Queue) error
			}{
				{"add a", nil, func(q spec.Queue) error { return q.Add(a) }},
				{"add b", nil, func(q spec.Queue) error { return q.Add(b) }},
				{"step 1ms", nil, func(q spec.Queue) error { return step(q, time.Millisecond) }},
				{"pop a", nil, func(q spec.Queue) error { p, _, err := q.Pop(); popped[p.Pod.UID] = p; return err }},
				{"update a to uid-a-2", nil, func(q spec.Queue) error { return q.Update(a, a2) }},
				{"done uid-a", spec.ErrNotInFlight, func(q spec.Queue) error { return q.Done("uid-a") }},
				{"fail the old attempt by Fit", spec.ErrAlreadyQueued, func(q spec.Queue) error {
					p := *popped["uid-a"]
					p.UnschedulablePlugins = spec.NewPluginSet("Fit")
					return q.AddUnschedulableIfNotPresent(&p, 1)
				}},
				{"pop b", nil, func(q spec.Queue) error { _, _, err := q.Pop(); return err }}, // b came first
				{"move NodeAdd", nil, func(q spec.Queue) error { q.MoveAllToActiveOrBackoffQueue(schedqtest.NodeAdd, nil); return nil }},
				{"add x with uid-a", nil, func(q spec.Queue) error { return q.Add(x) }},
				{"pop a (uid-a-2)", nil, func(q spec.Queue) error { _, _, err := q.Pop(); return err }},
				{"done uid-a-2", nil, func(q spec.Queue) error { return q.Done("uid-a-2") }},
				{"done uid-b", nil, func(q spec.Queue) error { return q.Done("uid-b") }},
			}
			for _, st := range steps {
				me, ie := st.do(m), st.do(q)
				if !errors.Is(me, st.want) || !schedqtest.SameError(me, ie) {
					t.Fatalf("%s: %s: want %v; model returned %v, impl %v", st.name, spec.R9Update, st.want, me, ie)
				}
				ms, is := m.Snapshot(), q.Snapshot()
				if d := ms.Diff(&is); d != "" {
					t.Fatalf("%s: %s: model vs impl: %s", st.name, spec.R9Update, d)
				}
				if err := checkState(&ms); err != nil {
					t.Fatalf("%s: model: %v", st.name, err)
				}
				if err := q.CheckConsistency(); err != nil {
					t.Fatalf("%s: %v", st.name, err)
				}
			}
			s := q.Snapshot()
			if len(s.InFlight) != 0 || len(s.InFlightEvents) != 0 || len(s.ActiveQ) != 1 || s.ActiveQ[0].Pod.UID != "uid-a" {
				t.Fatalf("want only x (uid-a) in activeQ and nothing in flight, got\n%s", s.Format(t0, cfg))
			}
		})
	}
}
