package schedqtest

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"pgregory.net/rapid"

	"github.com/schedq/schedq/internal/boundary"
	"github.com/schedq/schedq/spec"
)

// The generator: random sequences of operations of the scenario language,
// each drawn from the state the shadow model is in, one generator per
// Kind. It is the one random source of the suites: the rapid state
// machines of package properties, the fuzz target, conformance's random
// runs (every target) draw through it; what differs between them is data,
// a Drawing (swarm.go): the operations a profile draws and their weights,
// the pods, plugins, events and clock steps, whether bad input is drawn,
// and the operations a run must stay away from (Drawing.Avoid: declared
// differences of a target).
//
// Choices come from a Chooser, so that the same generator serves rapid
// (which shrinks every choice towards 0: choice 0 is the plainest option)
// and the fuzzer (choices decoded from bytes).

// Chooser makes the generator's choices: Choose returns a value in [0, n).
type Chooser interface {
	Choose(n int, label string) int
}

// RapidChooser draws choices with rapid, which logs them and shrinks them.
type RapidChooser struct{ T *rapid.T }

// Choose draws a value in [0, n) with rapid.
func (c RapidChooser) Choose(n int, label string) int {
	if n <= 1 {
		return 0
	}
	return rapid.IntRange(0, n-1).Draw(c.T, label)
}

// ByteChooser decodes choices from fuzz input, one byte each; once the
// input is used up every choice is 0.
type ByteChooser struct {
	Data []byte
	pos  int
}

// Choose decodes the next byte into [0, n).
func (c *ByteChooser) Choose(n int, _ string) int {
	if c.pos >= len(c.Data) {
		return 0
	}
	b := c.Data[c.pos]
	c.pos++
	if n <= 1 {
		return 0
	}
	return int(b) % n
}

// Exhausted reports whether every byte was read.
func (c *ByteChooser) Exhausted() bool { return c.pos >= len(c.Data) }

// Pick is one of xs, chosen by c.
func Pick[T any](c Chooser, label string, xs []T) T { return xs[c.Choose(len(xs), label)] }

// Runner is what the generator drives: a queue under test stepped beside a
// shadow model (a Stepper, as the suites wrap it).
type Runner interface {
	// Do performs op on both and fails the run, with the operations so
	// far as a scenario, if they disagree; it returns the step.
	Do(op Op) Step
	// Shadow is the model that follows the queue under test.
	Shadow() *ModelRun
}

// Generator draws the operations of one sequence for a Runner.
type Generator struct {
	r   Runner
	d   *Drawing
	cfg spec.Config
}

// NewGenerator returns a generator of d's operations for r. d is usually
// the sequence's swarm (Drawing.Swarm).
func NewGenerator(r Runner, d *Drawing) *Generator {
	return &Generator{r: r, d: d, cfg: r.Shadow().cfg}
}

// kindGen performs one random operation of its kind (and, for some, the
// operation that naturally follows). It returns false if the kind does not
// apply to the state or the drawing avoids what it drew: nothing was done.
type kindGen func(g *Generator, c Chooser) bool

// kindGens has one generator for each kind of Kinds; the init check keeps
// it complete when the language grows. A new operation is a Kind, a line
// here and a weight in the drawings of the profiles that draw it.
var kindGens = map[Kind]kindGen{
	KindAdd:            (*Generator).genAdd,
	KindPop:            (*Generator).genPop,
	KindFail:           (*Generator).genFail,
	KindMove:           (*Generator).genMove,
	KindFlushBackoff:   func(g *Generator, _ Chooser) bool { return g.do(Op{Kind: KindFlushBackoff}) },
	KindFlushLeftover:  func(g *Generator, _ Chooser) bool { return g.do(Op{Kind: KindFlushLeftover}) },
	KindTick:           (*Generator).genTick,
	KindActivate:       (*Generator).genActivate,
	KindUpdate:         (*Generator).genUpdate,
	KindDelete:         (*Generator).genDelete,
	KindAssignedAdd:    (*Generator).genAssignedAdd,
	KindAssignedUpdate: (*Generator).genAssignedUpdate,
	KindDone:           (*Generator).genDone,
	KindClose:          (*Generator).genClose,
	KindNominate:       (*Generator).genNominate,
	KindNominated:      (*Generator).genNominated,
	KindPodGroupAdd:    genPodGroup(KindPodGroupAdd),
	KindPodGroupUpdate: genPodGroup(KindPodGroupUpdate),
	KindPodGroupDelete: genPodGroup(KindPodGroupDelete),
	KindAttempted:      (*Generator).genAttempted,
}

func init() {
	for _, k := range Kinds {
		if kindGens[k] == nil {
			panic(fmt.Sprintf("schedqtest: no generator for the operation %q of Kinds", k))
		}
	}
	if len(kindGens) != len(Kinds) {
		panic("schedqtest: a generator for an operation that is not in Kinds")
	}
}

// drawn is the drawing's kinds, each repeated by its weight, in Kinds'
// order.
func (d *Drawing) drawn() []Kind {
	var out []Kind
	for _, k := range Kinds {
		for range d.Weights[k] {
			out = append(out, k)
		}
	}
	return out
}

// Step draws an operation kind by its weight and runs its generator: the
// fuzz target's loop. It returns whether an operation was performed.
func (g *Generator) Step(c Chooser) bool {
	d := g.d.drawn()
	if len(d) == 0 {
		return false
	}
	return kindGens[d[c.Choose(len(d), "operation")]](g, c)
}

// Actions offers each kind's generator to rapid's T.Repeat, named as in
// the language ("tick", "tick#2", ... for a weighted kind); a kind that
// does not apply skips the action.
func (g *Generator) Actions() map[string]func(*rapid.T) {
	m := make(map[string]func(*rapid.T))
	for _, k := range Kinds {
		gen := kindGens[k]
		for i := range g.d.Weights[k] {
			name := string(k)
			if i > 0 {
				name = fmt.Sprintf("%s#%d", k, i+1)
			}
			m[name] = func(t *rapid.T) {
				if !gen(g, RapidChooser{t}) {
					t.Skip("does not apply")
				}
			}
		}
	}
	return m
}

// do performs op unless the drawing avoids it; it returns whether it did.
func (g *Generator) do(op Op) bool {
	_, ok := g.step(op)
	return ok
}

func (g *Generator) step(op Op) (Step, bool) {
	if g.d.Avoid != nil && g.d.Avoid(op, g.r.Shadow()) != "" {
		return Step{}, false
	}
	return g.r.Do(op), true
}

func (g *Generator) model() *ModelRun { return g.r.Shadow() }

func (g *Generator) where(name string) spec.Location { return g.model().Model.Where(Key(name)) }

// find is where the model holds the pod name, and its entry there.
func (g *Generator) find(name string) (spec.Location, spec.QueuedPodInfo) {
	s := g.model().Model.Snapshot()
	return s.Find(Key(name))
}

