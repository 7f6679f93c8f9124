package conformance

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	testingclock "k8s.io/utils/clock/testing"

	"github.com/schedq/schedq/impl"
	"github.com/schedq/schedq/model"
	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// The runner's own tests: each check of the runner must be able to fail,
// so each is shown failing on a deliberately broken target, with the
// message a queue author would read.

// recordTB is a testing.TB that records failures instead of failing the
// test, for running the runner on targets that must fail.
type recordTB struct {
	testing.TB
	mu     sync.Mutex
	failed bool
	log    strings.Builder
}

func (r *recordTB) record(fail bool, s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed = r.failed || fail
	r.log.WriteString(s + "\n")
}
func (r *recordTB) Helper()                        {}
func (r *recordTB) Fail()                          { r.record(true, "") }
func (r *recordTB) Failed() bool                   { r.mu.Lock(); defer r.mu.Unlock(); return r.failed }
func (r *recordTB) Error(args ...any)              { r.record(true, strings.TrimSpace(fmt.Sprintln(args...))) }
func (r *recordTB) Errorf(format string, a ...any) { r.record(true, fmt.Sprintf(format, a...)) }
func (r *recordTB) Log(args ...any)                { r.record(false, strings.TrimSpace(fmt.Sprintln(args...))) }
func (r *recordTB) Logf(format string, a ...any)   { r.record(false, fmt.Sprintf(format, a...)) }
func (r *recordTB) Fatal(args ...any)              { r.Error(args...); r.FailNow() }
func (r *recordTB) Fatalf(format string, a ...any) { r.Errorf(format, a...); r.FailNow() }
func (r *recordTB) Skip(args ...any)               { r.Log(args...); r.SkipNow() }
func (r *recordTB) Skipf(format string, a ...any)  { r.Logf(format, a...); r.SkipNow() }
func (r *recordTB) String() string                 { r.mu.Lock(); defer r.mu.Unlock(); return r.log.String() }
func (r *recordTB) FailNow()                       { r.Fail(); runtime.Goexit() }
func (r *recordTB) SkipNow()                       { runtime.Goexit() }

// play runs a scenario text on a target, recording instead of failing.
func play(t *testing.T, name, text string, newTarget NewTarget) (*driver, *recordTB) {
	t.Helper()
	rec := &recordTB{TB: t}
	d := newDriver(&fileTB{TB: rec}, name, newTarget)
	playFile(&fileTB{TB: rec}, d, ScenarioFile{Name: name, Text: text})
	return d, rec
}

