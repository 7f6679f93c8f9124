package tla_test

// The edge generator (issue 24): for every edge of an agreement graph
// (GraphExt of the classic spec; GraphHints, GraphHintsTime, GraphHintsExt
// of the hints spec), a shortest operation sequence from the initial state
// that ends in that edge, written in the scenario language of schedqtest
// with the model's expected state after each step. conformance.RunGenerated
// plays them on a target (make test, make generated); coverage_test.go
// measures what they and the other sources of tests reach.
//
// The exploration of agreement_test.go is breadth first, so the path to
// each state through its parent is a shortest one; a step of the graph is
// that path plus the operation that first took it. A classic bound's
// abstract names map onto the scenario language's standard registry
// (schedqtest.Registry): P1, which registered E1, is NodeResourcesFit,
// which registered NodeAdd; P2, which registered nothing, is
// UnregisteredPlugin; E1 is NodeAdd, E2 is PVAdd (nobody registered it),
// the wildcard is WildCard; one tick is "tick 1s"; the durations of the
// bound are the scenario's config. A hints bound's registrations and hints
// (P2 skipping E1, the gate label) are not those of the standard hint set:
// its scenarios declare them (config register=(...) preenqueue=(...)),
// with the same plugin names, E1 and E2 named as above, the gate the label
// gate=true, one tick "tick 500ms". A step whose path hands back an object
// updated in flight is not expressible (errInexpressible) and is counted,
// not written.
//
//	go test ./tla/ -run TestEdgeScenarios -edges.out=/tmp/edges            # every step of every graph
//	go test ./tla/ -run TestEdgeScenarios -edges.out=/tmp/edges -edges.max=50 -edges.cfg=GraphHints.cfg
//
// Without -edges.out the test checks a sample of generated scenarios of
// each graph at a smaller bound (one Pop, one tick): they replay on the
// model and end in their step's state.

import (
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
	"github.com/schedq/schedq/tla/internal/stategraph"
)

var (
	edgesOut   = flag.String("edges.out", "", "write one scenario file per edge of the classic graphs into this directory")
	edgesMax   = flag.Int("edges.max", 0, "with -edges.out, at most this many scenarios (0: all)")
	edgesSmall = flag.Bool("edges.small", false, "with -edges.out, generate from the bound cut to one Pop and one tick (a subset of its steps, cheap enough for make test)")
	edgesCfg   = flag.String("edges.cfg", "GraphExt.cfg,GraphHints.cfg,GraphHintsTime.cfg,GraphHintsExt.cfg", "the agreement configurations (comma-separated) whose graphs' steps are generated")
)

// scenarioPlugin and scenarioEvent map the bound's names onto the scenario
// language's standard registry.
var (
	scenarioPlugin = map[string]string{"P1": "NodeResourcesFit", "P2": "UnregisteredPlugin"}
	scenarioEvent  = map[string]string{"E1": "NodeAdd", "E2": "PVAdd", spec.WildCardEvent.EventLabel(): "WildCard"}
)

// scenarioConfig is the bound's config as a scenario "config" directive.
// A hints bound declares its own plugins (schedqtest's register= and
// preenqueue=): its registrations with E1 and E2 named as scenarioEvent
// names them, a ":skip" where the bound's hint answers QueueSkip, and the
// PreEnqueue plugin refusing the gate label.
func scenarioConfig(b *bound) schedqtest.ConfigChange {
	c := schedqtest.ConfigChange{
		InitialBackoff: b.cfg.PodInitialBackoffDuration,
		MaxBackoff:     b.cfg.PodMaxBackoffDuration,
		Leftover:       b.cfg.PodMaxInUnschedulablePodsDuration,
	}
	if !b.hints {
		return c
	}
	c.Profile = spec.ProfileHints
	var reg []string
	for _, pl := range slices.Sorted(maps.Keys(b.cfg.PluginEvents)) {
		for _, e := range b.cfg.PluginEvents[pl] {
			r := pl + ":" + scenarioEventName(e)
			if b.cfg.QueueingHints[spec.HintKey{Plugin: pl, Event: e}] != nil {
				r += ":skip" // the bound's only hint function answers QueueSkip
			}
			reg = append(reg, r)
		}
	}
	c.Register = strings.Join(reg, ",")
	for _, pl := range slices.Sorted(maps.Keys(b.cfg.PreEnqueuePlugins)) {
		c.PreEnqueue = pl + ":" + gateLabel + "=true"
	}
	return c
}

