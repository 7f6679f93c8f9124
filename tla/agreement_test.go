package tla_test

// The bridge between the TLA+ specs and model/: for the bound of each
// agreement configuration (Graph.cfg, GraphPriority.cfg of
// SchedulingQueue.tla; GraphHints.cfg of SchedulingQueueHints.tla, the
// hints profile), explore every state the Go model can reach, breadth
// first, with the action alphabet of the spec's Next; check the invariants
// of spec/ on every state and step; and compare the graph (states and
// labelled steps, in the canonical encoding of internal/stategraph) with
// the one TLC produced from the spec, committed as testdata/<cfg>.txt.gz
// (testdata/Graph.txt.gz, testdata/GraphPriority.txt.gz,
// testdata/GraphHints.txt.gz). TLC is not needed here; `make tla-graph`
// regenerates the committed graphs, and the test refuses a graph whose TLA+
// sources have changed since. The hints profile's alphabet and encoding
// are in agreement_hints_test.go.

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/schedq/schedq/model"
	"github.com/schedq/schedq/spec"
	"github.com/schedq/schedq/tla/internal/stategraph"
)

// The agreement configurations and the model-checking module each belongs
// to; each has its TLC graph in testdata/<name>.txt.gz.
//
// The two Ext graphs (the whole alphabet: Close, Update, assigned pods, the
// nominator) are the largest, 45 s and 27 s of one core, about as much as
// the others together. With -short, make test's setting for this package,
// they are skipped and say so: make test's generated run still plays
// GraphExt's steps on model and impl, and make verify's tla step checks
// both against TLC.
var graphConfigs = []struct {
	cfg, module string
	large       bool
}{
	{"Graph.cfg", "MCSchedulingQueue", false},
	{"GraphPriority.cfg", "MCSchedulingQueue", false},
	{"GraphExt.cfg", "MCSchedulingQueue", true},
	{"GraphHints.cfg", "MCSchedulingQueueHints", false},
	{"GraphHintsTime.cfg", "MCSchedulingQueueHints", false},
	{"GraphHintsExt.cfg", "MCSchedulingQueueHints", true},
	{"GraphHintsPreQueue.cfg", "MCSchedulingQueueHints", false},
	{"GraphPodGroups.cfg", "MCSchedulingQueuePodGroups", false},
}

// One tick of the classic spec is one second of the Go model's clock, from
// t0; the hints spec's tick is a fraction of it (bound.unit). t0 is a whole
// second, so that the hints profile's ordering windows start at whole ticks.
const unit = time.Second

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// The action names of SchedulingQueue.tla's Next, which TLC uses as edge
// labels.
const (
	actAdd          = "Add"
	actPop          = "Pop"
	actFail         = "AddUnschedulableIfNotPresent"
	actDone         = "Done"
	actDelete       = "Delete"
	actActivate     = "Activate"
	actMoveAll      = "MoveAllToActiveOrBackoffQueue"
	actFlushBackoff = "FlushBackoffQCompleted"
	actFlushUnsched = "FlushUnschedulablePodsLeftover"
	actTick         = "Tick"
	actClose        = "Close"
	actUpdate       = "Update"
)

// bound is Graph.cfg (or GraphHints.cfg) in Go terms.
type bound struct {
	pods         []*spec.Pod
	cfg          spec.Config
	events       []spec.ClusterEvent // Events of the spec, then the wildcard
	rejectorSets []spec.PluginSet
	maxTime      int
	maxCycle     int64
	unit         time.Duration // one tick
	extensions   []string      // Extensions of the spec: optional operations in Next

	// The hints profile (hints is set for SchedulingQueueHints.tla).
	hints      bool
	failures   []failure // Failures of the spec
	maxRecords int       // MaxRecords of the spec
	nodes      []string  // Nodes of the spec, sorted

	// The pod-groups profile (SchedulingQueuePodGroups.tla), if set.
	podGroups *podGroupsBound

	recorder *edgeRecorder // if set, explore records the operation of every step (edges_test.go)
}

