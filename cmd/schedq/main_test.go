package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/schedq/schedq/spec"
)

const tour = "testdata/scenarios/tour.txt"

// schedq runs the command line and returns its exit status and output.
func schedq(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// wantContains fails for each wanted text the output lacks.
func wantContains(t *testing.T, out string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks\n%s\n--- output ---\n%s", w, out)
			return
		}
	}
}

func TestRunPrintsEveryStepWithTheModelsState(t *testing.T) {
	code, out, errOut := schedq(t, "run", tour)
	if code != exitOK {
		t.Fatalf("exit %d, want 0\n%s%s", code, out, errOut)
	}
	if n := strings.Count(out, "\nstep "); n != 27 {
		t.Errorf("printed %d steps, want 27 (one per operation)", n)
	}
	wantContains(t, out,
		"scenario tour, replayed on model\nfile: testdata/scenarios/tour.txt\n",
		"rules: R1 R2 R3 R4 R5 R6 R7 R12 R13 I2 I3 I5\n",
		// The move-request shortcut: c failed in the cycle of the move
		// request, so it goes to backoffQ, expiry shown.
		`step 8 (line 80): fail c plugins=(TaintToleration)
  ok
  now=+0s
  activeQ: b(ts=+0s first=+0s attempts=0)
  backoffQ: a(prio=10 ts=+0s first=+0s attempts=1 expiry=+1s plugins=NodeResourcesFit) c(prio=5 ts=+0s first=+0s attempts=1 expiry=+1s plugins=TaintToleration)
  unschedulablePods: -
  inFlight: -
  schedulingCycle=2 moveRequestCycle=2
`,
		// R7: at now = expiry the flush keeps both.
		"step 10 (line 100): flush-backoff\n  ok\n  now=+1s\n  activeQ: b(ts=+0s first=+0s attempts=0)\n  backoffQ: a(",
		// One nanosecond later it releases them.
		"step 12 (line 120): flush-backoff\n  ok\n  now=+1.000000001s\n  activeQ: a(prio=10 ts=+0s first=+0s attempts=1 plugins=NodeResourcesFit) b(",
		"step 25 (line 250): add d prio=1\n  ok\n  woke pop: popped d cycle=6 attempts=1\n",
		"schedulingCycle=6 moveRequestCycle=4 closed\n",
		"tour: ok: 27 steps on model, invariants I1-I6 held after every step\n",
	)
}

func TestRunImplAgreesWithTheModel(t *testing.T) {
	code, out, errOut := schedq(t, "run", tour, "--impl")
	if code != exitOK {
		t.Fatalf("exit %d, want 0\n%s%s", code, out, errOut)
	}
	wantContains(t, out,
		"replayed on model and impl\n",
		"step 4 (line 40): pop\n  model: popped a cycle=1 attempts=1\n  impl:  popped a cycle=1 attempts=1\n  now=+0s\n",
		"step 24 (line 240): pop blocked\n  model: blocked\n  impl:  blocked\n",
		"  model: ok\n  model: woke pop: popped d cycle=6 attempts=1\n  impl:  ok\n  impl:  woke pop: popped d cycle=6 attempts=1\n",
		"tour: ok: 27 steps on model and impl, invariants I1-I6 held after every step, model and impl agree\n",
	)
	if strings.Contains(out, "!!") {
		t.Errorf("a problem was printed:\n%s", out)
	}
}

// ignoresMoveRequests is a deliberately broken queue: it hands every failed
// pod back as if its cycle came after every move request, so a pod that
// failed in the cycle of a move request lands in unschedulablePods (I3).
type ignoresMoveRequests struct{ implQueue }

func (q ignoresMoveRequests) AddUnschedulableIfNotPresent(p *spec.QueuedPodInfo, _ int64) error {
	return q.implQueue.AddUnschedulableIfNotPresent(p, math.MaxInt64)
}

func withBrokenImpl(t *testing.T) {
	t.Helper()
	saved := newImpl
	newImpl = func(cfg spec.Config, start time.Time) (implQueue, error) {
		q, err := saved(cfg, start)
		return ignoresMoveRequests{q}, err
	}
	t.Cleanup(func() { newImpl = saved })
}

