package tla_test

// The pod-groups profile's side of the agreement test: GraphPodGroups.cfg
// in Go terms, the action alphabet of SchedulingQueuePodGroups.tla's Next as
// operations of the model (spec.PodGroupQueue), and the projection of a
// model state onto the spec's variables.
//
// The projection (stategraph.GroupsState) keeps, of the model: where each
// held pod is (a member of a queued entity at its entity's place, and
// pendingPodGroupPods, incompletePodGroupPods); for each held entity (a pod
// outside groups held anywhere, a queued group entity) its Timestamp, its
// UnschedulableCount and ConsecutiveErrorsCount and its backoff expiry; the
// known PodGroup objects; the open cycles (InCycle); and, from the
// scheduler's side, the QueuedPodGroupInfo it holds while a group's cycle
// runs (its counts, Timestamp and members). It drops what no operation of
// the alphabet reads: Attempts and InitialAttemptTimestamp, a member's own
// QueuedPodInfo fields (a group is ordered, counted and backed off by its
// entity's), the rejector plugins (the spec's failure outcome stands for
// them: "unschedulable" is rejected by P1, "error" by none), and the
// in-flight list (a member's failure replays nothing, G4, and the alphabet
// records no event after the marker of a pod outside groups: see
// podGroupOps). An operation that changes the model but not the projection
// is a step from a state to itself, which TLC's graph never has (every
// action of the spec changes a variable; TestPodGroupsAgreementCatchesMutants
// checks it), so nothing dropped can hide a step.

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/schedq/schedq/spec"
	"github.com/schedq/schedq/tla/internal/stategraph"
)

// The action names of SchedulingQueuePodGroups.tla that the other specs
// do not have.
const (
	actPGFail      = "AddUnschedulablePodIfNotPresent"
	actPGAttempted = "AddAttemptedPodGroupIfNeeded"
	actPGAdd       = "AddPodGroup"
	actPGDelete    = "DeletePodGroup"
)

// podGroupsBound is what GraphPodGroups.cfg adds to a bound.
type podGroupsBound struct {
	group  *spec.PodGroup // the one pod group "g"
	mutant string         // a broken variant of the Go side (TestPodGroupsAgreementCatchesMutants), "" for none
}

// heldGroup is the scheduler's side of a group's cycle: what PopEntity
// returned, handed back to AddAttemptedPodGroupIfNeeded. It is never
// changed in place.
type heldGroup struct {
	info  *spec.QueuedPodGroupInfo
	cycle int64
}

// groupSlot is where a node keeps the group cycle the scheduler runs, nil
// for none; a clone has a slot of its own.
type groupSlot struct{ held *heldGroup }

// heldCycle is the group cycle the scheduler runs in n, nil for none.
func (n node) heldCycle() *heldGroup {
	if n.group == nil {
		return nil
	}
	return n.group.held
}

// rejectedBy is the plugin that rejects a pod in the spec's
// "unschedulable" outcome.
const rejectedBy = "P1"

