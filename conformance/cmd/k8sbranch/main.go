// Command k8sbranch runs the conformance targets of conformance/upstream
// against a local Kubernetes checkout (a contributor's branch) and reports
// what differs from the release the branch is based on. It is what
// `make conformance KUBERNETES=../kubernetes` runs.
//
//	k8sbranch -kubernetes ../kubernetes [-base v1.35.6] [-results DIR]
//
// It never edits the tree: it copies the base release's modfile (the one
// conformance/upstream/releases.txt names: go.v1NN.mod, or go.mod) and its
// go.sum to a temporary directory, replaces k8s.io/kubernetes and every
// staging module (k8s.io/api, k8s.io/client-go, ...) with the checkout's
// directories there, and runs the upstream module's tests with
// -modfile=<that copy>, the base release's build tag and its Go toolchain
// (GOTOOLCHAIN, from the same list), so the adapter code is the base
// release's. The targets keep the base release's names
// (SCHEDQ_K8S_BASE tells the adapter), so the known differences declared
// for the base release apply, and any other outcome is the branch's doing.
// The base release's results come from -results (written there by `make
// conformance`) or, if absent, from a run of the base release. The
// temporary directory is removed at the end, and the command checks that
// git status is what it was.
//
// The base release is -base, or what `git describe --tags` says in the
// checkout (its last release tag).
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/schedq/schedq/conformance"
	"github.com/schedq/schedq/conformance/concurrent"
	"github.com/schedq/schedq/internal/releases"
)

