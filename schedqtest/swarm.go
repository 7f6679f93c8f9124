package schedqtest

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"time"

	"github.com/schedq/schedq/spec"
)

// Drawing is what the generator draws from: the operations of a profile
// and their weights, and the tables of their arguments. Drawings[p] is
// profile p's, the one the rapid state machines and the fuzz target use;
// conformance's random runs start from it and narrow it to what every
// target takes (no bad input, Avoid for the declared differences). A
// profile adds an operation by giving its Kind a weight; an empty table
// leaves out what it would draw.
type Drawing struct {
	// Weights are the operations drawn, each with its weight (draws in
	// one step's draw); a kind without one is not drawn.
	Weights map[Kind]int
	// Configs are the configs a run draws from (DrawConfig).
	Configs []ConfigChange
	// PreQueueing: half the runs draw their config with prequeue=on
	// (v1.38's pre-queueing hints, R20-R22; in the podgroups profile G14,
	// only in the runs with groups=v1.38). The
	// standard pre-queueing hints answer what the event's object says
	// (WakesLabel), so which plugins narrow, and to which pods, is the
	// node objects' and assigned pods' labels the swarm keeps: a node
	// without the label answers all pods, as a plugin without a hint.
	PreQueueing bool
	// GroupsV138: half the runs draw their config with groups=v1.38
	// (v1.38's group rules, G12 and G13; podgroups profile only).
	GroupsV138 bool
	// PreQueueingRegisters are the add-register= values such a run draws
	// from ("": none): a second plugin, with no pre-queueing hint, on an
	// event a plugin with one registers, so that one move request both
	// names pods and narrows nothing (R21) and a narrowed plugin is asked
	// only about its own pods while every pod is evaluated (R22). The
	// standard registry has no event two plugins register.
	PreQueueingRegisters []string
	// PreQueueingPreEnqueue are the preenqueue= values such a run draws
	// from ("": the profile's own PreEnqueue plugins). In the podgroups
	// profile only PreEnqueue parks a group, and a narrowed request
	// evaluates a gated group only for an event its gating plugin
	// registered (G14): the standard gates are Gate, whose one event's
	// pre-queueing hint names the pod updated, and Hold, which registers
	// none, so no node naming pods ever reached a parked group. With Fit
	// gating (as the G14 scenarios declare), Fit's NodeAdd and NodeLabel,
	// whose hints name the pods of the node's WakesLabel, do.
	PreQueueingPreEnqueue []string

	// The pods: a small universe of names, so that collisions, re-adds
	// and pods deleted and re-created under the same name are common.
	Names      []string
	Priorities []int32
	// Labels are the labels a pod is added with; GateLabels the ones the
	// PreEnqueue plugins refuse: in the classic profile (gates=on, R17)
	// drawn only when the config has them; in the hints profile the
	// labels an update of a parked pod gates it with (ParkedUpdates); in
	// the podgroups profile the label the first member of a new gated
	// group takes in a pre-queueing run (G14, gateNewGroup).
	Labels, GateLabels []map[string]string
	// Affinities are the pods' required affinity terms (nil: none; the
	// empty selector: every pod of the namespace; R11).
	Affinities []map[string]string
	// Groups are the pod groups pods are members of (two thirds of the
	// pods added) and whose objects come and go; GroupPriorities theirs.
	Groups          []string
	GroupPriorities []int32
	// RetriedGroups: half the time a group's failed cycle is followed by
	// the end of its backoff and the flush (groupBackoffRunsOut), and
	// half the time a group popped again after a failed cycle ends the
	// new one in success, a member failed (G5, retriedGroupSucceeds).
	RetriedGroups bool
	// Recreate: pods are sometimes added and updated under a second UID
	// ("uid-<name>-2"), as a pod deleted and created again.
	Recreate bool
	// BadInput: one draw in eight of an operation is bad input, which
	// must fail the same way on both queues and change nothing.
	BadInput bool

	// Plugins reject a failed pod; Pending are the pending plugins a
	// failure may hand back (R3h).
	Plugins, Pending []string
	// OtherCycles: a fail may hand back another podSchedulingCycle than
	// its Pop's: 3 the stale ones (-1, -3, 0), 5 the current and a later
	// one too.
	OtherCycles int
	// MadeUpInfos: a fail may hand back an info made up from the pod's
	// name ("never-popped", large Attempts included).
	MadeUpInfos bool

	// Events are the move requests' events; Nodes the caller objects
	// they may carry (R19; nil on a queue that takes none).
	Events []spec.ClusterEvent
	Nodes  []*Node
	// ActivateMax is the most pods one Activate names.
	ActivateMax int

	// Updates are the changes an update makes, UpdateLabels the labels
	// it sets; Verdicts the caller's verdicts it may carry (R19).
	Updates      []UpdateChange
	UpdateLabels []map[string]string
	Verdicts     []spec.PodChange
	// ParkedUpdates: half the updates are of an unschedulablePods pod,
	// half of those of a gated one lift its gate (R9h, R17).
	ParkedUpdates bool
	// FollowEvents: half the label changes are followed by one of these
	// events (R4h).
	FollowEvents []spec.ClusterEvent

	// AssignedLabels, AssignedNamespaces and AssignedEvents describe the
	// pods bound elsewhere (R11).
	AssignedLabels     []map[string]string
	AssignedNamespaces []string
	AssignedEvents     []spec.ClusterEvent

	// Steps are the round clock steps; with Boundaries, most ticks land
	// on a boundary instant of internal/boundary instead.
	Steps      []time.Duration
	Boundaries bool

	// NominationNodes are the nodes pods are nominated to ("": to none).
	NominationNodes []string

	// Avoid, if set, says why an operation must not be performed in this
	// state ("" if it may be): bad input, or a declared difference of the
	// targets the run drives. The generator drops what it avoids.
	Avoid func(op Op, m *ModelRun) string
}

