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

func (t implTarget) Profile() conformance.Profile {
	return conformance.Profile{
		Name:        conformance.ProfileImpl,
		Description: "schedq impl: the concurrent implementation",
		Blocking:    true,
		Observes:    conformance.Observes{MoveRequestCycle: true, PodInfo: true, Closed: true, Metrics: true},
	}
}

// Metrics reports the queue's metrics (R14) to the suite: Observes.Metrics
// above says it does. It shadows impl's own Metrics, whose types are impl's.
func (t implTarget) Metrics() conformance.Metrics {
	m := t.PriorityQueue.Metrics()
	out := conformance.Metrics{PendingPods: m.PendingPods, IncomingPods: map[conformance.IncomingSeries]uint64{}}
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

// TestImpl runs the whole suite against the implementation: every scenario
// and the model-differential random runs.
func TestImpl(t *testing.T) {
	conformance.Run(t, newImplTarget, conformance.Options{CatalogueDir: "testdata/scenarios"})
}

// Example shows one scenario run against an adapter; Run does the same for
// the whole catalogue inside a test.
func Example() {
	t := &testing.T{}
	res, prof := conformance.RunScenario(t, newImplTarget, "failure/in-the-cycle-of-a-move-request-takes-the-shortcut")
	fmt.Println(prof.Name, res.Rules, res.Outcome)
	// Output: schedq-impl [R3 I3] pass
}
