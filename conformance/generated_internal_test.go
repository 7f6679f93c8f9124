package conformance

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/schedq/schedq/spec"
)

// generatedFixture is a directory of "generated" scenarios for the tests of
// the generated run: the catalogue's classic scenarios about Done and Pop,
// one graph directory.
func generatedFixture(t *testing.T) string {
	dir := t.TempDir()
	cat, err := catalogue("")
	if err != nil {
		t.Fatal(err)
	}
	g := filepath.Join(dir, "Fixture")
	if err := os.MkdirAll(g, 0o755); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range cat {
		if strings.HasPrefix(f.Name, "done/") || strings.HasPrefix(f.Name, "pop/") || strings.HasPrefix(f.Name, "failure/") {
			name := strings.ReplaceAll(f.Name, "/", "-") + ".txt"
			if err := os.WriteFile(filepath.Join(g, name), []byte(f.Text), 0o644); err != nil {
				t.Fatal(err)
			}
			n++
		}
	}
	if n < 5 {
		t.Fatalf("fixture: only %d scenarios", n)
	}
	return dir
}

func generatedGroups(t *testing.T, newTarget NewTarget, dir string, own map[string]KnownDifference) GeneratedResult {
	t.Helper()
	files, err := ReadScenarioDir(filepath.Join(dir, "Fixture"))
	if err != nil {
		t.Fatal(err)
	}
	known := knownSignatures(t, newTarget, own, nil)
	return runGeneratedFiles(t, newTarget, files, known, GeneratedResult{Graph: "Fixture"}, nil)
}

// The generated run passes the model, and fails a target that breaks R12
// with a shrunk scenario that still fails; declared for a scenario of the
// catalogue that shows it, the same failures are grouped under that
// declaration.
func TestGeneratedRunGroupsFailures(t *testing.T) {
	dir := generatedFixture(t)
	newModel := func(t testing.TB, cfg spec.Config, start time.Time) Target { return newModelT(t, cfg, start) }
	if res := generatedGroups(t, newModel, dir, nil); res.Unexplained() != 0 || res.Pass == 0 {
		t.Fatalf("the model: %s", res)
	}
	res := generatedGroups(t, newBrokenDone, dir, nil)
	if res.Unexplained() == 0 {
		t.Fatalf("broken Done passed the generated run: %s", res)
	}
	for _, g := range res.Groups {
		if !strings.Contains(g.Scenario, "done ") {
			t.Errorf("the shrunk scenario of %s lost its Done:\n%s", g.Signature, g.Scenario)
		}
		shrunk := ScenarioFile{Name: "shrunk", Text: g.Scenario}
		if r := playQuietly(t, newBrokenDone, shrunk); signature(r.failure) != g.Signature {
			t.Errorf("the shrunk scenario fails as %q, want %q:\n%s", signature(r.failure), g.Signature, g.Scenario)
		}
		if r := playQuietly(t, newModel, shrunk); r.failure != "" || r.invalid != "" {
			t.Errorf("the shrunk scenario does not pass the model: %s%s", r.failure, r.invalid)
		}
	}
	t.Logf("broken Done: %s", res)
	declared := map[string]KnownDifference{"done/ends-the-time-in-flight": {Reason: "Done is broken on purpose", Kind: KindDeparture}}
	res = generatedGroups(t, newBrokenDone, dir, declared)
	known := 0
	for _, g := range res.Groups {
		if g.Known == "done/ends-the-time-in-flight" {
			known += g.Count
		}
	}
	if known == 0 {
		t.Errorf("no failure grouped under the declared difference: %s", res)
	}
	t.Logf("broken Done, declared: %s", res)
}

func TestSignature(t *testing.T) {
	a := "x, step 3: add a\nR1 Add left a different state (observed: places)\n  model:  activeQ: a(ts=+0s first=+0s attempts=0)\n  target: activeQ: a(ts=+1s first=+1s attempts=0)\nR14 Metrics: the metrics after R1 Add differ\n    scheduler_x{queue=\"active\"}: model: 1 / target: 2\n"
	b := strings.NewReplacer("a(", "b(", "+1s", "+7s", "add a", "add b").Replace(a)
	if signature(a) != signature(b) {
		t.Errorf("pod names and times change the signature:\n%s\n%s", signature(a), signature(b))
	}
	want := "add | R1 Add left a different state; R14 Metrics: the metrics after R1 Add differ | activeQ: first,ts; metric scheduler_x{queue=\"active\"}"
	if signature(a) != want {
		t.Errorf("signature = %q\nwant %q", signature(a), want)
	}
	c := strings.Replace(a, "attempts=0)\nR14", "attempts=1)\nR14", 1)
	if signature(c) == signature(a) {
		t.Errorf("another differing field leaves the signature unchanged: %s", signature(c))
	}
}
