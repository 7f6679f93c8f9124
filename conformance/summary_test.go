package conformance_test

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/schedq/schedq/conformance"
)

const envSummaryChild = "SCHEDQ_CONFORMANCE_SUMMARY_CHILD"

// TestSummaryChild is the child of TestSummarySaysWhatRan: the suite on
// the model, under the -run filter its parent gives. Run alone it does
// nothing.
func TestSummaryChild(t *testing.T) {
	if os.Getenv(envSummaryChild) == "" {
		t.Skip("the child of TestSummarySaysWhatRan")
	}
	conformance.Run(t, conformance.ModelTarget, conformance.Options{CatalogueDir: "testdata/scenarios", FailFileDir: t.TempDir()})
}

// Under go test -run, Run's last line counts what ran: it said "preflight
// ok; 106 of 106 scenarios ran" and "random runs: ...: pass" for a filter
// that ran two scenarios and neither the preflight nor the random runs,
// and "random runs: ...: pass" when the filter left out only the random
// runs' inner subtest.
func TestSummarySaysWhatRan(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs the test binary again")
	}
	cat, err := conformance.Catalogue()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		run  string
		want []string
	}{
		{"^TestSummaryChild$/^add$/^(new-pod-enters-activeQ|fields-of-a-new-pod)$", []string{
			"preflight not run (filtered by -run)", "; 2 of ", fmt.Sprintf(" (%d filtered by -run)", len(cat)-2),
			"; classic random runs not run (filtered by -run)", "; hints random runs not run (filtered by -run)",
		}},
		// No scenario and no preflight ran: the line still names the
		// target (it said "conformance : ...", and wrote no results file).
		{"^TestSummaryChild$/differential/none", []string{
			"conformance schedq-model: ", "preflight not run (filtered by -run)", "; 0 of ",
			"; classic random runs not run (filtered by -run)", "; hints random runs not run (filtered by -run)",
		}},
	} {
		cmd := exec.Command(os.Args[0], "-test.run="+tc.run, "-test.v")
		cmd.Env = append(os.Environ(), envSummaryChild+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("the child failed: %v\n%s", err, out)
		}
		var line string
		for _, l := range strings.Split(string(out), "\n") {
			if strings.Contains(l, "conformance ") && strings.Contains(l, "scenarios ran") {
				line = l
			}
		}
		for _, want := range tc.want {
			if !strings.Contains(line, want) {
				t.Errorf("-run %s: summary %q lacks %q\n%s", tc.run, line, want, out)
			}
		}
		if strings.Contains(line, "preflight ok") || strings.Contains(line, ": pass") {
			t.Errorf("-run %s: summary claims what did not run: %q", tc.run, line)
		}
	}
}