// scenarioEventName is a cluster event of the bound as the scenario
// language names it.
func scenarioEventName(e spec.ClusterEvent) string {
	if n, ok := scenarioEvent[e.EventLabel()]; ok {
		return n
	}
	return schedqtest.EventName(e)
}

// boundEvent is the inverse of scenarioEventName for the events E1 and E2.
func boundEvent(e spec.ClusterEvent) spec.ClusterEvent {
	for label, name := range scenarioEvent {
		if ce, ok := clusterEvents[label]; ok && schedqtest.Events[name] == e {
			return ce
		}
	}
	return e
}

var (
	rejectorsRe = regexp.MustCompile(`rejectors \[([^\]]*)\]`)
	callArgRe   = regexp.MustCompile(`\(([^),]*)(?:, ([^)]*))?\)`)
)

// scenarioLine is an operation of the exploration as a line of the
// scenario language. step is its position in the sequence: updates that
// must change the object use it to make each new version unique.
func scenarioLine(b *bound, o op, step int) (string, error) {
	if b.hints {
		return hintsScenarioLine(b, o)
	}
	name := schedqtest.NameOf(o.step.Pod)
	switch o.action {
	case actAdd:
		if prio := b.pods[b.podIndex(o.step.Pod)].Priority; prio != 0 {
			return fmt.Sprintf("add %s prio=%d", name, prio), nil
		}
		return "add " + name, nil
	case actFail:
		m := rejectorsRe.FindStringSubmatch(o.desc)
		if m == nil {
			return "", fmt.Errorf("no rejectors in %q", o.desc)
		}
		var pls []string
		for _, pl := range strings.Fields(m[1]) {
			pls = append(pls, scenarioPlugin[pl])
		}
		if len(pls) == 0 {
			return "fail " + name, nil
		}
		return fmt.Sprintf("fail %s plugins=(%s)", name, strings.Join(pls, ",")), nil
	case actUpdate:
		m := callArgRe.FindStringSubmatch(o.desc)
		switch m[2] {
		case "status":
			return "update " + name + " touch", nil
		case "spec":
			return fmt.Sprintf("update %s labels=(step=%d)", name, step), nil
		case "uid":
			return fmt.Sprintf("update %s uid=uid-%s-%d", name, name, step), nil
		}
	}
	return scenarioLineCommon(b, o, name)
}

// scenarioLineCommon is the line of an operation both profiles write alike.
func scenarioLineCommon(b *bound, o op, name string) (string, error) {
	switch o.action {
	case actMoveAll:
		m := callArgRe.FindStringSubmatch(o.desc)
		if m == nil {
			return "", fmt.Errorf("no scenario event for %q", o.desc)
		}
		ev, ok := scenarioEvent[m[1]]
		if !ok {
			return "", fmt.Errorf("no scenario event for %q", o.desc)
		}
		return "move " + ev, nil
	case actTick:
		return "tick " + b.unit.String(), nil
	case actPop:
		return "pop choose=" + name, nil
	case actDone:
		return "done " + name, nil
	case actDelete:
		return "delete " + name, nil
	case actActivate:
		return "activate " + name, nil
	case actFlushBackoff:
		return "flush-backoff", nil
	case actFlushUnsched:
		return "flush-leftover", nil
	case actClose:
		return "close", nil
	}
	return "", fmt.Errorf("no scenario line for %s", o.desc)
}

var (
	failureRe  = regexp.MustCompile(`unschedulable \[([^\]]*)\], pending \[([^\]]*)\]`)
	nominateRe = regexp.MustCompile(`^AddNominatedPod\((\w+), "(\w*)"\)$`)
	gateFlipRe = regexp.MustCompile(`^Update\((\w+), gate \w+ -> (\w+)\)$`)
)

