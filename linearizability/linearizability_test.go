package linearizability_test

import (
	"flag"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/schedq/schedq/impl"
	lin "github.com/schedq/schedq/linearizability"
	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// The sizes are small by default so that `go test -race ./...` stays well
// inside a CI budget; `make verify` passes larger ones.
var (
	runs            = flag.Int("lin.runs", 20, "histories per client count checked against the implementation")
	ops             = flag.Int("lin.ops", 200, "operations per history, split across the clients")
	clients         = flag.String("lin.clients", "2,4,8", "client counts to run")
	pods            = flag.Int("lin.pods", 3, "pods each client owns")
	timeout         = flag.Duration("lin.timeout", time.Minute, "porcupine timeout per history; running out fails the test")
	brokenRuns      = flag.Int("lin.brokenruns", 400, "histories each broken queue gets to be caught in")
	concurrentSteps = flag.Float64("lin.concurrentsteps", 0.25, "fraction of clock steps that may overlap operations reading the clock")
	replay          = flag.String("lin.replay", "", "a history saved as JSON next to a visualisation, for TestReplay to check again")
	seed            = flag.Uint64("lin.seed", 0, "seed of the clients' choices (0: from the time)")
	noSnapshots     = flag.Bool("lin.nosnapshots", false, "leave Snapshot out of the workload (Workload.NoSnapshots): what the queue hands out must tell a flaw alone")
	boundarySteps   = flag.Float64("lin.boundarysteps", 0.5, "fraction of clock steps steered onto a backoff expiry or the leftover limit (+/- 1ns); negative: none")
)

func newImpl(cfg spec.Config, clk *testingclock.FakeClock) (spec.Queue, error) {
	return impl.New(cfg, impl.WithClock(clk))
}

func clientCounts(t *testing.T) []int {
	var out []int
	for _, f := range strings.Split(*clients, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			t.Fatalf("-lin.clients %q: bad count %q", *clients, f)
		}
		out = append(out, n)
	}
	return out
}

func baseSeed(t *testing.T) uint64 {
	s := *seed
	if s == 0 {
		s = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (-lin.seed to pin the clients' choices; the interleaving is the scheduler's)", s)
	return s
}

// procs are the GOMAXPROCS settings histories cycle through: one
// processor (interleavings only at yields and preemption), as many as the
// machine has, and more than it has (goroutines preempted mid-operation).
var procs = []int{1, 2, 4, 8}

// record records history i with GOMAXPROCS procs[i%len(procs)].
func record(w lin.Workload, i int, newQueue lin.NewQueue) (*lin.History, error) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs[i%len(procs)]))
	return lin.Record(w, newQueue)
}

func workload(clients, i int, base uint64) lin.Workload {
	per := *ops / clients
	if per < 4 {
		per = 4
	}
	return lin.Workload{Clients: clients, OpsPerClient: per, PodsPerClient: *pods, Seed: base + uint64(i),
		ConcurrentSteps: *concurrentSteps, BoundarySteps: *boundarySteps, NoSnapshots: *noSnapshots}
}

// stats summarises the checks of several histories.
type stats struct {
	ops, blocked, rescues, overlapping []int
	check                              []time.Duration
	steps                              []int64
	// holds counts R4h's sequences played (Workload.Gates).
	holds int
	// groups counts, in the podgroups profile, what the histories did
	// with pod groups: the proof that the workload reaches them.
	groups groupCounts
}

// groupCounts are the pod-group operations of histories that succeeded.
type groupCounts struct {
	pops, members, attempted, memberFails, objects int
}

func (g *groupCounts) add(h *lin.History) {
	for _, op := range h.Operations {
		in, out := op.Input.(lin.Input), op.Output.(lin.Output)
		if out.Err != nil {
			continue
		}
		switch {
		case out.Group != nil:
			g.pops++
			g.members += len(out.Group.Members)
		case in.Op.Kind == schedqtest.KindAttempted:
			g.attempted++
		case in.Op.Kind == schedqtest.KindFail && in.Popped != nil && in.Popped.Info.Pod.Group != "":
			g.memberFails++
		case in.Op.Kind.PodGroupsOnly():
			g.objects++
		}
	}
}

// slowest is the slowest check of the package's run, which TestMain
// prints: the figure that says whether the checker's search stays
// bounded (a history it cannot decide within -lin.timeout fails).
var slowest struct {
	sync.Mutex
	n       int
	elapsed time.Duration
	what    string
}

func (s *stats) add(h *lin.History, r lin.Result) {
	slowest.Lock()
	slowest.n++
	if r.Elapsed > slowest.elapsed {
		w := h.Workload
		slowest.elapsed = r.Elapsed
		slowest.what = fmt.Sprintf("%d model steps, %v, %s profile, %d clients, %d operations, %d quiescent points, seed %d",
			r.Steps, r.Outcome, w.Profile, w.Clients, len(h.Operations), h.QuiescentPoints, w.Seed)
	}
	slowest.Unlock()
	s.ops = append(s.ops, len(h.Operations))
	s.blocked = append(s.blocked, h.BlockedPops)
	s.rescues = append(s.rescues, h.Rescues)
	s.overlapping = append(s.overlapping, h.Overlapping)
	s.check = append(s.check, r.Elapsed)
	s.steps = append(s.steps, r.Steps)
	s.holds += h.HoldSequences
	if h.Workload.Profile == spec.ProfilePodGroups {
		s.groups.add(h)
	}
}

