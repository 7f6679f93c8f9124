package conformance

import (
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/schedq/schedq/internal/cputime"
	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// The suite as a queue author uses it: each check below is shown failing
// on a target built to fail it, with the message its author would read.

// snapshotFix is the model with its snapshots rewritten by fix: an adapter
// mistake.
type snapshotFix struct {
	modelT
	fix func(*spec.Snapshot)
}

func (s snapshotFix) Snapshot() spec.Snapshot {
	snap := s.modelT.Snapshot()
	s.fix(&snap)
	return snap
}

// Each requirement of Target fails the preflight check with a message
// that names the adapter mistake, and never a rule or invariant.
func TestPreflightNamesEachMistake(t *testing.T) {
	model := func(fix func(*spec.Snapshot)) NewTarget {
		return func(t testing.TB, cfg spec.Config, start time.Time) Target {
			return snapshotFix{newModelT(t, cfg, start), fix}
		}
	}
	for _, c := range []struct {
		name string
		new  NewTarget
		want string
	}{
		{"unset-now", model(func(s *spec.Snapshot) { s.Now = time.Time{} }),
			"adapter mistake: Snapshot().Now is not set"},
		{"wrong-start", model(func(s *spec.Snapshot) { s.Now = s.Now.Add(time.Hour) }),
			"adapter mistake: Snapshot().Now is 2026-01-01T01:00:00Z on a fresh target, not the start time given to NewTarget (2026-01-01T00:00:00Z)"},
		{"now-ignores-advance", func(t testing.TB, cfg spec.Config, start time.Time) Target {
			return snapshotFix{newModelT(t, cfg, start), func(s *spec.Snapshot) { s.Now = start }}
		}, "adapter mistake: Snapshot().Now does not follow Advance: Advance(1s) moved it from 2026-01-01T00:00:00Z to 2026-01-01T00:00:00Z"},
		{"unsorted-lists", model(func(s *spec.Snapshot) { slices.Reverse(s.ActiveQ) }),
			"adapter mistake: Snapshot() lists activeQ not sorted by key (ns/c before ns/a); sort each list with spec.SortPods"},
		{"unnormalised-plugins", model(func(s *spec.Snapshot) {
			for _, l := range [][]spec.QueuedPodInfo{s.BackoffQ, s.UnschedulablePods} {
				for i := range l {
					l[i].UnschedulablePlugins = append(slices.Clone(l[i].UnschedulablePlugins), "InterPodAffinity")
				}
			}
		}), "not a normalised plugin set (sorted, no duplicates); build it with spec.NewPluginSet"},
		{"metrics-claimed", func(t testing.TB, cfg spec.Config, start time.Time) Target {
			m := newModelT(t, cfg, start)
			m.info.Observes.Metrics = true
			return m
		}, mistakeNoMetrics},
		{"no-name", func(t testing.TB, cfg spec.Config, start time.Time) Target {
			m := newModelT(t, cfg, start)
			m.info.Name = ""
			return m
		}, "adapter mistake: Info().Name is empty"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := &recordTB{TB: t}
			done := make(chan struct{})
			go func() { defer close(done); Preflight(rec, c.new) }()
			<-done
			out := rec.String()
			if !rec.Failed() || !strings.Contains(out, c.want) {
				t.Fatalf("preflight: failed=%v, want a failure naming %q:\n%s", rec.Failed(), c.want, out)
			}
			if regexp.MustCompile(`\b(R\d+|I\d)\b`).MatchString(out) {
				t.Errorf("the adapter mistake is blamed on a rule or invariant:\n%s", out)
			}
		})
	}
	// The real adapters pass.
	for name, nt := range map[string]NewTarget{
		"model": func(t testing.TB, cfg spec.Config, start time.Time) Target { return newModelT(t, cfg, start) },
		"impl":  func(t testing.TB, cfg spec.Config, start time.Time) Target { return newImplT(t, cfg, start) },
	} {
		rec := &recordTB{TB: t}
		Preflight(rec, nt)
		if rec.Failed() {
			t.Errorf("%s fails the preflight check:\n%s", name, rec)
		}
	}
}