func catalogueText(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata/scenarios", name+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// modelT is the model as a target.
type modelT struct {
	*model.Model
	info TargetInfo
}

func (m modelT) Advance(d time.Duration) {
	if err := m.Model.Step(d); err != nil {
		panic(err)
	}
}
func (m modelT) Info() TargetInfo { return m.info }

var everything = Observes{MoveRequestCycle: true, PodInfo: true, Closed: true, InFlightEvents: true, HintCounts: true}

func newModelT(t testing.TB, cfg spec.Config, start time.Time) modelT {
	m, err := model.New(cfg, start)
	if err != nil {
		t.Fatal(err)
	}
	return modelT{m, TargetInfo{Name: "test-model", Observes: everything}}
}

// implT is the implementation as a target, for the blocking tests.
type implT struct {
	*impl.PriorityQueue
	clock *testingclock.FakeClock
	info  TargetInfo
}

func (q implT) Advance(d time.Duration) { q.clock.Step(d) }
func (q implT) Info() TargetInfo        { return q.info }

func newImplT(t testing.TB, cfg spec.Config, start time.Time) implT {
	clk := testingclock.NewFakeClock(start)
	q, err := impl.New(cfg, impl.WithClock(clk))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(q.Close)
	return implT{q, clk, TargetInfo{Name: "test-impl", Blocking: true, Observes: everything}}
}

// brokenDone forgets R12: Done returns nil and leaves the pod in flight.
type brokenDone struct{ modelT }

func (brokenDone) Done(spec.UID) error { return nil }

func newBrokenDone(t testing.TB, cfg spec.Config, start time.Time) Target {
	m := newModelT(t, cfg, start)
	m.info.Name = "broken-done"
	return brokenDone{m}
}

// The differential runs' failure is a scenario: saved, it replays the same
// failure on the broken target, and the same text passes on the model.
func TestDifferentialFailureRoundTrip(t *testing.T) {
	if err := flag.Set("rapid.nofailfile", "true"); err != nil {
		t.Fatal(err)
	}
	defer flag.Set("rapid.nofailfile", "false")
	// However far shrinking got, the scenario printed must replay: a short
	// shrink (30 s by default) checks that as well.
	setFlag(t, "rapid.shrinktime", "2s")
	rec := &recordTB{TB: t}
	func() {
		done := make(chan struct{})
		go func() { defer close(done); checkDifferential(rec, t, newBrokenDone, nil, spec.ProfileClassic) }()
		<-done
	}()
	out := rec.String()
	if !rec.Failed() {
		t.Fatalf("the differential runs did not catch a Done that does nothing:\n%s", out)
	}
	i := strings.LastIndex(out, scenarioMarker)
	if i < 0 {
		t.Fatalf("the failure prints no scenario:\n%s", out)
	}
	j := strings.Index(out[i:], scenarioEnd)
	if j < 0 {
		t.Fatalf("the scenario has no end line:\n%s", out[i:])
	}
	block := out[i : i+j]
	text := block[strings.IndexByte(block, '\n')+1:]
	// The failure as first reported: its message, from the step on.
	k := strings.LastIndex(out[:i], "regressions/differential, step ")
	if k < 0 {
		t.Fatalf("the failure names no step:\n%s", out)
	}
	want := strings.TrimPrefix(out[k:i], "regressions/differential")
	if !strings.Contains(want, "R12 Done") {
		t.Errorf("the failure does not name rule R12:\n%s", want)
	}

	// Saved and replayed on the broken target: the same failure.
	d, rep := play(t, "regressions/differential", text, newBrokenDone)
	if rep.Failed() {
		t.Fatalf("the printed scenario is not a valid file whose output is the model's:\n%s\n%s", rep, text)
	}
	if !d.failed {
		t.Fatalf("the printed scenario passes on the broken target:\n%s", text)
	}
	if got := strings.TrimPrefix(d.failure, "regressions/differential"); got != want {
		t.Errorf("the replay fails differently:\n got: %s\nwant: %s", got, want)
	}
	// The same text passes on the model.
	d, rep = play(t, "regressions/differential", text, func(t testing.TB, cfg spec.Config, start time.Time) Target {
		return newModelT(t, cfg, start)
	})
	if rep.Failed() || d.failed {
		t.Errorf("the printed scenario fails on the model:\n%s%s", rep, d.failure)
	}
	t.Logf("round trip of:\n%s", text)
}

// A catalogue failure names scenario, step, op line, rule, model and
// target, and prints the operations as a scenario.
func TestFailureMessage(t *testing.T) {
	d, rec := play(t, "done/ends-the-time-in-flight", catalogueText(t, "done/ends-the-time-in-flight"), newBrokenDone)
	if rec.Failed() || !d.failed {
		t.Fatalf("failed=%v, file ok=%v:\n%s", d.failed, !rec.Failed(), rec)
	}
	for _, want := range []string{
		"done/ends-the-time-in-flight, step 3: done a\n",
		"R12 Done left a different state",
		"  model:  inFlight: -\n  target: inFlight: a(ts=+0s first=+0s attempts=1)\n",
		scenarioMarker + "ends-the-time-in-flight.txt) ---\n",
		"\ndone a\n----\nok\n",
	} {
		if !strings.Contains(d.failureReport(), want) {
			t.Errorf("the failure lacks %q:\n%s", want, d.failureReport())
		}
	}
}

// snapshotMistake is the model with an adapter mistake in its Snapshot.
type snapshotMistake struct {
	modelT
	mistake func(*spec.Snapshot)
}

func (s snapshotMistake) Snapshot() spec.Snapshot {
	snap := s.modelT.Snapshot()
	s.mistake(&snap)
	return snap
}

// Adapter mistakes are named as such, once and deterministically, instead
// of as a broken rule or invariant.
func TestAdapterMistakes(t *testing.T) {
	for _, c := range []struct {
		name    string
		mistake func(*spec.Snapshot)
		want    string
	}{
		{"unsorted", func(s *spec.Snapshot) { slices.Reverse(s.ActiveQ) },
			"adapter mistake: Snapshot() lists activeQ not sorted by key (ns/low before ns/high); sort each list with spec.SortPods"},
		{"no now", func(s *spec.Snapshot) { s.Now = time.Time{} },
			"adapter mistake: Snapshot().Now is not set"},
		{"plugins", func(s *spec.Snapshot) {
			for i := range s.InFlight {
				s.InFlight[i].UnschedulablePlugins = []string{"TaintToleration", "NodeResourcesFit", "TaintToleration"}
			}
		}, "adapter mistake: pod ns/high in inFlight has UnschedulablePlugins [\"TaintToleration\" \"NodeResourcesFit\" \"TaintToleration\"], not a normalised plugin set (sorted, no duplicates); build it with spec.NewPluginSet"},
	} {
		t.Run(c.name, func(t *testing.T) {
			newT := func(t testing.TB, cfg spec.Config, start time.Time) Target {
				return snapshotMistake{newModelT(t, cfg, start), c.mistake}
			}
			var first string
			for range 3 { // deterministic: the same message every run
				d, rec := play(t, "pop/higher-priority-first", catalogueText(t, "pop/higher-priority-first"), newT)
				if rec.Failed() || !d.failed {
					t.Fatalf("failed=%v, file ok=%v:\n%s", d.failed, !rec.Failed(), rec)
				}
				if n := strings.Count(d.failure, "adapter mistake"); n != 1 || !strings.Contains(d.failure, c.want) {
					t.Fatalf("got %d adapter mistakes, want one naming %q:\n%s", n, c.want, d.failure)
				}
				for _, rule := range []string{"I1", "I5", "R2 Pop"} {
					if strings.Contains(d.failure, rule) {
						t.Errorf("an adapter mistake is blamed on %s:\n%s", rule, d.failure)
					}
				}
				if first == "" {
					first = d.failure
				} else if d.failure != first {
					t.Errorf("the message changed between runs:\n%s\n%s", first, d.failure)
				}
			}
		})
	}
}

// A "pop blocked" whose Pop does not block, or never parks, or is never
// woken, fails: the scenario cannot pass vacuously.
func TestBlockedPopChecks(t *testing.T) {
	defer func(d time.Duration) { wakeDeadline = d }(wakeDeadline)
	wakeDeadline = 300 * time.Millisecond
	text := catalogueText(t, "add/wakes-a-blocked-pop")
	for _, c := range []struct {
		name string
		new  NewTarget
		want string
	}{
		{"does-not-block", func(t testing.TB, cfg spec.Config, start time.Time) Target {
			m := newModelT(t, cfg, start)
			m.info.Blocking = true // a lie: the model's Pop returns ErrWouldBlock at once
			return m
		}, "pop blocked: Pop returned without blocking"},
		{"spins", func(t testing.TB, cfg spec.Config, start time.Time) Target {
			return newSpinningPop(t, cfg, start)
		}, "did not park in .Pop( within 300ms"},
		{"lost-wakeup", func(t testing.TB, cfg spec.Config, start time.Time) Target {
			return lostWakeup{newImplT(t, cfg, start), make(chan struct{})}
		}, "R2 Pop: 1 blocked Pop(s) did not wake within 300ms of add a"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, rec := play(t, "add/wakes-a-blocked-pop", text, c.new)
			if rec.Failed() || !d.failed || !strings.Contains(d.failure, c.want) {
				t.Errorf("failed=%v file ok=%v, want a failure naming %q:\n%s%s", d.failed, !rec.Failed(), c.want, d.failure, rec)
			}
		})
	}
	// The real thing passes: the Pop parks, and the Add wakes it (with the
	// usual deadline: a loaded machine must not make this fail).
	wakeDeadline = 10 * time.Second
	d, rec := play(t, "add/wakes-a-blocked-pop", text, func(t testing.TB, cfg spec.Config, start time.Time) Target {
		return newImplT(t, cfg, start)
	})
	if rec.Failed() || d.failed || d.na != "" {
		t.Errorf("the implementation fails add/wakes-a-blocked-pop: %s%s", d.failure, rec)
	}
}

