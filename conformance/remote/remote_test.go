package remote_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/schedq/schedq/conformance"
	"github.com/schedq/schedq/conformance/remote"
	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// peerBin is cmd/schedq-peer, built once by TestMain (with -race when the
// tests run with it, so the peer's own concurrency is checked too).
var peerBin string

// Environment of the child processes the tests start from their own
// binary: a fake peer that misbehaves at the protocol level, or the suite
// run against a broken peer (a failure expected by the parent test).
const (
	envFakePeer   = "SCHEDQ_REMOTE_TEST_FAKE_PEER"
	envBrokenMode = "SCHEDQ_REMOTE_TEST_BROKEN"
	envPeerBin    = "SCHEDQ_REMOTE_TEST_PEER_BIN"
	// envPeerRace, set and under -race, builds the peer with -race too.
	envPeerRace = "SCHEDQ_REMOTE_PEER_RACE"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(envFakePeer); mode != "" {
		os.Exit(fakePeer(mode))
	}
	if bin := os.Getenv(envPeerBin); bin != "" {
		peerBin = bin
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "schedq-peer")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	peerBin = filepath.Join(dir, "schedq-peer")
	args := []string{"build", "-o", peerBin}
	// The peer is a process of its own: under -race, building it with the
	// race detector too checks its server's goroutines (a blocked Pop
	// answered beside other requests), but a race-built peer starts and
	// runs several times slower, and the suite starts one per queue (about
	// 700 for the random runs): 121 s against 30 s for the whole suite on
	// the 2-core CI machine. make verify asks for it (envPeerRace); make
	// test runs the driver under -race against a plain peer.
	if raceEnabled && os.Getenv(envPeerRace) != "" {
		args = append(args, "-race")
	}
	cmd := exec.Command("go", append(args, "github.com/schedq/schedq/cmd/schedq-peer")...)
	if out, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building cmd/schedq-peer: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	// A race-enabled program sleeps a second at exit by default, to let
	// other goroutines report; with one peer per scenario that would be
	// most of the test's time.
	os.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// TestPeerPassesTheSuite is the point of the package: the implementation,
// served over the protocol by cmd/schedq-peer and reached through the
// driver, passes every scenario and the random runs, as it does in
// process.
//
// In both profiles: a hints scenario, a nominator scenario or the hints
// random runs reported n/a would mean the config or an operation did not
// cross, so the test reads the run's results and fails on any n/a.
func TestPeerPassesTheSuite(t *testing.T) {
	dir := os.Getenv("SCHEDQ_CONFORMANCE_RESULTS") // make verify collects the report
	if dir == "" {
		dir = t.TempDir()
	}
	// The impl behind the peer meets conformance.DefaultChecks random runs
	// in conformance's own tests; through the wire, where every operation
	// is a round trip, a third of them checks the protocol's words in
	// make test, and make verify gives -rapid.checks=300 (the flag wins).
	conformance.Run(t, remote.NewTarget([]string{peerBin}), conformance.Options{ResultsDir: dir, Checks: conformance.DefaultChecks / 3})
	report := readReport(t, filepath.Join(dir, peerProfileName+".json"))
	ran := map[string]int{}
	for _, r := range report.Results {
		// The protocol carries the whole contract: nothing is n/a.
		if r.Outcome == conformance.NotApplicable {
			t.Errorf("%s was n/a through the protocol: %s", r.Scenario, r.Detail)
		}
		ran[conformance.ProfileOf(r).String()]++
	}
	if ran["hints"] < 10 || ran["classic"] < 10 || ran["podgroups"] < 10 {
		t.Errorf("results by profile %v: want the three profiles played through the peer", ran)
	}
}

// peerProfileName is the profile cmd/schedq-peer claims (its ProfileName).
const peerProfileName = "schedq-impl-over-protocol"

// brokenModes are the -broken modes of cmd/schedq-peer, with the profile
// each one is wrong in and the rule ids its failures must cite.
var brokenModes = []struct {
	mode    string
	profile spec.Profile // the profile the peer is wrong in; the other one it passes
	want    []string     // in the failure output
	python  bool         // the Python peer's --broken=MODE (pythonPeer), not cmd/schedq-peer's
	checks  int          // the child's -rapid.checks, for a bug only the random runs catch (0: the default)
}{
	{"no-shortcut", spec.ProfileClassic, []string{"R3", "I3"}, false, 0},
	{"ignore-done", spec.ProfileClassic, []string{"R12"}, false, 0},
	{"ignore-hints", spec.ProfileHints, []string{"R16", "R4h"}, false, 0},
	{"split-group", spec.ProfilePodGroups, []string{"G3", "IG2"}, false, 0},
	{"split-group", spec.ProfilePodGroups, []string{"G3", "IG2"}, true, 0},
	{"ask-every-member", spec.ProfilePodGroups, []string{"G12"}, true, 0},
	{"narrowing-skips-groups", spec.ProfilePodGroups, []string{"G14"}, true, 0},
	// No scenario catches it, the hints random runs do: 6 runs of 8 of
	// 300 checks caught it (after 6 to 256), so 2000 checks miss it about
	// once in 10,000 (rapid stops at the first failure: it costs about
	// 200 checks in the mean).
	{"update-drops-nomination", spec.ProfileHints, []string{"R18"}, true, 2000},
}

// brokenOptions are the suite's options against a peer broken in profile
// p. A peer broken in a classic rule plays the classic scenarios and
// random runs only; one broken in the hints profile plays every scenario
// (the classic ones must all pass: it is wrong in the hints profile only)
// and the hints random runs. Leaving out the random runs of the profile
// that is not the point halves the time of the test.
func brokenOptions(p spec.Profile) conformance.Options {
	if p == spec.ProfilePodGroups {
		return conformance.Options{Scenarios: "^podgroups/", // the podgroups scenarios only
			SkipDifferentialIn: map[spec.Profile]string{
				spec.ProfileClassic: "the peer is broken in the podgroups profile only",
				spec.ProfileHints:   "the peer is broken in the podgroups profile only"}}
	}
	if p == spec.ProfileHints {
		return conformance.Options{SkipDifferentialIn: map[spec.Profile]string{
			spec.ProfileClassic:   "the peer is broken in the hints profile only; the classic random runs are not this test's point",
			spec.ProfilePodGroups: "the podgroups profile has the hints profile's rules too; its random runs are not this test's point"}}
	}
	return conformance.Options{Scenarios: "^[^hp]", // every group but hints/ and podgroups/ (pop/ is classic: it passes too)
		SkipDifferentialIn: map[spec.Profile]string{
			spec.ProfileHints:     "the peer is broken in a classic rule; the hints random runs are not this test's point",
			spec.ProfilePodGroups: "the peer is broken in a classic rule; the podgroups random runs are not this test's point"}}
}

// TestSuiteOnBrokenPeer is the child of TestBrokenPeerIsCaught: the suite
// against cmd/schedq-peer -broken=MODE. It must fail; run alone it does
// nothing.
func TestSuiteOnBrokenPeer(t *testing.T) {
	mode := os.Getenv(envBrokenMode)
	if mode == "" {
		t.Skip("the child of TestBrokenPeerIsCaught; runs only there")
	}
	for _, b := range brokenModes {
		if b.mode == mode && !b.python {
			conformance.Run(t, remote.NewTarget([]string{peerBin, "-broken=" + mode}), brokenOptions(b.profile))
			return
		}
		if python, ok := strings.CutPrefix(mode, "python-"); ok && b.python && b.mode == python {
			conformance.Run(t, remote.NewTarget(append(pythonPeer(t), "--broken="+python)), brokenOptions(b.profile))
			return
		}
	}
	t.Fatalf("unknown broken mode %q", mode)
}

// TestBrokenPeerIsCaught runs the suite, in a child process, against peers
// that are wrong on purpose and checks that it fails them for the right
// reason: the rule the peer breaks appears in the failures, and only
// scenarios of the profile the peer is wrong in fail.
func TestBrokenPeerIsCaught(t *testing.T) {
	for _, tc := range brokenModes {
		name := tc.mode
		if tc.python {
			name = "python-" + tc.mode
		}
		t.Run(name, func(t *testing.T) {
			if tc.python {
				pythonPeer(t) // skips where the Python peer does not run
			}
			t.Parallel()
			// -rapid.nofailfile: the expected failure must not leave a
			// file in testdata; a short shrink keeps the test quick (the failure,
			// not its minimal form, is the point here).
			args := []string{"-test.run=^TestSuiteOnBrokenPeer$", "-test.v", "-rapid.nofailfile", "-rapid.shrinktime=2s"}
			if tc.checks != 0 {
				args = append(args, fmt.Sprintf("-rapid.checks=%d", tc.checks))
			}
			cmd := exec.Command(os.Args[0], args...)
			// Without SCHEDQ_CONFORMANCE_RESULTS: the broken peer's
			// results must not replace the good peer's report.
			var env []string
			for _, e := range os.Environ() {
				if !strings.HasPrefix(e, "SCHEDQ_CONFORMANCE_RESULTS=") {
					env = append(env, e)
				}
			}
			cmd.Env = append(env, envBrokenMode+"="+name, envPeerBin+"="+peerBin)
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			if !errors.As(err, &exit) {
				t.Fatalf("the suite passed (or did not run: %v) against the peer broken with %s:\n%s", err, tc.mode, tail(out))
			}
			var failed, passed []string
			for _, line := range strings.Split(string(out), "\n") {
				line = strings.TrimSpace(line)
				for _, p := range []struct {
					prefix string
					into   *[]string
				}{{"--- FAIL: TestSuiteOnBrokenPeer/", &failed}, {"--- PASS: TestSuiteOnBrokenPeer/", &passed}} {
					if name, ok := strings.CutPrefix(line, p.prefix); ok {
						*p.into = append(*p.into, strings.Fields(name)[0])
					}
				}
			}
			if len(failed) == 0 {
				t.Fatalf("the child failed, but no scenario of the suite did (a crash?):\n%s", tail(out))
			}
			for _, w := range tc.want {
				if !strings.Contains(string(out), w) {
					t.Errorf("no failure cites %s, the rule -broken=%s breaks:\n%s", w, tc.mode, tail(out))
				}
			}
			// The profile of a subtest by its name.
			profileOf := func(name string) spec.Profile {
				switch {
				case strings.HasPrefix(name, "hints/") || strings.HasPrefix(name, "differential-hints"):
					return spec.ProfileHints
				case strings.HasPrefix(name, "podgroups/") || strings.HasPrefix(name, "differential-podgroups"):
					return spec.ProfilePodGroups
				}
				return spec.ProfileClassic
			}
			classicPassed := 0
			for _, name := range passed {
				if profileOf(name) == spec.ProfileClassic && name != "preflight" {
					classicPassed++
				}
			}
			for _, name := range failed {
				// The podgroups profile has the hints profile's queueing
				// hints: its scenarios of v1.38's group rules (G12, G13)
				// read Gate's hint, so ignore-hints is wrong there too.
				if p := profileOf(name); p != tc.profile && !(tc.mode == "ignore-hints" && p == spec.ProfilePodGroups) {
					t.Errorf("-broken=%s is wrong in the %s profile only, but %s failed", tc.mode, tc.profile, name)
				}
			}
			// The Python peer refuses the classic config: none of its
			// classic scenarios can pass.
			if tc.profile == spec.ProfileHints && !tc.python && classicPassed == 0 {
				t.Errorf("-broken=%s: no classic scenario ran and passed; the test cannot show the peer is wrong in the hints profile only:\n%s", tc.mode, tail(out))
			}
			t.Logf("-broken=%s: %d failing subtests, %d classic passing", tc.mode, len(failed), classicPassed)
		})
	}
}

func tail(out []byte) string {
	const n = 6000
	if len(out) > n {
		return "...\n" + string(out[len(out)-n:])
	}
	return string(out)
}

// fakePeer plays a peer that breaks the protocol; the driver must say how.
func fakePeer(mode string) int {
	switch mode {
	case "exit":
		fmt.Fprintln(os.Stderr, "fake peer: giving up at once")
		return 3
	case "garbage":
		fmt.Println("this is not JSON")
		// Keep reading so that the driver, not a broken pipe, ends it.
		buf := make([]byte, 4096)
		for {
			if _, err := os.Stdin.Read(buf); err != nil {
				return 0
			}
		}
	case "v1":
		var req remote.Request
		sc := bufio.NewScanner(os.Stdin)
		if !sc.Scan() || json.Unmarshal(sc.Bytes(), &req) != nil {
			return 2
		}
		fmt.Printf("{\"id\":%d,\"profile\":{\"name\":\"old-peer\",\"observes\":{}}}\n", req.ID)
		for sc.Scan() {
		}
		return 0
	case "v2-without-group-rules":
		// A version-2 peer written before groupRules: it answers init
		// without confirming them (the driver must not wait for more).
		var req remote.Request
		sc := bufio.NewScanner(os.Stdin)
		if !sc.Scan() || json.Unmarshal(sc.Bytes(), &req) != nil {
			return 2
		}
		fmt.Printf("{\"id\":%d,\"version\":%d,\"profile\":{\"name\":\"older-peer\",\"observes\":{}}}\n", req.ID, remote.Version)
		for sc.Scan() {
		}
		return 0
	case "silent":
		buf := make([]byte, 4096)
		for {
			if _, err := os.Stdin.Read(buf); err != nil {
				return 0
			}
		}
	}
	return 2
}

func TestDriverReportsABrokenProtocol(t *testing.T) {
	cfg := spec.DefaultConfig(schedqtest.Registry)
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for mode, want := range map[string]string{
		"exit":    "fake peer: giving up at once",
		"garbage": "not a response",
		// A peer written for version 1 answers init without a version.
		"v1": "the peer speaks protocol version 1 (its init response names no version) and this driver speaks version 2",
	} {
		t.Run(mode, func(t *testing.T) {
			t.Setenv(envFakePeer, mode)
			_, err := remote.Start([]string{os.Args[0]}, cfg, start)
			if err == nil || !errors.Is(err, remote.ErrProtocol) || !strings.Contains(err.Error(), want) {
				t.Fatalf("Start against a peer that does %q: got %v, want an ErrProtocol saying %q", mode, err, want)
			}
		})
	}
	if _, err := remote.Start(nil, cfg, start); err == nil {
		t.Error("Start without a command succeeded")
	}
	if _, err := remote.Start([]string{filepath.Join(t.TempDir(), "no-such-peer")}, cfg, start); err == nil {
		t.Error("Start of a missing program succeeded")
	}
}

// TestGroupRulesCrossOrAreRefused: v1.38's group rules (G12, G13) reach
// the reference peer, which confirms them; a peer that does not confirm
// them (one written before the setting) is refused with
// spec.ErrInvalidConfig (the suite's n/a) saying what it must answer,
// and an unknown groupRules word is the peer's invalidConfig.
func TestGroupRulesCrossOrAreRefused(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cfg := schedqtest.ConfigChange{Profile: spec.ProfilePodGroups, GroupsV138: true}.Build()
	p, err := remote.Start([]string{peerBin}, cfg, start)
	if err != nil {
		t.Fatalf("the reference peer with groups=v1.38: %v", err)
	}
	p.Stop()
	t.Run("older-peer", func(t *testing.T) {
		t.Setenv(envFakePeer, "v2-without-group-rules")
		_, err := remote.Start([]string{os.Args[0]}, cfg, start)
		if !errors.Is(err, spec.ErrInvalidConfig) || !strings.Contains(err.Error(), `"groupRules":"v1.38"`) {
			t.Fatalf("a peer that does not confirm groupRules: got %v, want spec.ErrInvalidConfig naming the answer", err)
		}
	})
	w, err := remote.EncodeConfig(cfg)
	if err != nil || w.GroupRules != "v1.38" {
		t.Fatalf("EncodeConfig: groupRules %q, %v; want \"v1.38\"", w.GroupRules, err)
	}
	w.GroupRules = "v1.99"
	if _, err := remote.DecodeConfig(w); !errors.Is(err, spec.ErrInvalidConfig) || !strings.Contains(err.Error(), `"v1.99"`) {
		t.Errorf("DecodeConfig with groupRules v1.99: got %v, want spec.ErrInvalidConfig naming it", err)
	}
}

// The driver relays the queue's own errors, matching the spec errors.
func TestDriverRelaysQueueErrors(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	bad := spec.DefaultConfig(schedqtest.Registry)
	bad.PodMaxBackoffDuration = 0
	if _, err := remote.Start([]string{peerBin}, bad, start); !errors.Is(err, spec.ErrInvalidConfig) {
		t.Fatalf("init with an invalid config: got %v, want spec.ErrInvalidConfig", err)
	}
	p, err := remote.Start([]string{peerBin}, spec.DefaultConfig(schedqtest.Registry), start)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := p.Stop(); err != nil {
			t.Error(err)
		}
	}()
	pod := schedqtest.Pod("a", 0)
	if err := p.Add(pod); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		err  error
		want error
	}{
		{"Add twice", p.Add(pod), spec.ErrAlreadyQueued},
		{"Add(nil)", p.Add(nil), spec.ErrNilPod},
		{"Done of a pod not in flight", p.Done("uid-a"), spec.ErrNotInFlight},
		{"Delete of an unknown pod", p.Delete(schedqtest.Pod("b", 0)), spec.ErrPodNotFound},
	} {
		if !errors.Is(c.err, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, c.err, c.want)
		}
	}
	s := p.Snapshot()
	if len(s.ActiveQ) != 1 || !s.Now.Equal(start) {
		t.Errorf("snapshot after the errors: %+v, want only ns/a in activeQ and Now=%v", s, start)
	}
	p.Close()
	if _, _, err := p.Pop(); !errors.Is(err, spec.ErrClosed) {
		t.Errorf("Pop after Close: got %v, want spec.ErrClosed", err)
	}
}

