package properties

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// The comparisons of one step. Every operation snapshots both queues
// before and after, and then checks, in this order:
//
//  1. the results agree: errors by schedqtest.SameError ("error
//     mismatch"); for pop, the pod is one of model.PopCandidates and the
//     returned info (schedqtest.InfoEqual) and cycle equal the model's
//     ("Pop outcome");
//  2. spec.CheckStep holds on the model's step ("model I1".."model I6":
//     a bug in the oracle itself);
//  3. spec.CheckStep holds on the queue's step ("I1".."I6");
//  4. the snapshots are equal ("snapshot diff", printed as
//     cmp.Diff(modelSnap, queueSnap));
//  5. the nominations (R18): NominatedPodsForNode of every node of
//     nodes, pod by pod (spec.PodsEqual) and in order ("nominator");
//  6. checkStep, the queue's own consistency checks.
//
// A failure message starts with CHECK[<name>], which TestMutantsAreCaught
// reads back to say which check caught a mutant.

// compareErrors is check 1 for any operation.
func (p *pair) compareErrors(model, queue schedqtest.Outcome) {
	p.r.Helper()
	if !schedqtest.SameError(model.Err(), queue.Err()) {
		p.failCheck("error mismatch", "model returned %s, the queue returned %s", model, queue)
	}
}

// comparePopped is check 1 for the pod a Pop returned: one the model
// allows. It returns its key.
func (p *pair) comparePopped(cands []spec.PodKey, before spec.Snapshot, got schedqtest.Outcome) spec.PodKey {
	p.r.Helper()
	if got.Err() != nil || got.Popped == nil {
		p.failCheck("error mismatch", "the queue's Pop returned %s; the model would pop one of %v", got, cands)
	}
	key := got.Popped.Key()
	if !slices.Contains(cands, key) {
		// A more specific name if the queue's own step breaks an invariant
		// (I5: not maximal, I4: not from activeQ).
		after := p.sub.Snapshot()
		if err := spec.CheckStep(p.cfg, &before, &after, got.Step); err != nil {
			p.failCheck(firstInvariant(err), "Pop returned %s; the model allows %v: %v", key, cands, err)
		}
		p.failCheck("Pop outcome", "Pop returned %s; the model allows %v", key, cands)
	}
	return key
}

// comparePopInfo is check 1 for what a Pop returned with the pod.
func (p *pair) comparePopInfo(model, queue schedqtest.Outcome) {
	p.r.Helper()
	if model.Cycle != queue.Cycle || !schedqtest.InfoEqual(model.Popped, queue.Popped) {
		p.failCheck("Pop outcome", "Pop returned %+v cycle %d; the model returns %+v cycle %d", *queue.Popped, queue.Cycle, *model.Popped, model.Cycle)
	}
}

// firstInvariant names the first broken invariant in err (from
// spec.CheckStep, possibly joined).
func firstInvariant(err error) string {
	var ie *spec.InvariantError
	if errors.As(err, &ie) {
		return ie.Invariant
	}
	return "invariant"
}

// check is checks 2 to 6 of one step, given both snapshots before it and
// the step as each queue performed it.
func (p *pair) check(mb, ib spec.Snapshot, ms, is spec.StepRecord) {
	p.r.Helper()
	ma, ia := p.model.Model.Snapshot(), p.sub.Snapshot()
	if err := spec.CheckStep(p.cfg, &mb, &ma, ms); err != nil {
		p.failCheck("model "+firstInvariant(err), "%v\nmodel before -> after:\n%s", err, cmp.Diff(mb, ma, cmpopts.EquateEmpty()))
	}
	if err := spec.CheckStep(p.cfg, &ib, &ia, is); err != nil {
		p.failCheck(firstInvariant(err), "%v\nqueue before -> after:\n%s", err, cmp.Diff(ib, ia, cmpopts.EquateEmpty()))
	}
	if d := ma.Diff(&ia); d != "" {
		p.failCheck("snapshot diff", "%s(-model +queue):\n%s", d, cmp.Diff(ma, ia, cmpopts.EquateEmpty()))
	}
	p.compareNominations()
	p.checkStep()
}

// compareNominations is check 5: what the nominator exposes, the pods
// nominated to each node (the queue's current version of each), must be
// the model's. The snapshots do not show nominations.
func (p *pair) compareNominations() {
	p.r.Helper()
	n, ok := p.sub.(spec.Nominator)
	if !ok {
		p.failCheck("nominator", "the queue under test has no nominator (spec.Nominator)")
	}
	for _, node := range nodes {
		m, q := p.model.Model.NominatedPodsForNode(node), n.NominatedPodsForNode(node)
		if !slices.EqualFunc(m, q, spec.PodsEqual) {
			p.failCheck("nominator", "%s: the pods nominated to %q: model %s, the queue %s", spec.R18Nominator, node, podList(m), podList(q))
		}
	}
}

// podList prints pods as name(uid labels) for a nominator failure.
func podList(pods []*spec.Pod) string {
	var b strings.Builder
	b.WriteString("[")
	for i, pod := range pods {
		if i > 0 {
			b.WriteString(" ")
		}
		fmt.Fprintf(&b, "%s(uid=%s prio=%d labels=%v)", pod.Name, pod.UID, pod.Priority, pod.Labels)
	}
	b.WriteString("]")
	return b.String()
}

// checkStep is the one place for checks of the queue's own after every
// step, beyond the comparison with the model: the implementation's internal
// consistency check (its indexes, heaps, groups and free list against the
// pods it holds), which sees leaks no snapshot shows. A failure names its
// check, so that the mutant table and the printed scenario name it.
func (p *pair) checkStep() {
	p.r.Helper()
	if err := p.sub.impl().CheckConsistency(); err != nil {
		p.failCheck("consistency", "the implementation's structures disagree with the pods it holds: %v", err)
	}
}