// A known difference declared in Options is reported as known where the
// scenario fails, and fails as stale where it does not (unless declared
// intermittent: a race that a run may not reach); Options naming
// no scenario of the run, or giving no reason, are refused.
func TestOptionsKnownDifferences(t *testing.T) {
	const name = "done/ends-the-time-in-flight"
	f := ScenarioFile{Name: name, Text: catalogueText(t, name)}
	own := KnownDifference{Reason: "our Done keeps the pod until the binding is confirmed", Source: "myqueue/done.go:12", Kind: KindDeparture}
	run := func(nt NewTarget, k KnownDifference) (Result, *recordTB) {
		rec := &recordTB{TB: t}
		var res Result
		done := make(chan struct{})
		go func() { defer close(done); res, _ = runFile(rec, nt, f, k) }()
		<-done
		return res, rec
	}
	broken := func(t testing.TB, cfg spec.Config, start time.Time) Target { return newBrokenDone(t, cfg, start) }
	res, rec := run(broken, own)
	if rec.Failed() || res.Outcome != Known || !strings.Contains(res.Detail, own.Reason) || !strings.Contains(res.Detail, own.Source) {
		t.Errorf("declared difference on the broken target: %+v, failed=%v\n%s", res, rec.Failed(), rec)
	}
	res, rec = run(broken, KnownDifference{})
	if !rec.Failed() || res.Outcome != Fail {
		t.Errorf("undeclared difference: %+v, failed=%v", res, rec.Failed())
	}
	res, rec = run(func(t testing.TB, cfg spec.Config, start time.Time) Target { return newModelT(t, cfg, start) }, own)
	if !rec.Failed() || res.Outcome != Stale || !strings.Contains(rec.String(), "declares a known difference for test-model") {
		t.Errorf("declared difference on a target without it: %+v, failed=%v\n%s", res, rec.Failed(), rec)
	}
	intermittent := own
	intermittent.Intermittent = true
	res, rec = run(func(t testing.TB, cfg spec.Config, start time.Time) Target { return newModelT(t, cfg, start) }, intermittent)
	if rec.Failed() || res.Outcome != Pass {
		t.Errorf("an intermittent difference that did not show: %+v, failed=%v\n%s", res, rec.Failed(), rec)
	}
	if res, rec = run(broken, intermittent); rec.Failed() || res.Outcome != Known {
		t.Errorf("an intermittent difference that showed: %+v, failed=%v\n%s", res, rec.Failed(), rec)
	}
	other := own
	other.Profiles = []string{"some-other-profile"}
	if res, rec = run(broken, other); res.Outcome != Fail || !rec.Failed() {
		t.Errorf("a difference declared for another profile excused this one: %+v", res)
	}

	files := []ScenarioFile{f}
	for _, c := range []struct {
		opts Options
		want string
	}{
		{Options{KnownDifferences: map[string]KnownDifference{"done/ends-the-time-in-fligth": own}}, `names "done/ends-the-time-in-fligth", which is not a scenario of this run`},
		{Options{KnownDifferences: map[string]KnownDifference{name: {Source: "x"}}}, "has no Reason"},
		{Options{KnownDifferences: map[string]KnownDifference{name: {Reason: "r", Source: "x"}}}, "has no kind"},
		{Options{KnownDifferences: map[string]KnownDifference{name: {Reason: "r", Kind: "wontfix"}}}, `unknown kind "wontfix"`},
		{Options{Ignore: []Observation{"order"}}, `unknown observation "order"`},
		{Options{Checks: -1}, "Options.Checks is -1"},
	} {
		if err := c.opts.validate(files); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("validate(%+v) = %v, want an error naming %q", c.opts, err, c.want)
		}
	}
	if err := (Options{KnownDifferences: map[string]KnownDifference{name: own}}).validate(files); err != nil {
		t.Error(err)
	}
}

// Run with Options: the declared difference is known, Scenarios selects
// without switching off the random runs, and the report says what ran.
func TestRunReportsWhatRan(t *testing.T) {
	dir := t.TempDir()
	why := KnownDifference{Reason: "our Done ignores a UID not in flight, as upstream's does", Kind: KindDeparture}
	Run(t, func(t testing.TB, cfg spec.Config, start time.Time) Target {
		return silentDone{newModelT(t, cfg, start)}
	}, Options{
		Scenarios: "^done/",
		KnownDifferences: map[string]KnownDifference{
			"done/after-a-failure-changes-nothing":   why,
			"done/of-an-unknown-uid-changes-nothing": why,
		},
		Checks:     20,
		Ignore:     []Observation{IgnoreTimestamps},
		ResultsDir: dir,
	})
	r := readReport(t, filepath.Join(dir, "test-model.json"))
	i := slices.IndexFunc(r.Results, func(r Result) bool { return r.Scenario == "model-differential random runs" })
	if i < 0 || r.Results[i].Outcome != Pass || r.Results[i].Detail != "20 checks, ignoring timestamps (so no step invariants)" && !strings.Contains(r.Results[i].Detail, "-rapid.checks") {
		t.Errorf("the random runs did not run as asked: %+v", r.Results)
	}
	if !regexp.MustCompile(`^conformance test-model: preflight ok; 3 of \d+ scenarios ran \(selected by Scenarios="\^done/"\): 1 pass, 0 fail, 2 known differences, 0 stale, 0 n/a; classic random runs: 20 checks.*: pass$`).MatchString(r.Summary) {
		t.Errorf("summary = %q", r.Summary)
	}
}

