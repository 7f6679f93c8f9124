package conformance_test

import (
	"flag"
	"testing"

	"github.com/schedq/schedq/conformance"
)

var (
	generatedDir = flag.String("generated", "", "run the scenarios the TLA+ edge generator wrote into this directory (go test ./tla/ -run TestEdgeScenarios -edges.out=DIR) on the model and impl")
	generatedMax = flag.Int("generated.max", 0, "with -generated, at most this many scenarios of each graph, spread evenly")
)

// TestGenerated runs the generated scenarios (conformance.RunGenerated) on
// the model and on impl: every step of the TLA+ graphs the generator
// wrote, each a shortest scenario ending in that step. Without -generated
// it is skipped; make test and make verify generate the set first.
func TestGenerated(t *testing.T) {
	if *generatedDir == "" {
		t.Skip("no -generated=DIR (generate with: go test ./tla/ -run TestEdgeScenarios -edges.out=DIR)")
	}
	for _, tg := range []struct {
		name string
		new  conformance.NewTarget
	}{{"model", conformance.ModelTarget}, {"impl", conformance.ImplTarget}} {
		t.Run(tg.name, func(t *testing.T) {
			conformance.RunGenerated(t, tg.new, *generatedDir, conformance.GeneratedOptions{Max: *generatedMax})
		})
	}
}
