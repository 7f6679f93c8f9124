// Command verifyrun is `make verify` (through scripts/verify): it runs
// every schedq suite against the implementation, one step at a time,
// printing a line when each step starts and ends, and then a summary that
// says what each suite checked (scenarios x targets, random runs, mutants
// caught, histories x operations, TLC configurations and states).
//
// Each step's output goes to a log file in the report directory (kept,
// and named in the summary): .verify/<time> of the checkout, which git
// ignores, or -out. make verify never writes a tracked file: the
// conformance report goes to the report directory (make conformance is
// what refreshes conformance/RESULTS.md), and the run fails if `git
// status --porcelain` differs at its end from its start.
//
// go test steps run with -json so that the counts come from the test events
// rather than from text. A count that cannot be read (a suite changed its
// output) is left out, never invented: the step still reports pass, fail or
// skip and its time. A suite that cannot run on this machine is SKIPPED,
// with the way to enable it, and never counts as passed.
//
//	go run ./scripts/verifyrun [-only REGEXP] [-list] [-out DIR]
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"github.com/schedq/schedq/internal/releases"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// step is one suite, or one part of one.
type step struct {
	name string
	// cmd is a bash command line, run from the repository root; it is
	// printed as is, so that a failing step can be rerun by hand.
	cmd string
	// note, if set, is printed before the step starts (what it costs).
	note string
	// enable says how to make a skipped step run.
	enable string
	// count reads what the step checked from its output; nil for a step
	// that only passes or fails.
	count func(r *run) []string
	// env is added to the environment; ${VERIFY_TMP} is the run's temp directory.
	env []string
}

// The step names other steps' counts look for.
const (
	generatedStep = "conformance: generated from the TLA+ graphs, every target"
	tlcStep       = "TLC model checking"
)

// generatedMax is the generated run's bound, GENERATED_MAX: scenarios per
// TLA+ graph.
const generatedMax = 500

// run is one step's execution.
type run struct {
	step   *step
	out    []byte // everything the command wrote
	events []event
	text   string // the output as a human reads it (go test -json decoded)
	tmp    string // the run's temp directory
	prior  []*run // the steps run before it in this verify
	status string // PASS, FAIL, SKIPPED
	reason string // why skipped, or why failed
	detail []string
	secs   time.Duration
	log    string
}

