package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// jsonLines renders test2json events for the fixtures.
func jsonLines(t *testing.T, evs ...event) []byte {
	t.Helper()
	var b strings.Builder
	for _, e := range evs {
		j, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

func newRun(t *testing.T, out []byte) *run {
	r := &run{out: out, tmp: t.TempDir()}
	r.events, r.text = decode(out)
	return r
}

func TestDecodeKeepsNonJSONLines(t *testing.T) {
	out := append([]byte("make: entering\n"), jsonLines(t, event{Action: "output", Package: "p", Test: "TestA", Output: "hello\n"})...)
	out = append(out, "wrote conformance/RESULTS.md\n"...)
	evs, text := decode(out)
	if len(evs) != 1 || text != "make: entering\nhello\nwrote conformance/RESULTS.md\n" {
		t.Errorf("decode: %d events, text %q", len(evs), text)
	}
}

func TestCountTestsAndSkips(t *testing.T) {
	r := newRun(t, jsonLines(t,
		event{Action: "pass", Package: "p", Test: "TestA"},
		event{Action: "pass", Package: "p", Test: "TestA/x"},
		event{Action: "skip", Package: "p", Test: "TestB"},
	))
	if got := countTests(r); len(got) != 1 || got[0] != "2 tests and subtests passed (2 top-level), 1 skipped" {
		t.Errorf("countTests: %q", got)
	}
	if got := allSkipped(r.events); got != "" {
		t.Errorf("allSkipped with a test that passed: %q", got)
	}
	r = newRun(t, jsonLines(t,
		event{Action: "output", Package: "p", Test: "TestM", Output: "    mutants_test.go:12: -short: builds once per mutant\n"},
		event{Action: "skip", Package: "p", Test: "TestM"},
	))
	if got := allSkipped(r.events); !strings.Contains(got, "-short: builds once per mutant") {
		t.Errorf("allSkipped: %q, want the skip message", got)
	}
}

func TestCountMutants(t *testing.T) {
	table := `    mutants_test.go:309: 
        catch table (-rapid.checks=10000 -rapid.nofailfile -rapid.shrinktime=20s):
        mutant                                       result      check            steps    time
        backoff-off-by-one                           caught      snapshot             4    3.1s
        no-shortcut                                  caught      I3                   3    2.0s
        lifo-ties                                    NOT CAUGHT  -                    -   60.0s
--- FAIL: TestMutantsAreCaught (70.00s)
`
	got := countMutants(newRun(t, []byte(table)))
	if len(got) != 5 || got[0] != "2 of 3 mutants caught" || !strings.Contains(got[4], "lifo-ties") {
		t.Errorf("countMutants: %q", got)
	}
	// No table (the suite changed its output): say so, count tests.
	got = countMutants(newRun(t, jsonLines(t, event{Action: "pass", Package: "p", Test: "TestMutantsAreCaught"})))
	if len(got) == 0 || !strings.Contains(got[0], "not found") {
		t.Errorf("countMutants without a table: %q", got)
	}
}

func TestCountLinearizability(t *testing.T) {
	text := `    linearizability_test.go:129: impl, 2 clients: 300 histories, ops/history 400..400 (median 400), 12% of ops overlap another client's, 3 blocked Pops, 0 rescue Adds; check time median 2ms, max 9ms
    linearizability_test.go:129: impl, 8 clients: 300 histories, ops/history 96..400 (median 400), 40% of ops overlap
    broken_test.go:306: lockedModel, 2 clients: 150 histories, ops/history 401..420 (median 408), 25% of ops overlap
    broken_test.go:354: caught after 2 run(s) (4 clients, 200 operations; 0 undecided before); x
    broken_test.go:354: caught after 1 run(s) (4 clients, 200 operations; 0 undecided before); x
`
	got := countLinearizability(newRun(t, []byte(text)))
	if len(got) != 3 || got[0] != "impl: 600 histories x 96..400 ops (2,8 clients), each linearizable" ||
		got[1] != "lockedModel: 150 histories x 401..420 ops (2 clients), each linearizable" || got[2] != "2 broken queues caught (not linearizable)" {
		t.Errorf("countLinearizability: %q", got)
	}
}

func TestCountConformance(t *testing.T) {
	r := newRun(t, []byte("    --- PASS: TestImpl/differential/random\n        [rapid] OK, passed 100 tests (1.2s)\n[rapid] OK, passed 100 tests (3s)\n"))
	dir := filepath.Join(r.tmp, "results")
	os.MkdirAll(dir, 0o755)
	for name, body := range map[string]string{
		"a.json": `{"target":{"name":"a"},"results":[{"scenario":"s1","outcome":"pass"},{"scenario":"s2","outcome":"n/a"},{"scenario":"model-differential random runs","outcome":"pass"}]}`,
		"b.json": `{"target":{"name":"b"},"results":[{"scenario":"s1","outcome":"known difference"},{"scenario":"s2","outcome":"pass"},{"scenario":"model-differential random runs","outcome":"n/a"}]}`,
		"c.json": `not json`,
	} {
		os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644)
	}
	got := countConformance(r)
	want := []string{
		"2 scenarios x 2 target(s) = 4 runs: 2 pass, 1 known difference, 1 n/a",
		"random runs compared with the model: 200, on 2 target(s); n/a on b",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("countConformance:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Without results files: the scenario subtests (names with "/").
	r = newRun(t, jsonLines(t,
		event{Action: "pass", Package: "p", Test: "TestX/add/one"},
		event{Action: "fail", Package: "p", Test: "TestX/add/two"},
		event{Action: "pass", Package: "p", Test: "TestX/differential/random"},
		event{Action: "fail", Package: "p", Test: "TestX"},
	))
	if got := countConformance(r); len(got) != 1 || got[0] != "2 scenarios x 1 target(s) (from the subtests): 1 pass, 1 fail" {
		t.Errorf("countConformance from subtests: %q", got)
	}
}

func TestCountTLC(t *testing.T) {
	out := `run-tlc: TLC2 Version 2.19, /root/.cache/schedq/tla2tools.jar
PASS  Graph.cfg          1234 distinct states (3s)
PASS  Safety.cfg         56789 distinct states (40s)
PASS  NoShortcut.cfg     I3 violated as expected: counterexample of 7 states (2s)
        State 1: <Initial predicate>
`
	got := countTLC(newRun(t, []byte(out)))
	if len(got) != 2 || got[0] != "3 configurations, 58023 distinct states in total" || !strings.Contains(got[1], "NoShortcut.cfg violated as expected (7-state counterexample)") {
		t.Errorf("countTLC: %q", got)
	}
	if skipLine("SKIP: TLC model checking skipped: no java on PATH\n") != "TLC model checking skipped: no java on PATH" {
		t.Error("skipLine does not read run-tlc's SKIP line")
	}
}

func TestSummarySaysSkippedNotPassed(t *testing.T) {
	var b strings.Builder
	runs := []*run{
		{step: &step{name: "a"}, status: "PASS"},
		{step: &step{name: "tlc", enable: "set TLA2TOOLS_JAR"}, status: "SKIPPED", reason: "no jar"},
	}
	if code := summary(&b, runs, 0); code != 0 {
		t.Errorf("exit %d", code)
	}
	out := b.String()
	if !strings.Contains(out, "SKIPPED") || !strings.Contains(out, "to run it: set TLA2TOOLS_JAR") || !strings.HasSuffix(out, "verify: all suites passed, 1 skipped\n") {
		t.Errorf("summary:\n%s", out)
	}
	runs[0].status = "FAIL"
	b.Reset()
	if code := summary(&b, runs, 0); code != 1 || !strings.Contains(b.String(), "FAILED: 1 of 2 suites failed, 1 skipped") {
		t.Errorf("summary with a failure (exit %d):\n%s", code, b.String())
	}
}

// Both profiles' state machines are counted, not the first only.
func TestCountStateMachineSumsTheProfiles(t *testing.T) {
	r := &run{text: "statemachine_test.go:40: 200 checks (shrinking included), 6367 steps, 31.8 steps per check\n" +
		"statemachine_test.go:40: 300 checks (shrinking included), 7156 steps, 35.8 steps per check\n"}
	got := countStateMachine(r)
	want := "500 random runs in 2 profile(s), 13523 operations, impl vs model after each"
	if len(got) != 1 || got[0] != want {
		t.Errorf("countStateMachine = %q, want %q", got, want)
	}
}

// A history the checker could not decide is not "each linearizable".
func TestCountLinearizabilitySaysWhatFailed(t *testing.T) {
	r := &run{text: "    linearizability_test.go:178: impl-hints: history 169 (8 clients, 401 operations, seed 7) is UNDECIDED: the checker gave up after 2m0s\n" +
		"    linearizability_test.go:178: impl-hints, 8 clients: 300 histories, ops/history 401..409 (median 401), 41% of ops overlap\n" +
		"    linearizability_test.go:166: impl, 8 clients: 300 histories, ops/history 401..419 (median 402), 40% of ops overlap\n"}
	got := countLinearizability(r)
	want := []string{
		"impl-hints: 300 histories x 401..409 ops (8 clients), 0 NOT linearizable, 1 UNDECIDED",
		"impl: 300 histories x 401..419 ops (8 clients), each linearizable",
	}
	if !slices.Equal(got, want) {
		t.Errorf("countLinearizability =\n%q\nwant\n%q", got, want)
	}
}
