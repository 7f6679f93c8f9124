package conformance_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/schedq/schedq/conformance"
	"github.com/schedq/schedq/spec"
)

// TestImpl runs the whole suite against the implementation: the preflight
// check of the adapter, every scenario, and the model-differential random
// runs, metrics included.
func TestImpl(t *testing.T) {
	// conformance.Impl is the adapter to copy for your own queue: embed (or
	// wrap) your queue so that it satisfies spec.Queue, give it a fake
	// clock the suite can Advance, and say what it observes.
	conformance.Run(t, conformance.ImplTarget, conformance.Options{CatalogueDir: "testdata/scenarios"})
}

// Example replays one scenario of the catalogue against the adapter
// outside a test (conformance.Replay, what a command does); inside a test,
// conformance.Run does the same for the whole catalogue and the random
// runs, as TestImpl shows.
func Example() {
	newTarget := func(cfg spec.Config, start time.Time) (conformance.Target, error) {
		q, err := conformance.NewImpl(cfg, start)
		if err != nil {
			return nil, err
		}
		return q, nil
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