// bad draws whether this operation takes bad input: one draw in badInput,
// if the drawing draws bad input at all.
func (g *Generator) bad(c Chooser) bool {
	return g.d.BadInput && c.Choose(badInput, "bad input") == badInput-1
}

// badInput is the share of draws (1 in badInput) that make an operation
// with bad input: each must fail the same way on both queues and change
// nothing (I4 checks the latter).
const badInput = 8

func ptr[T any](v T) *T { return &v }

// gated reports whether the run's config has the classic profile's
// PreEnqueue plugins (gates=on, R17).
func (g *Generator) gated() bool {
	return g.cfg.Profile == spec.ProfileClassic && len(g.cfg.PreEnqueuePlugins) > 0
}

// addLabels are the labels a pod is added with: the drawing's, and with
// gates=on the labels its PreEnqueue plugins refuse.
func (g *Generator) addLabels() []map[string]string {
	if g.gated() {
		return slices.Concat(g.d.Labels, g.d.GateLabels)
	}
	return g.d.Labels
}

// drawPodRef describes a pod with this name: UID of the first or second
// generation, a priority, labels, affinity and its pod group.
func (g *Generator) drawPodRef(c Chooser, name string) PodRef {
	d := g.d
	r := PodRef{Name: name}
	if d.Recreate && c.Choose(3, "re-created") == 2 {
		r.UID = ptr(string(UIDOf(name)) + "-2")
	}
	if prio := Pick(c, "priority", d.Priorities); prio != 0 {
		r.Priority = &prio
	}
	r.Labels = Pick(c, "labels", g.addLabels())
	if len(d.Affinities) > 0 {
		r.Affinity = Pick(c, "affinity", d.Affinities)
	}
	// Two of three pods are members: groups of a few members.
	if len(d.Groups) > 0 {
		if k := c.Choose(len(d.Groups)+1, "member"); k > 0 {
			r.Group = ptr(d.Groups[k-1])
		}
	}
	return r
}

// DrawPodRef describes a pod named name as the generator adds it, in a
// run without gates; DrawPod is one of the drawing's names.
func (d *Drawing) DrawPodRef(c Chooser, name string) PodRef {
	return (&Generator{d: d}).drawPodRef(c, name)
}

// DrawPod is a pod of the drawing's universe as DrawPodRef describes it.
func (d *Drawing) DrawPod(c Chooser) *spec.Pod {
	return d.DrawPodRef(c, Pick(c, "pod", d.Names)).Build()
}

// heldUIDs are the UIDs of the pods the model holds under other names
// than name: a UID names one pod, so handing one in under another name is
// bad input.
func (g *Generator) heldUIDs(name string) []string {
	var out []string
	s := g.model().Model.Snapshot()
	for _, pl := range s.Places() {
		for _, o := range pl.Pods {
			if o.Key() != Key(name) {
				out = append(out, string(o.Pod.UID))
			}
		}
	}
	slices.Sort(out)
	return out
}

func (g *Generator) genAdd(c Chooser) bool {
	name := Pick(c, "pod", g.d.Names)
	op := Op{Kind: KindAdd}
	if !g.bad(c) {
		op.Pod = g.drawPodRef(c, name)
		g.knownGroup(c, op.Pod.Group)
		g.gateNewGroup(c, &op.Pod)
		if !g.do(op) {
			return false
		}
		g.narrowOverGroup(c, name)
		return true
	}
	others := g.heldUIDs(name)
	switch c.Choose(5, "bad add") {
	case 0:
		op.Pod = PodRef{Nil: true}
	case 1: // no name
		op.Pod = PodRef{UID: ptr("uid-x")}
	case 2: // no UID
		op.Pod = PodRef{Name: name, UID: ptr("")}
	case 3: // a name with a slash
		op.Pod = PodRef{Name: name + "/x"}
	case 4: // the UID of another held pod
		op.Pod = PodRef{Name: name}
		if len(others) > 0 {
			op.Pod.UID = ptr(Pick(c, "twin uid", others))
		}
	}
	return g.do(op)
}

// genPop pops (never on an empty activeQ: the model cannot wait) and, half
// the time, fails the popped pod at once: one scheduling attempt that
// fails, the common path to R3. In the podgroups profile pop is PopEntity,
// and half the time a popped group's cycle fails at once, every member
// rejected and the cycle handed back: the common path of a gang that does
// not fit (G4, G5, G6).
func (g *Generator) genPop(c Chooser) bool {
	m := g.model().Model
	if g.cfg.Profile == spec.ProfilePodGroups {
		if !m.Closed() && len(m.EntityCandidates()) == 0 {
			return false
		}
		st, ok := g.step(Op{Kind: KindPop})
		if !ok {
			return false
		}
		e := st.Target.Entity
		switch {
		case e == nil || e.Group == nil:
		case g.d.RetriedGroups && e.Group.UnschedulableCount+e.Group.ConsecutiveErrorsCount > 0 && c.Choose(2, "a group tried before succeeds") == 1:
			g.retriedGroupSucceeds(c, e.Group)
		case c.Choose(2, "group fails at once") == 1:
			for _, mb := range e.Group.Members {
				g.do(Op{Kind: KindFail, Pod: PodRef{Name: mb.Pod.Name}, Plugins: []string{PluginFit}})
			}
			g.do(Op{Kind: KindAttempted, Group: e.Group.PodGroup.Name, Status: spec.AttemptRejected})
			if g.d.RetriedGroups && c.Choose(2, "then its backoff runs out") == 1 {
				g.groupBackoffRunsOut(c, e.Group.PodGroup.Name)
			}
		}
		return true
	}
	if !m.Closed() && len(m.PopCandidates()) == 0 {
		return false
	}
	st, ok := g.step(Op{Kind: KindPop})
	if !ok {
		return false
	}
	if st.Target.Err() == nil && st.Target.Popped != nil && c.Choose(2, "fail at once") == 1 {
		g.fail(c, NameOf(st.Target.Popped.Key()), false)
	}
	return true
}

// retriedGroupSucceeds ends the cycle of the group gi, popped again after
// a failed cycle, in success with one member failed and the others
// bound (Done): G5's success, which sends the group back to activeQ at
// once with its counts reset. A sequence rarely comes to it by chance:
// the group must fail a cycle, back off, be flushed, be popped again and
// end that cycle with a member failed and success drawn, and before this
// steering the podgroups state machine caught a mutant that kept the
// counts (pg-success-keeps-counts) in none of 20 runs of make test's size
// (docs/mutants.md).
func (g *Generator) retriedGroupSucceeds(c Chooser, gi *spec.QueuedPodGroupInfo) {
	failed := c.Choose(len(gi.Members), "the member that fails")
	for i, mb := range gi.Members {
		if i == failed {
			g.do(Op{Kind: KindFail, Pod: PodRef{Name: mb.Pod.Name}, Plugins: []string{PluginFit}})
		} else {
			g.do(Op{Kind: KindDone, UID: string(mb.Pod.UID)})
		}
	}
	g.do(Op{Kind: KindAttempted, Group: gi.PodGroup.Name, Status: spec.AttemptSuccess})
}