// readPodGroupsBound reads the constants of GraphPodGroups.cfg: Members
// (of the one group "g") and Singles substituted into Pods and GroupOf by
// MCSchedulingQueuePodGroups.tla's MCPods and OneGroup, mirrored here
// (MembersH, a second group's, is empty: the agreement bound has one group).
func readPodGroupsBound(t *testing.T, path string) bound {
	t.Helper()
	c := readCfg(t, path)
	if m := c.need("Mutation"); m != `"none"` {
		t.Fatalf("%s: the agreement bound needs Mutation = \"none\", not %s", path, m)
	}
	if c.need("Pods") != "MCPods" || c.need("GroupOf") != "OneGroup" || !slices.Equal(c.strs("Groups"), []string{"g"}) ||
		len(c.strs("MembersH")) > 0 {
		t.Fatalf("%s: Pods <- MCPods, GroupOf <- OneGroup, Groups = {\"g\"} and MembersH = {} are what the Go side knows", path)
	}
	b := bound{maxTime: c.num("MaxTime"), maxCycle: int64(c.num("MaxCycle")), unit: unit,
		podGroups: &podGroupsBound{group: &spec.PodGroup{Namespace: "ns", Name: "g"}}}
	for _, name := range c.strs("Members") {
		b.pods = append(b.pods, &spec.Pod{Namespace: "ns", Name: name, UID: spec.UID("uid-" + name), Group: "g"})
	}
	for _, name := range c.strs("Singles") {
		b.pods = append(b.pods, &spec.Pod{Namespace: "ns", Name: name, UID: spec.UID("uid-" + name)})
	}
	slices.SortFunc(b.pods, func(x, y *spec.Pod) int { return strings.Compare(x.Name, y.Name) })
	d := func(name string) time.Duration { return time.Duration(c.num(name)) * unit }
	b.cfg = spec.Config{
		Profile:                   spec.ProfilePodGroups,
		PodInitialBackoffDuration: d("InitialBackoff"),
		PodMaxBackoffDuration:     d("MaxBackoff"),
		// The leftover flush is not in the alphabet; the limit and the
		// periods only need to be valid.
		PodMaxInUnschedulablePodsDuration: time.Minute,
		BackoffQFlushPeriod:               unit,
		UnschedulablePodsFlushPeriod:      unit,
		PluginEvents:                      spec.PluginEvents{rejectedBy: {clusterEvents["E1"]}},
	}
	if err := b.cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	return b
}

// errNotAStep marks an operation the model accepted but that changed
// nothing: as in the spec ("a call that changes nothing is not a step"),
// it is no edge. explore treats it as refused, after checking (I4) that
// nothing changed.
var errNotAStep = errors.New("changes nothing")

// pgOp is an operation of the pod-groups alphabet: apply, then
// errNotAStep if the model's state is as it was.
func pgOp(action, desc string, step spec.StepRecord, apply func(n node) error) op {
	return op{action, desc, step, func(n node) error {
		before := n.m.Snapshot()
		held := n.heldCycle()
		if err := apply(n); err != nil {
			return err
		}
		after := n.m.Snapshot()
		if before.Diff(&after) == "" && n.heldCycle() == held {
			return errNotAStep
		}
		return nil
	}}
}

// entityPlace is where the entity of pod p waits, spec.Nowhere if it is
// not queued: the group's entity for a member, the pod for a pod outside
// groups.
func entityPlace(s *spec.Snapshot, p *spec.Pod) spec.Location {
	if p.Group == "" {
		loc, _ := s.Find(p.Key())
		if loc == spec.InFlight {
			return spec.Nowhere
		}
		return loc
	}
	if e, ok := s.PodGroups.Entity(p.GroupKey()); ok {
		return e.Place
	}
	return spec.Nowhere
}

