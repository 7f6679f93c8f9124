package tla_test

// The hints profile's side of the agreement test: GraphHints.cfg in Go
// terms (the constants of MCSchedulingQueueHints.tla, mirrored by name), the
// action alphabet of SchedulingQueueHints.tla's Next as model operations,
// and the canonical encoding of a hints state.

import (
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/schedq/schedq/spec"
	"github.com/schedq/schedq/tla/internal/stategraph"
)

// failure is one element of the spec's Failures: the plugins a failure
// reports as unschedulable and as pending.
type failure struct {
	unschedulable, pending spec.PluginSet
}

// The label that carries a pod's scheduling gate (the spec's
// schedulingGate), which the PreEnqueue plugin refuses.
const gateLabel = "gate"

func hasGate(p *spec.Pod) bool { return p.Labels[gateLabel] == "true" }

// withGate returns a copy of p whose object carries the gate or not.
func withGate(p *spec.Pod, gate bool) *spec.Pod {
	q := *p
	q.Labels = nil
	if gate {
		q.Labels = map[string]string{gateLabel: "true"}
	}
	return &q
}

// The events of the hints spec: E1 and E2 (as in the classic bound), the
// label update of a pod (UpdatePodLabel), and the wildcard "*".
var eventUpdatePodLabel = spec.ClusterEvent{Resource: spec.ResourceTargetPod, ActionType: spec.UpdatePodLabel}

// readHintsBound reads the constants of GraphHints.cfg. The operators it
// substitutes are those of MCSchedulingQueueHints.tla, mirrored here by
// name: HintsRegistration, HintsQueue, HintsFailures, HintsFailuresSmall.
func readHintsBound(t *testing.T, path string) bound {
	t.Helper()
	c := readCfg(t, path)
	window := c.num("Window")
	if window <= 0 || time.Second%time.Duration(window) != 0 {
		t.Fatalf("%s: Window = %d must divide one second", path, window)
	}
	b := bound{
		hints:      true,
		unit:       time.Second / time.Duration(window),
		maxTime:    c.num("MaxTime"),
		maxCycle:   int64(c.num("MaxCycle")),
		maxRecords: c.num("MaxRecords"),
	}
	if c.need("RecordWhileInFlight") != "TRUE" || c.need("TrimFrontOnly") != "TRUE" || c.need("Wildcard") != `"*"` {
		t.Fatalf("%s: the agreement bound needs RecordWhileInFlight = TRUE, TrimFrontOnly = TRUE and Wildcard = \"*\"", path)
	}
	b.extensions = c.extensions(actClose, extAssignedPod, extNominator)
	b.nodes = c.strs("Nodes")
	gate := c.need("Gate")
	if gate != `"G"` {
		t.Fatalf("%s: Gate = %s is not known to the Go side", path, gate)
	}
	gated := c.strs("GatedPods")
	for _, p := range c.podsOf() {
		b.pods = append(b.pods, withGate(p, slices.Contains(gated, p.Name)))
	}
	plugins := c.strs("Plugins")
	if !slices.Equal(plugins, []string{"P1", "P2"}) {
		t.Fatalf("%s: Plugins = %v is not known to the Go side", path, plugins)
	}
	for _, e := range c.strs("Events") {
		ev, ok := clusterEvents[e]
		if !ok {
			t.Fatalf("%s: event %s is not known to the Go side", path, e)
		}
		b.events = append(b.events, ev)
	}
	b.events = append(b.events, spec.WildCardEvent)
	if c.need("Registered") != "HintsRegistration" || c.need("QueueHint") != "HintsQueue" {
		t.Fatalf("%s: Registered <- %s, QueueHint <- %s are not known to the Go side", path, c.need("Registered"), c.need("QueueHint"))
	}
	// HintsRegistration and HintsQueue: P1 registers E1 and the add of an
	// assigned pod (Queue); P2 registers E1 (QueueSkip), E2 and the update
	// of an assigned pod (Queue); G registers UpdatePodLabel (Queue). A
	// registration without a hint answers Queue.
	registry := spec.PluginEvents{
		"P1": {clusterEvents["E1"], spec.EventAssignedPodAdd},
		"P2": {clusterEvents["E1"], clusterEvents["E2"], spec.EventAssignedPodUpdate},
		"G":  {eventUpdatePodLabel},
	}
	skip := func(*spec.Pod, spec.Occurrence) (spec.QueueingHint, error) { return spec.HintSkip, nil }
	hintFns := spec.QueueingHints{{Plugin: "P2", Event: clusterEvents["E1"]}: skip}
	set := spec.NewPluginSet
	switch c.need("Failures") {
	case "HintsFailures":
		b.failures = []failure{{nil, nil}, {set("P1"), nil}, {set("P2"), nil}, {nil, set("P2")}}
	case "HintsFailuresSmall":
		b.failures = []failure{{nil, nil}, {set("P1"), nil}, {nil, set("P2")}}
	default:
		t.Fatalf("%s: Failures <- %s is not known to the Go side", path, c.need("Failures"))
	}
	d := func(name string) time.Duration { return time.Duration(c.num(name)) * b.unit }
	b.cfg = spec.Config{
		Profile:                           spec.ProfileHints,
		PodInitialBackoffDuration:         d("InitialBackoff"),
		PodMaxBackoffDuration:             d("MaxBackoff"),
		PodMaxInUnschedulablePodsDuration: d("MaxInUnschedulable"),
		// Both flushes are actions of the alphabet; the periods only need
		// to be valid.
		BackoffQFlushPeriod:          time.Second,
		UnschedulablePodsFlushPeriod: time.Second,
		PluginEvents:                 registry,
		QueueingHints:                hintFns,
		PreEnqueuePlugins:            spec.PreEnqueuePlugins{"G": func(p *spec.Pod) bool { return !hasGate(p) }},
	}
	// PreQueueing and PreQueueNamed (R20-R22): none, or HintsPreQueue:
	// P2's pre-queueing hint for E1 names "a", for E2 names "b".
	switch c.need("PreQueueing") {
	case "TRUE":
		b.cfg.PreQueueing = true
	case "FALSE":
	default:
		t.Fatalf("%s: PreQueueing = %s", path, c.need("PreQueueing"))
	}
	names := func(keys ...spec.PodKey) spec.PreQueueingHintFn {
		return func(spec.Occurrence) (spec.PreQueueingResult, error) { return spec.PodsNamed(keys...), nil }
	}
	switch c.need("PreQueueNamed") {
	case "{}":
	case "HintsPreQueue":
		b.cfg.PreQueueingHints = spec.PreQueueingHints{
			{Plugin: "P2", Event: clusterEvents["E1"]}: names("ns/a"),
			{Plugin: "P2", Event: clusterEvents["E2"]}: names("ns/b"),
		}
	default:
		t.Fatalf("%s: PreQueueNamed <- %s is not known to the Go side", path, c.need("PreQueueNamed"))
	}
	if err := b.cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	return b
}

