package remote_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedq/schedq/conformance"
	"github.com/schedq/schedq/conformance/remote"
	"github.com/schedq/schedq/spec"
)

// envPythonPeer, set by make verify's protocol step, runs the tests of the
// Python peer. make test leaves them out: its ten-minute budget is spent,
// and a peer in another language checks the protocol's documentation, not
// a change of the Go code that make test guards.
const envPythonPeer = "SCHEDQ_REMOTE_PYTHON_PEER"

// pythonPeer is the command of testdata/pypeer/peer.py, the Python
// (standard library only) queue of the hints and podgroups profiles
// written from the package documentation; it skips the test where the
// peer does not run, saying why.
func pythonPeer(t *testing.T) []string {
	t.Helper()
	if os.Getenv(envPythonPeer) == "" {
		t.Skipf("the Python peer runs in make verify's protocol step (set %s=1 to run it here)", envPythonPeer)
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skipf("no python3 on PATH: the Python peer cannot run (%v)", err)
	}
	return []string{py, filepath.Join("testdata", "pypeer", "peer.py")}
}

// TestPythonPeerPassesTheSuite: a queue written in Python from the
// protocol's documentation alone passes every hints and podgroups scenario,
// v1.38's group rules (G12, G13) included, and the random runs of both
// profiles. It implements no classic profile (init answers
// invalidConfig), so only the classic scenarios and the pre-queueing
// ones, which the protocol does not carry, may be n/a.
func TestPythonPeerPassesTheSuite(t *testing.T) {
	cmd := pythonPeer(t)
	dir := os.Getenv("SCHEDQ_CONFORMANCE_RESULTS") // make verify collects the report
	if dir == "" {
		dir = t.TempDir()
	}
	conformance.Run(t, remote.NewTarget(cmd), conformance.Options{
		ResultsDir: dir,
		Scenarios:  "^(hints|podgroups)/",
		Checks:     conformance.DefaultChecks / 3,
		SkipDifferentialIn: map[spec.Profile]string{
			spec.ProfileClassic: "the Python peer implements the hints and podgroups profiles only"},
	})
	report := readReport(t, filepath.Join(dir, "python-podgroups-peer.json"))
	ran := map[string]int{}
	for _, r := range report.Results {
		if r.Outcome == conformance.NotApplicable {
			if !strings.Contains(r.Detail, "pre-queueing setting") && conformance.ProfileOf(r) != spec.ProfileClassic {
				t.Errorf("%s was n/a for the Python peer: %s", r.Scenario, r.Detail)
			}
			continue
		}
		ran[conformance.ProfileOf(r).String()]++
	}
	if ran["hints"] < 10 || ran["podgroups"] < 22 {
		t.Errorf("played by profile %v: want the hints scenarios and every podgroups scenario played through the Python peer", ran)
	}
	t.Logf("played through the Python peer, by profile: %v", ran)
}