// podGroupOps lists every operation of SchedulingQueuePodGroups.tla's Next
// in state n. Where the spec leaves an operation out, so does this: Add
// only of a pod the queue does not hold, no Pop while a group's cycle runs
// (one scheduling goroutine), Delete only of a pod held and not in flight,
// Activate only of an entity in backoffQ or unschedulablePods (an
// activation of a pod in flight is an event its failure would replay: the
// hints spec's business), and the wildcard move only while
// unschedulablePods holds an entity (there it is the pod outside groups,
// so no event is ever recorded after its marker). Update, Close, the
// leftover flush, UpdatePodGroup and the assigned-pod events are not in the
// spec's alphabet.
func podGroupOps(b *bound, n node, s *spec.Snapshot) []op {
	pg := b.podGroups.group
	var out []op
	for _, p := range b.pods {
		if !held(s, p.Key()) {
			out = append(out, pgOp(actAdd, "Add("+p.Name+")", spec.StepRecord{Rule: spec.R1Add, Pod: p.Key()},
				func(n node) error { return n.m.Add(p) }))
		}
	}
	if (n.heldCycle() == nil || b.podGroups.mutant == mutPopInCycle) && n.m.SchedulingCycle() < b.maxCycle {
		for _, k := range n.m.EntityCandidates() {
			step := spec.StepRecord{Rule: spec.R2Pop, Pod: spec.PodKey(k)}
			if gk, isGroup := strings.CutPrefix(string(k), "group:"); isGroup {
				step = spec.StepRecord{Rule: spec.G3PopGroup, Group: spec.PodGroupKey(gk)}
			}
			out = append(out, pgOp(actPop, "Pop("+string(k)+")", step, func(n node) error {
				ent, cycle, err := n.m.PopEntityKey(k)
				if err != nil {
					return err
				}
				if ent.Group != nil {
					n.group.held = &heldGroup{ent.Group, cycle}
					for _, m := range ent.Group.Members {
						n.cycles[b.podIndex(m.Key())] = cycle
					}
				} else {
					n.cycles[b.podIndex(ent.Pod.Key())] = cycle
				}
				return nil
			}))
		}
	}
	for i := range s.InFlight {
		info := s.InFlight[i]
		k := info.Key()
		idx := b.podIndex(k)
		cycle := n.cycles[idx]
		outcomes := []spec.PluginSet{spec.NewPluginSet(rejectedBy)} // "unschedulable"
		if info.Pod.Group == "" {
			outcomes = append(outcomes, nil) // "error"
		}
		for _, rej := range outcomes {
			out = append(out, pgOp(actPGFail, fmt.Sprintf("AddUnschedulablePodIfNotPresent(%s, rejectors %v)", k, []string(rej)),
				spec.StepRecord{Rule: spec.R3AddUnschedulable, Pod: k, PodSchedulingCycle: cycle},
				failStep(info, cycle, idx, func(pi *spec.QueuedPodInfo) { pi.UnschedulablePlugins = rej })))
		}
		out = append(out, pgOp(actDone, "Done("+string(k)+")", spec.StepRecord{Rule: spec.R12Done, Pod: k},
			doneStep(info.Pod.UID, idx)))
	}
	if h := n.heldCycle(); h != nil {
		for _, st := range []spec.AttemptStatus{spec.AttemptSuccess, spec.AttemptRejected, spec.AttemptError} {
			out = append(out, pgOp(actPGAttempted, fmt.Sprintf("AddAttemptedPodGroupIfNeeded(%s, %v)", h.info.Key(), st),
				spec.StepRecord{Rule: spec.G5GroupAttempt, Group: h.info.Key()},
				func(n node) error {
					info := h.info
					if b.podGroups.mutant == mutForgetCounts {
						forgot := *h.info
						forgot.UnschedulableCount, forgot.ConsecutiveErrorsCount = 0, 0
						info = &forgot
					}
					err := n.m.AddAttemptedPodGroupIfNeeded(info, h.cycle, st)
					if err == nil {
						n.group.held = nil
					}
					return err
				}))
		}
	}
	for _, p := range b.pods {
		if loc := entityPlace(s, p); loc == spec.InBackoffQ || loc == spec.InUnschedulablePods || b.podGroups.mutant == mutActivateInFlight {
			out = append(out, pgOp(actActivate, "Activate("+p.Name+")", spec.StepRecord{Rule: spec.R8Activate, Pod: p.Key()},
				func(n node) error { return n.m.Activate([]*spec.Pod{p}) }))
		}
		if loc, _ := s.Find(p.Key()); held(s, p.Key()) && loc != spec.InFlight {
			out = append(out, pgOp(actDelete, "Delete("+p.Name+")", spec.StepRecord{Rule: spec.R10Delete, Pod: p.Key()},
				func(n node) error { return n.m.Delete(p) }))
		}
	}
	gk := pg.Key()
	out = append(out,
		pgOp(actPGAdd, "AddPodGroup("+pg.Name+")", spec.StepRecord{Rule: spec.G11PodGroupObj, Group: gk},
			func(n node) error { return n.m.AddPodGroup(pg) }),
		pgOp(actPGDelete, "DeletePodGroup("+pg.Name+")", spec.StepRecord{Rule: spec.G11PodGroupObj, Group: gk},
			func(n node) error { return n.m.DeletePodGroup(pg) }))
	if len(s.UnschedulablePods) > 0 {
		out = append(out, pgOp(actMoveAll, "MoveAllToActiveOrBackoffQueue(*)", spec.StepRecord{Rule: spec.R4MoveAll},
			func(n node) error { n.m.MoveAllToActiveOrBackoffQueue(spec.WildCardEvent, nil); return nil }))
	}
	out = append(out, pgOp(actFlushBackoff, actFlushBackoff, spec.StepRecord{Rule: spec.R5FlushBackoffQ},
		func(n node) error { n.m.FlushBackoffQCompleted(); return nil }))
	return append(out, tickOp(b, n)...)
}

