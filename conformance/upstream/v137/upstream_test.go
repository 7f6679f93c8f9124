package v137_test

import (
	"testing"

	"github.com/schedq/schedq/conformance"
	"github.com/schedq/schedq/conformance/upstream/v137"
)

// TestV137 runs kube-scheduler v1.37.2's queue, with its default gates,
// against the whole suite. Scenarios where it differs by design are declared
// known differences of conformance.TargetUpstream137.
//
// The hints random runs leave the metrics out (IgnoreMetrics; the
// scenarios compare them): v1.37.2 counts a gated pod that a move request
// or the leftover flush re-gates as a new entry of unschedulablePods, and
// its gauges drift when Add replaces an entry of unschedulablePods, both
// declared with their sources in hints/gated/a-move-that-leaves-a-gated-pod-gated-counts-no-entry
// and hints/gated/add-again-of-a-parked-pod-replaces-its-entry. The random
// runs reach both within a few sequences; with those two cases taken out
// (an experiment, not kept), 3000 sequences agreed with the model on every
// metric.
func TestV137(t *testing.T) {
	conformance.Run(t, v137.New(), conformance.Options{
		SkipDifferential: "queueing hints decide requeueing by in-flight events and there is no moveRequestCycle",
		Ignore:           []conformance.Observation{conformance.IgnoreMetrics},
	})
}