// The cluster events E1 and E2 of the spec. P1 registers E1 (MCSchedulingQueue's
// Registration); no plugin registers E2.
var clusterEvents = map[string]spec.ClusterEvent{
	"E1": {Resource: spec.ResourceNode, ActionType: spec.Add, Label: "E1"},
	"E2": {Resource: spec.ResourcePersistentVolume, ActionType: spec.Add, Label: "E2"},
}

// cfgValues is the CONSTANTS section of a .cfg file: name -> value, for
// both "Name = value" and "Name <- operator".
type cfgValues struct {
	t    *testing.T
	path string
	vals map[string]string
}

func readCfg(t *testing.T, path string) cfgValues {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	assign := regexp.MustCompile(`^\s*(\w+)\s*(=|<-)\s*(.+?)\s*$`)
	vals := make(map[string]string)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), `\*`)
		if m := assign.FindStringSubmatch(line); m != nil {
			vals[m[1]] = m[3]
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cfgValues{t, path, vals}
}

func (c cfgValues) need(name string) string {
	c.t.Helper()
	v, ok := c.vals[name]
	if !ok {
		c.t.Fatalf("%s: no value for %s", c.path, name)
	}
	return v
}

func (c cfgValues) num(name string) int {
	c.t.Helper()
	n, err := strconv.Atoi(c.need(name))
	if err != nil {
		c.t.Fatalf("%s: %s = %s: %v", c.path, name, c.vals[name], err)
	}
	return n
}