// steps are make verify's steps. Every go test has a -timeout of its own:
// a backstop against a hang, far above the step's time on a loaded
// machine (go test's default 10 minutes stopped the tla step at load 45).
func steps(upstream []string) []*step {
	return []*step{
		{name: "gofmt + go vet (main module)", cmd: "make -s vet VET_UPSTREAM="},
		{name: "spec: R7 backoff, invariants, bad input on model and impl (race)", cmd: "go test -json -race -count=1 -timeout 60m ./spec/", count: countTests},
		{name: "model (race)", cmd: "go test -json -race -count=1 -timeout 60m ./model/", count: countTests},
		{name: "impl (race, goleak)", cmd: "go test -json -race -count=1 -timeout 60m ./impl/", count: countTests},
		{name: "properties: state machine, three profiles, 20000 checks each", cmd: "go test -json -count=1 -timeout 60m -run '^TestStateMachine(Hints|PodGroups)?$' ./properties/ -rapid.checks=20000", count: countStateMachine},
		{name: "properties: mutants caught", cmd: "go test -json -count=1 -timeout 60m -run '^TestMutantsAreCaught$' ./properties/", count: countMutants},
		{
			// Catch rates (issue 32): the random layers 5 times per row
			// (make mutant-layers publishes N=20 in docs/mutants.md); the
			// step fails on a clear drop against the published rates
			// (one-sided Fisher exact test, family-wise false-alarm rate
			// 1%) or a fixed layer's change, never on one unlucky run.
			//
			// Only the rows of the rules the generators reach least (the
			// two-layer goal's and the pre-queueing setting's): every row
			// at N=5 is about an hour of two cores, more than the rest of
			// make verify together; make mutant-layers runs them all.
			name: "properties: mutants by layer, catch rates of the rules hardest to reach (docs/mutants.md)",
			cmd: "go test -json -count=1 -timeout 120m -run '^TestMutantLayers$' ./properties/ -layers -layers.only='^(R4h|R11|R13|R13h|R17|R20|R21|R22) ' -layers.runs=" + strconv.Itoa(layersRuns) +
				" -layers.dir=${VERIFY_TMP}/layers -layers.out=${VERIFY_TMP}/layers/table.md -v",
			count: countLayers,
		},
		{name: "properties: focused, fuzz corpus, Run (race)", cmd: "go test -json -race -count=1 -timeout 60m -skip '^(TestStateMachine|TestStateMachineHints|TestStateMachinePodGroups|TestMutantsAreCaught)$' ./properties/", count: countTests},
		{name: "linearizability (race)", count: countLinearizability, cmd: "go test -json -race -count=1 -timeout 45m ./linearizability/ -lin.runs=300 -lin.ops=400 -lin.timeout=1m"}, // the Makefile's LINFLAGS
		{
			// Issue 32: the concurrent checks on impl's schedule-perturbing
			// build (impl/perturb.go: the queue's lock yields around every
			// acquire and release), where a lock released between two
			// steps of one operation shows (the mutant table's
			// requeue-in-flight-mark-cleared-late: caught 50 of 50). A
			// correct queue passes every draw: conservation and
			// linearizability have no false alarm, and an undecided
			// history (none in this size so far) fails as a finding.
			name:  "concurrent, impl's perturbed build (-tags schedqperturb, race)",
			cmd:   "go test -json -race -count=1 -timeout 30m -tags schedqperturb -run '^TestImpl' -v ./conformance/concurrent/",
			note:  "the narrow-race mutant requeue-in-flight-mark-cleared-late is caught here 50 of 50 (properties' mutant table); each race check's line states its odds",
			count: countPerturbed,
		},
		{name: "linearizability: pod-group mutants of impl", cmd: "go test -json -count=1 -timeout 60m -run '^TestImplMutantsAreCaught$' ./linearizability/ -lin.mutants", count: countTests},
		{name: "tla: agreement of model and the committed TLC graphs", cmd: "go test -json -count=1 -timeout 60m ./tla/...", count: countAgreement},
		{
			name: "upstream: compile Kubernetes (" + strings.Join(upstream, ", ") + ")",
			// go test vets too (its default analyzers); a separate
			// go vet of the module would compute vet facts over all of
			// Kubernetes again. make upstream-build first says which
			// releases Go's build cache lacks and what a cold build costs,
			// then builds and links each release's test binary once
			// (-run '^$'); the conformance step and make bench-compare
			// reuse the compiled packages.
			cmd: "make -s upstream-build",
			note: "compiles Kubernetes once per release (" + strings.Join(upstream, ", ") + "), shared by the conformance step " +
				"and make bench-compare: about 8 CPU-minutes per release on a cold build cache (2-core VM), seconds when Go's build cache has it",
		},
		{
			name: "conformance: every target, the report",
			cmd:  "make -s conformance TESTFLAGS=-json RESULTS_DIR=${VERIFY_TMP}/results REPORT=${VERIFY_TMP}/RESULTS.md",
			count: func(r *run) []string {
				return append(countConformance(r), reportLine(r))
			},
		},
		{
			// The blocked-Pop scenarios again and again on every release:
			// their woken Pop runs in a goroutine of its own, so a race
			// between it and the operation that woke it shows in some
			// runs only (an adapter race once failed 6% of single runs).
			name:  "conformance: the blocked-Pop scenarios, 100 runs each on the newest three releases",
			cmd:   "make -s conformance-blocked-pops BLOCKED_POPS_COUNT=100",
			note:  "counts the requeue race F01's runs as known (an intermittent declared difference of v1.34-v1.37): its share is that release's race rate at the machine's load",
			count: linesWithPrefix("blocked-pops: "),
		},
		{
			// Issue 24: scenarios generated from the TLA+ graphs, one per
			// step, on every target; the bound is GENERATED_MAX steps per
			// graph, which the step's output states.
			name:  generatedStep,
			cmd:   "make -s generated TESTFLAGS=-json GENERATED_MAX=" + strconv.Itoa(generatedMax) + " GENERATED_DIR=${VERIFY_TMP}/generated RESULTS_DIR=${VERIFY_TMP}/results REPORT=${VERIFY_TMP}/RESULTS.md",
			note:  "generates at most GENERATED_MAX (default 500) scenarios of each of the four TLA+ graphs and runs them on the model, impl and every upstream release: 1m30s measured on the 2-core machine, 12m35s when it was shared with other jobs",
			count: countGenerated,
		},
		{
			name:  "coverage: TLA+ graph steps and rules, by source",
			cmd:   "go test -json -count=1 -timeout 30m -run '^TestCoverage$' ./tla/ -coverage -v",
			count: countCoverage,
		},
		{
			// The hints and podgroups profiles' model-differential random
			// runs at the verify size: the model and the real v1.37.2
			// queue (GenericWorkload on for the podgroups runs).
			name: "conformance: hints and podgroups random runs, 3000 checks each (model, upstream v1.37.2)",
			cmd: "go test -json -count=1 -timeout 60m -run 'TestModel/differential-(hints|podgroups)$' ./conformance/ -rapid.checks=3000 && " +
				"cd conformance/upstream && go test -json -count=1 -timeout 60m -run 'TestQueueingHints/differential-(hints|podgroups)$' . -rapid.checks=3000",
			env:   []string{"SCHEDQ_CONFORMANCE_RESULTS=${VERIFY_TMP}/results"},
			count: countConformance,
		},
		{
			// The reference peer, and the Python peer of
			// conformance/remote/testdata/pypeer (skipped, saying so,
			// without python3).
			name:  "conformance over the protocol (cmd/schedq-peer, the Python peer)",
			cmd:   "go test -json -race -count=1 -timeout 60m ./conformance/remote/ -rapid.checks=300",
			env:   []string{"SCHEDQ_CONFORMANCE_RESULTS=${VERIFY_TMP}/results", "SCHEDQ_REMOTE_PEER_RACE=1", "SCHEDQ_REMOTE_PYTHON_PEER=1"},
			count: countConformance,
		},
		{
			// The real kube-scheduler on upstream's queue and on schedq's
			// (realsched/), every workload, for each release make
			// realsched runs, at a size between make test's and the
			// benchmarks': every bindable pod bound once, none lost, the
			// trace checked against the model.
			name:  "realsched: the real kube-scheduler on both queues",
			cmd:   "make -s realsched-check TESTFLAGS=-json REALSCHED_CHECK_FLAGS='" + realschedSize + "'",
			note:  "builds the real scheduler once per release (a cold build is about 8 CPU-minutes per release on the 2-core VM; seconds from Go's build cache), then runs every workload on both queues",
			count: countRealsched,
		},
		{
			name:   tlcStep,
			cmd:    "make -s tlc",
			count:  countTLC,
			enable: "set TLA2TOOLS_JAR=/path/to/tla2tools.jar or put the jar at ~/.cache/schedq/tla2tools.jar (with java on PATH); see tla/README.md",
		},
	}
}

