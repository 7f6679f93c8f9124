package remote_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/schedq/schedq/conformance"
	"github.com/schedq/schedq/conformance/remote"
	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// envScriptPeer names a shell-script peer for TestScriptPeerFromEnv, the
// child of TestPeerScriptIsAnInputOfGoTestsCache.
const envScriptPeer = "SCHEDQ_REMOTE_TEST_SCRIPT_PEER"

// A relative peer command is resolved where NewTarget was called, not
// where the suite happens to be when it makes a target: the random runs
// change directory (t.Chdir), and the documented line
// remote.NewTarget([]string{"./my-queue-peer"}) failed there with "no
// such file or directory".
func TestRelativePeerSurvivesAChdir(t *testing.T) {
	dir := t.TempDir()
	if err := os.Symlink(peerBin, filepath.Join(dir, "my-queue-peer")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	newTarget := remote.NewTarget([]string{"./my-queue-peer"})
	t.Chdir(t.TempDir()) // as the random runs do
	tg := newTarget(t, spec.DefaultConfig(schedqtest.Registry), time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	if err := tg.Add(schedqtest.Pod("a", 0)); err != nil {
		t.Fatalf("Add on the peer: %v", err)
	}
}

// The documented line, through the whole suite: a scenario and both
// profiles' random runs (which change directory).
func TestDocumentedPeerLineRunsTheSuite(t *testing.T) {
	dir := t.TempDir()
	if err := os.Symlink(peerBin, filepath.Join(dir, "my-queue-peer")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	conformance.Run(t, remote.NewTarget([]string{"./my-queue-peer"}), conformance.Options{
		Scenarios:   "^add/new-pod-enters-activeQ$",
		Checks:      3,
		FailFileDir: t.TempDir(),
		ResultsDir:  t.TempDir(), // not make verify's: the report of TestPeerPassesTheSuite goes there
	})
}

// TestScriptPeerFromEnv is the child of
// TestPeerScriptIsAnInputOfGoTestsCache: one target of the peer
// `sh $SCHEDQ_REMOTE_TEST_SCRIPT_PEER`. Run alone it does nothing.
func TestScriptPeerFromEnv(t *testing.T) {
	script := os.Getenv(envScriptPeer)
	if script == "" {
		t.Skip("the child of TestPeerScriptIsAnInputOfGoTestsCache")
	}
	tg := remote.NewTarget([]string{"/bin/sh", script})(t, spec.DefaultConfig(schedqtest.Registry), time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	if err := tg.Add(schedqtest.Pod("a", 0)); err != nil {
		t.Fatalf("Add on the peer: %v", err)
	}
}

// go test caches a passing result keyed on the files the test opened or
// stat'ed: a peer that is not Go is no input of go test unless the driver
// makes it one, and a broken script peer was reported "ok (cached)". Here a
// script peer passes, passes again from the cache, is broken, and must
// then fail.
func TestPeerScriptIsAnInputOfGoTestsCache(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs go test three times")
	}
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh")
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	// Inside the module: go test does not recheck files outside it.
	dir, err := os.MkdirTemp(wd, ".cache-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	script := filepath.Join(dir, "peer.sh")
	write := func(body string, age time.Duration) {
		t.Helper()
		if err := os.WriteFile(script, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		// go test does not cache a run whose inputs changed in the last
		// seconds: date the script back.
		old := time.Now().Add(-age)
		if err := os.Chtimes(script, old, old); err != nil {
			t.Fatal(err)
		}
	}
	goTest := func() string {
		t.Helper()
		cmd := exec.Command("go", "test", "-run", "^TestScriptPeerFromEnv$", ".")
		cmd.Dir = wd
		cmd.Env = append(os.Environ(), envScriptPeer+"="+script, envPeerBin+"="+peerBin, "GOFLAGS=")
		out, _ := cmd.CombinedOutput()
		return string(out)
	}
	write("exec '"+peerBin+"' \"$@\"", time.Hour)
	if out := goTest(); !strings.HasPrefix(out, "ok") {
		t.Fatalf("the working script peer:\n%s", out)
	}
	if out := goTest(); !strings.Contains(out, "(cached)") {
		t.Skipf("go test does not cache here, so there is nothing to invalidate:\n%s", out)
	}
	write("echo broken >&2; exit 3", 30*time.Minute)
	if out := goTest(); strings.HasPrefix(out, "ok") {
		t.Fatalf("the broken script peer passed (go test did not see the script change):\n%q", out)
	}
}
