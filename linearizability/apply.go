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
	return apply(m, in, out, ModelOptions{})
}

func apply(m *model.Model, in Input, out Output, opts ModelOptions) bool {
	if opts.SilentNoOps && out.Err == nil {
		// Where the model errs it changes nothing; a target that is
		// silent there must have changed nothing either, which the rest
		// of the history checks.
		if err, ok := modelErr(m.Clone(), in); ok && err != nil {
			return true
		}
	}
	switch in.Kind {
	case Add:
		return schedqtest.SameError(m.Add(in.Pod), out.Err)
	case Pop:
		if out.Err != nil {
			// A Pop fails only by finding the queue closed (R13). The
			// model's own Pop cannot wait, so a Pop that waited and then
			// saw Close linearizes at a point where the model is closed.
			return errors.Is(out.Err, spec.ErrClosed) && m.Closed()
		}
		if out.Info == nil || out.Info.Pod == nil {
			return false
		}
		// PopPod refuses a pod that is not among PopCandidates, which
		// includes every pod when activeQ is empty, and any pod once
		// closed.
		got, cycle, err := m.PopPod(out.Info.Key())
		return err == nil && cycle == out.Cycle && schedqtest.InfoEqual(got, out.Info)
	case AddUnschedulable:
		return schedqtest.SameError(m.AddUnschedulableIfNotPresent(in.Info, in.Cycle), out.Err)
	case MoveAll:
		m.MoveAllToActiveOrBackoffQueue(in.Event, in.PreCheck.Fn)
		return out.Err == nil
	case FlushBackoffQ:
		m.FlushBackoffQCompleted()
		return out.Err == nil
	case FlushLeftover:
		m.FlushUnschedulablePodsLeftover()
		return out.Err == nil
	case Activate:
		return schedqtest.SameError(m.Activate(in.Pods), out.Err)
	case Update:
		return schedqtest.SameError(m.Update(in.OldPod, in.Pod), out.Err)
	case Delete:
		return schedqtest.SameError(m.Delete(in.Pod), out.Err)
	case AssignedPodAdded:
		return schedqtest.SameError(m.AssignedPodAdded(in.Pod), out.Err)
	case AssignedPodUpdated:
		return schedqtest.SameError(m.AssignedPodUpdated(in.OldPod, in.Pod, in.Event), out.Err)
	case Done:
		return schedqtest.SameError(m.Done(in.UID), out.Err)
	case Step:
		return m.Step(in.D) == nil && out.Err == nil
	case Snapshot:
		if out.Snapshot == nil {
			return false
		}
		s := m.Snapshot()
		return s.Diff(out.Snapshot) == ""
	case SchedulingCycle:
		return m.SchedulingCycle() == out.Cycle
	case Close:
		m.Close()
		return out.Err == nil
	}
	return false
}

// modelErr runs an operation that returns an error on m and returns it;
// false for the operations that return none.
func modelErr(m *model.Model, in Input) (error, bool) {
	switch in.Kind {
	case Add:
		return m.Add(in.Pod), true
	case AddUnschedulable:
		return m.AddUnschedulableIfNotPresent(in.Info, in.Cycle), true
	case Activate:
		return m.Activate(in.Pods), true
	case Update:
		return m.Update(in.OldPod, in.Pod), true
	case Delete:
		return m.Delete(in.Pod), true
	case AssignedPodAdded:
		return m.AssignedPodAdded(in.Pod), true
	case AssignedPodUpdated:
		return m.AssignedPodUpdated(in.OldPod, in.Pod, in.Event), true
	case Done:
		return m.Done(in.UID), true
	}
	return nil, false
}

// Explain says why the model rejects out for in on m (which it changes),
// or returns "" if it accepts it.
func Explain(m *model.Model, in Input, out Output) string {
	before := m.Clone()
	if Apply(m, in, out) {
		return ""
	}
	switch in.Kind {
	case Pop:
		switch {
		case out.Err != nil && !before.Closed():
			return fmt.Sprintf("Pop returned %v but the queue is not closed", errName(out.Err))
		case out.Err != nil:
			return fmt.Sprintf("Pop returned %v", out.Err)
		case before.Closed():
			return "the queue is closed: Pop must return ErrClosed"
		case len(before.PopCandidates()) == 0:
			return "activeQ is empty"
		}
		c := before.PopCandidates()
		if !slices.Contains(c, out.Info.Key()) {
			return fmt.Sprintf("Pop may return only %v", c)
		}
		s := before.Snapshot()
		_, info := s.Find(out.Info.Key())
		info.Attempts++
		info.UnschedulablePlugins = nil
		d := describer{start: Start}
		return fmt.Sprintf("the model pops %s at cycle %d, the queue said %s at cycle %d",
			d.info(&info, spec.InFlight, nil), before.SchedulingCycle()+1, d.info(out.Info, spec.InFlight, nil), out.Cycle)
	case Snapshot:
		s := before.Snapshot()
		if out.Snapshot == nil {
			return "no snapshot"
		}
		return "the snapshot differs from the model's (model vs queue):\n        " + strings.ReplaceAll(strings.TrimSpace(s.Diff(out.Snapshot)), "\n", "\n        ")
	case SchedulingCycle:
		return fmt.Sprintf("schedulingCycle is %d, the queue said %d", before.SchedulingCycle(), out.Cycle)
	}
	var want error
	switch c := before.Clone(); in.Kind {
	case Add:
		want = c.Add(in.Pod)
	case AddUnschedulable:
		want = c.AddUnschedulableIfNotPresent(in.Info, in.Cycle)
	case Activate:
		want = c.Activate(in.Pods)
	case Update:
		want = c.Update(in.OldPod, in.Pod)
	case Delete:
		want = c.Delete(in.Pod)
	case AssignedPodAdded:
		want = c.AssignedPodAdded(in.Pod)
	case AssignedPodUpdated:
		want = c.AssignedPodUpdated(in.OldPod, in.Pod, in.Event)
	case Done:
		want = c.Done(in.UID)
	}
	return fmt.Sprintf("the model returns %s, the queue returned %s", errName(want), errName(out.Err))
}
