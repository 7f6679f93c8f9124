package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// queuePkg is the package every reproduction belongs to.
const queuePkg = "pkg/scheduler/backend/queue"

// Outcome is what one reproduction did on one source tree.
type Outcome string

const (
	Reproduces Outcome = "reproduces"
	NotShown   Outcome = "does not"
	// NotBuilt: the reproduction does not compile against the release
	// (the API it drives is absent, e.g. pod groups before v1.37).
	NotBuilt Outcome = "n/a"
)

// Tree is one source of pkg/scheduler/backend/queue to run the
// reproductions in: a release from the module cache or a checkout.
type Tree struct {
	// Name is the release ("v1.37.2") or, for a checkout, "branch".
	Name string
	// Source is the directory of the Kubernetes module.
	Source string
	// Release is the release the tree is or is based on: it picks the
	// compat file, the staging versions and the toolchain.
	Release string
	// Work is where the copy lives: a stable path under the user's cache
	// directory, so that Go's build cache stays warm between runs.
	Work string
}

// Result is one tree's outcomes by finding id, and the first compile
// error of each reproduction that did not build.
type Result struct {
	Tree     Tree
	Outcomes map[string]Outcome
	Why      map[string]string
}

// runTree places the reproductions into a copy of tree and runs them: one
// go test for all, then again without any reproduction that did not
// compile (each of those is n/a, with its first error).
func runTree(tree Tree, cat []Entry, repoDir string, log io.Writer) (Result, error) {
	res := Result{Tree: tree, Outcomes: map[string]Outcome{}, Why: map[string]string{}}
	src := filepath.Join(tree.Work, "src")
	if err := buildFarm(tree.Source, src, queuePkg); err != nil {
		return res, err
	}
	modDir := filepath.Join(tree.Work, "mod")
	stubbed, err := writeModfile(tree, modDir)
	if err != nil {
		return res, err
	}
	compat, err := compatFile(repoDir, tree.Release)
	if err != nil {
		return res, err
	}
	extra := []string{compat}
	dropped, err := dropTestsImporting(filepath.Join(src, queuePkg), stubbed)
	if err != nil {
		return res, err
	}
	if dropped {
		fmt.Fprintf(log, "findings: %s: the package's own tests import a module the proxy does not serve (%s); running without them, with testdata/standalone\n", tree.Name, strings.Join(stubbed, ", "))
		extra = append(extra, filepath.Join(repoDir, "testdata", "standalone", "findings_standalone_test.go"))
	}
	active := map[string]Entry{}
	for _, e := range cat {
		active[e.ID] = e
	}
	for attempt := 0; attempt <= len(cat); attempt++ {
		if err := placeFiles(repoDir, filepath.Join(src, queuePkg), extra, active); err != nil {
			return res, err
		}
		out, err := goTest(tree, src, modDir, log)
		broken := compileErrors(out, active)
		if len(broken) > 0 {
			for id, why := range broken {
				res.Outcomes[id], res.Why[id] = NotBuilt, why
				delete(active, id)
			}
			continue
		}
		passed, failed := testOutcomes(out)
		for id, e := range active {
			switch {
			case failed[e.Test]:
				res.Outcomes[id] = Reproduces
			case passed[e.Test]:
				res.Outcomes[id] = NotShown
			default:
				return res, fmt.Errorf("%s: %s did not run (go test: %v)\n%s", tree.Name, e.Test, err, tail(out, 40))
			}
		}
		return res, nil
	}
	return res, errors.New("no reproduction compiled")
}

