package properties

import (
	"pgregory.net/rapid"

	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// The random operations of the suites come from the one generator,
// schedqtest.Generator, with the profile's drawing (schedqtest.Drawings:
// bad input included) narrowed per sequence by swarm testing
// (Drawing.Swarm). The pair is its Runner: every operation it draws is
// one line of a scenario file, performed on both queues and checked
// (pair_test.go).

// Do performs op on both queues and checks the step (schedqtest.Runner).
func (p *pair) Do(op schedqtest.Op) schedqtest.Step { return p.do(op) }

// Shadow is the model the pair steps beside the queue (schedqtest.Runner).
func (p *pair) Shadow() *schedqtest.ModelRun { return p.model }

// The profiles' drawings.
var (
	classic   = schedqtest.Drawings[spec.ProfileClassic]
	hints     = schedqtest.Drawings[spec.ProfileHints]
	podgroups = schedqtest.Drawings[spec.ProfilePodGroups]
)

// nodes are the nodes whose nominations every step compares (R18): the
// drawings' nomination nodes.
var nodes = classic.NominationNodes

// rapidChooser is rapid's chooser of the generator.
func rapidChooser(t *rapid.T) schedqtest.Chooser { return schedqtest.RapidChooser{T: t} }

// pick is schedqtest.Pick.
func pick[T any](c schedqtest.Chooser, label string, xs []T) T { return schedqtest.Pick(c, label, xs) }

// run draws a config of d, starts a pair named suite on it and returns it
// with the generator of the sequence's swarm.
func run(r reporter, suite string, d *schedqtest.Drawing, c schedqtest.Chooser) (*pair, *schedqtest.Generator) {
	p := newPair(r, suite, d.DrawConfig(c))
	return p, schedqtest.NewGenerator(p, d.Swarm(c))
}
