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

// drawing is what the random runs of one profile draw: the one generator's
// drawing (schedqtest.Generator, schedqtest.Drawings) narrowed to valid
// operations (bad input is the scenarios' business), to what every target
// takes, and away from the operations a profile's declared differences
// cover (avoid; its scenarios show those, with their reasons). The hints
// runs leave out the differences on which schedq and kube-scheduler
// v1.37.2 disagree by design: Add of a pod in activeQ, backoffQ or in
// flight, Delete of an in-flight pod.
type drawing struct {
	test     string // Run's subtest
	scenario string // the name of the result in the report
	rules    []spec.Rule
	metrics  spec.Rule // the rule of the metrics, compared if observed
	// gen is the generator's drawing, without nominations and caller
	// objects (forTarget adds them on a target that takes them).
	gen *schedqtest.Drawing
	// addAgain are the places a pod may be in when it is added.
	addAgain []spec.Location
	// updateInFlight, deleteInFlight: they may name a pod in flight.
	updateInFlight, deleteInFlight bool
	// nominate: the runs nominate held pods to nodes and ask for the
	// nominations (R18), on a target with a nominator (spec.Nominator).
	nominate bool
	// objects: on a target that takes them (spec.ObjectQueue), moves
	// carry node objects and updates the caller's verdict (R19); in the
	// hints profile NodeResourcesFit's NodeAdd hint then reads the node
	// (zone-hint=on, schedqtest.NodeZoneHint) and pods may want a zone.
	objects bool
	// avoid, if set, adds the profile's own declared differences to the
	// common ones (differential_podgroups.go).
	avoid func(op schedqtest.Op, m *schedqtest.ModelRun) string
}

// nominationNodes are the nodes the runs nominate to; an Override to no
// node is left to the scenarios (v1.33.13 keeps it under the node "").
var nominationNodes = []string{"n1", "n2"}

var diffNames = []string{"a", "b", "c", "d", "e"}

// events are the events of their names (schedqtest.ParseEvent).
func events(names ...string) []spec.ClusterEvent {
	out := make([]spec.ClusterEvent, len(names))
	for i, n := range names {
		e, err := schedqtest.ParseEvent(n)
		if err != nil {
			panic(err)
		}
		out[i] = e
	}
	return out
}

// valid narrows the profile's drawing of the generator to valid
// operations of the kinds weights names (their weights kept).
func valid(p spec.Profile, kinds ...schedqtest.Kind) *schedqtest.Drawing {
	d := schedqtest.Drawings[p].Clone()
	w := d.Weights
	d.Weights = map[schedqtest.Kind]int{}
	for _, k := range kinds {
		d.Weights[k] = w[k]
	}
	d.Names, d.Priorities = diffNames, []int32{0, 1, 2}
	d.GateLabels, d.Recreate, d.BadInput, d.MadeUpInfos, d.OtherCycles = nil, false, false, false, 0
	d.Nodes, d.Verdicts, d.NominationNodes, d.PreQueueing, d.GroupsV138 = nil, nil, nil, false, false
	d.ActivateMax, d.AssignedNamespaces = 1, []string{schedqtest.Namespace}
	return d
}

// The kinds every profile's random runs draw.
var diffKinds = []schedqtest.Kind{schedqtest.KindAdd, schedqtest.KindPop, schedqtest.KindFail, schedqtest.KindMove,
	schedqtest.KindFlushBackoff, schedqtest.KindFlushLeftover, schedqtest.KindTick, schedqtest.KindActivate,
	schedqtest.KindUpdate, schedqtest.KindDelete, schedqtest.KindDone}