// hintsScenarioLine is scenarioLine for a hints bound: the plugins keep
// their names (the scenario declares them), the gate is the label
// gate=true, a nomination to no node is "nominate a mode=noop" (the
// scenario's pods carry no NominatedNodeName), and the bound pod of the
// assigned-pod events is "bound".
func hintsScenarioLine(b *bound, o op) (string, error) {
	name := schedqtest.NameOf(o.step.Pod)
	switch o.action {
	case actAdd:
		p := b.pods[b.podIndex(o.step.Pod)]
		line := "add " + name
		if p.Priority != 0 {
			line += fmt.Sprintf(" prio=%d", p.Priority)
		}
		if hasGate(p) {
			line += " labels=(" + gateLabel + "=true)"
		}
		return line, nil
	case actFail:
		m := failureRe.FindStringSubmatch(o.desc)
		if m == nil {
			return "", fmt.Errorf("no failure in %q", o.desc)
		}
		line := "fail " + name
		if f := strings.Fields(m[1]); len(f) > 0 {
			line += " plugins=(" + strings.Join(f, ",") + ")"
		}
		if f := strings.Fields(m[2]); len(f) > 0 {
			line += " pending=(" + strings.Join(f, ",") + ")"
		}
		return line, nil
	case actUpdate:
		m := gateFlipRe.FindStringSubmatch(o.desc)
		if m == nil {
			return "", fmt.Errorf("no gate flip in %q", o.desc)
		}
		if m[2] == "true" {
			return "update " + m[1] + " labels=(" + gateLabel + "=true)", nil
		}
		return "update " + m[1] + " labels=()", nil
	case actAddNominatedPod:
		m := nominateRe.FindStringSubmatch(o.desc)
		if m == nil {
			return "", fmt.Errorf("no nomination in %q", o.desc)
		}
		if m[2] == "" {
			return "nominate " + m[1] + " mode=noop", nil
		}
		return "nominate " + m[1] + " node=" + m[2], nil
	case actAssignedPodAdded:
		return "assigned-add " + assignedPod.Name, nil
	case actAssignedPodUpdated:
		return "assigned-update " + assignedPod.Name + " event=" + schedqtest.EventName(spec.EventAssignedPodUpdate), nil
	}
	return scenarioLineCommon(b, o, name)
}

// edgeRecorder keeps, during an exploration, the operation that first took
// each step and the one that first reached each state.
type edgeRecorder struct {
	via   []op              // provisional state index -> the operation from its parent
	edges map[string]op     // "from action to" (provisional indices) -> operation
	order []stategraph.Edge // the steps in the order first taken
}

func (r *edgeRecorder) state(o op) { r.via = append(r.via, o) }

func (r *edgeRecorder) edge(from int, o op, to int) {
	k := fmt.Sprintf("%d %s %d", from, o.action, to)
	if _, ok := r.edges[k]; !ok {
		r.edges[k] = o
		r.order = append(r.order, stategraph.Edge{From: from, To: to, Action: o.action})
	}
}

// edgeScenario is the shortest operation sequence ending in one step:
// the scenario lines, and the state the step ends in.
func edgeScenario(b *bound, x *exploration, rec *edgeRecorder, e stategraph.Edge) ([]string, string, error) {
	var path []op
	for id := e.From; x.parent[id] >= 0; id = x.parent[id] {
		path = append(path, rec.via[id])
	}
	slices.Reverse(path)
	path = append(path, rec.edges[fmt.Sprintf("%d %s %d", e.From, e.Action, e.To)])
	if b.hints && handsBackUpdated(path) {
		return nil, "", errInexpressible
	}
	lines := make([]string, len(path))
	for i, o := range path {
		l, err := scenarioLine(b, o, i+1)
		if err != nil {
			return nil, "", err
		}
		lines[i] = l
	}
	return lines, x.builder.Encoding(e.To), nil
}

// errInexpressible: the step's path hands back, after a failed attempt,
// a pod object that Update changed while the pod was in flight. The
// hints specs hand back the object as it is now (upstream's scheduler
// requeues the latest version from its informer cache); the scenario
// language's "fail" hands back the QueuedPodInfo Pop returned, with the
// object as it was popped, and has no way to say otherwise.
var errInexpressible = errors.New("the path hands back an object updated in flight, which the scenario language cannot")

// handsBackUpdated reports whether a path fails a pod after an Update of
// it while in flight (since its last Pop).
func handsBackUpdated(path []op) bool {
	inFlight, updated := map[spec.PodKey]bool{}, map[spec.PodKey]bool{}
	for _, o := range path {
		k := o.step.Pod
		switch o.action {
		case actPop:
			inFlight[k], updated[k] = true, false
		case actUpdate:
			if inFlight[k] {
				updated[k] = true
			}
		case actFail:
			if updated[k] {
				return true
			}
			inFlight[k] = false
		case actDone, actDelete:
			inFlight[k] = false
		}
	}
	return false
}

