package spec_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/schedq/schedq/spec"
)

// preQueueingConfig is hintsConfig with the pre-queueing setting: Fit's
// NodeAdd registration names a and b; Fit's NodeLabel registration names
// c; Taint's NodeAdd fails.
func preQueueingConfig() spec.Config {
	cfg := hintsConfig()
	cfg.PreQueueing = true
	cfg.PreQueueingHints = spec.PreQueueingHints{
		{Plugin: "Fit", Event: hNodeAdd}: func(spec.Occurrence) (spec.PreQueueingResult, error) {
			return spec.PodsNamed("ns/a", "ns/b"), nil
		},
		{Plugin: "Fit", Event: hNodeLabel}: func(spec.Occurrence) (spec.PreQueueingResult, error) {
			return spec.PodsNamed("ns/c"), nil
		},
		{Plugin: "Taint", Event: hNodeAdd}: func(spec.Occurrence) (spec.PreQueueingResult, error) {
			return spec.PreQueueingResult{}, errors.New("cannot tell")
		},
	}
	return cfg
}

// node is a caller object: pre-queueing hints are asked only for events
// that carry one.
type pqNode struct{ name string }

func TestR20PreQueueingNarrowing(t *testing.T) {
	cfg := preQueueingConfig()
	withObj := func(e spec.ClusterEvent) spec.Occurrence { return spec.Occurrence{Event: e, NewObject: &pqNode{"n1"}} }
	off := cfg
	off.PreQueueing, off.PreQueueingHints = false, nil
	for _, tc := range []struct {
		name string
		cfg  spec.Config
		occ  spec.Occurrence
		want string
	}{
		{"setting off", off, withObj(hNodeLabel), "none"},
		{"no objects", cfg, spec.Occurrence{Event: hNodeLabel}, "none"},
		{"wildcard", cfg, spec.Occurrence{Event: spec.EventUnschedulableTimeout, New: hPod("a", 0)}, "none"},
		{"one plugin narrows", cfg, withObj(hNodeLabel), "Fit=(ns/c)"},
		{"one plugin's hint fails: every pod, the other still narrowed", cfg, withObj(hNodeAdd), "all Fit=(ns/a,ns/b)"},
		// Gate has no pre-queueing hint for PodLabel: every pod.
		{"no pre-queueing hint", cfg, spec.Occurrence{Event: hPodLabel, New: hPod("a", 0)}, "all"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.cfg.PreQueueingNarrowing(tc.occ).String(); got != tc.want {
				t.Errorf("PreQueueingNarrowing(%s) = %s, want %s", tc.occ, got, tc.want)
			}
		})
	}
	// A plugin with two matching registrations, one naming pods and one
	// without a pre-queueing hint, is not narrowed at all.
	two := preQueueingConfig()
	two.PluginEvents = spec.PluginEvents{"Fit": {hNodeLabel, hNodeAny}}
	two.QueueingHints = nil
	two.PreQueueingHints = spec.PreQueueingHints{{Plugin: "Fit", Event: hNodeLabel}: func(spec.Occurrence) (spec.PreQueueingResult, error) {
		return spec.PodsNamed("ns/c"), nil
	}}
	if got := two.PreQueueingNarrowing(withObj(hNodeLabel)).String(); got != "all" {
		t.Errorf("two registrations, one unnarrowed: %s, want all", got)
	}
	// A panicking pre-queueing hint narrows nothing and does not panic.
	p := preQueueingConfig()
	p.PreQueueingHints[spec.HintKey{Plugin: "Fit", Event: hNodeLabel}] = func(spec.Occurrence) (spec.PreQueueingResult, error) { panic("boom") }
	if got := p.PreQueueingNarrowing(withObj(hNodeLabel)).String(); got != "all" {
		t.Errorf("panicking pre-queueing hint: %s, want all", got)
	}
}

func TestR21R22Evaluation(t *testing.T) {
	cfg := preQueueingConfig()
	n := cfg.PreQueueingNarrowing(spec.Occurrence{Event: hNodeLabel, NewObject: &pqNode{"n1"}})
	if !n.Evaluates("ns/c") || n.Evaluates("ns/a") {
		t.Errorf("Evaluates under %s: c %v a %v, want c only", n, n.Evaluates("ns/c"), n.Evaluates("ns/a"))
	}
	if got := n.Candidates(); len(got) != 1 || got[0] != "ns/c" {
		t.Errorf("Candidates = %v, want [ns/c]", got)
	}
	var none *spec.Narrowing
	if !none.Evaluates("ns/x") || !none.Asks("Fit", "ns/x") || none.Candidates() != nil {
		t.Error("a nil narrowing must evaluate every pod and ask every plugin")
	}
	// c is labelled fit=label, so Fit's NodeLabel hint queues it: named, it
	// moves; a is labelled the same but not named: Fit is not asked (R22).
	c := &spec.QueuedPodInfo{Pod: hPod("c", 0), UnschedulablePlugins: spec.NewPluginSet("Fit")}
	c.Pod.Labels = map[string]string{"fit": "label"}
	a := &spec.QueuedPodInfo{Pod: hPod("a", 0), UnschedulablePlugins: spec.NewPluginSet("Fit")}
	a.Pod.Labels = map[string]string{"fit": "label"}
	occ := spec.Occurrence{Event: hNodeLabel, NewObject: &pqNode{"n1"}}
	if s := cfg.MoveStrategy(c, occ, n); s != spec.StrategyAfterBackoff {
		t.Errorf("MoveStrategy(c) = %v, want AfterBackoff", s)
	}
	if s := cfg.MoveStrategy(a, occ, n); s != spec.StrategySkip {
		t.Errorf("MoveStrategy(a) = %v, want Skip: Fit did not name a", s)
	}
	if s := cfg.PodStrategy(a, occ); s != spec.StrategyAfterBackoff {
		t.Errorf("PodStrategy(a) = %v, want AfterBackoff (without narrowing)", s)
	}
}

func TestPreQueueingConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*spec.Config)
		want string
	}{
		{"classic", func(c *spec.Config) { c.Profile = spec.ProfileClassic; c.QueueingHints = nil; c.PreQueueingHints = nil }, "no queueing hints"},
		{"podgroups", func(c *spec.Config) { c.Profile = spec.ProfilePodGroups }, "podgroups profile"},
		{"hints without the setting", func(c *spec.Config) { c.PreQueueing = false }, "PreQueueing is off"},
		{"nil hint", func(c *spec.Config) { c.PreQueueingHints[spec.HintKey{Plugin: "Fit", Event: hNodeAdd}] = nil }, "is nil"},
		{"unregistered", func(c *spec.Config) {
			c.PreQueueingHints[spec.HintKey{Plugin: "Gate", Event: hNodeAdd}] = func(spec.Occurrence) (spec.PreQueueingResult, error) { return spec.AllPods, nil }
		}, "does not register"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := preQueueingConfig()
			tc.edit(&cfg)
			err := cfg.Validate()
			if !errors.Is(err, spec.ErrInvalidConfig) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Validate = %v, want ErrInvalidConfig saying %q", err, tc.want)
			}
		})
	}
	if err := preQueueingConfig().Validate(); err != nil {
		t.Errorf("the pre-queueing config: %v", err)
	}
}

// TestI8CatchesBrokenSteps: a narrowed move request that leaves a named
// pod parked, or moves a pod the request without pre-queueing hints would
// not move, is caught; one that leaves an unnamed pod parked is allowed.
func TestI8CatchesBrokenSteps(t *testing.T) {
	cfg := preQueueingConfig()
	parked := func(name string) spec.QueuedPodInfo {
		p := spec.QueuedPodInfo{Pod: hPod(name, 0), UnschedulablePlugins: spec.NewPluginSet("Fit"), Timestamp: t0, Attempts: 1}
		p.UnschedulableCount = 1
		p.Pod.Labels = map[string]string{"fit": "label"}
		return p
	}
	before := &spec.Snapshot{Now: t0, MoveRequestCycle: -1, UnschedulablePods: []spec.QueuedPodInfo{parked("a"), parked("c")}}
	step := spec.StepRecord{Rule: spec.R4MoveAll, Move: &spec.MoveRecord{Occurrence: spec.Occurrence{Event: hNodeLabel, NewObject: &pqNode{"n1"}}}}
	c := parked("c")
	right := &spec.Snapshot{Now: t0, MoveRequestCycle: -1, UnschedulablePods: []spec.QueuedPodInfo{parked("a")}, BackoffQ: []spec.QueuedPodInfo{c}}
	if err := spec.I8NarrowingOnlySkips(cfg, before, right, step); err != nil {
		t.Errorf("the narrowed request that leaves unnamed a parked: %v", err)
	}
	for name, after := range map[string]*spec.Snapshot{
		"named pod left parked": {Now: t0, MoveRequestCycle: -1, UnschedulablePods: []spec.QueuedPodInfo{parked("a"), parked("c")}},
		"pod moved that nothing requeues": func() *spec.Snapshot {
			s := &spec.Snapshot{Now: t0, MoveRequestCycle: -1, UnschedulablePods: []spec.QueuedPodInfo{parked("a")}, BackoffQ: []spec.QueuedPodInfo{c}}
			return s
		}(),
	} {
		b := before
		if name == "pod moved that nothing requeues" {
			// c's label no longer says fit=label: Fit's hint skips it.
			cc := parked("c")
			cc.Pod.Labels = nil
			b = &spec.Snapshot{Now: t0, MoveRequestCycle: -1, UnschedulablePods: []spec.QueuedPodInfo{parked("a"), cc}}
		}
		err := spec.I8NarrowingOnlySkips(cfg, b, after, step)
		var ie *spec.InvariantError
		if !errors.As(err, &ie) || ie.Invariant != "I8" {
			t.Errorf("%s: I8 = %v, want an I8 violation", name, err)
		}
	}
}

// A report under pre-queueing hints names the rules that narrow a move
// request or an assigned-pod event beside the operation's own, and only
// for those operations.
func TestConfigRuleNamesTheNarrowingRules(t *testing.T) {
	hints := spec.Config{Profile: spec.ProfileHints, PreQueueing: true}
	groups := spec.Config{Profile: spec.ProfilePodGroups, PreQueueing: true}
	for _, c := range []struct {
		cfg  spec.Config
		r    spec.Rule
		want spec.Rule
	}{
		{spec.Config{Profile: spec.ProfileHints}, spec.R4MoveAll, spec.R4hMoveAll},
		{hints, spec.R4MoveAll, spec.R4hMoveAll + " narrowed by pre-queueing hints (R20-R22)"},
		{hints, spec.R11AssignedPod, spec.R11hAssignedPod + " narrowed by pre-queueing hints (R20-R22)"},
		{hints, spec.R2Pop, spec.R2hPop},
		{groups, spec.R4MoveAll, spec.R4hMoveAll + " narrowed by pre-queueing hints (R20-R22, G14 over groups)"},
	} {
		if got := c.cfg.Rule(c.r); got != c.want {
			t.Errorf("%v (prequeue=%v).Rule(%q) = %q, want %q", c.cfg.Profile, c.cfg.PreQueueing, c.r, got, c.want)
		}
	}
}
