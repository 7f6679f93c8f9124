package linearizability

import (
	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// Nominations (R18). With Workload.Nominations, against a queue with a
// nominator (spec.Nominator), clients nominate their own pods (the
// version they last handed the queue) to a node, to no node, or as a
// no-op nomination that keeps what the pod says, and ask which pods a
// node has; the model lists the pods nominated to it, in nomination
// order, each as the queue holds it, and the popped, updated, deleted and
// re-added pods of the other clients change what that is. The porcupine
// state key holds the nominations (porcupine.go).

// nominationNodes are the nodes of the workload's nominations ("": none).
var nominationNodes = []string{"n1", "n2", ""}

func isNomination(k schedqtest.Kind) bool {
	return k == schedqtest.KindNominate || k == schedqtest.KindNominated
}

// nominations reports whether the run draws nominations: with
// Workload.Nominations, on a queue with a nominator (Record's wrapper
// says whether the queue it wraps has one).
func (c *client) nominations() bool {
	if w, ok := c.q.(interface{ nominator() spec.Nominator }); ok {
		return c.w.Nominations && w.nominator() != nil
	}
	_, ok := c.q.(spec.Nominator)
	return c.w.Nominations && ok
}

// nominationOp fills in a nomination of one of the client's pods, or a
// question about a node (one never nominated to included).
func (c *client) nominationOp(in *Input) {
	op := &in.Op
	if op.Kind == schedqtest.KindNominated {
		op.Node = []string{"n1", "n2", "n3"}[c.rng.IntN(3)]
		return
	}
	_, p := c.own()
	op.Pod, in.Pods = schedqtest.PodRef{Name: p.Name}, []*spec.Pod{p}
	if c.rng.IntN(4) == 0 {
		op.Noop = true
		return
	}
	op.Node = nominationNodes[c.rng.IntN(len(nominationNodes))]
}