// replayEncoding plays scenario lines on the model as the conformance
// driver would (schedqtest.ModelRun) and returns the bound's encoding of
// the state it ends in.
func replayEncoding(b *bound, lines []string) (string, error) {
	ops, err := schedqtest.ParseOps(lines...)
	if err != nil {
		return "", err
	}
	r, err := schedqtest.NewModelRun(scenarioConfig(b).Build(), t0)
	if err != nil {
		return "", err
	}
	for _, o := range ops {
		if _, _, err := r.Apply(o); err != nil {
			return "", fmt.Errorf("%s: %w", o, err)
		}
	}
	return scenarioState(b, r)
}

// scenarioState encodes a scenario run's model state in the bound's terms:
// the cycles come from what Pop returned, as the scheduler keeps them.
func scenarioState(b *bound, r *schedqtest.ModelRun) (string, error) {
	s := r.Model.Snapshot()
	n := node{m: r.Model, cycles: make([]int64, len(b.pods))}
	for _, info := range s.InFlight {
		i := b.podIndex(info.Key())
		if i < 0 {
			return "", fmt.Errorf("pod %s is not one of the bound", info.Key())
		}
		p, ok := r.Exec.Popped(info.Key())
		if !ok {
			return "", fmt.Errorf("pod %s is in flight but was never popped", info.Key())
		}
		n.cycles[i] = p.Cycle
	}
	if b.hints {
		// The scenario's plugins are the bound's; its events E1 and E2
		// have the language's names.
		s.InFlightEvents = slices.Clone(s.InFlightEvents)
		for i := range s.InFlightEvents {
			s.InFlightEvents[i].Event.Event = boundEvent(s.InFlightEvents[i].Event.Event)
		}
		enc, err := encode(nil, b, n, &s)
		return string(enc), err
	}
	if err := pluginsOfTheBound(&s); err != nil {
		return "", err
	}
	enc, err := encode(nil, b, n, &s)
	return string(enc), err
}

// pluginsOfTheBound renames the rejecting plugins of a classic snapshot to
// the bound's: the scenario language's plugins are the bound's under other
// names (scenarioPlugin).
func pluginsOfTheBound(s *spec.Snapshot) error {
	back := map[string]string{}
	for k, v := range scenarioPlugin {
		back[v] = k
	}
	for _, place := range [][]spec.QueuedPodInfo{s.ActiveQ, s.BackoffQ, s.UnschedulablePods, s.InFlight} {
		for j := range place {
			var pls []string
			for _, pl := range place[j].UnschedulablePlugins {
				abstract, ok := back[pl]
				if !ok {
					return fmt.Errorf("plugin %s is not one of the bound", pl)
				}
				pls = append(pls, abstract)
			}
			place[j].UnschedulablePlugins = spec.NewPluginSet(pls...)
		}
	}
	return nil
}

// exploreRecording is explore with an edge recorder.
func exploreRecording(t *testing.T, b *bound) (*exploration, *edgeRecorder) {
	rec := &edgeRecorder{via: []op{{}}, edges: map[string]op{}}
	b.recorder = rec
	defer func() { b.recorder = nil }()
	return explore(t, b), rec
}

func TestEdgeScenarios(t *testing.T) {
	for _, cfg := range strings.Split(*edgesCfg, ",") {
		module, large := "", false
		for _, gc := range graphConfigs {
			if gc.cfg == cfg {
				module, large = gc.module, gc.large
			}
		}
		if module == "" {
			t.Fatalf("-edges.cfg: %s is not an agreement configuration", cfg)
		}
		t.Run(strings.TrimSuffix(cfg, ".cfg"), func(t *testing.T) {
			if large && testing.Short() && *edgesOut == "" {
				t.Skipf("-short: %s is one of the two largest graphs; make verify's tla step checks its steps", cfg)
			}
			t.Parallel()
			edgeScenarios(t, cfg, module)
		})
	}
}