// spinningPop busy-waits for a pod instead of parking (it gives up once
// the queue is closed).
//
// It spins on flags of its own, set by Add and Close, never on the queue:
// a spin through impl's Snapshot was caught, with -race in about 1 run in
// 12, in a semaphore wait inside Snapshot ("[semacquire]" in the runtime's
// account), which internal/parked counts as parked, so the check passed it.
type spinningPop struct {
	implT
	added, closed *atomic.Bool
}

func newSpinningPop(t testing.TB, cfg spec.Config, start time.Time) spinningPop {
	s := spinningPop{newImplT(t, cfg, start), new(atomic.Bool), new(atomic.Bool)}
	// Before newImplT's cleanup closes the queue (cleanups run last
	// first): the spin ends, and the queue's Close ends the Pop.
	t.Cleanup(func() { s.closed.Store(true) })
	return s
}

func (s spinningPop) Add(p *spec.Pod) error {
	err := s.implT.Add(p)
	if err == nil {
		s.added.Store(true)
	}
	return err
}

func (s spinningPop) Close() {
	s.closed.Store(true)
	s.implT.Close()
}

func (s spinningPop) Pop() (*spec.QueuedPodInfo, int64, error) {
	for !s.added.Load() && !s.closed.Load() {
		runtime.Gosched()
	}
	return s.implT.Pop()
}