// held reports whether the queue holds pod k anywhere, pendingPodGroupPods
// and incompletePodGroupPods included.
func held(s *spec.Snapshot, k spec.PodKey) bool {
	if loc, _ := s.Find(k); loc != spec.Nowhere {
		return true
	}
	g := groupsStateOf(s)
	has := func(l []spec.QueuedPodInfo) bool {
		return slices.ContainsFunc(l, func(q spec.QueuedPodInfo) bool { return q.Key() == k })
	}
	return has(g.PendingPodGroupPods) || has(g.IncompletePodGroupPods)
}

// encodePodGroups appends the projection of a podgroups-profile state
// (the model's snapshot and the cycle the scheduler holds) in the
// canonical encoding of stategraph.GroupsState. It fails on anything the
// projection assumes away: a time off the tick grid, a pod outside the
// bound, a gated or flushed entity.
func encodePodGroups(buf []byte, b *bound, n node, s *spec.Snapshot) ([]byte, error) {
	var err error
	ticks := tickGrid(b.unit, &err)
	name := func(k spec.PodKey) string {
		if b.podIndex(k) < 0 && err == nil {
			err = fmt.Errorf("pod %s is not one of the bound", k)
		}
		return strings.TrimPrefix(string(k), "ns/")
	}
	groupName := func(k spec.PodGroupKey) string {
		if k != b.podGroups.group.Key() && err == nil {
			err = fmt.Errorf("pod group %s is not the bound's", k)
		}
		return strings.TrimPrefix(string(k), "ns/")
	}
	g := groupsStateOf(s)
	st := stategraph.GroupsState{Now: ticks("now", s.Now), SchedulingCycle: int(s.SchedulingCycle),
		Places: map[string]string{}, Entities: map[string]stategraph.EntityData{}}
	for _, pl := range s.Places() {
		for i := range pl.Pods {
			info := &pl.Pods[i]
			st.Places[name(info.Key())] = pl.Loc.String()
			if info.Pod.Group == "" {
				if info.Gated() || !info.FlushTimestamp.IsZero() {
					err = errors.Join(err, fmt.Errorf("pod %s is gated or flushed", info.Key()))
				}
				st.Entities[name(info.Key())] = stategraph.EntityData{Timestamp: ticks("Timestamp", info.Timestamp),
					UnschedulableCount: info.UnschedulableCount, ConsecutiveErrorsCount: info.ConsecutiveErrorsCount,
					BackoffExpiry: ticks("backoff expiry", b.cfg.BackoffExpiry(info))}
			}
		}
	}
	for _, l := range []struct {
		loc  string
		pods []spec.QueuedPodInfo
	}{{stategraph.PendingPodGroupPods, g.PendingPodGroupPods}, {stategraph.IncompletePodGroupPods, g.IncompletePodGroupPods}} {
		for i := range l.pods {
			st.Places[name(l.pods[i].Key())] = l.loc
		}
	}
	for _, e := range g.Entities {
		if e.Gated() || !e.FlushTimestamp.IsZero() {
			err = errors.Join(err, fmt.Errorf("entity of %s is gated or flushed", e.Group))
		}
		st.Entities[groupName(e.Group)] = stategraph.EntityData{Timestamp: ticks("Timestamp", e.Timestamp),
			UnschedulableCount: e.UnschedulableCount, ConsecutiveErrorsCount: e.ConsecutiveErrorsCount,
			BackoffExpiry: ticks("BackoffExpiry", e.BackoffExpiry)}
	}
	for _, o := range g.PodGroups {
		st.PodGroups = append(st.PodGroups, groupName(o.Key()))
	}
	for _, k := range g.InCycle {
		st.InCycle = append(st.InCycle, groupName(k))
	}
	if h := n.heldCycle(); h != nil {
		c := &stategraph.GroupCycle{Group: groupName(h.info.Key()), Timestamp: ticks("Timestamp", h.info.Timestamp),
			UnschedulableCount: h.info.UnschedulableCount, ConsecutiveErrorsCount: h.info.ConsecutiveErrorsCount}
		for _, m := range h.info.Members {
			c.Popped = append(c.Popped, name(m.Key()))
		}
		slices.Sort(c.Popped)
		st.Cycle = c
	}
	if err != nil {
		return nil, err
	}
	return append(buf, st.String()...), nil
}