// serve runs Serve on the given request lines with the implementation and
// returns the responses by id.
func serve(t *testing.T, lines ...string) map[int64]remote.Response {
	t.Helper()
	newQueue := func(cfg spec.Config, start time.Time) (conformance.Target, error) {
		q, err := conformance.NewImpl(cfg, start)
		if err != nil {
			return nil, err
		}
		q.About = conformance.TargetInfo{Name: "test", Blocking: true}
		return q, nil
	}
	var out bytes.Buffer
	if err := remote.Serve(strings.NewReader(strings.Join(lines, "\n")+"\n"), &out, newQueue); err != nil {
		t.Fatal(err)
	}
	got := map[int64]remote.Response{}
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var r remote.Response
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("Serve wrote %q: %v", l, err)
		}
		if _, dup := got[r.ID]; dup {
			t.Fatalf("two responses with id %d", r.ID)
		}
		got[r.ID] = r
	}
	return got
}

func initLine(id int) string { return initLineWith(id, spec.DefaultConfig(schedqtest.Registry)) }

func initLineWith(id int, cfg spec.Config) string {
	w, err := remote.EncodeConfig(cfg)
	if err != nil {
		panic(err)
	}
	b, _ := json.Marshal(remote.Request{ID: int64(id), Op: "init", Config: w, Now: "2026-01-01T00:00:00Z", Version: remote.Version})
	return string(b)
}

