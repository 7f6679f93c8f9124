package concurrent

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/schedq/schedq/conformance"
	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// PodGroupTarget is a target of the podgroups profile: the pod-group calls
// of spec.PodGroupQueue that the races below make, on a conformance.Target.
// It asks less than spec.PodGroupQueue (no spec.ObjectQueue), so that a
// queue whose adapter takes no caller objects, as upstream's does not, is
// checked too. Every method must be safe for concurrent use.
type PodGroupTarget interface {
	conformance.Target
	PopEntity() (spec.QueuedEntity, int64, error)
	AddAttemptedPodGroupIfNeeded(gInfo *spec.QueuedPodGroupInfo, schedulingCycle int64, status spec.AttemptStatus) error
	AddPodGroup(pg *spec.PodGroup) error
}

// PodGroupsConfig is the config the races run with: the hints profile's
// test config in the podgroups profile.
func PodGroupsConfig() spec.Config {
	cfg := schedqtest.HintsConfig()
	cfg.Profile = spec.ProfilePodGroups
	return cfg
}

// GroupRace is one of the pod-group races: two goroutines, released
// together, play the scheduler's binding goroutine and its scheduling
// goroutine around one group's cycle, and the state after both is judged
// by the contract (G2, G4, G5, IG1-IG4).
type GroupRace struct {
	// Name is stable: tests and known findings refer to it.
	Name, Title string
	run         func(r *groupRun) (outcome, violation string)
}

// GroupRaceResult is what the trials of one race found on one target:
// how many broke the contract (Violations, the first one described in
// First), and how often each legal outcome came out.
type GroupRaceResult struct {
	Name       string `json:"name"`
	Title      string `json:"title"`
	Ran        int    `json:"ran"`
	Violations int    `json:"violations"`
	First      string `json:"first,omitempty"`
	// ByKind counts the violations by kind: the broken invariant (IG3...)
	// or what else went wrong, the text before the first ": ".
	ByKind   map[string]int `json:"by_kind,omitempty"`
	Outcomes map[string]int `json:"outcomes,omitempty"`
}

func (r GroupRaceResult) String() string {
	s := fmt.Sprintf("%s: %d of %d trials broke the contract", r.Name, r.Violations, r.Ran)
	if len(r.ByKind) > 1 {
		s += fmt.Sprintf(" %v", r.ByKind)
	}
	if r.First != "" {
		s += " (first: " + r.First + ")"
	}
	if len(r.Outcomes) > 0 {
		s += fmt.Sprintf("; legal outcomes %v", r.Outcomes)
	}
	if r.Violations == 0 {
		s += "; " + Odds(r.Ran)
	}
	return s
}

// Odds is what a race check that found nothing in trials trials can
// claim: the chance it had to show a race that breaks the contract in 1%
// of trials (1 - 0.99^trials), and the rate it rules out at 95%
// confidence (the rule of three: 3/trials). A clean run is evidence
// against a frequent race, never proof of none.
func Odds(trials int) string {
	if trials <= 0 {
		return "no trials: no evidence"
	}
	return fmt.Sprintf("odds: a race in 1%% of trials would have shown with probability %.0f%%; a rate above %.2g%% is ruled out at 95%% confidence",
		100*(1-math.Pow(0.99, float64(trials))), 100*min(1, 3/float64(trials)))
}

// GroupRaces are the races, each a concurrent form of a probe of upstream
// v1.37.2 (docs/podgroups-upstream.md).
var GroupRaces = []GroupRace{
	{Name: "cleared-marker", Title: "a pod queued alone fails while a group's cycle runs, racing a member's failure and the end of the cycle", run: raceClearedMarker},
	{Name: "stranded-pending", Title: "the same race with two members failing: none may stay pending once the cycle ended (IG3)", run: raceStrandedPending},
	{Name: "late-member-failure", Title: "a member's failure (its binding) racing the end of its group's cycle", run: raceLateMemberFailure},
}

// RunPodGroupRaces runs every race trials times on fresh targets made by
// newTarget with PodGroupsConfig, each as a subtest. A race whose name is
// in known reports its violations (they are findings of the target, each
// with its reproduction) instead of failing; any other violation fails.
func RunPodGroupRaces(t *testing.T, newTarget conformance.NewTarget, trials int, known ...string) []GroupRaceResult {
	t.Helper()
	var out []GroupRaceResult
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	for _, race := range GroupRaces {
		t.Run(race.Name, func(t *testing.T) {
			res := GroupRaceResult{Name: race.Name, Title: race.Title, Outcomes: map[string]int{}, ByKind: map[string]int{}}
			rng := rand.New(rand.NewPCG(seed, uint64(len(race.Name))))
			for range trials {
				tg, ok := newTarget(t, PodGroupsConfig(), start).(PodGroupTarget)
				if !ok {
					t.Fatalf("the target takes no pod-group calls (concurrent.PodGroupTarget)")
				}
				r := &groupRun{t: t, tg: tg, rng: rng}
				outcome, violation := race.run(r)
				tg.Close()
				res.Ran++
				if violation != "" {
					res.Violations++
					kind, _, _ := strings.Cut(violation, ": ")
					res.ByKind[kind]++
					if res.First == "" {
						res.First = violation
					}
					continue
				}
				res.Outcomes[outcome]++
			}
			t.Log(res)
			if res.Violations > 0 && !slices.Contains(known, race.Name) {
				t.Errorf("%s", res)
			}
			out = append(out, res)
		})
	}
	return out
}