// buildFarm makes dst a tree of symbolic links to src, except along the
// path to the package pkg, whose directories are real and whose own files
// are copied (the reproductions are added there). The module cache is
// read-only and go test -overlay refuses files beneath it; a copy of a
// whole release is 100-300 MB: the links cost nothing, and the path stays
// the same between runs, which keeps Go's build cache warm. vendor/ and
// go.work are left out: the copy builds in module mode from the module
// cache.
func buildFarm(src, dst, pkg string) error {
	if err := os.RemoveAll(dst); err != nil {
		return err
	}
	parts := strings.Split(pkg, "/")
	var walk func(s, d string, rest []string) error
	walk = func(s, d string, rest []string) error {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
		entries, err := os.ReadDir(s)
		if err != nil {
			return err
		}
		for _, e := range entries {
			name := e.Name()
			if len(rest) == len(parts) && (name == "vendor" || name == "go.work" || name == "go.work.sum" || name == ".git") {
				continue
			}
			sp, dp := filepath.Join(s, name), filepath.Join(d, name)
			switch {
			case len(rest) > 0 && name == rest[0] && len(rest) > 1:
				if err := walk(sp, dp, rest[1:]); err != nil {
					return err
				}
			case len(rest) == 1 && name == rest[0]:
				if err := copyDir(sp, dp); err != nil {
					return err
				}
			default:
				if err := os.Symlink(sp, dp); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return walk(src, dst, parts)
}

// copyDir copies the regular files of src (not its subdirectories) to dst,
// writable.
func copyDir(src, dst string) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// stagingLocal is a replace line of Kubernetes' go.mod that points a
// staging module at its directory in the tree.
var stagingLocal = regexp.MustCompile(`(?m)^(\s*)(k8s\.io/[A-Za-z0-9._-]+) => \./staging/src/k8s\.io/[A-Za-z0-9._-]+\s*$`)

// writeModfile writes the modfile the copy is built with (go test
// -modfile): the tree's go.mod, except that a tree without staging
// directories (a module zip has none) takes each staging module at the
// release's version (v1.37.2 -> v0.37.2). Its go.sum is the tree's; go
// adds the staging modules' sums to the copy, from the module cache.
func writeModfile(tree Tree, modDir string) (stubbed []string, err error) {
	if err := os.MkdirAll(modDir, 0o755); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(tree.Source, "go.mod"))
	if err != nil {
		return nil, err
	}
	mod := string(b)
	if _, err := os.Stat(filepath.Join(tree.Source, "staging", "src", "k8s.io", "api", "go.mod")); err != nil {
		v := "v0." + strings.TrimPrefix(tree.Release, "v1.")
		var stubErr error
		mod = stagingLocal.ReplaceAllStringFunc(mod, func(line string) string {
			m := stagingLocal.FindStringSubmatch(line)
			if haveModule(m[2], v) {
				return m[1] + m[2] + " => " + m[2] + " " + v
			}
			// A staging module the module cache lacks is one the queue's
			// tests do not import (the module proxy may not serve every
			// staging module of every release): an empty module stands in
			// for it, so that go need not fetch it. A package of it that
			// is imported after all fails the build by its name.
			stubbed = append(stubbed, m[2])
			dir := filepath.Join(modDir, "stub", m[2])
			if err := os.MkdirAll(dir, 0o755); err != nil {
				stubErr = err
			} else if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module "+m[2]+"\n"), 0o644); err != nil {
				stubErr = err
			}
			return m[1] + m[2] + " => " + dir
		})
		if stubErr != nil {
			return nil, stubErr
		}
	}
	if subs := substitutes[tree.Release]; len(subs) > 0 {
		mod += "\n// findings: versions the module proxy does not serve\nreplace (\n\t" + strings.Join(subs, "\n\t") + "\n)\n"
	}
	if err := os.WriteFile(filepath.Join(modDir, "go.mod"), []byte(mod), 0o644); err != nil {
		return nil, err
	}
	sum, err := os.ReadFile(filepath.Join(tree.Source, "go.sum"))
	if err != nil {
		return nil, err
	}
	// Keep the sums go added on earlier runs: without them the copy's go
	// test would look them up again.
	if old, err := os.ReadFile(filepath.Join(modDir, "go.sum")); err == nil && bytes.HasPrefix(old, sum) {
		return stubbed, nil
	}
	return stubbed, os.WriteFile(filepath.Join(modDir, "go.sum"), sum, 0o644)
}

// substitutes are replacements a release's build needs because the module
// proxy does not serve a version it requires: v1.38.0-beta.0 asks for
// structured-merge-diff v7.0.1, whose zip the proxy refuses, and builds
// with v7.0.0, as conformance/upstream's v1.38 modfile does.
var substitutes = map[string][]string{
	"v1.38.0-beta.0": {"sigs.k8s.io/structured-merge-diff/v7 => sigs.k8s.io/structured-merge-diff/v7 v7.0.0"},
}

// haveModule reports whether the module cache holds mod at version v.
func haveModule(mod, v string) bool {
	cache := os.Getenv("GOMODCACHE")
	if cache == "" {
		out, err := exec.Command("go", "env", "GOMODCACHE").Output()
		if err != nil {
			return false
		}
		cache = strings.TrimSpace(string(out))
	}
	_, err := os.Stat(filepath.Join(cache, "cache", "download", mod, "@v", v+".mod"))
	return err == nil
}

// compatFile is the compat file of the newest release directory under
// testdata/compat that is not newer than release.
func compatFile(repoDir, release string) (string, error) {
	dirs, err := filepath.Glob(filepath.Join(repoDir, "testdata", "compat", "v1.*"))
	if err != nil {
		return "", err
	}
	best, bestMinor := "", -1
	m := minor(release)
	for _, d := range dirs {
		if n := minor(filepath.Base(d)); n <= m && n > bestMinor {
			best, bestMinor = d, n
		}
	}
	if best == "" {
		return "", fmt.Errorf("no compat file for %s under testdata/compat", release)
	}
	return filepath.Join(best, "findings_compat_test.go"), nil
}

// minor is 37 for "v1.37.2".
func minor(v string) int {
	var n int
	fmt.Sscanf(strings.TrimPrefix(v, "v1."), "%d", &n)
	return n
}

// placeFiles puts the helpers, the compat file and the active
// reproductions into the copy's package directory, and nothing else of
// ours: the files of an earlier run are removed first.
func placeFiles(repoDir, pkgDir string, extra []string, active map[string]Entry) error {
	old, _ := filepath.Glob(filepath.Join(pkgDir, "finding*_test.go"))
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			return err
		}
	}
	files := append([]string{filepath.Join(repoDir, "testdata", "queue", "findings_helpers_test.go")}, extra...)
	for _, e := range active {
		files = append(files, filepath.Join(repoDir, e.File))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(pkgDir, filepath.Base(f)), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// dropTestsImporting removes the package's own test files if any of them
// imports a package of the modules stubbed (which cannot build), and says
// whether it did.
func dropTestsImporting(pkgDir string, stubbed []string) (bool, error) {
	tests, err := filepath.Glob(filepath.Join(pkgDir, "*_test.go"))
	if err != nil || len(stubbed) == 0 {
		return false, err
	}
	needs := false
	for _, f := range tests {
		b, err := os.ReadFile(f)
		if err != nil {
			return false, err
		}
		for _, m := range stubbed {
			if bytes.Contains(b, []byte(`"`+m+`"`)) || bytes.Contains(b, []byte(`"`+m+`/`)) {
				needs = true
			}
		}
	}
	if !needs {
		return false, nil
	}
	for _, f := range tests {
		if err := os.Remove(f); err != nil {
			return false, err
		}
	}
	return true, nil
}

// toolchain is the Go toolchain a release builds with: its go.mod asks
// for Go 1.27 from v1.38 on, which is fetched as go1.27.3 for that
// release's build only; the older ones build with the local Go.
func toolchain(release string) string {
	if minor(release) >= 38 {
		return "go1.27.3"
	}
	return "local"
}

// goTest runs the reproductions in the copy and returns go test -json's
// output.
func goTest(tree Tree, src, modDir string, log io.Writer) ([]byte, error) {
	args := []string{"test", "-modfile=" + filepath.Join(modDir, "go.mod"), "-count=1", "-timeout=10m", "-json", "-run", "^TestFinding_", "./" + queuePkg + "/"}
	cmd := exec.Command("go", args...)
	cmd.Dir = src
	// GOFLAGS=-mod=mod: the copy's go.sum may lack the staging modules'
	// sums, which go then adds to the copy (never to a tree of the
	// user's); GONOSUMDB: they come from the module cache, where the
	// release's own download verified them.
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "GONOSUMDB=k8s.io", "GOTOOLCHAIN="+toolchain(tree.Release))
	fmt.Fprintf(log, "findings: %s: (cd %s && GOTOOLCHAIN=%s go %s)\n", tree.Name, src, toolchain(tree.Release), strings.Join(args, " "))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.Bytes(), err
}