// silentDone ignores a Done of a UID not in flight.
type silentDone struct{ modelT }

func (s silentDone) Done(uid spec.UID) error { _ = s.modelT.Done(uid); return nil }

// lostFirstAttempt forgets InitialAttemptTimestamp: it differs from the
// model in timestamps only.
type lostFirstAttempt struct{ modelT }

func (l lostFirstAttempt) Add(p *spec.Pod) error { return l.modelT.Add(p) }

func (l lostFirstAttempt) Snapshot() spec.Snapshot {
	s := l.modelT.Snapshot()
	for _, pl := range s.Places() {
		for i := range pl.Pods {
			pl.Pods[i].InitialAttemptTimestamp = time.Time{}
		}
	}
	return s
}

func (l lostFirstAttempt) Pop() (*spec.QueuedPodInfo, int64, error) {
	p, c, err := l.modelT.Pop()
	if p != nil {
		p.InitialAttemptTimestamp = time.Time{}
	}
	return p, c, err
}

// randomRun runs the random runs on a target, recording instead of
// failing, with rapid's fail files off.
func randomRun(t *testing.T, nt NewTarget, ignore ...Observation) *recordTB {
	t.Helper()
	return randomRunIn(t, nt, spec.ProfileClassic, ignore...)
}

// randomRunIn is randomRun in profile p.
func randomRunIn(t *testing.T, nt NewTarget, p spec.Profile, ignore ...Observation) *recordTB {
	t.Helper()
	setFlag(t, "rapid.nofailfile", "true")
	rec := &recordTB{TB: t}
	ro := randomOptions(Options{Ignore: ignore})
	done := make(chan struct{})
	go func() { defer close(done); checkDifferential(rec, t, nt, ro.ignore, p) }()
	<-done
	return rec
}

func setFlag(t *testing.T, name, value string) {
	t.Helper()
	old := flag.Lookup(name).Value.String()
	if err := flag.Set(name, value); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = flag.Set(name, old) })
}

// Ignore leaves out exactly what it names: a target that differs in
// timestamps passes with IgnoreTimestamps, and fails without it, or with
// another observation ignored, on the differing field.
func TestIgnore(t *testing.T) {
	nt := func(t testing.TB, cfg spec.Config, start time.Time) Target {
		return lostFirstAttempt{newModelT(t, cfg, start)}
	}
	if rec := randomRun(t, nt, IgnoreTimestamps); rec.Failed() {
		t.Errorf("ignoring timestamps, the random runs fail:\n%s", rec)
	}
	rec := randomRun(t, nt, IgnoreAttempts, IgnoreMetrics)
	if !rec.Failed() {
		t.Fatal("ignoring attempts, the random runs pass a target that drops InitialAttemptTimestamp")
	}
	for _, want := range []string{"random run: target and model disagree", "observed: places, schedulingCycle, pod fields, moveRequestCycle, closed, hint counts, in-flight list, ignoring attempts, metrics)", "  model:  ", "  target: "} {
		if !strings.Contains(rec.String(), want) {
			t.Errorf("the failure lacks %q:\n%s", want, rec)
		}
	}
}

// brokenMetrics is the implementation with metrics that forget the
// backoffQ flush.
type brokenMetrics struct{ implT }

func (b brokenMetrics) Metrics() Metrics {
	m := b.PriorityQueue.Metrics()
	out := Metrics{PendingPods: m.PendingPods, IncomingPods: map[IncomingSeries]uint64{}}
	for k, v := range m.IncomingPods {
		if k.Event != spec.BackoffComplete {
			out.IncomingPods[IncomingSeries{k.Queue, k.Event}] = v
		}
	}
	return out
}

func (b brokenMetrics) Info() TargetInfo {
	p := b.implT.Info()
	p.Observes.Metrics = true
	return p
}

// Metrics are compared after every step where the target reports them:
// a count the target forgets fails the step, citing R14, with each
// differing series as "model: X / target: Y"; ignored, it passes.
func TestMetricsCompared(t *testing.T) {
	nt := func(t testing.TB, cfg spec.Config, start time.Time) Target {
		return brokenMetrics{newImplT(t, cfg, start)}
	}
	name := "backoff-flush/releases-a-pod-only-past-its-expiry"
	d, rec := play(t, name, catalogueText(t, name), nt)
	if rec.Failed() || !d.failed {
		t.Fatalf("failed=%v file ok=%v:\n%s", d.failed, !rec.Failed(), rec)
	}
	want := "R14 Metrics: the metrics after R5 flushBackoffQCompleted differ\n  scheduler_queue_incoming_pods_total{queue=\"active\",event=\"BackoffComplete\"}: model: 1 / target: 0"
	if !strings.Contains(d.failure, want) {
		t.Errorf("the failure lacks %q:\n%s", want, d.failure)
	}
	if rec := randomRun(t, nt, IgnoreMetrics); rec.Failed() {
		t.Errorf("ignoring metrics, the random runs fail:\n%s", rec)
	}
}