func (s *stats) String() string {
	if len(s.check) == 0 {
		return "no histories"
	}
	c := slices.Clone(s.check)
	slices.Sort(c)
	o := slices.Clone(s.ops)
	slices.Sort(o)
	sum := func(xs []int) (t int) {
		for _, x := range xs {
			t += x
		}
		return t
	}
	out := fmt.Sprintf("%d histories, ops/history %d..%d (median %d), %d%% of ops overlap another client's, %d blocked Pops, %d rescue Adds; check time median %v, max %v; model steps max %d",
		len(c), o[0], o[len(o)-1], o[len(o)/2], 100*sum(s.overlapping)/sum(s.ops), sum(s.blocked), sum(s.rescues),
		c[len(c)/2].Round(time.Microsecond), c[len(c)-1].Round(time.Microsecond), slices.Max(s.steps))
	if s.holds > 0 {
		out += fmt.Sprintf("; %d R4h sequences played to their last event", s.holds)
	}
	if g := s.groups; g != (groupCounts{}) {
		out += fmt.Sprintf("; pod groups: %d group Pops (%d members), %d ends of a cycle, %d member failures, %d object adds/updates/deletes (those that succeeded)",
			g.pops, g.members, g.attempted, g.memberFails, g.objects)
	}
	return out
}

// checkHistories records and checks n histories of queues made by newQueue
// and fails the test on any history that is not linearizable, or that the
// checker could not decide in time.
func checkHistories(t *testing.T, name string, newQueue lin.NewQueue, clients, n int) {
	t.Helper()
	checkHistoriesIn(t, name, spec.ProfileClassic, newQueue, clients, n)
}

// checkHistoriesIn is checkHistories in a profile. It returns how many
// times the histories played R4h's sequence (Workload.Gates).
func checkHistoriesIn(t *testing.T, name string, profile spec.Profile, newQueue lin.NewQueue, clients, n int) int {
	t.Helper()
	base := baseSeed(t)
	var st stats
	undecided := 0
	for i := range n {
		w := workload(clients, i, base)
		w.Profile, w.Gates, w.Nominations = profile, true, true
		h, err := record(w, i, newQueue)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, lost := range h.LostWakeups {
			t.Errorf("%s: history %d (%d clients, seed %d): lost wake-up: %s", name, i, clients, h.Workload.Seed, lost)
		}
		res := lin.Check(h, *timeout)
		st.add(h, res)
		if res.Outcome == porcupine.Ok {
			continue
		}
		htmlPath, textPath, err := lin.WriteEvidence(h, res, name)
		if err != nil {
			t.Errorf("writing the evidence: %v", err)
		}
		verdict, report := "is NOT linearizable", t.Errorf
		if res.Outcome == porcupine.Unknown {
			// No verdict: counted against undecidedBudget below, never a
			// failure on its own.
			undecided++
			verdict, report = fmt.Sprintf("is UNDECIDED: the checker gave up after %v (no verdict; raise -lin.timeout or shrink -lin.ops)", *timeout), t.Logf
		}
		scenario := ""
		if wit, ok := h.Witness(res); ok {
			scenario = "\n--- scenario (save as linearizability/testdata/scenarios/regressions/<name>.txt) ---\n" + wit.Scenario(name, h.Config)
		}
		report("%s: history %d (%d clients, %d operations, seed %d) %s\n  visualisation: %s\n  listing:       %s%s",
			name, i, clients, len(h.Operations), h.Workload.Seed, verdict, htmlPath, textPath, scenario)
	}
	t.Logf("%s, %d clients: %v; %d of %d UNDECIDED within -lin.timeout=%v (budget: %d)", name, clients, &st, undecided, n, *timeout, undecidedBudget(n))
	if undecided > undecidedBudget(n) {
		t.Errorf("%s, %d clients: %d of %d histories UNDECIDED within -lin.timeout=%v, over the budget of %d: the checker's search is no longer bounded by the quiescent points (a regression of the workload or the model, not a draw)",
			name, clients, undecided, n, *timeout, undecidedBudget(n))
	}
	return st.holds
}

// undecidedBudget is how many of n histories porcupine may leave
// UNDECIDED (its search cut at -lin.timeout) before the run fails: 1%,
// at least one. An UNDECIDED history is no verdict, neither pass nor
// failure; its odds depend on the machine's load (the checker's bound is
// wall-clock time), so one alone must not decide the main job. A
// history whose search is bounded by the quiescent points takes well
// under a second (the slowest check of the run is printed last), so more
// than 1% undecided is a change in the workload or the model, which the
// run names. A NOT linearizable history always fails.
func undecidedBudget(n int) int { return max(1, n/100) }