// Bad requests get a protocol error and change nothing; the peer keeps
// serving.
func TestServeRejectsBadRequests(t *testing.T) {
	got := serve(t,
		`{"id":1,"op":"add","pod":{"namespace":"ns","name":"a","uid":"u"}}`, // before init
		initLine(2),
		initLine(3), // a second init
		`this is not json`,
		`{"id":5,"op":"frobnicate"}`,
		`{"id":6,"op":"step","nanoseconds":-1}`,
		`{"id":7,"op":"snapshot"}`,
	)
	for id, want := range map[int64]string{1: "before a successful init", 3: "exists already", 0: "not a request", 5: "unknown op", 6: "negative duration"} {
		r := got[id]
		if r.Error == nil || r.Error.Code != "protocol" || !strings.Contains(r.Error.Message, want) {
			t.Errorf("response %d: %+v, want a protocol error saying %q", id, r.Error, want)
		}
	}
	if r := got[2]; r.Error != nil || r.Profile == nil {
		t.Errorf("init: %+v, want a profile", r)
	}
	want := &remote.Snapshot{Now: "2026-01-01T00:00:00Z", ActiveQ: []remote.QueuedPodInfo{}, BackoffQ: []remote.QueuedPodInfo{},
		UnschedulablePods: []remote.QueuedPodInfo{}, InFlight: []remote.QueuedPodInfo{}, MoveRequestCycle: -1}
	if d := cmp.Diff(want, got[7].Snapshot); d != "" {
		t.Errorf("the bad requests changed the queue (-want +got):\n%s", d)
	}
}