var drawings = map[spec.Profile]drawing{
	spec.ProfileClassic: {
		test: "differential", scenario: "model-differential random runs", rules: []spec.Rule{"R1-R13"}, metrics: spec.R14Metrics,
		gen: func() *schedqtest.Drawing {
			d := valid(spec.ProfileClassic, append(slices.Clone(diffKinds), schedqtest.KindAssignedAdd)...)
			d.Configs = []schedqtest.ConfigChange{{}}
			d.Labels, d.Affinities = []map[string]string{nil}, []map[string]string{nil, {"app": "web"}}
			d.Plugins = []string{"NodeResourcesFit", "TaintToleration", "InterPodAffinity", spec.PluginPodTopologySpread}
			d.OtherCycles = 3 // stale ones
			d.Events = events("NodeAdd", "NodeTaint", "PVAdd", "WildCard", "AssignedPodDelete")
			d.Updates = []schedqtest.UpdateChange{schedqtest.UpdateTouch, schedqtest.UpdateLabels, schedqtest.UpdateLabels}
			d.UpdateLabels = []map[string]string{{"v": "x"}, {"v": "y"}}
			d.AssignedLabels = []map[string]string{{"app": "web"}, {"app": "db"}}
			// Assigned pods in another namespace too: they wake no pod
			// PodTopologySpread rejected, nor one whose affinity term
			// (its own namespace) they do not match (R11).
			d.AssignedNamespaces = []string{schedqtest.Namespace, "other"}
			d.Steps = []time.Duration{0, time.Millisecond, 500 * time.Millisecond, time.Second, time.Second + 1,
				10 * time.Second, 5 * time.Minute, 5*time.Minute + 1}
			// Ticks onto the instants where R5, R6 and R7 decide: an
			// off-by-one there is the classic backoff bug, and at the
			// 5-minute default a plain step rarely outlasts a parked pod
			// with nothing moving it first.
			d.Boundaries = true
			return d
		}(),
		addAgain:       []spec.Location{spec.Nowhere, spec.InBackoffQ, spec.InUnschedulablePods},
		deleteInFlight: true, nominate: true, objects: true,
	},
	spec.ProfileHints: {
		test: "differential-hints", scenario: "model-differential random runs (hints)", rules: []spec.Rule{"R1h-R17"}, metrics: spec.R14hMetrics,
		gen: func() *schedqtest.Drawing {
			d := valid(spec.ProfileHints, append(slices.Clone(diffKinds), schedqtest.KindAssignedAdd)...)
			// A fifth of the runs have no backoff (max-backoff=0s).
			d.Configs = []schedqtest.ConfigChange{{Profile: spec.ProfileHints}, {Profile: spec.ProfileHints},
				{Profile: spec.ProfileHints}, {Profile: spec.ProfileHints}, {Profile: spec.ProfileHints, NoBackoff: true}}
			d.Labels = []map[string]string{nil, {"gated": "yes"}, {"fit": "label"}}
			// No gates put on by updates of parked pods: Gate's own
			// label event lifts them again at once, and the steering
			// left R4h's mutant caught less often (0 of 10 runs against
			// 7 of 20 without it).
			d.GateLabels = nil
			d.Affinities = nil
			// AssignedPod/UpdatePodLabel, not PodLabel: kube-scheduler
			// raises pod events for assigned, unscheduled or target pods,
			// never for resource Pod, which upstream registrations
			// (unrolled) do not match.
			d.Events = events("NodeAdd", "NodeLabel", "Node/Update", "NodeTaint", "PVAdd", "WildCard", "AssignedPod/UpdatePodLabel", "AssignedPodAdd")
			d.FollowEvents = events("NodeAdd", "NodeLabel", "NodeTaint", "AssignedPodAdd")
			d.Updates = []schedqtest.UpdateChange{schedqtest.UpdateLabels}
			d.UpdateLabels = []map[string]string{{}, {"gated": "yes"}, {"fit": "label"}}
			// The second names pods for Affinity's pre-queueing hint.
			d.AssignedLabels = []map[string]string{{"app": "web"}, {"app": "web", schedqtest.WakesLabel: "a_c"}}
			d.Steps = []time.Duration{0, time.Millisecond, 300 * time.Millisecond, 700 * time.Millisecond, time.Second,
				2 * time.Second, 10 * time.Second, 5 * time.Minute, 5*time.Minute + 1}
			return d
		}(),
		addAgain:       []spec.Location{spec.Nowhere, spec.InUnschedulablePods},
		updateInFlight: true, nominate: true, objects: true,
	},
}