// runGoTest runs go test in dir with args and env; a test replaces it, so
// that the command's own logic is checked without building Kubernetes.
var runGoTest = func(dir string, env []string, args ...string) error {
	cmd := exec.Command("go", append([]string{"test"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	fmt.Fprintf(os.Stderr, "k8sbranch: (cd %s && %s go test %s)\n", dir, strings.Join(env, " "), strings.Join(args, " "))
	return cmd.Run()
}

func main() {
	k8s := flag.String("kubernetes", "", "the Kubernetes checkout (required)")
	base := flag.String("base", "", "the release the checkout is based on, e.g. v1.35.6 (default: git describe --tags in the checkout)")
	results := flag.String("results", ".conformance-results", "where make conformance wrote the releases' results; the branch's go under branch/ of it")
	upstream := flag.String("upstream", "conformance/upstream", "the upstream module")
	run := flag.String("run", "", "go test -run for both runs (default: everything)")
	flag.Parse()
	out, err := Main(Config{Kubernetes: *k8s, Base: *base, Results: *results, Upstream: *upstream, Run: *run})
	if out != "" {
		fmt.Println(out)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "k8sbranch:", err)
		os.Exit(1)
	}
}

// Config is one run of the command.
type Config struct {
	Kubernetes, Base, Results, Upstream, Run string
}

// Main runs the branch and compares it with its base; it returns the report
// (also written to <results>/branch/REPORT.md).
func Main(c Config) (string, error) {
	k8s, rel, modfile, err := c.target()
	if err != nil {
		return "", err
	}
	statusBefore := gitStatus()
	tmp, err := os.MkdirTemp("", "k8sbranch-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	branchDir, branchErr, err := c.runBranch(k8s, rel, modfile, tmp)
	if err != nil {
		return "", err
	}
	baseDir, err := c.baseResults(rel, modfile, tmp)
	if err != nil {
		return "", err
	}
	report, differs, err := Compare(baseDir, branchDir, c.Base, k8s)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(branchDir, "REPORT.md"), []byte(report), 0o644); err != nil {
		return report, err
	}
	if after := gitStatus(); after != statusBefore {
		return report, fmt.Errorf("the tree changed during the run (git status before:\n%s\nafter:\n%s)", statusBefore, after)
	}
	if differs {
		return report, fmt.Errorf("the branch differs from %s (report: %s)", c.Base, filepath.Join(branchDir, "REPORT.md"))
	}
	if branchErr != nil {
		return report, fmt.Errorf("the branch's run failed: %v", branchErr)
	}
	return report, nil
}

// target checks the checkout and finds the upstream target of the release
// it is based on (c.Base, else what git describe says, which c.Base then
// records): the checkout's absolute path, the release and its modfile.
func (c *Config) target() (k8s string, rel releases.Release, modfile string, err error) {
	if c.Kubernetes == "" {
		return "", rel, "", errors.New("-kubernetes is required: the directory of a Kubernetes checkout")
	}
	if k8s, err = filepath.Abs(c.Kubernetes); err != nil {
		return "", rel, "", err
	}
	if _, err := os.Stat(filepath.Join(k8s, "pkg", "scheduler", "backend", "queue")); err != nil {
		return "", rel, "", fmt.Errorf("%s is not a Kubernetes checkout with pkg/scheduler/backend/queue: %v", k8s, err)
	}
	if c.Base == "" {
		if c.Base, err = describe(k8s); err != nil {
			return "", rel, "", fmt.Errorf("cannot tell the release the checkout is based on (%v); give -base (KUBERNETES_BASE=v1.35.6)", err)
		}
	}
	minor, err := minorOf(c.Base)
	if err != nil {
		return "", rel, "", err
	}
	list, err := releases.Load(filepath.Join(c.Upstream, "releases.txt"))
	if err != nil {
		return "", rel, "", err
	}
	rel, ok := releases.Find(list, minor)
	if !ok {
		return "", rel, "", fmt.Errorf("no target for %s: release %s is not in %s", c.Base, minor, releases.File)
	}
	modfile = filepath.Join(c.Upstream, rel.Modfile)
	if _, err := os.Stat(modfile); err != nil {
		return "", rel, "", fmt.Errorf("no target for %s: %v", c.Base, err)
	}
	return k8s, rel, modfile, nil
}

// testArgs are the go test arguments of a run with the modfile mod ("":
// the module's go.mod) and the release's build tags.
func (c *Config) testArgs(mod, tags string) []string {
	args := []string{"-count=1", "-timeout", "30m"}
	if mod != "" {
		args = append(args, "-modfile="+mod)
	}
	if tags != "" {
		args = append(args, "-tags", tags)
	}
	if c.Run != "" {
		args = append(args, "-run", c.Run)
	}
	return append(args, ".")
}

// runBranch runs the release's target on the checkout, through a copy of
// the release's modfile that replaces Kubernetes with it, into a fresh
// <results>/branch. runErr is the run's own failure, which the report
// still explains; err stops the command.
func (c *Config) runBranch(k8s string, rel releases.Release, modfile, tmp string) (branchDir string, runErr, err error) {
	branchMod := filepath.Join(tmp, "go.branch.mod")
	if err := BranchModfile(modfile, branchMod, k8s); err != nil {
		return "", nil, err
	}
	branchDir = filepath.Join(c.Results, "branch")
	if err := os.RemoveAll(branchDir); err != nil {
		return "", nil, err
	}
	if err := os.MkdirAll(branchDir, 0o755); err != nil {
		return "", nil, err
	}
	absBranch, _ := filepath.Abs(branchDir)
	// -mod=mod: the checkout may require other versions than the release
	// did; go may then add to the copy's go.sum, never to the tree's.
	runErr = runGoTest(c.Upstream, append(rel.Env(), "SCHEDQ_CONFORMANCE_RESULTS="+absBranch, "SCHEDQ_K8S_BASE="+c.Base),
		append([]string{"-mod=mod"}, c.testArgs(branchMod, rel.Tag)...)...)
	return branchDir, runErr, nil
}

// baseResults is the directory of the base release's results: those make
// conformance wrote, else a run of the release's target now, into tmp (a
// failure of that run is told, and its results compared all the same).
func (c *Config) baseResults(rel releases.Release, modfile, tmp string) (string, error) {
	if haveResults(c.Results, c.Base) {
		return c.Results, nil
	}
	baseDir := filepath.Join(tmp, "base")
	abs, _ := filepath.Abs(baseDir)
	if err := os.MkdirAll(baseDir, 0o755); err != nil {
		return "", err
	}
	mod := ""
	if filepath.Base(modfile) != "go.mod" {
		mod = filepath.Base(modfile)
	}
	if err := runGoTest(c.Upstream, append(rel.Env(), "SCHEDQ_CONFORMANCE_RESULTS="+abs), c.testArgs(mod, rel.Tag)...); err != nil {
		fmt.Fprintf(os.Stderr, "k8sbranch: the base release %s failed too: %v\n", c.Base, err)
	}
	return baseDir, nil
}

var release = regexp.MustCompile(`^v1\.(\d+)\.\d+`)

func minorOf(v string) (string, error) {
	m := release.FindStringSubmatch(v)
	if m == nil {
		return "", fmt.Errorf("%q is not a release version like v1.35.6", v)
	}
	return "1" + m[1], nil
}

func describe(k8s string) (string, error) {
	out, err := exec.Command("git", "-C", k8s, "describe", "--tags", "--abbrev=0").Output()
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

func gitStatus() string {
	out, err := exec.Command("git", "status", "--porcelain").Output()
	if err != nil {
		return "(no git status: " + err.Error() + ")"
	}
	return string(out)
}

// stagingReplace is a replace line of a release modfile that pins a staging
// module to its release version.
var stagingReplace = regexp.MustCompile(`^(\s*)(k8s\.io/[A-Za-z0-9._/-]+) => k8s\.io/[A-Za-z0-9._/-]+ v\S+\s*$`)

// BranchModfile writes a copy of modfile (and its go.sum) to dst, with
// k8s.io/kubernetes and every staging module replaced by the checkout's
// directories. Staging modules the release pinned that the checkout does
// not have keep their pin.
func BranchModfile(modfile, dst, k8s string) error {
	b, err := os.ReadFile(modfile)
	if err != nil {
		return err
	}
	lines := strings.Split(string(b), "\n")
	seen := map[string]bool{}
	for i, l := range lines {
		m := stagingReplace.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		dir := filepath.Join(k8s, "staging", "src", m[2])
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
			continue
		}
		lines[i] = m[1] + m[2] + " => " + dir
		seen[m[2]] = true
	}
	// Staging modules the release did not pin (new ones on the branch).
	staging, _ := filepath.Glob(filepath.Join(k8s, "staging", "src", "k8s.io", "*", "go.mod"))
	var extra []string
	for _, g := range staging {
		mod := "k8s.io/" + filepath.Base(filepath.Dir(g))
		if !seen[mod] && strings.Contains(string(b), mod+" ") {
			extra = append(extra, "\t"+mod+" => "+filepath.Dir(g))
		}
	}
	sort.Strings(extra)
	out := strings.Join(lines, "\n") + "\n// k8sbranch: the local checkout\nreplace (\n\tk8s.io/kubernetes => " + k8s + "\n"
	for _, e := range extra {
		out += e + "\n"
	}
	out += ")\n"
	// Relative replacements (the schedq module) are relative to the module
	// root, not to the copy: make them absolute.
	root, _ := filepath.Abs(filepath.Dir(modfile))
	out = regexp.MustCompile(`=> (\.\.?/\S*)`).ReplaceAllStringFunc(out, func(s string) string {
		return "=> " + filepath.Join(root, strings.TrimPrefix(s, "=> "))
	})
	if err := os.WriteFile(dst, []byte(out), 0o644); err != nil {
		return err
	}
	sum, err := os.ReadFile(strings.TrimSuffix(modfile, ".mod") + ".sum")
	if err != nil {
		return err
	}
	return os.WriteFile(strings.TrimSuffix(dst, ".mod")+".sum", sum, 0o644)
}

func haveResults(dir, base string) bool {
	files, _ := filepath.Glob(filepath.Join(dir, "upstream-"+base+"*.json"))
	return len(files) > 0
}

// readReports reads the results of the targets named after base in dir.
func readReports(dir, base string) (map[string]conformance.Report, map[string]concurrent.Report, error) {
	rs := map[string]conformance.Report{}
	cs := map[string]concurrent.Report{}
	files, _ := filepath.Glob(filepath.Join(dir, "upstream-"+base+"*.json"))
	for _, f := range files {
		var r conformance.Report
		if err := readJSON(f, &r); err != nil {
			return nil, nil, err
		}
		rs[r.Target.Name] = r
	}
	files, _ = filepath.Glob(filepath.Join(dir, concurrent.ReportDir, "upstream-"+base+"*.json"))
	for _, f := range files {
		var r concurrent.Report
		if err := readJSON(f, &r); err != nil {
			return nil, nil, err
		}
		cs[r.Target.Name] = r
	}
	return rs, cs, nil
}

func readJSON(f string, v any) error {
	b, err := os.ReadFile(f)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %v", f, err)
	}
	return nil
}

// Compare reports every scenario whose outcome differs between the base
// release's results and the branch's, with how it showed on the branch,
// and every concurrency result that differs. differs is true if anything
// does.
func Compare(baseDir, branchDir, base, k8s string) (report string, differs bool, err error) {
	baseR, baseC, err := readReports(baseDir, base)
	if err != nil {
		return "", false, err
	}
	brR, brC, err := readReports(branchDir, base)
	if err != nil {
		return "", false, err
	}
	if len(brR) == 0 {
		return "", false, fmt.Errorf("the branch's run wrote no results in %s (did it build?)", branchDir)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Conformance of a Kubernetes branch\n\nBranch: %s, based on %s. Each target keeps the base release's name, so its\n", k8s, base)
	b.WriteString("declared known differences apply; listed below is every result that differs from the base release's.\n\n")
	for _, n := range slices.Sorted(maps.Keys(brR)) {
		br := brR[n]
		bs, ok := baseR[n]
		if !ok {
			fmt.Fprintf(&b, "## %s\n\nno results of the base release for this target\n\n", n)
			differs = true
			continue
		}
		lines := scenarioDiffs(bs, br, base)
		fmt.Fprintf(&b, "## %s\n\n", n)
		if len(lines) == 0 {
			fmt.Fprintf(&b, "Every scenario as on %s (%s).\n\n", base, br.Summary)
			continue
		}
		differs = true
		fmt.Fprintf(&b, "%d scenario(s) differ:\n\n%s\n\n", len(lines), strings.Join(lines, "\n"))
	}
	for _, n := range slices.Sorted(maps.Keys(brC)) {
		if lines := concurrentDiffs(baseC[n], brC[n], base); len(lines) > 0 {
			differs = true
			fmt.Fprintf(&b, "## %s (concurrent)\n\n%s\n\n", n, strings.Join(lines, "\n"))
		}
	}
	if !differs {
		b.WriteString("No difference from the base release.\n")
	}
	return b.String(), differs, nil
}

// scenarioDiffs is a list item for each scenario whose outcome on the
// branch (br) differs from the base release's (bs): both outcomes, the
// first differing observation and the detail.
func scenarioDiffs(bs, br conformance.Report, base string) []string {
	was := map[string]conformance.Result{}
	for _, r := range bs.Results {
		was[r.Scenario] = r
	}
	var lines []string
	for _, r := range br.Results {
		w, ok := was[r.Scenario]
		if ok && w.Outcome == r.Outcome {
			continue
		}
		prev := "not run"
		if ok {
			prev = string(w.Outcome)
		}
		if ok && w.Kind != "" {
			prev += " (" + string(w.Kind) + idText(w.Finding) + ")"
		}
		outcome, detail := string(r.Outcome), r.Detail
		if r.Outcome == conformance.Known && (!ok || w.Outcome == conformance.Pass) {
			// A failure the branch causes matches a difference declared
			// for the base release's target, but the base behaves as the
			// reference: the declaration's reason is not this failure's.
			// It is the branch's failure.
			outcome = string(conformance.Fail)
			detail = "the branch causes this difference; it matches the known difference declared for the target (" + r.Detail + "), which does not show on " + base
		}
		l := fmt.Sprintf("- `%s`: %s on %s, **%s** on the branch", r.Scenario, prev, base, outcome)
		if ok && w.Kind == conformance.KindBug && w.Outcome == conformance.Known && r.Outcome == conformance.Stale {
			l += ": the branch fixes this bug"
		}
		if obs := firstObservation(r.Observed); obs != "" {
			l += "\n\n  first differing observation (model = schedq's reference, target = the branch):" + codeBlock(obs)
		}
		if detail != "" {
			l += codeBlock(strings.TrimSpace(detail))
		}
		lines = append(lines, l)
	}
	return lines
}

// concurrentDiffs is a list item for each concurrency result of a target
// that the branch (br) changes from the base release's (bs): the number
// of conservation violations, a wake-up check's outcome, and histories
// newly not linearizable.
func concurrentDiffs(bs, br concurrent.Report, base string) []string {
	var lines []string
	if len(br.Conservation.Violations) != len(bs.Conservation.Violations) {
		lines = append(lines, fmt.Sprintf("- conservation violations: %d on %s, %d on the branch", len(bs.Conservation.Violations), base, len(br.Conservation.Violations)))
	}
	wake := map[string]conformance.Outcome{}
	for _, w := range bs.Wakeups {
		wake[w.Check] = w.Outcome
	}
	for _, w := range br.Wakeups {
		if wake[w.Check] != w.Outcome {
			lines = append(lines, fmt.Sprintf("- wake-up %s: %s on %s, %s on the branch", w.Check, wake[w.Check], base, w.Outcome))
		}
	}
	if bl, brl := bs.Linearizability, br.Linearizability; brl != nil && brl.Failures > 0 && (bl == nil || bl.Failures == 0) {
		l := fmt.Sprintf("- linearizability: %d of %d histories not linearizable on the branch, none on %s", brl.Failures, brl.Histories, base)
		if brl.Detail != "" {
			l += codeBlock(strings.TrimSpace(brl.Detail))
		}
		lines = append(lines, l)
	}
	return lines
}

// codeBlock is text as a code block indented under a list item.
func codeBlock(text string) string {
	return "\n\n  ```\n  " + strings.ReplaceAll(text, "\n", "\n  ") + "\n  ```\n"
}

// firstObservation is the decisive part of a failure as the suite recorded
// it (conformance.Result.Observed): the step and its operation, then the
// first lines that set the model's observation against the target's.
func firstObservation(observed string) string {
	lines := strings.Split(strings.TrimSpace(observed), "\n")
	if len(lines) == 0 || lines[0] == "" {
		return ""
	}
	for i, l := range lines[1:] {
		if !strings.Contains(l, "model:") {
			continue
		}
		out := lines[0] + "\n" + strings.TrimSpace(l)
		// The suite sets the target's line under the model's.
		if i+2 < len(lines) && strings.Contains(lines[i+2], "target:") && !strings.Contains(l, "target:") {
			out += "\n" + strings.TrimSpace(lines[i+2])
		}
		return out
	}
	if len(lines) > 1 {
		return lines[0] + "\n" + strings.TrimSpace(lines[1])
	}
	return lines[0]
}

// idText is " F01" for a difference the findings catalogue names.
func idText(id string) string {
	if id == "" {
		return ""
	}
	return " " + id
}
