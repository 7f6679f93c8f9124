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

// TestQueueingHints runs v1.33.13 with its default gates, against the
// classic scenarios and those of the hints profile. Its semantics differ
// from both by design, so the random differential runs do not apply;
// scenarios that differ are declared known differences.
func TestQueueingHints(t *testing.T) {
	conformance.Run(t, v133.QueueingHints(), conformance.Options{
		SkipDifferential: "queueing hints decide requeueing by in-flight events, not by moveRequestCycle",
		// The hints profile is v1.37.2's: v1.33.13 clears the rejectors at
		// every Pop and backs off by Attempts (declared differences of the
		// hints scenarios), so random runs differ at the first Pop of a
		// pod that failed.
		SkipHintsDifferential: "v1.33.13 clears the rejecting plugins at Pop and backs off by Attempts, not by the counts (active_queue.go:307-308, backoff_queue.go:240-251)",
	})
}
