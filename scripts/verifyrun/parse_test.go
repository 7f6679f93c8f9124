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
linearizability: slowest porcupine check of 1050: 212ms (3120 model steps, Ok, hints profile, 8 clients, 401 operations, 100 quiescent points, seed 7)
`
	got := countLinearizability(newRun(t, []byte(text)))
	if len(got) != 4 || got[0] != "impl: 600 histories x 96..400 ops (2,8 clients), each linearizable" ||
		got[1] != "lockedModel: 150 histories x 401..420 ops (2 clients), each linearizable" || got[2] != "2 broken queues caught (not linearizable)" ||
		got[3] != "slowest porcupine check of 1050: 212ms (3120 model steps, Ok, hints profile, 8 clients, 401 operations, 100 quiescent points, seed 7)" {
		t.Errorf("countLinearizability: %q", got)
	}
}

// writeResults writes conformance results files into the run's temp dir.
func writeResults(t *testing.T, r *run, files map[string]string) {
	t.Helper()
	dir := filepath.Join(r.tmp, "results")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestCountConformance(t *testing.T) {
	r := newRun(t, jsonLines(t,
		event{Action: "pass", Package: "p", Test: "TestA/preflight"},
		event{Action: "pass", Package: "p", Test: "TestA/add/s1"},
		event{Action: "pass", Package: "p", Test: "TestA/add/s2"},
		event{Action: "output", Package: "p", Test: "TestA/differential/random", Output: "    differential.go:139: [rapid] OK, passed 100 tests (1.2s)\n"},
		event{Action: "pass", Package: "p", Test: "TestA/differential/random"},
		event{Action: "pass", Package: "p", Test: "TestA/differential"},
		event{Action: "output", Package: "p", Test: "TestA/differential-hints", Output: "    run.go:260: the target refuses the hints profile's config\n"},
		event{Action: "skip", Package: "p", Test: "TestA/differential-hints"},
		event{Action: "pass", Package: "p", Test: "TestA"},
		event{Action: "pass", Package: "p", Test: "TestB/preflight"},
		event{Action: "pass", Package: "p", Test: "TestB/add/s1"},
		event{Action: "fail", Package: "p", Test: "TestB/add/s2"},
		event{Action: "fail", Package: "p", Test: "TestB/differential"},
		event{Action: "fail", Package: "p", Test: "TestB"},
	))
	writeResults(t, r, map[string]string{
		"a.json": `{"target":{"name":"a"},"test":"TestA","results":[{"scenario":"add/s1","outcome":"pass"},{"scenario":"add/s2","outcome":"known difference"}]}`,
		"b.json": `{"target":{"name":"b"},"test":"TestB","results":[{"scenario":"add/s1","outcome":"pass"},{"scenario":"add/s2","outcome":"stale"}]}`,
		"c.json": `not json`,
	})
	got := countConformance(r)
	want := []string{
		"2 scenarios x 2 target(s) = 4 runs: 2 pass, 1 known difference, 1 stale",
		"preflight: ok on a, b",
		"random runs (classic): ok on a; FAILED on b; 100 sequences compared with the model",
		"random runs (hints): skipped on a (the target refuses the hints profile's config); " + notRunFiltered + " on b",
		"random runs (podgroups): " + notRunFiltered + " on a, b",
	}
	if !slices.Equal(got, want) {
		t.Errorf("countConformance:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Under a -run filter only what ran is counted: no preflight passed, five
// scenarios, random runs that did not run. (The old summary read the
// counts from Run's own line and the results files, and said "preflight
// ok", "106 of 106 scenarios ran" and "random runs: pass".)
func TestConformanceCountsOnlyWhatRan(t *testing.T) {
	var evs []event
	for _, s := range []string{"a", "b", "c", "d", "e"} {
		evs = append(evs, event{Action: "pass", Package: "p", Test: "TestImpl/add/" + s})
	}
	evs = append(evs, event{Action: "pass", Package: "p", Test: "TestImpl"},
		// A test of the same name in another package (conformance/concurrent's
		// TestImpl) is no conformance.Run.
		event{Action: "pass", Package: "concurrent", Test: "TestImpl/wakeups/add"},
		event{Action: "pass", Package: "concurrent", Test: "TestImpl"})
	// The filter ran no random run, but the root is known by its results
	// file: Run writes one whatever ran.
	r := newRun(t, jsonLines(t, evs...))
	writeResults(t, r, map[string]string{
		"impl.json": `{"target":{"name":"schedq-impl"},"test":"TestImpl","summary":"conformance schedq-impl: preflight ok; 106 of 106 scenarios ran","results":[{"scenario":"add/a","outcome":"pass"}]}`,
	})
	got := strings.Join(countConformance(r), "\n")
	for _, want := range []string{
		"preflight: " + notRunFiltered + " on schedq-impl",
		"5 scenarios x 1 target(s) = 5 runs: 5 pass",
		"random runs (classic): " + notRunFiltered + " on schedq-impl",
		"random runs (hints): " + notRunFiltered + " on schedq-impl",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("countConformance:\n%s\nwant a line %q", got, want)
		}
	}
	for _, lie := range []string{"106", "preflight: ok", ": ok on", "pass on"} {
		if strings.Contains(got, lie) {
			t.Errorf("countConformance claims what did not run (%q):\n%s", lie, got)
		}
	}
}

// An n/a scenario is a skip, never a pass: whether the driver skips it
// (t.Skip) or passes its subtest and says n/a in the results file.
func TestConformanceNAIsASkip(t *testing.T) {
	r := newRun(t, jsonLines(t,
		event{Action: "pass", Package: "p", Test: "TestV/preflight"},
		event{Action: "pass", Package: "p", Test: "TestV/add/s1"},
		event{Action: "pass", Package: "p", Test: "TestV/hints/s2"},
		event{Action: "skip", Package: "p", Test: "TestV/hints/s3"},
		event{Action: "pass", Package: "p", Test: "TestV"},
	))
	writeResults(t, r, map[string]string{
		"v.json": `{"target":{"name":"v"},"test":"TestV","results":[{"scenario":"add/s1","outcome":"pass"},{"scenario":"hints/s2","outcome":"n/a"},{"scenario":"hints/s3","outcome":"n/a"}]}`,
	})
	got := countConformance(r)
	if len(got) < 1 || got[0] != "3 scenarios x 1 target(s) = 3 runs: 1 pass, 2 skipped (n/a)" {
		t.Errorf("countConformance: %q", got)
	}
}

// Targets that ran different scenarios are not multiplied out: each says
// how many it ran (two targets, one running 2 and the other 1, are not
// "2 scenarios x 2 targets").
func TestConformanceCountsScenariosPerTarget(t *testing.T) {
	r := newRun(t, jsonLines(t,
		event{Action: "pass", Package: "p", Test: "TestAll/preflight"},
		event{Action: "pass", Package: "p", Test: "TestAll/add/s1"},
		event{Action: "pass", Package: "p", Test: "TestAll/add/s2"},
		event{Action: "pass", Package: "p", Test: "TestOne/preflight"},
		event{Action: "pass", Package: "p", Test: "TestOne/add/s1"},
	))
	got := countConformance(r)
	if len(got) == 0 || got[0] != "3 scenario runs on 2 target(s) (TestAll 2, TestOne 1): 3 pass" {
		t.Errorf("countConformance: %q", got)
	}
}

// Every target is named once per line, however many parts of it were n/a
// (the old summary listed a target once per random run it did not run:
// "n/a on ..., upstream-v1.33.13-queueinghints, upstream-v1.33.13-queueinghints, ...").
func TestConformanceNamesEachTargetOnce(t *testing.T) {
	var evs []event
	var files = map[string]string{}
	for _, n := range []string{"classic", "queueinghints"} {
		root := "TestV133/" + n
		evs = append(evs,
			event{Action: "pass", Package: "v133", Test: root + "/preflight"},
			event{Action: "pass", Package: "v133", Test: root + "/add/s1"},
			event{Action: "skip", Package: "v133", Test: root + "/differential"},
			event{Action: "skip", Package: "v133", Test: root + "/differential-hints"},
		)
		files[n+".json"] = `{"target":{"name":"upstream-v1.33.13-` + n + `"},"test":"` + root + `","results":[` +
			`{"scenario":"model-differential random runs","outcome":"n/a"},{"scenario":"hints random runs","outcome":"n/a"}]}`
	}
	// A target whose random runs ran, so that there is a line to name the others in.
	evs = append(evs,
		event{Action: "output", Package: "v137", Test: "TestV137/differential/random", Output: "[rapid] OK, passed 100 tests (1s)\n"},
		event{Action: "pass", Package: "v137", Test: "TestV137/differential/random"},
		event{Action: "pass", Package: "v137", Test: "TestV137/differential"},
	)
	r := newRun(t, jsonLines(t, evs...))
	writeResults(t, r, files)
	for _, l := range countConformance(r) {
		for _, n := range []string{"upstream-v1.33.13-classic", "upstream-v1.33.13-queueinghints"} {
			if c := strings.Count(l, n); c > 1 {
				t.Errorf("%q names %s %d times", l, n, c)
			}
		}
	}
}

// Without any conformance.Run subtest the step's tests are counted.
func TestCountConformanceWithoutRun(t *testing.T) {
	r := newRun(t, jsonLines(t,
		event{Action: "pass", Package: "p", Test: "TestX"},
		event{Action: "pass", Package: "p", Test: "TestX/a"},
	))
	if got := countConformance(r); len(got) != 1 || got[0] != "2 tests and subtests passed (1 top-level)" {
		t.Errorf("countConformance: %q", got)
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
	if code := summary(&b, runs, 0, 0); code != 0 {
		t.Errorf("exit %d", code)
	}
	out := b.String()
	if !strings.Contains(out, "SKIPPED") || !strings.Contains(out, "to run it: set TLA2TOOLS_JAR") || !strings.HasSuffix(out, "verify: all suites passed, 1 skipped\n") {
		t.Errorf("summary:\n%s", out)
	}
	runs[0].status = "FAIL"
	b.Reset()
	if code := summary(&b, runs, 0, 0); code != 1 || !strings.Contains(b.String(), "FAILED: 1 of 2 suites failed, 1 skipped") {
		t.Errorf("summary with a failure (exit %d):\n%s", code, b.String())
	}
}

// A run that -only narrowed says so in its verdict, never "all suites
// passed".
func TestSummarySaysAPartialRun(t *testing.T) {
	var b strings.Builder
	runs := []*run{{step: &step{name: "a"}, status: "PASS"}, {step: &step{name: "b"}, status: "PASS"}}
	if code := summary(&b, runs, 0, 19); code != 0 || strings.Contains(b.String(), "all suites passed") ||
		!strings.HasSuffix(b.String(), "verify: the 2 suites that ran passed, 0 skipped (a partial run: -only left out 19 of the 21 steps)\n") {
		t.Errorf("partial run (exit %d):\n%s", code, b.String())
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
		"no slowest check printed: the run did not finish",
	}
	if !slices.Equal(got, want) {
		t.Errorf("countLinearizability =\n%q\nwant\n%q", got, want)
	}
}

// A run go test killed says so: the histories counted are those checked
// before, not the run's.
func TestCountLinearizabilitySaysTimedOut(t *testing.T) {
	r := &run{text: "    linearizability_test.go:189: impl, 2 clients: 300 histories, ops/history 450..469 (median 458), 9% of ops overlap\n" +
		"panic: test timed out after 10m0s\n"}
	got := countLinearizability(r)
	want := []string{
		"impl: 300 histories x 450..469 ops (2 clients), each linearizable",
		"no slowest check printed: the run did not finish",
		"stopped by go test's -timeout (\"test timed out after 10m0s\"): only the histories counted above were checked",
	}
	if !slices.Equal(got, want) {
		t.Errorf("countLinearizability =\n%q\nwant\n%q", got, want)
	}
}

// The conformance step runs the upstream module once per release, with the
// same test names each time: every run is a target of its own, named by
// the line Run logs and refined by its own results file. (The summary of
// make verify counted five releases as one, "115 scenarios x 4 target(s)",
// with the last release's name and results.)
func TestConformanceCountsEachRunOfAPackage(t *testing.T) {
	var evs []event
	for _, rel := range []string{"upstream-v1.36.5", "upstream-v1.37.2"} {
		evs = append(evs,
			event{Action: "pass", Package: "up", Test: "TestQueueingHints/preflight"},
			event{Action: "pass", Package: "up", Test: "TestQueueingHints/add/s1"},
			event{Action: "output", Package: "up", Test: "TestQueueingHints", Output: "    upstream_test.go:80: conformance " + rel + ": preflight ok; 1 of 1 scenarios ran\n"},
			event{Action: "pass", Package: "up", Test: "TestQueueingHints"},
			event{Action: "pass", Package: "up"})
	}
	r := newRun(t, jsonLines(t, evs...))
	writeResults(t, r, map[string]string{
		"v136.json": `{"target":{"name":"upstream-v1.36.5"},"test":"TestQueueingHints","results":[{"scenario":"add/s1","outcome":"known difference"}]}`,
		"v137.json": `{"target":{"name":"upstream-v1.37.2"},"test":"TestQueueingHints","results":[{"scenario":"add/s1","outcome":"pass"}]}`,
	})
	got := strings.Join(countConformance(r), "\n")
	for _, want := range []string{
		"1 scenarios x 2 target(s) = 2 runs: 1 pass, 1 known difference",
		"preflight: ok on upstream-v1.36.5, upstream-v1.37.2",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("countConformance:\n%s\nwant a line %q", got, want)
		}
	}
}

func TestCountGenerated(t *testing.T) {
	r := &run{text: "GraphExt: 500 scenarios of the graph's 803860 steps (every 1607-th step in the order first taken); 0 skipped as not expressible (x)\n" +
		"    generated.go:156: generated GraphExt on schedq-model: 500 scenarios ran: 450 pass, 0 known differences, 0 unexplained, 50 n/a [generated: ...]\n" +
		"    generated.go:156: generated GraphExt on upstream-v1.37.2: 500 scenarios ran: 200 pass, 240 known differences, 10 unexplained, 50 n/a [generated: ...]\n"}
	got := countGenerated(r)
	if len(got) != 4 || got[0] != "1000 generated scenarios on 2 targets: 650 pass, 240 known differences, 10 unexplained, 100 n/a" ||
		!strings.Contains(got[1], "GraphExt: 500 scenarios of its 803860 steps (0 more not expressible") {
		t.Errorf("countGenerated = %q", got)
	}
	if countGenerated(&run{text: "nothing"}) != nil {
		t.Error("a count from no line")
	}
	c := countCoverage(&run{text: "    coverage_test.go:10: | source | edges |\nother\n"})
	if len(c) != 2 || c[1] != "  | source | edges |" {
		t.Errorf("countCoverage = %q", c)
	}
}

// The coverage line counts the generated scenarios that ran (the generated
// step's bound), apart from the steps the language can express (issue 37:
// the summary showed "803,860 of 803,860 (100.00%)" for a run of 500).
func TestCoverageSaysWhatRan(t *testing.T) {
	cov := "    coverage_test.go:404: hand-written: 118 scenario files, 900 operations; random runs: 12865 operations\n" +
		"    coverage_test.go:488: | GraphExt | 803860 | 51 (0.01%) | 147 (0.02%) | 803860 (100.00%) |\n" +
		"    coverage_test.go:488: | GraphHints | 27930 | n/a (other plugins) | n/a (other plugins) | 27412 (98.15%) |\n" +
		"    coverage_test.go:521: | classic (16) | 14 (not: R11 R13) |\n"
	gen := &run{step: &step{name: generatedStep}, text: "GraphExt: 500 scenarios of the graph's 803860 steps (every 1607-th step); 0 skipped as not expressible (x)\n"}
	got := countCoverage(&run{text: cov, prior: []*run{{step: &step{name: "other"}}, gen}})
	want := []string{
		"  GraphExt: 803,860 steps; hand-written 51 (0.01%); random runs (CI size) 147 (0.02%); generated scenarios run: 500 of 803,860 steps; expressible: 100%",
		"  GraphHints: 27,930 steps; hand-written n/a (other plugins); random runs (CI size) n/a (other plugins); generated scenarios run: none (the generated step ran no scenario of this graph); expressible: 98.15%",
		"  | classic (16) | 14 (not: R11 R13) |",
	}
	if len(got) != 4 || !slices.Equal(got[1:], want) {
		t.Errorf("countCoverage =\n%s\nwant\n%s", strings.Join(got[1:], "\n"), strings.Join(want, "\n"))
	}
	// Without the generated step nothing generated ran in this verify.
	got = countCoverage(&run{text: cov})
	if len(got) < 2 || !strings.Contains(got[1], "generated scenarios run: none in this verify") || strings.Contains(got[0], "reached by the hand-written scenarios, the random runs and the generated set") {
		t.Errorf("countCoverage without a generated step = %q", got)
	}
}

// The agreement step says it compared with committed graphs: TLC did not run.
func TestCountAgreementSaysTLCNotRun(t *testing.T) {
	r := newRun(t, jsonLines(t, event{Action: "pass", Package: "tla", Test: "TestAgreementWithTLC"}))
	got := countAgreement(r)
	if len(got) != 2 || got[0] != "1 tests and subtests passed (1 top-level)" || !strings.Contains(got[1], "TLC graphs committed, TLC not run") {
		t.Errorf("countAgreement = %q", got)
	}
}

// The linearizability line names its skipped tests and states porcupine's
// UNDECIDED as a rate with its budget.
func TestCountLinearizabilityNamesSkipsAndOdds(t *testing.T) {
	r := newRun(t, jsonLines(t,
		event{Action: "output", Package: "lin", Test: "TestImplIsLinearizable/clients=2", Output: "    linearizability_test.go:218: impl, 2 clients: 300 histories, ops/history 400..400 (median 400), 9% of ops overlap; 1 of 300 UNDECIDED within -lin.timeout=1m0s (budget: 3)\n"},
		event{Action: "output", Package: "lin", Test: "TestImplIsLinearizable/clients=8", Output: "    linearizability_test.go:218: impl, 8 clients: 300 histories, ops/history 400..400 (median 400), 40% of ops overlap; 0 of 300 UNDECIDED within -lin.timeout=1m0s (budget: 3)\n"},
		event{Action: "pass", Package: "lin", Test: "TestImplIsLinearizable"},
		event{Action: "output", Package: "lin", Test: "TestDetectionRate", Output: "    broken_test.go:307: -lin.detection=N not given\n"},
		event{Action: "skip", Package: "lin", Test: "TestDetectionRate"},
		event{Action: "skip", Package: "lin", Test: "TestReplay"},
		event{Action: "output", Package: "lin", Output: "linearizability: slowest porcupine check of 600: 200ms (x)\n"},
	))
	got := countLinearizability(r)
	want := []string{
		"impl: 600 histories x 400..400 ops (2,8 clients), each linearizable",
		"porcupine UNDECIDED (no verdict within -lin.timeout=1m0s per history): 1 of 600 histories, budget 6 (1% per run of histories, at least 1; over it fails)",
		"2 tests skipped, not run: TestDetectionRate (-lin.detection=N not given); TestReplay",
		"slowest porcupine check of 600: 200ms (x)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("countLinearizability =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// The conformance step's concurrent checks (no conformance.Run) are
// counted on a line of their own (issue 37: the 15 checks were left out).
func TestConformanceCountsTheConcurrentChecks(t *testing.T) {
	r := newRun(t, jsonLines(t,
		event{Action: "pass", Package: "p", Test: "TestImpl/preflight"},
		event{Action: "pass", Package: "p", Test: "TestImpl/add/s1"},
		event{Action: "pass", Package: "p", Test: "TestImpl"},
		event{Action: "pass", Package: "conformance/concurrent", Test: "TestImpl/wakeups/add"},
		event{Action: "pass", Package: "conformance/concurrent", Test: "TestImpl/wakeups/flush"},
		event{Action: "fail", Package: "conformance/concurrent", Test: "TestImpl/race"},
		event{Action: "pass", Package: "conformance/concurrent", Test: "TestImpl/wakeups"},
		event{Action: "fail", Package: "conformance/concurrent", Test: "TestImpl"},
		event{Action: "pass", Package: "conformance/concurrent", Test: "TestLockedModel"},
	))
	got := countConformance(r)
	want := "other checks, no conformance.Run: 4 in conformance/concurrent (3 pass, 1 fail)"
	if got[len(got)-1] != want {
		t.Errorf("countConformance last line = %q, want %q", got[len(got)-1], want)
	}
}

func TestCountRealsched(t *testing.T) {
	text := "realsched-check: kube-scheduler v1.33.13 (cd realsched && go test ...)\n" +
		"    realsched_test.go:45: Basic on upstream: 500/500 bound, 0 waiting, 0 lost, 0 double, gated bound 0/0, ...\n" +
		"    realsched_test.go:45: Basic on schedq: 500/500 bound, 0 waiting, 0 lost, 0 double, gated bound 0/0, ...\n" +
		"    realsched_test.go:45: Preemption on schedq: 480/500 bound, 20 waiting, 0 lost, 0 double, ...\n" +
		"realsched-check: kube-scheduler v1.37.2 (cd realsched && go test -modfile=go.v137.mod -tags v137 ...)\n" +
		"    realsched_test.go:45: Basic on schedq: 499/500 bound, 0 waiting, 1 lost, 0 double, ...\n"
	got := countRealsched(&run{text: text})
	want := []string{
		"the real kube-scheduler, 2 release(s) x both queues",
		"  v1.33.13 upstream: 1 workloads, 500/500 pods bound, 0 waiting, 0 lost, 0 bound twice",
		"  v1.33.13 schedq: 2 workloads, 980/1000 pods bound, 20 waiting, 0 lost, 0 bound twice",
		"  v1.37.2 schedq: 1 workloads, 499/500 pods bound, 0 waiting, 1 lost, 0 bound twice",
	}
	if !slices.Equal(got, want) {
		t.Errorf("countRealsched =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestCountLayers(t *testing.T) {
	text := "    layers_test.go:242: layers: every row's output is kept in /r/layers (one file per row, control.txt and subtests.txt)\n" +
		"    layers_test.go:300: \n        | rule | mutant |\n\n        47 rows, 5 layers (random ones 5 runs each), 12m3s in all (go test ...).\n" +
		"    layers_test.go:306: goal: 40 of 45 rules caught by some random layer in >= 95% of runs (their best row); below it: R4h 0/5\n" +
		"    layers_test.go:306: goal: R4h, R11, R13, R13h, R17 each by two random layers at >= 95%: met\n" +
		"    layers_test.go:325: guard: 188 random-layer cells compared with the published rates (N=20) by a one-sided Fisher exact test at p < 0.01/188 (family-wise false-alarm rate at most 1%); no clear drop\n"
	got := countLayers(&run{text: text})
	want := []string{
		"47 mutants x 5 layers, each random layer 5 runs per mutant (catch rates k/5), 12m3s",
		"guard: 188 random-layer cells compared with the published rates (N=20) by a one-sided Fisher exact test at p < 0.01/188 (family-wise false-alarm rate at most 1%); no clear drop",
		"goal: 40 of 45 rules caught by some random layer in >= 95% of runs (their best row); below it: R4h 0/5",
		"goal: R4h, R11, R13, R13h, R17 each by two random layers at >= 95%: met",
		"every row's output: /r/layers (one file per mutant; subtests.txt lists what each layer ran)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("countLayers =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A run of some rows says so: the size line names the rows it ran of
// the table's and the command that runs every row.
func TestCountLayersSaysWhichRows(t *testing.T) {
	text := "    layers_test.go:250: layers: only 10 of 63 rows (-layers.only=^(R4h|R17) ); make mutant-layers runs every row\n" +
		"    layers_test.go:300: \n        10 rows, 5 layers (random ones 5 runs each), 9m1s in all (go test ...).\n"
	got := countLayers(&run{text: text})
	want := "10 of the table's 63 mutants (-layers.only=^(R4h|R17) ; make mutant-layers runs every row) x 5 layers, each random layer 5 runs per mutant (catch rates k/5), 9m1s"
	if len(got) == 0 || got[0] != want {
		t.Errorf("countLayers = %q, want first line %q", got, want)
	}
}

// The tree check fails a run that changed the checkout, naming the file.
func TestTreeChanged(t *testing.T) {
	if got := treeChanged("", ""); !strings.Contains(got, "empty at the end") || strings.Contains(got, "FAILED") {
		t.Errorf("clean tree: %q", got)
	}
	if got := treeChanged(" M README.md\n", " M README.md\n"); strings.Contains(got, "FAILED") {
		t.Errorf("a change there at the start: %q", got)
	}
	got := treeChanged("", " M conformance/RESULTS.md\n")
	if !strings.HasPrefix(got, "verify: FAILED") || !strings.Contains(got, "M conformance/RESULTS.md") {
		t.Errorf("a file verify changed: %q", got)
	}
}

// The conformance step's report is in the verify directory, said so.
func TestReportLine(t *testing.T) {
	r := newRun(t, nil)
	if got := reportLine(r); !strings.HasPrefix(got, "report: none written") {
		t.Errorf("no report: %q", got)
	}
	if err := os.WriteFile(filepath.Join(r.tmp, "RESULTS.md"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := reportLine(r); !strings.Contains(got, r.tmp) || !strings.Contains(got, "conformance/RESULTS.md is left as it is") {
		t.Errorf("report: %q", got)
	}
}

func TestCountPerturbed(t *testing.T) {
	text := "=== RUN   TestImpl/conservation\n" +
		"    conservation.go:133: 8 rounds x 4 workers: 4800 operations, 974 Pops, 106 times every worker slept in Pop, 21 rescue Adds; GOMAXPROCS [1 2 4 8 1 2 4 8]\n" +
		"    linearizability.go:113: 12 histories (clients [2 4 8]), 2609 operations: 0 not linearizable, 0 undecided\n" +
		"    podgroups.go:121: cleared-marker: 0 of 300 trials broke the contract; legal outcomes map[backoffQ [ns/a] count 1:300]; odds: a race in 1% of trials would have shown with probability 95%\n" +
		"    concurrent_test.go:170: requeue race: 0 of 50 trials lost the pod; odds: x\n"
	got := countPerturbed(&run{text: text})
	want := []string{
		"8 rounds x 4 workers: 4800 operations, 974 Pops, 106 times every worker slept in Pop, 21 rescue Adds; GOMAXPROCS [1 2 4 8 1 2 4 8]",
		"12 histories (clients [2 4 8]), 2609 operations: 0 not linearizable, 0 undecided",
		"cleared-marker: 0 of 300 trials broke the contract; odds: a race in 1% of trials would have shown with probability 95%",
		"requeue race: 0 of 50 trials lost the pod; odds: x",
	}
	if !slices.Equal(got, want) {
		t.Errorf("countPerturbed = %q, want %q", got, want)
	}
}

// A step of random runs only leads with what ran, not with the scenarios
// that did not (make verify's 3,000-check step once read "scenarios: none
// ran on schedq-model, upstream-v1.37.2" on its line and nothing else).
func TestCountConformanceRandomOnlyLeadsWithWhatRan(t *testing.T) {
	evs := []string{
		`{"Action":"run","Package":"p","Test":"TestModel"}`,
		`{"Action":"run","Package":"p","Test":"TestModel/differential-hints"}`,
		`{"Action":"run","Package":"p","Test":"TestModel/differential-hints/random"}`,
		`{"Action":"output","Package":"p","Test":"TestModel/differential-hints/random","Output":"    [rapid] OK, passed 3000 tests (2s)\n"}`,
		`{"Action":"pass","Package":"p","Test":"TestModel/differential-hints/random"}`,
		`{"Action":"pass","Package":"p","Test":"TestModel/differential-hints"}`,
		`{"Action":"output","Package":"p","Test":"TestModel","Output":"    model_test.go:44: conformance schedq-model: preflight not run (filtered by -run); 0 of 155 scenarios ran\n"}`,
		`{"Action":"pass","Package":"p","Test":"TestModel"}`,
	}
	got := countConformance(newRun(t, []byte(strings.Join(evs, "\n")+"\n")))
	// The classic random runs did not run (a -run of hints and podgroups
	// only): they must not lead either (make verify's random-runs step,
	// whose line read "random runs (classic): did not run ..." alone).
	if len(got) == 0 || strings.HasPrefix(got[0], "scenarios: none ran") || !strings.HasPrefix(got[0], "random runs (hints): ok") {
		t.Fatalf("the summary leads with what did not run: %q", got)
	}
	if last := got[len(got)-1]; !strings.HasPrefix(last, "scenarios: none ran") {
		t.Errorf("no line says no scenario ran: %q", got)
	}
}

// A target run twice, once with the catalogue and once with random runs
// only (the protocol step's Python peer), ran scenarios: the summary must
// not say that none ran on it.
func TestCountConformanceTargetWithARandomOnlyRoot(t *testing.T) {
	evs := []string{
		`{"Action":"run","Package":"p","Test":"TestPeer"}`,
		`{"Action":"run","Package":"p","Test":"TestPeer/preflight"}`,
		`{"Action":"pass","Package":"p","Test":"TestPeer/preflight"}`,
		`{"Action":"run","Package":"p","Test":"TestPeer/scenarios/a"}`,
		`{"Action":"pass","Package":"p","Test":"TestPeer/scenarios/a"}`,
		`{"Action":"output","Package":"p","Test":"TestPeer","Output":"    peer_test.go:10: conformance py: preflight ok; 1 of 1 scenarios ran\n"}`,
		`{"Action":"pass","Package":"p","Test":"TestPeer"}`,
		`{"Action":"run","Package":"p","Test":"TestPeerRandom"}`,
		`{"Action":"run","Package":"p","Test":"TestPeerRandom/differential-hints"}`,
		`{"Action":"pass","Package":"p","Test":"TestPeerRandom/differential-hints"}`,
		`{"Action":"output","Package":"p","Test":"TestPeerRandom","Output":"    peer_test.go:20: conformance py: preflight not run (filtered by -run); 0 of 1 scenarios ran\n"}`,
		`{"Action":"pass","Package":"p","Test":"TestPeerRandom"}`,
	}
	got := countConformance(newRun(t, []byte(strings.Join(evs, "\n")+"\n")))
	if strings.Contains(strings.Join(got, "\n"), "no scenario ran on py") || strings.Contains(strings.Join(got, "\n"), "none ran on py") {
		t.Errorf("the summary says no scenario ran on a target that ran one: %q", got)
	}
}