// lostWakeup parks on an empty activeQ and is never woken by Add (only by
// Close).
type lostWakeup struct {
	implT
	closed chan struct{}
}

func (l lostWakeup) Pop() (*spec.QueuedPodInfo, int64, error) {
	if len(l.implT.Snapshot().ActiveQ) == 0 {
		<-l.closed
		return nil, 0, spec.ErrClosed
	}
	return l.implT.Pop()
}

func (l lostWakeup) Close() {
	select {
	case <-l.closed:
	default:
		close(l.closed)
	}
	l.implT.Close()
}

// A Pop that blocks where the model pops at once does not hang the suite:
// the step fails, naming the rule and what the Pop waited in, and Close
// unblocks it (goleak, in TestMain, sees no goroutine left behind).
func TestAHangingPopFails(t *testing.T) {
	defer func(d time.Duration) { wakeDeadline = d }(wakeDeadline)
	wakeDeadline = 300 * time.Millisecond
	name := "pop/higher-priority-first"
	d, rec := play(t, name, catalogueText(t, name), func(t testing.TB, cfg spec.Config, start time.Time) Target {
		return hangingPop{lostWakeup{newImplT(t, cfg, start), make(chan struct{})}}
	})
	for _, want := range []string{"R2 Pop: the target's Pop blocked, but the model pops one of", "Pop blocked (no answer within 300ms", "Close unblocked it"} {
		if rec.Failed() || !d.failed || !strings.Contains(d.failure, want) {
			t.Fatalf("failed=%v file ok=%v, want a failure naming %q:\n%s%s", d.failed, !rec.Failed(), want, d.failure, rec)
		}
	}
	t.Logf("the failure:\n%s", d.failure)
}

// hangingPop waits until Close, whatever activeQ holds.
type hangingPop struct{ lostWakeup }

func (h hangingPop) Pop() (*spec.QueuedPodInfo, int64, error) {
	<-h.closed
	return nil, 0, spec.ErrClosed
}

// A user's own scenario directory runs like the catalogue.
func TestOwnScenarioDir(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "regressions"), 0o755); err != nil {
		t.Fatal(err)
	}
	sc := schedqtest.Scenario{Rules: []string{"R12"}, Ops: schedqtest.MustParseOps(t, "add a", "pop", "done a")}
	text, err := schedqtest.FormatScenario(sc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "regressions", "done.txt"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	files, err := ReadScenarioDir(dir)
	if err != nil || len(files) != 1 || files[0].Name != "regressions/done" {
		t.Fatalf("ReadScenarioDir = %+v, %v", files, err)
	}
	Run(t, func(t testing.TB, cfg spec.Config, start time.Time) Target { return newModelT(t, cfg, start) },
		Options{SkipCatalogue: true, Dirs: []string{dir}, Scenarios: "regressions/", SkipDifferential: "this test runs one file"})
	d, rec := play(t, files[0].Name, files[0].Text, newBrokenDone)
	if rec.Failed() || !d.failed {
		t.Errorf("the regression file does not catch the broken target: %s%s", d.failure, rec)
	}
}

// Replay plays a file outside a test: the model's output per step, and the
// target's failure.
func TestReplay(t *testing.T) {
	text := catalogueText(t, "done/ends-the-time-in-flight")
	newT := func(cfg spec.Config, start time.Time) (Target, error) {
		m, err := model.New(cfg, start)
		return brokenDone{modelT{m, TargetInfo{Name: "broken-done", Observes: everything}}}, err
	}
	r, err := Replay(newT, "done/ends-the-time-in-flight", text)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Steps) != 3 || r.Steps[2].Op != "done a" || r.Steps[2].Output != r.Steps[2].Expected {
		t.Errorf("steps = %+v", r.Steps)
	}
	if !strings.Contains(r.Failure, "step 3: done a") {
		t.Errorf("Failure = %q", r.Failure)
	}
	if _, err := Replay(newT, "bad", "frobnicate\n----\n"); err == nil {
		t.Error("Replay accepted an unknown operation")
	}
}

// lastTie pops the largest key among the pods Pop may return (the model
// takes the smallest), and forgets Done.
type lastTie struct{ brokenDone }

func (l lastTie) Pop() (*spec.QueuedPodInfo, int64, error) {
	c := l.Model.PopCandidates()
	if len(c) == 0 {
		return l.Model.Pop()
	}
	return l.Model.PopPod(c[len(c)-1])
}

