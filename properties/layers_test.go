package properties

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// The layer table (issue 24): for every rule of the classic and hints
// profiles, a mutant of impl that breaks that rule alone (a row of the
// mutant table with its rule set), and which layer of tests catches it.
// Each layer is one test binary of its package, built once per mutant with
// the mutant's file in its overlay, and run at the size make test runs it:
//
//   - state machine: TestStateMachine and TestStateMachineHints (rapid's
//     default 100 checks each);
//   - model comparison: conformance's random differential runs on impl
//     (TestImpl's "differential" and "differential-hints", DefaultChecks
//     sequences each);
//   - linearizability: TestImplIsLinearizable and its hints twin (the
//     package's default runs);
//   - named scenario: TestImpl's scenarios (the catalogue and the
//     pod-group files);
//   - generated set: TestGenerated's impl half on the scenarios the TLA+
//     graphs give (tla's TestEdgeScenarios, written once per run).
//
// A rule that only the named scenarios catch is a gap in the generators
// and fails the run. The control runs every layer on the unpatched
// implementation first: a layer that fails there is n/a for every row.
// It is CPU-heavy (three builds and five runs per row, two rows at a time:
// see docs/mutants.md for the figures), so it runs only when asked, in
// make verify:
//
//	go test -run '^TestMutantLayers$' -layers -v ./properties/
var (
	layersRun      = flag.Bool("layers", false, "TestMutantLayers: run every mutant with a rule against each layer (minutes of CPU)")
	layersOnly     = flag.String("layers.only", "", "TestMutantLayers: only the rows whose name or rule matches this regexp")
	layersOut      = flag.String("layers.out", "", "TestMutantLayers: also write the tables (Markdown) to this file")
	layersParallel = flag.Int("layers.parallel", 2, "TestMutantLayers: rows built and run at a time")
	layersLimit    = flag.Duration("layers.limit", 4*time.Minute, "TestMutantLayers: time limit of one layer's run (a run killed at it counts as caught, marked timeout)")
	layersGenMax   = flag.Int("layers.generated.max", 500, "TestMutantLayers: generated scenarios per graph (make generated's GENERATED_MAX)")
	layersGenSmall = flag.Bool("layers.generated.small", false, "TestMutantLayers: the generated set of make test (GraphExt and GraphHints cut to one Pop and one tick)")
)

// classicRules and hintsRules are the rules of each profile the table
// must cover (R14/R14h, the metrics, are compared on every scenario and
// random run by the conformance driver and have no state of their own to
// break here). R17-R19 belong to both profiles: a row of either counts.
var (
	classicRules = []string{"R1", "R2", "R3", "R4", "R5", "R6", "R7", "R8", "R9", "R10", "R11", "R12", "R13", "R17", "R18", "R19"}
	hintsRules   = []string{"R1h", "R2h", "R3h", "R4h", "R5h", "R6h", "R7h", "R8h", "R9h", "R10h", "R11h", "R12h", "R13h", "R15", "R16", "R17", "R18", "R19"}
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
}

func layers(generated string) []layer {
	return []layer{
		{"state machine", "./properties/", []string{"-test.run", "^(TestStateMachine|TestStateMachineHints)$",
			"-rapid.checks=100", "-rapid.nofailfile", "-rapid.shrinktime=1s"}},
		{"model comparison", "./conformance/", []string{"-test.run", "^TestImpl$/^(differential|differential-hints)$", "-rapid.nofailfile"}},
		{"linearizability", "./linearizability/", []string{"-test.run", "^(TestImplIsLinearizable|TestImplIsLinearizableHints)$"}},
		{"named scenario", "./conformance/", []string{"-test.run", "^TestImpl$", "-test.skip", "^TestImpl$/^(differential|differential-hints)$"}},
		{"generated set", "./conformance/", []string{"-test.run", "^TestGenerated$/^impl$", "-generated=" + generated}},
	}
}

// cell is one layer's verdict on one row.
type cell struct {
	caught, timeout, na bool
	detail              string // which test failed (the state machines)
	dur                 time.Duration
}