func TestRunBrokenQueueNamesTheInvariantAndExitsNonZero(t *testing.T) {
	withBrokenImpl(t)
	code, out, _ := schedq(t, "run", "--impl", tour)
	if code != exitFailed {
		t.Fatalf("exit %d, want %d\n%s", code, exitFailed, out)
	}
	wantContains(t, out,
		// The step, both sides, both states.
		"step 8 (line 80): fail c plugins=(TaintToleration)\n  model: ok\n  impl:  ok\n  model state:\n",
		"  impl state:\n",
		"    unschedulablePods: c(prio=5 ts=+0s first=+0s attempts=1 plugins=TaintToleration)\n",
		// The invariant, named, on the implementation's side.
		"  !! I3 broken on impl: ",
		// The disagreement, model first.
		"  !! R3 AddUnschedulableIfNotPresent: model and impl disagree: state after the step:\n",
		"     pod c: model: backoffQ c(prio=5 ts=+0s first=+0s attempts=1 expiry=+1s plugins=TaintToleration) / impl: unschedulablePods c(prio=5 ts=+0s first=+0s attempts=1 plugins=TaintToleration)\n",
		// The implementation is not compared after it diverged.
		"step 9 (line 90): tick 1s\n  model: ok\n  impl:  (not replayed from here on: impl diverged from the model at step 8)\n",
		"step 10 (line 100): flush-backoff\n  ok\n",
		"note: impl diverged from the model at step 8; the later steps replay the model only\n",
		"tour: FAIL: 2 problem(s) in 27 steps on model and impl\n",
		"tour: FAIL: ",
		"  step 8 (line 80) fail c plugins=(TaintToleration): I3 broken on impl: ",
		// The operations up to the first problem, as a scenario.
		"the operations up to the first problem (step 8), as a scenario:\n  add a prio=10\n  add b\n  add c prio=5\n  pop\n  pop\n  fail a plugins=(NodeResourcesFit)\n  move NodeAdd\n  fail c plugins=(TaintToleration)\n",
	)
	if strings.Contains(out, "broken on model") {
		t.Errorf("the model is reported broken:\n%s", out)
	}

	// The model alone is still fine: the hook only breaks --impl.
	if code, out, _ := schedq(t, "run", tour); code != exitOK {
		t.Errorf("model alone: exit %d, want 0\n%s", code, out)
	}
}

func TestRunStaleExpectationFails(t *testing.T) {
	b, err := os.ReadFile(tour)
	if err != nil {
		t.Fatal(err)
	}
	stale := strings.Replace(string(b), "popped a cycle=1 attempts=1", "popped a cycle=1 attempts=7", 1)
	if stale == string(b) {
		t.Fatal("the replacement did not apply")
	}
	path := filepath.Join(t.TempDir(), "stale.txt")
	if err := os.WriteFile(path, []byte(stale), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := schedq(t, "run", "-q", path)
	if code != exitFailed {
		t.Fatalf("exit %d, want %d\n%s", code, exitFailed, out)
	}
	wantContains(t, out, `step 4 (line 40) pop: the file's expected output differs from the model's: output line 1: file: "popped a cycle=1 attempts=7" / model: "popped a cycle=1 attempts=1"`)
}

func TestRunWithoutExpectationsOnlyReplays(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bare.txt")
	if err := os.WriteFile(path, []byte("add a\n----\n\npop\n----\n\nfail a\n----\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := schedq(t, "run", "--impl", path)
	if code != exitOK {
		t.Fatalf("exit %d, want 0\n%s%s", code, out, errOut)
	}
	wantContains(t, out, "scenario bare,", "step 3 (line 7): fail a\n  model: ok\n  impl:  ok\n  now=+0s\n  activeQ: -\n  backoffQ: a(ts=+0s first=+0s attempts=1 expiry=+1s)\n")
}

func TestRunBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	neverPopped := write("never-popped.txt", "add a\n----\n\nfail a\n----\n")
	unknown := write("unknown.txt", "add a\n----\n\njump a\n----\n")
	empty := write("empty.txt", "# nothing\n")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{nil, exitUsage, "Usage:"},
		{[]string{"frobnicate"}, exitUsage, `unknown command "frobnicate"`},
		{[]string{"run"}, exitUsage, "no scenario file"},
		{[]string{"run", "--nope", tour}, exitUsage, "flag provided but not defined: -nope"},
		{[]string{"run", "--html", filepath.Join(dir, "x.html"), tour, tour}, exitUsage, "--html draws one scenario"},
		{[]string{"run", "--html", filepath.Join(dir, "x.html"), dir}, exitUsage, "--html draws one scenario"},
		{[]string{"run", t.TempDir()}, exitUsage, "no scenario files (*.txt) below it"},
		{[]string{"run", filepath.Join(dir, "missing.txt")}, exitUsage, "no such file"},
		{[]string{"run", neverPopped}, exitUsage, `step 2 (line 4) fail a: scenario error: fail a: Pop never returned this pod`},
		{[]string{"run", unknown}, exitUsage, `unknown operation "jump"`},
		{[]string{"run", empty}, exitUsage, "no operations"},
	} {
		code, out, errOut := schedq(t, tc.args...)
		if code != tc.code || !strings.Contains(out+errOut, tc.want) {
			t.Errorf("schedq %q: exit %d, want %d with %q\n%s%s", tc.args, code, tc.code, tc.want, out, errOut)
		}
	}
	// A bad --html target writes nothing else and says why.
	code, _, errOut := schedq(t, "run", "-q", "--html", filepath.Join(dir, "no", "such", "dir.html"), tour)
	if code != exitUsage || !strings.Contains(errOut, "no such file") {
		t.Errorf("--html into a missing directory: exit %d, %q", code, errOut)
	}
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"-h"}, {"help", "run"}, {"run", "-h"}} {
		code, out, _ := schedq(t, args...)
		if code != exitOK || !strings.Contains(out, "schedq run [--impl] [--html OUT]") {
			t.Errorf("schedq %q: exit %d\n%s", args, code, out)
		}
	}
	_, out, _ := schedq(t, "help", "run")
	wantContains(t, out, "--impl", "--html OUT", "--quiet")
}

