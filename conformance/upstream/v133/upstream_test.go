package v133_test

import (
	"testing"

	"github.com/schedq/schedq/conformance"
	"github.com/schedq/schedq/conformance/upstream/v133"
)

// TestClassic is the reference check: upstream v1.33.13 in classic mode
// against the whole suite.
func TestClassic(t *testing.T) {
	conformance.Run(t, v133.Classic(), conformance.Options{})
}

// TestQueueingHints runs v1.33.13 with its default gates. Its semantics
// differ from the classic queue by design, so the random differential runs
// do not apply; scenarios that differ are declared known differences.
func TestQueueingHints(t *testing.T) {
	conformance.Run(t, v133.QueueingHints(), conformance.Options{
		SkipDifferential: "queueing hints decide requeueing by in-flight events, not by moveRequestCycle",
	})
}