// eventObject is the object every move request of the spec's Events
// carries: the spec has no objects, and with PreQueueing every
// non-wildcard request asks the pre-queueing hints, which a request
// without objects would not (R20).
type eventObject struct{}

func (eventObject) String() string { return "object" }

// numRecords counts the event records of the in-flight list.
func numRecords(s *spec.Snapshot) int {
	n := 0
	for _, e := range s.InFlightEvents {
		if !e.IsMarker() {
			n++
		}
	}
	return n
}

// The optional operations of SchedulingQueueHints.tla (its Extensions
// besides Close) and their actions.
const (
	extAssignedPod        = "AssignedPod"
	extNominator          = "Nominator"
	actAssignedPodAdded   = "AssignedPodAdded"
	actAssignedPodUpdated = "AssignedPodUpdated"
	actAddNominatedPod    = "AddNominatedPod"
)

// assignedPod is the bound pod of the assigned-pod events (R11h): not one
// of the bound's pods, which the queue holds; the hints of the bound do
// not read it.
var assignedPod = &spec.Pod{Namespace: "ns", Name: "bound", UID: "uid-bound", ResourceVersion: "1"}

// hintsOps lists every operation of SchedulingQueueHints.tla's Next in
// state n. The cycle Pop returns is kept beside the model and handed back,
// though the hints profile does not read it.
func hintsOps(b *bound, n node, s *spec.Snapshot) []op {
	out := addAndPopOps(b, n)
	for i := range s.InFlight {
		info := s.InFlight[i]
		k := info.Key()
		idx := b.podIndex(k)
		cycle := n.cycles[idx]
		for _, f := range b.failures {
			out = append(out, op{actFail, fmt.Sprintf("AddUnschedulableIfNotPresent(%s, unschedulable %v, pending %v)", k, []string(f.unschedulable), []string(f.pending)),
				spec.StepRecord{Rule: spec.R3AddUnschedulable, Pod: k, PodSchedulingCycle: cycle},
				failStep(info, cycle, idx, func(pi *spec.QueuedPodInfo) {
					pi.UnschedulablePlugins = slices.Clone(f.unschedulable)
					pi.PendingPlugins = slices.Clone(f.pending)
				})})
		}
		out = append(out, op{actDone, "Done(" + string(k) + ")", spec.StepRecord{Rule: spec.R12Done, Pod: k},
			doneStep(info.Pod.UID, idx)})
	}
	for i, p := range b.pods {
		out = append(out, op{actDelete, "Delete(" + p.Name + ")", spec.StepRecord{Rule: spec.R10Delete, Pod: p.Key()},
			func(n node) error {
				err := n.m.Delete(p)
				if err == nil {
					n.cycles[i] = 0
				}
				return err
			}})
		out = append(out, op{actActivate, "Activate(" + p.Name + ")", spec.StepRecord{Rule: spec.R8Activate, Pod: p.Key()},
			func(n node) error { return n.m.Activate([]*spec.Pod{p}) }})
		if b.has(extNominator) {
			// Preemption nominates the object the queue holds, or the
			// bound's object if it holds none (R18); "" drops the
			// nomination.
			obj := p
			if _, held := s.Find(p.Key()); held.Pod != nil {
				obj = held.Pod
			}
			for _, nodeName := range append(slices.Clone(b.nodes), "") {
				out = append(out, op{actAddNominatedPod, fmt.Sprintf("AddNominatedPod(%s, %q)", p.Name, nodeName), spec.StepRecord{Rule: spec.R18Nominator},
					func(n node) error { return n.m.AddNominatedPod(obj, spec.NominateOverride, nodeName) }})
			}
		}
		// Update of a pod the queue holds: its gate label flips. (Update of
		// a pod not held is Add, and not in the spec's alphabet.)
		if loc, held := s.Find(p.Key()); loc != spec.Nowhere {
			old := held.Pod
			upd := withGate(old, !hasGate(old))
			out = append(out, op{actUpdate, fmt.Sprintf("Update(%s, gate %v -> %v)", p.Name, hasGate(old), hasGate(upd)),
				spec.StepRecord{Rule: spec.R9Update, Pod: p.Key()},
				func(n node) error { return n.m.Update(old, upd) }})
		}
	}
	for _, e := range b.events {
		occ := spec.Occurrence{Event: e}
		if b.cfg.PreQueueing && !e.IsWildCard() {
			occ.NewObject = eventObject{}
		}
		out = append(out, op{actMoveAll, "MoveAllToActiveOrBackoffQueue(" + e.EventLabel() + ")",
			spec.StepRecord{Rule: spec.R4MoveAll, Move: &spec.MoveRecord{Occurrence: occ}},
			func(n node) error { return n.m.MoveAllToActiveOrBackoffQueueWithObjects(occ, nil) }})
	}
	out = append(out,
		op{actFlushBackoff, actFlushBackoff, spec.StepRecord{Rule: spec.R5FlushBackoffQ},
			func(n node) error { n.m.FlushBackoffQCompleted(); return nil }},
		op{actFlushUnsched, actFlushUnsched, spec.StepRecord{Rule: spec.R6FlushUnschedulable},
			func(n node) error { n.m.FlushUnschedulablePodsLeftover(); return nil }})
	if b.has(extAssignedPod) {
		updated := *assignedPod
		updated.ResourceVersion = "2"
		out = append(out,
			op{actAssignedPodAdded, actAssignedPodAdded, spec.StepRecord{Rule: spec.R11AssignedPod},
				func(n node) error { return n.m.AssignedPodAdded(assignedPod) }},
			op{actAssignedPodUpdated, actAssignedPodUpdated, spec.StepRecord{Rule: spec.R11AssignedPod},
				func(n node) error { return n.m.AssignedPodUpdated(assignedPod, &updated, spec.EventAssignedPodUpdate) }})
	}
	out = append(out, closeOp(b)...)
	return append(out, tickOp(b, n)...)
}