// groupBackoffRunsOut ticks to the backoff expiry of group name's entity
// in backoffQ (exactly, a nanosecond or a second after) and flushes
// backoffQ, as the flush loop would, and half the time pops: the group's
// next cycle, a retry, is where its counts show (G5, G6). A retry is rare
// by chance: in a run of 100 checks, 4 of the 19 Pops of a group were.
func (g *Generator) groupBackoffRunsOut(c Chooser, name string) {
	s := g.model().Model.Snapshot()
	e, ok := s.PodGroups.Entity(GroupKey(name))
	if !ok || e.Place != spec.InBackoffQ {
		return
	}
	after := []time.Duration{0, time.Nanosecond, time.Second}[c.Choose(3, "after its expiry")]
	g.do(Op{Kind: KindTick, Duration: max(e.BackoffExpiry.Sub(s.Now), 0) + after})
	g.do(Op{Kind: KindFlushBackoff})
	if c.Choose(2, "then a pop") == 1 {
		g.genPop(c)
	}
}

// popped are the names of the pods in flight whose Pop the shadow
// recorded.
func (g *Generator) popped() []string {
	var out []string
	for _, n := range g.d.Names {
		if _, ok := g.model().Exec.Popped(Key(n)); ok {
			out = append(out, n)
		}
	}
	return out
}

// genFail hands back a pod in flight, or a stale record of one that is
// queued again (ErrAlreadyQueued) or gone (re-added as upstream does).
func (g *Generator) genFail(c Chooser) bool {
	popped := g.popped()
	if len(popped) == 0 {
		return false
	}
	return g.fail(c, Pick(c, "hand back", popped), true)
}

// fail hands back what Pop returned for name, with a random set of
// rejecting plugins (none gets a third of the draws: R3 then always goes to
// backoffQ) and, where the drawing has them, of pending plugins (R3h, R16:
// a pending plugin's Queue sends the pod to activeQ at once); with its own
// cycle or, if vary, a stale or later one; and sometimes with another
// Attempts (never-popped: a made-up info). A failure that parks the pod
// is followed, a third of the time, by a tick onto a boundary: the
// leftover limit of a parked pod is minutes away, and a sequence rarely
// ticks there by chance (R6).
func (g *Generator) fail(c Chooser, name string, vary bool) bool {
	d := g.d
	op := Op{Kind: KindFail, Pod: PodRef{Name: name}}
	if c.Choose(3, "rejected by plugins") > 0 {
		op.Plugins = drawPlugins(c, "rejecting plugins", d.Plugins)
	}
	// With pre-queueing hints, three rejections in four name a plugin of an
	// event that one plugin narrows and another does not, if the swarm
	// has one: where preQueueingMove's R21 and R22 requests start.
	if pls := g.partlyNarrowedRegistrants(); len(pls) > 0 && len(op.Plugins) > 0 && c.Choose(4, "a rejector of a partly narrowed event") != 0 {
		if pl := Pick(c, "that rejector", pls); !slices.Contains(op.Plugins, pl) {
			op.Plugins = append(op.Plugins, pl)
		}
	}
	if len(d.Pending) > 0 && c.Choose(3, "pending plugins") == 2 {
		op.Pending = drawPlugins(c, "pending plugins", d.Pending)
	}
	rec, _ := g.model().Exec.Popped(Key(name))
	if vary && d.OtherCycles > 0 {
		cycle := rec.Cycle
		switch c.Choose(d.OtherCycles+1, "cycle") {
		case 1:
			cycle--
		case 2:
			cycle -= 3
		case 3:
			cycle = 0
		case 4:
			cycle = g.model().Model.SchedulingCycle()
		case 5:
			cycle = g.model().Model.SchedulingCycle() + 1
		}
		if !d.BadInput {
			cycle = max(cycle, 0)
		}
		if cycle != rec.Cycle {
			op.Cycle = &cycle
		}
	}
	if d.MadeUpInfos {
		switch c.Choose(badInput, "override attempts") {
		case 1, 2:
			op.NeverPopped, op.Attempts, op.Cycle = true, Pick(c, "attempts", attemptOverrides), ptr(rec.Cycle)
		case 3:
			if d.BadInput {
				op.NeverPopped, op.Attempts = true, -1
			}
		}
	}
	// With gates=on, half the time a move request first, of an event
	// the rejecting plugins registered, while the pod is in flight: the
	// moveRequestCycle shortcut sends it to backoffQ with its rejectors,
	// where R17's sequence starts (gateWhileBackingOff).
	if g.gated() && len(d.GateLabels) > 0 && len(op.Plugins) > 0 && c.Choose(2, "a move request while in flight") == 1 {
		g.do(Op{Kind: KindMove, Event: Pick(c, "event", g.worthRequeuing(spec.NewPluginSet(op.Plugins...), d.Events))})
	}
	if !g.do(op) {
		return false
	}
	if g.gated() && len(d.GateLabels) > 0 && g.where(name) == spec.InBackoffQ && c.Choose(4, "then gate it while it backs off") != 0 {
		return g.gateWhileBackingOff(c, name)
	}
	if d.Boundaries && g.where(name) == spec.InUnschedulablePods && c.Choose(3, "then to a boundary") == 2 {
		g.tickToBoundary(c)
	}
	// Where updates gate parked pods (the hints profile), three in four
	// failures that park a pod rejected by plugins go on to gate it: a
	// parked pod is what R4h's sequence starts from, and in a sequence of
	// make test's size an update rarely finds one.
	if d.ParkedUpdates && len(d.GateLabels) > 0 && len(op.Plugins) > 0 && c.Choose(4, "then gate it") != 0 {
		if loc, u := g.find(name); loc == spec.InUnschedulablePods && !u.Gated() {
			g.gateParked(c, &u, nil)
		}
	}
	// A pod PodTopologySpread rejected, now parked: half the time an
	// assigned pod of another namespace comes next, which must not wake it
	// (R11: spreading counts the pods of the pod's own namespace). By
	// chance an assigned pod of another namespace rarely comes while such
	// a pod is parked: the state machine caught R11's mutant in 17 of 20
	// runs of 100 checks.
	if g.where(name) == spec.InUnschedulablePods && slices.Contains(op.Plugins, spec.PluginPodTopologySpread) {
		others := slices.DeleteFunc(slices.Clone(d.AssignedNamespaces), func(ns string) bool { return ns == Namespace })
		if len(others) > 0 && c.Choose(2, "an assigned pod of another namespace") == 1 {
			r := g.drawAssigned(c)
			ns := Pick(c, "its namespace", others)
			r.Namespace = &ns
			g.do(Op{Kind: KindAssignedAdd, Pod: r})
		}
	}
	if g.where(name) == spec.InUnschedulablePods {
		// With pre-queueing hints, half the time an event of the parked
		// pods' plugins whose object names some of them.
		if op := (Op{Kind: KindMove}); g.preQueueingMove(c, &op) {
			g.do(op)
		}
	}
	return true
}