// A blocked Pop does not hold up the requests after it: they are answered
// while it waits, and it returns the pod their Add brings.
func TestPeerAnswersAroundABlockedPop(t *testing.T) {
	p, err := remote.Start([]string{peerBin}, spec.DefaultConfig(schedqtest.Registry), time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := p.Stop(); err != nil {
			t.Error(err)
		}
	}()
	type popped struct {
		info  *spec.QueuedPodInfo
		cycle int64
		err   error
	}
	got := make(chan popped, 1)
	go func() {
		info, cycle, err := p.Pop()
		got <- popped{info, cycle, err}
	}()
	if c := p.SchedulingCycle(); c != 0 {
		t.Errorf("schedulingCycle while the pop waits: %d, want 0", c)
	}
	if err := p.Add(schedqtest.Pod("a", 0)); err != nil {
		t.Fatal(err)
	}
	r := <-got
	if r.err != nil || r.info.Key() != schedqtest.Key("a") || r.cycle != 1 {
		t.Errorf("the blocked pop: %+v, want ns/a in cycle 1", r)
	}
}

// At the end of its input the peer closes the queue, and a Pop still
// waiting ends with the closed error.
func TestServeClosesAtTheEndOfInput(t *testing.T) {
	got := serve(t, initLine(1), `{"id":2,"op":"pop"}`)
	if r := got[2]; r.Error == nil || r.Error.Code != "closed" {
		t.Errorf("a pop waiting when the input ends: %+v, want the closed error", r.Error)
	}
}