// avoidFor is the Avoid of the random runs of dr: the common declared
// differences and bad input the generator's valid drawing may still
// reach, then the profile's own.
func (dr drawing) avoidFor() func(op schedqtest.Op, m *schedqtest.ModelRun) string {
	return func(op schedqtest.Op, m *schedqtest.ModelRun) string {
		where := func(name string) spec.Location { return m.Model.Where(schedqtest.Key(name)) }
		switch op.Kind {
		case schedqtest.KindAdd:
			if !slices.Contains(dr.addAgain, where(op.Pod.Name)) {
				return "an Add of a pod where this one is is bad input or a declared difference"
			}
		case schedqtest.KindFail:
			if where(op.Pod.Name) != spec.InFlight {
				return "a stale record handed back is the scenarios' business"
			}
		case schedqtest.KindUpdate:
			if !dr.updateInFlight && where(op.Pod.Name) == spec.InFlight {
				return "an Update of an in-flight pod is a declared difference"
			}
		case schedqtest.KindDelete:
			if l := where(op.Pod.Name); l == spec.Nowhere || !dr.deleteInFlight && l == spec.InFlight {
				return "a Delete of an unknown pod is bad input; of an in-flight one, here, a declared difference"
			}
		case schedqtest.KindNominate:
			// Only pods the queue holds: upstream's nominator refuses a
			// pod its informer no longer lists (a deleted one), which
			// schedq, without an informer, leaves out of its contract
			// (R18).
			if where(op.Pod.Name) == spec.Nowhere {
				return "a nomination of a pod the queue does not hold"
			}
		case schedqtest.KindNominated:
			// Upstream (v1.33.13, v1.37.2) lists a nominated pod that is
			// in flight by the reference its nominator keeps, without the
			// fields of the pod popped (priority, labels); schedq lists
			// it as the queue holds it (R18). No declaration covers that
			// yet, so the random runs do not ask then.
			for _, p := range m.Model.NominatedPodsForNode(op.Node) {
				if where(schedqtest.NameOf(p.Key())) == spec.InFlight {
					return "a nominated pod is in flight"
				}
			}
		}
		if dr.avoid != nil {
			return dr.avoid(op, m)
		}
		return ""
	}
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
// targets are made with tb. Each sequence draws its config and its swarm
// (schedqtest.Drawing.Swarm) first.
func checkDifferential(rt rapid.TB, tb testing.TB, newTarget NewTarget, ignore map[Observation]bool, p spec.Profile) {
	d := drawings[p].forTarget(tb, newTarget, p)
	rapid.Check(rt, func(r *rapid.T) {
		c := schedqtest.RapidChooser{T: r}
		run := &scopedTB{TB: tb} // the run's target ends with the run
		defer run.end()
		g := newGenerator(run, newTarget, r)
		g.d.ignore = ignore
		g.d.sc.Config = d.DrawConfig(c)
		if err := g.d.begin(); err != nil {
			r.Fatal(err)
		}
		if g.d.target == nil {
			r.Fatalf("the target refused the %s profile's config: %s", p, g.d.na)
		}
		defer func() {
			if !g.d.closed {
				g.d.target.Close()
			}
		}()
		r.Repeat(schedqtest.NewGenerator(g, d.Swarm(c)).Actions())
	})
}

// forTarget is the generator's drawing for a target made by newTarget:
// with the nominations if it has a nominator, with caller objects if it
// takes them (either would make a run not applicable on a target without).
// It builds one target of profile p to ask; a target that refuses p gets
// the drawing without either, and the run then says why it does not apply.
func (dr drawing) forTarget(test testing.TB, newTarget NewTarget, p spec.Profile) *schedqtest.Drawing {
	tb := &scopedTB{TB: test} // the targets asked end here
	defer tb.end()
	d := dr.gen.Clone()
	d.Avoid = dr.avoidFor()
	tg, _ := constructTarget(tb, newTarget, schedqtest.ConfigChange{Profile: p}.Build(), schedqtest.Start)
	if tg == nil {
		return d
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
	if dr.nominate && nominator && objects {
		d.Weights[schedqtest.KindNominate], d.Weights[schedqtest.KindNominated] = 1, 1
		d.NominationNodes = nominationNodes
	}
	// Close (R13, R13h), on a target that reports it in its snapshots and
	// whose Close is the contract's (TargetInfo.CloseDiffers).
	if info := tg.Info(); info.Observes.Closed && info.CloseDiffers == "" {
		d.Weights[schedqtest.KindClose] = 1
	}
	if p == spec.ProfilePodGroups {
		// Half the runs with v1.38's group rules (G12, G13), on a target
		// that takes them (upstream v1.37.2's refuses them).
		if tg138, _ := constructTarget(tb, newTarget, schedqtest.ConfigChange{Profile: p, GroupsV138: true}.Build(), schedqtest.Start); tg138 != nil {
			tg138.Close()
			d.GroupsV138 = true
		}
	}
	if dr.objects && objects {
		// The generator's node objects and verdicts (R19).
		d.Nodes, d.Verdicts = schedqtest.Drawings[p].Nodes, schedqtest.Drawings[p].Verdicts
		if p == spec.ProfileHints {
			// Half the runs with pre-queueing hints (R20-R22), whose
			// answers the node objects and assigned pods carry, and a
			// registration added beside Fit's (add-register=, drawn by
			// DrawConfig): on a queue that takes objects. The upstream
			// adapters take none; v1.38's, once it wires the hints of a
			// config (schedqtest.UpstreamPreQueueingHint) and its
			// registrations, can take these runs too. A queue that
			// refuses the setting (a protocol peer that does not confirm
			// it) runs none.
			if tgp, _ := constructTarget(tb, newTarget, schedqtest.ConfigChange{Profile: p, PreQueueing: true}.Build(), schedqtest.Start); tgp != nil {
				tgp.Close()
				d.PreQueueing = true
			}
			d.Labels = append(slices.Clone(d.Labels), map[string]string{"zone": "a"})
			d.Configs = slices.Clone(d.Configs)
			for i := range d.Configs {
				d.Configs[i].ZoneHint = true
			}
		}
	}
	return d
}

// generator is the random runs' schedqtest.Runner: it performs the
// operations the one generator draws through a driver, on the target and
// its shadow.
type generator struct {
	d  *driver
	rt *rapid.T
}

func newGenerator(tb testing.TB, newTarget NewTarget, rt *rapid.T) *generator {
	d := newDriver(tb, "regressions/differential", newTarget)
	d.noExpect = true // the failure report computes the expectations
	return &generator{d: d, rt: rt}
}

// Do performs op on the target and its shadow and fails the run with the
// scenario if they disagree.
func (g *generator) Do(op schedqtest.Op) schedqtest.Step {
	d, rt := g.d, g.rt
	d.sc.Ops = append(d.sc.Ops, op)
	d.last = schedqtest.Step{}
	if _, err := d.step(op); err != nil {
		rt.Fatalf("the generator drew an invalid operation %s: %v", op, err)
	}
	if d.invalid != nil {
		rt.Fatalf("the generator drew an invalid operation %s: %v", op, d.invalid)
	}
	if d.failed {
		rt.Fatalf("random run: target and model disagree (model = the reference, target = %s; observed: %s):\n%s", d.info.Name, d.observes(), d.failureReport())
	}
	return d.last
}

// Shadow is the model that follows the target.
func (g *generator) Shadow() *schedqtest.ModelRun { return g.d.shadow }