func main() {
	only := flag.String("only", "", "run only the steps whose name matches this regular expression")
	list := flag.Bool("list", false, "list the steps and exit")
	outDir := flag.String("out", "", "the report directory: the steps' logs and reports (default .verify/<UTC time> of the checkout, which git ignores)")
	flag.Parse()
	all := steps(upstreamReleases())
	if *list {
		for i, s := range all {
			fmt.Printf("%2d  %-48s %s\n", i+1, s.name, s.cmd)
		}
		return
	}
	var sel []*step
	re, err := regexp.Compile(*only)
	if err != nil {
		fmt.Fprintf(os.Stderr, "verify: -only: %v\n", err)
		os.Exit(2)
	}
	for _, s := range all {
		if re.MatchString(s.name) {
			sel = append(sel, s)
		}
	}
	logdir := *outDir
	if logdir == "" {
		logdir = filepath.Join(".verify", time.Now().UTC().Format("20060102-150405"))
	}
	if abs, err := filepath.Abs(logdir); err == nil {
		logdir = abs
	}
	if err := os.MkdirAll(logdir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	start := time.Now()
	before, gitErr := porcelain()
	fmt.Printf("schedq verify: %d steps, logs and reports in %s\n", len(sel), logdir)
	var runs []*run
	for i, s := range sel {
		r := execute(s, i+1, len(sel), logdir, runs)
		runs = append(runs, r)
	}
	code := summary(os.Stdout, runs, time.Since(start), len(all)-len(sel))
	if msg := treeCheck(before, gitErr); msg != "" {
		fmt.Println(msg)
		if strings.HasPrefix(msg, "verify: FAILED") {
			code = 1
		}
	}
	os.Exit(code)
}

// porcelain is `git status --porcelain` of the checkout.
func porcelain() (string, error) {
	out, err := exec.Command("git", "status", "--porcelain").Output()
	return string(out), err
}

// treeCheck compares the checkout's status at the end with its status at
// the start: make verify must leave every file as it found it.
func treeCheck(before string, gitErr error) string {
	if gitErr != nil {
		return fmt.Sprintf("verify: not a git checkout (%v): the tree was not checked for changes", gitErr)
	}
	after, err := porcelain()
	if err != nil {
		return fmt.Sprintf("verify: FAILED: git status at the end: %v", err)
	}
	return treeChanged(before, after)
}

// treeChanged says how the status lines changed, "" if they did not.
func treeChanged(before, after string) string {
	if before == after {
		n := len(strings.Fields(before))
		if n == 0 {
			return "verify: git status --porcelain is empty at the end, as at the start: no file of the checkout changed"
		}
		return "verify: git status --porcelain is the same at the end as at the start: verify changed no file"
	}
	was := map[string]bool{}
	for _, l := range strings.Split(before, "\n") {
		was[l] = true
	}
	var changed []string
	for _, l := range strings.Split(after, "\n") {
		if l != "" && !was[l] {
			changed = append(changed, strings.TrimSpace(l))
		}
	}
	if len(changed) == 0 {
		changed = append(changed, "(a change that was there at the start is gone)")
	}
	return "verify: FAILED: the run changed the checkout (git status --porcelain, new lines): " + strings.Join(changed, "; ")
}

func stamp() string { return time.Now().UTC().Format("15:04:05") }

func execute(s *step, i, n int, logdir string, prior []*run) *run {
	r := &run{step: s, prior: prior}
	slug := regexp.MustCompile(`[^a-zA-Z0-9]+`).ReplaceAllString(s.name, "_")
	r.log = filepath.Join(logdir, fmt.Sprintf("%02d-%s.log", i, strings.Trim(slug, "_")))
	r.tmp = filepath.Join(logdir, fmt.Sprintf("%02d.tmp", i))
	os.MkdirAll(r.tmp, 0o755)
	if s.note != "" {
		fmt.Printf("[%s]      note: this step %s\n", stamp(), s.note)
	}
	fmt.Printf("[%s] ==> %d/%d %s\n           $ %s\n", stamp(), i, n, s.name, s.cmd)
	t0 := time.Now()
	cmd := exec.Command("bash", "-c", s.cmd)
	cmd.Env = append(os.Environ(), "VERIFY_TMP="+r.tmp)
	for _, e := range s.env {
		cmd.Env = append(cmd.Env, strings.ReplaceAll(e, "${VERIFY_TMP}", r.tmp))
	}
	var buf bytes.Buffer
	f, ferr := os.Create(r.log)
	if ferr == nil {
		cmd.Stdout = io.MultiWriter(&buf, f)
		defer f.Close()
	} else {
		cmd.Stdout = &buf
	}
	cmd.Stderr = cmd.Stdout
	err := cmd.Run()
	r.secs = time.Since(t0)
	r.out = buf.Bytes()
	r.events, r.text = decode(r.out)
	switch {
	case err != nil:
		r.status = "FAIL"
		r.reason = err.Error()
	case skipLine(r.text) != "":
		r.status, r.reason = "SKIPPED", skipLine(r.text)
	case allSkipped(r.events) != "":
		r.status, r.reason = "SKIPPED", allSkipped(r.events)
	default:
		r.status = "PASS"
	}
	if s.count != nil {
		r.detail = s.count(r)
	}
	if m := timedOutRE.FindString(r.text); m != "" && !strings.Contains(strings.Join(r.detail, "\n"), m) {
		r.detail = append(r.detail, "stopped by go test's -timeout (\""+m+"\"): only the tests counted above ran")
	}
	fmt.Printf("[%s] <== %d/%d %s: %s in %s", stamp(), i, n, s.name, r.status, dur(r.secs))
	switch {
	case r.status == "SKIPPED":
		fmt.Printf(": %s", r.reason)
	case len(r.detail) > 0:
		fmt.Printf(" (%s)", r.detail[0])
	}
	fmt.Println()
	if r.status == "FAIL" {
		fmt.Println(indent(lastLines(r.text, 60), "    "))
		fmt.Printf("    full log: %s\n", r.log)
	}
	return r
}

func dur(d time.Duration) string {
	d = d.Round(time.Second)
	if d < time.Minute {
		return fmt.Sprintf("%ds", int(d.Seconds()))
	}
	return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
}

// skipLine is the "SKIP: reason" line a script prints when it cannot run
// (tla/run-tlc without a jar).
func skipLine(text string) string {
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "SKIP:"); ok {
			return strings.TrimSpace(rest)
		}
	}
	return ""
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func indent(s, pre string) string {
	return pre + strings.ReplaceAll(s, "\n", "\n"+pre)
}