// Every field crosses the wire and comes back equal.
func TestWireRoundTrip(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	pod := &spec.Pod{Namespace: "ns", Name: "a", UID: "u", Priority: -3, Labels: map[string]string{"k": "v"},
		RequiredAffinityTerms: []spec.AffinityTerm{{Namespaces: []string{"x"}, MatchLabels: map[string]string{"app": "db"}}},
		ResourceVersion:       "7", Status: "s"}
	info := spec.QueuedPodInfo{Pod: pod, Timestamp: now, Attempts: 2, UnschedulablePlugins: spec.NewPluginSet("B", "A"),
		InitialAttemptTimestamp: now.Add(-time.Second)}
	snap := spec.Snapshot{Now: now, ActiveQ: []spec.QueuedPodInfo{info}, InFlight: []spec.QueuedPodInfo{{Pod: pod}},
		SchedulingCycle: 4, MoveRequestCycle: 2, Closed: true}
	back, err := remote.DecodeSnapshot(roundTrip(t, remote.EncodeSnapshot(snap)))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(snap, back); d != "" {
		t.Errorf("snapshot round trip (-sent +received):\n%s", d)
	}
	cfg := spec.DefaultConfig(schedqtest.Registry)
	if d := cmp.Diff(cfg, configRoundTrip(t, cfg)); d != "" {
		t.Errorf("config round trip (-sent +received):\n%s", d)
	}
	if _, err := remote.DecodeInfo(&remote.QueuedPodInfo{Pod: remote.EncodePod(pod), Timestamp: "yesterday"}); !errors.Is(err, remote.ErrProtocol) {
		t.Errorf("a timestamp that is not RFC 3339: got %v, want ErrProtocol", err)
	}
}