// GroupRaceReport is what the races found on one target, as written for
// RESULTS.md's concurrency section.
type GroupRaceReport struct {
	Target conformance.TargetInfo `json:"target"`
	Races  []GroupRaceResult      `json:"races"`
	// Known names the races whose violations are reported findings of the
	// target (docs/podgroups-upstream.md has each reproduction).
	Known []string `json:"known,omitempty"`
	// Findings names, for each race of Known, its entry in the findings
	// catalogue (findings/): a race a target is known to lose is a bug
	// of that target.
	Findings map[string]string `json:"findings,omitempty"`
}

// GroupRaceReportDir is the subdirectory of the results directory the
// races' reports go to, beside ReportDir.
const GroupRaceReportDir = "concurrent-podgroups"

// ReportPodGroupRaces is RunPodGroupRaces for a target of RESULTS.md: it
// also writes the results to $SCHEDQ_CONFORMANCE_RESULTS/
// concurrent-podgroups/<target name>.json when that variable is set (make
// conformance sets it). The races' own tests, on broken targets, call
// RunPodGroupRaces and write nothing.
//
// findings maps each race known to fail on the target to its entry in the
// findings catalogue; a known race without one fails the test.
func ReportPodGroupRaces(t *testing.T, newTarget conformance.NewTarget, trials int, findings map[string]string) []GroupRaceResult {
	t.Helper()
	known := slices.Sorted(maps.Keys(findings))
	for _, k := range known {
		if findings[k] == "" {
			t.Errorf("the known race %s names no finding of the catalogue (findings/)", k)
		}
	}
	res := RunPodGroupRaces(t, newTarget, trials, known...)
	dir := os.Getenv("SCHEDQ_CONFORMANCE_RESULTS")
	if dir == "" {
		return res
	}
	tg := newTarget(t, PodGroupsConfig(), start)
	rep := GroupRaceReport{Target: tg.Info(), Races: res, Known: known, Findings: findings}
	tg.Close()
	if err := conformance.WriteResult(filepath.Join(dir, GroupRaceReportDir), rep.Target.Name, rep); err != nil {
		t.Errorf("writing results: %v", err)
	}
	return res
}

// groupRun is one trial: a fresh target and what it popped.
type groupRun struct {
	t     testing.TB
	tg    PodGroupTarget
	rng   *rand.Rand
	cycle int64
	mu    sync.Mutex
	errs  []error // of the racing goroutines, which may not call t.Fatal
}

// bg records an error of a racing goroutine.
func (r *groupRun) bg(err error) {
	if err != nil {
		r.mu.Lock()
		r.errs = append(r.errs, err)
		r.mu.Unlock()
	}
}

func (r *groupRun) must(err error) {
	r.t.Helper()
	if err != nil {
		r.t.Fatal(err)
	}
}

func (r *groupRun) member(name string) *spec.Pod {
	p := schedqtest.Pod(name, 0)
	p.Group = "g"
	return p
}

// add adds pods one millisecond apart, so that they leave activeQ in the
// order given.
func (r *groupRun) add(pods ...*spec.Pod) {
	for _, p := range pods {
		r.must(r.tg.Add(p))
		r.tg.Advance(time.Millisecond)
	}
}

func (r *groupRun) popPod(name string) *spec.QueuedPodInfo {
	r.t.Helper()
	e, cycle, err := r.tg.PopEntity()
	r.must(err)
	if e.Pod == nil || e.Pod.Pod.Name != name {
		r.t.Fatalf("PopEntity returned %s, want pod %s", e.Key(), name)
	}
	r.cycle = cycle
	return e.Pod
}

func (r *groupRun) popGroup() *spec.QueuedPodGroupInfo {
	r.t.Helper()
	e, cycle, err := r.tg.PopEntity()
	r.must(err)
	if e.Group == nil || e.Group.PodGroup.Name != "g" {
		r.t.Fatalf("PopEntity returned %s, want group g", e.Key())
	}
	r.cycle = cycle
	return e.Group
}

// fail hands info back rejected by a plugin, as the scheduler's failure
// handler does.
func (r *groupRun) fail(info spec.QueuedPodInfo) error {
	info.UnschedulablePlugins = spec.NewPluginSet(schedqtest.PluginFit)
	return r.tg.AddUnschedulableIfNotPresent(&info, r.cycle)
}

func memberInfo(g *spec.QueuedPodGroupInfo, name string) spec.QueuedPodInfo {
	for _, m := range g.Members {
		if m.Pod.Name == name {
			return m
		}
	}
	panic("no member " + name)
}

