package linearizability

import (
	"fmt"
	"maps"
	"strings"

	"github.com/anishathalye/porcupine"

	"github.com/schedq/schedq/schedqtest"
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
		apply(m, m, op.Input.(Input), op.Output.(Output), opts)
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

// Scenario renders the witness as a scenario file of the repository's
// scenario language (schedqtest.FormatScenario): the config, the prefix
// one operation per line in the order the model accepts it, each with the
// model's expected output, and last the operation the model rejects. The
// queue's output for that last operation, and why the model rejects it,
// are in the file's comment; the file's own expectation there is the
// model's. Pops of the prefix pin the pod the queue returned (pop
// choose=X), so the file replays the same way.
func (w Witness) Scenario(name string, cfg spec.Config) string {
	sc := w.ScenarioOps(name, cfg)
	text, err := schedqtest.FormatScenario(sc)
	if err != nil {
		return fmt.Sprintf("# %s: the witness does not replay on the model: %v\n%s", name, err, schedqtest.FormatOps(sc.Ops))
	}
	return text
}

// ScenarioOps is the witness as a schedqtest.Scenario (without the
// model's output): what Scenario formats.
func (w Witness) ScenarioOps(name string, cfg spec.Config) schedqtest.Scenario {
	sc := schedqtest.Scenario{Name: name, Comment: []string{
		"linearizability: " + name,
		"The sequential witness of a concurrent history that is not linearizable: the longest prefix the",
		"model accepts, in the order it accepts it, then an operation that cannot follow.",
		fmt.Sprintf("The last operation (client %d) returned %s in the queue; the model rejects that: %s",
			w.Next.ClientId, outcome(w.Next.Output.(Output)), strings.ReplaceAll(w.Why, "\n", " ")),
	}}
	// The config the history ran with (configChange: the profile decides
	// what "pop" is and what the state prints; the registry, hints and
	// PreEnqueue plugins what a move does), its durations as the
	// history's config has them.
	sc.Config = configChange(cfg.Profile, len(cfg.PreEnqueuePlugins) > 0)
	def := sc.Config.Build()
	if cfg.PodInitialBackoffDuration != def.PodInitialBackoffDuration {
		sc.Config.InitialBackoff = cfg.PodInitialBackoffDuration
	}
	if cfg.PodMaxBackoffDuration != def.PodMaxBackoffDuration {
		sc.Config.MaxBackoff = cfg.PodMaxBackoffDuration
	}
	if cfg.PodMaxInUnschedulablePodsDuration != def.PodMaxInUnschedulablePodsDuration {
		sc.Config.Leftover = cfg.PodMaxInUnschedulablePodsDuration
	}
	for _, op := range w.Prefix {
		if o, ok := scenarioOp(op.Input.(Input), op.Output.(Output), true); ok {
			sc.Ops = append(sc.Ops, o)
		}
	}
	if o, ok := scenarioOp(w.Next.Input.(Input), w.Next.Output.(Output), false); ok {
		sc.Ops = append(sc.Ops, o)
	}
	return sc
}

// outcome is what the queue returned, for a comment.
func outcome(out Output) string {
	switch {
	case out.Err != nil:
		return "error: " + errName(out.Err)
	case out.Info != nil || out.Group != nil:
		return schedqtest.EntityText(&spec.QueuedEntity{Pod: out.Info, Group: out.Group}, out.Cycle)
	case out.Snapshot != nil:
		return "snapshot " + describeSnapshot(*out.Snapshot)
	}
	return "ok"
}

// podRef is the reference that builds p, but for its Status and
// ResourceVersion, which the language sets only by "update ... touch".
func podRef(p *spec.Pod) schedqtest.PodRef {
	r := schedqtest.PodRef{Name: p.Name}
	if p.Namespace != schedqtest.Namespace {
		ns := p.Namespace
		r.Namespace = &ns
	}
	if p.UID != schedqtest.UIDOf(p.Name) {
		uid := string(p.UID)
		r.UID = &uid
	}
	prio := p.Priority
	r.Priority = &prio
	if len(p.Labels) > 0 {
		r.Labels = maps.Clone(p.Labels)
	}
	if len(p.RequiredAffinityTerms) > 0 {
		r.Affinity = maps.Clone(p.RequiredAffinityTerms[0].MatchLabels)
	}
	if p.Group != "" {
		g := p.Group
		r.Group = &g
	}
	return r
}

// scenarioOp is the operation's line in a scenario. pin makes a Pop
// return the pod the queue returned. An update names the whole new
// version: the scenario may not have added the pod, and the language
// builds an unknown pod's old version from its name alone. A Snapshot
// has no line: the state printed after every line shows it.
func scenarioOp(in Input, out Output, pin bool) (schedqtest.Op, bool) {
	o := in.Op
	switch o.Kind {
	case KindSnapshot:
		return o, false
	case schedqtest.KindPop:
		switch {
		case !pin || out.Err != nil:
		case out.Group != nil:
			o.Choose = "group:" + out.Group.PodGroup.Name
		case out.Info != nil:
			o.Choose = out.Info.Pod.Name
		}
	case schedqtest.KindUpdate:
		_, nw := in.executor(nil, nil).UpdatePods(o)
		o.Pod = podRef(nw)
	}
	return o, true
}