// The hints profile crosses too: the hint fields of a pod, the in-flight
// list with its markers and event records, the nominated node, and the
// standard hints config by name.
func TestWireRoundTripHints(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	pod := &spec.Pod{Namespace: "ns", Name: "a", UID: "u", Labels: map[string]string{"gated": "yes"}, NominatedNodeName: "node-1"}
	newPod := &spec.Pod{Namespace: "ns", Name: "a", UID: "u", Labels: map[string]string{"gated": "no"}}
	info := spec.QueuedPodInfo{Pod: pod, Timestamp: now, Attempts: 3, UnschedulablePlugins: spec.NewPluginSet("Fit"),
		HintFields: spec.HintFields{UnschedulableCount: 2, ConsecutiveErrorsCount: 1, PendingPlugins: spec.NewPluginSet("Gate", "Flaky"),
			GatingPlugin: "Gate", FlushTimestamp: now.Add(time.Minute)}}
	snap := spec.Snapshot{Now: now, UnschedulablePods: []spec.QueuedPodInfo{info}, InFlight: []spec.QueuedPodInfo{{Pod: newPod}},
		SchedulingCycle: 3, MoveRequestCycle: -1,
		InFlightEvents: []spec.InFlightEntry{
			{UID: "u", Key: "ns/a"},
			{Event: spec.Occurrence{Event: spec.ClusterEvent{Resource: spec.ResourceTargetPod, ActionType: spec.UpdatePodLabel}, Old: pod, New: newPod}},
			{Event: spec.Occurrence{Event: spec.EventForceActivate, New: newPod}},
			{Event: spec.Occurrence{Event: schedqtest.NodeLabel}},
		}}
	back, err := remote.DecodeSnapshot(roundTrip(t, remote.EncodeSnapshot(snap)))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(snap, back); d != "" {
		t.Errorf("snapshot round trip (-sent +received):\n%s", d)
	}
	if d := snap.Diff(&back); d != "" {
		t.Errorf("snapshot round trip, as the suite compares:\n%s", d)
	}
	for _, bad := range [][]remote.InFlightEntry{
		{{}}, // neither a marker nor a record
		{{UID: "u", Key: "ns/a", Event: &remote.Event{Resource: "Node", ActionType: 1}}}, // both
		{{UID: "u"}}, // a marker without its key
	} {
		if _, err := remote.DecodeInFlight(bad); !errors.Is(err, remote.ErrProtocol) {
			t.Errorf("DecodeInFlight(%+v): got %v, want ErrProtocol", bad, err)
		}
	}

	cfg := schedqtest.HintsConfig()
	cfg.PodMaxBackoffDuration = 0
	got := configRoundTrip(t, cfg)
	if d := cmp.Diff(cfg, got, cmp.Comparer(func(a, b spec.QueueingHintFn) bool { return hintName(a) == hintName(b) }),
		cmp.Comparer(func(a, b spec.PreEnqueueFn) bool { return preEnqueueName(a) == preEnqueueName(b) })); d != "" {
		t.Errorf("hints config round trip (-sent +received, functions by standard name):\n%s", d)
	}
	if len(got.QueueingHints) != len(cfg.QueueingHints) || len(got.PreEnqueuePlugins) != len(cfg.PreEnqueuePlugins) || len(got.QueueingHints) == 0 {
		t.Errorf("hints config round trip: %d hints and %d PreEnqueue plugins, sent %d and %d",
			len(got.QueueingHints), len(got.PreEnqueuePlugins), len(cfg.QueueingHints), len(cfg.PreEnqueuePlugins))
	}
	// The hints go in one order whatever the map's: the same config
	// always makes the same line.
	w, _ := remote.EncodeConfig(cfg)
	again, _ := remote.EncodeConfig(cfg)
	if d := cmp.Diff(w, again); d != "" {
		t.Errorf("two encodings of one config differ:\n%s", d)
	}
}

func hintName(fn spec.QueueingHintFn) string {
	n, ok := schedqtest.QueueingHintName(fn)
	if !ok {
		return fmt.Sprintf("<unnamed %p>", fn)
	}
	return n
}

func preEnqueueName(fn spec.PreEnqueueFn) string {
	n, ok := schedqtest.PreEnqueueName(fn)
	if !ok {
		return fmt.Sprintf("<unnamed %p>", fn)
	}
	return n
}

// A hint or PreEnqueue function outside the standard set cannot cross: the
// driver refuses the config before starting a peer, with
// spec.ErrInvalidConfig (the suite's "n/a") and the registration it
// belongs to; a name the peer does not know is its invalidConfig.
func TestHintsWithoutAStandardNameAreRefused(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cfg := schedqtest.HintsConfig()
	cfg.QueueingHints = maps.Clone(cfg.QueueingHints)
	cfg.QueueingHints[spec.HintKey{Plugin: schedqtest.PluginFit, Event: schedqtest.NodeLabel}] = func(*spec.Pod, spec.Occurrence) (spec.QueueingHint, error) {
		return spec.HintQueue, nil
	}
	// A program that does not exist: the refusal must come before it starts.
	_, err := remote.Start([]string{filepath.Join(t.TempDir(), "no-such-peer")}, cfg, start)
	if !errors.Is(err, spec.ErrInvalidConfig) || !strings.Contains(err.Error(), "plugin Fit for event "+schedqtest.NodeLabel.String()) {
		t.Errorf("Start with a hint outside the standard set: got %v, want spec.ErrInvalidConfig naming plugin Fit and event %s", err, schedqtest.NodeLabel)
	}
	cfg = schedqtest.HintsConfig()
	cfg.PreEnqueuePlugins = spec.PreEnqueuePlugins{"Mine": func(*spec.Pod) bool { return true }}
	if _, err := remote.Start([]string{peerBin}, cfg, start); !errors.Is(err, spec.ErrInvalidConfig) || !strings.Contains(err.Error(), "PreEnqueue plugin Mine") {
		t.Errorf("Start with a PreEnqueue function outside the standard set: got %v, want spec.ErrInvalidConfig naming plugin Mine", err)
	}

	w, err := remote.EncodeConfig(schedqtest.HintsConfig())
	if err != nil {
		t.Fatal(err)
	}
	w.QueueingHints[0].Hint = "NoSuchHint"
	w.PreEnqueuePlugins["Gate"] = "NoSuchFunction"
	if _, err := remote.DecodeConfig(w); !errors.Is(err, spec.ErrInvalidConfig) || !strings.Contains(err.Error(), `"NoSuchHint"`) || !strings.Contains(err.Error(), `"NoSuchFunction"`) {
		t.Errorf("DecodeConfig with unknown names: got %v, want spec.ErrInvalidConfig naming both", err)
	}
	w.Profile = "quantum"
	if _, err := remote.DecodeConfig(w); !errors.Is(err, spec.ErrInvalidConfig) {
		t.Errorf("DecodeConfig with an unknown profile: got %v, want spec.ErrInvalidConfig", err)
	}
	b, _ := json.Marshal(remote.Request{ID: 1, Op: "init", Config: w, Now: "2026-01-01T00:00:00Z", Version: remote.Version})
	if r := serve(t, string(b))[1]; r.Error == nil || r.Error.Code != "invalidConfig" {
		t.Errorf("init with unknown names: %+v, want the invalidConfig error", r.Error)
	}
}

