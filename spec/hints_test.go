package spec_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/schedq/schedq/spec"
)

// t0 is a whole second, so the one-second ordering windows of R7h start
// on it.
var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// The hints profile's pure functions (R7h, R15, R16, R17) and its
// invariants. Helpers are local so these tests depend on spec alone.

var (
	hNodeAdd   = spec.ClusterEvent{Resource: spec.ResourceNode, ActionType: spec.Add}
	hNodeLabel = spec.ClusterEvent{Resource: spec.ResourceNode, ActionType: spec.UpdateNodeLabel}
	hNodeAny   = spec.ClusterEvent{Resource: spec.ResourceNode, ActionType: spec.Update}
	hPodLabel  = spec.ClusterEvent{Resource: spec.ResourcePod, ActionType: spec.UpdatePodLabel}
)

func hPod(name string, prio int32) *spec.Pod {
	return &spec.Pod{Namespace: "ns", Name: name, UID: spec.UID("uid-" + name), Priority: prio}
}

// hintsConfig: Fit wakes on NodeAdd (no hint: always Queue) and on node
// label updates (hint: Queue only for pods labelled fit=label); Taint wakes
// on NodeAdd with a hint that errs; Gate is a PreEnqueue plugin refusing
// pods labelled gated=yes and registers Pod label updates.
func hintsConfig() spec.Config {
	cfg := spec.DefaultHintsConfig(spec.PluginEvents{
		"Fit":   {hNodeAdd, hNodeLabel},
		"Taint": {hNodeAdd},
		"Gate":  {hPodLabel},
	})
	cfg.QueueingHints = spec.QueueingHints{
		{Plugin: "Fit", Event: hNodeLabel}: func(p *spec.Pod, _ spec.Occurrence) (spec.QueueingHint, error) {
			if p.Labels["fit"] == "label" {
				return spec.HintQueue, nil
			}
			return spec.HintSkip, nil
		},
		{Plugin: "Taint", Event: hNodeAdd}: func(*spec.Pod, spec.Occurrence) (spec.QueueingHint, error) {
			return spec.HintSkip, errors.New("cannot tell")
		},
		{Plugin: "Gate", Event: hPodLabel}: func(p *spec.Pod, ev spec.Occurrence) (spec.QueueingHint, error) {
			if ev.New != nil && ev.New.UID == p.UID && ev.New.Labels["gated"] != "yes" {
				return spec.HintQueue, nil
			}
			return spec.HintSkip, nil
		},
	}
	cfg.PreEnqueuePlugins = spec.PreEnqueuePlugins{"Gate": func(p *spec.Pod) bool { return p.Labels["gated"] != "yes" }}
	return cfg
}