// attemptOverrides replace the Attempts of a failed pod ("fail a
// never-popped attempts=N"): the scheduler owns the QueuedPodInfo, and
// large counts are where a backoff computed by shifting would overflow.
var attemptOverrides = []int{0, 2, 7, 33, 34, 35, 40, 62, 63, 64, 65, 100, 1 << 30}

// drawPlugins is a non-empty subset of plugins.
func drawPlugins(c Chooser, label string, plugins []string) []string {
	var out []string
	mask := 1 + c.Choose(1<<len(plugins)-1, label)
	for i, pl := range plugins {
		if mask&(1<<i) != 0 {
			out = append(out, pl)
		}
	}
	return out
}

// genMove raises an event of the drawing, with a preCheck some of the
// time and, on a queue that takes them, caller objects (R19: the classic
// profile must read none; the hints profile's NodeAdd hint reads the new
// node with zone-hint=on).
func (g *Generator) genMove(c Chooser) bool {
	op := Op{Kind: KindMove, Event: Pick(c, "event", g.d.Events), PreCheck: g.d.DrawPreCheck(c)}
	if g.preQueueingMove(c, &op) {
		return g.do(op)
	}
	if len(g.d.Nodes) > 0 && c.Choose(3, "node object") > 0 {
		op.NewObject = Pick(c, "node", g.d.Nodes)
		if c.Choose(2, "old object") == 1 {
			op.OldObject = Pick(c, "old node", g.d.Nodes)
		}
	}
	return g.do(op)
}

// preQueueingMove, with pre-queueing hints on (R20-R22) and a queue that
// takes objects, half the time makes op an event that a rejecting or
// pending plugin of a parked pod registered (a registration, as upstream
// raises it), carrying a node whose WakesLabel names some
// of the parked pods (or a pod of no queue): the standard pre-queueing
// hints then name pods, so the request is narrowed (or, beside a plugin
// that narrows nothing, evaluates every pod while asking the narrowed
// plugin about its own only) with pods parked on both sides of the names.
// By chance it comes rarely: an event a parked pod's plugin registered,
// with an object naming some parked pods but not all. A move (genMove)
// and a failure that parks a pod (fail) try it.
func (g *Generator) preQueueingMove(c Chooser, op *Op) bool {
	if !g.cfg.PreQueueing || len(g.d.Nodes) == 0 {
		return false
	}
	parked := g.model().Model.Snapshot().UnschedulablePods
	if len(parked) == 0 {
		return false
	}
	// Three times in four where one can be had (else half the time, as
	// any pre-queueing move): an event that one plugin narrows and another
	// (add-register=) does not, registered by a plugin of a parked pod,
	// whose object does not name that pod. Only such a request tells R21
	// (the pod, rejected by the plugin that narrowed nothing, must be
	// evaluated) and R22 (rejected by the narrowing plugin alone, it must
	// not be asked about) from their mutants: a run of 100 checks of the
	// hints state machine drew about 10 by chance.
	type mixed struct {
		pod int
		ev  spec.ClusterEvent
	}
	var mixes []mixed
	for i, p := range parked {
		for _, pl := range slices.Concat(p.UnschedulablePlugins, p.PendingPlugins) {
			for _, ev := range g.cfg.PluginEvents[pl] {
				if g.narrowedAndNot(ev) {
					mixes = append(mixes, mixed{i, ev})
				}
			}
		}
	}
	var u spec.QueuedPodInfo
	if len(mixes) > 0 && c.Choose(4, "a request both narrowed and not") != 0 {
		m := Pick(c, "parked pod and event", mixes)
		u, op.Event = parked[m.pod], m.ev
	} else {
		if c.Choose(2, "pre-queueing move") == 0 {
			return false
		}
		u = Pick(c, "parked pod", parked)
		var evs []spec.ClusterEvent
		for _, pl := range slices.Concat(u.UnschedulablePlugins, u.PendingPlugins) {
			evs = append(evs, g.cfg.PluginEvents[pl]...)
		}
		if len(evs) == 0 {
			return false
		}
		op.Event = Pick(c, "registered event", evs)
	}
	steered := g.narrowedAndNot(op.Event)
	var names []string
	for _, p := range parked {
		if steered && p.Pod.Key() == u.Pod.Key() {
			continue
		}
		if c.Choose(2, "named "+p.Pod.Name) == 1 {
			names = append(names, p.Pod.Name)
		}
	}
	if len(names) == 0 {
		names = []string{"z"} // a pod of no queue: the hint names no queued pod
	}
	op.NewObject = &Node{Name: "n6", Labels: map[string]string{WakesLabel: strings.Join(names, "_")}}
	return true
}

// narrowedAndNot says whether a move request of ev with the object
// preQueueingMove sends (a node whose WakesLabel names pods) is narrowed by
// some plugin and not by another, as the contract's R20 answers it
// (Config.PreQueueingNarrowing): such a request evaluates every pod and
// asks the narrowed plugin about the pods it named only (R21, R22).
func (g *Generator) narrowedAndNot(ev spec.ClusterEvent) bool {
	n := g.cfg.PreQueueingNarrowing(spec.Occurrence{Event: ev, NewObject: &Node{Name: "n6", Labels: map[string]string{WakesLabel: "z"}}})
	return n != nil && n.AllPods && len(n.Named) > 0
}

// partlyNarrowedRegistrants are the drawing's plugins that register an
// event narrowedAndNot holds for (none without pre-queueing hints).
func (g *Generator) partlyNarrowedRegistrants() []string {
	if !g.cfg.PreQueueing {
		return nil
	}
	var out []string
	for _, pl := range g.d.Plugins {
		if slices.ContainsFunc(g.cfg.PluginEvents[pl], g.narrowedAndNot) {
			out = append(out, pl)
		}
	}
	return out
}

// knownGroup, where the drawing retries groups (RetriedGroups), adds the
// object of the group a member is added to half the time the queue does
// not know it: a member of an unknown group waits, not poppable, until
// its group's object comes (G11), and a group must be popped twice for
// its counts to show (retriedGroupSucceeds).
func (g *Generator) knownGroup(c Chooser, group *string) {
	if !g.d.RetriedGroups || group == nil {
		return
	}
	if _, ok := g.model().Model.Snapshot().PodGroups.Known(GroupKey(*group)); !ok && c.Choose(2, "its group's object first") == 1 {
		g.do(Op{Kind: KindPodGroupAdd, Group: *group, GroupPriority: Pick(c, "group priority", g.d.GroupPriorities)})
	}
}