// eventName is an event's name in SchedulingQueueHints.tla: its label, the
// wildcard of MoveAllToActiveOrBackoffQueue being "*".
func eventName(e spec.ClusterEvent) string {
	if e == spec.WildCardEvent {
		return "*"
	}
	return e.EventLabel()
}

// encodeHints appends the canonical encoding of a hints-profile snapshot.
// An event record is its event's name, and for a wildcard aimed at one pod
// (ForceActivate) ">" and that pod: the hints of the bound are constant, so
// the objects an event carries matter only there.
func encodeHints(buf []byte, b *bound, n node, s *spec.Snapshot) ([]byte, error) {
	var err error
	ticks := tickGrid(b.unit, &err)
	pods := make([]stategraph.NamedPod, len(b.pods))
	names := make(map[spec.PodKey]string, len(b.pods))
	for i, p := range b.pods {
		pods[i] = stategraph.NamedPod{Key: p.Name, Pod: stategraph.Pod{Loc: stategraph.None}}
		names[p.Key()] = p.Name
	}
	for _, pl := range s.Places() {
		for j := range pl.Pods {
			info := &pl.Pods[j]
			i := b.podIndex(info.Key())
			if i < 0 {
				return nil, fmt.Errorf("pod %s is not one of the bound", info.Key())
			}
			pods[i].Pod = stategraph.Pod{
				Loc:                    pl.Loc.String(),
				Attempts:               info.Attempts,
				Timestamp:              ticks("Timestamp", info.Timestamp),
				InitialAttempt:         ticks("InitialAttemptTimestamp", info.InitialAttemptTimestamp),
				Plugins:                []string(info.UnschedulablePlugins),
				Pending:                []string(info.PendingPlugins),
				UnschedulableCount:     info.UnschedulableCount,
				ConsecutiveErrorsCount: info.ConsecutiveErrorsCount,
				GatingPlugin:           info.GatingPlugin,
				FlushTimestamp:         ticks("FlushTimestamp", info.FlushTimestamp),
				SchedulingGate:         hasGate(info.Pod),
			}
			if !slices.IsSorted(info.UnschedulablePlugins) || !slices.IsSorted(info.PendingPlugins) {
				return nil, fmt.Errorf("pod %s: plugin sets are not sorted", info.Key())
			}
			if !maps.Equal(info.Pod.Labels, withGate(info.Pod, hasGate(info.Pod)).Labels) {
				return nil, fmt.Errorf("pod %s has labels %v beyond the gate", info.Key(), info.Pod.Labels)
			}
		}
	}
	events := make([]string, 0, len(s.InFlightEvents))
	for _, e := range s.InFlightEvents {
		if e.IsMarker() {
			name, ok := names[e.Key]
			if !ok {
				return nil, fmt.Errorf("marker of %s, which is not one of the bound", e.Key)
			}
			events = append(events, "pod:"+name)
			continue
		}
		enc := eventName(e.Event.Event)
		if e.Event.Event.IsWildCard() && e.Event.New != nil {
			name, ok := names[e.Event.New.Key()]
			if !ok {
				return nil, fmt.Errorf("event %s aimed at %s, which is not one of the bound", e, e.Event.New.Key())
			}
			enc += ">" + name
		}
		events = append(events, enc)
	}
	now := ticks("now", s.Now)
	if err != nil {
		return nil, err
	}
	if s.MoveRequestCycle != -1 {
		return nil, fmt.Errorf("moveRequestCycle is %d in the hints profile, want -1", s.MoveRequestCycle)
	}
	var nominated []stategraph.NodePods
	for _, nodeName := range b.nodes {
		var keys []string
		for _, p := range n.m.NominatedPodsForNode(nodeName) {
			name, ok := names[p.Key()]
			if !ok {
				return nil, fmt.Errorf("pod %s nominated to %s is not one of the bound", p.Key(), nodeName)
			}
			keys = append(keys, name)
		}
		if len(keys) > 0 {
			nominated = append(nominated, stategraph.NodePods{Node: nodeName, Pods: keys})
		}
	}
	return stategraph.AppendHintsEncoding(buf, now, int(s.SchedulingCycle), s.Closed, pods, events, nominated), nil
}
