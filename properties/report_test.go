package properties

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/schedq/schedq/conformance"
	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// A failing random run prints its operations as a scenario file of the
// language, with the model's expected output after each step, between
// these lines:
//
//	--- scenario (save as properties/testdata/scenarios/regressions/<name>.txt) ---
//	...
//	--- end of scenario ---
//
// Saved there, TestRegressions replays it on the implementation through
// the conformance runner, which reproduces the failure (the same step,
// the same operation) until the queue is fixed, and keeps it fixed after.
// The file may as well go to conformance/testdata/scenarios/, where the
// conformance suite runs it against every target.
const (
	scenariosDir   = "testdata/scenarios"
	scenarioMarker = "--- scenario (save as "
	scenarioEnd    = "--- end of scenario ---"
)

// failCheck fails the run: the check that failed and why, the model's
// state before the failing check, and the operations so far as a scenario
// file that replays the failure.
func (p *pair) failCheck(check, format string, args ...any) {
	p.r.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "CHECK[%s] at step #%d %s: %s\n", check, p.steps(), p.ops[len(p.ops)-1], fmt.Sprintf(format, args...))
	fmt.Fprintf(&b, "model (the reference) after the operation:\n%s\n", p.model.Render())
	b.WriteString(p.scenario(check))
	p.r.Fatalf("%s", b.String())
}

// scenarioDirEnv, if set, is the directory TestRegressions replays instead
// of testdata/scenarios.
const scenarioDirEnv = "SCHEDQ_SCENARIO_DIR"

// scenario is the failure's operations as a scenario file, between the
// marker lines, with where to save it and how to replay it.
func (p *pair) scenario(check string) string {
	last := p.ops[len(p.ops)-1]
	name := "regressions/" + slug(strings.TrimPrefix(p.suite, "Test")+" "+ruleID(last.Rule())+" "+check)
	sc := schedqtest.Scenario{
		Name: name,
		Comment: []string{
			fmt.Sprintf("Found by properties %s on %s: CHECK[%s] at step %d (%s).", p.suite, subjectFromEnv().name, check, len(p.ops), last),
		},
		Config: p.change,
		Ops:    p.ops,
	}
	if id := ruleID(last.Rule()); id != "" {
		sc.Rules = []string{id}
	}
	text, err := schedqtest.FormatScenario(sc)
	if err != nil {
		text = "# (the model rejects these operations: " + err.Error() + ")\n" + schedqtest.FormatOps(p.ops)
	}
	return fmt.Sprintf("%sproperties/%s/%s.txt) ---\n%s\n%s\nreplay it with: go test ./properties/ -run 'TestRegressions/%s'\n",
		scenarioMarker, scenariosDir, name, text, scenarioEnd, name)
}

// ruleID is the id of a rule ("R3" of "R3 AddUnschedulableIfNotPresent"),
// or "" for the clock.
func ruleID(r spec.Rule) string {
	id, _, _ := strings.Cut(string(r), " ")
	if strings.HasPrefix(id, "R") {
		return id
	}
	return ""
}

// slug makes a file name of s: lower case, words joined by "-".
func slug(s string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !('a' <= r && r <= 'z' || '0' <= r && r <= '9')
	}), "-")
}

// TestRegressions replays the scenario files saved from failing random
// runs (testdata/scenarios, or $SCHEDQ_SCENARIO_DIR) on the subject
// (the implementation unless $SCHEDQ_PROPERTIES_SUBJECT says otherwise)
// through the conformance runner: the same comparisons with the model
// after every step, and the files' expected output must be the model's
// (regenerate it with -rewrite).
func TestRegressions(t *testing.T) {
	dir := cmp.Or(os.Getenv(scenarioDirEnv), filepath.FromSlash(scenariosDir))
	opts := conformance.Options{SkipCatalogue: true, Dirs: []string{dir}, Scenarios: "."}
	if os.Getenv(scenarioDirEnv) != "" {
		// A replay of saved scenarios (TestFailuresReplayAsScenarios) asks
		// about those files only; the random runs would cost it most of
		// its time and answer nothing it checks.
		opts.SkipDifferential = "replaying the scenarios of " + dir + " only"
	}
	k := subjectFromEnv()
	conformance.Run(t, func(t testing.TB, cfg spec.Config, start time.Time) conformance.Target {
		if !start.Equal(schedqtest.Start) {
			t.Fatalf("the conformance runner starts at %v, the subjects at %v", start, schedqtest.Start)
		}
		s, err := k.new(cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		return s
	}, opts)
}