func edgeScenarios(t *testing.T, cfg, module string) {
	b := readBound(t, cfg, module)
	if *edgesOut == "" || *edgesSmall {
		// The check needs no full graph: at one Pop and one tick the
		// steps are a subset of the bound's, and the exploration is cheap
		// enough for make test.
		b.maxCycle, b.maxTime = min(b.maxCycle, 1), min(b.maxTime, 1)
	}
	x, rec := exploreRecording(t, &b)
	if len(rec.order) != len(x.graph.Edges) {
		t.Fatalf("recorded %d steps, the graph has %d", len(rec.order), len(x.graph.Edges))
	}
	if *edgesOut != "" {
		writeEdgeScenarios(t, &b, x, rec, strings.TrimSuffix(cfg, ".cfg"))
		return
	}
	// A sample: about a hundred steps, and the last one found (the
	// longest).
	sample := []stategraph.Edge{rec.order[len(rec.order)-1]}
	for i := 0; i < len(rec.order); i += max(1, len(rec.order)/100) {
		sample = append(sample, rec.order[i])
	}
	longest, skipped := 0, 0
	for _, e := range sample {
		lines, want, err := edgeScenario(&b, x, rec, e)
		if errors.Is(err, errInexpressible) {
			skipped++
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		longest = max(longest, len(lines))
		got, err := replayEncoding(&b, lines)
		if err != nil {
			t.Fatalf("scenario of step %s:\n%s\n%v", e.Action, strings.Join(lines, "\n"), err)
		}
		if got != want {
			t.Fatalf("scenario of step %s ends in\n    %s\nwant\n    %s\nscenario:\n%s", e.Action, got, want, strings.Join(lines, "\n"))
		}
	}
	t.Logf("%d steps; %d sampled scenarios replay on the model to their step's state (longest %d operations); %d sampled steps are not expressible (%v)",
		len(rec.order), len(sample)-skipped, longest, skipped, errInexpressible)
}

// writeEdgeScenarios writes one scenario file per step into -edges.out,
// or, with -edges.max, that many steps spread evenly over the order in
// which the exploration first took them (so over every depth), and an
// index.txt saying what was written of how many.
func writeEdgeScenarios(t *testing.T, b *bound, x *exploration, rec *edgeRecorder, name string) {
	dir := filepath.Join(*edgesOut, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	stride := 1
	if *edgesMax > 0 && len(rec.order) > *edgesMax {
		stride = len(rec.order) / *edgesMax
	}
	n, inexpressible := 0, 0
	for i := 0; i < len(rec.order) && (*edgesMax == 0 || n < *edgesMax); i++ {
		if i%stride != 0 {
			continue
		}
		e := rec.order[i]
		lines, to, err := edgeScenario(b, x, rec, e)
		if errors.Is(err, errInexpressible) {
			inexpressible++
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		ops, err := schedqtest.ParseOps(lines...)
		if err != nil {
			t.Fatal(err)
		}
		text, err := schedqtest.FormatScenario(schedqtest.Scenario{
			Comment: []string{
				fmt.Sprintf("Generated by TestEdgeScenarios: step %d of %s, a shortest way to take", i, name),
				"    " + x.builder.Encoding(e.From),
				"  --" + e.Action + "-->",
				"    " + to,
			},
			Config: scenarioConfig(b),
			Ops:    ops,
		})
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("edge-%06d.txt", i)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		n++
	}
	index := fmt.Sprintf("%s: %d scenarios of the graph's %d steps (every %d-th step in the order first taken); %d skipped as not expressible (%v)\n",
		name, n, len(rec.order), stride, inexpressible, errInexpressible)
	if err := os.WriteFile(filepath.Join(dir, "INDEX"), []byte(index), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Log(strings.TrimSpace(index))
}

// scenarioAction is the TLA+ action of a scenario operation, "" if the
// bound's alphabet has none.
func scenarioAction(o schedqtest.Op) string {
	switch o.Kind {
	case schedqtest.KindAdd:
		return actAdd
	case schedqtest.KindPop:
		return actPop
	case schedqtest.KindFail:
		return actFail
	case schedqtest.KindDone:
		return actDone
	case schedqtest.KindDelete:
		return actDelete
	case schedqtest.KindActivate:
		if len(o.Pods) == 1 {
			return actActivate
		}
	case schedqtest.KindMove:
		return actMoveAll
	case schedqtest.KindFlushBackoff:
		return actFlushBackoff
	case schedqtest.KindFlushLeftover:
		return actFlushUnsched
	case schedqtest.KindTick:
		return actTick
	case schedqtest.KindClose:
		return actClose
	case schedqtest.KindUpdate:
		return actUpdate
	}
	return ""
}
