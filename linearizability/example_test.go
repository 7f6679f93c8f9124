package linearizability_test

import (
	"fmt"
	"time"

	testingclock "k8s.io/utils/clock/testing"

	"github.com/schedq/schedq/impl"
	lin "github.com/schedq/schedq/linearizability"
	"github.com/schedq/schedq/spec"
)

// Record a concurrent history of the implementation and check it against
// the model. A queue under test is made from the config and the fake clock
// the harness steps; it must not run its own periodic flushes.
func Example() {
	newQueue := func(cfg spec.Config, clk *testingclock.FakeClock) (spec.Queue, error) {
		return impl.New(cfg, impl.WithClock(clk))
	}
	h, err := lin.Record(lin.Workload{Clients: 4, OpsPerClient: 25, Seed: 1, ConcurrentSteps: 0.25}, newQueue)
	if err != nil {
		panic(err)
	}
	res := lin.Check(h, time.Minute)
	if res.Outcome != "Ok" {
		html, listing, _ := lin.WriteEvidence(h, res, "example")
		fmt.Println(html, listing)
	}
	fmt.Println(res.Outcome)
	// Output: Ok
}
