package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// event is one line of go test -json (test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

// decode splits a step's output into go test events and the text a human
// would have seen: event output decoded, other lines (make, scripts, build
// errors) as they are.
func decode(out []byte) ([]event, string) {
	var evs []event
	var text strings.Builder
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) > 0 && line[0] == '{' && json.Unmarshal(line, &e) == nil && e.Action != "" {
			evs = append(evs, e)
			text.WriteString(e.Output)
			continue
		}
		text.Write(line)
		text.WriteByte('\n')
	}
	return evs, text.String()
}

// testKey names a test across packages.
type testKey struct{ pkg, test string }

// results returns the final action (pass, fail, skip) of every test and
// subtest.
func results(evs []event) map[testKey]string {
	m := map[testKey]string{}
	for _, e := range evs {
		if e.Test == "" {
			continue
		}
		switch e.Action {
		case "pass", "fail", "skip":
			m[testKey{e.Package, e.Test}] = e.Action
		}
	}
	return m
}

// outputOf returns the output lines of the test (and its subtests).
func outputOf(evs []event, pred func(testKey) bool) []string {
	var out []string
	for _, e := range evs {
		if e.Action == "output" && e.Test != "" && pred(testKey{e.Package, e.Test}) {
			out = append(out, strings.TrimRight(e.Output, "\n"))
		}
	}
	return out
}

// allSkipped returns the skip reason if every top-level test of the step
// was skipped (nothing ran), else "".
func allSkipped(evs []event) string {
	res := results(evs)
	top, skipped := 0, 0
	var reason string
	for k, a := range res {
		if strings.Contains(k.test, "/") {
			continue
		}
		top++
		if a == "skip" {
			skipped++
			if r := skipReason(evs, k); r != "" {
				reason = r
			}
		}
	}
	if top == 0 || skipped < top {
		return ""
	}
	if reason == "" {
		reason = "every test of the step was skipped"
	}
	return reason
}

// countTests counts the tests and subtests that passed, failed and were
// skipped.
func countTests(r *run) []string {
	res := results(r.events)
	if len(res) == 0 {
		return nil
	}
	var pass, fail, skip, top int
	for k, a := range res {
		if !strings.Contains(k.test, "/") {
			top++
		}
		switch a {
		case "pass":
			pass++
		case "fail":
			fail++
		case "skip":
			skip++
		}
	}
	s := fmt.Sprintf("%d tests and subtests passed (%d top-level)", pass, top)
	if fail > 0 {
		s += fmt.Sprintf(", %d failed", fail)
	}
	if skip > 0 {
		s += fmt.Sprintf(", %d skipped", skip)
	}
	return []string{s}
}

var stateMachineRE = regexp.MustCompile(`(\d+) checks \(shrinking included\), (\d+) steps`)
var rapidOKRE = regexp.MustCompile(`\[rapid\] OK, passed (\d+) tests`)

// countStateMachine reads the state machines' own count lines (one per
// profile), else rapid's.
func countStateMachine(r *run) []string {
	if ms := stateMachineRE.FindAllStringSubmatch(r.text, -1); ms != nil {
		checks, steps := 0, 0
		for _, m := range ms {
			c, _ := strconv.Atoi(m[1])
			s, _ := strconv.Atoi(m[2])
			checks, steps = checks+c, steps+s
		}
		return []string{fmt.Sprintf("%d random runs in %d profile(s), %d operations, impl vs model after each", checks, len(ms), steps)}
	}
	if m := rapidOKRE.FindAllStringSubmatch(r.text, -1); m != nil {
		total := 0
		for _, x := range m {
			n, _ := strconv.Atoi(x[1])
			total += n
		}
		return []string{fmt.Sprintf("%d random runs", total)}
	}
	return countTests(r)
}

// mutantRowRE is a row of TestMutantsAreCaught's catch table:
// "name  caught|NOT CAUGHT  check  steps  time".
var mutantRowRE = regexp.MustCompile(`^\s*(\S+)\s+(caught|NOT CAUGHT)\s+(.*?)\s*$`)

// countMutants reads the catch table; its rows follow the summary line.
func countMutants(r *run) []string {
	var rows []string
	caught, total := 0, 0
	header := ""
	inTable := false
	for _, l := range strings.Split(r.text, "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "catch table") {
			inTable, rows, caught, total = true, nil, 0, 0 // the last table wins
			continue
		}
		if !inTable {
			continue
		}
		if strings.HasPrefix(t, "mutant ") {
			header = t
			continue
		}
		m := mutantRowRE.FindStringSubmatch(t)
		if m == nil {
			if t == "" || strings.HasPrefix(t, "---") || strings.HasPrefix(t, "===") {
				inTable = false
			}
			continue
		}
		total++
		if m[2] == "caught" {
			caught++
		}
		rows = append(rows, t)
	}
	if total == 0 {
		if d := countTests(r); d != nil {
			return append([]string{"catch table not found in the output"}, d...)
		}
		return nil
	}
	out := []string{fmt.Sprintf("%d of %d mutants caught", caught, total)}
	if header != "" {
		out = append(out, "  "+header)
	}
	for _, row := range rows {
		out = append(out, "  "+row)
	}
	return out
}