// The conformance catalogue replays on the model and the implementation
// without a problem. It lives on another branch until it is merged; the test
// says so rather than passing.
func TestRunConformanceCatalogue(t *testing.T) {
	// The podgroups directory on its own too: schedq run --impl once
	// asked impl for nothing when activeQ held only groups (it counted
	// pods alone), and the replay diverged at the first pop.
	for _, dir := range []string{"../../conformance/testdata/scenarios", "../../conformance/testdata/scenarios/podgroups"} {
		files, err := expandDirs([]string{dir})
		if err != nil {
			t.Skipf("no conformance catalogue in this tree: %v", err)
		}
		code, out, errOut := schedq(t, "run", "--impl", "-q", dir)
		if code != exitOK {
			t.Errorf("exit %d\n%s%s", code, out, errOut)
		}
		// One summary line per file, each ok; a note says where the model
		// followed impl's choice among equals.
		var lines []string
		for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			if !strings.HasPrefix(l, "note: ") {
				lines = append(lines, l)
			}
		}
		if len(lines) != len(files) {
			t.Errorf("%s: %d summary lines for %d files:\n%s", dir, len(lines), len(files), out)
		}
		for _, l := range lines {
			// impl runs every profile, has a nominator and takes caller
			// objects and update verdicts (R19): nothing is n/a.
			if !strings.Contains(l, ": ok: ") || !strings.HasSuffix(l, "model and impl agree") {
				t.Errorf("not ok: %s", l)
			}
		}
		t.Logf("%s: %d scenarios replayed on model and impl", dir, len(files))
	}
}

// stuckPop is a deliberately broken queue whose Pop waits until Close even
// when activeQ holds pods.
type stuckPop struct {
	implQueue
	closed chan struct{}
}

func (q stuckPop) Pop() (*spec.QueuedPodInfo, int64, error) {
	<-q.closed
	return nil, 0, spec.ErrClosed
}

func (q stuckPop) Close() {
	select {
	case <-q.closed:
	default:
		close(q.closed)
	}
	q.implQueue.Close()
}

func TestRunAPopThatBlocksIsADisagreement(t *testing.T) {
	saved, savedWait := newImpl, wakeWait
	t.Cleanup(func() { newImpl, wakeWait = saved, savedWait })
	wakeWait = 50 * time.Millisecond
	newImpl = func(cfg spec.Config, start time.Time) (implQueue, error) {
		q, err := saved(cfg, start)
		return stuckPop{q, make(chan struct{})}, err
	}
	code, out, _ := schedq(t, "run", "--impl", tour)
	if code != exitFailed {
		t.Fatalf("exit %d, want %d\n%s", code, exitFailed, out)
	}
	wantContains(t, out,
		"step 4 (line 40): pop\n  model: popped a cycle=1 attempts=1\n  impl:  (still waiting)\n",
		"  !! R2 Pop: model and impl disagree: impl's Pop did not return within 50ms though the model pops one of [a] (closed=false)\n",
		"note: impl diverged from the model at step 4; the later steps replay the model only\n",
	)
}