// brokenHintsMetrics is the implementation with the hints profile's
// metrics (R14h) wrong in one way each: gated pods counted as
// unschedulable, Pop from backoffQ not counted, or the pending plugins
// left out of scheduler_unschedulable_pods.
type brokenHintsMetrics struct {
	implT
	how string
}

func (b brokenHintsMetrics) Metrics() Metrics {
	m := b.PriorityQueue.Metrics()
	out := Metrics{PendingPods: maps.Clone(m.PendingPods), IncomingPods: map[IncomingSeries]uint64{},
		UnschedulablePods: maps.Clone(m.UnschedulablePods)}
	for k, v := range m.IncomingPods {
		if b.how == "no PopFromBackoffQ" && k.Event == eventPopFromBackoffQ {
			continue
		}
		out.IncomingPods[IncomingSeries{k.Queue, k.Event}] = v
	}
	if b.how == "gated as unschedulable" {
		out.PendingPods[MetricQueueUnschedulable] += out.PendingPods[MetricQueueGated]
		out.PendingPods[MetricQueueGated] = 0
	}
	if b.how == "no pending plugins" {
		snap := b.PriorityQueue.Snapshot()
		for _, p := range snap.Places() {
			for _, pod := range p.Pods {
				if p.Loc == spec.InFlight {
					continue
				}
				for _, pl := range pod.PendingPlugins {
					if !pod.UnschedulablePlugins.Has(pl) {
						out.UnschedulablePods[pl]--
					}
				}
			}
		}
	}
	return out
}

func (b brokenHintsMetrics) Info() TargetInfo {
	p := b.implT.Info()
	p.Observes.Metrics = true
	return p
}

// The hints profile's metrics (R14h) are compared after every step as the
// classic ones are: each way of getting one series wrong fails a scenario
// that exercises it, citing R14h with the series as "model: X / target:
// Y". The hints random runs (100 sequences here) catch the gated pods
// counted as unschedulable at once, within 3 sequences in 20 of 20 runs,
// and pass when told to ignore metrics. They catch the other two more
// slowly (a Pop from backoffQ not counted: in 4 runs of 5; pending plugins
// left out: in 18 runs of 20, after up to 62 sequences), too seldom to
// assert here; the scenarios catch them every time.
func TestHintsMetricsCompared(t *testing.T) {
	for _, c := range []struct {
		how, scenario string
		want          string
		random        bool // the random runs catch it every time
	}{
		{"gated as unschedulable", "hints/gated/add-of-a-gated-pod-waits-in-unschedulablePods",
			"R14h Metrics: the metrics after R1h Add differ\n" +
				"  scheduler_pending_pods{queue=\"gated\"}: model: 1 / target: 0\n" +
				"  scheduler_pending_pods{queue=\"unschedulable\"}: model: 0 / target: 1", true},
		{"no PopFromBackoffQ", "hints/pop/a-blocked-pop-wakes-for-a-rejected-pod-entering-backoffQ",
			", step 5: fail a plugins=(Fit)\n" +
				"R14h Metrics: the metrics after R3h AddUnschedulableIfNotPresent differ\n" +
				"  scheduler_queue_incoming_pods_total{queue=\"active\",event=\"PopFromBackoffQ\"}: model: 1 / target: 0", false},
		{"no pending plugins", "hints/failure/a-pending-plugins-queue-goes-to-activeQ",
			"R14h Metrics: the metrics after R3h AddUnschedulableIfNotPresent differ\n" +
				"  scheduler_unschedulable_pods{plugin=\"Fit\"}: model: 1 / target: 0", false},
	} {
		t.Run(c.how, func(t *testing.T) {
			nt := func(t testing.TB, cfg spec.Config, start time.Time) Target {
				return brokenHintsMetrics{newImplT(t, cfg, start), c.how}
			}
			d, rec := play(t, c.scenario, catalogueText(t, c.scenario), nt)
			if rec.Failed() || !d.failed {
				t.Fatalf("failed=%v file ok=%v:\n%s", d.failed, !rec.Failed(), rec)
			}
			if !strings.Contains(d.failure, c.want) {
				t.Errorf("the failure lacks %q:\n%s", c.want, d.failure)
			}
			if !c.random {
				return
			}
			rec = hintsRandomRun(t, nt)
			if !rec.Failed() || !strings.Contains(rec.String(), "R14h Metrics: the metrics after") {
				t.Errorf("the hints random runs do not catch %s:\n%s", c.how, rec)
			}
			if rec := hintsRandomRun(t, nt, IgnoreMetrics); rec.Failed() {
				t.Errorf("ignoring metrics, the hints random runs fail:\n%s", rec)
			}
		})
	}
}

