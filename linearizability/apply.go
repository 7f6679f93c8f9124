package linearizability

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/schedq/schedq/model"
	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// Apply replays one operation on m (which it changes) and reports whether
// out is an output the model allows for it. It is Model's Step without the
// clone.
func Apply(m *model.Model, in Input, out Output) bool {
	return apply(m, m, in, out, ModelOptions{})
}

// apply is Apply with options, through q: m itself, or m with its pods
// interned (porcupine.go).
func apply(m *model.Model, q spec.Queue, in Input, out Output, opts ModelOptions) bool {
	switch in.Op.Kind {
	case schedqtest.KindPop:
		if out.Err != nil {
			// A Pop fails only by finding the queue closed (R13). The
			// model's own Pop cannot wait, so a Pop that waited and then
			// saw Close linearizes at a point where the model is closed.
			return errors.Is(out.Err, spec.ErrClosed) && m.Closed()
		}
		if m.Config().Profile == spec.ProfilePodGroups {
			return popEntity(m, out)
		}
		if out.Info == nil || out.Info.Pod == nil {
			return false
		}
		// PopPod refuses a pod that is not among PopCandidates, which
		// includes every pod when activeQ is empty, and any pod once
		// closed.
		got, cycle, err := m.PopPod(out.Info.Key())
		return err == nil && cycle == out.Cycle && schedqtest.InfoEqual(got, out.Info)
	case KindSnapshot:
		s := m.Snapshot()
		return out.Snapshot != nil && s.Diff(out.Snapshot) == ""
	case schedqtest.KindNominated:
		// R18: the pods nominated to the node, in nomination order, each
		// as the queue holds it.
		o, err := in.exec(q, m.Step, m.Config().Profile)
		return err == nil && schedqtest.SameError(o.Err(), out.Err) && slices.EqualFunc(o.NominatedPods, out.Nominated, spec.PodsEqual)
	}
	if opts.SilentNoOps && out.Err == nil {
		// Where the model errs it changes nothing; a target that is
		// silent there must have changed nothing either, which the rest
		// of the history checks.
		if o, err := in.exec(m.Clone(), nil, m.Config().Profile); err == nil && o.Err() != nil {
			return true
		}
	}
	o, err := in.exec(q, m.Step, m.Config().Profile)
	return err == nil && schedqtest.SameError(o.Err(), out.Err)
}

// Explain says why the model rejects out for in on m (which it changes),
// or returns "" if it accepts it.
func Explain(m *model.Model, in Input, out Output) string {
	before := m.Clone()
	if Apply(m, in, out) {
		return ""
	}
	switch in.Op.Kind {
	case schedqtest.KindPop:
		switch {
		case out.Err != nil && !before.Closed():
			return fmt.Sprintf("Pop returned %v but the queue is not closed", errName(out.Err))
		case out.Err != nil:
			return fmt.Sprintf("Pop returned %v", out.Err)
		case before.Closed():
			return "the queue is closed: Pop must return ErrClosed"
		case before.Config().Profile == spec.ProfilePodGroups:
			return explainPopEntity(before, out)
		case len(before.PopCandidates()) == 0:
			return "activeQ is empty"
		}
		c := before.PopCandidates()
		if !slices.Contains(c, out.Info.Key()) {
			return fmt.Sprintf("Pop may return only %v", c)
		}
		want, cycle, _ := before.PopPod(out.Info.Key())
		d := describer{start: Start}
		return fmt.Sprintf("the model pops %s at cycle %d, the queue said %s at cycle %d",
			d.info(want, spec.InFlight, nil), cycle, d.info(out.Info, spec.InFlight, nil), out.Cycle)
	case KindSnapshot:
		s := before.Snapshot()
		if out.Snapshot == nil {
			return "no snapshot"
		}
		return "the snapshot differs from the model's (model vs queue):\n        " + strings.ReplaceAll(strings.TrimSpace(s.Diff(out.Snapshot)), "\n", "\n        ")
	}
	o, err := in.exec(before, before.Step, before.Config().Profile)
	if err != nil {
		return fmt.Sprintf("the model cannot run it: %v", err)
	}
	if in.Op.Kind == schedqtest.KindNominated && schedqtest.SameError(o.Err(), out.Err) {
		return fmt.Sprintf("%s: the model lists %s, the queue listed %s", spec.R18Nominator, schedqtest.PodList(o.NominatedPods), schedqtest.PodList(out.Nominated))
	}
	return fmt.Sprintf("the model returns %s, the queue returned %s", errName(o.Err()), errName(out.Err))
}

// entityKey is the entity a PopEntity returned: a pod alone (Info) or a
// group (Group); false if it returned neither or both.
func entityKey(out Output) (spec.EntityKey, bool) {
	switch {
	case out.Group != nil && out.Group.PodGroup != nil && out.Info == nil:
		return spec.GroupEntityKey(out.Group.Key()), true
	case out.Info != nil && out.Info.Pod != nil && out.Group == nil:
		return spec.PodEntityKey(out.Info.Key()), true
	}
	return "", false
}

// popEntity is apply's PopEntity (G3): the entity returned must be one of
// EntityCandidates, and equal the model's in every field, each member's
// included.
func popEntity(m *model.Model, out Output) bool {
	k, ok := entityKey(out)
	if !ok {
		return false
	}
	got, cycle, err := m.PopEntityKey(k)
	return err == nil && cycle == out.Cycle && schedqtest.EntityEqual(&got, &spec.QueuedEntity{Pod: out.Info, Group: out.Group})
}

// explainPopEntity is Explain's PopEntity.
func explainPopEntity(before *model.Model, out Output) string {
	c := before.EntityCandidates()
	k, ok := entityKey(out)
	switch {
	case !ok:
		return "PopEntity returned neither a pod nor a group"
	case len(c) == 0:
		return "no entity may be popped (activeQ is empty, no pod's backoff is over)"
	case !slices.Contains(c, k):
		return fmt.Sprintf("PopEntity may return only %v", c)
	}
	want, cycle, _ := before.PopEntityKey(k)
	got := spec.QueuedEntity{Pod: out.Info, Group: out.Group}
	return fmt.Sprintf("the model pops %s at cycle %d, the queue said %s at cycle %d",
		describeEntity(&want), cycle, describeEntity(&got), out.Cycle)
}

// describeEntity is a popped entity with the fields that order it and
// its members'.
func describeEntity(e *spec.QueuedEntity) string {
	d := describer{start: Start}
	if e.Group == nil {
		if e.Pod == nil {
			return "<nil>"
		}
		return d.info(e.Pod, spec.InFlight, nil)
	}
	g := e.Group
	var b strings.Builder
	fmt.Fprintf(&b, "group %s(prio %d, attempts %d, ts %s, counts %d/%d) members", g.PodGroup.Name, g.PodGroup.Priority,
		g.Attempts, d.at(g.Timestamp), g.UnschedulableCount, g.ConsecutiveErrorsCount)
	for i := range g.Members {
		b.WriteString(" " + d.info(&g.Members[i], spec.InFlight, nil))
	}
	return b.String()
}