// gateNewGroup, with pre-queueing hints over groups (G14), half the time
// makes the member r the gated first member of a new parked group: its
// group's object added first if the queue does not know it, and r labelled
// with a gate (GateLabels) if its group has no entity queued. G14's
// sequences (narrowOverGroup) start from such a group, which a sequence
// rarely makes by chance: most members join a group whose object is not
// there yet or an entity already queued, and the swarm leaves the gate's
// label out of half the sequences.
func (g *Generator) gateNewGroup(c Chooser, r *PodRef) {
	if !g.cfg.PreQueueing || g.cfg.Profile != spec.ProfilePodGroups || r.Group == nil || len(g.d.GateLabels) == 0 ||
		c.Choose(2, "a new gated group") == 0 {
		return
	}
	s := g.model().Model.Snapshot()
	k := GroupKey(*r.Group)
	if _, ok := s.PodGroups.Known(k); !ok {
		g.do(Op{Kind: KindPodGroupAdd, Group: *r.Group, GroupPriority: Pick(c, "group priority", g.d.GroupPriorities)})
		s = g.model().Model.Snapshot()
	}
	if _, queued := s.PodGroups.Entity(k); !queued && !slices.Contains(s.PodGroups.InCycle, k) {
		r.Labels = Pick(c, "gate", g.d.GateLabels)
	}
}

// narrowOverGroup, with pre-queueing hints over groups (G14), plays one
// of G14's two sequences on the parked group the pod name was just added
// to, when it has a gated member (and one nobody rejected joins it if it
// has none): it
// lifts the gated members' labels (an update of the pod raises no event
// their gating plugin registered, so they stay gated) and raises an event
// of the gating plugin, one on which the gated members' rejectors would
// requeue them, naming some of the other members only: the group is
// evaluated and must stay, since nobody named the members whose
// rejectors would move it (R22); or it deletes the gated members and
// raises such an event naming pods of other groups only: the group, with
// no gated member left, moves whenever it is evaluated (G13), and must
// not be, since nobody named a pod of it. By chance these come rarely:
// before this steering the podgroups state machine caught neither of
// G14's mutant rows in 20 runs of make test's size (docs/mutants.md).
func (g *Generator) narrowOverGroup(c Chooser, name string) {
	if !g.cfg.PreQueueing || g.cfg.Profile != spec.ProfilePodGroups {
		return
	}
	s := g.model().Model.Snapshot()
	loc, info := s.Find(Key(name))
	if loc != spec.InUnschedulablePods || info.Pod.Group == "" {
		return
	}
	e, ok := s.PodGroups.Entity(info.Pod.GroupKey())
	if !ok || e.Place != spec.InUnschedulablePods || !e.Gated() {
		return
	}
	var gated, others []string
	for _, k := range e.Members {
		if _, m := s.Find(k); m.Gated() {
			gated = append(gated, m.Pod.Name)
		} else if len(m.UnschedulablePlugins) == 0 && len(m.PendingPlugins) == 0 {
			others = append(others, m.Pod.Name)
		}
	}
	if len(gated) == 0 {
		return
	}
	if len(others) == 0 {
		// A member that joins the parked group, asked by nobody (G2).
		var free []string
		for _, n := range g.d.Names {
			if g.where(n) == spec.Nowhere {
				free = append(free, n)
			}
		}
		if len(free) == 0 {
			return
		}
		n := Pick(c, "a member joins", free)
		if !g.do(Op{Kind: KindAdd, Pod: PodRef{Name: n, Group: &info.Pod.Group}}) || g.where(n) != spec.InUnschedulablePods {
			return
		}
		others = []string{n}
	}
	lift := c.Choose(2, "lift the gates, or delete the gated members") == 0
	for _, n := range gated {
		if lift {
			g.do(Op{Kind: KindUpdate, Pod: PodRef{Name: n, Labels: map[string]string{}}})
		} else {
			g.do(Op{Kind: KindDelete, Pod: PodRef{Name: n}})
		}
	}
	evs := g.cfg.PluginEvents[e.GatingPlugin]
	if lift {
		evs = g.steerEvents(gated[0], evs, false)
	}
	if len(evs) == 0 {
		return
	}
	var names []string
	if lift {
		for _, n := range others {
			if c.Choose(2, "named "+n) == 0 {
				names = append(names, n)
			}
		}
		if len(names) == 0 {
			names = others[:1]
		}
	} else {
		for _, u := range g.model().Model.Snapshot().UnschedulablePods {
			if u.Pod.Group != info.Pod.Group && c.Choose(2, "named "+u.Pod.Name) == 0 {
				names = append(names, u.Pod.Name)
			}
		}
		if len(names) == 0 {
			names = []string{"z"} // a pod of no queue
		}
	}
	g.do(Op{Kind: KindMove, Event: Pick(c, "registered event", evs),
		NewObject: &Node{Name: "n6", Labels: map[string]string{WakesLabel: strings.Join(names, "_")}}})
}

// DrawPreCheck is the names a move's preCheck lets through: nil (no
// preCheck) half the time, else a subset of the names.
func (d *Drawing) DrawPreCheck(c Chooser) []string {
	if c.Choose(2, "preCheck") == 0 {
		return nil
	}
	pass := []string{}
	for _, n := range d.Names {
		if c.Choose(2, "passes preCheck "+n) == 1 {
			pass = append(pass, n)
		}
	}
	return pass
}

// genTick advances the clocks. With Drawing.Boundaries, seven times in
// eight (when there is one) onto a boundary instant (tickToBoundary);
// otherwise by a step of the drawing, followed mostly by the flushes, as
// time passing makes them happen in a scheduler.
func (g *Generator) genTick(c Chooser) bool {
	if g.d.Boundaries && c.Choose(8, "round tick") != 7 && g.tickToBoundary(c) {
		return true
	}
	if !g.do(Op{Kind: KindTick, Duration: Pick(c, "duration", g.d.Steps)}) {
		return false
	}
	switch c.Choose(5, "then") {
	case 0, 1, 2:
		g.do(Op{Kind: KindFlushLeftover})
		g.do(Op{Kind: KindFlushBackoff})
	case 3:
		if g.d.Boundaries {
			g.do(Op{Kind: KindMove, Event: spec.WildCardEvent})
		}
	}
	return true
}

// tickToBoundary ticks onto a boundary instant of internal/boundary (a
// backoff expiry or a leftover limit), exactly or one nanosecond either
// side, exactly being the likeliest and the choice rapid shrinks to. Then
// mostly what makes that instant's boundary show, as it happens in a
// scheduler when time passes: the leftover flush at a leftover limit, the
// backoffQ flush at a backoffQ pod's expiry, a cluster event (a wildcard
// move, which requeues to backoffQ a pod still backing off) at an
// unschedulable pod's expiry. It returns false if there is no instant
// ahead.
func (g *Generator) tickToBoundary(c Chooser) bool {
	s := g.model().Model.Snapshot()
	instants := slices.DeleteFunc(boundary.Instants(s, g.cfg), func(t time.Time) bool { return t.Before(s.Now) })
	if len(instants) == 0 {
		return false
	}
	at := Pick(c, "boundary", instants)
	d := max(at.Sub(s.Now)+[]time.Duration{0, 0, -1, 1}[c.Choose(4, "exactly, or 1ns before or after")], 0)
	if !g.do(Op{Kind: KindTick, Duration: d}) {
		return false
	}
	if c.Choose(5, "at that instant") < 4 {
		for _, op := range g.atInstant(s, at) {
			g.do(op)
		}
	}
	return true
}

