package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const catalogueDir = "../.."

// The catalogue reads, its index is the one Index writes (run
// go run ./findings/cmd/findings -index after editing an entry), and each
// entry's reproduction defines the test it names.
func TestCatalogueAndIndex(t *testing.T) {
	cat, err := ReadCatalogue(catalogueDir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(catalogueDir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != Index(cat) {
		t.Error("findings/README.md is not the index of the entries: run go run ./findings/cmd/findings -index")
	}
	for _, e := range cat {
		src, err := os.ReadFile(filepath.Join(catalogueDir, e.File))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(src), "func "+e.Test+"(t *testing.T)") {
			t.Errorf("%s: %s does not define %s", e.ID, e.File, e.Test)
		}
	}
}

// Every bug the conformance suite declares names an entry of the
// catalogue, and every entry is declared by some difference or finding:
// the two lists are one.
func TestDeclaredBugsAreCatalogued(t *testing.T) {
	cat, err := ReadCatalogue(catalogueDir)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, e := range cat {
		ids[e.ID] = false
	}
	root := "../../../conformance"
	ref := regexp.MustCompile(`finding=(F\d\d)|ID:\s+"(F\d\d)"|"[a-z-]+": "(F\d\d)"`)
	err = filepath.Walk(root, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() || !(strings.HasSuffix(path, ".txt") || strings.HasSuffix(path, ".go")) {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range ref.FindAllStringSubmatch(string(b), -1) {
			id := m[1] + m[2] + m[3]
			if _, ok := ids[id]; !ok {
				t.Errorf("%s declares finding %s, which the catalogue lacks", path, id)
			}
			ids[id] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for id, seen := range ids {
		if !seen {
			t.Errorf("entry %s is declared by no known difference or concurrency finding", id)
		}
	}
}

// The table marks a listed release where a reproduction did not fail
// ("fixed in ..., or the reproduction broke") and an unlisted one where it
// did, and counts both; cells that agree are not marked.
func TestTableMarksDisagreements(t *testing.T) {
	cat := []Entry{{ID: "F01", Title: "lost", Reproduces: []string{"v1.33.13", "v1.37.2"}}}
	res := func(release string, o Outcome) Result {
		return Result{Tree: Tree{Name: release, Release: release}, Outcomes: map[string]Outcome{"F01": o}, Why: map[string]string{}}
	}
	out, n := Table(cat, []Result{res("v1.33.13", Reproduces), res("v1.37.2", Reproduces)})
	if n != 0 || strings.Contains(out, "**") {
		t.Errorf("agreeing cells marked (%d):\n%s", n, out)
	}
	out, n = Table(cat, []Result{res("v1.33.13", Reproduces), res("v1.37.2", NotShown), res("v1.38.0-beta.0", Reproduces)})
	for _, want := range []string{"F01 does not reproduce on v1.37.2 (does not): fixed in v1.37.2, or the reproduction broke",
		"F01 reproduces on v1.38.0-beta.0, which its entry does not list"} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %q:\n%s", want, out)
		}
	}
	if n != 2 {
		t.Errorf("%d disagreements counted, want 2", n)
	}
}

// An entry without a section, with an unknown severity or a release the
// table does not run is refused.
func TestEntryChecks(t *testing.T) {
	good := "---\nid: F09\ntitle: t\nseverity: metrics\nreproduces: v1.37.2\ntest: TestX\nfile: f.go\nscheduler: s\nupstream: not reported\n---\n" +
		"\n## What happens\n\n## Mechanism\n\n## In a running scheduler\n\n## Fix\n\n## Report\n"
	if _, err := parseEntry("F09-x.md", good); err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string]string{
		"severity": strings.Replace(good, "severity: metrics", "severity: minor", 1),
		"release":  strings.Replace(good, "reproduces: v1.37.2", "reproduces: v1.99.0", 1),
		"section":  strings.Replace(good, "## Fix\n", "", 1),
		"id":       strings.Replace(good, "id: F09", "id: F10", 1),
	} {
		if _, err := parseEntry("F09-x.md", bad); err == nil {
			t.Errorf("an entry with a bad %s was accepted", name)
		}
	}
}

// The copy links everything but the path to the package, whose own files
// are copied; vendor/ and go.work are left out; a second build replaces
// the first.
func TestBuildFarm(t *testing.T) {
	src, dst := t.TempDir(), filepath.Join(t.TempDir(), "src")
	for _, f := range []string{"go.mod", "go.work", "vendor/modules.txt", "cmd/x.go", "pkg/api/a.go", "pkg/scheduler/s.go", "pkg/scheduler/backend/queue/q.go", "pkg/scheduler/backend/queue/sub/z.go"} {
		p := filepath.Join(src, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f), 0o444); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		if err := buildFarm(src, dst, queuePkg); err != nil {
			t.Fatal(err)
		}
	}
	isLink := func(p string) bool {
		fi, err := os.Lstat(filepath.Join(dst, p))
		return err == nil && fi.Mode()&os.ModeSymlink != 0
	}
	for _, p := range []string{"go.mod", "cmd", "pkg/api", "pkg/scheduler/s.go"} {
		if !isLink(p) {
			t.Errorf("%s is not a link to the source", p)
		}
	}
	for _, p := range []string{"pkg", "pkg/scheduler", "pkg/scheduler/backend", "pkg/scheduler/backend/queue/q.go"} {
		if isLink(p) {
			t.Errorf("%s is a link: the package's path must be real", p)
		}
	}
	if fi, err := os.Stat(filepath.Join(dst, "pkg/scheduler/backend/queue/q.go")); err != nil || fi.Mode().Perm()&0o200 == 0 {
		t.Errorf("the package's files are not writable copies: %v", err)
	}
	for _, p := range []string{"vendor", "go.work"} {
		if _, err := os.Lstat(filepath.Join(dst, p)); err == nil {
			t.Errorf("%s is in the copy", p)
		}
	}
}