// summary prints the table of the steps that ran and the verdict, and
// returns the exit status. leftOut, the steps -only did not select, is
// said in the verdict, so that a partial run never reads as the whole
// verify.
func summary(w io.Writer, runs []*run, total time.Duration, leftOut int) int {
	fmt.Fprintf(w, "\nschedq verify summary (%s in total)\n", dur(total))
	fmt.Fprintf(w, "%-48s %7s  %-7s  %s\n", "suite", "time", "result", "checked")
	failed, skipped := 0, 0
	for _, r := range runs {
		first := ""
		if len(r.detail) > 0 {
			first = r.detail[0]
		}
		fmt.Fprintf(w, "%-48s %7s  %-7s  %s\n", r.step.name, dur(r.secs), r.status, first)
		for _, d := range r.detail[min(1, len(r.detail)):] {
			if strings.HasPrefix(d, "  ") {
				// A table or a list (the mutants, the TLC
				// configurations): wide, so under the suite's name.
				fmt.Fprintf(w, "    %s\n", d)
				continue
			}
			fmt.Fprintf(w, "%-48s %7s  %-7s  %s\n", "", "", "", d)
		}
		switch r.status {
		case "FAIL":
			failed++
			fmt.Fprintf(w, "%67s  log: %s\n", "", r.log)
		case "SKIPPED":
			skipped++
			fmt.Fprintf(w, "%67s  why: %s\n", "", r.reason)
			if r.step.enable != "" {
				fmt.Fprintf(w, "%67s  to run it: %s\n", "", r.step.enable)
			}
		}
	}
	partial := ""
	if leftOut > 0 {
		partial = fmt.Sprintf(" (a partial run: -only left out %d of the %d steps)", leftOut, leftOut+len(runs))
	}
	switch {
	case failed > 0:
		fmt.Fprintf(w, "verify: FAILED: %d of %d suites failed, %d skipped%s\n", failed, len(runs), skipped, partial)
		return 1
	case leftOut > 0:
		fmt.Fprintf(w, "verify: the %d suites that ran passed, %d skipped%s\n", len(runs)-skipped, skipped, partial)
		return 0
	default:
		fmt.Fprintf(w, "verify: all suites passed, %d skipped\n", skipped)
		return 0
	}
}