// hintsRandomRun is randomRun in the hints profile.
func hintsRandomRun(t *testing.T, nt NewTarget, ignore ...Observation) *recordTB {
	t.Helper()
	return randomRunIn(t, nt, spec.ProfileHints, ignore...)
}

// offByOne releases from backoffQ a pod whose expiry equals now: the
// classic backoff bug (R5, R7: such a pod is still backing off).
type offByOne struct{ modelT }

func (o offByOne) FlushBackoffQCompleted() {
	o.Model.FlushBackoffQCompleted()
	cfg := o.Model.Config()
	for _, p := range o.Model.Snapshot().BackoffQ {
		if cfg.BackoffExpiry(&p).Equal(o.Model.Now()) {
			_ = o.Model.Activate([]*spec.Pod{p.Pod})
		}
	}
}

// How many random runs it takes to catch the off-by-one, over 20 seeds:
// every seed must catch it within DefaultChecks. The figures are logged
// (go test -v -run TestChecksToCatchOffByOne).
func TestChecksToCatchOffByOne(t *testing.T) {
	skipShort(t)
	setFlag(t, "rapid.shrinktime", "50ms")
	setFlag(t, "rapid.checks", strconv.Itoa(DefaultChecks))
	nt := func(t testing.TB, cfg spec.Config, start time.Time) Target { return offByOne{newModelT(t, cfg, start)} }
	after := regexp.MustCompile(`\[rapid\] failed after (\d+) tests`)
	var counts []int
	for seed := 1; seed <= 20; seed++ {
		setFlag(t, "rapid.seed", strconv.Itoa(seed))
		rec := randomRun(t, nt)
		m := after.FindStringSubmatch(rec.String())
		if !rec.Failed() || m == nil {
			t.Fatalf("seed %d: %d random runs did not catch the off-by-one:\n%s", seed, DefaultChecks, rec)
		}
		if !strings.Contains(rec.String(), "R5 flushBackoffQCompleted left a different state") {
			t.Errorf("seed %d: the failure does not cite R5:\n%s", seed, rec)
		}
		n, _ := strconv.Atoi(m[1])
		counts = append(counts, n+1)
	}
	slices.Sort(counts)
	sum := 0
	for _, n := range counts {
		sum += n
	}
	t.Logf("checks to catch the off-by-one over %d seeds: median %d, mean %.1f, max %d", len(counts), counts[len(counts)/2], float64(sum)/float64(len(counts)), counts[len(counts)-1])
}

// skipShort skips a test that shows what a full count of random runs
// catches: under -short rapid runs a fifth of -rapid.checks, so the
// broken target it must catch may pass.
func skipShort(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: rapid runs a fifth of the checks, and this test shows what the full count catches")
	}
}

// rapid's fail files go to the directory asked for, never to the
// package's testdata.
func TestFailFileDir(t *testing.T) {
	dir := t.TempDir()
	if _, err := failFileDir(t, dir); err != nil {
		t.Fatal(err)
	}
	setFlag(t, "rapid.shrinktime", "50ms")
	// Enough that a fifth of them (-short) still catch the broken
	// target; the runs stop at the first failure.
	setFlag(t, "rapid.checks", "2000")
	rec := &recordTB{TB: t}
	done := make(chan struct{})
	go func() { defer close(done); checkDifferential(rec, t, newBrokenDone, nil, spec.ProfileClassic) }()
	<-done
	if !rec.Failed() {
		t.Fatal("the broken target passed")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "testdata", "rapid", "*", "*.fail"))
	if len(files) != 1 {
		t.Errorf("fail files under %s: %v\n%s", dir, files, rec)
	}
}

// BenchmarkRandomRuns measures one random run (a check: an operation
// sequence of about 30 steps compared with the model after each) on the
// implementation and on the model; DefaultChecks is chosen with it.
func BenchmarkRandomRuns(b *testing.B) {
	for name, nt := range map[string]NewTarget{
		"impl":  func(t testing.TB, cfg spec.Config, start time.Time) Target { return newImplT(t, cfg, start) },
		"model": func(t testing.TB, cfg spec.Config, start time.Time) Target { return newModelT(t, cfg, start) },
	} {
		b.Run(name, func(b *testing.B) {
			old := flag.Lookup("rapid.checks").Value.String()
			defer func() { _ = flag.Set("rapid.checks", old) }()
			_ = flag.Set("rapid.checks", strconv.Itoa(b.N))
			b.ResetTimer()
			cpu := cputime.Start()
			checkDifferential(b, b, nt, nil, spec.ProfileClassic)
			cpu.Report(b)
		})
	}
}

