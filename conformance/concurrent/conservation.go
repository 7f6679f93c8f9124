package concurrent

import (
	"testing"

	"github.com/schedq/schedq/conformance"
)

// ConservationResult is what the conservation runs did and found.
type ConservationResult struct {
	Rounds, Workers, Operations, Pops, BlockedPops, Rescues int
	Violations                                              []string
}

// RunConservation runs opts.Rounds rounds of concurrent workers against
// fresh targets and checks conservation after each.
func RunConservation(t *testing.T, newTarget conformance.NewTarget, opts Options) ConservationResult {
	return ConservationResult{}
}