func TestHintsConfigValidate(t *testing.T) {
	cfg := hintsConfig()
	if err := cfg.Validate(); err != nil {
		t.Fatalf("hints config: %v", err)
	}
	off := hintsConfig()
	off.PodMaxBackoffDuration = 0
	if err := off.Validate(); err != nil {
		t.Errorf("%s: a max backoff of 0 switches backoff off in the hints profile, Validate = %v", spec.R7hBackoff, err)
	}
	classicOff := spec.DefaultConfig(nil)
	classicOff.PodMaxBackoffDuration = 0
	if err := classicOff.Validate(); !errors.Is(err, spec.ErrInvalidConfig) {
		t.Errorf("classic profile with max backoff 0: Validate = %v, want ErrInvalidConfig", err)
	}
	for name, mut := range map[string]func(*spec.Config){
		"hints in classic": func(c *spec.Config) { c.Profile = spec.ProfileClassic; c.PreEnqueuePlugins = nil },
		"nil PreEnqueue in classic": func(c *spec.Config) {
			c.Profile, c.QueueingHints = spec.ProfileClassic, nil
			c.PreEnqueuePlugins["X"] = nil
		},
		"unknown action bit": func(c *spec.Config) {
			c.PluginEvents = spec.PluginEvents{"Fit": {{Resource: spec.ResourceNode, ActionType: spec.All + 1}}}
			c.QueueingHints = nil
		},
		"nil hint": func(c *spec.Config) { c.QueueingHints[spec.HintKey{Plugin: "Fit", Event: hNodeAdd}] = nil },
		"hint of an unregistered": func(c *spec.Config) {
			c.QueueingHints[spec.HintKey{Plugin: "Gate", Event: hNodeAdd}] = c.QueueingHints[spec.HintKey{Plugin: "Fit", Event: hNodeLabel}]
		},
		"nil PreEnqueue":  func(c *spec.Config) { c.PreEnqueuePlugins["X"] = nil },
		"unknown profile": func(c *spec.Config) { c.Profile = 7 },
	} {
		c := hintsConfig()
		mut(&c)
		if err := c.Validate(); !errors.Is(err, spec.ErrInvalidConfig) {
			t.Errorf("%s: Validate = %v, want ErrInvalidConfig", name, err)
		}
	}
	gated := hintsConfig()
	gated.Profile, gated.QueueingHints = spec.ProfileClassic, nil
	if err := gated.Validate(); err != nil {
		t.Errorf("%s: the classic profile takes PreEnqueue plugins; Validate = %v", spec.R17PreEnqueue, err)
	}
	for _, s := range []string{"classic", "hints"} {
		if p, err := spec.ParseProfile(s); err != nil || p.String() != s {
			t.Errorf("ParseProfile(%q) = %v, %v", s, p, err)
		}
	}
	if _, err := spec.ParseProfile("v1.37"); !errors.Is(err, spec.ErrInvalidConfig) {
		t.Errorf("ParseProfile of an unknown name = %v", err)
	}
}

func TestR7hBackoff(t *testing.T) {
	cfg := hintsConfig()
	want := []time.Duration{0, 1, 2, 4, 8, 10, 10}
	for n, w := range want {
		if got := spec.HintsBackoffDuration(n, cfg.PodInitialBackoffDuration, cfg.PodMaxBackoffDuration); got != w*time.Second {
			t.Errorf("%s: backoff for count %d = %v, want %v", spec.R7hBackoff, n, got, w*time.Second)
		}
		if got := spec.HintsBackoffDuration(n, cfg.PodInitialBackoffDuration, 0); got != 0 {
			t.Errorf("%s: max backoff 0 must switch backoff off, count %d gives %v", spec.R7hBackoff, n, got)
		}
	}
	if err := spec.CheckHintsBackoffMonotonic(cfg, 200); err != nil {
		t.Error(err)
	}
	cfg0 := cfg
	cfg0.PodMaxBackoffDuration = 0
	if err := spec.CheckHintsBackoffMonotonic(cfg0, 200); err != nil {
		t.Error(err)
	}

	// Attempts do not count; the counts do, errors first.
	ts := t0.Add(300 * time.Millisecond)
	p := &spec.QueuedPodInfo{Pod: hPod("a", 0), Timestamp: ts, Attempts: 5}
	if !cfg.BackoffExpiry(p).IsZero() || cfg.IsBackingOff(p, ts) {
		t.Errorf("%s: a pod with no failure count has no backoff, got expiry %v", spec.R7hBackoff, cfg.BackoffExpiry(p))
	}
	p.UnschedulableCount = 2 // 2s from 0.3s = 2.3s, window 2s
	if got := cfg.BackoffExpiry(p); !got.Equal(t0.Add(2 * time.Second)) {
		t.Errorf("%s: expiry = %v, want aligned +2s", spec.R7hBackoff, got.Sub(t0))
	}
	p.ConsecutiveErrorsCount = 1 // 1s from 0.3s = 1.3s, window 1s
	if got := cfg.BackoffExpiry(p); !got.Equal(t0.Add(time.Second)) {
		t.Errorf("%s: the error count takes precedence; expiry = %v, want +1s", spec.R7hBackoff, got.Sub(t0))
	}
	// Still backing off through the expiry's whole window.
	for _, c := range []struct {
		now  time.Duration
		want bool
	}{{0, true}, {time.Second, true}, {2*time.Second - 1, true}, {2 * time.Second, false}} {
		if got := cfg.IsBackingOff(p, t0.Add(c.now)); got != c.want {
			t.Errorf("%s: IsBackingOff at +%v = %v, want %v", spec.R7hBackoff, c.now, got, c.want)
		}
	}
	if cfg0.IsBackingOff(p, ts) || !cfg0.BackoffExpiry(p).IsZero() {
		t.Errorf("%s: max backoff 0: no pod backs off", spec.R7hBackoff)
	}
	// The classic profile is untouched: attempts, exact instants.
	classic := spec.DefaultConfig(nil)
	if !classic.IsBackingOff(p, ts.Add(5*time.Second)) {
		t.Error("classic backoff must still count attempts")
	}
}

