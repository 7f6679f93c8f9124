package linearizability

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/anishathalye/porcupine"

	"github.com/schedq/schedq/model"
	"github.com/schedq/schedq/spec"
)

// Witness is the sequential witness of a history that is not
// linearizable: the longest prefix the model accepts, in the order it
// accepts it, and an operation that cannot follow it with the output the
// queue gave, and why. Replayed one at a time on the model, Prefix is
// accepted and Next is rejected: the shortest failing prefix the checker
// found, with no concurrency left in it.
type Witness struct {
	Prefix []porcupine.Operation
	Next   porcupine.Operation
	Why    string
}

// Witness extracts the witness from a check that found h not
// linearizable; false if there is none (the history is linearizable, or
// undecided).
func (h *History) Witness(res Result) (Witness, bool) {
	parts := res.Info.PartialLinearizationsOperations()
	if res.Outcome != porcupine.Illegal || len(parts) == 0 || len(parts[0]) == 0 {
		return Witness{}, false
	}
	longest := parts[0][0]
	for _, p := range parts[0] {
		if len(p) > len(longest) {
			longest = p
		}
	}
	m := h.Model().Init().(*State).Model
	opts := ModelOptions{SilentNoOps: h.Workload.SilentNoOps}
	for _, op := range longest {
		apply(m, op.Input.(Input), op.Output.(Output), opts)
	}
	in := make(map[int64]bool, len(longest))
	for _, op := range longest {
		in[op.Call] = true
	}
	// The first operation not in the prefix, among those that could come
	// next, that the model rejects right there.
	first := int64(-1)
	for _, op := range h.Operations {
		if !in[op.Call] && (first < 0 || op.Return < first) {
			first = op.Return
		}
	}
	var allowed *porcupine.Operation
	for i, op := range h.Operations {
		if in[op.Call] || op.Call > first {
			continue
		}
		if why := Explain(m.Clone(), op.Input.(Input), op.Output.(Output)); why != "" {
			return Witness{Prefix: longest, Next: op, Why: why}, true
		}
		if allowed == nil {
			allowed = &h.Operations[i]
		}
	}
	if allowed != nil {
		return Witness{Prefix: longest, Next: *allowed, Why: "allowed here, but every way on from it fails later"}, true
	}
	return Witness{}, false
}

// Scenario renders the witness as a scenario of the repository's scenario
// language (conformance/testdata/scenarios): a config line, the prefix one
// operation per line as the model accepts it, and the rejected operation
// last, with what the queue returned in a comment. Pods are those of the
// workload (namespace "ns", the language's default).
//
// TODO(schedqtest): build it with schedqtest.FormatScenario once that
// package is on main, so that it carries the model's expected output and
// the conformance runner replays it; the lines are already the language's.
func (w Witness) Scenario(name string, cfg spec.Config) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# linearizability: %s\n", name)
	b.WriteString("# The sequential witness: the longest prefix of the history the model accepts, in the order it\n")
	b.WriteString("# accepts it, then an operation that cannot follow, with what the queue returned.\n")
	fmt.Fprintf(&b, "config max-backoff=%v initial-backoff=%v leftover=%v\n----\n\n", cfg.PodMaxBackoffDuration, cfg.PodInitialBackoffDuration, cfg.PodMaxInUnschedulablePodsDuration)
	m, err := model.New(cfg, Start)
	if err != nil {
		panic(err)
	}
	popped := map[spec.PodKey]bool{}
	for _, op := range w.Prefix {
		in, out := op.Input.(Input), op.Output.(Output)
		line := opLine(m, in, popped)
		if c := outcome(in, out); c != "" {
			fmt.Fprintf(&b, "# c%d: %s\n", op.ClientId, c)
		}
		fmt.Fprintf(&b, "%s\n----\n\n", line)
		Apply(m, in, out)
		if in.Kind == Pop && out.Info != nil {
			popped[out.Info.Key()] = true
		}
	}
	in, out := w.Next.Input.(Input), w.Next.Output.(Output)
	fmt.Fprintf(&b, "# c%d: the queue returned %s; the model rejects it here: %s\n", w.Next.ClientId, outcome(in, out),
		strings.ReplaceAll(w.Why, "\n", "\n# "))
	fmt.Fprintf(&b, "%s\n----\n", opLine(m, in, popped))
	return b.String()
}

// outcome is what the queue returned, for a comment.
func outcome(in Input, out Output) string {
	switch {
	case out.Err != nil:
		return "error: " + errName(out.Err)
	case in.Kind == Pop && out.Info != nil:
		return fmt.Sprintf("popped %s cycle=%d attempts=%d", out.Info.Pod.Name, out.Cycle, out.Info.Attempts)
	case in.Kind == SchedulingCycle:
		return fmt.Sprintf("schedulingCycle=%d", out.Cycle)
	case in.Kind == Snapshot && out.Snapshot != nil:
		return "snapshot " + describeSnapshot(*out.Snapshot)
	}
	return ""
}