// The metrics the model counts (R14), worked out by hand for a sequence
// that enters every place by every route.
func TestModelMetrics(t *testing.T) {
	got, state := countModelMetrics(t, schedqtest.Config(),
		"add a", "add b", "pop", "pop",
		"fail a plugins=(NodeResourcesFit)", // unschedulable, ScheduleAttemptFailure
		"fail b",                            // backoff (no plugin), ScheduleAttemptFailure
		"move NodeAdd",                      // a, backing off: backoff, NodeAdd
		"tick 2s", "flush-backoff",          // a, b: active, BackoffComplete
		"pop", "fail a plugins=(NodeResourcesFit)", // unschedulable again
		"activate a",                    // active, ForceActivate
		"update b labels=(v=x)",         // in place: nothing
		"update e",                      // unknown: added, UnschedulablePodUpdate
		"delete e", "pop", "done uid-b", // nothing enters a place
	)
	want := Metrics{
		PendingPods: map[string]int{"active": 0, "backoff": 0, "unschedulable": 0, "gated": 0},
		IncomingPods: map[IncomingSeries]uint64{
			{"active", "UnschedulablePodAdd"}:           2,
			{"unschedulable", "ScheduleAttemptFailure"}: 2,
			{"backoff", "ScheduleAttemptFailure"}:       1,
			{"backoff", "NodeAdd"}:                      1,
			{"active", "BackoffComplete"}:               2,
			{"active", "ForceActivate"}:                 1,
			{"active", "UnschedulablePodUpdate"}:        1,
		},
	}
	want.PendingPods["active"] = 1 // a, activated; b was popped and done
	wantModelMetrics(t, want, got, state)
}

// wantModelMetrics fails t if the metrics the model counted (got, after
// the ops that left state) are not the ones worked out by hand (want).
func wantModelMetrics(t *testing.T, want, got Metrics, state string) {
	t.Helper()
	if d := diffMetrics(want, got); d != "" {
		t.Errorf("the model's metrics (left: by hand as model, right: counted as target):\n%s\nstate:\n%s", d, state)
	}
}

// countModelMetrics plays ops on the model with cfg and returns the
// metrics the suite expects of a target after them, and the state.
func countModelMetrics(t *testing.T, cfg spec.Config, ops ...string) (Metrics, string) {
	t.Helper()
	run, err := schedqtest.NewModelRun(cfg, schedqtest.Start)
	if err != nil {
		t.Fatal(err)
	}
	mm := metricsModel{cfg: cfg}
	for _, op := range schedqtest.MustParseOps(t, ops...) {
		before, upd := run.Model.Snapshot(), updateOf(run, op)
		if _, _, err := run.ApplyOnly(op); err != nil {
			t.Fatalf("%s: %v", op, err)
		}
		after := run.Model.Snapshot()
		mm.step(op, upd, &before, &after)
	}
	s := run.Model.Snapshot()
	return mm.expected(&s), run.Render()
}