// linRE is the summary line TestImplIsLinearizable logs per client count:
// "<queue>, <n> clients: <h> histories, ops/history <min>..<max> (median <m>)".
var linRE = regexp.MustCompile(`(?m)^\s*(.+?), (\d+) clients: (\d+) histories, ops/history (\d+)\.\.(\d+) \(median (\d+)\)`)
var linCaughtRE = regexp.MustCompile(`caught after (\d+) run`)

// linSlowestRE is the line the package's TestMain prints last: the
// slowest porcupine check of the run, which says whether the checker's
// search stayed bounded.
var linSlowestRE = regexp.MustCompile(`(?m)^linearizability: (slowest porcupine check of \d+: .*)$`)

// linBadRE is a history of a queue under test that failed the check:
// "impl-hints: history 169 (8 clients, ...) is UNDECIDED: ...".
var linBadRE = regexp.MustCompile(`(?m)^\s*(?:\S+\.go:\d+: )?(\S+): history \d+ \(.*\) is (NOT linearizable|UNDECIDED)`)

// countLinearizability summarises the linearizability step: a line per
// queue checked, the broken queues caught, the UNDECIDED rate, the skipped
// tests, the slowest porcupine check, and a stop by go test's -timeout.
func countLinearizability(r *run) []string {
	out := linQueueLines(r.text)
	if n := len(linCaughtRE.FindAllString(r.text, -1)); n > 0 {
		out = append(out, fmt.Sprintf("%d broken queues caught (not linearizable)", n))
	}
	if len(out) == 0 {
		return countTests(r)
	}
	if u := linUndecidedLine(r.text); u != "" {
		out = append(out, u)
	}
	if s := skippedTests(r.events); s != "" {
		out = append(out, s)
	}
	if m := linSlowestRE.FindStringSubmatch(r.text); m != nil {
		out = append(out, legalOutcomesRE.ReplaceAllString(m[1], "${1}"))
	} else {
		out = append(out, "no slowest check printed: the run did not finish")
	}
	if m := timedOutRE.FindString(r.text); m != "" {
		out = append(out, "stopped by go test's -timeout (\""+m+"\"): only the histories counted above were checked")
	}
	return out
}

// linQueueLines is a line per queue whose histories were checked, summed
// over its client counts: histories, their lengths, the client counts,
// and the verdicts. The queue with the most histories (the
// implementation; the others are controls) comes first.
func linQueueLines(text string) []string {
	type agg struct {
		hist, lo, hi int
		clients      []string
	}
	byQueue := map[string]*agg{}
	var order []string
	for _, m := range linRE.FindAllStringSubmatch(text, -1) {
		q := m[1]
		if i := strings.LastIndex(q, ": "); i >= 0 { // "file.go:12: impl"
			q = q[i+2:]
		}
		a := byQueue[q]
		if a == nil {
			a = &agg{lo: -1}
			byQueue[q] = a
			order = append(order, q)
		}
		h, _ := strconv.Atoi(m[3])
		lo, _ := strconv.Atoi(m[4])
		hi, _ := strconv.Atoi(m[5])
		a.hist += h
		if a.lo < 0 || lo < a.lo {
			a.lo = lo
		}
		a.hi = max(a.hi, hi)
		a.clients = append(a.clients, m[2])
	}
	sort.SliceStable(order, func(i, j int) bool { return byQueue[order[i]].hist > byQueue[order[j]].hist })
	bad := map[string][]string{}
	for _, m := range linBadRE.FindAllStringSubmatch(text, -1) {
		bad[m[1]] = append(bad[m[1]], m[2])
	}
	var out []string
	for _, q := range order {
		a := byQueue[q]
		verdict := "each linearizable"
		if b := bad[q]; len(b) > 0 {
			undecided := 0
			for _, v := range b {
				if v == "UNDECIDED" {
					undecided++
				}
			}
			verdict = fmt.Sprintf("%d NOT linearizable, %d UNDECIDED", len(b)-undecided, undecided)
		}
		out = append(out, fmt.Sprintf("%s: %d histories x %d..%d ops (%s clients), %s",
			q, a.hist, a.lo, a.hi, strings.Join(uniq(a.clients), ","), verdict))
	}
	return out
}