// opLine is one operation in the language; m is the model before it (for
// what a named PreCheck lets through, and which pods were popped).
func opLine(m *model.Model, in Input, popped map[spec.PodKey]bool) string {
	switch in.Kind {
	case Add:
		return "add " + podArgs(in.Pod)
	case Pop:
		return "pop"
	case AddUnschedulable:
		s := "fail " + in.Info.Pod.Name
		if in.Info.Pod.Namespace != "ns" {
			s += " ns=" + in.Info.Pod.Namespace
		}
		if len(in.Info.UnschedulablePlugins) > 0 {
			s += " plugins=(" + strings.Join(in.Info.UnschedulablePlugins, ",") + ")"
		}
		s += fmt.Sprintf(" cycle=%d", in.Cycle)
		if !popped[in.Info.Key()] {
			s += fmt.Sprintf(" never-popped attempts=%d", in.Info.Attempts)
		}
		return s
	case MoveAll:
		s := "move " + eventName(in.Event)
		if in.PreCheck.Fn != nil {
			snap := m.Snapshot()
			var pass []string
			for _, p := range snap.UnschedulablePods {
				if in.PreCheck.Fn(p.Pod) {
					pass = append(pass, p.Pod.Name)
				}
			}
			s += " precheck=(" + strings.Join(pass, ",") + ")"
		}
		return s
	case FlushBackoffQ:
		return "flush-backoff"
	case FlushLeftover:
		return "flush-leftover"
	case Activate:
		names := make([]string, len(in.Pods))
		for i, p := range in.Pods {
			names[i] = p.Name
		}
		return "activate " + strings.Join(names, " ")
	case Update:
		s := "update " + in.Pod.Name
		if in.Pod.Namespace != "ns" {
			s += " ns=" + in.Pod.Namespace
		}
		switch {
		case in.OldPod.Priority != in.Pod.Priority:
			s += fmt.Sprintf(" prio=%d", in.Pod.Priority)
		case spec.IsPodUpdated(in.OldPod, in.Pod):
			s += " labels=" + labels(in.Pod.Labels)
		default:
			s += " touch"
		}
		return s
	case Delete:
		s := "delete " + in.Pod.Name
		if in.Pod.Namespace != "ns" {
			s += " ns=" + in.Pod.Namespace
		}
		return s
	case AssignedPodAdded:
		return "assigned-add " + in.Pod.Name + " ns=" + in.Pod.Namespace + " labels=" + labels(in.Pod.Labels)
	case AssignedPodUpdated:
		return "assigned-update " + in.Pod.Name + " ns=" + in.Pod.Namespace + " labels=" + labels(in.Pod.Labels) + " event=" + eventName(in.Event)
	case Done:
		return "done uid=" + string(in.UID)
	case Step:
		return "tick " + in.D.String()
	case Snapshot:
		return "# snapshot (the state after every line shows it)"
	case SchedulingCycle:
		return "# schedulingCycle (the state after every line shows it)"
	case Close:
		return "close"
	}
	return "# " + in.Kind.String()
}

func podArgs(p *spec.Pod) string {
	s := fmt.Sprintf("%s prio=%d", p.Name, p.Priority)
	if p.UID != spec.UID("uid-"+p.Name) {
		s += " uid=" + string(p.UID)
	}
	if p.Namespace != "ns" {
		s += " ns=" + p.Namespace
	}
	if len(p.Labels) > 0 {
		s += " labels=" + labels(p.Labels)
	}
	for _, t := range p.RequiredAffinityTerms {
		s += " affinity=" + labels(t.MatchLabels)
	}
	return s
}

func labels(l map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(l)) {
		parts = append(parts, k+"="+l[k])
	}
	return "(" + strings.Join(parts, ",") + ")"
}

// eventName is an event's name in the language: a standard name, or
// Resource/Action.
func eventName(e spec.ClusterEvent) string {
	std := map[spec.ClusterEvent]string{
		{Resource: spec.ResourceNode, ActionType: spec.Add}:             "NodeAdd",
		{Resource: spec.ResourceNode, ActionType: spec.UpdateNodeTaint}: "NodeTaint",
		{Resource: spec.ResourcePersistentVolume, ActionType: spec.Add}: "PVAdd",
		{Resource: spec.ResourceAssignedPod, ActionType: spec.Delete}:   "AssignedPodDelete",
		spec.EventAssignedPodAdd:                                        "AssignedPodAdd",
		spec.EventAssignedPodUpdate:                                     "AssignedPodUpdate",
		spec.WildCardEvent:                                              "WildCard",
	}
	if n, ok := std[e]; ok {
		return n
	}
	return string(e.Resource) + "/" + strings.TrimPrefix(e.EventLabel(), string(e.Resource))
}
