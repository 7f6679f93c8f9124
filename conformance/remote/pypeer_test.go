package remote_test

import (
	"flag"
	"fmt"
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
// a change of the Go code that make test guards. A value other than "1"
// is the peer's arguments, e.g. --broken=ask-every-member: the one-bug
// peer whose first report docs/checking-your-queue.md times.
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
	cmd := []string{py, filepath.Join("testdata", "pypeer", "peer.py")}
	if v := os.Getenv(envPythonPeer); v != "1" {
		cmd = append(cmd, strings.Fields(v)...)
	}
	return cmd
}

// TestPythonPeerPassesTheSuite: a queue written in Python from the
// protocol's documentation alone passes every hints and podgroups scenario,
// v1.38's group rules (G12, G13) and pre-queueing hints (R20-R22, G14)
// included, and the random runs of both profiles. It implements no
// classic profile (init answers invalidConfig), so only the classic
// scenarios may be n/a.
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
			if conformance.ProfileOf(r) != spec.ProfileClassic {
				t.Errorf("%s was n/a for the Python peer: %s", r.Scenario, r.Detail)
			}
			continue
		}
		ran[conformance.ProfileOf(r).String()]++
	}
	if ran["hints"] < 10 || ran["podgroups"] < 24 {
		t.Errorf("played by profile %v: want the hints scenarios and every podgroups scenario played through the Python peer", ran)
	}
	t.Logf("played through the Python peer, by profile: %v", ran)
}

// The random runs and the shrinking of their failure play hundreds of
// queues: through a peer that claims reset they must come from a few
// processes, each random run's queue reset at the end of the run and its
// process kept for the next. The suite once ended a run's target only at
// the end of the whole test, so the driver never had a process to reuse
// and started one per run and per shrinking step (34 processes for 30
// runs; a one-bug Python peer's first report took minutes). The peer with
// --no-reset, which hides the claim, is the variant that shows the count
// can fail: one process per run.
func TestPythonPeerRandomRunsKeepTheirProcess(t *testing.T) {
	py := pythonPeer(t)
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh")
	}
	peer, err := filepath.Abs(py[1])
	if err != nil {
		t.Fatal(err)
	}
	const checks = 20
	// -rapid.checks, which make verify sets for the whole package, would
	// win over Options.Checks: this test's count is its own.
	old := flag.Lookup("rapid.checks").Value.String()
	if err := flag.Set("rapid.checks", fmt.Sprint(checks)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = flag.Set("rapid.checks", old) })
	for _, tc := range []struct {
		name     string
		args     []string
		min, max int // process starts for the preflight and the random runs of one profile
	}{
		// The drawing asks up to two configs' targets at once before the
		// runs (forTarget), the preflight one; then the runs share one process.
		{"claims-reset", nil, 1, 4},
		{"no-reset", []string{"--no-reset"}, checks, 3 * checks},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			starts := filepath.Join(dir, "starts")
			script := filepath.Join(dir, "peer.sh")
			body := fmt.Sprintf("#!/bin/sh\necho start >> '%s'\nexec '%s' '%s' \"$@\"\n", starts, py[0], peer)
			if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
				t.Fatal(err)
			}
			cmd := append([]string{"/bin/sh", script}, tc.args...)
			conformance.Run(t, remote.NewTarget(cmd), conformance.Options{
				SkipCatalogue: true, // the random runs alone
				Checks:        checks,
				FailFileDir:   t.TempDir(),
				ResultsDir:    t.TempDir(),
				SkipDifferentialIn: map[spec.Profile]string{
					spec.ProfileClassic: "the Python peer implements the hints and podgroups profiles only",
					spec.ProfileHints:   "this test counts the processes of one profile's runs"},
			})
			b, _ := os.ReadFile(starts)
			n := strings.Count(string(b), "start")
			t.Logf("%d process starts for the preflight and %d podgroups random runs", n, checks)
			if n < tc.min || n > tc.max {
				t.Errorf("the peer process started %d times for the preflight and %d random runs, want %d to %d", n, checks, tc.min, tc.max)
			}
		})
	}
}