// A known difference the file declares for the implementation keeps its
// conformance meaning: reported as known, and stale when it does not show.
func TestRunKnownDifferenceForImpl(t *testing.T) {
	b, err := os.ReadFile(tour)
	if err != nil {
		t.Fatal(err)
	}
	declared := strings.Replace(string(b), "rules R1 ", "known-difference profiles=(schedq-impl) kind=departure\nignores move requests on purpose\nsource: cmd/schedq/main_test.go (ignoresMoveRequests)\n----\n\nrules R1 ", 1)
	path := filepath.Join(t.TempDir(), "declared.txt")
	if err := os.WriteFile(path, []byte(declared), 0o644); err != nil {
		t.Fatal(err)
	}

	code, out, _ := schedq(t, "run", "-q", "--impl", path)
	if code != exitFailed {
		t.Fatalf("the real impl: exit %d, want %d\n%s", code, exitFailed, out)
	}
	wantContains(t, out, "declared: FAIL: stale known difference: the file declares a known difference for schedq-impl (ignores move requests on purpose), but impl behaved as the model")

	withBrokenImpl(t)
	code, out, _ = schedq(t, "run", "-q", "--impl", path)
	if code != exitOK {
		t.Fatalf("the broken impl: exit %d, want 0\n%s", code, out)
	}
	wantContains(t, out,
		"declared: known difference for schedq-impl, as the file declares:\n  step 8 (line 85) fail c plugins=(TaintToleration): I3 broken on impl: ",
		"declared: ok: 27 steps on model and impl, invariants I1-I6 held on the model after every step, impl differs from the model as the file declares (known difference)\n")
}

// Names come from files: the text output does not pass control characters
// to the terminal.
func TestRunEscapesControlCharacters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "esc.txt")
	if err := os.WriteFile(path, []byte("add a\x1b[2Jb\n----\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := schedq(t, "run", path)
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if strings.Contains(out, "\x1b") {
		t.Errorf("the output holds an escape character:\n%q", out)
	}
	wantContains(t, out, `activeQ: a\x1b[2Jb(ts=+0s`)
}

// TestHTMLNeverOverwritesAnInput: "--html a.txt b.txt" takes a.txt as the
// page; it used to replace that scenario with HTML and exit 0.
func TestHTMLNeverOverwritesAnInput(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(tour)
	if err != nil {
		t.Fatal(err)
	}
	a, b := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")
	notes, page := filepath.Join(dir, "notes.html"), filepath.Join(dir, "page.html")
	for _, f := range []string{a, b} {
		if err := os.WriteFile(f, src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(notes, []byte("<p>my own notes</p>\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "-q", "--html", a, b}, "must end in .html"},
		{[]string{"run", "-q", "--html", notes, b}, "not a page schedq wrote"},
	} {
		code, _, errOut := schedq(t, tc.args...)
		if code != exitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("schedq %q: exit %d, %q; want exit %d with %q", tc.args, code, errOut, exitUsage, tc.want)
		}
	}
	// The same file under another name is refused too (an input named .html).
	if err := os.Rename(b, filepath.Join(dir, "b.html")); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := schedq(t, "run", "-q", "--html", filepath.Join(dir, "b.html"), filepath.Join(dir, ".", "b.html")); code != exitUsage || !strings.Contains(errOut, "is an input scenario") {
		t.Errorf("--html naming its own input: exit %d, %q", code, errOut)
	}
	for f, want := range map[string][]byte{a: src, filepath.Join(dir, "b.html"): src, notes: []byte("<p>my own notes</p>\n")} {
		if got, _ := os.ReadFile(f); !bytes.Equal(got, want) {
			t.Errorf("%s changed: an input or a file schedq did not write was overwritten", f)
		}
	}
	// A page it wrote may be written again.
	for range 2 {
		if code, _, errOut := schedq(t, "run", "-q", "--html", page, a); code != exitOK {
			t.Fatalf("--html %s: exit %d, %s", page, code, errOut)
		}
	}
}