// linUndecidedLine sums the UNDECIDED rates checkHistories logs, "" if it
// logged none.
func linUndecidedLine(text string) string {
	u := linUndecidedRE.FindAllStringSubmatch(text, -1)
	if u == nil {
		return ""
	}
	k, n, budget := 0, 0, 0
	for _, m := range u {
		a, _ := strconv.Atoi(m[1])
		b, _ := strconv.Atoi(m[2])
		c, _ := strconv.Atoi(m[4])
		k, n, budget = k+a, n+b, budget+c
	}
	return fmt.Sprintf("porcupine UNDECIDED (no verdict within -lin.timeout=%s per history): %d of %d histories, budget %d (1%% per run of histories, at least 1; over it fails)", u[0][3], k, n, budget)
}

// linUndecidedRE is the rate checkHistories logs after its summary line.
var linUndecidedRE = regexp.MustCompile(`; (\d+) of (\d+) UNDECIDED within -lin.timeout=(\S+) \(budget: (\d+)\)`)

// skippedTests names the top-level tests of a step that were skipped, with
// their reasons: what the step's count leaves out.
func skippedTests(evs []event) string {
	res := results(evs)
	var parts []string
	for _, k := range slices.SortedFunc(maps.Keys(res), func(a, b testKey) int { return strings.Compare(a.pkg+" "+a.test, b.pkg+" "+b.test) }) {
		if res[k] != "skip" || strings.Contains(k.test, "/") {
			continue
		}
		p := k.test
		if why := skipReason(evs, k); why != "" {
			p += " (" + why + ")"
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("%d tests skipped, not run: %s", len(parts), strings.Join(parts, "; "))
}

// timedOutRE is go test's own line when a test binary outlives -timeout.
var timedOutRE = regexp.MustCompile(`test timed out after [0-9hms.]+`)

func uniq(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// report is the part of conformance's <target name>.json the summary reads:
// the target's name, the test that ran it, and the outcomes the events do
// not carry (known differences, stale ones, n/a).
type report struct {
	Target  struct{ Name string } `json:"target"`
	Test    string                `json:"test"`
	Results []struct {
		Scenario string `json:"scenario"`
		Outcome  string `json:"outcome"`
	} `json:"results"`
}

// The subtests conformance.Run makes besides the scenarios.
const (
	preflightTest    = "preflight"
	randomTest       = "differential"
	randomHintsTest  = "differential-hints"
	randomGroupsTest = "differential-podgroups"
	notRunFiltered   = "did not run (filtered by -run, or the run stopped before it)"
	outcomeKnown     = "known difference"
	outcomeNA        = "n/a"
	outcomeSkippedNA = "skipped (n/a)"
)

// conformanceRoot is one conformance.Run: the test that called it.
type conformanceRoot struct {
	key  testKey
	name string // the target's profile name, else the test's name
}

// countConformance counts what each conformance.Run of the step actually
// ran, from the go test events: the preflight, the scenarios (each leaf
// subtest) and the random runs of each profile, per target. The results
// files the suite wrote (in the step's temp dir) only name the targets
// and refine a passing scenario into a known difference and a skipped one
// into n/a; a result whose subtest has no event did not run and is not
// counted. A part that has no event at all is said not to have run,
// never passed.
func countConformance(r *run) []string {
	evs := invocations(r.events)
	res := results(evs)
	names, fileOutcome, targetOutcome := readReports(filepath.Join(r.tmp, "results"))
	roots := conformanceRoots(evs, res, names, fileOutcome)
	if len(roots) == 0 {
		return countTests(r)
	}
	var out []string
	scenarios := scenarioLine(res, roots, fileOutcome, targetOutcome)
	if scenarios != "" {
		out = append(out, scenarios)
	}
	out = append(out, preflightLine(res, roots))
	// The random runs, one line per profile; those that ran nowhere are
	// kept apart, so that a step of random runs only can lead with the
	// profiles that ran.
	var idle []string
	for _, part := range []struct{ test, label string }{
		{randomTest, "random runs (classic)"},
		{randomHintsTest, "random runs (hints)"},
		{randomGroupsTest, "random runs (podgroups)"},
	} {
		line, ranNowhere := randomRunLine(evs, res, roots, part.test, part.label)
		if scenarios == "" && ranNowhere {
			idle = append(idle, line)
			continue
		}
		out = append(out, line)
	}
	if o := otherTests(res, roots); o != "" {
		out = append(out, o)
	}
	if scenarios == "" {
		// A step of random runs only: what ran leads; the preflight and the
		// line saying no scenario ran come last, not first.
		var none []string
		for _, root := range roots {
			none = append(none, root.name)
		}
		out = append(append(out[1:], idle...), out[0], "scenarios: none ran on "+strings.Join(uniq(none), ", "))
	}
	return out
}

// isRunPart reports whether a subtest of conformance.Run is one of the
// parts besides the scenarios: the preflight or a profile's random runs.
func isRunPart(name string) bool {
	return name == preflightTest || name == randomTest || name == randomHintsTest || name == randomGroupsTest
}

// conformanceRoots finds the step's conformance.Runs, sorted by target
// name, then package. A root is the parent of a preflight or random-runs
// subtest, or a test a results file names (Run writes one whatever ran)
// with a subtest that is a scenario of that file: another package may
// have a test of the same name (conformance/concurrent's TestImpl). Its
// name is the one its run logged, else the results file's, else the
// test's.
func conformanceRoots(evs []event, res map[testKey]string, names, fileOutcome map[string]string) []conformanceRoot {
	rootSet := map[testKey]bool{}
	for k := range res {
		if i := strings.LastIndex(k.test, "/"); i >= 0 && isRunPart(k.test[i+1:]) {
			rootSet[testKey{k.pkg, k.test[:i]}] = true
		}
	}
	for k := range res {
		if names[k.test] == "" || rootSet[k] {
			continue
		}
		for o := range res {
			if sc, ok := strings.CutPrefix(o.test, k.test+"/"); ok && o.pkg == k.pkg && fileOutcome[k.test+"\x00"+sc] != "" {
				rootSet[k] = true
				break
			}
		}
	}
	var roots []conformanceRoot
	for k := range rootSet {
		n := targetNameIn(evs, k)
		if n == "" {
			n = names[k.test]
		}
		if n == "" {
			n = k.test
		}
		roots = append(roots, conformanceRoot{k, n})
	}
	sort.Slice(roots, func(i, j int) bool {
		if roots[i].name != roots[j].name {
			return roots[i].name < roots[j].name
		}
		return roots[i].key.pkg < roots[j].key.pkg
	})
	return roots
}

// preflightLine is the preflight's outcome on each target.
func preflightLine(res map[testKey]string, roots []conformanceRoot) string {
	pre := map[string][]string{}
	for _, root := range roots {
		a, ok := res[testKey{root.key.pkg, root.key.test + "/" + preflightTest}]
		if !ok {
			a = notRunFiltered
		}
		pre[a] = append(pre[a], root.name)
	}
	return "preflight: " + byOutcome(pre, nil)
}

// scenarioLine counts the scenarios, every leaf under a root but the
// other parts of the run, by outcome: "" if none ran. When not every
// target ran every scenario it says how many each did, and names the
// targets that ran none.
func scenarioLine(res map[testKey]string, roots []conformanceRoot, fileOutcome, targetOutcome map[string]string) string {
	outcomes := map[string]int{}
	scenarios := map[string]bool{}
	perRoot := map[string]int{} // scenarios run, by target
	for _, root := range roots {
		n := 0
		for k, a := range res {
			if k.pkg != root.key.pkg || !strings.HasPrefix(k.test, root.key.test+"/") || hasChildren(res, k) {
				continue
			}
			sc := strings.TrimPrefix(k.test, root.key.test+"/")
			if first, _, _ := strings.Cut(sc, "/"); isRunPart(first) {
				continue
			}
			n++
			scenarios[sc] = true
			file, ok := targetOutcome[root.name+"\x00"+sc]
			if !ok {
				file = fileOutcome[root.key.test+"\x00"+sc]
			}
			outcomes[scenarioOutcome(a, file)]++
		}
		if n > 0 {
			perRoot[root.name] += n
		}
	}
	if len(scenarios) == 0 {
		return ""
	}
	total := 0
	for _, c := range outcomes {
		total += c
	}
	line := fmt.Sprintf("%d scenarios x %d target(s) = %d runs: %s", len(scenarios), len(perRoot), total, outcomeList(outcomes))
	if total != len(scenarios)*len(perRoot) {
		var each []string
		for _, name := range slices.Sorted(maps.Keys(perRoot)) {
			each = append(each, fmt.Sprintf("%s %d", name, perRoot[name]))
		}
		line = fmt.Sprintf("%d scenario runs on %d target(s) (%s): %s", total, len(perRoot), strings.Join(each, ", "), outcomeList(outcomes))
	}
	// A target with a root of random runs only (a second conformance.Run
	// of the same target) ran scenarios if any of its roots did.
	var none []string
	for _, root := range roots {
		if perRoot[root.name] == 0 {
			none = append(none, root.name)
		}
	}
	if len(none) > 0 {
		line += "; no scenario ran on " + strings.Join(uniq(none), ", ")
	}
	return line
}

// randomRunLine is one profile's random runs (the subtest named test) on
// each target: the outcome, why a skipped one skipped, and how many
// sequences the passing ones compared with the model. ranNowhere: no
// target has an event of them.
func randomRunLine(evs []event, res map[testKey]string, roots []conformanceRoot, test, label string) (line string, ranNowhere bool) {
	by := map[string][]string{}
	reasons := map[string]string{}
	checks := 0
	for _, root := range roots {
		k := testKey{root.key.pkg, root.key.test + "/" + test}
		a, ok := res[k]
		if !ok {
			a = notRunFiltered
		}
		if a == "skip" {
			reasons[root.name] = skipReason(evs, k)
		}
		if a == "pass" {
			for _, l := range outputOf(evs, func(o testKey) bool { return o == k || strings.HasPrefix(o.test, k.test+"/") && o.pkg == k.pkg }) {
				if m := rapidOKRE.FindStringSubmatch(l); m != nil {
					c, _ := strconv.Atoi(m[1])
					checks += c
				}
			}
		}
		by[a] = append(by[a], root.name)
	}
	line = label + ": " + byOutcome(by, reasons)
	if checks > 0 {
		line += fmt.Sprintf("; %d sequences compared with the model", checks)
	}
	return line, len(by) == 1 && len(by[notRunFiltered]) > 0
}

// otherTests counts the tests of a conformance step that are no part of a
// conformance.Run (conformance/concurrent's checks), by package: leaf
// tests and subtests, with their outcomes.
func otherTests(res map[testKey]string, roots []conformanceRoot) string {
	inRoot := func(k testKey) bool {
		for _, r := range roots {
			if k.pkg == r.key.pkg && (k.test == r.key.test || strings.HasPrefix(k.test, r.key.test+"/") || strings.HasPrefix(r.key.test, k.test+"/")) {
				return true
			}
		}
		return false
	}
	byPkg := map[string]map[string]int{}
	for k, a := range res {
		if inRoot(k) || hasChildren(res, k) {
			continue
		}
		if byPkg[k.pkg] == nil {
			byPkg[k.pkg] = map[string]int{}
		}
		byPkg[k.pkg][a]++
	}
	var parts []string
	for _, pkg := range slices.Sorted(maps.Keys(byPkg)) {
		n := 0
		for _, c := range byPkg[pkg] {
			n += c
		}
		parts = append(parts, fmt.Sprintf("%d in %s (%s)", n, pkg, outcomeList(byPkg[pkg])))
	}
	if len(parts) == 0 {
		return ""
	}
	return "other checks, no conformance.Run: " + strings.Join(parts, "; ")
}

// scenarioOutcome is a scenario's outcome: its test event, refined by the
// results file. A skipped scenario is a skip whatever the file says; one
// the file calls n/a is a skip even if its subtest passed (a driver that
// reports n/a without t.Skip).
func scenarioOutcome(action, file string) string {
	switch {
	case action == "skip" || file == outcomeNA:
		return outcomeSkippedNA
	case action == "pass" && file == outcomeKnown:
		return outcomeKnown
	case action == "fail" && file == "stale":
		return "stale"
	}
	return action
}

// byOutcome renders targets grouped by outcome: "pass on a, b; skipped on
// c (reason); did not run ... on d".
func byOutcome(by map[string][]string, reasons map[string]string) string {
	order := []string{"pass", "fail", "skip", notRunFiltered}
	label := map[string]string{"pass": "ok", "fail": "FAILED", "skip": "skipped", notRunFiltered: notRunFiltered}
	var parts []string
	for _, a := range order {
		ts := uniq(by[a])
		if len(ts) == 0 {
			continue
		}
		sort.Strings(ts)
		var named []string
		for _, t := range ts {
			if why := reasons[t]; why != "" {
				t += " (" + why + ")"
			}
			named = append(named, t)
		}
		parts = append(parts, label[a]+" on "+strings.Join(named, ", "))
	}
	return strings.Join(parts, "; ")
}

// skipReason is the last line a skipped test logged, but go test's own.
func skipReason(evs []event, k testKey) string {
	reason := ""
	for _, l := range outputOf(evs, func(o testKey) bool { return o == k }) {
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasPrefix(l, "=== ") && !strings.HasPrefix(l, "--- SKIP") {
			reason = l
		}
	}
	if i := strings.Index(reason, ".go:"); i >= 0 { // "driver.go:12: why"
		if j := strings.Index(reason[i:], ": "); j >= 0 {
			reason = reason[i+j+2:]
		}
	}
	return reason
}

// invocations tells apart the go test runs of one package within a step
// (the conformance step runs conformance/upstream once per release, each
// with the same test names): from a package's second run on, its events
// carry "pkg#2", "pkg#3", ..., so that no run's results overwrite
// another's.
func invocations(evs []event) []event {
	out := make([]event, len(evs))
	runs := map[string]int{}
	for i, e := range evs {
		pkg := e.Package
		if n := runs[pkg]; n > 0 {
			e.Package = fmt.Sprintf("%s#%d", pkg, n+1)
		}
		out[i] = e
		if e.Test == "" && (e.Action == "pass" || e.Action == "fail" || e.Action == "skip") {
			runs[pkg]++
		}
	}
	return out
}

// targetNameRE is the line conformance.Run logs last: "conformance NAME:
// ...".
var targetNameRE = regexp.MustCompile(`\bconformance ([A-Za-z0-9._-]+): `)

// targetNameIn returns the target name the run of root logged, "" if none.
func targetNameIn(evs []event, root testKey) string {
	for _, l := range outputOf(evs, func(o testKey) bool { return o == root }) {
		if m := targetNameRE.FindStringSubmatch(l); m != nil {
			return m[1]
		}
	}
	return ""
}

// readReports reads the results files in dir: the target's name by test
// name, and each scenario's outcome by test name and scenario and by
// target name and scenario (the same test runs once per upstream
// release, each its own target).
func readReports(dir string) (map[string]string, map[string]string, map[string]string) {
	names, outcomes, byTarget := map[string]string{}, map[string]string{}, map[string]string{}
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var rep report
		if json.Unmarshal(b, &rep) != nil || rep.Target.Name == "" || rep.Test == "" {
			continue
		}
		names[rep.Test] = rep.Target.Name
		for _, res := range rep.Results {
			outcomes[rep.Test+"\x00"+res.Scenario] = res.Outcome
			byTarget[rep.Target.Name+"\x00"+res.Scenario] = res.Outcome
		}
	}
	return names, outcomes, byTarget
}

func outcomeList(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	// pass first, then the rest by name
	sort.Slice(keys, func(i, j int) bool {
		if (keys[i] == "pass") != (keys[j] == "pass") {
			return keys[i] == "pass"
		}
		return keys[i] < keys[j]
	})
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d %s", m[k], k))
	}
	return strings.Join(parts, ", ")
}

func hasChildren(res map[testKey]string, k testKey) bool {
	for o := range res {
		if o.pkg == k.pkg && strings.HasPrefix(o.test, k.test+"/") {
			return true
		}
	}
	return false
}

// tlcPassRE is a line of tla/run-tlc for a configuration that passed.
var tlcPassRE = regexp.MustCompile(`(?m)^PASS\s+(\S+)\s+(.*)$`)
var tlcStatesRE = regexp.MustCompile(`^([0-9]+) distinct states`)
var tlcCexRE = regexp.MustCompile(`counterexample of (\d+) states`)

func countTLC(r *run) []string {
	ms := tlcPassRE.FindAllStringSubmatch(r.text, -1)
	if len(ms) == 0 {
		return nil
	}
	var parts []string
	states := 0
	for _, m := range ms {
		if s := tlcStatesRE.FindStringSubmatch(m[2]); s != nil {
			n, _ := strconv.Atoi(s[1])
			states += n
			parts = append(parts, fmt.Sprintf("%s %s", m[1], s[1]))
		} else if c := tlcCexRE.FindStringSubmatch(m[2]); c != nil {
			parts = append(parts, fmt.Sprintf("%s violated as expected (%s-state counterexample)", m[1], c[1]))
		} else {
			parts = append(parts, m[1])
		}
	}
	return []string{
		fmt.Sprintf("%d configurations, %d distinct states in total", len(ms), states),
		"  " + strings.Join(parts, "; "),
	}
}

var (
	generatedRE      = regexp.MustCompile(`generated (\S+) on (\S+): (\d+) scenarios ran: (\d+) pass, (\d+) known differences, (\d+) unexplained, (\d+) n/a`)
	generatedIndexRE = regexp.MustCompile(`(?m)^(Graph\w+): (\d+) scenarios of the graph's (\d+) steps.*?; (\d+) skipped as not expressible`)
)

// countGenerated reads the generated run's lines (conformance.RunGenerated):
// per target and graph, what ran and how it ended, and the generator's
// INDEX lines, the bound of the run.
func countGenerated(r *run) []string {
	ms := generatedRE.FindAllStringSubmatch(r.text, -1)
	if len(ms) == 0 {
		return nil
	}
	var ran, pass, known, unexplained, na int
	targets := map[string]bool{}
	var rows []string
	for _, m := range ms {
		n := func(i int) int { v, _ := strconv.Atoi(m[i]); return v }
		ran, pass, known, unexplained, na = ran+n(3), pass+n(4), known+n(5), unexplained+n(6), na+n(7)
		targets[m[2]] = true
		rows = append(rows, fmt.Sprintf("  %-36s %-14s %5s ran: %5s pass, %5s known, %3s unexplained, %4s n/a", m[2], m[1], m[3], m[4], m[5], m[6], m[7]))
	}
	out := []string{fmt.Sprintf("%d generated scenarios on %d targets: %d pass, %d known differences, %d unexplained, %d n/a", ran, len(targets), pass, known, unexplained, na)}
	for _, m := range generatedIndexRE.FindAllStringSubmatch(r.text, -1) {
		out = append(out, fmt.Sprintf("  bound: %s: %s scenarios of its %s steps (%s more not expressible in the scenario language)", m[1], m[2], m[3], m[4]))
	}
	return append(out, uniq(rows)...)
}

// coverageRowRE is a row of TestCoverage's graph table: graph, steps,
// hand-written, random, expressible.
var coverageRowRE = regexp.MustCompile(`^\| (Graph\w+) \| (\d+) \| ([^|]+?) \| ([^|]+?) \| (\d+) \(([0-9.]+)%\) \|$`)

// countCoverage reads the coverage tables TestCoverage logs (rows of
// markdown tables). Its graph table's last column is the steps the
// scenario language can express, not what ran: the generated scenarios
// that ran are the generated step's (its INDEX lines), if it ran in this
// verify, and each graph's line says both.
func countCoverage(r *run) []string {
	var rows []string
	ran := map[string]string{}
	generatedRan := false
	for _, p := range r.prior {
		if p.step.name != generatedStep {
			continue
		}
		generatedRan = true
		for _, m := range generatedIndexRE.FindAllStringSubmatch(p.text, -1) {
			ran[m[1]] = m[2]
		}
	}
	for _, l := range strings.Split(r.text, "\n") {
		i := strings.Index(l, ": |")
		if i < 0 || !strings.Contains(l[:i], "_test.go:") {
			continue
		}
		row := strings.TrimSpace(l[i+2:])
		m := coverageRowRE.FindStringSubmatch(row)
		if m == nil {
			rows = append(rows, "  "+row)
			continue
		}
		run := "none in this verify (its step did not run)"
		switch {
		case ran[m[1]] != "":
			run = ran[m[1]] + " of " + thousands(m[2]) + " steps"
		case generatedRan:
			run = "none (the generated step ran no scenario of this graph)"
		}
		pct := strings.TrimSuffix(strings.TrimSuffix(m[6], "0"), "0")
		pct = strings.TrimSuffix(pct, ".")
		rows = append(rows, fmt.Sprintf("  %s: %s steps; hand-written %s; random runs (CI size) %s; generated scenarios run: %s; expressible: %s%%",
			m[1], thousands(m[2]), m[3], m[4], run, pct))
	}
	if len(rows) == 0 {
		return nil
	}
	return append([]string{"steps of the TLA+ graphs and rules reached by the hand-written scenarios and the random runs; the generated scenarios that ran (the generated step's) and those the scenario language can express (docs/coverage.md)"}, rows...)
}

// thousands writes a number with thousands separators: 803860 -> 803,860.
func thousands(n string) string {
	for i := len(n) - 3; i > 0; i -= 3 {
		n = n[:i] + "," + n[i:]
	}
	return n
}

// countAgreement counts the tla step's tests and says what it compared
// with: the TLC graphs committed in tla/testdata, not a TLC run, and
// whether TLC itself ran in this verify (its step comes later).
func countAgreement(r *run) []string {
	out := countTests(r)
	return append(out, "the Go model compared with the TLC graphs committed in tla/testdata: TLC graphs committed, TLC not run by this step (the TLC step checks the specs when a jar is found; make tla-graph regenerates the graphs)")
}

// realschedRE is the line TestRealScheduler logs per workload and queue:
// "<workload> on <queue>: <b>/<p> bound, <w> waiting, <l> lost, <d> double, ...".
var realschedRE = regexp.MustCompile(`(\S+) on (\S+): (\d+)/(\d+) bound, (\d+) waiting, (\d+) lost, (\d+) double`)

// realschedReleaseRE is the line make realsched-check prints per release.
var realschedReleaseRE = regexp.MustCompile(`(?m)^realsched-check: kube-scheduler (v[0-9.]+\S*)`)

// countRealsched sums the real scheduler's runs by release and queue:
// pods bound of pods created, waiting, lost, bound twice.
func countRealsched(r *run) []string {
	type agg struct{ runs, bound, pods, waiting, lost, double int }
	by := map[string]*agg{}
	var order []string
	release := ""
	releases := realschedReleaseRE.FindAllStringSubmatchIndex(r.text, -1)
	for _, m := range realschedRE.FindAllStringSubmatchIndex(r.text, -1) {
		for _, rel := range releases {
			if rel[0] < m[0] {
				release = r.text[rel[2]:rel[3]]
			}
		}
		g := func(i int) string { return r.text[m[2*i]:m[2*i+1]] }
		n := func(i int) int { v, _ := strconv.Atoi(g(i)); return v }
		key := strings.TrimSpace(release + " " + g(2))
		a := by[key]
		if a == nil {
			a = &agg{}
			by[key] = a
			order = append(order, key)
		}
		a.runs++
		a.bound, a.pods, a.waiting, a.lost, a.double = a.bound+n(3), a.pods+n(4), a.waiting+n(5), a.lost+n(6), a.double+n(7)
	}
	if len(order) == 0 {
		return countTests(r)
	}
	var parts []string
	for _, k := range order {
		a := by[k]
		parts = append(parts, fmt.Sprintf("%s: %d workloads, %d/%d pods bound, %d waiting, %d lost, %d bound twice", k, a.runs, a.bound, a.pods, a.waiting, a.lost, a.double))
	}
	out := []string{fmt.Sprintf("the real kube-scheduler, %d release(s) x both queues", len(releases))}
	if len(releases) == 0 {
		out[0] = "the real kube-scheduler on both queues"
	}
	for _, p := range parts {
		out = append(out, "  "+p)
	}
	return out
}

// layersLogRE are the lines TestMutantLayers logs for the summary.
var (
	layersDirRE   = regexp.MustCompile(`layers: every row's output is kept in (\S+)`)
	layersRunsRE  = regexp.MustCompile(`(?m)^\s*(\d+) rows, (\d+) layers \(random ones (\d+) runs each\), (\S+) in all`)
	layersGoalRE  = regexp.MustCompile(`(?m)(goal: .*)$`)
	layersGuardRE = regexp.MustCompile(`(?m)(guard: .*)$`)
	layersOnlyRE  = regexp.MustCompile(`layers: only (\d+) of (\d+) rows \(-layers.only=(.*)\); `)
)

// countLayers reads TestMutantLayers' log: the size of the table (rows,
// layers, N), where the rows' outputs are, the guard's verdict with its
// odds, and the goals.
func countLayers(r *run) []string {
	var out []string
	if m := layersRunsRE.FindStringSubmatch(r.text); m != nil {
		line := fmt.Sprintf("%s mutants x %s layers, each random layer %s runs per mutant (catch rates k/%s), %s", m[1], m[2], m[3], m[3], m[4])
		if o := layersOnlyRE.FindStringSubmatch(r.text); o != nil {
			line = fmt.Sprintf("%s of the table's %s mutants (-layers.only=%s; make mutant-layers runs every row) x %s layers, each random layer %s runs per mutant (catch rates k/%s), %s", o[1], o[2], o[3], m[2], m[3], m[3], m[4])
		}
		out = append(out, line)
	} else if d := countTests(r); d != nil {
		out = append(out, "no table: the run did not finish ("+d[0]+")")
	}
	for _, m := range layersGuardRE.FindAllStringSubmatch(r.text, -1) {
		out = append(out, strings.TrimSpace(m[1]))
	}
	for _, m := range layersGoalRE.FindAllStringSubmatch(r.text, -1) {
		out = append(out, strings.TrimSpace(m[1]))
	}
	if m := layersDirRE.FindStringSubmatch(r.text); m != nil {
		out = append(out, "every row's output: "+m[1]+" (one file per mutant; subtests.txt lists what each layer ran)")
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// perturbedRE finds the concurrent checks' own summaries: the
// conservation rounds, the linearizability histories, the pod-group races.
var perturbedRE = regexp.MustCompile(`(?m)^\s*\S+\.go:\d+: (\d+ rounds x \d+ workers: .*|\d+ histories \(clients .*|[a-z-]+: \d+ of \d+ trials broke the contract.*|requeue race: .*)`)

// legalOutcomesRE is the pod-group races' list of legal outcomes, which
// the summary leaves out (the log has it).
var legalOutcomesRE = regexp.MustCompile(`; legal outcomes .*?(; odds: |$)`)

// countPerturbed is the perturbed build's step: its tests, then what each
// concurrent check ran.
func countPerturbed(r *run) []string {
	out := countTests(r)
	for _, m := range perturbedRE.FindAllStringSubmatch(r.text, -1) {
		out = append(out, legalOutcomesRE.ReplaceAllString(m[1], "${1}"))
	}
	return out
}

// linesWithPrefix counts a step whose command prints its own summary: its
// lines that start with prefix, without it.
func linesWithPrefix(prefix string) func(*run) []string {
	return func(r *run) []string {
		var out []string
		for _, l := range strings.Split(r.text, "\n") {
			if rest, ok := strings.CutPrefix(l, prefix); ok {
				out = append(out, rest)
			}
		}
		return out
	}
}