func TestR16PodStrategy(t *testing.T) {
	cfg := hintsConfig()
	a := hPod("a", 0)
	labelled := hPod("l", 0)
	labelled.Labels = map[string]string{"fit": "label"}
	info := func(p *spec.Pod, unsched, pending []string) *spec.QueuedPodInfo {
		q := &spec.QueuedPodInfo{Pod: p, UnschedulablePlugins: spec.NewPluginSet(unsched...)}
		q.PendingPlugins = spec.NewPluginSet(pending...)
		return q
	}
	cases := []struct {
		name string
		info *spec.QueuedPodInfo
		occ  spec.Occurrence
		want spec.Strategy
	}{
		{"no rejectors", info(a, nil, nil), spec.Occurrence{Event: hNodeLabel}, spec.StrategyAfterBackoff},
		{"no hint means Queue", info(a, []string{"Fit"}, nil), spec.Occurrence{Event: hNodeAdd}, spec.StrategyAfterBackoff},
		{"hint says skip", info(a, []string{"Fit"}, nil), spec.Occurrence{Event: hNodeLabel}, spec.StrategySkip},
		{"hint says queue", info(labelled, []string{"Fit"}, nil), spec.Occurrence{Event: hNodeLabel}, spec.StrategyAfterBackoff},
		{"hint error counts as Queue", info(a, []string{"Taint"}, nil), spec.Occurrence{Event: hNodeAdd}, spec.StrategyAfterBackoff},
		{"pending plugin Queue is immediate", info(a, []string{"Taint"}, []string{"Fit"}), spec.Occurrence{Event: hNodeAdd}, spec.StrategyImmediately},
		{"pending plugin skip, other Queue", info(a, []string{"Taint"}, []string{"Fit"}), spec.Occurrence{Event: hNodeLabel}, spec.StrategySkip},
		{"unregistered event", info(a, []string{"Fit"}, nil), spec.Occurrence{Event: spec.ClusterEvent{Resource: spec.ResourcePersistentVolume, ActionType: spec.Add}}, spec.StrategySkip},
		{"broader incoming event does not match", info(labelled, []string{"Fit"}, nil), spec.Occurrence{Event: hNodeAny}, spec.StrategySkip},
		{"hints of non-rejectors are not asked", info(labelled, []string{"Taint"}, nil), spec.Occurrence{Event: hNodeLabel}, spec.StrategySkip},
		{"wildcard", info(a, []string{"Fit"}, []string{"Taint"}), spec.Occurrence{Event: spec.EventUnschedulableTimeout}, spec.StrategyAfterBackoff},
		{"force-activate of this pod", info(a, []string{"Fit"}, nil), spec.Occurrence{Event: spec.EventForceActivate, New: a}, spec.StrategyAfterBackoff},
		{"force-activate of another pod", info(a, []string{"Fit"}, nil), spec.Occurrence{Event: spec.EventForceActivate, New: labelled}, spec.StrategySkip},
		{"Pod registration covers TargetPod", info(a, []string{"Gate"}, nil),
			spec.Occurrence{Event: spec.PodUpdateEvents(a, labelled)[0], Old: a, New: a}, spec.StrategyAfterBackoff},
	}
	for _, c := range cases {
		if got := cfg.PodStrategy(c.info, c.occ); got != c.want {
			t.Errorf("%s: %s: PodStrategy = %v, want %v", spec.R16QueueingHints, c.name, got, c.want)
		}
	}
	// ReplayStrategy: the most urgent over the events; none -> skip.
	p := info(a, []string{"Fit"}, nil)
	if got := cfg.ReplayStrategy(p, nil); got != spec.StrategySkip {
		t.Errorf("%s: replay of no event = %v, want Skip", spec.R3hAddUnschedulable, got)
	}
	if got := cfg.ReplayStrategy(p, []spec.Occurrence{{Event: hNodeLabel}, {Event: hNodeAdd}}); got != spec.StrategyAfterBackoff {
		t.Errorf("%s: replay = %v, want AfterBackoff", spec.R3hAddUnschedulable, got)
	}
	if got := cfg.ReplayStrategy(info(a, nil, nil), nil); got != spec.StrategyAfterBackoff {
		t.Errorf("%s: a pod with no rejectors replays to AfterBackoff, got %v", spec.R3hAddUnschedulable, got)
	}
	if !cfg.IsEventOfInterestHints(hNodeAdd) || cfg.IsEventOfInterestHints(hNodeAny) || !cfg.IsEventOfInterestHints(spec.WildCardEvent) {
		t.Errorf("%s: IsEventOfInterestHints is wrong", spec.R4hMoveAll)
	}
	if !cfg.GatingEventMatches("Gate", spec.PodUpdateEvents(a, labelled)[0]) || cfg.GatingEventMatches("Gate", hNodeAdd) {
		t.Errorf("%s: GatingEventMatches is wrong", spec.R4hMoveAll)
	}
}

