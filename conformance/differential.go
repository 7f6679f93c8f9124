package conformance

import (
	"cmp"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// RunDifferential drives the target and the model with the same random
// sequences of valid operations (bad input is the scenarios' business)
// through the scenario runner, which compares after every step every
// error, every Pop outcome (it must be one the model allows) and the
// observed snapshots. It returns whether it passed. rapid shrinks a failing
// sequence, and the failure prints it as a scenario file, with the model's
// expected output, that reproduces the failure when saved under a
// directory of Options.Dirs. It runs DefaultChecks sequences (or
// -rapid.checks) and compares everything; Run takes Options.
func RunDifferential(t *testing.T, newTarget NewTarget) bool {
	t.Helper()
	ok, na := runDifferential(t, newTarget, randomOptions(Options{}), spec.ProfileClassic)
	if na != "" {
		t.Errorf("conformance: %s", na)
	}
	return ok
}

// RunHintsDifferential is RunDifferential in the hints profile: the target,
// built with schedqtest.HintsConfig (max backoff 0 in some runs), and the
// model take the same random valid operations, compared after every step.
// It returns whether they agreed; na is set instead when the target
// refuses the hints config.
func RunHintsDifferential(t *testing.T, newTarget NewTarget) (ok bool, na string) {
	t.Helper()
	return runDifferential(t, newTarget, randomOptions(Options{}), spec.ProfileHints)
}

// drawing is what the random runs of one profile draw, as data for the one
// generator (generator.actions): the pods, plugins, events and clock
// steps, and the operations to stay away from, which are bad input or
// declared differences of the profile (its scenarios show those, with
// their reasons). The hints runs leave out the differences on which
// schedq and kube-scheduler v1.37.2 disagree by design: Add of a pod in
// activeQ, backoffQ or in flight, Delete of an in-flight pod.
type drawing struct {
	test     string // Run's subtest
	scenario string // the name of the result in the report
	rules    []spec.Rule
	metrics  spec.Rule // the rule of the metrics, compared if observed
	// noBackoff: a fifth of the runs have no backoff (max-backoff=0s).
	noBackoff bool
	// shapes are the pods an add draws from, but for name and priority.
	shapes []schedqtest.PodRef
	// addAgain are the places a pod may be in when it is added.
	addAgain []spec.Location
	plugins  []string // the rejecting plugins a fail draws from
	// staleCycles: a fail may hand back an older podSchedulingCycle.
	staleCycles bool
	// pending: a fail may hand back pending plugins (R3h).
	pending bool
	events  []string
	// updates are the labels an update sets; nil is a touch.
	updates []map[string]string
	// updateInFlight, deleteInFlight: they may name a pod in flight.
	updateInFlight, deleteInFlight bool
	apps                           []string // the app labels of assigned pods
	steps                          []time.Duration
	// toExpiry: ticks that land on a backoffQ pod's expiry, or one
	// nanosecond past it, where R5 and R7 decide (the classic off-by-one).
	toExpiry bool
	// toLeftover: ticks that land on the instant an unschedulablePods
	// pod reaches the leftover limit, or one nanosecond past it, where R6
	// decides: at the 5-minute default a plain step rarely outlasts a
	// parked pod with nothing moving it first (issue 24: the classic runs
	// never flushed a leftover pod at CI size).
	toLeftover bool
	// nominate: the runs nominate held pods to nodes and ask for the
	// nominations (R18), on a target with a nominator (spec.Nominator).
	nominate bool
	// objects: on a target that takes them (spec.ObjectQueue), moves
	// carry node objects and updates the caller's verdict (R19); in the
	// hints profile NodeResourcesFit's NodeAdd hint then reads the node
	// (zone-hint=on, schedqtest.NodeZoneHint) and pods may want a zone.
	objects bool
	// more adds a profile's own actions to the generator's, or replaces
	// some (differential_podgroups.go).
	more func(g *generator, dr drawing, actions map[string]func(*rapid.T))
}

// callerVerdicts are the verdicts an update may carry (spec.PodChange,
// R19) in each profile: the classic profile reads Relevant, the hints
// profile Events (a label event Gate's hint reads, raised here whatever
// the labels do).
var callerVerdicts = map[spec.Profile][]spec.PodChange{
	spec.ProfileClassic: {{Relevant: true}, {Relevant: false}},
	spec.ProfileHints: {
		{Relevant: true},
		{Events: []spec.ClusterEvent{{Resource: spec.ResourceTargetPod, ActionType: spec.UpdatePodLabel}}},
		{Relevant: true, Events: []spec.ClusterEvent{{Resource: spec.ResourceTargetPod, ActionType: spec.Update}}},
	},
}

// callerNodes are the node objects a move carries (R19): in the hints
// runs with zone-hint=on, a node in zone a helps a pod that wants zone a
// and one in zone b does not.
var callerNodes = []*schedqtest.Node{
	{Name: "n1", Labels: map[string]string{"zone": "a"}},
	{Name: "n2", Labels: map[string]string{"zone": "b"}},
}

// nominationNodes are the nodes the runs nominate to; an Override to no
// node is left to the scenarios (v1.33.13 keeps it under the node "").
var nominationNodes = []string{"n1", "n2"}

var drawings = map[spec.Profile]drawing{
	spec.ProfileClassic: {
		test: "differential", scenario: "model-differential random runs", rules: []spec.Rule{"R1-R13"}, metrics: spec.R14Metrics,
		shapes:   []schedqtest.PodRef{{}, {Affinity: map[string]string{"app": "web"}}},
		addAgain: []spec.Location{spec.Nowhere, spec.InBackoffQ, spec.InUnschedulablePods},
		plugins:  []string{"NodeResourcesFit", "TaintToleration", "InterPodAffinity", spec.PluginPodTopologySpread}, staleCycles: true,
		events:  []string{"NodeAdd", "NodeTaint", "PVAdd", "WildCard", "AssignedPodDelete"},
		updates: []map[string]string{nil, {"v": "x"}, {"v": "y"}}, deleteInFlight: true,
		apps: []string{"web", "db"},
		steps: []time.Duration{0, time.Millisecond, 500 * time.Millisecond, time.Second, time.Second + 1,
			10 * time.Second, 5 * time.Minute, 5*time.Minute + 1},
		toExpiry: true, toLeftover: true, nominate: true, objects: true,
	},
	spec.ProfileHints: {
		test: "differential-hints", scenario: "model-differential random runs (hints)", rules: []spec.Rule{"R1h-R17"}, metrics: spec.R14hMetrics,
		noBackoff: true,
		shapes:    []schedqtest.PodRef{{}, {Labels: map[string]string{"gated": "yes"}}, {Labels: map[string]string{"fit": "label"}}},
		addAgain:  []spec.Location{spec.Nowhere, spec.InUnschedulablePods},
		plugins:   schedqtest.HintsPlugins, pending: true,
		// AssignedPod/UpdatePodLabel, not PodLabel: kube-scheduler raises
		// pod events for assigned, unscheduled or target pods, never for
		// resource Pod, which upstream registrations (unrolled) do not
		// match.
		events:  []string{"NodeAdd", "NodeLabel", "Node/Update", "NodeTaint", "PVAdd", "WildCard", "AssignedPod/UpdatePodLabel", "AssignedPodAdd"},
		updates: []map[string]string{{}, {"gated": "yes"}, {"fit": "label"}}, updateInFlight: true,
		apps: []string{"web"},
		steps: []time.Duration{0, time.Millisecond, 300 * time.Millisecond, 700 * time.Millisecond, time.Second,
			2 * time.Second, 10 * time.Second, 5 * time.Minute, 5*time.Minute + 1},
		nominate: true, objects: true,
	},
}

// randomRuns is what the random runs do.
type randomRuns struct {
	checks      int
	fromFlag    bool // -rapid.checks was given and wins
	ignore      map[Observation]bool
	failFileDir string
	ran         *bool // if set, set when the random runs start (go test -run may filter them out)
}

func randomOptions(o Options) randomRuns {
	r := randomRuns{checks: cmp.Or(o.Checks, DefaultChecks), failFileDir: o.FailFileDir}
	if n, ok := checksOnCommandLine(); ok {
		r.checks, r.fromFlag = n, true
	}
	if r.failFileDir == "" {
		r.failFileDir = cmp.Or(os.Getenv(EnvFailFileDir), DefaultFailFileDir())
	}
	for _, ob := range o.Ignore {
		if r.ignore == nil {
			r.ignore = make(map[Observation]bool)
		}
		r.ignore[ob] = true
	}
	return r
}

// String says what the random runs do, for the summary and the report.
func (r randomRuns) String() string {
	s := fmt.Sprintf("%d checks", r.checks)
	if r.fromFlag {
		s += " (-rapid.checks)"
	}
	if len(r.ignore) > 0 {
		var ig []string
		for _, o := range observations {
			if r.ignore[o] {
				ig = append(ig, string(o))
			}
		}
		s += ", ignoring " + strings.Join(ig, ", ")
		if slices.ContainsFunc(ig, func(o string) bool { return o != string(IgnoreMetrics) }) {
			s += " (so no step invariants)"
		}
	}
	return s
}

// checksOnCommandLine returns the -rapid.checks given on the command line,
// read once, before the suite sets the flag itself.
var checksOnCommandLine = sync.OnceValues(func() (int, bool) {
	n, set := 0, false
	flag.Visit(func(f *flag.Flag) {
		if f.Name == "rapid.checks" {
			n, _ = strconv.Atoi(f.Value.String())
			set = true
		}
	})
	return n, set
})

// checksFlag serialises the setting of rapid's process-wide -rapid.checks.
var checksFlag sync.Mutex

// skipDifferential is why the random runs of profile p are skipped, or "".
func (o Options) skipDifferential(p spec.Profile) string {
	if o.SkipDifferential != "" {
		return o.SkipDifferential
	}
	if p == spec.ProfileHints && o.SkipHintsDifferential != "" {
		return o.SkipHintsDifferential
	}
	return o.SkipDifferentialIn[p]
}

// differentialResult runs the random runs of profile p for Run; metrics
// says whether the target reports metrics (Observes.Metrics), which the
// runs then compare (R14, R14h) unless Options.Ignore leaves them out.
func differentialResult(t *testing.T, newTarget NewTarget, opts Options, p spec.Profile, metrics bool, ran *bool) Result {
	dr := drawings[p]
	res := Result{Scenario: dr.scenario, Rules: slices.Clone(dr.rules), Outcome: Pass, Profile: p.String()}
	if why := opts.skipDifferential(p); why != "" {
		res.Outcome, res.Detail = NotApplicable, why
		return res
	}
	if metrics && dr.metrics != "" && !slices.Contains(opts.Ignore, IgnoreMetrics) {
		res.Rules = append(res.Rules, dr.metrics)
	}
	ro := randomOptions(opts)
	ro.ran = ran
	ok, na := runDifferential(t, newTarget, ro, p)
	switch {
	case na != "":
		res.Outcome, res.Detail = NotApplicable, na
	case !ok:
		res.Outcome, res.Detail = Fail, ro.String()
	default:
		res.Detail = ro.String()
	}
	return res
}

// runDifferential runs the random runs of profile p as the subtest
// "random"; na says why instead if the target refuses p's config.
func runDifferential(t *testing.T, newTarget NewTarget, ro randomRuns, p spec.Profile) (ok bool, na string) {
	t.Helper()
	tg, na := constructTarget(t, newTarget, schedqtest.ConfigChange{Profile: p}.Build(), schedqtest.Start)
	if tg == nil {
		return false, na
	}
	tg.Close()
	return t.Run("random", func(t *testing.T) {
		if ro.ran != nil {
			*ro.ran = true
		}
		if !ro.fromFlag {
			// rapid reads the number of checks from its flag only.
			checksFlag.Lock()
			old := flag.Lookup("rapid.checks").Value.String()
			_ = flag.Set("rapid.checks", strconv.Itoa(ro.checks))
			defer func() { _ = flag.Set("rapid.checks", old); checksFlag.Unlock() }()
		}
		if dir, err := failFileDir(t, ro.failFileDir); err != nil {
			t.Logf("conformance: rapid's fail files go to its default, testdata/rapid: %v", err)
		} else {
			t.Logf("conformance: rapid's fail files go to %s (Options.FailFileDir, $%s); a saved one is replayed first on the next run", filepath.Join(dir, "testdata", "rapid"), EnvFailFileDir)
		}
		checkDifferential(t, t, newTarget, ro.ignore, p)
	}), ""
}

// failFileDir makes dir the working directory of the test, where rapid
// reads and writes its fail files (testdata/rapid/...). It fails in a
// parallel test, whose working directory cannot change.
func failFileDir(t testing.TB, dir string) (abs string, err error) {
	if abs, err = filepath.Abs(dir); err != nil {
		return "", err
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return "", err
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	t.Chdir(abs)
	return abs, nil
}

// checkDifferential is the random runs of profile p reporting to rt;
// targets are made with tb.
func checkDifferential(rt rapid.TB, tb testing.TB, newTarget NewTarget, ignore map[Observation]bool, p spec.Profile) {
	dr := drawings[p].forTarget(tb, newTarget, p)
	rapid.Check(rt, func(r *rapid.T) {
		g := newGenerator(tb, newTarget)
		g.d.ignore = ignore
		g.d.sc.Config = schedqtest.ConfigChange{Profile: p, NoBackoff: dr.noBackoff && rapid.IntRange(0, 4).Draw(r, "noBackoff") == 0,
			ZoneHint: dr.objects && p == spec.ProfileHints}
		if err := g.d.begin(); err != nil {
			r.Fatal(err)
		}
		if g.d.target == nil {
			r.Fatalf("the target refused the %s profile's config: %s", p, g.d.na)
		}
		defer g.d.target.Close()
		r.Repeat(g.actions(dr))
	})
}

// forTarget is the drawing for a target made by newTarget: without the
// nominations if it has no nominator, without caller objects if it takes
// none (those operations would make a run not applicable). It builds one
// target of profile p to ask; a target that refuses p keeps the drawing,
// and the run then says why it does not apply.
func (dr drawing) forTarget(tb testing.TB, newTarget NewTarget, p spec.Profile) drawing {
	tg, _ := constructTarget(tb, newTarget, schedqtest.ConfigChange{Profile: p}.Build(), schedqtest.Start)
	if tg == nil {
		return dr
	}
	defer tg.Close()
	_, nominator := tg.(spec.Nominator)
	_, objects := tg.(spec.ObjectQueue)
	// The upstream adapters have a nominator but take no objects. Their
	// nominator lists pods otherwise than R18 in cases no declaration
	// covers yet (these runs found them on v1.33.13 and v1.37.2: a
	// nominated pod popped, or added again, is listed by the reference
	// the nominator kept, without the queue's fields); until those are
	// declared, the random nominations run on queues that take objects.
	dr.nominate = dr.nominate && nominator && objects
	dr.objects = dr.objects && objects
	if p == spec.ProfilePodGroups {
		// The podgroups drawing starts from the hints one
		// (differential_podgroups.go); its runs keep to the group
		// actions and the hints ones they had.
		dr.nominate, dr.objects = false, false
	}
	if dr.objects && p == spec.ProfileHints {
		dr.shapes = append(slices.Clone(dr.shapes), schedqtest.PodRef{Labels: map[string]string{"zone": "a"}})
	}
	return dr
}

// generator draws valid operations from the shadow model's state and
// performs them through a driver.
type generator struct{ d *driver }

func newGenerator(tb testing.TB, newTarget NewTarget) *generator {
	d := newDriver(tb, "regressions/differential", newTarget)
	d.noExpect = true // the failure report computes the expectations
	return &generator{d: d}
}

var diffNames = []string{"a", "b", "c", "d", "e"}

// do performs op on the target and its shadow and fails rt with the
// scenario if they disagree.
func (g *generator) do(rt *rapid.T, op schedqtest.Op) {
	d := g.d
	d.sc.Ops = append(d.sc.Ops, op)
	if _, err := d.step(op); err != nil {
		rt.Fatalf("the generator drew an invalid operation %s: %v", op, err)
	}
	if d.invalid != nil {
		rt.Fatalf("the generator drew an invalid operation %s: %v", op, d.invalid)
	}
	if d.failed {
		rt.Fatalf("random run: target and model disagree (model = the reference, target = %s; observed: %s):\n%s", d.info.Name, d.observes(), d.failureReport())
	}
}

func (g *generator) where(name string) spec.Location {
	return g.d.shadow.Model.Where(schedqtest.Key(name))
}

func (g *generator) inFlight() []string {
	var out []string
	for _, p := range g.d.shadow.Model.Snapshot().InFlight {
		out = append(out, schedqtest.NameOf(p.Key()))
	}
	return out
}

func (g *generator) actions(dr drawing) map[string]func(*rapid.T) {
	name := rapid.SampledFrom(diffNames)
	plugins := func(rt *rapid.T, label string, n int) []string {
		ps := rapid.SliceOfNDistinct(rapid.SampledFrom(dr.plugins), 0, n, rapid.ID).Draw(rt, label)
		if len(ps) == 0 {
			return nil
		}
		return ps
	}
	inFlight := func(rt *rapid.T, label string) string {
		fl := g.inFlight()
		if len(fl) == 0 {
			rt.Skip("nothing in flight")
		}
		return rapid.SampledFrom(fl).Draw(rt, label)
	}
	actions := map[string]func(*rapid.T){
		"add": func(rt *rapid.T) {
			n := name.Draw(rt, "pod")
			if !slices.Contains(dr.addAgain, g.where(n)) {
				rt.Skip("an Add of a pod where this one is is bad input or a declared difference")
			}
			op := schedqtest.Op{Kind: schedqtest.KindAdd, Pod: rapid.SampledFrom(dr.shapes).Draw(rt, "shape")}
			op.Pod.Name = n
			if p := int32(rapid.IntRange(0, 2).Draw(rt, "priority")); p != 0 {
				op.Pod.Priority = &p
			}
			g.do(rt, op)
		},
		"pop": func(rt *rapid.T) {
			if len(g.d.shadow.Model.PopCandidates()) == 0 {
				rt.Skip("Pop would block")
			}
			g.do(rt, schedqtest.Op{Kind: schedqtest.KindPop})
		},
		"fail": func(rt *rapid.T) {
			n := inFlight(rt, "failed")
			op := schedqtest.Op{Kind: schedqtest.KindFail, Pod: schedqtest.PodRef{Name: n}, Plugins: plugins(rt, "plugins", 2)}
			if dr.staleCycles && rapid.Bool().Draw(rt, "stale") {
				popped, _ := g.d.shadow.Exec.Popped(schedqtest.Key(n))
				c := rapid.Int64Range(0, popped.Cycle).Draw(rt, "cycle")
				op.Cycle = &c
			}
			if dr.pending && rapid.IntRange(0, 3).Draw(rt, "pending?") == 0 {
				op.Pending = plugins(rt, "pending", 1)
			}
			g.do(rt, op)
			if dr.toLeftover && g.where(n) == spec.InUnschedulablePods && rapid.Bool().Draw(rt, "toLeftover?") {
				g.tickToLeftover(rt)
			}
		},
		"move": func(rt *rapid.T) {
			e, _ := schedqtest.ParseEvent(rapid.SampledFrom(dr.events).Draw(rt, "event"))
			op := schedqtest.Op{Kind: schedqtest.KindMove, Event: e}
			if rapid.Bool().Draw(rt, "preCheck") {
				skip := name.Draw(rt, "preCheckSkips")
				op.PreCheck = slices.DeleteFunc(slices.Clone(diffNames), func(n string) bool { return n == skip })
			}
			if dr.objects && rapid.IntRange(0, 2).Draw(rt, "objects?") > 0 {
				// The hints runs' NodeAdd hint reads the new node; the
				// classic profile must not read either (R19).
				op.NewObject = rapid.SampledFrom(callerNodes).Draw(rt, "newObject")
				if rapid.Bool().Draw(rt, "oldObject?") {
					op.OldObject = rapid.SampledFrom(callerNodes).Draw(rt, "oldObject")
				}
			}
			g.do(rt, op)
		},
		"flush-backoff":  func(rt *rapid.T) { g.do(rt, schedqtest.Op{Kind: schedqtest.KindFlushBackoff}) },
		"flush-leftover": func(rt *rapid.T) { g.do(rt, schedqtest.Op{Kind: schedqtest.KindFlushLeftover}) },
		"activate": func(rt *rapid.T) {
			g.do(rt, schedqtest.Op{Kind: schedqtest.KindActivate, Pods: []schedqtest.PodRef{{Name: name.Draw(rt, "pod")}}})
		},
		"update": func(rt *rapid.T) {
			n := name.Draw(rt, "pod")
			if !dr.updateInFlight && g.where(n) == spec.InFlight {
				rt.Skip("an Update of an in-flight pod is a declared difference")
			}
			op := schedqtest.Op{Kind: schedqtest.KindUpdate, Pod: schedqtest.PodRef{Name: n}}
			if op.Pod.Labels = rapid.SampledFrom(dr.updates).Draw(rt, "labels"); op.Pod.Labels == nil {
				op.Touch = true
			}
			if dr.objects && rapid.IntRange(0, 2).Draw(rt, "verdict?") == 0 {
				c := rapid.SampledFrom(callerVerdicts[g.d.cfg.Profile]).Draw(rt, "verdict")
				op.Change = &c
			}
			g.do(rt, op)
		},
		"delete": func(rt *rapid.T) {
			n := name.Draw(rt, "pod")
			if l := g.where(n); l == spec.Nowhere || !dr.deleteInFlight && l == spec.InFlight {
				rt.Skip("a Delete of an unknown pod is bad input; of an in-flight one, here, a declared difference")
			}
			g.do(rt, schedqtest.Op{Kind: schedqtest.KindDelete, Pod: schedqtest.PodRef{Name: n}})
		},
		"done": func(rt *rapid.T) {
			g.do(rt, schedqtest.Op{Kind: schedqtest.KindDone, UID: string(schedqtest.UIDOf(inFlight(rt, "done")))})
		},
		"assigned-add": func(rt *rapid.T) {
			app := rapid.SampledFrom(dr.apps).Draw(rt, "app")
			g.do(rt, schedqtest.Op{Kind: schedqtest.KindAssignedAdd,
				Pod: schedqtest.PodRef{Name: "assigned-" + app, Labels: map[string]string{"app": app}}})
		},
		"tick": func(rt *rapid.T) {
			g.do(rt, schedqtest.Op{Kind: schedqtest.KindTick, Duration: rapid.SampledFrom(dr.steps).Draw(rt, "step")})
		},
	}
	if dr.nominate {
		// Only pods the queue holds: upstream's nominator refuses a pod
		// its informer no longer lists (a deleted one), which schedq,
		// without an informer, leaves out of its contract (R18).
		actions["nominate"] = func(rt *rapid.T) {
			n := name.Draw(rt, "pod")
			if g.where(n) == spec.Nowhere {
				rt.Skip("a nomination of a pod the queue does not hold")
			}
			op := schedqtest.Op{Kind: schedqtest.KindNominate, Pod: schedqtest.PodRef{Name: n}}
			if rapid.IntRange(0, 3).Draw(rt, "noop?") == 0 {
				op.Noop = true
			} else {
				op.Node = rapid.SampledFrom(nominationNodes).Draw(rt, "node")
			}
			g.do(rt, op)
		}
		actions["nominated"] = func(rt *rapid.T) {
			node := rapid.SampledFrom(nominationNodes).Draw(rt, "node")
			// Upstream (v1.33.13, v1.37.2) lists a nominated pod that is
			// in flight by the reference its nominator keeps, without the
			// fields of the pod popped (priority, labels); schedq lists
			// it as the queue holds it (R18). No declaration covers that
			// yet, so the random runs do not ask then.
			for _, p := range g.d.shadow.Model.NominatedPodsForNode(node) {
				if g.where(schedqtest.NameOf(p.Key())) == spec.InFlight {
					rt.Skip("a nominated pod is in flight")
				}
			}
			g.do(rt, schedqtest.Op{Kind: schedqtest.KindNominated, Node: node})
		}
	}
	if dr.toLeftover {
		// Also drawn right after a failure that parks a pod: parked
		// pods are few and soon moved, so a separate draw rarely finds
		// one.
		actions["tick-to-leftover"] = g.tickToLeftover
	}
	if dr.toExpiry {
		// Plain steps reach the instants where R5 and R7 decide rarely, and
		// an off-by-one there is the classic backoff bug.
		actions["tick-to-expiry"] = func(rt *rapid.T) {
			m := g.d.shadow.Model
			var steps []time.Duration
			for _, p := range m.Snapshot().BackoffQ {
				if d := g.d.cfg.BackoffExpiry(&p).Sub(m.Now()); d >= 0 {
					steps = append(steps, d, d+1)
				}
			}
			if len(steps) == 0 {
				rt.Skip("no backoffQ pod with an expiry ahead")
			}
			g.do(rt, schedqtest.Op{Kind: schedqtest.KindTick, Duration: rapid.SampledFrom(steps).Draw(rt, "toExpiry")})
			if rapid.Bool().Draw(rt, "thenFlush") {
				g.do(rt, schedqtest.Op{Kind: schedqtest.KindFlushBackoff})
			}
		}
	}
	if dr.more != nil {
		dr.more(g, dr, actions)
	}
	return actions
}

// tickToLeftover is as tick-to-expiry, for R6: a tick to the instant an
// unschedulablePods pod reaches the leftover limit, where it is not yet a
// leftover (it must be strictly older), most of the time the leftover
// flush, then most of the time one nanosecond more and the flush again,
// which takes it.
func (g *generator) tickToLeftover(rt *rapid.T) {
	m := g.d.shadow.Model
	var steps []time.Duration
	for _, p := range m.Snapshot().UnschedulablePods {
		if d := p.Timestamp.Add(g.d.cfg.PodMaxInUnschedulablePodsDuration).Sub(m.Now()); d >= 0 {
			steps = append(steps, d)
		}
	}
	if len(steps) == 0 {
		rt.Skip("no unschedulablePods pod short of the leftover limit")
	}
	g.do(rt, schedqtest.Op{Kind: schedqtest.KindTick, Duration: rapid.SampledFrom(steps).Draw(rt, "toLeftover")})
	if rapid.IntRange(0, 3).Draw(rt, "flushAtLimit") > 0 {
		g.do(rt, schedqtest.Op{Kind: schedqtest.KindFlushLeftover})
	}
	if rapid.IntRange(0, 3).Draw(rt, "pastLimit") > 0 {
		g.do(rt, schedqtest.Op{Kind: schedqtest.KindTick, Duration: 1})
		g.do(rt, schedqtest.Op{Kind: schedqtest.KindFlushLeftover})
	}
}