// groupsStateOf returns the snapshot's pod-group state, empty if it has
// none.
func groupsStateOf(s *spec.Snapshot) *spec.PodGroupsState {
	if s.PodGroups == nil {
		return &spec.PodGroupsState{}
	}
	return s.PodGroups
}

// The broken variants of the Go side, each of which the agreement must
// catch.
const (
	// mutPopInCycle pops while a group's cycle runs: steps the spec's one
	// scheduling goroutine does not take.
	mutPopInCycle = "PopInCycle"
	// mutActivateInFlight activates pods in flight too: a change only the
	// dropped in-flight list sees (a step the projection must not hide),
	// and a replay on the failure of the pod outside groups.
	mutActivateInFlight = "ActivateInFlight"
	// mutForgetCounts hands the group back with its counts zero, as a
	// queue that kept no counts across cycles would: a second rejection
	// backs off as the first.
	mutForgetCounts = "ForgetCounts"
)

// TestPodGroupsAgreementCatchesMutants shows that the pod-groups agreement
// can fail: each broken variant of the Go side disagrees with TLC's graph.
// To stay cheap it explores the bound with the clock stopped, whose graph
// is TLC's cut to the states with now = 0 (MaxTime guards only Tick).
func TestPodGroupsAgreementCatchesMutants(t *testing.T) {
	want, err := stategraph.ReadFile("testdata/GraphPodGroups.txt.gz")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range want.Edges {
		if e.From == e.To {
			t.Fatalf("TLC's graph has a step from a state to itself (%s): a change the projection drops could hide behind it\n    %s", e.Action, want.States[e.From])
		}
	}
	const maxTime = 0
	want = cutToTime(t, want, maxTime)
	for _, mutant := range []string{"", mutPopInCycle, mutActivateInFlight, mutForgetCounts} {
		name := mutant
		if name == "" {
			name = "control"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := readBound(t, "GraphPodGroups.cfg", "MCSchedulingQueuePodGroups")
			b.maxTime = min(b.maxTime, maxTime)
			b.podGroups.mutant = mutant
			got := explore(t, &b).graph
			d := stategraph.Diff(got, want, "the Go side", "TLC", 2)
			switch {
			case mutant == "" && d != "":
				t.Errorf("the control disagrees with TLC's graph cut to now <= %d:\n%s", maxTime, d)
			case mutant != "" && d == "":
				t.Errorf("mutant %s agrees with TLC: the agreement cannot catch it", mutant)
			case mutant != "":
				t.Logf("caught:\n%s", d)
			}
		})
	}
}

// cutToTime returns g's subgraph of the states whose clock is at most
// maxTime, and the steps between them.
func cutToTime(t *testing.T, g *stategraph.Graph, maxTime int) *stategraph.Graph {
	t.Helper()
	b := stategraph.NewBuilder()
	keep := make([]bool, len(g.States))
	for i, st := range g.States {
		var now int
		if _, err := fmt.Sscanf(st, "now=%d ", &now); err != nil {
			t.Fatalf("state %q: %v", st, err)
		}
		keep[i] = now <= maxTime
	}
	b.SetInitial(g.States[g.Initial])
	for _, e := range g.Edges {
		if keep[e.From] && keep[e.To] {
			from, _ := b.State(g.States[e.From])
			to, _ := b.State(g.States[e.To])
			b.Edge(from, e.Action, to)
		}
	}
	for i, st := range g.States {
		if keep[i] {
			b.State(st)
		}
	}
	return b.Graph()
}