// compileErrors maps each reproduction whose file has a compile error to
// the first one. Only a build that failed counts: a failing test's
// message also names its file and line, but not a column.
func compileErrors(out []byte, active map[string]Entry) map[string]string {
	broken := map[string]string{}
	if !bytes.Contains(out, []byte("build failed")) && !bytes.Contains(out, []byte("setup failed")) {
		return broken
	}
	for _, line := range outputLines(out) {
		for id, e := range active {
			at := regexp.MustCompile(regexp.QuoteMeta(filepath.Base(e.File)) + `:\d+:\d+: `)
			if loc := at.FindStringIndex(line); loc != nil && broken[id] == "" {
				broken[id] = strings.TrimSpace(line[loc[0]:])
			}
		}
	}
	return broken
}

// outputLines are the lines of go test -json's output: the Output of its
// events, and any line that is not an event (the compiler's).
func outputLines(out []byte) []string {
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var ev struct{ Output string }
		if err := json.Unmarshal(sc.Bytes(), &ev); err == nil {
			lines = append(lines, strings.Split(strings.TrimRight(ev.Output, "\n"), "\n")...)
		} else {
			lines = append(lines, sc.Text())
		}
	}
	return lines
}

// testOutcomes reads which top-level tests passed and failed.
func testOutcomes(out []byte) (passed, failed map[string]bool) {
	passed, failed = map[string]bool{}, map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var ev struct{ Action, Test string }
		if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.Test == "" || strings.Contains(ev.Test, "/") {
			continue
		}
		switch ev.Action {
		case "pass":
			passed[ev.Test] = true
		case "fail":
			failed[ev.Test] = true
		}
	}
	return passed, failed
}

func tail(out []byte, n int) string {
	lines := outputLines(out)
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// sortedIDs are the ids of cat in order.
func sortedIDs(cat []Entry) []string {
	var ids []string
	for _, e := range cat {
		ids = append(ids, e.ID)
	}
	sort.Strings(ids)
	return ids
}