// DrawConfig is the config of a run: one of the drawing's configs.
func (d *Drawing) DrawConfig(c Chooser) ConfigChange {
	cc := Pick(c, "config", d.Configs)
	if d.GroupsV138 && c.Choose(2, "groups=v1.38") == 1 {
		cc.GroupsV138 = true
	}
	// Pre-queueing over groups (G14) is v1.38's, with its group rules.
	if d.PreQueueing && (cc.Profile != spec.ProfilePodGroups || cc.GroupsV138) && c.Choose(2, "prequeue") == 1 {
		cc.PreQueueing = true
		if len(d.PreQueueingRegisters) > 0 {
			cc.AddRegister = Pick(c, "prequeue registrations", d.PreQueueingRegisters)
		}
		if len(d.PreQueueingPreEnqueue) > 0 {
			cc.PreEnqueue = Pick(c, "prequeue PreEnqueue plugins", d.PreQueueingPreEnqueue)
		}
	}
	return cc
}

// Clone returns a copy of d whose tables can be changed.
func (d *Drawing) Clone() *Drawing {
	out := *d
	out.Weights = maps.Clone(d.Weights)
	return &out
}

// NoSwarmEnv, set to anything, makes Swarm return the whole drawing: the
// generation of before swarm testing, for comparing catch rates.
const NoSwarmEnv = "SCHEDQ_NO_SWARM"

// mandatory are the operations every swarm keeps: without them nothing
// enters or leaves the queue.
var mandatory = []Kind{KindAdd, KindPop}

