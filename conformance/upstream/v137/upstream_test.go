package v137_test

import (
	"testing"

	"github.com/schedq/schedq/conformance"
	"github.com/schedq/schedq/conformance/upstream/v137"
)

// TestV137 runs kube-scheduler v1.37.2's queue, with its default gates,
// against the whole suite. Scenarios where it differs by design are declared
// known differences of conformance.ProfileUpstream137.
func TestV137(t *testing.T) {
	conformance.Run(t, v137.New(), conformance.Options{
		SkipDifferential: "queueing hints decide requeueing by in-flight events and there is no moveRequestCycle",
	})
}