// race runs a and b on two goroutines released together, each after a
// random number of yields.
func (r *groupRun) race(a, b func()) {
	var wg sync.WaitGroup
	start := make(chan struct{})
	for _, f := range []func(){a, b} {
		yields := r.rng.IntN(4)
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for range yields {
				runtime.Gosched()
			}
			f()
		}()
	}
	close(start)
	wg.Wait()
	for _, err := range r.errs {
		r.t.Fatal(err)
	}
}

// entity describes group g's entity after the race: "<place> <members>
// count <UnschedulableCount>", or a violation of the profile's state
// invariants.
func (r *groupRun) entity() (string, string) {
	s := r.tg.Snapshot()
	if err := spec.IGPodGroups(&s); err != nil {
		return "", err.Error()
	}
	e, ok := s.PodGroups.Entity("ns/g")
	if !ok {
		return "no entity", ""
	}
	return fmt.Sprintf("%s %v count %d", e.Place, e.Members, e.UnschedulableCount), ""
}

// The state that setupGroupAndPod leaves: pod p (queued alone) popped
// first and in its binding cycle, then group g with members a and b
// popped, its cycle open.
func (r *groupRun) setupGroupAndPod() (p *spec.QueuedPodInfo, g *spec.QueuedPodGroupInfo) {
	r.must(r.tg.AddPodGroup(&spec.PodGroup{Namespace: "ns", Name: "g"}))
	r.add(schedqtest.Pod("p", 0), r.member("a"), r.member("b"))
	return r.popPod("p"), r.popGroup()
}

// raceClearedMarker: p's binding fails on one goroutine; on the other, a
// fails in g's cycle and the cycle ends rejected. Whatever the order, a
// waits for the end of g's cycle (G4: g's cycle is open) and the end
// sends g to backoffQ with a and UnschedulableCount 1 (G5). Upstream's
// failure of p clears the one marker of an open cycle it keeps, a makes a
// second entity of g, and the end of the cycle fails.
func raceClearedMarker(r *groupRun) (string, string) {
	p, g := r.setupGroupAndPod()
	var endErr error
	r.race(func() { r.bg(r.fail(*p)) }, func() {
		r.bg(r.fail(memberInfo(g, "a")))
		endErr = r.tg.AddAttemptedPodGroupIfNeeded(g, r.cycle, spec.AttemptRejected)
	})
	if endErr != nil {
		return "", "the end of g's cycle failed: " + endErr.Error()
	}
	got, v := r.entity()
	if v != "" {
		return "", v
	}
	if want := "backoffQ [ns/a] count 1"; got != want {
		return "", fmt.Sprintf("g's entity after its rejected cycle: %s, want %s", got, want)
	}
	return got, ""
}

// raceStrandedPending: as raceClearedMarker, with b failing too. After the
// end of g's cycle no member may wait in pendingPodGroupPods (IG3), and g
// is in backoffQ with both.
func raceStrandedPending(r *groupRun) (string, string) {
	p, g := r.setupGroupAndPod()
	var endErr error
	r.race(func() { r.bg(r.fail(*p)) }, func() {
		r.bg(r.fail(memberInfo(g, "a")))
		r.bg(r.fail(memberInfo(g, "b")))
		endErr = r.tg.AddAttemptedPodGroupIfNeeded(g, r.cycle, spec.AttemptRejected)
	})
	got, v := r.entity()
	if v != "" {
		return "", v
	}
	if endErr != nil {
		return "", "the end of g's cycle failed: " + endErr.Error()
	}
	if want := "backoffQ [ns/a ns/b] count 1"; got != want {
		return "", fmt.Sprintf("g's entity after its rejected cycle: %s, want %s", got, want)
	}
	return got, ""
}

// raceLateMemberFailure: g (a, b) popped, a scheduled (Done); b's binding
// fails on one goroutine while the other ends g's cycle, rejected. Two
// outcomes are legal: b first waits for the end and g backs off with b
// (backoffQ, count 1); the end first closes the cycle with nothing pending
// (g leaves the queue), and b then makes a new entity with zero counts
// towards activeQ (G2). Anything else, or a broken invariant, is a
// violation; which order won is reported.
func raceLateMemberFailure(r *groupRun) (string, string) {
	r.must(r.tg.AddPodGroup(&spec.PodGroup{Namespace: "ns", Name: "g"}))
	r.add(r.member("a"), r.member("b"))
	g := r.popGroup()
	r.must(r.tg.Done(memberInfo(g, "a").Pod.UID))
	var endErr error
	r.race(func() { r.bg(r.fail(memberInfo(g, "b"))) }, func() {
		endErr = r.tg.AddAttemptedPodGroupIfNeeded(g, r.cycle, spec.AttemptRejected)
	})
	if endErr != nil {
		return "", "the end of g's cycle failed: " + endErr.Error()
	}
	got, v := r.entity()
	if v != "" {
		return "", v
	}
	switch got {
	case "backoffQ [ns/b] count 1":
		return "failure first: " + got, ""
	case "activeQ [ns/b] count 0":
		return "end first: " + got, ""
	}
	return "", "g's entity: " + got + ", want backoffQ [ns/b] count 1 or activeQ [ns/b] count 0"
}
