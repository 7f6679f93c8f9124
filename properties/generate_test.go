package properties

import (
	"fmt"
	"slices"
	"time"

	"pgregory.net/rapid"

	"github.com/schedq/schedq/internal/boundary"
	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// The generator: random operations of the scenario language
// (schedqtest.Op), drawn kind by kind from schedqtest.Kinds, with
// arguments chosen from the state the model is in, bad input included.
// One generator per kind; the rapid state machine offers each as an
// action, the fuzz target indexes them by a byte, so every operation a
// random run performs is one line of a scenario file.
//
// Choices come from a chooser, so that the same generators serve rapid
// (which shrinks every choice towards 0: choice 0 is always the plainest
// option) and the fuzzer (choices decoded from bytes).

// chooser makes the generator's choices: choose returns a value in [0, n).
type chooser interface {
	choose(n int, label string) int
}

// rapidChooser draws choices with rapid, which logs them and shrinks them.
type rapidChooser struct{ t *rapid.T }

func (c rapidChooser) choose(n int, label string) int {
	if n <= 1 {
		return 0
	}
	return rapid.IntRange(0, n-1).Draw(c.t, label)
}

// byteChooser decodes choices from fuzz input, one byte each; once the
// input is used up every choice is 0.
type byteChooser struct {
	data []byte
	pos  int
}

func (c *byteChooser) choose(n int, _ string) int {
	if c.pos >= len(c.data) {
		return 0
	}
	b := c.data[c.pos]
	c.pos++
	if n <= 1 {
		return 0
	}
	return int(b) % n
}

func (c *byteChooser) exhausted() bool { return c.pos >= len(c.data) }

func pick[T any](c chooser, label string, xs []T) T { return xs[c.choose(len(xs), label)] }

// The pod universe: six names, so that collisions, re-adds and pods
// deleted and re-created under the same name are common. A pod's UID is
// "uid-<name>" or, for a re-created pod, uid-<name>-2.
var (
	names      = []string{"a", "b", "c", "d", "e", "f"}
	priorities = []int32{0, 10, 1}
	labelSets  = []map[string]string{nil, {"app": "web"}, {"app": "db"}}
	// affinitySets: none; app=web or app=db in the pod's own namespace;
	// the empty selector (every pod of the namespace).
	affinitySets = []map[string]string{nil, {"app": "web"}, {"app": "db"}, {}}
	// assignedNamespaces: the pods' own and another one, where an assigned
	// pod must not wake them (R11 is per namespace).
	assignedNamespaces = []string{schedqtest.Namespace, "other"}
)

// The hints profile draws from the standard hint set
// (schedqtest.HintsConfig) instead: labels its hints and PreEnqueue
// plugins read (fit=label for Fit's NodeLabel hint; gated=yes and
// hold=yes for the PreEnqueue plugins Gate and Hold), its plugins as
// rejectors and as pending plugins, and the events its plugins register,
// with and without a hint (Flaky's always errs), besides ones of no
// interest and the wildcards.
var (
	hintsLabelSets = []map[string]string{nil, {"fit": "label", "zone": "a"}, {"gated": "yes"}, {"hold": "yes"}, {"app": "web"}}
	// hintsNewLabels are the labels an update sets; the empty set drops
	// every label, which ungates a pod.
	hintsNewLabels = []map[string]string{{}, {"fit": "label"}, {"gated": "yes"}, {"hold": "yes"}}
	hintsEvents    = []spec.ClusterEvent{
		schedqtest.NodeAdd,   // Fit, no hint: Queue
		schedqtest.NodeLabel, // Fit: FitLabelHint
		schedqtest.NodeTaint, // Flaky: an error, which counts as Queue
		{Resource: spec.ResourceUnschedulablePod, ActionType: spec.UpdatePodLabel}, // Gate: GateHint, QueueSkip without the pod
		{Resource: spec.ResourcePod, ActionType: spec.Add},                         // Affinity, no hint
		schedqtest.PVAdd, // of no interest
		spec.WildCardEvent,
		spec.EventUnschedulableTimeout,
		spec.EventForceActivate,
	}
	// hintsRegistered are the events of hintsEvents that a plugin of the
	// standard hint set registers and answers for a pod with no event
	// object: Queue (no hint), Queue or QueueSkip (FitLabelHint), an error
	// (FlakyHint).
	hintsRegistered = []spec.ClusterEvent{schedqtest.NodeAdd, schedqtest.NodeLabel, schedqtest.NodeTaint,
		{Resource: spec.ResourcePod, ActionType: spec.Add}}
)

// events for move: registered ones, ones no plugin registered for
// (no-ops), and the wildcards.
var events = []spec.ClusterEvent{
	schedqtest.NodeAdd,
	schedqtest.PVAdd, // of no interest
	spec.WildCardEvent,
	schedqtest.NodeTaint,
	{Resource: spec.ResourceNode, ActionType: spec.UpdateNodeLabel}, // of no interest
	schedqtest.AssignedPodDelete,
	spec.EventAssignedPodAdd,
	{Resource: spec.ResourceUnschedulablePod, ActionType: spec.UpdatePodLabel},
	{Resource: spec.ResourceStorageClass, ActionType: spec.Add}, // of no interest
	spec.EventUnschedulableTimeout,
	spec.EventForceActivate,
}

// assignedUpdateEvents for assigned-update.
var assignedUpdateEvents = []spec.ClusterEvent{
	spec.EventAssignedPodUpdate,
	{Resource: spec.ResourceAssignedPod, ActionType: spec.UpdatePodScaleDown},
	{Resource: spec.ResourceAssignedPod, ActionType: spec.UpdatePodLabel},
	schedqtest.PVAdd, // of no interest
}

// attemptOverrides replace the Attempts of a failed pod ("fail a
// never-popped attempts=N"): the scheduler owns the QueuedPodInfo, and
// large counts are where a backoff computed by shifting would overflow.
var attemptOverrides = []int{0, 2, 7, 33, 34, 35, 40, 62, 63, 64, 65, 100, 1 << 30}

// configs the runs draw from: the defaults first; then short backoffs; a
// leftover limit reached in seconds; a backoff of nanoseconds.
var configs = []schedqtest.ConfigChange{
	{},
	{InitialBackoff: time.Millisecond, MaxBackoff: 8 * time.Millisecond},
	{InitialBackoff: time.Second, MaxBackoff: time.Second, Leftover: 2 * time.Second},
	{InitialBackoff: 3 * time.Nanosecond, MaxBackoff: time.Hour},
}

func drawConfig(c chooser) schedqtest.ConfigChange { return pick(c, "config", classicConfigs) }

// classicConfigs are configs and gates=on: the classic profile with the
// PreEnqueue plugins of schedqtest.ClassicGates (R17), whose pods are
// drawn with the labels those plugins refuse (gatedLabelSets).
var classicConfigs = append(slices.Clone(configs), schedqtest.ConfigChange{Gates: true})

// gatedLabelSets are labelSets and the labels SchedulingGates and Hold
// refuse; an update to labelSets[1:] lifts either gate, and one to the
// others gates a pod in backoffQ when it leaves (R5, R17).
var gatedLabelSets = append(slices.Clone(labelSets), map[string]string{"gated": "yes"}, map[string]string{"hold": "yes"})

// hintsConfigs are configs and, only valid in the hints profile, backoff
// switched off (max-backoff=0s, R7h).
var hintsConfigs = append(slices.Clone(configs), schedqtest.ConfigChange{NoBackoff: true})

// drawHintsConfig is drawConfig in the queueing-hints profile, always
// with zone-hint=on: Fit's NodeAdd hint reads the event's node object
// (R19). A NodeAdd without one makes it err, which is Queue, as NodeAdd
// without a hint was: only moves that carry a node change anything.
func drawHintsConfig(c chooser) schedqtest.ConfigChange {
	cc := pick(c, "config", hintsConfigs)
	cc.Profile = spec.ProfileHints
	cc.ZoneHint = true
	return cc
}

// nodeObjects are the caller objects of NodeAdd in the hints profile (R19): a
// node in the zone of the pods labelled zone=a (NodeZoneHint: Queue) and
// one in another zone (QueueSkip).
var nodeObjects = []*schedqtest.Node{
	{Name: "n1", Labels: map[string]string{"zone": "a"}},
	{Name: "n2", Labels: map[string]string{"zone": "b"}},
}

// callerChanges are the verdicts an update may carry (R19,
// spec.PodChange): relevant with no event, and the label event Gate's
// hint reads, which the derived verdict raises only when labels change.
var callerChanges = []spec.PodChange{
	{Relevant: true},
	{Events: []spec.ClusterEvent{{Resource: spec.ResourceTargetPod, ActionType: spec.UpdatePodLabel}}},
	{Relevant: true, Events: []spec.ClusterEvent{{Resource: spec.ResourceTargetPod, ActionType: spec.Update}}},
}

// tickDurations are the round clock steps; the others land on the
// boundaries of internal/boundary.
var tickDurations = []time.Duration{0, time.Nanosecond, time.Millisecond, 500 * time.Millisecond,
	time.Second, 2 * time.Second, 10 * time.Second, 30 * time.Second, 5 * time.Minute, 5*time.Minute + 30*time.Second}

// generator performs one random operation of its kind (and, for pop and
// tick, sometimes the operation that naturally follows). It returns false,
// before making any choice, if the kind does not apply to the state.
type generator func(p *pair, c chooser) bool

// generators has one generator for each kind of schedqtest.Kinds; the
// init check keeps it complete when the language grows.
var generators = map[schedqtest.Kind]generator{
	schedqtest.KindAdd:            (*pair).genAdd,
	schedqtest.KindPop:            (*pair).genPop,
	schedqtest.KindFail:           (*pair).genFail,
	schedqtest.KindMove:           (*pair).genMove,
	schedqtest.KindFlushBackoff:   func(p *pair, _ chooser) bool { p.do(schedqtest.Op{Kind: schedqtest.KindFlushBackoff}); return true },
	schedqtest.KindFlushLeftover:  func(p *pair, _ chooser) bool { p.do(schedqtest.Op{Kind: schedqtest.KindFlushLeftover}); return true },
	schedqtest.KindTick:           (*pair).genTick,
	schedqtest.KindActivate:       (*pair).genActivate,
	schedqtest.KindUpdate:         (*pair).genUpdate,
	schedqtest.KindDelete:         (*pair).genDelete,
	schedqtest.KindAssignedAdd:    (*pair).genAssignedAdd,
	schedqtest.KindAssignedUpdate: (*pair).genAssignedUpdate,
	schedqtest.KindDone:           (*pair).genDone,
	schedqtest.KindClose:          (*pair).genClose,
	// The nominator (R18), in both profiles: every step compares what
	// NominatedPodsForNode returns for each node of nodes (pair_test.go).
	schedqtest.KindNominate:  (*pair).genNominate,
	schedqtest.KindNominated: (*pair).genNominated,
}

// weights draw some kinds more often than once in len(Kinds): time
// passing (most ticks land on a boundary, see genTick) and Pop (which
// fails the pod half the time) are what bring pods to the boundaries of
// R5-R7. Measured at 100 checks over 20 seeds: with one draw each, the
// mutant requeue-at-expiry-skips-backoffQ survived 2 runs in 10; with tick
// 3, pop 2, 1 in 20; with tick 4, none (see doc.go).
var weights = map[schedqtest.Kind]int{schedqtest.KindTick: 4, schedqtest.KindPop: 2}

// hintsWeights are weights in the hints profile, where Update also gates
// and ungates pods (R9h, R17). Measured on the mutant
// hints-gated-pod-moved-by-unrelated-event, checks until caught over 10
// runs: with Update drawn once, median 880, mean 2050, worst 6335; drawn
// twice, median 650, mean 680, worst 1702.
var hintsWeights = map[schedqtest.Kind]int{schedqtest.KindTick: 4, schedqtest.KindPop: 2, schedqtest.KindUpdate: 2}

// drawn and hintsDrawn are schedqtest.Kinds with each kind repeated by its
// weight in the profile: what the fuzz target indexes and the rapid state
// machine offers.
var drawn, hintsDrawn []schedqtest.Kind

func init() {
	own := 0 // the podgroups profile's own kinds: podgroups_test.go draws them
	for _, k := range schedqtest.Kinds {
		if k.PodGroupsOnly() {
			own++
			continue
		}
		if generators[k] == nil {
			panic(fmt.Sprintf("properties: no generator for the operation %q of schedqtest.Kinds", k))
		}
		for range max(weights[k], 1) {
			drawn = append(drawn, k)
		}
		for range max(hintsWeights[k], 1) {
			hintsDrawn = append(hintsDrawn, k)
		}
	}
	if len(generators) != len(schedqtest.Kinds)-own {
		panic("properties: a generator for an operation that is not in schedqtest.Kinds")
	}
}

// weights returns the weights and the drawn list of the pair's profile.
func (p *pair) weights() (map[schedqtest.Kind]int, []schedqtest.Kind) {
	if p.hints() {
		return hintsWeights, hintsDrawn
	}
	return weights, drawn
}

// genKind draws an operation kind for the fuzz target, by its index in
// the profile's drawn list, and runs its generator.
func (p *pair) genKind(c chooser) bool {
	_, d := p.weights()
	return generators[d[c.choose(len(d), "operation")]](p, c)
}

// rapidActions offers each kind's generator to t.Repeat, named as in the
// language ("tick", "tick#2", ... for a weighted kind).
func (p *pair) rapidActions() map[string]func(*rapid.T) {
	w, d := p.weights()
	m := make(map[string]func(*rapid.T), len(d))
	for _, k := range schedqtest.Kinds {
		g := generators[k]
		if g == nil { // the podgroups profile's own kinds (podgroups_test.go)
			continue
		}
		for i := range max(w[k], 1) {
			name := string(k)
			if i > 0 {
				name = fmt.Sprintf("%s#%d", k, i+1)
			}
			m[name] = func(t *rapid.T) {
				if !g(p, rapidChooser{t}) {
					t.Skip("does not apply")
				}
			}
		}
	}
	return m
}

func ptr[T any](v T) *T { return &v }

// drawPodRef describes a pod with this name: UID of the first or second
// generation, a priority, labels (of labelSets) and affinity.
func drawPodRef(c chooser, name string, labelSets []map[string]string) schedqtest.PodRef {
	r := schedqtest.PodRef{Name: name}
	if c.choose(3, "re-created") == 2 {
		r.UID = ptr(string(schedqtest.UIDOf(name)) + "-2")
	}
	if prio := pick(c, "priority", priorities); prio != 0 {
		r.Priority = &prio
	}
	r.Labels = pick(c, "labels", labelSets)
	r.Affinity = pick(c, "affinity", affinitySets)
	return r
}

// drawPod is a pod of the universe as drawPodRef describes it (classic
// labels).
func drawPod(c chooser) *spec.Pod { return drawPodRef(c, pick(c, "pod", names), labelSets).Build() }

// hints reports whether the pair runs the queueing-hints profile.
func (p *pair) hints() bool { return p.cfg.Profile == spec.ProfileHints }

// labelSets are the labels a pod of this run is added with.
func (p *pair) labelSets() []map[string]string {
	if p.hints() {
		return hintsLabelSets
	}
	if len(p.cfg.PreEnqueuePlugins) > 0 {
		return gatedLabelSets
	}
	return labelSets
}

// heldUIDs are the UIDs of the pods the model holds under other names
// than name: a UID names one pod, so handing one in under another name is
// bad input.
func (p *pair) heldUIDs(name string) []string {
	var out []string
	s := p.model.Model.Snapshot()
	for _, pl := range s.Places() {
		for _, o := range pl.Pods {
			if o.Key() != schedqtest.Key(name) {
				out = append(out, string(o.Pod.UID))
			}
		}
	}
	slices.Sort(out)
	return out
}

// badInput is the share of draws (1 in badInput) that make an operation
// with bad input: each must fail the same way on both queues and change
// nothing (I4 checks the latter).
const badInput = 8

func (p *pair) genAdd(c chooser) bool {
	name := pick(c, "pod", names)
	op := schedqtest.Op{Kind: schedqtest.KindAdd}
	if c.choose(badInput, "bad input") > 0 {
		op.Pod = drawPodRef(c, name, p.labelSets())
		p.do(op)
		return true
	}
	others := p.heldUIDs(name)
	switch c.choose(5, "bad add") {
	case 0:
		op.Pod = schedqtest.PodRef{Nil: true}
	case 1: // no name
		op.Pod = schedqtest.PodRef{UID: ptr("uid-x")}
	case 2: // no UID
		op.Pod = schedqtest.PodRef{Name: name, UID: ptr("")}
	case 3: // a name with a slash
		op.Pod = schedqtest.PodRef{Name: name + "/x"}
	case 4: // the UID of another held pod
		op.Pod = schedqtest.PodRef{Name: name}
		if len(others) > 0 {
			op.Pod.UID = ptr(pick(c, "twin uid", others))
		}
	}
	p.do(op)
	return true
}

func (p *pair) canPop() bool {
	return p.model.Model.Closed() || len(p.model.Model.PopCandidates()) > 0
}

// genPop pops (never on an empty activeQ: the model cannot wait) and, half
// the time, fails the popped pod at once: one scheduling attempt that
// fails, the common path to R3.
func (p *pair) genPop(c chooser) bool {
	if !p.canPop() {
		return false
	}
	name, ok := p.pop()
	if ok && c.choose(2, "fail at once") == 1 {
		p.fail(c, name, false)
	}
	return true
}

// genFail hands back a pod in flight, or a stale record of one that is
// queued again (ErrAlreadyQueued) or gone (re-added as upstream does).
func (p *pair) genFail(c chooser) bool {
	var popped []string
	for _, n := range names {
		if _, ok := p.model.Exec.Popped(schedqtest.Key(n)); ok {
			popped = append(popped, n)
		}
	}
	if len(popped) == 0 {
		return false
	}
	p.fail(c, pick(c, "hand back", popped), true)
	return true
}

// fail hands back what Pop returned for name, with a random set of
// rejecting plugins (none gets a third of the draws: R3 then always goes to
// backoffQ) and, in the hints profile, of pending plugins (R3h, R16: a
// pending plugin's Queue sends the pod to activeQ at once); with its own
// cycle or, if vary, a stale or later one; and sometimes with another
// Attempts (never-popped: a made-up info).
func (p *pair) fail(c chooser, name string, vary bool) {
	op := schedqtest.Op{Kind: schedqtest.KindFail, Pod: schedqtest.PodRef{Name: name}}
	plugins := schedqtest.Plugins
	if p.hints() {
		plugins = schedqtest.HintsPlugins
	}
	if c.choose(3, "rejected by plugins") > 0 {
		op.Plugins = drawPlugins(c, "rejecting plugins", plugins)
	}
	if p.hints() && c.choose(3, "pending plugins") == 2 {
		op.Pending = drawPlugins(c, "pending plugins", plugins)
	}
	rec, _ := p.model.Exec.Popped(schedqtest.Key(name))
	if vary {
		cycle := rec.Cycle
		switch c.choose(6, "cycle") {
		case 1:
			cycle--
		case 2:
			cycle -= 3
		case 3:
			cycle = 0
		case 4:
			cycle = p.model.Model.SchedulingCycle()
		case 5:
			cycle = p.model.Model.SchedulingCycle() + 1
		}
		if cycle != rec.Cycle {
			op.Cycle = &cycle
		}
	}
	switch c.choose(badInput, "override attempts") {
	case 1, 2:
		op.NeverPopped, op.Attempts, op.Cycle = true, pick(c, "attempts", attemptOverrides), ptr(rec.Cycle)
	case 3:
		op.NeverPopped, op.Attempts = true, -1 // bad input
	}
	p.do(op)
}

// drawPlugins is a non-empty subset of plugins.
func drawPlugins(c chooser, label string, plugins []string) []string {
	var out []string
	mask := 1 + c.choose(1<<len(plugins)-1, label)
	for i, pl := range plugins {
		if mask&(1<<i) != 0 {
			out = append(out, pl)
		}
	}
	return out
}

func (p *pair) genMove(c chooser) bool {
	evs := events
	if p.hints() {
		evs = hintsEvents
	}
	op := schedqtest.Op{Kind: schedqtest.KindMove, Event: pick(c, "event", evs), PreCheck: drawPreCheck(c)}
	// The classic profile too: objects change no classic answer (R19).
	if op.Event == schedqtest.NodeAdd && c.choose(3, "node object") > 0 {
		op.NewObject = pick(c, "node", nodeObjects)
	}
	p.do(op)
	return true
}

// drawPreCheck is the names a move's preCheck lets through: nil (no
// preCheck) half the time, else a subset of names.
func drawPreCheck(c chooser) []string {
	if c.choose(2, "preCheck") == 0 {
		return nil
	}
	pass := []string{}
	for _, n := range names {
		if c.choose(2, "passes preCheck "+n) == 1 {
			pass = append(pass, n)
		}
	}
	return pass
}

// genTick advances both clocks: by a round amount, or (seven times in
// eight, when there is one) onto a boundary instant of internal/boundary
// (a backoff expiry or a leftover limit), exactly or one nanosecond either
// side, exactly being the likeliest and the choice rapid shrinks to. Then
// mostly what makes that instant's boundary show, as it happens in a
// scheduler when time passes: the leftover flush at a leftover limit, the
// backoffQ flush at a backoffQ pod's expiry, a cluster event (a wildcard
// move, which requeues to backoffQ a pod still backing off) at an
// unschedulable pod's expiry.
func (p *pair) genTick(c chooser) bool {
	s := p.model.Model.Snapshot()
	instants := slices.DeleteFunc(boundary.Instants(s, p.cfg), func(t time.Time) bool { return t.Before(s.Now) })
	var d time.Duration
	follow := []schedqtest.Op{{Kind: schedqtest.KindFlushLeftover}, {Kind: schedqtest.KindFlushBackoff}}
	if c.choose(8, "round tick") == 7 || len(instants) == 0 {
		d = pick(c, "duration", tickDurations)
	} else {
		at := pick(c, "boundary", instants)
		d = max(at.Sub(s.Now)+[]time.Duration{0, 0, -1, 1}[c.choose(4, "exactly, or 1ns before or after")], 0)
		follow = p.atInstant(s, at)
	}
	p.do(schedqtest.Op{Kind: schedqtest.KindTick, Duration: d})
	switch c.choose(5, "at that instant") {
	case 0, 1, 2:
		for _, op := range follow {
			p.do(op)
		}
	case 3:
		p.do(schedqtest.Op{Kind: schedqtest.KindMove, Event: spec.WildCardEvent})
	}
	return true
}

// atInstant are the operations that make the boundaries at instant at
// show for the pods of s.
func (p *pair) atInstant(s spec.Snapshot, at time.Time) []schedqtest.Op {
	var leftover, expiry, backoff bool
	for i := range s.UnschedulablePods {
		u := &s.UnschedulablePods[i]
		leftover = leftover || u.Timestamp.Add(p.cfg.PodMaxInUnschedulablePodsDuration).Equal(at)
		expiry = expiry || p.cfg.BackoffExpiry(u).Equal(at)
	}
	for i := range s.BackoffQ {
		backoff = backoff || p.cfg.BackoffExpiry(&s.BackoffQ[i]).Equal(at)
	}
	var ops []schedqtest.Op
	if leftover {
		ops = append(ops, schedqtest.Op{Kind: schedqtest.KindFlushLeftover})
	}
	if expiry {
		ops = append(ops, schedqtest.Op{Kind: schedqtest.KindMove, Event: spec.WildCardEvent})
	}
	if backoff {
		ops = append(ops, schedqtest.Op{Kind: schedqtest.KindFlushBackoff})
	}
	return ops
}

// genActivate activates pods by name. In the classic profile with gates
// (gates=on), half the time it activates a pod of backoffQ instead,
// half of those first updated to a label a PreEnqueue plugin refuses,
// and follows it half the time with a move request: Activate's
// PreEnqueue then leaves the pod gated while it still backs off, the one
// state in which a move request that examined a pod SchedulingGates gates
// would requeue it (to backoffQ, unexamined) instead of leaving it (R17).
// Once its backoff is over such a requeue runs PreEnqueue, which refuses
// it again, so nothing would show; the sequence rarely comes by chance.
func (p *pair) genActivate(c chooser) bool {
	op := schedqtest.Op{Kind: schedqtest.KindActivate}
	for range c.choose(4, "activate count") {
		op.Pods = append(op.Pods, schedqtest.PodRef{Name: pick(c, "pod", names)})
	}
	var steered bool
	if !p.hints() && len(p.cfg.PreEnqueuePlugins) > 0 && c.choose(2, "a backing-off pod") == 1 {
		if b := p.model.Model.Snapshot().BackoffQ; len(b) > 0 {
			name := pick(c, "backoffQ pod", b).Pod.Name
			op.Pods, steered = []schedqtest.PodRef{{Name: name}}, true
			if c.choose(2, "gate it first") == 1 {
				gate := pick(c, "gate", gatedLabelSets[len(labelSets):])
				p.do(schedqtest.Op{Kind: schedqtest.KindUpdate, Pod: schedqtest.PodRef{Name: name, Labels: gate}})
			}
		}
	}
	if c.choose(badInput, "bad input") == 0 {
		op.Pods = append(op.Pods, schedqtest.PodRef{Nil: true})
	}
	p.do(op)
	if steered && c.choose(2, "then an event") == 1 {
		p.do(schedqtest.Op{Kind: schedqtest.KindMove, Event: pick(c, "event", events)})
	}
	return true
}

// genUpdate passes the pod's last version (or, uid=, another object with
// the same name) and a copy with one change, or none. In the hints profile
// labels change more often (they gate and ungate pods, R17), half the
// updates are of a pod in unschedulablePods (R9h), half of those of a
// gated pod drop its labels (as a scheduling gate is lifted), and a label
// change is, half the time, followed by an event some plugin registered:
// whether a move request re-examines a pod an update left gated but
// admissible (R4h) takes such a sequence, which rarely comes by chance.
func (p *pair) genUpdate(c chooser) bool {
	op := schedqtest.Op{Kind: schedqtest.KindUpdate, Pod: schedqtest.PodRef{Name: pick(c, "pod", names)}}
	var gated bool
	if p.hints() {
		if parked := p.model.Model.Snapshot().UnschedulablePods; len(parked) > 0 && c.choose(2, "a parked pod") == 1 {
			u := pick(c, "parked pod", parked)
			op.Pod.Name, gated = u.Pod.Name, u.Gated()
		}
	}
	// Sometimes the pod was re-created under another UID (R9: in flight,
	// the old object's attempt ends).
	if c.choose(4, "new UID") == 3 {
		op.Pod.UID = ptr(string(schedqtest.UIDOf(op.Pod.Name)) + "-2")
	}
	changes := 7
	if p.hints() {
		changes = 10 // 7 to 9 change the labels too
	}
	change := c.choose(changes, "change")
	if gated && c.choose(2, "lift the gate") == 1 {
		change, op.Pod.Labels = -1, map[string]string{}
	}
	switch change {
	case 1:
		op.Touch = true // ResourceVersion and Status only: irrelevant
	case 2:
		op.Pod.Priority = ptr(pick(c, "new priority", priorities))
	case 3, 7, 8, 9:
		if p.hints() {
			op.Pod.Labels = pick(c, "new labels", hintsNewLabels)
		} else {
			op.Pod.Labels = pick(c, "new labels", p.labelSets()[1:])
		}
	case 4:
		op.Pod.Affinity = pick(c, "new affinity", affinitySets[1:])
	case 5:
		op.Pod.Labels, op.Pod.Priority = map[string]string{"v": "2"}, ptr(pick(c, "new priority", priorities))
	case 6:
		if c.choose(badInput/2, "bad input") == 0 {
			op.Rename = pick(c, "new name", names) + "-renamed" // the key changes
		}
	}
	if p.hints() && op.Rename == "" && c.choose(3, "caller verdict") == 2 {
		ch := pick(c, "verdict", callerChanges)
		op.Change = &ch
	}
	p.do(op)
	if p.hints() && op.Pod.Labels != nil && c.choose(2, "then an event") == 1 {
		p.do(schedqtest.Op{Kind: schedqtest.KindMove, Event: pick(c, "event", hintsRegistered)})
	}
	return true
}

func (p *pair) genDelete(c chooser) bool {
	op := schedqtest.Op{Kind: schedqtest.KindDelete, Pod: schedqtest.PodRef{Name: pick(c, "pod", names)}}
	if c.choose(badInput, "bad input") == 0 {
		switch c.choose(3, "bad delete") {
		case 0:
			op.Pod = schedqtest.PodRef{Nil: true}
		case 1:
			op.Pod.UID = ptr("")
		case 2:
			op.Pod.UID = ptr("uid-ghost")
		}
	}
	p.do(op)
	return true
}

// genDone ends a pod's time in flight, or names a queued pod's UID, an
// unknown UID or none (ErrNotInFlight).
func (p *pair) genDone(c chooser) bool {
	s := p.model.Model.Snapshot()
	var uids []string
	for _, f := range s.InFlight {
		uids = append(uids, string(f.Pod.UID))
	}
	op := schedqtest.Op{Kind: schedqtest.KindDone, UID: "uid-ghost"}
	switch i := c.choose(len(uids)+3, "done"); {
	case i < len(uids):
		op.UID = uids[i]
	case i == len(uids):
		if queued := slices.Concat(s.ActiveQ, s.BackoffQ, s.UnschedulablePods); len(queued) > 0 {
			op.UID = string(pick(c, "queued pod", queued).Pod.UID)
		}
	case i == len(uids)+1:
		op.UID = ""
	}
	p.do(op)
	return true
}

// drawAssigned describes a pod bound elsewhere: its namespace and labels
// match some parked pods' affinity or not.
func drawAssigned(c chooser) schedqtest.PodRef {
	r := schedqtest.PodRef{Name: "web-0", Labels: pick(c, "assigned labels", labelSets)}
	if ns := pick(c, "assigned namespace", assignedNamespaces); ns != schedqtest.Namespace {
		r.Namespace = &ns
	}
	return r
}

func (p *pair) genAssignedAdd(c chooser) bool {
	op := schedqtest.Op{Kind: schedqtest.KindAssignedAdd, Pod: drawAssigned(c)}
	if c.choose(badInput, "bad input") == 0 {
		op.Pod = schedqtest.PodRef{Nil: true}
	}
	p.do(op)
	return true
}

func (p *pair) genAssignedUpdate(c chooser) bool {
	op := schedqtest.Op{Kind: schedqtest.KindAssignedUpdate, Pod: drawAssigned(c),
		Event: pick(c, "assigned event", assignedUpdateEvents)}
	if c.choose(2, "old labels") == 1 {
		op.OldLabels = map[string]string{}
	}
	if c.choose(badInput, "bad input") == 0 {
		op.Pod, op.OldLabels = schedqtest.PodRef{Nil: true}, nil
	}
	p.do(op)
	return true
}

// genClose closes the queue, rarely: every later Pop must return
// ErrClosed on both.
func (p *pair) genClose(c chooser) bool {
	if c.choose(badInput, "close") != 0 {
		return true
	}
	p.do(schedqtest.Op{Kind: schedqtest.KindClose})
	return true
}

// nodes are the nodes pods are nominated to; "" (an Override to no node)
// drops a nomination. Every step compares the nominations of each.
var nodes = []string{"n1", "n2", ""}

// genNominate nominates a pod of the universe (queued, in flight or not
// held at all: the nominator does not care, R18) to a node, to no node,
// or to its own NominatedNodeName (mode=noop, which scenario pods leave
// empty: the nomination is dropped); or, as bad input, a pod with no name.
func (p *pair) genNominate(c chooser) bool {
	op := schedqtest.Op{Kind: schedqtest.KindNominate, Pod: schedqtest.PodRef{Name: pick(c, "pod", names)}}
	switch c.choose(4, "mode") {
	case 0, 1, 2:
		op.Node = pick(c, "node", nodes)
	case 3:
		op.Noop = true
	}
	if c.choose(badInput, "bad input") == 0 {
		op.Pod.Name = ""
	}
	p.do(op)
	return true
}

// genNominated asks which pods are nominated to a node, one that was
// never nominated to included; do compares the two answers.
func (p *pair) genNominated(c chooser) bool {
	p.do(schedqtest.Op{Kind: schedqtest.KindNominated, Node: pick(c, "node", []string{"n1", "n2", "n3"})})
	return true
}