// Through the suite, such a config makes the scenario n/a for the peer,
// with the reason, rather than a failure.
func TestUnnamedHintIsNotApplicable(t *testing.T) {
	newTarget := remote.NewTarget([]string{peerBin})
	withClosure := func(t testing.TB, cfg spec.Config, start time.Time) conformance.Target {
		cfg.QueueingHints = maps.Clone(cfg.QueueingHints)
		cfg.QueueingHints[spec.HintKey{Plugin: schedqtest.PluginFit, Event: schedqtest.NodeLabel}] = func(*spec.Pod, spec.Occurrence) (spec.QueueingHint, error) {
			return spec.HintSkip, nil
		}
		return newTarget(t, cfg, start)
	}
	res, _ := conformance.RunScenario(t, withClosure, "hints/move/hints-decide-pod-by-pod")
	if res.Outcome != conformance.NotApplicable || !strings.Contains(res.Detail, "plugin Fit for event") {
		t.Errorf("a hints scenario with a hint outside the standard set: %s (%s), want n/a naming plugin Fit's hint", res.Outcome, res.Detail)
	}
}

// The nominator requests reach the queue's nominator, and a bad mode is a
// protocol error that changes nothing.
func TestServeNominator(t *testing.T) {
	pod, _ := json.Marshal(remote.EncodePod(&spec.Pod{Namespace: "ns", Name: "a", UID: "uid-a", NominatedNodeName: "n1"}))
	got := serve(t, initLine(1),
		fmt.Sprintf(`{"id":2,"op":"addNominatedPod","pod":%s,"mode":"noop"}`, pod),
		`{"id":3,"op":"nominatedPodsForNode","nodeName":"n1"}`,
		fmt.Sprintf(`{"id":4,"op":"addNominatedPod","pod":%s,"mode":"sideways","nodeName":"n2"}`, pod),
		fmt.Sprintf(`{"id":5,"op":"addNominatedPod","pod":%s,"mode":"override","nodeName":"n2"}`, pod),
		`{"id":6,"op":"nominatedPodsForNode","nodeName":"n1"}`,
		`{"id":7,"op":"nominatedPodsForNode","nodeName":"n2"}`,
		`{"id":8,"op":"addNominatedPod","pod":null}`,
	)
	if r := got[1]; r.Profile == nil || !r.Profile.Nominator {
		t.Errorf("init: %+v, want a profile claiming the nominator", r.Profile)
	}
	names := func(r remote.Response) []string {
		var out []string
		for _, p := range r.Pods {
			out = append(out, p.Name)
		}
		return out
	}
	if n := names(got[3]); !slices.Equal(n, []string{"a"}) {
		t.Errorf("nominated to n1 after a noop nomination: %v, want [a]", n)
	}
	if r := got[4]; r.Error == nil || r.Error.Code != "protocol" || !strings.Contains(r.Error.Message, "sideways") {
		t.Errorf("a bad mode: %+v, want a protocol error", r.Error)
	}
	if n := names(got[6]); len(n) != 0 {
		t.Errorf("nominated to n1 after the override to n2: %v, want none", n)
	}
	if n := names(got[7]); !slices.Equal(n, []string{"a"}) {
		t.Errorf("nominated to n2 after the override: %v, want [a]", n)
	}
	if r := got[8]; r.Error == nil || r.Error.Code != "nilPod" {
		t.Errorf("addNominatedPod of a null pod: %+v, want nilPod", r.Error)
	}
}

// The package documentation describes every standard function a config
// may name: a function added to the table must be documented for peer
// authors.
func TestDocumentedStandardFunctions(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	names := append(schedqtest.QueueingHintNames(), schedqtest.PreEnqueueNames()...)
	names = append(names, schedqtest.PreQueueingHintNames()...)
	for _, n := range names {
		if !regexp.MustCompile(`(?m)^//\t` + n + ` +(queueing hint|PreEnqueue|pre-queueing hint):`).Match(doc) {
			t.Errorf("doc.go does not describe the standard function %s (a line \"//\t%s  queueing hint: ...\" or \"PreEnqueue: ...\" under Standard functions)", n, n)
		}
	}
}

