package properties

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestFailuresReplayAsScenarios shows the round trip of a failure for a
// broken queue (the subject delete-ignores-backoffQ-pod): the state
// machine and the fuzz target (its seed corpus) each catch it and print a
// scenario; saved to a testdata directory, TestRegressions replays it
// through the conformance runner and fails on the broken queue at the
// same step with the same operation, and passes on the implementation.
//
// Each run is this test binary run again with SCHEDQ_PROPERTIES_SUBJECT
// and SCHEDQ_SCENARIO_DIR set: a run expected to fail cannot be a
// subtest.
func TestFailuresReplayAsScenarios(t *testing.T) {
	const broken = "delete-ignores-backoffQ-pod"
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"rapid", []string{"-test.run=^TestStateMachine$", "-rapid.checks=5000", "-rapid.nofailfile", "-rapid.shrinktime=1s"}},
		{"fuzz", []string{"-test.run=^FuzzQueue$"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, failed := runSelf(t, broken, "", tc.args...)
			if !failed {
				t.Fatalf("the %s run did not catch %s:\n%s", tc.name, broken, out)
			}
			// The last failure reported (the fuzz target may fail on several
			// seeds) is the one whose scenario comes last.
			ms := failedAt.FindAllStringSubmatch(out, -1)
			if ms == nil {
				t.Fatalf("the failure names no CHECK and step:\n%s", out)
			}
			step, op := ms[len(ms)-1][1], ms[len(ms)-1][2]
			name, text, ok := printedScenario(out)
			if !ok {
				t.Fatalf("the failure prints no scenario between %q and %q:\n%s", scenarioMarker, scenarioEnd, out)
			}
			dir := t.TempDir()
			file := filepath.Join(dir, filepath.FromSlash(name)+".txt")
			if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}

			// Replayed on the broken queue: the same failure.
			out, failed = runSelf(t, broken, dir, "-test.run=^TestRegressions$")
			want := name + ", step " + step + ": " + op + "\n"
			if !failed || !strings.Contains(out, want) {
				t.Fatalf("the saved scenario does not fail on %s at %q:\n%s\nthe scenario:\n%s", broken, want, out, text)
			}
			// Replayed on the implementation: it passes.
			if out, failed := runSelf(t, "impl", dir, "-test.run=^TestRegressions$", "-test.v"); failed || !strings.Contains(out, "--- PASS: TestRegressions/"+name) {
				t.Fatalf("the saved scenario does not pass on the implementation:\n%s", out)
			}
			t.Logf("%s found %s at step %s (%s); the scenario replays it:\n%s", tc.name, broken, step, op, text)
		})
	}
}

// failedAt finds the step and operation of the failure a pair reports.
var failedAt = regexp.MustCompile(`CHECK\[[^\]]+\] at step #(\d+) (.*?): `)

// printedScenario is the scenario a failure printed: its name (the path
// under the scenarios directory, without .txt) and its text.
func printedScenario(out string) (name, text string, ok bool) {
	i := strings.LastIndex(out, scenarioMarker)
	if i < 0 {
		return "", "", false
	}
	rest := out[i+len(scenarioMarker):]
	nl := strings.IndexByte(rest, '\n')
	end := strings.Index(rest, scenarioEnd)
	if nl < 0 || end < nl {
		return "", "", false
	}
	path := strings.TrimSuffix(rest[:nl], ") ---")
	name = strings.TrimSuffix(strings.TrimPrefix(path, "properties/"+scenariosDir+"/"), ".txt")
	// The failure message is indented by the test log: undo it.
	var lines []string
	indent := ""
	for j, l := range strings.Split(strings.TrimRight(rest[nl+1:end], " \t\n"), "\n") {
		if j == 0 {
			indent = l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		}
		lines = append(lines, strings.TrimPrefix(l, indent))
	}
	return name, strings.Join(lines, "\n") + "\n", true
}

// runSelf runs this test binary again with the subject and scenario
// directory given, and returns its output and whether it failed.
func runSelf(t *testing.T, subject, dir string, args ...string) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], append(args, "-test.count=1", "-test.timeout=150s")...)
	cmd.Env = append(os.Environ(), subjectEnv+"="+subject, scenarioDirEnv+"="+dir)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("%v: no result within 3 minutes:\n%s", cmd.Args, buf.String())
	}
	if _, isExit := err.(*exec.ExitError); err != nil && !isExit {
		t.Fatalf("%v: %v", cmd.Args, err)
	}
	return buf.String(), err != nil
}