// Swarm is swarm testing (Groce, Zhang, Eide, Chen and Regehr, "Swarm
// Testing", ISSTA 2012): each sequence first draws, with c, which of the
// drawing's operations, events, plugins (and so hint answers), labels
// (and so gates), update changes and clock steps it may use, and with
// what weights, and which node objects and assigned pods (whose labels
// are the pre-queueing hints' answers). A sequence that leaves most of a
// table out draws the rest often, so the combinations a uniform draw makes rare (a gated pod and
// another plugin's event; a failure while its event is in flight; a tick
// exactly onto an expiry) come up in some sequences many times. Each
// operation other than add and pop is left out a third of the time and
// tripled a third; each entry of a table is left out half the time (a
// table is never left empty). The draws are c's, so rapid shrinks them
// too, towards choice 0, the whole drawing.
func (d *Drawing) Swarm(c Chooser) *Drawing {
	if os.Getenv(NoSwarmEnv) != "" {
		return d
	}
	s := d.Clone()
	for _, k := range Kinds {
		w := d.Weights[k]
		if w == 0 || slices.Contains(mandatory, k) {
			continue
		}
		switch c.Choose(3, "swarm: "+string(k)) {
		case 1:
			delete(s.Weights, k)
		case 2:
			s.Weights[k] = 3 * w
		}
	}
	s.Events = subset(c, "events", d.Events)
	s.Plugins = subset(c, "plugins", d.Plugins)
	s.Pending = subset(c, "pending", d.Pending)
	s.Labels = subset(c, "labels", d.Labels)
	s.Updates = subset(c, "updates", d.Updates)
	s.UpdateLabels = subset(c, "update labels", d.UpdateLabels)
	s.FollowEvents = subset(c, "follow events", d.FollowEvents)
	s.Steps = subset(c, "steps", d.Steps)
	s.Nodes = subset(c, "nodes", d.Nodes)
	s.AssignedLabels = subset(c, "assigned labels", d.AssignedLabels)
	s.Priorities = subset(c, "priorities", d.Priorities)
	return s
}

// subset keeps each of xs unless c drops it (choice 1), all of them if it
// would drop every one.
func subset[T any](c Chooser, label string, xs []T) []T {
	if len(xs) <= 1 {
		return xs
	}
	var out []T
	for i, x := range xs {
		if c.Choose(2, fmt.Sprintf("swarm: %s %d", label, i)) == 0 {
			out = append(out, x)
		}
	}
	if len(out) == 0 {
		return xs
	}
	return out
}