func (c cfgValues) strs(name string) []string {
	c.t.Helper()
	v := strings.Trim(c.need(name), "{}")
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.Trim(strings.TrimSpace(s), `"`); s != "" {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}

// extensions reads Extensions, the optional operations of the alphabet,
// and checks that Mutation is "none": a negative configuration is no
// reference for the model.
func (c cfgValues) extensions(known ...string) []string {
	c.t.Helper()
	if m := c.need("Mutation"); m != `"none"` {
		c.t.Fatalf("%s: the agreement bound needs Mutation = \"none\", not %s", c.path, m)
	}
	ext := c.strs("Extensions")
	for _, e := range ext {
		if !slices.Contains(known, e) {
			c.t.Fatalf("%s: extension %s is not known to the Go side", c.path, e)
		}
	}
	return ext
}

func (b *bound) has(ext string) bool { return slices.Contains(b.extensions, ext) }

// podsOf builds the pods of the bound with the priorities the Priority
// operator of the MC module gives them.
func (c cfgValues) podsOf() []*spec.Pod {
	c.t.Helper()
	var pods []*spec.Pod
	for _, name := range c.strs("Pods") {
		var prio int32
		switch c.need("Priority") {
		case "EqualPriority":
		case "DistinctPriority":
			prio = map[string]int32{"a": 2, "b": 1}[name] // as in the MC modules
		default:
			c.t.Fatalf("%s: Priority <- %s is not known to the Go side", c.path, c.vals["Priority"])
		}
		pods = append(pods, &spec.Pod{Namespace: "ns", Name: name, UID: spec.UID("uid-" + name), Priority: prio})
	}
	return pods
}

// readBound reads the constants of Graph.cfg. The operators it substitutes
// (Priority <- ..., Registered <- ..., RejectorSets <- ...) are those of
// MCSchedulingQueue.tla, mirrored here by name. GraphHints.cfg is read by
// readHintsBound.
func readBound(t *testing.T, path, module string) bound {
	t.Helper()
	switch module {
	case "MCSchedulingQueueHints":
		return readHintsBound(t, path)
	case "MCSchedulingQueuePodGroups":
		return readPodGroupsBound(t, path)
	}
	c := readCfg(t, path)
	need, num, strs := c.need, c.num, c.strs
	b := bound{maxTime: num("MaxTime"), maxCycle: int64(num("MaxCycle")), unit: unit}
	if need("Shortcut") != "TRUE" || need("Wildcard") != `"*"` {
		t.Fatalf("%s: the agreement bound needs Shortcut = TRUE and Wildcard = \"*\"", path)
	}
	b.pods = c.podsOf()
	b.extensions = c.extensions(actClose, actUpdate)
	if need("Registered") != "Registration" {
		t.Fatalf("%s: Registered <- %s is not known to the Go side", path, need("Registered"))
	}
	plugins := strs("Plugins")
	registry := spec.PluginEvents{}
	for _, pl := range plugins {
		registry[pl] = nil
		if pl == "P1" {
			registry[pl] = []spec.ClusterEvent{clusterEvents["E1"]}
		}
	}
	for _, e := range strs("Events") {
		ev, ok := clusterEvents[e]
		if !ok {
			t.Fatalf("%s: event %s is not known to the Go side", path, e)
		}
		b.events = append(b.events, ev)
	}
	b.events = append(b.events, spec.WildCardEvent)
	switch need("RejectorSets") {
	case "AllRejectorSets": // SUBSET Plugins
		for mask := 0; mask < 1<<len(plugins); mask++ {
			var set []string
			for i, pl := range plugins {
				if mask&(1<<i) != 0 {
					set = append(set, pl)
				}
			}
			b.rejectorSets = append(b.rejectorSets, spec.NewPluginSet(set...))
		}
	case "SingleRejectorSets": // {{}} \cup {{pl} : pl \in Plugins}
		b.rejectorSets = append(b.rejectorSets, nil)
		for _, pl := range plugins {
			b.rejectorSets = append(b.rejectorSets, spec.NewPluginSet(pl))
		}
	default:
		t.Fatalf("%s: RejectorSets <- %s is not known to the Go side", path, need("RejectorSets"))
	}
	d := func(name string) time.Duration { return time.Duration(num(name)) * unit }
	b.cfg = spec.Config{
		PodInitialBackoffDuration:         d("InitialBackoff"),
		PodMaxBackoffDuration:             d("MaxBackoff"),
		PodMaxInUnschedulablePodsDuration: d("MaxInUnschedulable"),
		// The model has no flush loops: both flushes are actions of the
		// alphabet, as in Next. The periods only need to be valid.
		BackoffQFlushPeriod:          unit,
		UnschedulablePodsFlushPeriod: unit,
		PluginEvents:                 registry,
	}
	if err := b.cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	return b
}

// node is a state of the exploration: the model, and what the scheduler
// holds besides it, the cycle Pop returned for each pod in flight (indexed
// like bound.pods) and, in the pod-groups profile, the group whose cycle
// it runs.
type node struct {
	m      *model.Model
	cycles []int64
	group  *groupSlot // nil in the initial state
}

func (n node) clone() node {
	g := new(groupSlot)
	if n.group != nil {
		*g = *n.group
	}
	return node{m: n.m.Clone(), cycles: slices.Clone(n.cycles), group: g}
}

// podIndex is the index of a pod of the bound, by key.
func (b *bound) podIndex(k spec.PodKey) int {
	for i, p := range b.pods {
		if p.Key() == k {
			return i
		}
	}
	return -1
}

// encode appends the canonical encoding of a node to buf; it fails on
// anything the spec cannot express (a time off the tick grid, a pod
// outside the bound).
func encode(buf []byte, b *bound, n node, s *spec.Snapshot) ([]byte, error) {
	if b.hints {
		return encodeHints(buf, b, n, s)
	}
	if b.podGroups != nil {
		return encodePodGroups(buf, b, n, s)
	}
	var err error
	ticks := func(what string, at time.Time) int {
		d := at.Sub(t0)
		if (d < 0 || d%unit != 0) && err == nil {
			err = fmt.Errorf("%s %v is not on the tick grid", what, at)
		}
		return int(d / unit)
	}
	pods := make([]stategraph.NamedPod, len(b.pods))
	for i, p := range b.pods {
		pods[i] = stategraph.NamedPod{Key: p.Name, Pod: stategraph.Pod{Loc: stategraph.None}}
	}
	for _, pl := range s.Places() {
		for j := range pl.Pods {
			info := &pl.Pods[j]
			i := b.podIndex(info.Key())
			if i < 0 {
				return nil, fmt.Errorf("pod %s is not one of the bound", info.Key())
			}
			ps := stategraph.Pod{Loc: pl.Loc.String(), Attempts: info.Attempts, Plugins: []string(info.UnschedulablePlugins),
				Timestamp: ticks("Timestamp", info.Timestamp), InitialAttempt: stategraph.NoTime}
			if !info.InitialAttemptTimestamp.IsZero() {
				ps.InitialAttempt = ticks("InitialAttemptTimestamp", info.InitialAttemptTimestamp)
			}
			if pl.Loc == spec.InFlight {
				if n.cycles[i] == 0 {
					return nil, fmt.Errorf("pod %s is in flight but the scheduler holds no cycle for it", info.Key())
				}
				ps.SchedulingCycle = int(n.cycles[i])
			} else if n.cycles[i] != 0 {
				return nil, fmt.Errorf("pod %s is in %s but the scheduler holds cycle %d for it", info.Key(), pl.Loc, n.cycles[i])
			}
			pods[i].Pod = ps
		}
	}
	now := ticks("now", s.Now)
	if err != nil {
		return nil, err
	}
	return stategraph.AppendEncoding(buf, now, int(s.SchedulingCycle), int(s.MoveRequestCycle), s.Closed, pods), nil
}

// op is one operation of the alphabet, applied to a clone.
type op struct {
	action string
	desc   string // with arguments, for traces
	step   spec.StepRecord
	apply  func(n node) error
}

// addAndPopOps lists the Adds of every pod and, below the bound's cycle,
// the Pop of every pod Pop may return in state n: the same actions in the
// classic and hints modules. The cycle a Pop returns is kept beside the
// model and handed back.
func addAndPopOps(b *bound, n node) []op {
	var out []op
	for _, p := range b.pods {
		out = append(out, op{actAdd, "Add(" + p.Name + ")", spec.StepRecord{Rule: spec.R1Add, Pod: p.Key()},
			func(n node) error { return n.m.Add(p) }})
	}
	if n.m.SchedulingCycle() < b.maxCycle {
		for _, k := range n.m.PopCandidates() {
			out = append(out, op{actPop, "Pop(" + string(k) + ")", spec.StepRecord{Rule: spec.R2Pop, Pod: k},
				func(n node) error {
					_, cycle, err := n.m.PopPod(k)
					if err == nil {
						n.cycles[b.podIndex(k)] = cycle
					}
					return err
				}})
		}
	}
	return out
}

// ops lists every operation of the alphabet in state n, like the
// disjuncts of Next instantiated with every argument.
func ops(b *bound, n node, s *spec.Snapshot) []op {
	if b.hints {
		return hintsOps(b, n, s)
	}
	if b.podGroups != nil {
		return podGroupOps(b, n, s)
	}
	out := addAndPopOps(b, n)
	for i := range s.InFlight {
		info := s.InFlight[i]
		k := info.Key()
		idx := b.podIndex(k)
		cycle := n.cycles[idx]
		for _, rej := range b.rejectorSets {
			out = append(out, op{actFail, fmt.Sprintf("AddUnschedulableIfNotPresent(%s, cycle %d, rejectors %v)", k, cycle, []string(rej)),
				spec.StepRecord{Rule: spec.R3AddUnschedulable, Pod: k, PodSchedulingCycle: cycle},
				failStep(info, cycle, idx, func(pi *spec.QueuedPodInfo) { pi.UnschedulablePlugins = rej })})
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
	}
	for _, e := range b.events {
		out = append(out, op{actMoveAll, "MoveAllToActiveOrBackoffQueue(" + e.EventLabel() + ")", spec.StepRecord{Rule: spec.R4MoveAll},
			func(n node) error { n.m.MoveAllToActiveOrBackoffQueue(e, nil); return nil }})
	}
	out = append(out,
		op{actFlushBackoff, actFlushBackoff, spec.StepRecord{Rule: spec.R5FlushBackoffQ},
			func(n node) error { n.m.FlushBackoffQCompleted(); return nil }},
		op{actFlushUnsched, actFlushUnsched, spec.StepRecord{Rule: spec.R6FlushUnschedulable},
			func(n node) error { n.m.FlushUnschedulablePodsLeftover(); return nil }})
	out = append(out, closeOp(b)...)
	if b.has(actUpdate) {
		for i, p := range b.pods {
			old := p
			if _, held := s.Find(p.Key()); held.Pod != nil {
				old = held.Pod
			}
			for _, kind := range updateKinds {
				upd := kind.apply(old)
				out = append(out, op{actUpdate, fmt.Sprintf("Update(%s, %s)", p.Name, kind.name), spec.StepRecord{Rule: spec.R9Update, Pod: p.Key()},
					func(n node) error {
						err := n.m.Update(old, upd)
						if err == nil && n.m.Where(p.Key()) != spec.InFlight {
							n.cycles[i] = 0 // a new UID ended the attempt in flight
						}
						return err
					}})
			}
		}
	}
	return append(out, tickOp(b, n)...)
}

// closeOp is Close (R13), if the bound has it; it is always enabled.
func closeOp(b *bound) []op {
	if !b.has(actClose) {
		return nil
	}
	return []op{{actClose, actClose, spec.StepRecord{Rule: spec.R13Close},
		func(n node) error { n.m.Close(); return nil }}}
}

// updateKinds are the UpdateKinds of SchedulingQueue.tla: how the new
// object of an Update differs from the one the queue holds. Each flips a
// field, so that repeated updates stay within two objects per kind.
var updateKinds = []struct {
	name  string
	apply func(*spec.Pod) *spec.Pod
}{
	{"status", func(p *spec.Pod) *spec.Pod { // spec.IsPodUpdated is false
		q := *p
		q.ResourceVersion = flip(p.ResourceVersion, "2")
		q.Status = flip(p.Status, "Pending")
		return &q
	}},
	{"spec", func(p *spec.Pod) *spec.Pod { // a label: spec.IsPodUpdated is true
		q := *p
		q.Labels = nil
		if p.Labels["version"] == "" {
			q.Labels = map[string]string{"version": "2"}
		}
		return &q
	}},
	{"uid", func(p *spec.Pod) *spec.Pod { // deleted and created again under the key
		q := *p
		q.UID = p.UID + "-2"
		if base, ok := strings.CutSuffix(string(p.UID), "-2"); ok {
			q.UID = spec.UID(base)
		}
		return &q
	}},
}

// flip returns "" for v, and v for "".
func flip(s, v string) string {
	if s == "" {
		return v
	}
	return ""
}

// tickOp is Tick while the clock is short of MaxTime.
func tickOp(b *bound, n node) []op {
	if !n.m.Now().Before(t0.Add(time.Duration(b.maxTime) * b.unit)) {
		return nil
	}
	return []op{{actTick, actTick, spec.StepRecord{Rule: spec.RTick},
		func(n node) error { return n.m.Step(b.unit) }}}
}

// exploration is the Go model's reachable graph with a way back to the
// initial state from every state, for traces.
type exploration struct {
	builder *stategraph.Builder
	graph   *stategraph.Graph
	parent  []int    // provisional index -> predecessor on a shortest path, -1 for the initial state
	via     []string // provisional index -> the operation from its parent
	tried   int      // operations applied, refused ones included
}

// explore runs the breadth-first exploration and checks I1..I6 of spec/ on
// every state and on every step, refused operations included (which must
// change nothing).
func explore(t *testing.T, b *bound) *exploration {
	t.Helper()
	m, err := model.New(b.cfg, t0)
	if err != nil {
		t.Fatal(err)
	}
	start := node{m: m, cycles: make([]int64, len(b.pods))}
	s0 := m.Snapshot()
	if err := spec.CheckState(&s0); err != nil {
		t.Fatalf("initial state: %v", err)
	}
	enc0, err := encode(nil, b, start, &s0)
	if err != nil {
		t.Fatal(err)
	}
	x := &exploration{builder: stategraph.NewBuilder(), parent: []int{-1}, via: []string{""}}
	x.builder.SetInitial(string(enc0))
	type item struct {
		n  node
		id int
	}
	queue := []item{{start, 0}}
	var failures []string
	var buf []byte
	for len(queue) > 0 && len(failures) < 5 {
		cur := queue[0]
		queue[0] = item{}
		queue = queue[1:]
		before := cur.n.m.Snapshot()
		for _, o := range ops(b, cur.n, &before) {
			next := cur.n.clone()
			err := o.apply(next)
			x.tried++
			after := next.m.Snapshot()
			step := o.step
			step.Err = err
			if cerr := spec.CheckStep(b.cfg, &before, &after, step); cerr != nil {
				failures = append(failures, fmt.Sprintf("%s breaks an invariant: %v\ntrace:\n%s", o.desc, cerr, x.trace(cur.id)))
				continue
			}
			if err != nil {
				// Refused, and (as I4 checked) nothing changed: the
				// spec's action is not enabled here.
				continue
			}
			if b.hints && numRecords(&after) > b.maxRecords {
				// The hints spec's bound on the in-flight list: the
				// event does not happen (CanRecord).
				continue
			}
			if buf, err = encode(buf[:0], b, next, &after); err != nil {
				failures = append(failures, fmt.Sprintf("%s: %v\ntrace:\n%s", o.desc, err, x.trace(cur.id)))
				continue
			}
			id, isNew := x.builder.StateBytes(buf)
			x.builder.Edge(cur.id, o.action, id)
			if b.recorder != nil {
				if isNew {
					b.recorder.state(o)
				}
				b.recorder.edge(cur.id, o, id)
			}
			if isNew {
				x.parent = append(x.parent, cur.id)
				x.via = append(x.via, o.desc)
				queue = append(queue, item{next, id})
			}
		}
	}
	if len(failures) > 0 {
		t.Fatalf("the Go model breaks the invariants of spec/:\n%s", strings.Join(failures, "\n\n"))
	}
	x.graph = x.builder.Graph()
	return x
}

// trace renders the operations from the initial state to the state with
// this provisional index.
func (x *exploration) trace(id int) string {
	var lines []string
	for ; id >= 0; id = x.parent[id] {
		lines = append(lines, "    "+x.builder.Encoding(id))
		if x.parent[id] >= 0 {
			lines = append(lines, "  "+x.via[id])
		}
	}
	slices.Reverse(lines)
	return strings.Join(lines, "\n")
}

func TestAgreementWithTLC(t *testing.T) {
	for _, gc := range graphConfigs {
		t.Run(strings.TrimSuffix(gc.cfg, ".cfg"), func(t *testing.T) {
			if gc.large && testing.Short() {
				t.Skipf("-short: %s is one of the two largest graphs; make verify's tla step checks it", gc.cfg)
			}
			t.Parallel()
			checkAgreement(t, gc.cfg, gc.module)
		})
	}
}

func checkAgreement(t *testing.T, cfg, module string) {
	start := time.Now()
	b := readBound(t, cfg, module)
	x := explore(t, &b)
	g := x.graph
	t.Logf("Go model: %d states, %d edges (%d operations tried) in %v; per action %v",
		len(g.States), len(g.Edges), x.tried, time.Since(start).Round(time.Millisecond), g.ActionCounts())

	graphFile := filepath.Join("testdata", strings.TrimSuffix(cfg, ".cfg")+".txt.gz")
	want, err := stategraph.ReadFile(graphFile)
	if errors.Is(err, os.ErrNotExist) {
		t.Fatalf("%s is missing: run `make tla-graph` (needs TLC) and commit it", graphFile)
	}
	if err != nil {
		t.Fatalf("%s: %v", graphFile, err)
	}
	hash, err := stategraph.SourceHash(".", module, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if want.SourceHash != hash {
		t.Fatalf("%s is stale: it came from TLA+ sources with sha256 %s, but %v now hash to %s; run `make tla-graph` and commit the result",
			graphFile, want.SourceHash, stategraph.SourceFiles(module, cfg), hash)
	}
	t.Logf("TLC (%s): %d states, %d edges", graphFile, len(want.States), len(want.Edges))
	if d := stategraph.Diff(g, want, "the Go model", "TLC", 5); d != "" {
		t.Errorf("the Go model and %s disagree for the bound of %s:\n%s", strings.TrimPrefix(module, "MC")+".tla", cfg, d)
		x.explainDiff(t, want)
	}
}

// explainDiff prints, for the first state or step only the Go model has, the
// operations that lead to it.
func (x *exploration) explainDiff(t *testing.T, tlc *stategraph.Graph) {
	inTLC := make(map[string]bool, len(tlc.States))
	for _, s := range tlc.States {
		inTLC[s] = true
	}
	for id := 0; id < x.builder.Len(); id++ {
		if !inTLC[x.builder.Encoding(id)] {
			t.Errorf("a shortest Go trace to the first state TLC does not have:\n%s", x.trace(id))
			return
		}
	}
	tlcEdges := make(map[string]bool, len(tlc.Edges))
	for _, e := range tlc.Edges {
		tlcEdges[tlc.States[e.From]+" "+e.Action+" "+tlc.States[e.To]] = true
	}
	for _, e := range x.graph.Edges {
		from, to := x.graph.States[e.From], x.graph.States[e.To]
		if !tlcEdges[from+" "+e.Action+" "+to] {
			id, _ := x.builder.State(from)
			t.Errorf("a shortest Go trace to the first step TLC does not have:\n%s\n  %s\n    %s", x.trace(id), e.Action, to)
			return
		}
	}
}

// failStep hands back the QueuedPodInfo Pop returned, as the scheduler
// does, with the failure's plugins set by reject, in cycle; success ends
// the scheduler's hold of the pod (its cycle slot idx).
func failStep(info spec.QueuedPodInfo, cycle int64, idx int, reject func(*spec.QueuedPodInfo)) func(node) error {
	return func(n node) error {
		pi := info
		reject(&pi)
		err := n.m.AddUnschedulableIfNotPresent(&pi, cycle)
		if err == nil {
			n.cycles[idx] = 0
		}
		return err
	}
}

// doneStep is Done of the pod in flight with uid, held in cycle slot idx.
func doneStep(uid spec.UID, idx int) func(node) error {
	return func(n node) error {
		err := n.m.Done(uid)
		if err == nil {
			n.cycles[idx] = 0
		}
		return err
	}
}

// tickGrid converts a time to ticks of unit since t0 for an encoding: the
// zero time is stategraph.NoTime, and a time off the grid sets *err (the
// first such) since the spec's states cannot hold it.
func tickGrid(unit time.Duration, err *error) func(what string, at time.Time) int {
	return func(what string, at time.Time) int {
		if at.IsZero() {
			return stategraph.NoTime
		}
		d := at.Sub(t0)
		if (d < 0 || d%unit != 0) && *err == nil {
			*err = fmt.Errorf("%s %v is not on the tick grid", what, at)
		}
		return int(d / unit)
	}
}