// The metrics the model counts in the hints profile (R14h), worked out by
// hand for a sequence that enters every place by every route of that
// profile: gated pods apart, a gated pod added again (its key is not new
// to unschedulablePods: no count), a Pop from backoffQ, an update's own
// event label, an update that re-creates an in-flight pod, and the
// rejectors of the queued pods by plugin.
func TestModelMetricsHints(t *testing.T) {
	got, state := countModelMetrics(t, schedqtest.HintsConfig(),
		"add a",                      // active, UnscheduledPodAdd
		"add g labels=(gated=yes)",   // unschedulable (gated), UnscheduledPodAdd
		"add g labels=(gated=yes)",   // still there: nothing
		"pop",                        // a in flight
		"move NodeAdd",               // g: not its gating plugin's event; recorded for a
		"fail a plugins=(Fit)",       // the NodeAdd replayed: backoff, ScheduleAttemptFailure
		"pop",                        // a from backoffQ: active, PopFromBackoffQ
		"fail a plugins=(Fit)",       // nothing to replay: unschedulable, ScheduleAttemptFailure
		"update g labels=(gated=no)", // Gate's hint says Queue: active, TargetPodUpdatePodLabel
		"move NodeAdd",               // a, backing off: backoff, NodeAdd
		"tick 3s", "flush-backoff",   // a: active, BackoffComplete
		"delete g", "pop", // nothing enters a place
		"update a uid=uid-a-2",        // re-created in flight: active, UnscheduledPodAdd
		"pop", "fail a plugins=(Fit)", // unschedulable, ScheduleAttemptFailure
		"activate a",                       // active, ForceActivate
		"pop", "fail a plugins=(Affinity)", // unschedulable, ScheduleAttemptFailure
		"tick 6m", "flush-leftover", // active, UnschedulableTimeout
		"update e",                 // unknown: active, UnscheduledPodAdd
		"add h labels=(gated=yes)", // unschedulable (gated), UnscheduledPodAdd
	)
	want := Metrics{
		// a and e in activeQ; h gated.
		PendingPods: map[string]int{"active": 2, "backoff": 0, "unschedulable": 0, "gated": 1},
		IncomingPods: map[IncomingSeries]uint64{
			{"active", "UnscheduledPodAdd"}:             3,
			{"unschedulable", "UnscheduledPodAdd"}:      2,
			{"backoff", "ScheduleAttemptFailure"}:       1,
			{"active", "PopFromBackoffQ"}:               1,
			{"unschedulable", "ScheduleAttemptFailure"}: 3,
			{"active", "TargetPodUpdatePodLabel"}:       1,
			{"backoff", "NodeAdd"}:                      1,
			{"active", "BackoffComplete"}:               1,
			{"active", "ForceActivate"}:                 1,
			{"active", "UnschedulableTimeout"}:          1,
		},
		// a keeps its rejector in activeQ (Pop clears nothing); h's gating
		// plugin is its rejector.
		UnschedulablePods: map[string]int{"Affinity": 1, "Gate": 1},
	}
	wantModelMetrics(t, want, got, state)
}

// An update of a parked pod is counted under the event between the old
// object the caller passes and the new one (R9h, R14h), not between the
// objects the queue held: the parked pod holds the object its failure
// handed back (no label), the caller's old one is the version it updated
// while the pod was in flight (gated=yes). Counted from the held objects,
// the label update vanishes; a random run of make verify met that.
func TestModelMetricsHintsUpdateOfTheCallersObject(t *testing.T) {
	got, state := countModelMetrics(t, schedqtest.HintsConfig(),
		"add a", "pop",
		"update a labels=(gated=yes)", // in flight: recorded
		"fail a plugins=(Gate)",       // unschedulable (the recorded update does not ungate it), ScheduleAttemptFailure
		"update a labels=()",          // gated=yes -> (): Gate's hint queues it: backoff, TargetPodUpdatePodLabel
	)
	want := Metrics{
		PendingPods: map[string]int{"active": 0, "backoff": 1, "unschedulable": 0, "gated": 0},
		IncomingPods: map[IncomingSeries]uint64{
			{"active", "UnscheduledPodAdd"}:             1,
			{"unschedulable", "ScheduleAttemptFailure"}: 1,
			{"backoff", "TargetPodUpdatePodLabel"}:      1,
		},
		UnschedulablePods: map[string]int{"Gate": 1},
	}
	wantModelMetrics(t, want, got, state)
}

// refusesHints is the model as a target that refuses the hints profile's
// config, as a classic-only queue does.
func refusesHints(t testing.TB, cfg spec.Config, start time.Time) Target {
	if cfg.Profile == spec.ProfileHints {
		t.Fatal(fmt.Errorf("%w: this queue has no hints profile", spec.ErrInvalidConfig))
	}
	return newModelT(t, cfg, start)
}

// helperEnv makes TestNotApplicableRun run Run, for TestNotApplicableIsSkipped
// to read its verdicts.
const helperEnv = "SCHEDQ_CONFORMANCE_NA_HELPER"

func TestNotApplicableRun(t *testing.T) {
	if os.Getenv(helperEnv) == "" {
		t.Skip("run by TestNotApplicableIsSkipped")
	}
	Run(t, refusesHints, Options{Scenarios: "^(done/ends-the-time-in-flight|hints/done/trims-the-events-no-pod-needs)$", SkipDifferential: "one scenario a profile"})
}

// An n/a scenario is a skip, with its reason, never a pass; the summary
// counts it as n/a.
func TestNotApplicableIsSkipped(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestNotApplicableRun$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), helperEnv+"=1")
	b, err := cmd.CombinedOutput()
	out := string(b)
	if err != nil {
		t.Fatalf("the run failed: %v\n%s", err, out)
	}
	for _, want := range []string{
		"--- SKIP: TestNotApplicableRun/hints/done/trims-the-events-no-pod-needs",
		"the target refuses the hints profile's config",
		"--- PASS: TestNotApplicableRun/done/ends-the-time-in-flight",
		"1 pass, 0 fail, 0 known differences, 0 stale, 1 n/a",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the run's output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "--- PASS: TestNotApplicableRun/hints/") {
		t.Errorf("an n/a scenario shows as PASS:\n%s", out)
	}
}