// The tables of the profiles' drawings.
var (
	genNames     = []string{"a", "b", "c", "d", "e", "f"}
	genPriority  = []int32{0, 10, 1}
	genLabels    = []map[string]string{nil, {"app": "web"}, {"app": "db"}}
	genAffinity  = []map[string]string{nil, {"app": "web"}, {"app": "db"}, {}}
	genGateLabel = []map[string]string{{"gated": "yes"}, {"hold": "yes"}}
	// The hints profile's gates an update puts on a parked pod: Hold's
	// three times as often as Gate's, since only a gate whose plugin
	// registered no event for the update stays when the label goes (R4h).
	genHintsGateLabel = []map[string]string{{"hold": "yes"}, {"gated": "yes"}, {"hold": "yes"}, {"hold": "yes"}}
	// The hints profile's labels: those its hints and PreEnqueue plugins
	// read (fit=label for Fit's NodeLabel hint, zone=a for its NodeAdd
	// hint with zone-hint=on; gated=yes and hold=yes for Gate and Hold).
	genHintsLabels = []map[string]string{nil, {"fit": "label", "zone": "a"}, {"gated": "yes"}, {"hold": "yes"}, {"app": "web"}}
	// The labels an update sets in the hints profile; the empty set drops
	// every label, which ungates a pod.
	genHintsNewLabels = []map[string]string{{}, {"fit": "label"}, {"gated": "yes"}, {"hold": "yes"}}
	// The classic events: registered ones, ones no plugin registered for
	// (no-ops), and the wildcards.
	genEvents = []spec.ClusterEvent{
		NodeAdd,
		PVAdd, // of no interest
		spec.WildCardEvent,
		NodeTaint,
		{Resource: spec.ResourceNode, ActionType: spec.UpdateNodeLabel}, // of no interest
		AssignedPodDelete,
		spec.EventAssignedPodAdd,
		{Resource: spec.ResourceUnschedulablePod, ActionType: spec.UpdatePodLabel},
		{Resource: spec.ResourceStorageClass, ActionType: spec.Add}, // of no interest
		spec.EventUnschedulableTimeout,
		spec.EventForceActivate,
	}
	// The hints events: the standard hint set's, with and without a hint
	// (Flaky's always errs), one of no interest and the wildcards.
	genHintsEvents = []spec.ClusterEvent{
		NodeAdd,   // Fit, no hint (NodeZoneHint with zone-hint=on): Queue
		NodeLabel, // Fit: FitLabelHint
		NodeTaint, // Flaky: an error, which counts as Queue
		{Resource: spec.ResourceUnschedulablePod, ActionType: spec.UpdatePodLabel}, // Gate: GateHint, QueueSkip without the pod
		{Resource: spec.ResourcePod, ActionType: spec.Add},                         // Affinity, no hint
		PVAdd, // of no interest
		spec.WildCardEvent,
		spec.EventUnschedulableTimeout,
		spec.EventForceActivate,
	}
	// The events of genHintsEvents a plugin of the standard hint set
	// registers and answers for a pod with no event object: Queue (no
	// hint), Queue or QueueSkip (FitLabelHint), an error (FlakyHint).
	genHintsRegistered = []spec.ClusterEvent{NodeAdd, NodeLabel, NodeTaint, {Resource: spec.ResourcePod, ActionType: spec.Add}}
	// The node objects of a move (R19): a node in the zone of the pods
	// labelled zone=a (NodeZoneHint: Queue) and one in another zone.
	genNodes = []*Node{
		{Name: "n1", Labels: map[string]string{"zone": "a"}},
		{Name: "n2", Labels: map[string]string{"zone": "b"}},
	}
	// The hints profile's node objects: genNodes and nodes whose
	// WakesLabel names pods (a pod of no queue, z: no pod at all), the
	// answers of the standard pre-queueing hints (R20).
	genHintsNodes = append(slices.Clone(genNodes),
		&Node{Name: "n3", Labels: map[string]string{"zone": "a", WakesLabel: "a_b"}},
		&Node{Name: "n4", Labels: map[string]string{"zone": "b", WakesLabel: "c"}},
		&Node{Name: "n5", Labels: map[string]string{"zone": "a", WakesLabel: "z"}},
	)
	// The hints profile's assigned pods: one names pods for Affinity's
	// pre-queueing hint.
	genHintsAssignedLabels = append(slices.Clone(genLabels), map[string]string{"app": "web", WakesLabel: "a_c"})
	// The caller's verdicts of an update (R19): the classic profile reads
	// Relevant, the hints profile Events (the label event Gate's hint
	// reads, which the derived verdict raises only when labels change).
	genVerdicts      = []spec.PodChange{{Relevant: true}, {Relevant: false}}
	genHintsVerdicts = []spec.PodChange{
		{Relevant: true},
		{Events: []spec.ClusterEvent{{Resource: spec.ResourceTargetPod, ActionType: spec.UpdatePodLabel}}},
		{Relevant: true, Events: []spec.ClusterEvent{{Resource: spec.ResourceTargetPod, ActionType: spec.Update}}},
	}
	genAssignedEvents = []spec.ClusterEvent{
		spec.EventAssignedPodUpdate,
		{Resource: spec.ResourceAssignedPod, ActionType: spec.UpdatePodScaleDown},
		{Resource: spec.ResourceAssignedPod, ActionType: spec.UpdatePodLabel},
		PVAdd, // of no interest
	}
	// The round clock steps; most ticks land on the boundaries instead.
	genSteps = []time.Duration{0, time.Nanosecond, time.Millisecond, 500 * time.Millisecond,
		time.Second, 2 * time.Second, 10 * time.Second, 30 * time.Second, 5 * time.Minute, 5*time.Minute + 30*time.Second}
	// The configs: the defaults; short backoffs; a leftover limit reached
	// in seconds; a backoff of nanoseconds.
	genConfigs = []ConfigChange{
		{},
		{InitialBackoff: time.Millisecond, MaxBackoff: 8 * time.Millisecond},
		{InitialBackoff: time.Second, MaxBackoff: time.Second, Leftover: 2 * time.Second},
		{InitialBackoff: 3 * time.Nanosecond, MaxBackoff: time.Hour},
	}
)