// TestImplIsLinearizable is the point of the package: concurrent histories
// of the implementation, 2 to 8 clients, each linearizable against the
// model.
func TestImplIsLinearizable(t *testing.T) {
	for _, n := range clientCounts(t) {
		t.Run(fmt.Sprintf("clients=%d", n), func(t *testing.T) {
			checkHistories(t, "impl", newImpl, n, *runs)
		})
	}
}

// TestImplIsLinearizableHints is TestImplIsLinearizable in the
// queueing-hints profile (spec.ProfileHints): Pop may take from backoffQ,
// failures replay the events recorded while the pod was in flight, and the
// model checks every history in that profile.
//
// The workload must reach R4h's sequence (linearizability/README.md,
// Gates): at make test's size (-lin.runs=20, clients 2, 4, 8) the
// histories played it to its last event 13 to 30 times in each of five
// runs. None at all in 20 histories or more is a workload that lost it,
// not a draw: even with 13 expected, a Poisson count is 0 with odds of
// about 2e-6.
func TestImplIsLinearizableHints(t *testing.T) {
	holds, histories := 0, 0
	for _, n := range clientCounts(t) {
		t.Run(fmt.Sprintf("clients=%d", n), func(t *testing.T) {
			holds += checkHistoriesIn(t, "impl-hints", spec.ProfileHints, newImpl, n, *runs)
			histories += *runs
		})
	}
	if histories >= 20 && holds == 0 && !t.Failed() {
		t.Errorf("%s: %d histories played R4h's sequence (a gate put on a parked pod, its event, the gate lifted, another event) to its last event 0 times: the workload no longer reaches it (Workload.Gates, holdParked)", spec.R4hMoveAll, histories)
	}
}

// TestImplIsLinearizablePodGroups is TestImplIsLinearizable in the
// podgroups profile (spec.ProfilePodGroups, G1-G11): clients add members
// of two pod groups and the groups' objects, Pop is PopEntity, a popped
// group's members fail or finish one by one while the group's cycle ends
// (AddAttemptedPodGroupIfNeeded) and other clients activate, delete and
// move; the model checks every history with the groups' state in it.
func TestImplIsLinearizablePodGroups(t *testing.T) {
	for _, n := range clientCounts(t) {
		t.Run(fmt.Sprintf("clients=%d", n), func(t *testing.T) {
			checkHistoriesIn(t, "impl-podgroups", spec.ProfilePodGroups, newImpl, n, *runs)
		})
	}
}

// TestReplay checks a saved history again (-lin.replay=path.json), with
// -lin.timeout, and writes fresh evidence: to confirm a report, to let a
// history the checker could not decide run longer, or to re-judge it after
// a change to the model.
func TestReplay(t *testing.T) {
	if *replay == "" {
		t.Skip("no -lin.replay history given")
	}
	h, err := lin.ReadHistory(*replay)
	if err != nil {
		t.Fatal(err)
	}
	res := lin.Check(h, *timeout)
	htmlPath, textPath, err := lin.WriteEvidence(h, res, "replay")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d operations: %v in %v\n  visualisation: %s\n  listing:       %s", len(h.Operations), res.Outcome, res.Elapsed, htmlPath, textPath)
	if res.Outcome != porcupine.Ok {
		t.Errorf("history %s is %v", *replay, res.Outcome)
	}
}

// A saved history reads back as the same operations and the same verdict,
// in both profiles: the hints profile's config comes back with its hint,
// and the caller objects (R19) onto the workload's own, which the model
// compares by identity.
func TestHistoryRoundTripsThroughJSON(t *testing.T) {
	base := baseSeed(t)
	for _, p := range []spec.Profile{spec.ProfileClassic, spec.ProfileHints, spec.ProfilePodGroups} {
		t.Run(p.String(), func(t *testing.T) { roundTrip(t, p, base) })
	}
}

func roundTrip(t *testing.T, p spec.Profile, base uint64) {
	w := workload(4, 0, base)
	w.Profile, w.Gates, w.Nominations = p, true, true
	h, err := lin.Record(w, newImpl)
	if err != nil {
		t.Fatal(err)
	}
	path := t.TempDir() + "/h.json"
	if err := h.WriteJSON(path); err != nil {
		t.Fatal(err)
	}
	back, err := lin.ReadHistory(path)
	if err != nil {
		t.Fatal(err)
	}
	m := h.Model()
	if len(back.Operations) != len(h.Operations) {
		t.Fatalf("%d operations read back, want %d", len(back.Operations), len(h.Operations))
	}
	for i, op := range h.Operations {
		b := back.Operations[i]
		want, got := m.DescribeOperation(op.Input, op.Output), m.DescribeOperation(b.Input, b.Output)
		if got != want || b.Call != op.Call || b.Return != op.Return || b.ClientId != op.ClientId {
			t.Fatalf("operation %d read back as [%d,%d] c%d %s, want [%d,%d] c%d %s",
				i, b.Call, b.Return, b.ClientId, got, op.Call, op.Return, op.ClientId, want)
		}
	}
	if a, b := lin.Check(h, *timeout).Outcome, lin.Check(back, *timeout).Outcome; a != porcupine.Ok || b != a {
		t.Errorf("verdicts %v (recorded) and %v (read back), want Ok twice", a, b)
	}
}