func TestR17RunPreEnqueue(t *testing.T) {
	cfg := hintsConfig()
	cfg.PreEnqueuePlugins["A"] = func(p *spec.Pod) bool { return p.Priority >= 0 }
	ok, gated, both := hPod("ok", 0), hPod("g", 0), hPod("b", -1)
	gated.Labels = map[string]string{"gated": "yes"}
	both.Labels = gated.Labels
	for _, c := range []struct {
		pod    *spec.Pod
		gating string
		want   string
	}{{ok, "", ""}, {gated, "", "Gate"}, {both, "", "A"}, {both, "Gate", "Gate"}, {ok, "Gate", ""}} {
		if got := cfg.RunPreEnqueue(c.pod, c.gating); got != c.want {
			t.Errorf("%s: RunPreEnqueue(%s, gating %q) = %q, want %q", spec.R17PreEnqueue, c.pod.Key(), c.gating, got, c.want)
		}
	}
}

func TestR15InFlightList(t *testing.T) {
	m := func(n string) spec.InFlightEntry {
		return spec.InFlightEntry{UID: spec.UID("uid-" + n), Key: spec.PodKey("ns/" + n)}
	}
	e := func(ev spec.ClusterEvent) spec.InFlightEntry {
		return spec.InFlightEntry{Event: spec.Occurrence{Event: ev}}
	}
	list := []spec.InFlightEntry{m("a"), e(hNodeAdd), m("b"), e(hNodeLabel)}
	if got := spec.EventsAfter(list, "uid-a"); len(got) != 2 || got[0].Event != hNodeAdd || got[1].Event != hNodeLabel {
		t.Errorf("%s: events after a = %v", spec.R15InFlight, got)
	}
	if got := spec.EventsAfter(list, "uid-b"); len(got) != 1 || got[0].Event != hNodeLabel {
		t.Errorf("%s: events after b = %v", spec.R15InFlight, got)
	}
	if got := spec.EventsAfter(list, "uid-x"); got != nil {
		t.Errorf("%s: a pod not in flight has no events, got %v", spec.R15InFlight, got)
	}
	// Done of b keeps a's events; Done of a drops what only a needed.
	if got := spec.TrimInFlight(list, "uid-b"); !slices.EqualFunc(got, []spec.InFlightEntry{m("a"), e(hNodeAdd), e(hNodeLabel)}, entryEq) {
		t.Errorf("%s: trim b = %v", spec.R12hDone, got)
	}
	if got := spec.TrimInFlight(list, "uid-a"); !slices.EqualFunc(got, []spec.InFlightEntry{m("b"), e(hNodeLabel)}, entryEq) {
		t.Errorf("%s: trim a = %v", spec.R12hDone, got)
	}
	if got := spec.TrimInFlight(spec.TrimInFlight(list, "uid-a"), "uid-b"); got != nil {
		t.Errorf("%s: nothing in flight must leave an empty list, got %v", spec.R12hDone, got)
	}
	if list[0].UID != "uid-a" || len(list) != 4 {
		t.Error("TrimInFlight modified its input")
	}
}

