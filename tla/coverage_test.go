package tla_test

// Coverage (issue 24): the share of the TLA+ graphs' steps, and of the
// contract's rules, that each source of tests exercises: (a) the
// hand-written scenarios of conformance/testdata/scenarios, (b) the
// model-differential random runs at CI size (conformance.RunDifferential
// and RunHintsDifferential, DefaultChecks sequences each, on a recording
// model), (c) the generated set (edges_test.go). make verify runs it and
// prints the tables; docs/coverage.md keeps the last ones.
//
//	go test ./tla/ -run TestCoverage -coverage -v
//
// A step of a graph counts for a source when one of its operations leaves
// a state of the bound for a state of the bound and the graph has that
// step. The hand-written and random hints
// scenarios run with the standard hint set (schedqtest.HintsConfig), whose
// plugins are not the hints bounds', so none of their states is one of a
// hints bound: their edge share of the hints graphs is not measured. A
// rule counts for a source when one of its operations performs it and
// changes the state (ruleHits); R14 (metrics) is not measured here: the
// conformance driver compares the metrics on every scenario on the targets
// that report them.

import (
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/schedq/schedq/conformance"
	"github.com/schedq/schedq/model"
	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

var (
	coverageRun    = flag.Bool("coverage", false, "run TestCoverage: explore the whole graphs and measure every source (about a minute of CPU)")
	coverageSample = flag.Int("coverage.sample", 1000, "generated scenarios replayed per graph for the rules of the generated set")
)

// coveredStep is one operation a source performed, on the model.
type coveredStep struct {
	profile       spec.Profile
	kind          schedqtest.Kind
	objects       bool // an event with caller objects (R19)
	err           error
	before, after spec.Snapshot
	// cycles of the pods in flight before and after, by key (classic
	// encoding).
	cyclesBefore, cyclesAfter map[spec.PodKey]int64
}

// ruleID is a rule's id as the tables write it: "R3", "R3h".
func ruleID(r spec.Rule) string { return strings.Fields(string(r))[0] }

// ruleHits are the rules an operation performed: its own rule when it
// succeeded and changed the state (a refused operation, or one that
// changed nothing, exercised the rule's guard at most), R7 when a pod
// entered backoffQ, R17 when a pod's gating plugin changed, R18 for a
// nomination, R19 for a move with caller objects, and in the hints profile
// R15 when the in-flight list gained a record and R16 when a hint sent a
// parked pod on (a move, an assigned-pod event or an update requeueing a
// pod from unschedulablePods, or a failure with rejectors requeued at
// once by what it replayed).
func ruleHits(s coveredStep) []string {
	if s.err != nil {
		return nil
	}
	p := s.profile
	var out []string
	changed := s.before.Diff(&s.after) != ""
	switch s.kind {
	case schedqtest.KindTick, schedqtest.KindNominated:
	case schedqtest.KindNominate:
		out = append(out, ruleID(spec.R18Nominator))
	default:
		if changed || s.kind == schedqtest.KindPop {
			out = append(out, ruleID(p.Rule(s.kind.Rule())))
		}
	}
	if s.objects && changed {
		out = append(out, ruleID(spec.R19Objects))
	}
	before := map[spec.PodKey]spec.Location{}
	gating := map[spec.PodKey]string{}
	for _, pl := range s.before.Places() {
		for _, q := range pl.Pods {
			before[q.Key()], gating[q.Key()] = pl.Loc, q.GatingPlugin
		}
	}
	for _, pl := range s.after.Places() {
		for _, q := range pl.Pods {
			was, held := before[q.Key()]
			if pl.Loc == spec.InBackoffQ && (!held || was != spec.InBackoffQ) {
				out = append(out, ruleID(p.Rule(spec.R7Backoff)))
			}
			if held && gating[q.Key()] != q.GatingPlugin || !held && q.GatingPlugin != "" {
				out = append(out, ruleID(spec.R17PreEnqueue))
			}
			if p != spec.ProfileHints || pl.Loc == spec.InUnschedulablePods || pl.Loc == spec.InFlight {
				continue
			}
			switch s.kind {
			case schedqtest.KindMove, schedqtest.KindAssignedAdd, schedqtest.KindAssignedUpdate, schedqtest.KindUpdate:
				if held && was == spec.InUnschedulablePods {
					out = append(out, ruleID(spec.R16QueueingHints))
				}
			case schedqtest.KindFail:
				if held && was == spec.InFlight && len(q.UnschedulablePlugins)+len(q.PendingPlugins) > 0 {
					out = append(out, ruleID(spec.R16QueueingHints))
				}
			}
		}
	}
	if p == spec.ProfileHints && countRecords(&s.after) > countRecords(&s.before) {
		out = append(out, ruleID(spec.R15InFlight))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func countRecords(s *spec.Snapshot) int { return numRecords(s) }

// replaySteps plays a scenario's operations on the model and returns each
// one as a coveredStep; it stops at a scenario mistake.
func replaySteps(sc schedqtest.Scenario) []coveredStep {
	r, err := schedqtest.NewModelRun(sc.Config.Build(), t0)
	if err != nil {
		return nil
	}
	var out []coveredStep
	cycles := func() map[spec.PodKey]int64 {
		m := map[spec.PodKey]int64{}
		s := r.Model.Snapshot()
		for _, q := range s.InFlight {
			if p, ok := r.Exec.Popped(q.Key()); ok {
				m[q.Key()] = p.Cycle
			}
		}
		return m
	}
	for _, o := range sc.Ops {
		st := coveredStep{profile: sc.Config.Profile, kind: o.Kind, objects: o.NeedsObjectQueue(),
			before: r.Model.Snapshot(), cyclesBefore: cycles()}
		out1, _, err := r.Apply(o)
		if err != nil {
			break
		}
		st.err, st.after, st.cyclesAfter = out1.Step.Err, r.Model.Snapshot(), cycles()
		out = append(out, st)
	}
	return out
}

// handWrittenSteps replays every scenario of the catalogue.
func handWrittenSteps(t *testing.T) (steps []coveredStep, files int) {
	root := filepath.Join("..", "conformance", "testdata", "scenarios")
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".txt") {
			return err
		}
		text, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		sc, err := schedqtest.ParseScenario(strings.TrimSuffix(path, ".txt"), string(text))
		if err != nil {
			return nil
		}
		files++
		steps = append(steps, replaySteps(sc)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return steps, files
}

// recorder is a model target that records every operation the random
// runs perform.
type recorder struct {
	*model.Model
	steps  *[]coveredStep
	cycles map[spec.PodKey]int64
}

func (r *recorder) Info() conformance.TargetInfo {
	return conformance.TargetInfo{Name: "coverage-recorder", Observes: conformance.Observes{MoveRequestCycle: true, PodInfo: true,
		Closed: true, InFlightEvents: true, HintCounts: true}}
}

func (r *recorder) Advance(d time.Duration) {
	r.record(schedqtest.KindTick, false, func() error { return r.Model.Step(d) })
}

func (r *recorder) inFlightCycles() map[spec.PodKey]int64 {
	m := map[spec.PodKey]int64{}
	s := r.Model.Snapshot()
	for _, q := range s.InFlight {
		m[q.Key()] = r.cycles[q.Key()]
	}
	return m
}

func (r *recorder) record(kind schedqtest.Kind, objects bool, f func() error) error {
	st := coveredStep{profile: r.Model.Config().Profile, kind: kind, objects: objects, before: r.Model.Snapshot(), cyclesBefore: r.inFlightCycles()}
	st.err = f()
	st.after, st.cyclesAfter = r.Model.Snapshot(), r.inFlightCycles()
	*r.steps = append(*r.steps, st)
	return st.err
}

func (r *recorder) Add(p *spec.Pod) error {
	return r.record(schedqtest.KindAdd, false, func() error { return r.Model.Add(p) })
}

func (r *recorder) Pop() (info *spec.QueuedPodInfo, cycle int64, err error) {
	r.record(schedqtest.KindPop, false, func() error {
		info, cycle, err = r.Model.Pop()
		if err == nil {
			r.cycles[info.Key()] = cycle
		}
		return err
	})
	return info, cycle, err
}

func (r *recorder) AddUnschedulableIfNotPresent(p *spec.QueuedPodInfo, cycle int64) error {
	return r.record(schedqtest.KindFail, false, func() error { return r.Model.AddUnschedulableIfNotPresent(p, cycle) })
}

func (r *recorder) MoveAllToActiveOrBackoffQueue(e spec.ClusterEvent, pre spec.PreEnqueueCheck) {
	r.record(schedqtest.KindMove, false, func() error { r.Model.MoveAllToActiveOrBackoffQueue(e, pre); return nil })
}

func (r *recorder) MoveAllToActiveOrBackoffQueueWithObjects(occ spec.Occurrence, pre spec.PreEnqueueCheck) error {
	return r.record(schedqtest.KindMove, true, func() error { return r.Model.MoveAllToActiveOrBackoffQueueWithObjects(occ, pre) })
}

func (r *recorder) FlushBackoffQCompleted() {
	r.record(schedqtest.KindFlushBackoff, false, func() error { r.Model.FlushBackoffQCompleted(); return nil })
}

func (r *recorder) FlushUnschedulablePodsLeftover() {
	r.record(schedqtest.KindFlushLeftover, false, func() error { r.Model.FlushUnschedulablePodsLeftover(); return nil })
}

func (r *recorder) Activate(pods []*spec.Pod) error {
	return r.record(schedqtest.KindActivate, false, func() error { return r.Model.Activate(pods) })
}

func (r *recorder) Update(old, nw *spec.Pod) error {
	return r.record(schedqtest.KindUpdate, false, func() error { return r.Model.Update(old, nw) })
}

func (r *recorder) Delete(p *spec.Pod) error {
	return r.record(schedqtest.KindDelete, false, func() error { return r.Model.Delete(p) })
}

func (r *recorder) AssignedPodAdded(p *spec.Pod) error {
	return r.record(schedqtest.KindAssignedAdd, false, func() error { return r.Model.AssignedPodAdded(p) })
}

func (r *recorder) AssignedPodUpdated(old, nw *spec.Pod, e spec.ClusterEvent) error {
	return r.record(schedqtest.KindAssignedUpdate, false, func() error { return r.Model.AssignedPodUpdated(old, nw, e) })
}

func (r *recorder) Done(uid spec.UID) error {
	return r.record(schedqtest.KindDone, false, func() error { return r.Model.Done(uid) })
}

func (r *recorder) Close() {
	r.record(schedqtest.KindClose, false, func() error { r.Model.Close(); return nil })
}

func (r *recorder) AddNominatedPod(p *spec.Pod, mode spec.NominatingMode, node string) error {
	return r.record(schedqtest.KindNominate, false, func() error { return r.Model.AddNominatedPod(p, mode, node) })
}

// randomSteps runs the random runs of both profiles at CI size
// (conformance.DefaultChecks each) on a recording model.
func randomSteps(t *testing.T) []coveredStep {
	var steps []coveredStep
	newTarget := func(tb testing.TB, cfg spec.Config, start time.Time) conformance.Target {
		m, err := model.New(cfg, start)
		if err != nil {
			tb.Fatal(err)
		}
		return &recorder{Model: m, steps: &steps, cycles: map[spec.PodKey]int64{}}
	}
	if !conformance.RunDifferential(t, newTarget) {
		t.Fatal("the classic random runs failed on the model")
	}
	if ok, na := conformance.RunHintsDifferential(t, newTarget); !ok || na != "" {
		t.Fatalf("the hints random runs failed on the model (%s)", na)
	}
	return steps
}

// projectClassic encodes a classic snapshot in the bound's terms, the
// plugins renamed as scenarioState does.
func projectClassic(b *bound, s spec.Snapshot, cycles map[spec.PodKey]int64) (string, error) {
	n := node{cycles: make([]int64, len(b.pods))}
	for k, c := range cycles {
		i := b.podIndex(k)
		if i < 0 {
			return "", fmt.Errorf("pod %s is not one of the bound", k)
		}
		n.cycles[i] = c
	}
	if err := pluginsOfTheBound(&s); err != nil {
		return "", err
	}
	enc, err := encode(nil, b, n, &s)
	return string(enc), err
}

// stepsOnGraph returns the steps of g (as "from action to") that the
// classic steps take.
func stepsOnGraph(b *bound, g map[string]bool, steps []coveredStep) map[string]bool {
	out := map[string]bool{}
	for _, s := range steps {
		if s.profile != spec.ProfileClassic || s.err != nil {
			continue
		}
		action := scenarioAction(schedqtest.Op{Kind: s.kind, Pods: []schedqtest.PodRef{{}}})
		from, err1 := projectClassic(b, cloneSnapshot(s.before), s.cyclesBefore)
		to, err2 := projectClassic(b, cloneSnapshot(s.after), s.cyclesAfter)
		if err1 != nil || err2 != nil {
			continue
		}
		if k := from + " " + action + " " + to; g[k] {
			out[k] = true
		}
	}
	return out
}

// cloneSnapshot copies the pod lists, which projectClassic rewrites.
func cloneSnapshot(s spec.Snapshot) spec.Snapshot {
	s.ActiveQ, s.BackoffQ = slices.Clone(s.ActiveQ), slices.Clone(s.BackoffQ)
	s.UnschedulablePods, s.InFlight = slices.Clone(s.UnschedulablePods), slices.Clone(s.InFlight)
	return s
}

// edgeClass is a step of a graph without its numbers and pod names: the
// action, the moves of the pods whose place changed ("activeQ>inFlight"),
// and whether moveRequestCycle or Close changed. The generator-only list is of
// classes, to be read.
func edgeClass(from, action, to string) string {
	places := func(s string) map[string]string {
		m := map[string]string{}
		for _, f := range strings.Fields(s) {
			if name, loc, ok := strings.Cut(f, "="); ok && len(name) == 1 {
				loc, _, _ = strings.Cut(loc, "(")
				m[name] = loc
			}
		}
		return m
	}
	pf, pt := places(from), places(to)
	parts := []string{action}
	var moves []string
	for _, k := range slices.Sorted(maps.Keys(pf)) {
		if pf[k] != pt[k] {
			moves = append(moves, pf[k]+">"+pt[k])
		}
	}
	slices.Sort(moves) // the pods are alike: which one moved is no class of its own
	if len(moves) == 0 {
		moves = append(moves, "no pod moves")
	}
	parts = append(parts, moves...)
	field := func(s, key string) string {
		for _, f := range strings.Fields(s) {
			if v, ok := strings.CutPrefix(f, key+"="); ok {
				return v
			}
		}
		return ""
	}
	if field(from, "moveRequestCycle") != field(to, "moveRequestCycle") {
		parts = append(parts, "moveRequestCycle changes")
	}
	if strings.HasSuffix(from, " closed") != strings.HasSuffix(to, " closed") {
		parts = append(parts, "closes")
	}
	return strings.Join(parts, " ")
}

func TestCoverage(t *testing.T) {
	if !*coverageRun {
		t.Skip("run with -coverage (make verify does)")
	}
	hand, files := handWrittenSteps(t)
	random := randomSteps(t)
	t.Logf("hand-written: %d scenario files, %d operations; random runs: %d operations", files, len(hand), len(random))

	rules := map[string]map[string]bool{} // source -> rule -> hit
	add := func(src string, steps []coveredStep) {
		if rules[src] == nil {
			rules[src] = map[string]bool{}
		}
		for _, s := range steps {
			for _, r := range ruleHits(s) {
				rules[src][r] = true
			}
		}
	}
	add("hand-written", hand)
	add("random", random)

	var rows []string
	var onlyGenerated []string
	for _, cfg := range []string{"GraphExt.cfg", "GraphHints.cfg", "GraphHintsTime.cfg", "GraphHintsExt.cfg"} {
		module := "MCSchedulingQueue"
		if strings.HasPrefix(cfg, "GraphHints") {
			module = "MCSchedulingQueueHints"
		}
		name := strings.TrimSuffix(cfg, ".cfg")
		b := readBound(t, cfg, module)
		x, rec := exploreRecording(t, &b)
		g := x.graph
		steps := make(map[string]bool, len(g.Edges))
		for _, e := range g.Edges {
			steps[g.States[e.From]+" "+e.Action+" "+g.States[e.To]] = true
		}
		// The generated set: every step whose path the language can
		// write; a sample of them replayed for the rules.
		expressible := 0
		stride := max(1, len(rec.order) / *coverageSample)
		var genSteps []coveredStep
		for i, e := range rec.order {
			lines, _, err := edgeScenario(&b, x, rec, e)
			if errors.Is(err, errInexpressible) {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			expressible++
			if i%stride == 0 {
				ops, err := schedqtest.ParseOps(lines...)
				if err != nil {
					t.Fatal(err)
				}
				genSteps = append(genSteps, replaySteps(schedqtest.Scenario{Config: scenarioConfig(&b), Ops: ops})...)
			}
		}
		add("generated "+name, genSteps)
		pct := func(n int) string { return fmt.Sprintf("%d (%.2f%%)", n, 100*float64(n)/float64(len(g.Edges))) }
		handCell, randCell := "n/a (other plugins)", "n/a (other plugins)"
		if !b.hints {
			h := stepsOnGraph(&b, steps, hand)
			r := stepsOnGraph(&b, steps, random)
			handCell, randCell = pct(len(h)), pct(len(r))
			// The classes of steps only the generator takes.
			reached := map[string]bool{}
			for k := range h {
				reached[classOfKey(k)] = true
			}
			for k := range r {
				reached[classOfKey(k)] = true
			}
			all := map[string]int{}
			for k := range steps {
				all[classOfKey(k)]++
			}
			for _, c := range slices.Sorted(maps.Keys(all)) {
				if !reached[c] {
					onlyGenerated = append(onlyGenerated, fmt.Sprintf("%s: %s (%d steps)", name, c, all[c]))
				}
			}
			t.Logf("%s: %d step classes, %d reached by hand-written or random runs", name, len(all), len(all)-len(onlyGenerated))
		}
		rows = append(rows, fmt.Sprintf("| %s | %d | %s | %s | %s |", name, len(g.Edges), handCell, randCell, pct(expressible)))
	}
	t.Log("| graph | steps | hand-written | random (CI size) | generated (expressible) |")
	t.Log("|---|---|---|---|---|")
	for _, r := range rows {
		t.Log(r)
	}
	classic := []string{"R1", "R2", "R3", "R4", "R5", "R6", "R7", "R8", "R9", "R10", "R11", "R12", "R13", "R17", "R18", "R19"}
	hints := []string{"R1h", "R2h", "R3h", "R4h", "R5h", "R6h", "R7h", "R8h", "R9h", "R10h", "R11h", "R12h", "R13h", "R15", "R16", "R17", "R18", "R19"}
	sources := slices.Sorted(maps.Keys(rules))
	t.Log("| rules | " + strings.Join(sources, " | ") + " |")
	t.Log("|---" + strings.Repeat("|---", len(sources)) + "|")
	for _, set := range []struct {
		name string
		ids  []string
	}{{"classic", classic}, {"hints", hints}} {
		cells := []string{set.name + " (" + fmt.Sprint(len(set.ids)) + ")"}
		for _, src := range sources {
			// A graph is of one profile: the other profile's rules are no
			// share of it.
			if strings.HasPrefix(src, "generated Graph") && strings.HasPrefix(src, "generated GraphHints") != (set.name == "hints") {
				cells = append(cells, "-")
				continue
			}
			var hit, miss []string
			for _, id := range set.ids {
				if rules[src][id] {
					hit = append(hit, id)
				} else {
					miss = append(miss, id)
				}
			}
			cell := fmt.Sprintf("%d", len(hit))
			if len(miss) > 0 {
				cell += " (not: " + strings.Join(miss, " ") + ")"
			}
			cells = append(cells, cell)
		}
		t.Log("| " + strings.Join(cells, " | ") + " |")
	}
	t.Logf("classes of steps only the generator takes (%d):\n%s", len(onlyGenerated), strings.Join(onlyGenerated, "\n"))
}

// classOfKey is edgeClass of a "from action to" key: the action is the
// one space-separated field that is an action name of the spec.
func classOfKey(k string) string {
	for _, a := range []string{actAdd, actPop, actFail, actDone, actDelete, actActivate, actMoveAll, actFlushBackoff, actFlushUnsched, actTick, actClose, actUpdate} {
		if from, to, ok := strings.Cut(k, " "+a+" "); ok {
			return edgeClass(from, a, to)
		}
	}
	return k
}

func (r *recorder) UpdateWithChange(old, nw *spec.Pod, change *spec.PodChange) error {
	return r.record(schedqtest.KindUpdate, true, func() error { return r.Model.UpdateWithChange(old, nw, change) })
}
