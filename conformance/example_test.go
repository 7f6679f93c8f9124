package conformance_test

import (
	"fmt"
	"testing"
	"time"

	testingclock "k8s.io/utils/clock/testing"

	"github.com/schedq/schedq/conformance"
	"github.com/schedq/schedq/impl"
	"github.com/schedq/schedq/spec"
)

// implTarget is the adapter to copy for your own queue: embed (or wrap)
// your queue so that it satisfies spec.Queue, give it a fake clock the
// suite can Advance, and say which profile it claims.
type implTarget struct {
	*impl.PriorityQueue
	clock *testingclock.FakeClock
}

func (t implTarget) Advance(d time.Duration) { t.clock.Step(d) }

func (t implTarget) Info() conformance.TargetInfo {
	return conformance.TargetInfo{
		Name:        conformance.TargetImpl,
		Description: "schedq impl: the concurrent implementation",
		Blocking:    true,
		// impl's snapshots are spec.Snapshots: complete in either
		// profile.
		Observes: conformance.Observes{MoveRequestCycle: true, PodInfo: true, Closed: true, Metrics: true,
			InFlightEvents: true, HintCounts: true},
	}
}

// Metrics reports the queue's metrics (R14, R14h) to the suite: Observes.Metrics
// above says it does. It shadows impl's own Metrics, whose types are impl's.
func (t implTarget) Metrics() conformance.Metrics {
	m := t.PriorityQueue.Metrics()
	out := conformance.Metrics{PendingPods: m.PendingPods, IncomingPods: map[conformance.IncomingSeries]uint64{},
		UnschedulablePods: m.UnschedulablePods}
	for k, v := range m.IncomingPods {
		out.IncomingPods[conformance.IncomingSeries{Queue: k.Queue, Event: k.Event}] = v
	}
	return out
}

func newImplTarget(t testing.TB, cfg spec.Config, start time.Time) conformance.Target {
	clk := testingclock.NewFakeClock(start)
	q, err := impl.New(cfg, impl.WithClock(clk))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(q.Close)
	return implTarget{q, clk}
}

// TestImpl runs the whole suite against the implementation: the preflight
// check of the adapter, every scenario, and the model-differential random
// runs, metrics included.
func TestImpl(t *testing.T) {
	conformance.Run(t, newImplTarget, conformance.Options{CatalogueDir: "testdata/scenarios"})
}

// Example replays one scenario of the catalogue against the adapter
// outside a test (conformance.Replay, what a command does); inside a test,
// conformance.Run does the same for the whole catalogue and the random
// runs, as TestImpl shows.
func Example() {
	newTarget := func(cfg spec.Config, start time.Time) (conformance.Target, error) {
		clk := testingclock.NewFakeClock(start)
		q, err := impl.New(cfg, impl.WithClock(clk))
		return implTarget{q, clk}, err
	}
	cat, err := conformance.Catalogue()
	if err != nil {
		panic(err)
	}
	for _, f := range cat {
		if f.Name != "failure/in-the-cycle-of-a-move-request-takes-the-shortcut" {
			continue
		}
		r, err := conformance.Replay(newTarget, f.Name, f.Text)
		if err != nil {
			panic(err)
		}
		last := r.Steps[len(r.Steps)-1]
		fmt.Printf("%s: %d steps, last %q, agrees with the model: %v\n", f.Name, len(r.Steps), last.Op, r.Failure == "")
	}
	// Output: failure/in-the-cycle-of-a-move-request-takes-the-shortcut: 4 steps, last "fail a plugins=(NodeResourcesFit)", agrees with the model: true
}