// Two lists that differ only in the order of adjacent markers are the same
// state (kube-scheduler pushes a group's members in its own member order);
// every other difference is a different state. The equivalence is sound
// only because nothing observes the order it ignores: every pod gets the
// same records and every Done leaves equivalent lists.
func TestR15InFlightEquivalent(t *testing.T) {
	m := func(n string) spec.InFlightEntry {
		return spec.InFlightEntry{UID: spec.UID("uid-" + n), Key: spec.PodKey("ns/" + n)}
	}
	e := func(ev spec.ClusterEvent) spec.InFlightEntry {
		return spec.InFlightEntry{Event: spec.Occurrence{Event: ev}}
	}
	list := []spec.InFlightEntry{m("a"), m("b"), m("c"), e(hNodeAdd), m("d"), e(hNodeLabel)}
	for _, c := range []struct {
		name  string
		other []spec.InFlightEntry
		same  bool
	}{
		{"the same list", []spec.InFlightEntry{m("a"), m("b"), m("c"), e(hNodeAdd), m("d"), e(hNodeLabel)}, true},
		{"one run in another order", []spec.InFlightEntry{m("c"), m("a"), m("b"), e(hNodeAdd), m("d"), e(hNodeLabel)}, true},
		{"a marker moved across a record", []spec.InFlightEntry{m("a"), m("b"), e(hNodeAdd), m("c"), m("d"), e(hNodeLabel)}, false},
		{"two markers swapped across a record", []spec.InFlightEntry{m("a"), m("b"), m("d"), e(hNodeAdd), m("c"), e(hNodeLabel)}, false},
		{"records in another order", []spec.InFlightEntry{m("a"), m("b"), m("c"), e(hNodeLabel), m("d"), e(hNodeAdd)}, false},
		{"a marker's UID changed", []spec.InFlightEntry{m("a"), m("b"), {UID: "uid-x", Key: "ns/c"}, e(hNodeAdd), m("d"), e(hNodeLabel)}, false},
		{"a marker twice, another missing", []spec.InFlightEntry{m("a"), m("a"), m("c"), e(hNodeAdd), m("d"), e(hNodeLabel)}, false},
		{"a marker missing", []spec.InFlightEntry{m("a"), m("b"), e(hNodeAdd), m("d"), e(hNodeLabel)}, false},
	} {
		if got := spec.InFlightEquivalent(list, c.other); got != c.same {
			t.Errorf("%s: %s: InFlightEquivalent(%v, %v) = %v, want %v", spec.R15InFlight, c.name, list, c.other, got, c.same)
		}
		if got := spec.InFlightEquivalent(c.other, list); got != c.same {
			t.Errorf("%s: %s: not symmetric", spec.R15InFlight, c.name)
		}
		if !c.same {
			continue
		}
		for _, uid := range []spec.UID{"uid-a", "uid-b", "uid-c", "uid-d"} {
			if a, b := spec.EventsAfter(list, uid), spec.EventsAfter(c.other, uid); !slices.EqualFunc(a, b, func(x, y spec.Occurrence) bool { return x.Event == y.Event }) {
				t.Errorf("%s: %s: equivalent lists give %s different records: %v and %v", spec.R15InFlight, c.name, uid, a, b)
			}
			if a, b := spec.TrimInFlight(list, uid), spec.TrimInFlight(c.other, uid); !spec.InFlightEquivalent(a, b) {
				t.Errorf("%s: %s: Done of %s leaves lists that are not equivalent: %v and %v", spec.R12hDone, c.name, uid, a, b)
			}
		}
	}
}