func (c cell) String() string {
	switch {
	case c.na:
		return "n/a"
	case c.timeout:
		return "caught (timeout)"
	case c.caught && c.detail != "":
		return "caught (" + c.detail + ")"
	case c.caught:
		return "caught"
	}
	return "not caught"
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

	gen := t.TempDir()
	genArgs := []string{"test", "-count=1", "-timeout=20m", "-run", "^TestEdgeScenarios$", "./tla/", "-edges.out=" + gen,
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

	// The control: every layer on the implementation as it is.
	control := make([]cell, len(ls))
	runRow(t, root, "", "", ls, control)
	for i, c := range control {
		if c.caught {
			t.Errorf("layer %q fails on the unpatched implementation: it is n/a for every row", ls[i].name)
		}
	}

	results := make([][]cell, len(rows))
	sem := make(chan struct{}, max(*layersParallel, 1))
	var wg sync.WaitGroup
	for i, m := range rows {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			cells := make([]cell, len(ls))
			runRow(t, root, m.file, patched[m.name], ls, cells)
			for j := range cells {
				if control[j].caught {
					cells[j] = cell{na: true}
				}
			}
			results[i] = cells
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	table := layerTables(rows, ls, results)
	table += fmt.Sprintf("\n%d rows, %d layers, %s in all (go test -run '^TestMutantLayers$' -layers -layers.parallel=%d, generated set -edges.max=%d%s).\n",
		len(rows), len(ls), time.Since(start).Round(time.Second), *layersParallel, *layersGenMax, map[bool]string{true: " -edges.small", false: ""}[*layersGenSmall])
	t.Log("\n" + table)
	if *layersOut != "" {
		if err := os.WriteFile(*layersOut, []byte(table), 0o644); err != nil {
			t.Error(err)
		}
	}
	for _, r := range scenarioOnly(rows, ls, results) {
		t.Errorf("%s is caught only by named scenarios: a gap in the generators", r)
	}
}

// runRow builds each package's test binary with file replaced by content
// (none: the control) and runs every layer, filling cells.
func runRow(t *testing.T, root, file, content string, ls []layer, cells []cell) {
	dir := t.TempDir()
	var overlay []string
	if file != "" {
		p := filepath.Join(dir, filepath.Base(file))
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		js, _ := json.Marshal(map[string]any{"Replace": map[string]string{filepath.Join(root, file): p}})
		ov := filepath.Join(dir, "overlay.json")
		if err := os.WriteFile(ov, js, 0o644); err != nil {
			t.Fatal(err)
		}
		overlay = []string{"-overlay=" + ov}
	}
	bins := map[string]string{}
	for _, l := range ls {
		if bins[l.pkg] != "" {
			continue
		}
		bin := filepath.Join(dir, strings.Trim(filepath.Base(l.pkg), "./")+".test")
		args := append([]string{"test", "-c", "-vet=off", "-o", bin}, overlay...)
		if out, err := goCmd(root, append(args, l.pkg)...); err != nil {
			t.Errorf("building %s with %s patched: %v\n%s", l.pkg, file, err, out)
			return
		}
		bins[l.pkg] = bin
	}
	for i, l := range ls {
		begin := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), *layersLimit)
		cmd := exec.CommandContext(ctx, bins[l.pkg], append([]string{"-test.count=1", "-test.v", "-test.timeout=" + (*layersLimit + time.Minute).String()}, l.args...)...)
		cmd.Dir = filepath.Join(root, l.pkg)
		// The subject of the state machines is impl; failing runs write
		// rapid's fail files and porcupine's evidence under dir, never
		// into the checkout.
		cmd.Env = append(os.Environ(), subjectEnv+"=", "SCHEDQ_RAPID_FAILFILE_DIR="+dir, "SCHEDQ_VIS_DIR="+dir)
		var buf bytes.Buffer
		cmd.Stdout, cmd.Stderr = &buf, &buf
		err := cmd.Run()
		c := cell{caught: err != nil, timeout: ctx.Err() != nil, dur: time.Since(begin)}
		cancel()
		if err != nil {
			if _, ok := err.(*exec.ExitError); !ok {
				t.Errorf("running %s: %v", l.pkg, err)
			}
		}
		if c.caught && l.name == "state machine" && !c.timeout {
			var which []string
			for _, m := range failedMachine.FindAllStringSubmatch(buf.String(), -1) {
				which = append(which, map[string]string{"": "classic", "Hints": "hints"}[m[1]])
			}
			c.detail = strings.Join(which, ", ")
		}
		if file == "" && c.caught {
			t.Logf("control, layer %s:\n%s", l.name, buf.String())
		}
		cells[i] = c
	}
}

var failedMachine = regexp.MustCompile(`(?m)^--- FAIL: TestStateMachine(Hints)? `)

// goCmd runs the go command in root and returns its combined output.
func goCmd(root string, args ...string) (string, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// layerTables renders the row table and the rule table.
func layerTables(rows []mutant, ls []layer, results [][]cell) string {
	var b strings.Builder
	b.WriteString("| rule | mutant |")
	for _, l := range ls {
		b.WriteString(" " + l.name + " |")
	}
	b.WriteString("\n|---|---|" + strings.Repeat("---|", len(ls)) + "\n")
	for i, m := range rows {
		fmt.Fprintf(&b, "| %s | %s |", m.rule, m.name)
		for _, c := range results[i] {
			b.WriteString(" " + c.String() + " |")
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
			n, caught := 0, make([]int, len(ls))
			for i, m := range rows {
				if m.rule != r {
					continue
				}
				n++
				for j, c := range results[i] {
					if c.caught {
						caught[j]++
					}
				}
			}
			if n == 0 {
				continue
			}
			fmt.Fprintf(&b, "| %s | %s | %d |", prof, r, n)
			for j := range ls {
				fmt.Fprintf(&b, " %d of %d |", caught[j], n)
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

// scenarioOnly lists the rules whose mutants no layer but the named
// scenarios catches (a rule with one such row among others the
// generators catch is not a gap: the rule is reached).
func scenarioOnly(rows []mutant, ls []layer, results [][]cell) []string {
	named := slices.IndexFunc(ls, func(l layer) bool { return l.name == "named scenario" })
	byRule := map[string]bool{} // rule -> some generator caught a row
	var order []string
	for i, m := range rows {
		if _, ok := byRule[m.rule]; !ok {
			order = append(order, m.rule)
			byRule[m.rule] = false
		}
		for j, c := range results[i] {
			if j != named && c.caught {
				byRule[m.rule] = true
			}
		}
	}
	var out []string
	for _, r := range order {
		if byRule[r] {
			continue
		}
		for i, m := range rows {
			if m.rule == r && results[i][named].caught {
				out = append(out, r)
				break
			}
		}
	}
	return out
}