// atInstant are the operations that make the boundaries at instant at
// show for the pods of s.
func (g *Generator) atInstant(s spec.Snapshot, at time.Time) []Op {
	var leftover, expiry, backoff bool
	for i := range s.UnschedulablePods {
		u := &s.UnschedulablePods[i]
		leftover = leftover || u.Timestamp.Add(g.cfg.PodMaxInUnschedulablePodsDuration).Equal(at)
		expiry = expiry || g.cfg.BackoffExpiry(u).Equal(at)
	}
	for i := range s.BackoffQ {
		backoff = backoff || g.cfg.BackoffExpiry(&s.BackoffQ[i]).Equal(at)
	}
	var ops []Op
	if leftover {
		ops = append(ops, Op{Kind: KindFlushLeftover})
	}
	if expiry {
		ops = append(ops, Op{Kind: KindMove, Event: spec.WildCardEvent})
	}
	if backoff {
		ops = append(ops, Op{Kind: KindFlushBackoff})
	}
	return ops
}

// genActivate activates pods by name. With gates=on (the classic profile's
// PreEnqueue plugins), half the time it plays R17's sequence on a pod of
// backoffQ instead (gateWhileBackingOff).
func (g *Generator) genActivate(c Chooser) bool {
	if g.gated() && len(g.d.GateLabels) > 0 && c.Choose(2, "a backing-off pod") == 1 {
		if b := g.model().Model.Snapshot().BackoffQ; len(b) > 0 {
			return g.gateWhileBackingOff(c, Pick(c, "backoffQ pod", b).Pod.Name)
		}
	}
	op := Op{Kind: KindActivate}
	for range 1 + c.Choose(g.d.ActivateMax, "activate count") {
		op.Pods = append(op.Pods, PodRef{Name: Pick(c, "pod", g.d.Names)})
	}
	if g.bad(c) {
		op.Pods = append(op.Pods, PodRef{Nil: true})
	}
	return g.do(op)
}

// gateWhileBackingOff plays R17's sequence on the pod name, in backoffQ:
// seven times in eight an update to a label a PreEnqueue plugin refuses
// (three in four SchedulingGates'), then Activate, then a move request of
// an event its rejecting plugins registered (worthRequeuing). Activate's
// PreEnqueue leaves the pod gated while it still backs off, the one state
// in which a move request that examined a pod SchedulingGates gates would
// requeue it (to backoffQ, unexamined) instead of leaving it (R17). Once
// its backoff is over such a requeue runs PreEnqueue, which refuses it
// again, so nothing would show. The sequence rarely comes by chance: when
// only genActivate played it, on a pod of backoffQ if it found one (none
// of the 22 activations of the gates=on sequences of a run of 100 checks
// did), gated half the time by either gate and followed half the time by
// any event, the classic state machine caught that row's mutant in 3 of
// 20 runs of make test's size (docs/mutants.md). Now a failure that sends
// its pod to backoffQ starts it three times in four (fail), and half the
// failures of a rejected pod get there by a move request while it is in
// flight.
func (g *Generator) gateWhileBackingOff(c Chooser, name string) bool {
	if c.Choose(8, "gate it first") != 0 {
		gates := g.d.GateLabels
		// Three times in four SchedulingGates' gate: the only one whose
		// pods a move request must leave unexamined (Hold's it examines).
		if sg := g.cfg.PreEnqueuePlugins[spec.PluginSchedulingGates]; sg != nil && c.Choose(4, "SchedulingGates' gate") != 0 {
			gates = slices.DeleteFunc(slices.Clone(gates), func(l map[string]string) bool { return sg(&spec.Pod{Labels: l}) })
		}
		if len(gates) == 0 {
			gates = g.d.GateLabels
		}
		g.do(Op{Kind: KindUpdate, Pod: PodRef{Name: name, Labels: Pick(c, "gate", gates)}})
	}
	if !g.do(Op{Kind: KindActivate, Pods: []PodRef{{Name: name}}}) {
		return false
	}
	_, u := g.find(name)
	g.do(Op{Kind: KindMove, Event: Pick(c, "event", g.worthRequeuing(u.UnschedulablePlugins, g.d.Events))})
	return true
}

// worthRequeuing are the events of evs that may make a pod that plugins
// rejected schedulable, by their registrations (R4: the events a move
// request would move it on, were it not gated); all of evs if none is.
func (g *Generator) worthRequeuing(plugins spec.PluginSet, evs []spec.ClusterEvent) []spec.ClusterEvent {
	out := slices.DeleteFunc(slices.Clone(evs), func(e spec.ClusterEvent) bool {
		return !g.cfg.PluginEvents.IsPodWorthRequeuing(plugins, e)
	})
	if len(out) == 0 {
		return evs
	}
	return out
}

// UpdateChange is one kind of change an update makes (Drawing.Updates).
type UpdateChange string

// The changes an update may make.
const (
	UpdateNone     UpdateChange = "none"     // the same object again
	UpdateTouch    UpdateChange = "touch"    // ResourceVersion and Status only: irrelevant
	UpdatePriority UpdateChange = "priority" // a new priority
	UpdateLabels   UpdateChange = "labels"   // new labels (Drawing.UpdateLabels)
	UpdateAffinity UpdateChange = "affinity" // new affinity terms
	UpdateBoth     UpdateChange = "labels+priority"
	UpdateRename   UpdateChange = "rename" // bad input: the key changes
	UpdateGroup    UpdateChange = "group"  // bad input in the podgroups profile: G9
)

