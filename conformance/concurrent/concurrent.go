// Package concurrent checks a conformance.Target under concurrency: the
// part of the contract that one goroutine at a time cannot show.
//
//   - Wake-ups (R2, R13): for every operation that must wake a blocked Pop
//     (Add, AddUnschedulableIfNotPresent into activeQ, every move, both
//     flushes, Activate, Update, Close), a Pop goroutine is started and the
//     check waits until the runtime reports it parked inside the target's
//     Pop (internal/parked) before the operation runs: a check that only
//     started the Pop would pass a queue that never signals, because the
//     Pop would usually find the pod without waiting. Then the Pop must
//     return. A Pop still asleep in its wait after the operation, with a
//     pod in activeQ, is a lost wake-up.
//   - Conservation (I1, I4) under contention: workers add, pop, hand back,
//     finish and delete pods concurrently with moves, flushes and clock
//     steps. No pod may be handed to two Pops without being handed back in
//     between, and after quiescence every pod added and neither Done nor
//     deleted is held exactly once. A moment where every worker sleeps in
//     Pop while activeQ holds a pod is a lost wake-up too.
//
// Every check has its own deadline, well inside go test's: on expiry it
// fails saying which goroutine waits in which operation, what the queue
// holds and which pods are unaccounted for, instead of hanging until the
// test binary is killed.
//
// A violation prints the interleaving that led to it (the round's last
// operation starts and returns), and a panic of the target in a call is a
// violation, not a crash. A narrow race (a lock released between two steps
// of one operation) shows reliably on impl's schedule-perturbing build,
// `go test -tags schedqperturb ./conformance/concurrent/` (impl/perturb.go:
// the queue's lock yields around every acquire and release), where the
// ordinary build seldom lets another operation in between.
//
// Linearizability against the model, for profiles that have it, is
// package linearizability's (RecordTarget); Run calls it when asked
// (Options.Linearizability).
package concurrent

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/schedq/schedq/conformance"
)

// Options tune Run. Zero values take the defaults.
type Options struct {
	// Deadline bounds each check (one wake-up check, one conservation
	// round); default 20s. A conservation round counts it from its last
	// progress (an operation that returned): it is the time a round may
	// make none before it is diagnosed as a hang.
	Deadline time.Duration
	// WakeTimeout is how long a Pop that must have been woken may stay
	// asleep before the check says it was not; default 2s. A correct queue
	// makes it runnable before the waking operation returns, so this is
	// only the time a failing check takes.
	WakeTimeout time.Duration
	// Workers, Rounds and OpsPerWorker size the conservation runs
	// (defaults 4, 8, 150).
	Workers, Rounds, OpsPerWorker int
	// Seed seeds the workers' choices; 0 takes the time.
	Seed uint64
	// Wakeups selects wake-up checks by name (all if empty).
	Wakeups []string
	// Linearizability, if set, also checks concurrent histories of the
	// target against the model: for profiles with the model's semantics.
	Linearizability *LinOptions
	// ResultsDir, if set (or if $SCHEDQ_CONFORMANCE_RESULTS is), receives
	// concurrent/<target name>.json for RESULTS.md; NoReport writes none (a
	// test queue that is no target of the report).
	ResultsDir string
	NoReport   bool
	// Known are violations of the target's that have been diagnosed and
	// reported (Findings), each with its reproduction: a conservation
	// violation that matches one is reported as known instead of failing.
	// A race shows only in some runs, so one that does not show is not
	// stale; its reproduction test is what keeps it honest.
	Known []Finding
}

// Finding is a concurrency violation of a target, diagnosed: what goes
// wrong, the reproduction (operations, goroutines, interleaving), the
// upstream source lines, and how often the reproduction shows it.
type Finding struct {
	Title string `json:"title"`
	// Kind is the finding's triage (conformance.KindBug for a defect of
	// the target; ID names its entry in the findings catalogue, findings/).
	Kind conformance.DifferenceKind `json:"kind,omitempty"`
	ID   string                     `json:"id,omitempty"`
	// Match is a substring of the violations it explains.
	Match        string `json:"match"`
	Reproduction string `json:"reproduction"`
	Source       string `json:"source"`
	// Rate is what the reproduction test measured: "k of n trials".
	Rate string `json:"rate,omitempty"`
	// Evidence, if set, must confirm a violation that Match matches
	// (say, the target logged the error that is the finding's signature
	// for the pod the violation names); without it a known finding
	// could hide another bug with the same symptom.
	Evidence func(violation string) bool `json:"-"`
}