// inProfile is cs with the profile p (and, in the hints profile,
// zone-hint=on: Fit's NodeAdd hint reads the event's node object, R19).
func inProfile(p spec.Profile, cs ...ConfigChange) []ConfigChange {
	out := slices.Clone(cs)
	for i := range out {
		out[i].Profile = p
		out[i].ZoneHint = p == spec.ProfileHints
	}
	return out
}

// Drawings are the profiles' drawings. Weights above one draw some kinds
// more often: time passing (most ticks land on a boundary) and Pop (which
// fails the pod half the time) are what bring pods to the boundaries of
// R5-R7; in the hints profile Update, which gates and ungates pods (R9h,
// R17); in the podgroups profile what makes and ends a group's cycle.
var Drawings = map[spec.Profile]*Drawing{
	spec.ProfileClassic: {
		Weights: map[Kind]int{KindAdd: 1, KindPop: 2, KindFail: 1, KindMove: 1, KindFlushBackoff: 1, KindFlushLeftover: 1,
			KindTick: 4, KindActivate: 1, KindUpdate: 1, KindDelete: 1, KindAssignedAdd: 1, KindAssignedUpdate: 1,
			KindDone: 1, KindClose: 1, KindNominate: 1, KindNominated: 1},
		// With gates=on: the classic profile with the PreEnqueue plugins
		// of ClassicGates (R17).
		Configs: append(slices.Clone(genConfigs), ConfigChange{Gates: true}),
		Names:   genNames, Priorities: genPriority, Labels: genLabels, GateLabels: genGateLabel, Affinities: genAffinity,
		Recreate: true, BadInput: true,
		Plugins: Plugins, OtherCycles: 5, MadeUpInfos: true,
		Events: genEvents, Nodes: genNodes, ActivateMax: 3,
		Updates:      []UpdateChange{UpdateNone, UpdateTouch, UpdatePriority, UpdateLabels, UpdateAffinity, UpdateBoth, UpdateRename},
		UpdateLabels: genLabels[1:], Verdicts: genVerdicts,
		AssignedLabels: genLabels, AssignedNamespaces: []string{Namespace, "other"}, AssignedEvents: genAssignedEvents,
		Steps: genSteps, Boundaries: true,
		NominationNodes: []string{"n1", "n2", ""},
	},
	spec.ProfileHints: {
		Weights: map[Kind]int{KindAdd: 1, KindPop: 2, KindFail: 1, KindMove: 1, KindFlushBackoff: 1, KindFlushLeftover: 1,
			KindTick: 4, KindActivate: 1, KindUpdate: 2, KindDelete: 1, KindAssignedAdd: 1, KindAssignedUpdate: 1,
			KindDone: 1, KindClose: 1, KindNominate: 1, KindNominated: 1},
		// And backoff switched off (max-backoff=0s, R7h).
		Configs:     inProfile(spec.ProfileHints, append(slices.Clone(genConfigs), ConfigChange{NoBackoff: true})...),
		PreQueueing: true,
		// Affinity on NodeAdd (Queue), Flaky on NodeLabel (QueueSkip):
		// each beside Fit, whose pre-queueing hint names pods. Every
		// pre-queueing run has one: a move of Fit's other event, or of
		// Gate's or Affinity's, is still narrowed alone.
		PreQueueingRegisters: []string{"Affinity:NodeAdd", "Flaky:NodeLabel:skip", "Affinity:NodeAdd,Flaky:NodeLabel:skip"},
		Names:                genNames, Priorities: genPriority, Labels: genHintsLabels, GateLabels: genHintsGateLabel, Affinities: genAffinity,
		Recreate: true, BadInput: true,
		Plugins: HintsPlugins, Pending: HintsPlugins, OtherCycles: 5, MadeUpInfos: true,
		Events: genHintsEvents, Nodes: genHintsNodes, ActivateMax: 3,
		// Labels change more often: they gate and ungate pods (R17).
		Updates: []UpdateChange{UpdateNone, UpdateTouch, UpdatePriority, UpdateLabels, UpdateAffinity, UpdateBoth, UpdateRename,
			UpdateLabels, UpdateLabels, UpdateLabels},
		UpdateLabels: genHintsNewLabels, Verdicts: genHintsVerdicts, ParkedUpdates: true, FollowEvents: genHintsRegistered,
		AssignedLabels: genHintsAssignedLabels, AssignedNamespaces: []string{Namespace, "other"}, AssignedEvents: genAssignedEvents,
		Steps: genSteps, Boundaries: true,
		NominationNodes: []string{"n1", "n2", ""},
	},
	// The podgroups profile: the hints profile's pods as members of two
	// groups, the groups' objects, PopEntity, the members' failures and
	// the ends of the groups' cycles.
	spec.ProfilePodGroups: {
		Weights: map[Kind]int{KindAdd: 4, KindPop: 4, KindFail: 3, KindMove: 1, KindFlushBackoff: 1, KindFlushLeftover: 1,
			KindTick: 2, KindActivate: 1, KindUpdate: 1, KindDelete: 1, KindDone: 2,
			KindPodGroupAdd: 2, KindPodGroupUpdate: 1, KindPodGroupDelete: 1, KindAttempted: 3},
		Configs: []ConfigChange{
			{Profile: spec.ProfilePodGroups},
			{Profile: spec.ProfilePodGroups, InitialBackoff: time.Second, MaxBackoff: 2 * time.Second, Leftover: 3 * time.Second},
			{Profile: spec.ProfilePodGroups, NoBackoff: true},
			// A capped backoff: from the second rejection on, a group's
			// cap (2s x sqrt(size)) is above a pod's (G6).
			{Profile: spec.ProfilePodGroups, InitialBackoff: 2 * time.Second, MaxBackoff: 2 * time.Second},
		},
		Names: genNames, Priorities: genPriority, Labels: genHintsLabels, GateLabels: []map[string]string{{"gated": "yes"}},
		GroupsV138: true,
		// With v1.38's group rules, pre-queueing hints in half the runs
		// (G14), named by the nodes' WakesLabel as in the hints profile,
		// with Fit gating the pods labelled gated=yes in Gate's stead, so
		// that its node events evaluate the groups it parks.
		PreQueueing: true, Nodes: genHintsNodes, PreQueueingPreEnqueue: []string{"Fit:gated=yes,Hold:hold=yes"},
		Groups: []string{"g1", "g2"}, GroupPriorities: []int32{0, 5, -1}, RetriedGroups: true,
		BadInput: true,
		Plugins:  HintsPlugins, Pending: HintsPlugins,
		Events: genHintsEvents, ActivateMax: 1,
		Updates: []UpdateChange{UpdateLabels, UpdateLabels, UpdateLabels, UpdateLabels, UpdateLabels, UpdateLabels,
			UpdateGroup, UpdatePriority},
		UpdateLabels: genHintsNewLabels,
		Steps:        []time.Duration{500 * time.Millisecond, time.Second, 3 * time.Second, 5*time.Minute + time.Second},
	},
}
