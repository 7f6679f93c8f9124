package properties

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The layer table (issue 24, issue 32's catch rates): for every rule of
// the classic and hints profiles, a mutant of impl that breaks that rule
// alone (a row of the mutant table with its rule set), and how often each
// layer of tests catches it. Each layer is one test binary of its package,
// built once per mutant with the mutant's file in its overlay, and run at
// the size make test runs it:
//
//   - state machine: TestStateMachine and TestStateMachineHints (rapid's
//     default 100 checks each);
//   - model comparison: conformance's random differential runs on impl
//     (TestImpl's "differential" and "differential-hints", DefaultChecks
//     sequences each);
//   - linearizability: TestImplIsLinearizable and its hints twin (the
//     package's default runs);
//   - named scenario: TestImpl's scenarios (the catalogue and the
//     pod-group files), every random run of TestImpl skipped;
//   - generated set: TestGenerated's impl half on the scenarios the TLA+
//     graphs give (tla's TestEdgeScenarios, written once per run).
//
// The first three are random (rapid's seeds, the clients' choices and the
// interleavings): each runs -layers.runs times per row, and its cell is a
// catch rate, k of N. The last two give one verdict per commit: each runs
// twice, and the run fails if its two verdicts differ. The control runs every layer on the unpatched implementation
// first: a layer that fails there is n/a for every row. The control also
// lists the subtests each layer ran (subtests.txt), and the run fails if
// a layer ran a check its name does not cover (a random run in the named
// scenarios).
//
// Every layer run's output is kept, one file per row, in -layers.dir
// (named in the log). The run fails on a real regression only:
// checkAgainstPublished compares the rates with the table published in
// docs/mutants.md by a one-sided Fisher exact test whose false-alarm rate
// its doc comment states, and a fixed layer that no longer catches a row
// it caught. The goal rates are reported, not enforced. It is CPU-heavy
// (three builds per row and 3N+4 layer runs, two rows at a time: see
// docs/mutants.md for the figures), so it runs only when asked, in make
// mutant-layers (N=20, every row) and make verify (N=5, the rows of the
// rules hardest to reach):
//
//	go test -run '^TestMutantLayers$' -layers -layers.runs=5 -v ./properties/
var (
	layersRun       = flag.Bool("layers", false, "TestMutantLayers: run every mutant with a rule against each layer (minutes of CPU)")
	layersOnly      = flag.String("layers.only", "", "TestMutantLayers: only the rows whose name or rule matches this regexp")
	layersOut       = flag.String("layers.out", "", "TestMutantLayers: also write the tables (Markdown) to this file")
	layersDir       = flag.String("layers.dir", "", "TestMutantLayers: keep every row's output in this directory (default: a new one under the temp dir, named in the log)")
	layersRuns      = flag.Int("layers.runs", 5, "TestMutantLayers: runs of each random layer per row (the N of its catch rates)")
	layersPublished = flag.String("layers.published", "../docs/mutants.md", "TestMutantLayers: the published table the rates are compared with (empty: none)")
	layersFromDir   = flag.String("layers.fromdir", "", "TestMutantLayersFromDir: render the tables from the outputs a run kept in this -layers.dir")
	layersParallel  = flag.Int("layers.parallel", 2, "TestMutantLayers: rows built and run at a time")
	layersLimit     = flag.Duration("layers.limit", 4*time.Minute, "TestMutantLayers: time limit of one layer's run (a run killed at it counts as caught, marked timeout)")
	layersGenMax    = flag.Int("layers.generated.max", 500, "TestMutantLayers: generated scenarios per graph (make generated's GENERATED_MAX)")
	layersGenSmall  = flag.Bool("layers.generated.small", false, "TestMutantLayers: the generated set of make test (GraphExt and GraphHints cut to one Pop and one tick)")
)

// classicRules and hintsRules are the rules of each profile the table
// must cover (R14/R14h, the metrics, are compared on every scenario and
// random run by the conformance driver and have no state of their own to
// break here). R17-R19 belong to both profiles: a row of either counts.
var (
	classicRules = []string{"R1", "R2", "R3", "R4", "R5", "R6", "R7", "R8", "R9", "R10", "R11", "R12", "R13", "R17", "R18", "R19"}
	// R20-R22: the hints profile's pre-queueing setting (v1.38).
	hintsRules = []string{"R1h", "R2h", "R3h", "R4h", "R5h", "R6h", "R7h", "R8h", "R9h", "R10h", "R11h", "R12h", "R13h", "R15", "R16", "R17", "R18", "R19", "R20", "R21", "R22"}
)

// TestEveryRuleHasAMutant is cheap and always runs: each rule of both
// profiles has a row of the mutant table, and every rule a row names is
// one of them.
func TestEveryRuleHasAMutant(t *testing.T) {
	has := map[string]bool{}
	for _, m := range mutants {
		if m.rule == "" {
			continue
		}
		if !slices.Contains(classicRules, m.rule) && !slices.Contains(hintsRules, m.rule) {
			t.Errorf("mutant %s: rule %q is not a rule of the classic or hints profile", m.name, m.rule)
		}
		has[m.rule] = true
	}
	for _, r := range append(slices.Clone(classicRules), hintsRules...) {
		if !has[r] {
			t.Errorf("no mutant breaks %s: add a row with rule %q to the mutant table", r, r)
		}
	}
}

// layer is one column of the table: a test binary of pkg run with args.
type layer struct {
	name, pkg string
	args      []string
	// random: the layer's verdict depends on the run's seed, so it runs
	// -layers.runs times and its cell is a rate.
	random bool
	// owns says whether a test or subtest the layer ran is one its name
	// covers; scopeViolations lists the others.
	owns func(test string) bool
}

// isRandomRun reports whether a subtest of conformance.Run is one of its
// random runs ("differential", "differential-hints",
// "differential-podgroups" and their children).
func isRandomRun(test string) bool {
	_, rest, ok := strings.Cut(test, "/")
	return ok && strings.HasPrefix(rest, "differential")
}

func layers(generated string) []layer {
	under := func(tests ...string) func(string) bool {
		return func(test string) bool {
			for _, p := range tests {
				if test == p || strings.HasPrefix(test, p+"/") {
					return true
				}
			}
			return false
		}
	}
	// The random layers shrink for 1 s: the table counts catches, not
	// minimal failures (rapid shrinks 30 s per failure by default).
	return []layer{
		{"state machine", "./properties/", []string{"-test.run", "^(TestStateMachine|TestStateMachineHints)$",
			"-rapid.checks=100", "-rapid.nofailfile", "-rapid.shrinktime=1s"}, true,
			under("TestStateMachine", "TestStateMachineHints")},
		{"model comparison", "./conformance/", []string{"-test.run", "^TestImpl$/^(differential|differential-hints)$", "-rapid.nofailfile", "-rapid.shrinktime=1s"}, true,
			func(test string) bool {
				return test == "TestImpl" || under("TestImpl/differential", "TestImpl/differential-hints")(test)
			}},
		{"linearizability", "./linearizability/", []string{"-test.run", "^(TestImplIsLinearizable|TestImplIsLinearizableHints)$"}, true,
			under("TestImplIsLinearizable", "TestImplIsLinearizableHints")},
		// Every random run of TestImpl skipped, whatever its profile: a
		// pattern that named the profiles' runs one by one left the
		// podgroups runs in this layer when they were added.
		{"named scenario", "./conformance/", []string{"-test.run", "^TestImpl$", "-test.skip", "^TestImpl$/^differential"}, false,
			func(test string) bool { return under("TestImpl")(test) && !isRandomRun(test) }},
		{"generated set", "./conformance/", []string{"-test.run", "^TestGenerated$/^impl$", "-generated=" + generated}, false,
			func(test string) bool { return test == "TestGenerated" || under("TestGenerated/impl")(test) }},
	}
}

// ranRE is a test or subtest go test -v starts.
var ranRE = regexp.MustCompile(`(?m)^=== RUN\s+(\S+)\s*$`)

// subtestsRan lists the tests and subtests a -test.v output started.
func subtestsRan(out string) []string {
	var ran []string
	for _, m := range ranRE.FindAllStringSubmatch(out, -1) {
		ran = append(ran, m[1])
	}
	return ran
}

// scopeViolations lists the tests a layer ran that its name does not
// cover, and says so if it ran none (a pattern that matches nothing
// would make every cell "not caught").
func scopeViolations(l layer, ran []string) []string {
	if len(ran) == 0 {
		return []string{fmt.Sprintf("layer %q ran no test: its pattern %q matches nothing", l.name, strings.Join(l.args, " "))}
	}
	var out []string
	for _, test := range ran {
		if !l.owns(test) {
			out = append(out, fmt.Sprintf("layer %q ran %s, which is not a check its name covers", l.name, test))
		}
	}
	return out
}

// cell is one layer's verdict on one row: caught in k of n runs.
type cell struct {
	k, n     int
	timeouts int  // runs killed at -layers.limit (counted as caught)
	na       bool // the layer fails on the unpatched implementation
	random   bool
	detail   map[string]int // which state machine failed, by profile
}

func (c cell) String() string {
	switch {
	case c.na:
		return "n/a"
	case c.random:
		s := fmt.Sprintf("%d/%d", c.k, c.n)
		if c.timeouts > 0 {
			s += fmt.Sprintf(" (%d timeout)", c.timeouts)
		}
		return s
	case c.timeouts > 0:
		return "caught (timeout)"
	case c.k == c.n && c.n > 0:
		return "caught"
	case c.k > 0:
		return fmt.Sprintf("caught in %d of %d runs", c.k, c.n)
	}
	return "not caught"
}

// rowResult is one row's cells and, per run, whether any random layer
// caught it in that run (the random layers' runs are independent, so the
// i-th runs of the layers make one draw of "the generators").
type rowResult struct {
	cells     []cell
	anyRandom cell
}

func TestMutantLayers(t *testing.T) {
	if !*layersRun {
		t.Skip("run with -layers (make verify does): builds three test binaries per mutant")
	}
	start := time.Now()
	root, patched := patchMutants(t)
	var rows []mutant
	only := regexp.MustCompile(*layersOnly)
	for _, m := range mutants {
		if m.rule != "" && (only.MatchString(m.name) || only.MatchString(m.rule+" ")) {
			rows = append(rows, m)
		}
	}
	if len(rows) == 0 {
		t.Fatalf("no row of the mutant table matches -layers.only=%q", *layersOnly)
	}
	if *layersOnly != "" {
		total := 0
		for _, m := range mutants {
			if m.rule != "" {
				total++
			}
		}
		t.Logf("layers: only %d of %d rows (-layers.only=%s); make mutant-layers runs every row", len(rows), total, *layersOnly)
	}
	runs := max(*layersRuns, 1)
	dir := *layersDir
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "schedq-layers."); err != nil {
			t.Fatal(err)
		}
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Logf("layers: every row's output is kept in %s (one file per row, control.txt and subtests.txt)", dir)

	gen := t.TempDir()
	// The generation may take as long as this test has left: a fixed
	// limit failed starved runs (the whole table at a load of two other
	// verifies) before their first row.
	genTimeout := "0"
	if d, ok := t.Deadline(); ok {
		genTimeout = max(time.Until(d), time.Second).Round(time.Second).String()
	}
	genArgs := []string{"test", "-count=1", "-timeout=" + genTimeout, "-run", "^TestEdgeScenarios$", "./tla/", "-edges.out=" + gen,
		fmt.Sprintf("-edges.max=%d", *layersGenMax)}
	if *layersGenSmall {
		genArgs = append(genArgs, "-edges.small", "-edges.cfg=GraphExt.cfg,GraphHints.cfg")
	}
	genStart := time.Now()
	if out, err := goCmd(root, genArgs...); err != nil {
		t.Fatalf("generating the scenarios of the TLA+ graphs: %v\n%s", err, out)
	}
	t.Logf("generated set: go %s (%.0fs)", strings.Join(genArgs, " "), time.Since(genStart).Seconds())
	ls := layers(gen)

	// The control: every layer on the implementation as it is, once, with
	// the subtests each ran listed and checked against its name.
	control := runRow(t, root, dir, "control", "", "", ls, 1)
	var listing strings.Builder
	for i, l := range ls {
		c := control.cells[i]
		if c.k > 0 {
			t.Errorf("layer %q fails on the unpatched implementation: it is n/a for every row (output: %s)", l.name, filepath.Join(dir, "control.txt"))
		}
		ran := control.ran[i]
		fmt.Fprintf(&listing, "%s: %d tests and subtests (%s)\n", l.name, len(ran), strings.Join(l.args, " "))
		for _, r := range ran {
			fmt.Fprintf(&listing, "  %s\n", r)
		}
		for _, v := range scopeViolations(l, ran) {
			t.Error(v)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "subtests.txt"), []byte(listing.String()), 0o644); err != nil {
		t.Error(err)
	}
	if t.Failed() {
		return
	}

	results := make([]rowResult, len(rows))
	sem := make(chan struct{}, max(*layersParallel, 1))
	var wg sync.WaitGroup
	for i, m := range rows {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			r := runRow(t, root, dir, m.name, m.file, patched[m.name], ls, runs)
			for j := range r.cells {
				if control.cells[j].k > 0 {
					r.cells[j] = cell{na: true}
				}
			}
			results[i] = r.rowResult
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	reportLayers(t, rows, ls, results, fmt.Sprintf("%d rows, %d layers (random ones %d runs each), %s in all (go test -run '^TestMutantLayers$' -layers -layers.runs=%d -layers.parallel=%d, generated set -edges.max=%d%s).",
		len(rows), len(ls), runs, time.Since(start).Round(time.Second), runs, *layersParallel, *layersGenMax, map[bool]string{true: " -edges.small", false: ""}[*layersGenSmall]))
}

// reportLayers logs the tables (and writes them to -layers.out), the
// goals, and the guard's verdict against the published table.
func reportLayers(t *testing.T, rows []mutant, ls []layer, results []rowResult, footer string) {
	table := layerTables(rows, ls, results) + "\n" + footer + "\n"
	t.Log("\n" + table)
	if *layersOut != "" {
		if err := os.WriteFile(*layersOut, []byte(table), 0o644); err != nil {
			t.Error(err)
		}
	}
	for _, l := range goalReport(rows, ls, results) {
		t.Log(l)
	}
	if *layersPublished == "" {
		t.Log("guard: no published table given (-layers.published): rates not compared")
		return
	}
	pub, err := os.ReadFile(*layersPublished)
	if err != nil {
		t.Errorf("guard: reading the published table: %v", err)
		return
	}
	published, err := parseLayerTable(string(pub))
	if errors.Is(err, errNoRates) {
		t.Logf("guard: %s: %v", *layersPublished, err)
		return
	}
	if err != nil {
		t.Errorf("guard: %s: %v", *layersPublished, err)
		return
	}
	verdict := checkAgainstPublished(published, currentTable(rows, ls, results))
	t.Log("guard: " + verdict.summary)
	for _, d := range verdict.drops {
		t.Errorf("guard: %s", d)
	}
}

// runLineRE is the line runRow writes before each layer run's output.
var runLineRE = regexp.MustCompile(`(?m)^===== (.+?), run (\d+) of (\d+): (not caught|caught)( \(killed at -layers.limit\))? \(`)

// TestMutantLayersFromDir renders the tables of a run from the outputs it
// kept (-layers.fromdir, a -layers.dir): for a run stopped before its end
// (its finished rows) or to read a run again. Rows without a file are
// left out and counted.
func TestMutantLayersFromDir(t *testing.T) {
	if *layersFromDir == "" {
		t.Skip("run with -layers.fromdir=DIR (a -layers.dir of TestMutantLayers)")
	}
	ls := layers("")
	index := map[string]int{}
	for i, l := range ls {
		index[l.name] = i
	}
	var rows []mutant
	var results []rowResult
	missing := 0
	for _, m := range mutants {
		if m.rule == "" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(*layersFromDir, m.name+".txt"))
		if err != nil {
			missing++
			continue
		}
		r := rowResult{cells: make([]cell, len(ls)), anyRandom: cell{random: true}}
		anyCaught := map[int]bool{}
		complete := true
		for _, x := range runLineRE.FindAllStringSubmatch(string(b), -1) {
			j, ok := index[x[1]]
			if !ok {
				t.Fatalf("%s: no layer %q", m.name, x[1])
			}
			run, _ := strconv.Atoi(x[2])
			c := &r.cells[j]
			c.random = ls[j].random
			c.n++
			if x[4] == "caught" {
				c.k++
				if ls[j].random {
					anyCaught[run] = true
				}
			}
			if x[5] != "" {
				c.timeouts++
			}
		}
		for j := range r.cells {
			complete = complete && r.cells[j].n > 0
		}
		if !complete {
			missing++
			continue
		}
		runs := r.cells[index["state machine"]].n
		r.anyRandom.n = runs
		for i := 1; i <= runs; i++ {
			if anyCaught[i] {
				r.anyRandom.k++
			}
		}
		rows = append(rows, m)
		results = append(results, r)
	}
	if len(rows) == 0 {
		t.Fatalf("no finished row in %s", *layersFromDir)
	}
	reportLayers(t, rows, ls, results, fmt.Sprintf("%d rows (rendered from the outputs kept in a -layers.dir; %d rows of the table not finished there, left out), %d layers.", len(rows), missing, len(ls)))
}