// upstreamReleases names the releases conformance/upstream is built for,
// as its list says (conformance/upstream/releases.txt).
func upstreamReleases() []string {
	list, err := releases.Load(releases.File)
	if err != nil {
		return []string{"(" + err.Error() + ")"}
	}
	var out []string
	for _, r := range list {
		out = append(out, r.Version)
	}
	return out
}

// layersRuns is the N of the catch rates make verify measures: each random
// layer runs N times per row of the mutant table.
const layersRuns = 5

// realschedSize is the realsched step's size: make test's (20 nodes, 200
// pods per workload), on every release. 50 nodes and 500 pods ran past
// TestRealScheduler's 3-minute bound per run at load 70 on the 2-core
// machine (Preemption on schedq: 7 of 250 bindable pods bound by then);
// the benchmarks (make realsched) run 5,000.
const realschedSize = "-realsched.nodes=20 -realsched.pods=200"

// reportLine says where the conformance step's report went: into the
// verify directory, never over the tracked conformance/RESULTS.md.
func reportLine(r *run) string {
	p := filepath.Join(r.tmp, "RESULTS.md")
	if _, err := os.Stat(p); err != nil {
		return "report: none written (" + p + " is missing)"
	}
	return "report: " + p + " (conformance/RESULTS.md is left as it is: make conformance refreshes it)"
}