func entryEq(a, b spec.InFlightEntry) bool { return a.String() == b.String() && a.UID == b.UID }

// Each hints invariant must be able to fail: feed it a broken step and check
// it names itself.
func TestHintsInvariantsCatchBrokenSteps(t *testing.T) {
	cfg := hintsConfig()
	qp := func(name string, ts time.Time, count int, plugins ...string) spec.QueuedPodInfo {
		q := spec.QueuedPodInfo{Pod: hPod(name, 0), Timestamp: ts, Attempts: count, UnschedulablePlugins: spec.NewPluginSet(plugins...)}
		q.UnschedulableCount = count
		return q
	}
	marker := func(p spec.QueuedPodInfo) spec.InFlightEntry { return spec.InFlightEntry{UID: p.Pod.UID, Key: p.Key()} }
	record := func(ev spec.ClusterEvent) spec.InFlightEntry {
		return spec.InFlightEntry{Event: spec.Occurrence{Event: ev}}
	}
	a := qp("a", t0, 1, "Fit")   // rejected by Fit, backing off until window +1s
	b := qp("b", t0, 1, "Fit")   // same
	hi := qp("hi", t0, 1, "Fit") // same, but priority 9
	hi.Pod.Priority = 9
	late := qp("late", t0.Add(3*time.Second), 1, "Fit")
	flyA := a
	flyA.Attempts = 2
	gated := qp("g", t0, 0, "Gate")
	gated.GatingPlugin = "Gate"
	base := spec.Snapshot{Now: t0, SchedulingCycle: 3, MoveRequestCycle: -1}
	with := func(f func(*spec.Snapshot)) *spec.Snapshot { s := base; f(&s); return &s }
	checkBroken(t, cfg, []brokenStep{
		{"gated pod also in activeQ", "I1", &base, with(func(s *spec.Snapshot) {
			s.ActiveQ = []spec.QueuedPodInfo{gated}
			s.UnschedulablePods = []spec.QueuedPodInfo{gated}
		}), spec.StepRecord{Rule: spec.RTick}},
		{"in-flight pod without marker", "I7", &base, with(func(s *spec.Snapshot) { s.InFlight = []spec.QueuedPodInfo{flyA} }), spec.StepRecord{Rule: spec.RTick}},
		{"event kept after the last Done", "I7", &base, with(func(s *spec.Snapshot) { s.InFlightEvents = []spec.InFlightEntry{record(hNodeAdd)} }),
			spec.StepRecord{Rule: spec.RTick}},
		{"event before every marker", "I7", &base, with(func(s *spec.Snapshot) {
			s.InFlight = []spec.QueuedPodInfo{flyA}
			s.InFlightEvents = []spec.InFlightEntry{record(hNodeAdd), marker(flyA)}
		}), spec.StepRecord{Rule: spec.RTick}},
		{"marker of a pod not in flight", "I7", &base, with(func(s *spec.Snapshot) {
			s.ActiveQ = []spec.QueuedPodInfo{a}
			s.InFlightEvents = []spec.InFlightEntry{marker(a)}
		}), spec.StepRecord{Rule: spec.RTick}},
		{"flush releases a pod inside its expiry window", "I2h", with(func(s *spec.Snapshot) { s.BackoffQ = []spec.QueuedPodInfo{a} }),
			with(func(s *spec.Snapshot) { s.Now = t0.Add(1500 * time.Millisecond); s.ActiveQ = []spec.QueuedPodInfo{a} }),
			spec.StepRecord{Rule: spec.R5FlushBackoffQ}},
		{"flush keeps a pod whose window passed", "I2h", with(func(s *spec.Snapshot) { s.BackoffQ = []spec.QueuedPodInfo{a} }),
			with(func(s *spec.Snapshot) { s.Now = t0.Add(2 * time.Second); s.BackoffQ = []spec.QueuedPodInfo{a} }),
			spec.StepRecord{Rule: spec.R5FlushBackoffQ}},
		{"a count drops in backoffQ", "I2h", with(func(s *spec.Snapshot) { c := a; c.UnschedulableCount = 3; s.BackoffQ = []spec.QueuedPodInfo{c} }),
			with(func(s *spec.Snapshot) { s.BackoffQ = []spec.QueuedPodInfo{a} }), spec.StepRecord{Rule: spec.R9Update, Pod: a.Key()}},
		{"event skips backoff without a pending plugin", "I2h", with(func(s *spec.Snapshot) { s.UnschedulablePods = []spec.QueuedPodInfo{a} }),
			with(func(s *spec.Snapshot) { s.ActiveQ = []spec.QueuedPodInfo{a} }), spec.StepRecord{Rule: spec.R4MoveAll}},
		{"lost event: parked despite a Queue", "I3h",
			with(func(s *spec.Snapshot) {
				s.InFlight = []spec.QueuedPodInfo{flyA}
				s.InFlightEvents = []spec.InFlightEntry{marker(flyA), record(hNodeAdd)}
			}),
			with(func(s *spec.Snapshot) { s.UnschedulablePods = []spec.QueuedPodInfo{flyA} }),
			spec.StepRecord{Rule: spec.R3AddUnschedulable, Pod: a.Key(), PodSchedulingCycle: 3}},
		{"error retry parked", "I3h", with(func(s *spec.Snapshot) {
			f := flyA
			f.UnschedulablePlugins = nil
			s.InFlight = []spec.QueuedPodInfo{f}
			s.InFlightEvents = []spec.InFlightEntry{marker(f)}
		}),
			with(func(s *spec.Snapshot) {
				f := flyA
				f.UnschedulablePlugins = nil
				s.UnschedulablePods = []spec.QueuedPodInfo{f}
			}),
			spec.StepRecord{Rule: spec.R3AddUnschedulable, Pod: a.Key(), PodSchedulingCycle: 3}},
		{"never-popped pod parked", "I3h", &base, with(func(s *spec.Snapshot) { s.UnschedulablePods = []spec.QueuedPodInfo{a} }),
			spec.StepRecord{Rule: spec.R3AddUnschedulable, Pod: a.Key(), PodSchedulingCycle: 3}},
		{"Pop takes backoffQ while activeQ has pods", "I4", with(func(s *spec.Snapshot) {
			s.ActiveQ = []spec.QueuedPodInfo{b}
			s.BackoffQ = []spec.QueuedPodInfo{a}
		}), with(func(s *spec.Snapshot) {
			s.SchedulingCycle = 4
			s.ActiveQ = []spec.QueuedPodInfo{b}
			s.InFlight = []spec.QueuedPodInfo{flyA}
			s.InFlightEvents = []spec.InFlightEntry{marker(flyA)}
		}), spec.StepRecord{Rule: spec.R2Pop, Pod: a.Key()}},
		{"Pop from backoffQ also moves another pod", "I4h", with(func(s *spec.Snapshot) { s.BackoffQ = []spec.QueuedPodInfo{a, b} }),
			with(func(s *spec.Snapshot) {
				s.SchedulingCycle = 4
				s.ActiveQ = []spec.QueuedPodInfo{b}
				s.InFlight = []spec.QueuedPodInfo{flyA}
				s.InFlightEvents = []spec.InFlightEntry{marker(flyA)}
			}), spec.StepRecord{Rule: spec.R2Pop, Pod: a.Key()}},
		{"Pop from backoffQ out of window order", "I5h", with(func(s *spec.Snapshot) { s.BackoffQ = []spec.QueuedPodInfo{late, a} }),
			with(func(s *spec.Snapshot) {
				s.SchedulingCycle = 4
				l := late
				l.Attempts++
				s.BackoffQ = []spec.QueuedPodInfo{a}
				s.InFlight = []spec.QueuedPodInfo{l}
				s.InFlightEvents = []spec.InFlightEntry{marker(l)}
			}), spec.StepRecord{Rule: spec.R2Pop, Pod: late.Key()}},
		{"Pop from backoffQ ignores priority in the window", "I5h", with(func(s *spec.Snapshot) { s.BackoffQ = []spec.QueuedPodInfo{a, hi} }),
			with(func(s *spec.Snapshot) {
				s.SchedulingCycle = 4
				s.BackoffQ = []spec.QueuedPodInfo{hi}
				s.InFlight = []spec.QueuedPodInfo{flyA}
				s.InFlightEvents = []spec.InFlightEntry{marker(flyA)}
			}), spec.StepRecord{Rule: spec.R2Pop, Pod: a.Key()}},
	})
	// The correct versions of the steps above pass.
	ok := []struct {
		name          string
		before, after *spec.Snapshot
		step          spec.StepRecord
	}{
		{"no-op", &base, &base, spec.StepRecord{Rule: spec.RTick}},
		{"Pop from backoffQ in window order", with(func(s *spec.Snapshot) { s.BackoffQ = []spec.QueuedPodInfo{late, a} }),
			with(func(s *spec.Snapshot) {
				s.SchedulingCycle = 4
				s.BackoffQ = []spec.QueuedPodInfo{late}
				s.InFlight = []spec.QueuedPodInfo{flyA}
				s.InFlightEvents = []spec.InFlightEntry{marker(flyA)}
			}), spec.StepRecord{Rule: spec.R2Pop, Pod: a.Key()}},
		{"failure with a Queue event goes to backoffQ", with(func(s *spec.Snapshot) {
			s.InFlight = []spec.QueuedPodInfo{flyA}
			s.InFlightEvents = []spec.InFlightEntry{marker(flyA), record(hNodeLabel), record(hNodeAdd)}
		}), with(func(s *spec.Snapshot) { s.BackoffQ = []spec.QueuedPodInfo{flyA} }),
			spec.StepRecord{Rule: spec.R3AddUnschedulable, Pod: a.Key(), PodSchedulingCycle: 3}},
		{"failure with only skipped events is parked", with(func(s *spec.Snapshot) {
			s.InFlight = []spec.QueuedPodInfo{flyA}
			s.InFlightEvents = []spec.InFlightEntry{marker(flyA), record(hNodeLabel)}
		}), with(func(s *spec.Snapshot) { s.UnschedulablePods = []spec.QueuedPodInfo{flyA} }),
			spec.StepRecord{Rule: spec.R3AddUnschedulable, Pod: a.Key(), PodSchedulingCycle: 3}},
		{"flush after the window", with(func(s *spec.Snapshot) { s.BackoffQ = []spec.QueuedPodInfo{a} }),
			with(func(s *spec.Snapshot) { s.Now = t0.Add(2 * time.Second); s.ActiveQ = []spec.QueuedPodInfo{a} }),
			spec.StepRecord{Rule: spec.R5FlushBackoffQ}},
	}
	for _, c := range ok {
		if err := spec.CheckStep(cfg, c.before, c.after, c.step); err != nil {
			t.Errorf("%s: a correct step broke %v", c.name, err)
		}
	}
}

func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, unjoin(e)...)
		}
		return out
	}
	if err == nil {
		return nil
	}
	return []error{err}
}
