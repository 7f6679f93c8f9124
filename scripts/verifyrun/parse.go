package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
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
			for _, l := range outputOf(evs, func(o testKey) bool { return o == k }) {
				l = strings.TrimSpace(l)
				if l != "" && !strings.HasPrefix(l, "=== ") && !strings.HasPrefix(l, "--- SKIP") {
					reason = l
				}
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

// linBadRE is a history of a queue under test that failed the check:
// "impl-hints: history 169 (8 clients, ...) is UNDECIDED: ...".
var linBadRE = regexp.MustCompile(`(?m)^\s*(?:\S+\.go:\d+: )?(\S+): history \d+ \(.*\) is (NOT linearizable|UNDECIDED)`)

func countLinearizability(r *run) []string {
	type agg struct {
		hist, lo, hi int
		clients      []string
	}
	byQueue := map[string]*agg{}
	var order []string
	for _, m := range linRE.FindAllStringSubmatch(r.text, -1) {
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
	// The queue with the most histories (the implementation; the others
	// are controls) first.
	sort.SliceStable(order, func(i, j int) bool { return byQueue[order[i]].hist > byQueue[order[j]].hist })
	bad := map[string][]string{}
	for _, m := range linBadRE.FindAllStringSubmatch(r.text, -1) {
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
	if n := len(linCaughtRE.FindAllString(r.text, -1)); n > 0 {
		out = append(out, fmt.Sprintf("%d broken queues caught (not linearizable)", n))
	}
	if len(out) == 0 {
		return countTests(r)
	}
	return out
}

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

// report is the part of conformance's <target name>.json that the summary reads.
type report struct {
	Target  struct{ Name string } `json:"target"`
	Results []struct {
		Scenario string `json:"scenario"`
		Outcome  string `json:"outcome"`
	} `json:"results"`
}

// countConformance counts scenarios x targets from the results files the
// suite wrote (in the step's temp dir), and the random runs from rapid's
// lines; without results files it counts the scenario subtests.
func countConformance(r *run) []string {
	files, _ := filepath.Glob(filepath.Join(r.tmp, "results", "*.json"))
	var out []string
	scenarios := map[string]bool{}
	outcomes := map[string]int{}
	targets := 0
	var random []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var rep report
		if json.Unmarshal(b, &rep) != nil || rep.Target.Name == "" {
			continue
		}
		targets++
		for _, res := range rep.Results {
			if strings.Contains(res.Scenario, "random") || strings.Contains(res.Scenario, "differential") {
				random = append(random, rep.Target.Name+": "+res.Outcome)
				continue
			}
			scenarios[res.Scenario] = true
			outcomes[res.Outcome]++
		}
	}
	if targets > 0 {
		n := 0
		for _, c := range outcomes {
			n += c
		}
		out = append(out, fmt.Sprintf("%d scenarios x %d target(s) = %d runs: %s", len(scenarios), targets, n, outcomeList(outcomes)))
	} else if d := countScenarioSubtests(r); d != "" {
		out = append(out, d)
	}
	if ms := rapidOKRE.FindAllStringSubmatch(r.text, -1); ms != nil {
		total := 0
		for _, m := range ms {
			c, _ := strconv.Atoi(m[1])
			total += c
		}
		line := fmt.Sprintf("random runs compared with the model: %d, on %d target(s)", total, len(ms))
		var na []string
		for _, x := range random {
			if strings.HasSuffix(x, ": n/a") {
				na = append(na, strings.TrimSuffix(x, ": n/a"))
			}
		}
		if len(na) > 0 {
			line += fmt.Sprintf("; n/a on %s", strings.Join(na, ", "))
		}
		out = append(out, line)
	}
	if len(out) == 0 {
		return countTests(r)
	}
	return out
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

// countScenarioSubtests is the fallback: the first-level subtests of each
// top-level test, but the random runs.
func countScenarioSubtests(r *run) string {
	res := results(r.events)
	names := map[string]bool{}
	tops := map[testKey]bool{}
	outcomes := map[string]int{}
	for k, a := range res {
		parts := strings.Split(k.test, "/")
		if len(parts) < 2 || strings.Contains(parts[1], "differential") || strings.Contains(parts[1], "random") {
			continue
		}
		// Scenario names contain "/" themselves: the scenario is
		// everything after the top-level test, and only leaves count.
		if hasChildren(res, k) {
			continue
		}
		names[strings.Join(parts[1:], "/")] = true
		tops[testKey{k.pkg, parts[0]}] = true
		outcomes[a]++
	}
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprintf("%d scenarios x %d target(s) (from the subtests): %s", len(names), len(tops), outcomeList(outcomes))
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