// A target's choice among equals is pinned in the printed scenario
// ("pop choose="), so that the file replays what the target did and still
// passes on the model.
func TestPrintedScenarioPinsTies(t *testing.T) {
	newLast := func(t testing.TB, cfg spec.Config, start time.Time) Target {
		return lastTie{newBrokenDone(t, cfg, start).(brokenDone)}
	}
	sc := schedqtest.Scenario{Ops: schedqtest.MustParseOps(t, "add a", "add b", "pop", "done b")}
	text, err := schedqtest.FormatScenario(sc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := schedqtest.FormatScenario(schedqtest.Scenario{Ops: schedqtest.MustParseOps(t, "add a", "add b", "pop", "fail b")}); err == nil {
		t.Fatal("the model popped b, yet pops a among equals")
	}
	d, rec := play(t, "regressions/tie", text, newLast)
	if rec.Failed() || !d.failed || !strings.Contains(d.failure, "step 4: done b") {
		t.Fatalf("failed=%v file ok=%v: %s%s", d.failed, !rec.Failed(), d.failure, rec)
	}
	report := d.failureReport()
	i := strings.Index(report, scenarioMarker)
	printed := report[strings.IndexByte(report[i:], '\n')+i+1 : strings.Index(report, scenarioEnd)]
	if !strings.Contains(printed, "\npop choose=b\n----\npopped b cycle=1") {
		t.Fatalf("the printed scenario does not pin the target's choice:\n%s", printed)
	}
	d2, rec := play(t, "regressions/tie", printed, newLast)
	if rec.Failed() || !d2.failed || d2.failure != d.failure {
		t.Errorf("the replay fails differently:\n%s\nwant:\n%s%s", d2.failure, d.failure, rec)
	}
	d3, rec := play(t, "regressions/tie", printed, func(t testing.TB, cfg spec.Config, start time.Time) Target {
		return newModelT(t, cfg, start)
	})
	if rec.Failed() || d3.failed {
		t.Errorf("the printed scenario fails on the model: %s%s", d3.failure, rec)
	}
}

// silentNominator lists no pod for any node, as an upstream nominator
// whose pod lister was never filled does; nominating still succeeds.
type silentNominator struct{ implT }

func (silentNominator) NominatedPodsForNode(string) []*spec.Pod { return nil }

// A "nominated" step compares the pods listed, not only the error: a
// nominator that lists nothing fails the nominator scenarios of both
// profiles, at the first "nominated" that the model answers with pods.
func TestNominatedComparesThePods(t *testing.T) {
	newSilent := func(t testing.TB, cfg spec.Config, start time.Time) Target {
		q := newImplT(t, cfg, start)
		q.info.Name = "silent-nominator"
		return silentNominator{q}
	}
	for _, name := range []string{"nominator/add-update-delete", "hints/nominator/add-update-delete"} {
		d, rec := play(t, name, catalogueText(t, name), newSilent)
		if rec.Failed() || !d.failed {
			t.Errorf("%s: failed=%v, file ok=%v: a nominator that lists nothing passes\n%s", name, d.failed, !rec.Failed(), rec)
			continue
		}
		if !strings.Contains(d.failure, "R18 nominator: the pods nominated to") || !strings.Contains(d.failure, "target: []") {
			t.Errorf("%s: the failure does not name the nominated pods:\n%s", name, d.failure)
		}
	}
	// The same scenarios pass on the implementation itself.
	for _, name := range []string{"nominator/add-update-delete", "hints/nominator/add-update-delete"} {
		d, rec := play(t, name, catalogueText(t, name), func(t testing.TB, cfg spec.Config, start time.Time) Target {
			return newImplT(t, cfg, start)
		})
		if rec.Failed() || d.failed {
			t.Errorf("%s fails on the implementation:\n%s%s", name, rec, d.failure)
		}
	}
}

// panicDone panics in Done.
type panicDone struct{ modelT }

func (panicDone) Done(spec.UID) error { panic("lost the pod") }

// A target's panic fails the step, named as such.
func TestTargetPanicIsAFailure(t *testing.T) {
	d, rec := play(t, "done/ends-the-time-in-flight", catalogueText(t, "done/ends-the-time-in-flight"),
		func(t testing.TB, cfg spec.Config, start time.Time) Target {
			return panicDone{newModelT(t, cfg, start)}
		})
	if rec.Failed() || !d.failed || !strings.Contains(d.failure, "R12 Done: the target panicked: lost the pod") {
		t.Errorf("failed=%v, file ok=%v:\n%s%s", d.failed, !rec.Failed(), rec, d.failure)
	}
}
