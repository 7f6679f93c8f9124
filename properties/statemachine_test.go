package properties

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/schedq/schedq/schedqtest"
)

// TestStateMachine drives the implementation and the model with the same
// random operations of the scenario language (one action per kind of
// schedqtest.Kinds, schedqtest.Generator) and checks after every step that
// their results and snapshots agree and that I1-I6 hold on both
// (pair_test.go). On failure rapid shrinks the sequence, and the failure
// names the CHECK that failed and prints the operations as a scenario
// file that replays it (report_test.go).
//
// make test runs rapid's default 100 checks; make verify runs
// -rapid.checks=20000.
func TestStateMachine(t *testing.T) { stateMachine(t, "TestStateMachine", classic) }

// TestStateMachineHints is TestStateMachine in the queueing-hints profile
// (config profile=hints): spec.CheckStep dispatches to the profile's
// invariants (I2h-I5h, I7) and the snapshots include the in-flight list.
func TestStateMachineHints(t *testing.T) {
	stateMachine(t, "TestStateMachineHints", hints)
}

func stateMachine(t *testing.T, name string, d *schedqtest.Drawing) {
	var checks, steps int
	rapid.Check(t, func(rt *rapid.T) {
		p, g := run(rt, name, d, rapidChooser(rt))
		defer p.close()
		rt.Repeat(g.Actions())
		checks++
		steps += p.steps()
	})
	if checks > 0 {
		t.Logf("%d checks (shrinking included), %d steps, %.1f steps per check", checks, steps, float64(steps)/float64(checks))
	}
}