// genUpdate passes the pod's last version (or another object with the
// same name) and a copy with a change of the drawing's. Where the drawing
// says so (the hints profile), half the updates are of a pod in
// unschedulablePods (R9h): half of those of a gated pod lift its gate
// (drop its labels), followed by an event one of the pod's rejecting or
// pending plugins registered, which re-examines it; three in four of
// those of an ungated one gate it (gateParked). Other label changes are,
// half the time, followed by one of FollowEvents.
func (g *Generator) genUpdate(c Chooser) bool {
	d := g.d
	op := Op{Kind: KindUpdate, Pod: PodRef{Name: Pick(c, "pod", d.Names)}}
	var parked *spec.QueuedPodInfo
	if d.ParkedUpdates {
		if ps := g.model().Model.Snapshot().UnschedulablePods; len(ps) > 0 && c.Choose(2, "a parked pod") == 1 {
			u := Pick(c, "parked pod", ps)
			op.Pod.Name, parked = u.Pod.Name, &u
		}
	}
	// Two sequences on a pod in backoffQ, which left to chance an update
	// rarely found (docs/mutants.md, N=20): with pop-from-backoffQ (the
	// hints drawing) Pop takes a rejected pod from backoffQ in
	// ordering-window order when activeQ is empty (R2h), so a new priority
	// must re-sort it there (R9h; a mutant that left the order as it was:
	// 4 of 20 state-machine runs), and a Pop follows if activeQ is empty;
	// and a pod gated by an update while it backs off enters activeQ when
	// its backoff ends, without PreEnqueue (R5h; a mutant that ran it: 4
	// of 20), so the clock passes its expiry and backoffQ is flushed. Half
	// the updates, where backoffQ holds a pod, play one of them.
	if d.ParkedUpdates {
		if backoff := g.model().Model.Snapshot().BackoffQ; len(backoff) > 0 && c.Choose(2, "a backoffQ sequence") == 0 {
			return g.updateBackingOff(c, backoff)
		}
	}
	// Sometimes the pod was re-created under another UID (R9: in flight,
	// the old object's attempt ends).
	if d.Recreate && c.Choose(4, "new UID") == 3 {
		op.Pod.UID = ptr(string(UIDOf(op.Pod.Name)) + "-2")
	}
	change := Pick(c, "change", d.Updates)
	var steered bool
	switch {
	case parked != nil && parked.Gated() && c.Choose(2, "lift the gate") == 1:
		change, op.Pod.Labels, steered = UpdateNone, map[string]string{}, true
	// Three times in four: a pod another plugin rejected that a gate
	// then holds is R4h's start, and the rarest of the two.
	case parked != nil && !parked.Gated() && len(d.GateLabels) > 0 && c.Choose(4, "gate it") != 0:
		return g.gateParked(c, parked, op.Pod.UID)
	}
	labels := d.UpdateLabels
	if g.gated() {
		labels = slices.Concat(labels, d.GateLabels)
	}
	switch change {
	case UpdateTouch:
		op.Touch = true
	case UpdatePriority:
		op.Pod.Priority = ptr(Pick(c, "new priority", d.Priorities))
	case UpdateLabels:
		op.Pod.Labels = Pick(c, "new labels", labels)
	case UpdateAffinity:
		if len(d.Affinities) < 2 {
			break
		}
		op.Pod.Affinity = Pick(c, "new affinity", d.Affinities[1:])
	case UpdateBoth:
		op.Pod.Labels, op.Pod.Priority = map[string]string{"v": "2"}, ptr(Pick(c, "new priority", d.Priorities))
	case UpdateRename:
		if g.bad(c) {
			op.Rename = Pick(c, "new name", d.Names) + "-renamed"
		}
	case UpdateGroup:
		if g.bad(c) && len(d.Groups) > 0 {
			op.Pod.Group = ptr(Pick(c, "new group", d.Groups))
		}
	}
	if len(d.Verdicts) > 0 && op.Rename == "" && !steered && c.Choose(3, "caller verdict") == 2 {
		op.Change = ptr(Pick(c, "verdict", d.Verdicts))
	}
	if !g.do(op) {
		return false
	}
	follow := d.FollowEvents
	if steered {
		follow = g.registeredFor(parked, follow)
	}
	if len(follow) > 0 && op.Pod.Labels != nil && (steered || c.Choose(2, "then an event") == 1) {
		g.do(Op{Kind: KindMove, Event: Pick(c, "event", follow)})
	}
	return true
}

// updateBackingOff plays genUpdate's backoffQ sequences (R9h's re-sort,
// R5h's gated exit) on a pod of backoff, the pods in backoffQ now.
func (g *Generator) updateBackingOff(c Chooser, backoff []spec.QueuedPodInfo) bool {
	d := g.d
	u := Pick(c, "backoffQ pod", backoff)
	if len(d.GateLabels) > 0 && c.Choose(2, "gate it while it backs off") == 0 {
		if !g.do(Op{Kind: KindUpdate, Pod: PodRef{Name: u.Pod.Name, Labels: Pick(c, "gate", d.GateLabels)}}) {
			return false
		}
		_, now := g.find(u.Pod.Name) // the update may have changed its fields
		g.do(Op{Kind: KindTick, Duration: max(g.cfg.BackoffExpiry(&now).Sub(g.model().Model.Snapshot().Now), 0) + time.Nanosecond})
		g.do(Op{Kind: KindFlushBackoff})
		return true
	}
	others := slices.DeleteFunc(slices.Clone(d.Priorities), func(p int32) bool { return p == u.Pod.Priority })
	if len(u.UnschedulablePlugins) == 0 || len(others) == 0 {
		return false
	}
	if !g.do(Op{Kind: KindUpdate, Pod: PodRef{Name: u.Pod.Name, Priority: ptr(Pick(c, "new priority", others))}}) {
		return false
	}
	if m := g.model().Model; g.cfg.Profile != spec.ProfilePodGroups && len(m.Snapshot().ActiveQ) == 0 && len(m.PopCandidates()) > 0 {
		g.do(Op{Kind: KindPop})
	}
	return true
}

// gateParked updates the parked, ungated pod u to a label of GateLabels
// and plays the rest of R4h's sequence (does a move request re-examine a
// gated pod for an event its gating plugin did not register?): an event
// of u's rejectors that moves it, so that PreEnqueue runs and gates it
// (its gating plugin joins its rejectors); three times in four, once it
// is gated, an update that lifts the gate (Hold registered no event, so
// the update's own events leave it gated) and an event its other
// rejectors' hints would requeue it on, which the gate must keep from
// moving it. Left to chance the sequence is rare: before this steering
// the hints state machine caught R4h's mutant in about half its runs of
// make test's size (docs/mutants.md). uid, if set, is the UID of the
// updated object.
func (g *Generator) gateParked(c Chooser, u *spec.QueuedPodInfo, uid *string) bool {
	name := u.Pod.Name
	if !g.do(Op{Kind: KindUpdate, Pod: PodRef{Name: name, UID: uid, Labels: Pick(c, "gate", g.d.GateLabels)}}) {
		return false
	}
	follow := g.registeredFor(u, g.d.FollowEvents)
	if len(follow) == 0 {
		return true
	}
	g.do(Op{Kind: KindMove, Event: Pick(c, "event", g.steerEvents(name, follow, false))})
	if g.gatedParked(name) && c.Choose(4, "then lift it") != 0 {
		g.do(Op{Kind: KindUpdate, Pod: PodRef{Name: name, UID: uid, Labels: map[string]string{}}})
		g.do(Op{Kind: KindMove, Event: Pick(c, "event", g.steerEvents(name, follow, true))})
	}
	return true
}

// steerEvents are the events of evs on which a move request would requeue
// the parked pod name as the model holds it, by its rejectors' hints
// alone (MoveStrategy, no pre-queueing narrowing: these events carry no
// object). With pastGate, only those its gating plugin did not register:
// the events R4h's gated filter alone keeps from moving it. All of evs if
// none is such an event, so that the draw still happens.
func (g *Generator) steerEvents(name string, evs []spec.ClusterEvent, pastGate bool) []spec.ClusterEvent {
	loc, u := g.find(name)
	if loc != spec.InUnschedulablePods {
		return evs
	}
	var out []spec.ClusterEvent
	for _, e := range evs {
		if pastGate && (!u.Gated() || g.cfg.GatingEventMatches(u.GatingPlugin, e)) {
			continue
		}
		if g.cfg.MoveStrategy(&u, spec.Occurrence{Event: e}, nil) != spec.StrategySkip {
			out = append(out, e)
		}
	}
	if len(out) == 0 {
		return evs
	}
	return out
}