// rowRun is what runRow hands back: the cells, and the tests each layer
// ran in its first run (the control's listing).
type rowRun struct {
	rowResult
	ran [][]string
}

// runRow builds each package's test binary with file replaced by content
// (none: the control), runs every layer (the random ones runs times), and
// writes every run's output to dir/<name>.txt: a failing run in full
// (the check, the scenario to paste), a passing one by its last lines.
func runRow(t *testing.T, root, dir, name, file, content string, ls []layer, runs int) rowRun {
	work := t.TempDir()
	var overlay []string
	if file != "" {
		p := filepath.Join(work, filepath.Base(file))
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		js, _ := json.Marshal(map[string]any{"Replace": map[string]string{filepath.Join(root, file): p}})
		ov := filepath.Join(work, "overlay.json")
		if err := os.WriteFile(ov, js, 0o644); err != nil {
			t.Fatal(err)
		}
		overlay = []string{"-overlay=" + ov}
	}
	var log bytes.Buffer
	defer func() {
		if err := os.WriteFile(filepath.Join(dir, name+".txt"), log.Bytes(), 0o644); err != nil {
			t.Error(err)
		}
	}()
	fmt.Fprintf(&log, "row %s (%s patched; %d runs of each random layer)\n", name, map[bool]string{true: file, false: "nothing"}[file != ""], runs)
	out := rowRun{rowResult: rowResult{cells: make([]cell, len(ls)), anyRandom: cell{random: true}}, ran: make([][]string, len(ls))}
	bins := map[string]string{}
	for _, l := range ls {
		if bins[l.pkg] != "" {
			continue
		}
		bin := filepath.Join(work, strings.Trim(filepath.Base(l.pkg), "./")+".test")
		args := append([]string{"test", "-c", "-vet=off", "-o", bin}, overlay...)
		if o, err := goCmd(root, append(args, l.pkg)...); err != nil {
			t.Errorf("building %s with %s patched: %v\n%s", l.pkg, file, err, o)
			return out
		}
		bins[l.pkg] = bin
	}
	anyCaught := make([]bool, runs)
	for i, l := range ls {
		// A fixed layer runs twice: its two verdicts must agree, or it
		// is random and its name says otherwise.
		n := fixedRuns
		if l.random {
			n = runs
		}
		c := cell{n: n, random: l.random, detail: map[string]int{}}
		for run := range n {
			begin := time.Now()
			ctx, cancel := context.WithTimeout(context.Background(), *layersLimit)
			cmd := exec.CommandContext(ctx, bins[l.pkg], append([]string{"-test.count=1", "-test.v", "-test.timeout=" + (*layersLimit + time.Minute).String()}, l.args...)...)
			cmd.Dir = filepath.Join(root, l.pkg)
			// The subject of the state machines is impl; failing runs write
			// rapid's fail files and porcupine's evidence under work, never
			// into the checkout.
			cmd.Env = append(os.Environ(), subjectEnv+"=", "SCHEDQ_RAPID_FAILFILE_DIR="+work, "SCHEDQ_VIS_DIR="+work)
			var buf bytes.Buffer
			cmd.Stdout, cmd.Stderr = &buf, &buf
			err := cmd.Run()
			timeout := ctx.Err() != nil
			cancel()
			if err != nil {
				if _, ok := err.(*exec.ExitError); !ok {
					t.Errorf("running %s: %v", l.pkg, err)
				}
			}
			caught := err != nil
			verdict := "not caught"
			if caught {
				c.k++
				verdict = "caught"
				if l.random {
					anyCaught[run] = true
				}
			}
			if timeout {
				c.timeouts++
				verdict = "caught (killed at -layers.limit)"
			}
			if caught && l.name == "state machine" && !timeout {
				for _, m := range failedMachine.FindAllStringSubmatch(buf.String(), -1) {
					c.detail[map[string]string{"": "classic", "Hints": "hints"}[m[1]]]++
				}
			}
			if run == 0 {
				out.ran[i] = subtestsRan(buf.String())
			}
			fmt.Fprintf(&log, "\n===== %s, run %d of %d: %s (%s)\n", l.name, run+1, n, verdict, time.Since(begin).Round(time.Millisecond))
			text := buf.String()
			if !caught && file != "" {
				text = lastLines(text, 3)
			}
			log.WriteString(capText(text, 1<<20))
		}
		if !l.random && c.k != 0 && c.k != c.n {
			t.Errorf("row %s: the %s layer gave two verdicts on one commit (caught in %d of %d runs): a fixed layer must not depend on chance (outputs: %s)",
				name, l.name, c.k, c.n, filepath.Join(dir, name+".txt"))
		}
		out.cells[i] = c
	}
	for _, a := range anyCaught {
		out.anyRandom.n++
		if a {
			out.anyRandom.k++
		}
	}
	return out
}