// checkKind refuses a finding nobody has triaged, as a scenario's known
// difference without a kind is refused.
func (f Finding) checkKind() error {
	return conformance.KnownDifference{Reason: f.Title, Kind: f.Kind, Finding: f.ID}.CheckKind()
}

func (o Options) withDefaults() Options {
	if o.Deadline <= 0 {
		o.Deadline = 20 * time.Second
	}
	if o.WakeTimeout <= 0 {
		o.WakeTimeout = 2 * time.Second
	}
	if o.Workers <= 0 {
		o.Workers = 4
	}
	if o.Rounds <= 0 {
		o.Rounds = 8
	}
	if o.OpsPerWorker <= 0 {
		o.OpsPerWorker = 150
	}
	if o.Seed == 0 {
		o.Seed = uint64(time.Now().UnixNano())
	}
	return o
}

// Report is what Run found on one target, as written for RESULTS.md.
type Report struct {
	Target          conformance.TargetInfo `json:"target"`
	Wakeups         []WakeResult           `json:"wakeups"`
	Conservation    ConservationResult     `json:"conservation"`
	Linearizability *LinearizabilityResult `json:"linearizability,omitempty"`
	// Findings are the known violations of this target (Options.Known),
	// with the rate their reproduction measured.
	Findings []Finding `json:"findings,omitempty"`
}

// LinearizabilityResult is what the linearizability runs checked.
type LinearizabilityResult struct {
	Histories  int    `json:"histories"`
	Operations int    `json:"operations"`
	Clients    string `json:"clients"`
	Failures   int    `json:"failures"`
	Undecided  int    `json:"undecided"`
	// Detail describes the first failure, or what the runs could not do.
	Detail string `json:"detail,omitempty"`
	// Adapter is LinOptions.TargetNote: what the check's own target
	// serialises, if it has one.
	Adapter string `json:"adapter,omitempty"`
}

// Run runs every concurrent check against targets made by newTarget, each
// as a subtest, and writes the report if asked.
func Run(t *testing.T, newTarget conformance.NewTarget, opts Options) Report {
	t.Helper()
	opts = opts.withDefaults()
	t.Logf("seed %d", opts.Seed)
	for _, f := range opts.Known {
		if err := f.checkKind(); err != nil {
			t.Fatalf("Options.Known: %v", err)
		}
	}
	var rep Report
	t.Run("wakeups", func(t *testing.T) {
		rep.Wakeups = RunWakeups(t, newTarget, opts)
	})
	t.Run("conservation", func(t *testing.T) {
		rep.Conservation = RunConservation(t, newTarget, opts)
	})
	if opts.Linearizability != nil {
		t.Run("linearizability", func(t *testing.T) {
			nt := newTarget
			if opts.Linearizability.Target != nil {
				nt = opts.Linearizability.Target
			}
			rep.Linearizability = RunLinearizability(t, nt, *opts.Linearizability, opts.Seed)
			rep.Linearizability.Adapter = opts.Linearizability.TargetNote
		})
	}
	// The profile, from a throwaway target.
	rep.Target = newTarget(t, wakeConfig(), start).Info()
	rep.Findings = opts.Known
	dir := opts.ResultsDir
	if dir == "" {
		dir = os.Getenv("SCHEDQ_CONFORMANCE_RESULTS")
	}
	if dir != "" && !opts.NoReport {
		if err := WriteReport(dir, rep); err != nil {
			t.Errorf("writing results: %v", err)
		}
	}
	return rep
}

// ReportDir is the subdirectory of the results directory the reports go
// to, apart from conformance.Run's.
const ReportDir = "concurrent"

// WriteReport writes rep to dir/concurrent/<target name>.json.
func WriteReport(dir string, rep Report) error {
	return conformance.WriteResult(filepath.Join(dir, ReportDir), rep.Target.Name, rep)
}