// gatedParked reports whether the model holds the pod name in
// unschedulablePods, gated by a PreEnqueue plugin.
func (g *Generator) gatedParked(name string) bool {
	for _, u := range g.model().Model.Snapshot().UnschedulablePods {
		if u.Pod.Name == name {
			return u.Gated()
		}
	}
	return false
}

// registeredFor are the events of evs that a rejecting or pending plugin
// of u registered (all of evs if none).
func (g *Generator) registeredFor(u *spec.QueuedPodInfo, evs []spec.ClusterEvent) []spec.ClusterEvent {
	var out []spec.ClusterEvent
	for _, e := range evs {
		for _, pl := range slices.Concat(u.UnschedulablePlugins, u.PendingPlugins) {
			if g.cfg.GatingEventMatches(pl, e) {
				out = append(out, e)
				break
			}
		}
	}
	if len(out) == 0 {
		return evs
	}
	return out
}

func (g *Generator) genDelete(c Chooser) bool {
	op := Op{Kind: KindDelete, Pod: PodRef{Name: Pick(c, "pod", g.d.Names)}}
	if g.bad(c) {
		switch c.Choose(3, "bad delete") {
		case 0:
			op.Pod = PodRef{Nil: true}
		case 1:
			op.Pod.UID = ptr("")
		case 2:
			op.Pod.UID = ptr("uid-ghost")
		}
	}
	return g.do(op)
}

// genDone ends a pod's time in flight or, as bad input, names a queued
// pod's UID, an unknown UID or none (ErrNotInFlight).
func (g *Generator) genDone(c Chooser) bool {
	s := g.model().Model.Snapshot()
	var uids []string
	for _, f := range s.InFlight {
		uids = append(uids, string(f.Pod.UID))
	}
	if !g.d.BadInput {
		if len(uids) == 0 {
			return false
		}
		return g.do(Op{Kind: KindDone, UID: Pick(c, "in flight", uids)})
	}
	op := Op{Kind: KindDone, UID: "uid-ghost"}
	switch i := c.Choose(len(uids)+3, "done"); {
	case i < len(uids):
		op.UID = uids[i]
	case i == len(uids):
		if queued := slices.Concat(s.ActiveQ, s.BackoffQ, s.UnschedulablePods); len(queued) > 0 {
			op.UID = string(Pick(c, "queued pod", queued).Pod.UID)
		}
	case i == len(uids)+1:
		op.UID = ""
	}
	return g.do(op)
}

// drawAssigned describes a pod bound elsewhere: its namespace and labels
// match some parked pods' affinity or not.
func (g *Generator) drawAssigned(c Chooser) PodRef {
	r := PodRef{Name: "web-0", Labels: Pick(c, "assigned labels", g.d.AssignedLabels)}
	if ns := Pick(c, "assigned namespace", g.d.AssignedNamespaces); ns != Namespace {
		r.Namespace = &ns
	}
	return r
}

func (g *Generator) genAssignedAdd(c Chooser) bool {
	op := Op{Kind: KindAssignedAdd, Pod: g.drawAssigned(c)}
	if g.bad(c) {
		op.Pod = PodRef{Nil: true}
	}
	return g.do(op)
}

func (g *Generator) genAssignedUpdate(c Chooser) bool {
	op := Op{Kind: KindAssignedUpdate, Pod: g.drawAssigned(c), Event: Pick(c, "assigned event", g.d.AssignedEvents)}
	if c.Choose(2, "old labels") == 1 {
		op.OldLabels = map[string]string{}
	}
	if g.bad(c) {
		op.Pod, op.OldLabels = PodRef{Nil: true}, nil
	}
	return g.do(op)
}

// genClose closes the queue, rarely (one draw in eight): every later Pop
// must return ErrClosed on both.
func (g *Generator) genClose(c Chooser) bool {
	if c.Choose(badInput, "close") != badInput-1 {
		return true
	}
	return g.do(Op{Kind: KindClose})
}

// genNominate nominates a pod of the universe to a node, to no node (the
// node ""), or to its own NominatedNodeName (mode=noop, which scenario
// pods leave empty: the nomination is dropped); or, as bad input, a pod
// with no name.
//
// Preemption nominates the pod it ran for, which is in flight, and an
// update of a pod in flight leaves its nomination alone (R18): the
// answers must then show the queue's new object, not the one nominated.
// Half the nominations pick a pod in flight, where there is one, and half
// of those are followed by such an update; left to chance the three steps
// came together rarely (a nominator listing the nominated object was
// caught in 6 of 20 state-machine runs, docs/mutants.md).
func (g *Generator) genNominate(c Chooser) bool {
	op := Op{Kind: KindNominate, Pod: PodRef{Name: Pick(c, "pod", g.d.Names)}}
	inFlight := g.model().Model.Snapshot().InFlight
	if len(inFlight) > 0 && c.Choose(2, "a pod in flight") == 1 {
		op.Pod.Name = Pick(c, "pod in flight", inFlight).Pod.Name
	}
	if c.Choose(4, "mode") == 3 {
		op.Noop = true
	} else {
		op.Node = Pick(c, "node", g.d.NominationNodes)
	}
	if g.bad(c) {
		op.Pod.Name = ""
	}
	if !g.do(op) {
		return false
	}
	if op.Node != "" && g.where(op.Pod.Name) == spec.InFlight && c.Choose(2, "then update it in flight") == 1 {
		g.do(Op{Kind: KindUpdate, Pod: PodRef{Name: op.Pod.Name}, Touch: true})
	}
	return true
}

// genNominated asks which pods are nominated to a node, one that was
// never nominated to included.
func (g *Generator) genNominated(c Chooser) bool {
	nodes := slices.DeleteFunc(slices.Clone(g.d.NominationNodes), func(n string) bool { return n == "" })
	return g.do(Op{Kind: KindNominated, Node: Pick(c, "node", append(nodes, "n3"))})
}

// genPodGroup adds, updates or deletes (k) a pod group's object (G11).
func genPodGroup(k Kind) kindGen {
	return func(g *Generator, c Chooser) bool {
		op := Op{Kind: k, Group: Pick(c, "group", g.d.Groups)}
		if k != KindPodGroupDelete {
			op.GroupPriority = Pick(c, "group priority", g.d.GroupPriorities)
		}
		return g.do(op)
	}
}

// genAttempted ends the cycle of a group PopEntity returned (G5).
func (g *Generator) genAttempted(c Chooser) bool {
	var gs []string
	for _, n := range g.d.Groups {
		if _, ok := g.model().Exec.PoppedGroup(GroupKey(n)); ok {
			gs = append(gs, n)
		}
	}
	if len(gs) == 0 {
		return false
	}
	return g.do(Op{Kind: KindAttempted, Group: Pick(c, "group", gs), Status: Pick(c, "status", attemptStatuses)})
}

var attemptStatuses = []spec.AttemptStatus{spec.AttemptSuccess, spec.AttemptRejected, spec.AttemptError}