// SkipDifferential skips the random runs of every profile,
// SkipDifferentialIn (and the deprecated SkipHintsDifferential) those of
// the profiles named, and the report and the summary say which.
func TestSkipDifferentialSaysWhatItSkips(t *testing.T) {
	const why = "our queue's semantics differ by design"
	for _, c := range []struct {
		name           string
		opts           Options
		classic, hints Outcome
		summary        string
	}{
		{"every profile", Options{SkipDifferential: why}, NotApplicable, NotApplicable,
			"; classic random runs skipped: " + why + "; hints random runs skipped: " + why},
		{"classic only", Options{SkipDifferentialIn: map[spec.Profile]string{spec.ProfileClassic: why}}, NotApplicable, Pass,
			"; classic random runs skipped: " + why + "; hints random runs: "},
		{"hints only, deprecated", Options{SkipHintsDifferential: why}, Pass, NotApplicable,
			": pass; hints random runs skipped: " + why},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			opts := c.opts
			opts.Scenarios, opts.Checks, opts.ResultsDir = "^done/ends-the-time-in-flight$", 5, dir
			Run(t, func(t testing.TB, cfg spec.Config, start time.Time) Target { return newModelT(t, cfg, start) }, opts)
			r := readReport(t, filepath.Join(dir, "test-model.json"))
			for name, want := range map[string]Outcome{"model-differential random runs": c.classic, "model-differential random runs (hints)": c.hints} {
				i := slices.IndexFunc(r.Results, func(r Result) bool { return r.Scenario == name })
				if i < 0 || r.Results[i].Outcome != want {
					t.Errorf("%s: %+v, want %s", name, r.Results, want)
				}
			}
			if !strings.Contains(r.Summary, c.summary) {
				t.Errorf("the summary does not say which random runs were skipped (want %q): %s", c.summary, r.Summary)
			}
		})
	}
}

// Each checkout has a fail file directory of its own: a fail file that
// another checkout on the machine left is never replayed here.
func TestFailFileDirIsPerCheckout(t *testing.T) {
	var dirs []string
	for _, co := range []string{"one", "two"} {
		root := filepath.Join(t.TempDir(), co, "schedq")
		if err := os.MkdirAll(filepath.Join(root, "conformance"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Chdir(filepath.Join(root, "conformance"))
		dirs = append(dirs, DefaultFailFileDir())
	}
	if dirs[0] == dirs[1] {
		t.Errorf("two checkouts share the fail file directory %s", dirs[0])
	}
	for _, d := range dirs {
		if !strings.HasPrefix(d, os.TempDir()) {
			t.Errorf("fail file directory %s is not in the temporary directory", d)
		}
	}
}

// readReport reads a report Run wrote (Options.ResultsDir).
func readReport(t *testing.T, file string) Report {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var r Report
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// A queue of the hints profiles only (a gang scheduler's, say) refuses the
// classic config: the preflight checks its adapter in the first profile
// it accepts instead of stopping there, and a target that refuses every
// profile fails the preflight saying so.
func TestPreflightRunsInAProfileTheTargetAccepts(t *testing.T) {
	only := func(p spec.Profile) NewTarget {
		return func(t testing.TB, cfg spec.Config, start time.Time) Target {
			if cfg.Profile != p {
				t.Fatal(fmt.Errorf("%w: this queue has only the %v profile", spec.ErrInvalidConfig, p))
			}
			return newModelT(t, cfg, start)
		}
	}
	for _, p := range []spec.Profile{spec.ProfileHints, spec.ProfilePodGroups} {
		rec := &recordTB{TB: t}
		done := make(chan struct{})
		go func() { defer close(done); Preflight(rec, only(p)) }()
		if <-done; rec.Failed() {
			t.Errorf("the preflight of a queue of the %v profile only failed:\n%s", p, rec)
		}
	}
	none := func(t testing.TB, cfg spec.Config, start time.Time) Target {
		t.Fatal(fmt.Errorf("%w: this queue has no profile", spec.ErrInvalidConfig))
		return nil
	}
	rec := &recordTB{TB: t}
	done := make(chan struct{})
	go func() { defer close(done); Preflight(rec, none) }()
	<-done
	if !rec.Failed() || !strings.Contains(rec.String(), "the target refuses the config of every profile") {
		t.Errorf("the preflight of a queue that refuses every profile: want a failure saying so, got:\n%s", rec)
	}
}
