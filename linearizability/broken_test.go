package linearizability_test

import (
	"errors"
	"flag"
	"fmt"
	"maps"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/anishathalye/porcupine"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/schedq/schedq/impl"
	"github.com/schedq/schedq/internal/lockedq"
	lin "github.com/schedq/schedq/linearizability"
	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// Evidence that the check bites: queues that are correct when used by one
// goroutine at a time but split one operation into two critical sections,
// the way real queues go wrong. Each must be caught within -lin.brokenruns
// histories.
//
// Most are built on internal/lockedq, the executable model behind one
// mutex: a queue that is linearizable by construction (one critical
// section per operation), where a bug is a deliberately added lock
// release or a missing wake-up. One wraps the real implementation and
// misuses its public API in two steps. The queues marked "yield" have a
// runtime.Gosched inside the queue between the two critical sections, the
// others none: the harness must find those races by its own scheduling
// (bursts, yields at operation boundaries, GOMAXPROCS varied per history).

// newLockedModel is internal/lockedq, the model behind one mutex, as a
// queue under test: linearizable by construction without a flaw.
func newLockedModel(f lockedq.Flaw) lin.NewQueue {
	return func(cfg spec.Config, clk *testingclock.FakeClock) (spec.Queue, error) {
		return lockedq.New(cfg, clk, f)
	}
}

// peekingImpl wraps the real implementation with a Pop that looks before it
// leaps: it reads the head of activeQ from a Snapshot, yields, pops, and
// reports the pod it saw. Used by one goroutine it is exact; concurrently
// another Add or Pop can slip in between.
type peekingImpl struct {
	*impl.PriorityQueue
}

func newPeekingImpl(cfg spec.Config, clk *testingclock.FakeClock) (spec.Queue, error) {
	q, err := impl.New(cfg, impl.WithClock(clk))
	if err != nil {
		return nil, err
	}
	return peekingImpl{q}, nil
}

func (q peekingImpl) Pop() (*spec.QueuedPodInfo, int64, error) {
	s := q.PriorityQueue.Snapshot()
	head := spec.MaximalPods(s.ActiveQ)
	if s.Closed || len(head) != 1 {
		// Nothing to peek at, or a tie the snapshot cannot break the
		// way the heap does.
		return q.PriorityQueue.Pop()
	}
	_, seen := s.Find(head[0])
	runtime.Gosched()
	if _, _, err := q.PriorityQueue.Pop(); err != nil {
		return nil, 0, err
	}
	seen.Attempts++
	seen.UnschedulablePlugins = nil
	return &seen, s.SchedulingCycle + 1, nil
}

// miscountingImpl wraps the real implementation with a Pop that reports
// the pod's UnschedulableCount one too high (a hints-profile field, R3h):
// a queue whose bookkeeping of failures is wrong only in what Pop hands
// out. Its state stays right, so only the comparison of the popped info
// can catch it.
type miscountingImpl struct {
	*impl.PriorityQueue
}

func newMiscountingImpl(cfg spec.Config, clk *testingclock.FakeClock) (spec.Queue, error) {
	q, err := impl.New(cfg, impl.WithClock(clk))
	if err != nil {
		return nil, err
	}
	return miscountingImpl{q}, nil
}

func (q miscountingImpl) Pop() (*spec.QueuedPodInfo, int64, error) {
	info, cycle, err := q.PriorityQueue.Pop()
	if err == nil && info != nil {
		cp := *info
		cp.UnschedulableCount++
		info = &cp
	}
	return info, cycle, err
}

// objectDroppingImpl wraps the real implementation with moves that lose
// their event's caller objects (R19): the queue ignores what the caller
// handed it, so a queueing hint that reads the event's node sees none (an
// error, which counts as Queue: R16) and the in-flight list records the
// event without it, for a replay that sees none either (R15).
type objectDroppingImpl struct {
	*impl.PriorityQueue
}

func newObjectDroppingImpl(cfg spec.Config, clk *testingclock.FakeClock) (spec.Queue, error) {
	q, err := impl.New(cfg, impl.WithClock(clk))
	if err != nil {
		return nil, err
	}
	return objectDroppingImpl{q}, nil
}

func (q objectDroppingImpl) MoveAllToActiveOrBackoffQueueWithObjects(occ spec.Occurrence, preCheck spec.PreEnqueueCheck) error {
	occ.OldObject, occ.NewObject = nil, nil
	return q.PriorityQueue.MoveAllToActiveOrBackoffQueueWithObjects(occ, preCheck)
}

// podObjectDroppingImpl wraps the real implementation with a Pop that
// hands the pod back without its caller object (Pod.Object, R19): what
// the scheduler would then schedule is not the pod it queued.
type podObjectDroppingImpl struct {
	*impl.PriorityQueue
}

func newPodObjectDroppingImpl(cfg spec.Config, clk *testingclock.FakeClock) (spec.Queue, error) {
	q, err := impl.New(cfg, impl.WithClock(clk))
	if err != nil {
		return nil, err
	}
	return podObjectDroppingImpl{q}, nil
}

func (q podObjectDroppingImpl) Pop() (*spec.QueuedPodInfo, int64, error) {
	info, cycle, err := q.PriorityQueue.Pop()
	if err == nil && info != nil && info.Pod.Object != nil {
		cp, p := *info, *info.Pod
		p.Object = nil
		cp.Pod = &p
		info = &cp
	}
	return info, cycle, err
}

// memberDroppingImpl wraps the real implementation with a PopEntity that
// hands a group of two or more members out without its last one (G3,
// IG2): the queue puts the member in flight, but the scheduler never
// learns of it, so it is never attempted nor handed back. Its state stays
// right; the comparison of the popped group with the model's catches it.
type memberDroppingImpl struct {
	*impl.PriorityQueue
}

func newMemberDroppingImpl(cfg spec.Config, clk *testingclock.FakeClock) (spec.Queue, error) {
	q, err := impl.New(cfg, impl.WithClock(clk))
	if err != nil {
		return nil, err
	}
	return memberDroppingImpl{q}, nil
}

func (q memberDroppingImpl) PopEntity() (spec.QueuedEntity, int64, error) {
	e, cycle, err := q.PriorityQueue.PopEntity()
	if err == nil && e.Group != nil && len(e.Group.Members) > 1 {
		g := *e.Group
		g.Members = g.Members[:len(g.Members)-1]
		e.Group = &g
	}
	return e, cycle, err
}

// TestReferenceQueueIsLinearizable checks the harness on the queue that is
// linearizable by construction, with the same workloads the broken queues
// get. If this fails, the harness or the porcupine model is wrong, not the
// implementation.
func TestReferenceQueueIsLinearizable(t *testing.T) {
	for _, n := range clientCounts(t) {
		t.Run(fmt.Sprintf("clients=%d", n), func(t *testing.T) {
			checkHistories(t, "lockedModel", newLockedModel(0), n, max(1, *runs/2))
		})
	}
}

// brokenQueues are the deliberately broken queues: each is caught by a
// history that is not linearizable or, for the lost wake-up, by every
// client sleeping in Pop while activeQ holds a pod.
type brokenQueue struct {
	name string
	// newQueue makes the queue, or if nil internal/lockedq with flaw.
	newQueue lin.NewQueue
	flaw     lockedq.Flaw
	profile  spec.Profile
}

// twoSections are the flaws that split one operation into two critical
// sections: lockedq.Interleave forces their window open.
const twoSections = lockedq.PeekThenPop | lockedq.LateMoveRequestCycle | lockedq.StaleBackoffFlush | lockedq.RequeueRace

// queue makes the broken queue; forced adds lockedq.Interleave to a flaw
// with two critical sections, so that the interleaving that exposes it
// does not depend on the scheduler (nor on the machine's load).
func (b brokenQueue) queue(forced bool) lin.NewQueue {
	if b.newQueue != nil {
		return b.newQueue
	}
	if forced && b.flaw&twoSections != 0 {
		return newLockedModel(b.flaw | lockedq.Interleave)
	}
	return newLockedModel(b.flaw)
}

var brokenQueues = []brokenQueue{
	{"impl with a peek-then-Pop wrapper (yield)", newPeekingImpl, 0, spec.ProfileClassic},
	{"Pop decides and takes in two critical sections (yield)", nil, lockedq.PeekThenPop | lockedq.Yield, spec.ProfileClassic},
	{"Pop decides and takes in two critical sections", nil, lockedq.PeekThenPop, spec.ProfileClassic},
	{"MoveAll publishes moveRequestCycle late (yield)", nil, lockedq.LateMoveRequestCycle | lockedq.Yield, spec.ProfileClassic},
	{"backoffQ flush moves what it saw before releasing the lock (yield)", nil, lockedq.StaleBackoffFlush | lockedq.Yield, spec.ProfileClassic},
	{"Add does not wake a blocked Pop", nil, lockedq.AddNoWake, spec.ProfileClassic},
	{"requeued pod poppable before its in-flight bookkeeping is cleared", nil, lockedq.RequeueRace, spec.ProfileClassic},
	{"backoffQ flush releases a pod whose expiry is exactly now (R7 boundary)", nil, lockedq.BackoffBoundary, spec.ProfileClassic},
	{"leftover flush moves a pod exactly at the limit (R6 boundary)", nil, lockedq.LeftoverBoundary, spec.ProfileClassic},
	{"impl whose Pop reports UnschedulableCount one too high (hints)", newMiscountingImpl, 0, spec.ProfileHints},
	{"impl whose moves drop the event's caller objects (hints, R19)", newObjectDroppingImpl, 0, spec.ProfileHints},
	{"impl whose Pop drops the pod's caller object (R19)", newPodObjectDroppingImpl, 0, spec.ProfileClassic},
	{"impl whose PopEntity hands a group out without its last member (podgroups, G3)", newMemberDroppingImpl, 0, spec.ProfilePodGroups},
}

// catch records and checks histories of newQueue until one is not
// linearizable, for at most limit runs, cycling through the client counts.
// It returns the run that caught it (0 if none did) and that history.
func catch(t *testing.T, newQueue lin.NewQueue, profile spec.Profile, limit int, base uint64, st *stats) (caught, undecided int, h *lin.History, res lin.Result) {
	counts := clientCounts(t)
	for i := range limit {
		n := counts[i%len(counts)]
		w := workload(n, i, base)
		w.Profile = profile
		h, err := record(w, i, newQueue)
		if err != nil {
			t.Fatal(err)
		}
		if len(h.LostWakeups) > 0 {
			st.add(h, lin.Result{})
			return i + 1, undecided, h, lin.Result{Outcome: porcupine.Ok}
		}
		res := lin.Check(h, *timeout)
		st.add(h, res)
		switch res.Outcome {
		case porcupine.Illegal:
			return i + 1, undecided, h, res
		case porcupine.Unknown:
			undecided++
		}
	}
	return 0, undecided, nil, lin.Result{}
}

func TestBrokenQueueIsNotLinearizable(t *testing.T) {
	base := baseSeed(t)
	for _, v := range brokenQueues {
		name := v.name
		if v.newQueue == nil && v.flaw&twoSections != 0 {
			name += " [interleaved]"
		}
		t.Run(name, func(t *testing.T) {
			var st stats
			caught, undecided, h, res := catch(t, v.queue(true), v.profile, *brokenRuns, base, &st)
			if caught == 0 {
				t.Fatalf("not caught in %d runs (%d undecided): %v", *brokenRuns, undecided, &st)
			}
			t.Logf("caught after %d run(s) (%d clients, %d operations; %d undecided before); %v",
				caught, h.Workload.Clients, len(h.Operations), undecided, &st)
			if len(h.LostWakeups) > 0 {
				t.Logf("lost wake-up: %s", h.LostWakeups[0])
				return
			}
			if testing.Verbose() {
				// The picture of a caught bug, to see what one looks like.
				htmlPath, textPath, err := lin.WriteEvidence(h, res, "broken")
				if err != nil {
					t.Errorf("writing the evidence: %v", err)
				}
				t.Logf("visualisation: %s\nlisting:       %s", htmlPath, textPath)
			}
		})
	}
}

var (
	detection     = flag.Int("lin.detection", 0, "TestDetectionRate: CI-size runs of the broken-queue search per broken queue (0 skips it)")
	detectionOnly = flag.String("lin.detection.only", "", "TestDetectionRate: only the broken queues whose name matches this regexp")
)

// TestDetectionRate measures how often a CI-size run catches each broken
// queue: -lin.detection=N repeats the search of TestBrokenQueueIsNotLinearizable
// (at most -lin.brokenruns histories, the CI default) N times per queue,
// each from a fresh seed, and prints the table README.md publishes.
func TestDetectionRate(t *testing.T) {
	if *detection <= 0 {
		t.Skip("-lin.detection=N not given")
	}
	base := baseSeed(t)
	var b strings.Builder
	fmt.Fprintf(&b, "| broken queue | runs | caught | median histories to detection | max |\n|---|---|---|---|---|\n")
	var only *regexp.Regexp
	if *detectionOnly != "" {
		only = regexp.MustCompile(*detectionOnly)
	}
	for vi, v := range brokenQueues {
		if only != nil && !only.MatchString(v.name) {
			continue
		}
		caught := 0
		var hs []int
		for trial := range *detection {
			var st stats
			n, _, _, _ := catch(t, v.queue(false), v.profile, *brokenRuns, base+uint64(vi)<<40+uint64(trial)<<20, &st)
			if n > 0 {
				caught++
				hs = append(hs, n)
			}
		}
		slices.Sort(hs)
		med, mx := "-", "-"
		if len(hs) > 0 {
			med, mx = fmt.Sprint(hs[len(hs)/2]), fmt.Sprint(hs[len(hs)-1])
		}
		fmt.Fprintf(&b, "| %s | %d | %d (%d%%) | %s | %s |\n", v.name, *detection, caught, 100*caught / *detection, med, mx)
		t.Logf("%s: %d/%d caught, histories %v", v.name, caught, *detection, hs)
	}
	t.Logf("detection rate (-lin.brokenruns=%d, -lin.ops=%d, -lin.clients=%s):\n%s", *brokenRuns, *ops, *clients, b.String())
}

// A caught broken queue's history comes out as a scenario file that
// round-trips: printed (schedqtest.FormatScenario), parsed back
// (schedqtest.ParseScenario) and replayed on the model, its prefix runs
// and its last operation gives something other than what the queue gave:
// the failure, reproduced without concurrency. The scenario is run as
// `schedq run` runs it, under the config its own config line builds: in
// the hints profiles that line must declare the registry the history ran
// on, which is not those profiles' standard one. (The broken queue,
// lockedq, has no pod groups: the podgroups profile prints its config the
// same way as the hints profile.)
func TestFailingHistoryPrintsAScenarioThatReplays(t *testing.T) {
	for _, p := range []spec.Profile{spec.ProfileClassic, spec.ProfileHints} {
		t.Run(p.String(), func(t *testing.T) { printsAScenarioThatReplays(t, p) })
	}
}

func printsAScenarioThatReplays(t *testing.T, profile spec.Profile) {
	base := baseSeed(t)
	for try := range 20 {
		var st stats
		caught, _, h, res := catch(t, newLockedModel(lockedq.PeekThenPop|lockedq.Yield), profile, *brokenRuns, base+uint64(try)<<32, &st)
		if caught == 0 {
			t.Fatal("the broken queue was not caught")
		}
		w, ok := h.Witness(res)
		if !ok {
			t.Fatalf("no witness in a history that is not linearizable:\n%s", h.Text(res))
		}
		if k := w.Next.Input.(lin.Input).Op.Kind; strings.HasPrefix(w.Why, "allowed here") || k == lin.KindSnapshot {
			// No single operation to blame, or an observation, which a
			// scenario shows as the state after its last line: take
			// another.
			continue
		}
		text := w.Scenario("regressions/peek-then-pop", h.Config)
		sc, err := schedqtest.ParseScenario("regressions/peek-then-pop", text)
		if err != nil {
			t.Fatalf("the printed scenario does not parse: %v\n%s", err, text)
		}
		if d := configDiff(h.Config, sc.Config.Build()); d != "" {
			t.Fatalf("the printed scenario's config line builds another config than the history ran with: %s\n%s", d, text)
		}
		run, err := schedqtest.NewModelRun(sc.Config.Build(), schedqtest.Start)
		if err != nil {
			t.Fatal(err)
		}
		if len(sc.Ops) == 0 {
			t.Fatalf("no operations:\n%s", text)
		}
		for i, op := range sc.Ops[:len(sc.Ops)-1] {
			if _, _, err := run.Apply(op); err != nil {
				t.Fatalf("operation %d (%s) of the printed prefix does not replay: %v\n%s", i+1, op, err, text)
			}
		}
		last := sc.Ops[len(sc.Ops)-1]
		in, out := w.Next.Input.(lin.Input), w.Next.Output.(lin.Output)
		// The failure is reproduced if the model, after the printed
		// prefix, rejects what the queue gave for the last operation, by
		// the checker's own comparison (the popped pod whole, not its key).
		same := lin.Apply(run.Model.Clone(), in, out)
		o, _, err := run.Apply(last)
		if err != nil {
			t.Fatalf("the last operation (%s) does not replay: %v\n%s", last, err, text)
		}
		if same {
			t.Fatalf("replayed on the model, the last operation (%s) gives what the queue gave (%s): the scenario does not reproduce the failure\n%s\n%s",
				last, o, firstDivergence(h, w, sc), text)
		}
		if !strings.Contains(text, "the model rejects that") {
			t.Errorf("the scenario does not say what the queue returned:\n%s", text)
		}
		t.Logf("the model gives %q where the queue gave another result; scenario:\n%s", o, text)
		return
	}
	t.Fatal("20 caught histories and none with a single operation to blame")
}

// configDiff says how the config a scenario's config line builds differs
// from the config a history ran with, in what a move request and a
// PreEnqueue check read: the profile, durations, registrations, which
// registrations have a queueing hint, and the PreEnqueue plugins'
// names. (Hints and plugins are functions; the standard ones are named
// by the config line, so their keys stand for them.)
func configDiff(ran, built spec.Config) string {
	keys := func(c spec.Config) string {
		hints := slices.SortedFunc(maps.Keys(c.QueueingHints), func(a, b spec.HintKey) int {
			return strings.Compare(a.Plugin+schedqtest.EventName(a.Event), b.Plugin+schedqtest.EventName(b.Event))
		})
		var hs []string
		for _, k := range hints {
			hs = append(hs, k.Plugin+":"+schedqtest.EventName(k.Event))
		}
		return fmt.Sprintf("profile %v, backoff %v..%v, leftover %v, registry %v, hints %v, PreEnqueue %v",
			c.Profile, c.PodInitialBackoffDuration, c.PodMaxBackoffDuration, c.PodMaxInUnschedulablePodsDuration,
			c.PluginEvents, hs, slices.Sorted(maps.Keys(c.PreEnqueuePlugins)))
	}
	if a, b := keys(ran), keys(built); a != b {
		return fmt.Sprintf("ran with %s; the scenario builds %s", a, b)
	}
	return ""
}

// firstDivergence replays the witness's prefix on the model directly and
// the printed scenario on a model run side by side, and says where their
// states first differ: the operation the printing got wrong.
func firstDivergence(h *lin.History, w lin.Witness, sc schedqtest.Scenario) string {
	m := h.Model().Init().(*lin.State).Model
	run, err := schedqtest.NewModelRun(sc.Config.Build(), schedqtest.Start)
	if err != nil {
		return err.Error()
	}
	j := 0
	for i, op := range w.Prefix {
		in := op.Input.(lin.Input)
		lin.Apply(m, in, op.Output.(lin.Output))
		if in.Op.Kind == lin.KindSnapshot {
			continue
		}
		if _, _, err := run.Apply(sc.Ops[j]); err != nil {
			return fmt.Sprintf("operation %d (%s): %v", i, sc.Ops[j], err)
		}
		a, b := m.Snapshot(), run.Model.Snapshot()
		if d := a.Diff(&b); d != "" {
			return fmt.Sprintf("the states first differ after operation %d, %s printed as %q:\n%s", i, in.Op, sc.Ops[j].String(), d)
		}
		j++
	}
	return "the states never differ"
}

// panickingModel is the model behind a mutex whose Activate panics on its
// third call, the lock held and released by a deferred Unlock, the way a
// nil map or an index out of range inside a queue operation would.
type panickingModel struct {
	*lockedq.Queue
	activations *atomic.Int32
}

func (q panickingModel) Activate(pods []*spec.Pod) error {
	if q.activations.Add(1) == 3 {
		panic("activeQ index out of range (a deliberate panic)")
	}
	return q.Queue.Activate(pods)
}

// A queue that panics in an operation is a violation the recording
// reports, with the operation, the panic and the history before it: not
// a crash of the test binary.
func TestPanickingTargetIsReported(t *testing.T) {
	newQueue := func(cfg spec.Config, clk *testingclock.FakeClock) (spec.Queue, error) {
		q, err := lockedq.New(cfg, clk, 0)
		return panickingModel{q, new(atomic.Int32)}, err
	}
	for i := range 20 {
		h, err := lin.Record(lin.Workload{Clients: 3, OpsPerClient: 60, Seed: uint64(i) + 1}, newQueue)
		if err == nil {
			continue // fewer than three Activates in this history
		}
		var p *lin.TargetPanic
		if !errors.As(err, &p) {
			t.Fatalf("seed %d: the error is not a TargetPanic: %v", i+1, err)
		}
		msg := err.Error()
		for _, want := range []string{"panicked in c", "Activate", "a deliberate panic", "operations that returned before it", "panickingModel.Activate"} {
			if !strings.Contains(msg, want) {
				t.Errorf("the report lacks %q:\n%s", want, msg)
			}
		}
		if h == nil || len(h.Operations) == 0 || p.History != h {
			t.Errorf("the history up to the panic is not returned with it")
		}
		return
	}
	t.Fatal("no history of 20 made three Activates: the workload no longer reaches the panic")
}
