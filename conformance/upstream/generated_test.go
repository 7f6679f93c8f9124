package upstream

import (
	"flag"
	"testing"

	"github.com/schedq/schedq/conformance"
	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

var (
	generatedDir = flag.String("generated", "", "run the scenarios the TLA+ edge generator wrote into this directory (go test ./tla/ -run TestEdgeScenarios -edges.out=DIR) on this release's targets")
	generatedMax = flag.Int("generated.max", 0, "with -generated, at most this many scenarios of each graph, spread evenly")
)

// TestGenerated runs the generated scenarios (conformance.RunGenerated) on
// the release in classic mode (where it has one) and with its default
// gates, with the differences the catalogue declares for it (in the
// scenario files, and in releaseDifferences for the releases between
// v1.33 and v1.37): a generated failure that shows the same signature as
// a declared difference is counted under it; any other fails the test
// with its shrunk scenario. Without -generated it is skipped; make verify
// generates the set first.
func TestGenerated(t *testing.T) {
	if *generatedDir == "" {
		t.Skip("no -generated=DIR (generate with: go test ./tla/ -run TestEdgeScenarios -edges.out=DIR)")
	}
	opts := conformance.GeneratedOptions{Max: *generatedMax}
	t.Run("classic", func(t *testing.T) {
		if err := refuseClassic(spec.DefaultConfig(schedqtest.Registry)); err != nil {
			t.Skipf("n/a: %v", err)
		}
		conformance.RunGenerated(t, Classic(), *generatedDir, opts)
	})
	t.Run("queueinghints", func(t *testing.T) {
		// As TestQueueingHints: the metrics are left out as in its random
		// runs, for the reasons it gives.
		opts.KnownDifferences = releaseDifferences(Release())
		opts.Ignore = []conformance.Observation{conformance.IgnoreMetrics}
		conformance.RunGenerated(t, QueueingHints(), *generatedDir, opts)
	})
}