// fixedRuns is how often a fixed layer (named scenario, generated set)
// runs per row: twice, to show its verdict does not change from run to run.
const fixedRuns = 2

var failedMachine = regexp.MustCompile(`(?m)^--- FAIL: TestStateMachine(Hints)? `)

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n") + "\n"
}

// capText keeps the head and tail of an output longer than limit.
func capText(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	return s[:limit/2] + fmt.Sprintf("\n[... %d bytes left out ...]\n", len(s)-limit) + s[len(s)-limit/2:]
}

// goCmd runs the go command in root and returns its combined output.
func goCmd(root string, args ...string) (string, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// anyRandomColumn is the column of the rate at which at least one random
// layer caught the row: the goal's measure.
const anyRandomColumn = "any random layer"

// layerTables renders the row table (the one checkAgainstPublished reads)
// and the rule table.
func layerTables(rows []mutant, ls []layer, results []rowResult) string {
	var b strings.Builder
	b.WriteString("| rule | mutant |")
	for _, l := range ls {
		b.WriteString(" " + l.name + " |")
		if l.name == "linearizability" {
			b.WriteString(" " + anyRandomColumn + " |")
		}
	}
	b.WriteString("\n|---|---|" + strings.Repeat("---|", len(ls)+1) + "\n")
	for i, m := range rows {
		fmt.Fprintf(&b, "| %s | %s |", m.rule, m.name)
		for j, c := range results[i].cells {
			b.WriteString(" " + c.String() + " |")
			if ls[j].name == "linearizability" {
				b.WriteString(" " + results[i].anyRandom.String() + " |")
			}
		}
		b.WriteString("\n")
	}
	b.WriteString("\n| profile | rule | rows | " + strings.Join(layerNames(ls), " | ") + " |\n|---|---|---|" + strings.Repeat("---|", len(ls)) + "\n")
	for _, pr := range []struct {
		name  string
		rules []string
	}{{"classic", classicRules}, {"hints", hintsRules}} {
		for _, r := range pr.rules {
			if pr.name == "hints" && slices.Contains(classicRules, r) {
				continue // R17-R19: one line, under classic, for both
			}
			prof := pr.name
			if slices.Contains(hintsRules, r) && slices.Contains(classicRules, r) {
				prof = "both"
			}
			n, k, runs := 0, make([]int, len(ls)), make([]int, len(ls))
			for i, m := range rows {
				if m.rule != r {
					continue
				}
				n++
				for j, c := range results[i].cells {
					k[j] += c.k
					runs[j] += c.n
				}
			}
			if n == 0 {
				continue
			}
			fmt.Fprintf(&b, "| %s | %s | %d |", prof, r, n)
			for j := range ls {
				fmt.Fprintf(&b, " %d of %d |", k[j], runs[j])
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

func layerNames(ls []layer) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.name)
	}
	return out
}