func roundTrip[T any](t *testing.T, v *T) *T {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	out := new(T)
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatal(err)
	}
	return out
}

// The package documentation lists the action bits by number, for peers in
// other languages; they must stay what spec says.
func TestDocumentedActionBits(t *testing.T) {
	for name, c := range map[string]struct{ got, want spec.ActionType }{
		"Add": {spec.Add, 1}, "Delete": {spec.Delete, 2}, "UpdateNodeAllocatable": {spec.UpdateNodeAllocatable, 4},
		"UpdateNodeLabel": {spec.UpdateNodeLabel, 8}, "UpdateNodeTaint": {spec.UpdateNodeTaint, 16},
		"UpdateNodeCondition": {spec.UpdateNodeCondition, 32}, "UpdateNodeAnnotation": {spec.UpdateNodeAnnotation, 64},
		"UpdatePodLabel": {spec.UpdatePodLabel, 128}, "UpdatePodScaleDown": {spec.UpdatePodScaleDown, 256},
		"UpdatePodToleration": {spec.UpdatePodToleration, 512}, "UpdatePodSchedulingGatesEliminated": {spec.UpdatePodSchedulingGatesEliminated, 1024},
		"UpdatePodGeneratedResourceClaim": {spec.UpdatePodGeneratedResourceClaim, 2048},
		"UpdatePodOther":                  {spec.UpdatePodOther, 4096}, "UpdatePodScaleUp": {spec.UpdatePodScaleUp, 8192},
		"UpdateNodeDeclaredFeature":  {spec.UpdateNodeDeclaredFeature, 16384},
		"UpdateNodePreemptionPolicy": {spec.UpdateNodePreemptionPolicy, 32768},
		"Update":                     {spec.Update, 65532}, "All": {spec.All, 65535},
	} {
		if c.got != c.want {
			t.Errorf("spec.%s = %d, the package documentation says %d", name, c.got, c.want)
		}
	}
}

// configRoundTrip sends cfg through its wire form and JSON, and back.
func configRoundTrip(t *testing.T, cfg spec.Config) spec.Config {
	t.Helper()
	w, err := remote.EncodeConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	got, err := remote.DecodeConfig(roundTrip(t, w))
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// readReport reads the report conformance.Run wrote for a target.
func readReport(t *testing.T, path string) conformance.Report {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the run's report: %v", err)
	}
	var report conformance.Report
	if err := json.Unmarshal(b, &report); err != nil {
		t.Fatal(err)
	}
	return report
}

// TestPreQueueingCrossesOrIsRefused: the pre-queueing setting (R20-R22,
// G14) and its standard hints reach the reference peer, which confirms
// the setting; a peer that does not confirm it (one written before it) is
// refused with spec.ErrInvalidConfig (the suite's n/a) saying what it
// must answer; a pre-queueing hint outside the standard set does not
// cross, naming its registration.
func TestPreQueueingCrossesOrIsRefused(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cfg := schedqtest.ConfigChange{Profile: spec.ProfileHints, PreQueueing: true}.Build()
	p, err := remote.Start([]string{peerBin}, cfg, start)
	if err != nil {
		t.Fatalf("the reference peer with prequeue=on: %v", err)
	}
	p.Stop()
	t.Run("older-peer", func(t *testing.T) {
		t.Setenv(envFakePeer, "v2-without-group-rules")
		_, err := remote.Start([]string{os.Args[0]}, cfg, start)
		if !errors.Is(err, spec.ErrInvalidConfig) || !strings.Contains(err.Error(), `"preQueueing":true`) {
			t.Fatalf("a peer that does not confirm preQueueing: got %v, want spec.ErrInvalidConfig naming the answer", err)
		}
	})
	w, err := remote.EncodeConfig(cfg)
	if err != nil || !w.PreQueueing || len(w.PreQueueingHints) != len(cfg.PreQueueingHints) {
		t.Fatalf("EncodeConfig: preQueueing %v with %d hints, %v; want true with %d", w.PreQueueing, len(w.PreQueueingHints), err, len(cfg.PreQueueingHints))
	}
	back, err := remote.DecodeConfig(w)
	if err != nil || !back.PreQueueing || len(back.PreQueueingHints) != len(cfg.PreQueueingHints) {
		t.Fatalf("DecodeConfig: preQueueing %v with %d hints, %v", back.PreQueueing, len(back.PreQueueingHints), err)
	}
	for k := range cfg.PreQueueingHints {
		cfg.PreQueueingHints[k] = func(spec.Occurrence) (spec.PreQueueingResult, error) { return spec.AllPods, nil }
		if _, err := remote.EncodeConfig(cfg); !errors.Is(err, spec.ErrInvalidConfig) || !strings.Contains(err.Error(), "pre-queueing hint of plugin "+k.Plugin) {
			t.Errorf("EncodeConfig of a pre-queueing hint outside the standard set: %v, want spec.ErrInvalidConfig naming plugin %s", err, k.Plugin)
		}
		break
	}
}
