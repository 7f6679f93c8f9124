package conformance

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestOutsideModule builds the example in testdata/myqueue, a module of
// its own that checks a queue with this suite as an outside author does
// (declared known differences, random runs ignoring timestamps), and runs
// it: it passes; and with each adapter mistake the example can make, it
// fails in preflight with the message naming that mistake, and runs
// nothing else.
func TestOutsideModule(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build the example module with")
	}
	bin := filepath.Join(t.TempDir(), "myqueue.test")
	args := []string{"test", "-c", "-o", bin}
	if raceEnabled {
		args = append(args, "-race")
	}
	build := exec.Command(gobin, append(args, ".")...)
	build.Dir = filepath.Join("testdata", "myqueue")
	build.Env = append(os.Environ(), "GOWORK=off")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the example module: %v\n%s", err, out)
	}
	run := func(mistake string) (string, error) {
		cmd := exec.Command(bin, "-test.v", "-test.count=1", "-test.run=TestConformance")
		cmd.Dir = build.Dir
		cmd.Env = append(os.Environ(), "MYQUEUE_ADAPTER_MISTAKE="+mistake, "SCHEDQ_RAPID_FAILFILE_DIR="+t.TempDir())
		out, err := cmd.CombinedOutput()
		return string(out), err
	}

	out, err := run("")
	if err != nil {
		t.Fatalf("the example fails: %v\n%s", err, out)
	}
	// The scenarios of the hints profile are n/a: the example queue,
	// whose New refuses that profile's config (it claims the classic one).
	summary := regexp.MustCompile(`conformance myqueue: preflight ok; (\d+) of (\d+) scenarios ran: (\d+) pass, 0 fail, 3 known differences, 0 stale, \d+ n/a; classic random runs: \d+ checks.*, ignoring timestamps \(so no step invariants\): pass; hints random runs n/a: the target refuses the hints profile's config`)
	if m := summary.FindStringSubmatch(out); m == nil || m[1] != m[2] {
		t.Errorf("the example's summary is not what it declares:\n%s", out)
	}
	for _, want := range []string{"known difference of myqueue: Done of a UID not in flight returns nil", "--- PASS: TestConformance/preflight"} {
		if !strings.Contains(out, want) {
			t.Errorf("the example's output lacks %q", want)
		}
	}

	for mistake, want := range map[string]string{
		"unset-now": "adapter mistake: Snapshot().Now is not set; set it to the target's clock",
		"unsorted":  "adapter mistake: Snapshot() lists activeQ not sorted by key (ns/c before ns/a); sort each list with spec.SortPods",
		"plugins":   `adapter mistake: pod ns/b in unschedulablePods has UnschedulablePlugins ["TaintToleration" "NodeResourcesFit" "InterPodAffinity" "TaintToleration"], not a normalised plugin set (sorted, no duplicates); build it with spec.NewPluginSet`,
	} {
		t.Run(mistake, func(t *testing.T) {
			out, err := run(mistake)
			if err == nil {
				t.Fatalf("the example passes with the adapter mistake %s:\n%s", mistake, out)
			}
			for _, want := range []string{want, "--- FAIL: TestConformance/preflight", "the adapter failed the preflight check (above); fix it first: no scenario ran"} {
				if !strings.Contains(out, want) {
					t.Errorf("the output lacks %q:\n%s", want, out)
				}
			}
			if n := strings.Count(out, "=== RUN   TestConformance/"); n != 1 {
				t.Errorf("%d subtests ran; only preflight should:\n%s", n, out)
			}
			if regexp.MustCompile(`\b(R\d+|I\d)\b`).MatchString(out) {
				t.Errorf("the adapter mistake is blamed on a rule or invariant:\n%s", out)
			}
		})
	}
}
