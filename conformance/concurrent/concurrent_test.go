package concurrent_test

import (
	"strings"
	"testing"
	"time"

	testingclock "k8s.io/utils/clock/testing"

	"github.com/schedq/schedq/conformance"
	"github.com/schedq/schedq/conformance/concurrent"
	"github.com/schedq/schedq/internal/lockedq"
	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// lockedTarget is internal/lockedq as a target: the model behind a mutex,
// with or without a flaw.
type lockedTarget struct {
	*lockedq.Queue
	clock *testingclock.FakeClock
	flaw  lockedq.Flaw
}

func (t lockedTarget) Advance(d time.Duration) { t.clock.Step(d) }

func (t lockedTarget) Info() conformance.TargetInfo {
	return conformance.TargetInfo{Name: "lockedq-" + t.flaw.String(), Description: "the model behind a mutex, flaw " + t.flaw.String(),
		Blocking: true, Observes: conformance.Observes{MoveRequestCycle: true, PodInfo: true, Closed: true}}
}

func newLocked(f lockedq.Flaw) conformance.NewTarget {
	return func(t testing.TB, cfg spec.Config, start time.Time) conformance.Target {
		clk := testingclock.NewFakeClock(start)
		q, err := lockedq.New(cfg, clk, f)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(q.Close)
		return lockedTarget{q, clk, f}
	}
}

func TestImpl(t *testing.T) {
	concurrent.Run(t, conformance.ImplTarget, concurrent.Options{Linearizability: &concurrent.LinOptions{Histories: 4}})
}

func TestLockedModel(t *testing.T) {
	concurrent.Run(t, newLocked(0), concurrent.Options{NoReport: true})
}

// A queue whose Add does not wake a parked Pop is caught, every time: the
// Pop is parked before the Add, by the runtime's account.
func TestAddThatDoesNotWakeIsCaught(t *testing.T) {
	for i := range 20 {
		res, err := concurrent.Wakeup(t, newLocked(lockedq.AddNoWake), "Add", concurrent.Options{WakeTimeout: 100 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		if res.Outcome != conformance.Fail || !strings.Contains(res.Detail, "lost wake-up") {
			t.Fatalf("run %d: the Add that does not wake passed: %+v", i, res)
		}
		if i == 0 {
			t.Logf("what a lost wake-up looks like:\n%s", res.Detail)
		}
	}
}

// The conservation runs catch the queues that hand a pod out twice or lose
// its in-flight bookkeeping, with no yield inside the queue.
func TestConservationCatchesBrokenQueues(t *testing.T) {
	for _, f := range []lockedq.Flaw{lockedq.PeekThenPop, lockedq.RequeueRace} {
		t.Run(f.String(), func(t *testing.T) {
			res := concurrent.Conservation(t, newLocked(f), concurrent.Options{Rounds: 150})
			if len(res.Violations) == 0 {
				t.Fatalf("not caught in %d rounds (%d operations, %d Pops)", res.Rounds, res.Operations, res.Pops)
			}
			t.Logf("caught in round %d of %d:\n%s", res.Rounds, 150, res.Violations[0])
		})
	}
}

// hangingTarget's FlushBackoffQCompleted never returns once release is
// open... until the test ends: a hang, which the round must diagnose
// within its own deadline instead of waiting for go test's.
type hangingTarget struct {
	lockedTarget
	release chan struct{}
}

func (t hangingTarget) FlushBackoffQCompleted() { <-t.release }

func TestAHangIsDiagnosed(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	newTarget := func(tb testing.TB, cfg spec.Config, start time.Time) conformance.Target {
		return hangingTarget{newLocked(0)(tb, cfg, start).(lockedTarget), release}
	}
	res := concurrent.Conservation(t, newTarget, concurrent.Options{Rounds: 1, Deadline: 2 * time.Second})
	if len(res.Violations) == 0 {
		t.Fatal("a hanging flush passed")
	}
	v := res.Violations[0]
	for _, want := range []string{"did not finish within its deadline", "in FlushBackoffQCompleted", "queue: activeQ:"} {
		if !strings.Contains(v, want) {
			t.Errorf("the diagnosis does not say %q:\n%s", want, v)
		}
	}
	t.Logf("what a hang looks like:\n%s", v)
}

// Every wake-up check can fail: against a queue where nothing but Close
// wakes a blocked Pop, each check fails with a lost wake-up, except Close
// (which still wakes) and the one that does not apply to a queue with the
// model's semantics.
func TestEveryWakeupCheckCanFail(t *testing.T) {
	for _, name := range concurrent.WakeupChecks() {
		res, err := concurrent.Wakeup(t, newLocked(lockedq.NoWake), name, concurrent.Options{WakeTimeout: 50 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case name == "Close":
			if res.Outcome != conformance.Pass {
				t.Errorf("%s: %s: %s", name, res.Outcome, res.Detail)
			}
		case name == "AddUnschedulableIfNotPresent into activeQ":
			if res.Outcome != conformance.NotApplicable {
				t.Errorf("%s: %s, want n/a (R3 never puts a pod in activeQ): %s", name, res.Outcome, res.Detail)
			}
		case res.Outcome != conformance.Fail || !strings.Contains(res.Detail, "lost wake-up"):
			t.Errorf("%s passed against a queue that wakes no Pop: %s: %s", name, res.Outcome, res.Detail)
		}
	}
}

// TestImplKeepsARequeuedPod: the requeue race that loses a pod in upstream
// v1.33.13 (default gates) and v1.37.2 (their concurrent tests reproduce it
// with this same check) does not lose one in impl, whose failure ends the
// pod's time in flight under the lock that puts it back.
func TestImplKeepsARequeuedPod(t *testing.T) {
	lost, n := concurrent.RequeueRace(t, conformance.ImplTarget, spec.DefaultHintsConfig(schedqtest.Registry), 50, false)
	if lost != 0 {
		t.Errorf("impl lost the requeued pod in %d of %d trials", lost, n)
	}
	t.Logf("requeue race: %d of %d trials lost the pod; %s", lost, n, concurrent.Odds(n))
}