// A tree without staging directories (a module zip) takes each staging
// module at the release's version, or an empty stand-in where the module
// cache lacks it; a checkout keeps its own.
func TestWriteModfile(t *testing.T) {
	src := t.TempDir()
	mod := "module k8s.io/kubernetes\n\nreplace (\n\tk8s.io/api => ./staging/src/k8s.io/api\n\tk8s.io/client-go => ./staging/src/k8s.io/client-go\n)\n"
	for f, text := range map[string]string{"go.mod": mod, "go.sum": "sum\n"} {
		if err := os.WriteFile(filepath.Join(src, f), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The module cache has k8s.io/api at the release's version, not
	// k8s.io/client-go: that one is an empty stand-in.
	cache := t.TempDir()
	t.Setenv("GOMODCACHE", cache)
	if err := os.MkdirAll(filepath.Join(cache, "cache/download/k8s.io/api/@v"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cache, "cache/download/k8s.io/api/@v/v0.38.0-beta.0.mod"), []byte("module k8s.io/api\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	stubbed, err := writeModfile(Tree{Source: src, Release: "v1.38.0-beta.0"}, out)
	if err != nil || !slices.Equal(stubbed, []string{"k8s.io/client-go"}) {
		t.Fatalf("stubbed %v, %v; want k8s.io/client-go", stubbed, err)
	}
	b, _ := os.ReadFile(filepath.Join(out, "go.mod"))
	stub := filepath.Join(out, "stub", "k8s.io/client-go")
	for _, want := range []string{"k8s.io/api => k8s.io/api v0.38.0-beta.0", "k8s.io/client-go => " + stub} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the modfile lacks %q:\n%s", want, b)
		}
	}
	if m, err := os.ReadFile(filepath.Join(stub, "go.mod")); err != nil || string(m) != "module k8s.io/client-go\n" {
		t.Errorf("the stand-in's go.mod: %q, %v", m, err)
	}
	if err := os.MkdirAll(filepath.Join(src, "staging/src/k8s.io/api"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "staging/src/k8s.io/api/go.mod"), []byte("module k8s.io/api\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := writeModfile(Tree{Source: src, Release: "v1.37.2"}, out); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "go.mod")); string(b) != mod {
		t.Errorf("a checkout's modfile was changed:\n%s", b)
	}
	if got := toolchain("v1.38.0-beta.0") + " " + toolchain("v1.37.2"); got != "go1.27.3 local" {
		t.Errorf("toolchains %q, want go1.27.3 for v1.38 only", got)
	}
}

// Only a failed build makes a reproduction n/a; a failing test's message,
// which names its file and line too, does not.
func TestCompileErrors(t *testing.T) {
	active := map[string]Entry{"F04": {ID: "F04", File: "testdata/queue/finding_f04_x_test.go"}}
	failing := []byte(`{"Action":"output","Test":"TestFinding_F04","Output":"    finding_f04_x_test.go:12: member a is stranded\n"}` + "\n")
	if got := compileErrors(failing, active); len(got) != 0 {
		t.Errorf("a failing test counted as a compile error: %v", got)
	}
	broken := []byte("# k8s.io/kubernetes/pkg/scheduler/backend/queue\npkg/scheduler/backend/queue/finding_f04_x_test.go:13:2: undefined: findingsAddPodGroup\nFAIL\tk8s.io/kubernetes/pkg/scheduler/backend/queue [build failed]\n")
	if got := compileErrors(broken, active); !strings.Contains(got["F04"], "undefined: findingsAddPodGroup") {
		t.Errorf("compile error not found: %v", got)
	}
	if !slices.Equal(sortedIDs([]Entry{{ID: "F02"}, {ID: "F01"}}), []string{"F01", "F02"}) {
		t.Error("sortedIDs")
	}
}
