package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedq/schedq/conformance"
	"github.com/schedq/schedq/conformance/concurrent"
)

// fakeCheckout is a directory shaped like a Kubernetes checkout: the queue's
// package and two staging modules, each with a go.mod.
func fakeCheckout(t *testing.T) string {
	k8s := t.TempDir()
	for _, d := range []string{"pkg/scheduler/backend/queue", "staging/src/k8s.io/api", "staging/src/k8s.io/client-go"} {
		if err := os.MkdirAll(filepath.Join(k8s, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(k8s, "go.mod"), "module k8s.io/kubernetes\n")
	write(t, filepath.Join(k8s, "staging/src/k8s.io/api/go.mod"), "module k8s.io/api\n")
	write(t, filepath.Join(k8s, "staging/src/k8s.io/client-go/go.mod"), "module k8s.io/client-go\n")
	return k8s
}

func write(t *testing.T, f, s string) {
	t.Helper()
	if err := os.WriteFile(f, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeReport(t *testing.T, dir string, r conformance.Report) {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, r.Target.Name+".json"), string(b))
}

// TestBranchRun covers the command's own logic without building
// Kubernetes: go test is replaced by a fake that records its flags and
// writes results as the suite would. The replace directives must be in
// the modfile copy it is given (and parse as a modfile), the tree must be
// as it was, and the report must name the scenario that changed.
func TestBranchRun(t *testing.T) {
	k8s := fakeCheckout(t)
	results := t.TempDir()
	name := "upstream-v1.35.6"
	writeReport(t, results, conformance.Report{Target: conformance.TargetInfo{Name: name}, Results: []conformance.Result{
		{Scenario: "backoff/expires-at-its-boundary", Outcome: conformance.Pass},
		{Scenario: "pop/unchanged", Outcome: conformance.Pass},
		{Scenario: "add/held-twice", Outcome: conformance.Known, Kind: conformance.KindBug, Finding: "F02"},
	}})
	statusBefore := gitStatus()
	var modCopy, env string
	runGoTest = func(dir string, e []string, args ...string) error {
		for _, a := range args {
			if strings.HasPrefix(a, "-modfile=") {
				modCopy = strings.TrimPrefix(a, "-modfile=")
				b, err := os.ReadFile(modCopy)
				if err != nil {
					t.Fatalf("the modfile copy is not there while go test runs: %v", err)
				}
				if _, err := os.Stat(strings.TrimSuffix(modCopy, ".mod") + ".sum"); err != nil {
					t.Errorf("no go.sum beside the modfile copy: %v", err)
				}
				for _, want := range []string{"k8s.io/kubernetes => " + k8s, "k8s.io/api => " + filepath.Join(k8s, "staging/src/k8s.io/api"),
					"k8s.io/client-go => " + filepath.Join(k8s, "staging/src/k8s.io/client-go")} {
					if !strings.Contains(string(b), want) {
						t.Errorf("the modfile copy lacks %q", want)
					}
				}
				if strings.Contains(string(b), "k8s.io/api => k8s.io/api v") {
					t.Error("the copy still pins k8s.io/api to the release")
				}
				// It must be a modfile go accepts (no network, no build).
				if out, err := exec.Command("go", "mod", "edit", "-json", "-modfile="+modCopy).CombinedOutput(); err != nil {
					t.Errorf("go mod edit rejects the copy: %v\n%s", err, out)
				}
			}
		}
		if !strings.Contains(strings.Join(args, " "), "-tags k8s135") {
			t.Errorf("go test %v: not built with the base release's tag", args)
		}
		env = strings.Join(e, " ")
		for _, kv := range e {
			if d, ok := strings.CutPrefix(kv, "SCHEDQ_CONFORMANCE_RESULTS="); ok {
				writeReport(t, d, conformance.Report{Target: conformance.TargetInfo{Name: name}, Results: []conformance.Result{
					{Scenario: "backoff/expires-at-its-boundary", Outcome: conformance.Fail, Detail: "step 4: the pod is in backoffQ, want activeQ"},
					{Scenario: "pop/unchanged", Outcome: conformance.Pass},
					{Scenario: "add/held-twice", Outcome: conformance.Stale, Kind: conformance.KindBug, Finding: "F02"},
				}})
			}
		}
		return nil
	}
	report, err := Main(Config{Kubernetes: k8s, Base: "v1.35.6", Results: results, Upstream: "../../upstream"})
	if err == nil || !strings.Contains(err.Error(), "differs from v1.35.6") {
		t.Fatalf("Main: %v, want the branch to differ", err)
	}
	if !strings.Contains(env, "SCHEDQ_K8S_BASE=v1.35.6") || !strings.Contains(env, "GOTOOLCHAIN=local") {
		t.Errorf("the branch run's environment %q does not name the base release and its toolchain (releases.txt)", env)
	}
	written, rerr := os.ReadFile(filepath.Join(results, "branch", "REPORT.md"))
	if rerr != nil {
		t.Fatal(rerr)
	}
	for _, want := range []string{"`backoff/expires-at-its-boundary`: pass on v1.35.6, **fail** on the branch", "want activeQ",
		"`add/held-twice`: known difference (bug F02) on v1.35.6, **stale known difference** on the branch: the branch fixes this bug"} {
		if !strings.Contains(string(written), want) || !strings.Contains(report, want) {
			t.Errorf("the report lacks %q:\n%s", want, written)
		}
	}
	if strings.Contains(string(written), "pop/unchanged") {
		t.Errorf("the report lists a scenario that did not change:\n%s", written)
	}
	if _, err := os.Stat(modCopy); !os.IsNotExist(err) {
		t.Errorf("the modfile copy %s is still there: %v", modCopy, err)
	}
	if after := gitStatus(); after != statusBefore {
		t.Errorf("the tree changed:\nbefore:\n%s\nafter:\n%s", statusBefore, after)
	}
}

// TestBadCheckout: a directory that is not a checkout is refused before
// anything runs.
func TestBadCheckout(t *testing.T) {
	runGoTest = func(string, []string, ...string) error { t.Fatal("go test ran"); return nil }
	if _, err := Main(Config{Kubernetes: t.TempDir(), Base: "v1.35.6", Upstream: "../../upstream"}); err == nil ||
		!strings.Contains(err.Error(), "not a Kubernetes checkout") {
		t.Fatalf("Main: %v", err)
	}
}

// The branch report gives, for each scenario that differs, the first
// differing observation (model against target), reports a failure the
// branch causes as a failure even when it matches a difference declared
// for the base release's target, and lists a concurrency check that
// fails on the branch only.
func TestCompareNamesTheDecisiveLine(t *testing.T) {
	base, branch := t.TempDir(), t.TempDir()
	name := "upstream-v1.37.2-queueinghints"
	// As the suite records a failure: the step, the rule, then each
	// differing observation, the model's line above the target's.
	const decisive = "model:  inFlightEvents: pod:ns/a NodeAdd\n  target: inFlightEvents: pod:ns/a"
	observed := name + ", step 4: move NodeAdd\nR4h MoveAllToActiveOrBackoffQueue left a different state\n  " + decisive + "\n  model:  unrelated: 1\n  target: unrelated: 2"
	writeReport(t, base, conformance.Report{Target: conformance.TargetInfo{Name: name}, Results: []conformance.Result{
		{Scenario: "hints/inflight/records-events", Outcome: conformance.Pass},
		{Scenario: "hints/requeue/race", Outcome: conformance.Pass},
	}})
	writeReport(t, branch, conformance.Report{Target: conformance.TargetInfo{Name: name}, Results: []conformance.Result{
		{Scenario: "hints/inflight/records-events", Outcome: conformance.Fail, Detail: "R15 broken", Observed: observed},
		{Scenario: "hints/requeue/race", Outcome: conformance.Known, Detail: "the re-queue race", Observed: observed},
	}})
	lin := func(failures int) *concurrent.LinearizabilityResult {
		return &concurrent.LinearizabilityResult{Histories: 200, Failures: failures, Detail: map[bool]string{true: "history 7: Pop returned ns/b twice"}[failures > 0]}
	}
	for dir, failures := range map[string]int{base: 0, branch: 3} {
		b, _ := json.Marshal(concurrent.Report{Target: conformance.TargetInfo{Name: name}, Linearizability: lin(failures)})
		if err := os.MkdirAll(filepath.Join(dir, concurrent.ReportDir), 0o755); err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(dir, concurrent.ReportDir, name+".json"), string(b))
	}
	report, differs, err := Compare(base, branch, "v1.37.2", "../kubernetes")
	if err != nil || !differs {
		t.Fatalf("Compare: differs=%v err=%v", differs, err)
	}
	for _, want := range []string{
		"`hints/inflight/records-events`: pass on v1.37.2, **fail** on the branch",
		"first differing observation (model = schedq's reference, target = the branch):",
		name + ", step 4: move NodeAdd\n  " + decisive,
		"`hints/requeue/race`: pass on v1.37.2, **fail** on the branch",
		"the branch causes this difference; it matches the known difference declared for the target (the re-queue race), which does not show on v1.37.2",
		"linearizability: 3 of 200 histories not linearizable on the branch, none on v1.37.2",
		"Pop returned ns/b twice",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("the report lacks %q:\n%s", want, report)
		}
	}
	if strings.Contains(report, "unrelated") || strings.Contains(report, "**known difference** on the branch") {
		t.Errorf("the report shows more than the first differing observation, or files the branch's failure as known:\n%s", report)
	}
}
