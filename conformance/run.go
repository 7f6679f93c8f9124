package conformance

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/schedq/schedq/spec"
)

// Outcome of a scenario on a target.
type Outcome string

// Outcomes.
const (
	Pass Outcome = "pass"
	Fail Outcome = "fail"
	// Known: the scenario failed on a profile that declares the difference.
	Known Outcome = "known difference"
	// Stale: a declared known difference did not show; the declaration is
	// wrong or upstream changed. It fails the run.
	Stale Outcome = "stale known difference"
	// NotApplicable: the scenario needs something the target cannot do
	// (block, or observe a field).
	NotApplicable Outcome = "n/a"
)

// Result is the outcome of one scenario on one target.
type Result struct {
	Scenario string      `json:"scenario"`
	Rules    []spec.Rule `json:"rules"`
	Outcome  Outcome     `json:"outcome"`
	Detail   string      `json:"detail,omitempty"`
	// Profile is the contract profile (spec.Profile) the scenario is
	// written for: "classic" or "hints".
	Profile string `json:"profile,omitempty"`
	// Observed is, for a failure or a known difference, how it showed:
	// the step, its operation and each differing field (model / target).
	Observed string `json:"observed,omitempty"`
	// Kind and Finding are the declaration's triage, for a known or stale
	// difference (KnownDifference.Kind, .Finding).
	Kind    DifferenceKind `json:"kind,omitempty"`
	Finding string         `json:"finding,omitempty"`
}

// Report is every result for one target, as written for RESULTS.md.
type Report struct {
	Target  TargetInfo `json:"target"`
	Results []Result   `json:"results"`
	// Summary says what ran: the scenarios selected and their outcomes,
	// and the random runs (how many, what they compared) or why not.
	Summary string `json:"summary,omitempty"`
	// Test is the name of the test that ran Run, to reproduce a result
	// with go test -run.
	Test string `json:"test,omitempty"`
}

// Options tune Run. The zero value runs everything: the preflight check
// of the adapter, every scenario of the catalogue, and DefaultChecks random
// runs comparing everything the target observes.
type Options struct {
	// Scenarios, if set, is a regular expression selecting scenarios by
	// name. It selects scenarios only: the random runs still run (set
	// SkipDifferential to leave them out), and
	// the run's summary says what ran.
	Scenarios string
	// Dirs are directories of your own scenario files, run after the
	// catalogue in the same way: every *.txt below a directory is a
	// scenario named by its path under it, without ".txt" (e.g.
	// testdata/scenarios with regressions/pop-after-close.txt). Run with
	// -rewrite to write the model's expected output into them.
	Dirs []string
	// CatalogueDir, if set, reads the catalogue from this directory
	// instead of the copy embedded in the package, so that -rewrite
	// updates the files (schedq's own tests set testdata/scenarios).
	CatalogueDir string
	// SkipCatalogue runs only Dirs (and the random runs).
	SkipCatalogue bool
	// KnownDifferences declares the scenarios your target fails on
	// purpose, by scenario name (e.g. "add/duplicate-is-rejected"), as a
	// scenario file's "known-difference" directive does for the profiles
	// it names. Profiles may be left empty: the declaration is then for
	// the target's own profile. Give the Reason, the Kind (for your own
	// queue's choices, KindDeparture) and, as Source, where your code
	// does it. Such a scenario still runs; its failure is
	// reported as a known difference, and if it passes it fails as
	// stale. A name that is not a scenario of the run fails the run.
	KnownDifferences map[string]KnownDifference
	// SkipDifferential, if not empty, is why the model-differential
	// random runs do not apply to this target: it skips those of every
	// profile ("differential", "differential-hints"). The report and the
	// summary name what was skipped and why.
	SkipDifferential string
	// SkipDifferentialIn skips the random runs of the profiles it names,
	// with the reason: for a queue whose semantics in one profile differ
	// by design. A target that refuses a profile's config needs none:
	// those runs are then n/a by themselves. Checks, Ignore and
	// FailFileDir apply to every profile's runs.
	SkipDifferentialIn map[spec.Profile]string
	// SkipHintsDifferential skips the random runs of the hints profile.
	//
	// Deprecated: use SkipDifferentialIn[spec.ProfileHints].
	SkipHintsDifferential string
	// Checks is the number of random runs (operation sequences of about
	// 30 steps each); 0 means DefaultChecks. rapid's -rapid.checks flag,
	// when given on the command line, wins.
	Checks int
	// Ignore leaves observations out of the random comparison, for a
	// target that differs from the model there on purpose (the rest is
	// still compared after every step). Ignoring anything but
	// IgnoreMetrics also turns off the step invariants I1-I6 in the
	// random runs, since they are stated over the state ignored. Pop's
	// choice among pods tied under spec.Less needs no entry: any maximal
	// pod is allowed (I5), and the model follows the target's choice.
	Ignore []Observation
	// FailFileDir is where rapid keeps the fail file of a failing random
	// run (under testdata/rapid/<test name>/), and where it looks for
	// them to replay a failure first on the next run. If empty,
	// $SCHEDQ_RAPID_FAILFILE_DIR, else DefaultFailFileDir(), a directory
	// of this checkout's own: never your package's own testdata/, where
	// rapid writes by default. The random
	// runs change the working directory to it (t.Chdir), so they are
	// not run in a parallel test: there rapid writes to its default.
	FailFileDir string
	// ResultsDir, if set (or if $SCHEDQ_CONFORMANCE_RESULTS is), receives
	// <target name>.json with every result, for the RESULTS.md report.
	ResultsDir string
}

// DefaultChecks is the number of random runs when Options.Checks is 0.
// Measured on a shared 2-core machine (BenchmarkRandomRuns), a run costs
// 1-4 ms on schedq's implementation or the model, 3-10 ms with the race
// detector: 300 runs take 1-3 s. Over 20 seeds they catch a backoff
// off-by-one (the backoffQ flush releasing a pod whose expiry equals now)
// after 24 runs in the median and 111 at most (TestChecksToCatchOffByOne;
// without the clock steered to expiries it took 227 and up to 948, which
// is why rapid's default of 100 missed it). Raise it for a nightly job.
const DefaultChecks = 300

// Observation names a part of the comparison that Options.Ignore can leave
// out of the random runs.
type Observation string

// Observations the random comparison can ignore.
const (
	// IgnoreTimestamps: each pod's Timestamp and InitialAttemptTimestamp.
	IgnoreTimestamps Observation = "timestamps"
	// IgnoreAttempts: each pod's Attempts.
	IgnoreAttempts Observation = "attempts"
	// IgnorePlugins: each pod's UnschedulablePlugins.
	IgnorePlugins Observation = "plugins"
	// IgnoreMoveRequestCycle: Snapshot.MoveRequestCycle.
	IgnoreMoveRequestCycle Observation = "moveRequestCycle"
	// IgnoreClosed: Snapshot.Closed.
	IgnoreClosed Observation = "closed"
	// IgnoreMetrics: the metrics of a MetricsReporter (R14, R14h).
	IgnoreMetrics Observation = "metrics"
)

var observations = []Observation{IgnoreTimestamps, IgnoreAttempts, IgnorePlugins, IgnoreMoveRequestCycle, IgnoreClosed, IgnoreMetrics}

// DefaultFailFileDir is where rapid's fail files go when neither
// Options.FailFileDir nor $SCHEDQ_RAPID_FAILFILE_DIR says: a directory
// under schedq-rapid in the temporary directory named for the module the
// tests run in (the nearest go.mod at or above the working directory), so
// that a fail file another checkout on the machine left, and replays
// first, can never fail this one's run.
func DefaultFailFileDir() string {
	wd, err := os.Getwd()
	if err != nil {
		wd = "unknown"
	}
	return failFileDirOf(moduleRoot(wd))
}

// failFileDirOf is the fail file directory of the checkout at root.
func failFileDirOf(root string) string {
	sum := sha256.Sum256([]byte(root))
	return filepath.Join(os.TempDir(), "schedq-rapid", fmt.Sprintf("%s-%x", filepath.Base(root), sum[:6]))
}

// moduleRoot is the nearest directory at or above dir holding a go.mod,
// or dir if there is none.
func moduleRoot(dir string) string {
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		up := filepath.Dir(d)
		if up == d {
			return dir
		}
		d = up
	}
}

// EnvFailFileDir names the variable that sets Options.FailFileDir.
const EnvFailFileDir = "SCHEDQ_RAPID_FAILFILE_DIR"

// Run runs against targets made by newTarget, as subtests of t: first
// "preflight", which checks the adapter (see Target) and stops the run if
// it is wrong, then each scenario of the catalogue and of opts.Dirs, then
// "differential", the model-differential random runs. A failure names the
// step, the rule or invariant, what the model and the target did, and the
// operations as a scenario. The last line logged says what ran.
func Run(t *testing.T, newTarget NewTarget, opts Options) {
	t.Helper()
	files, sel, err := opts.scenarioFiles()
	if err != nil {
		t.Fatalf("conformance: %v", err)
	}
	report := Report{Test: t.Name()}
	// What go test -run filtered out does not run: the summary counts what
	// did (preflightRan, the scenarios and the random runs that ran).
	preflightRan := false
	if !t.Run("preflight", func(t *testing.T) { preflightRan = true; report.Target = Preflight(t, newTarget) }) {
		t.Errorf("conformance: the adapter failed the preflight check (above); fix it first: no scenario ran")
		return
	}
	scenarios := runScenarios(t, newTarget, opts, files, sel, &report)
	if report.Target.Name == "" {
		// Neither the preflight nor a scenario ran (go test -run kept only
		// the random runs): the summary and the results file still name
		// the target.
		report.Target = targetInfo(t, newTarget)
	}
	preflight := "preflight ok"
	if !preflightRan {
		preflight = "preflight not run (filtered by -run)"
	}
	summary := fmt.Sprintf("conformance %s: %s; %s", report.Target.Name, preflight, scenarios)
	report.Summary = summary + runRandom(t, newTarget, opts, &report)
	t.Log(report.Summary)
	dir := opts.ResultsDir
	if dir == "" {
		dir = os.Getenv("SCHEDQ_CONFORMANCE_RESULTS")
	}
	if dir != "" && report.Target.Name != "" {
		if err := writeReport(dir, report); err != nil {
			t.Errorf("writing results: %v", err)
		}
	}
}

// scenarioFiles reads the scenarios of a run, the catalogue's (unless
// opts.SkipCatalogue) then those of opts.Dirs, and checks the options
// against them. sel is the compiled opts.Scenarios, nil if it is empty.
func (opts Options) scenarioFiles() (files []ScenarioFile, sel *regexp.Regexp, err error) {
	if opts.Scenarios != "" {
		if sel, err = regexp.Compile(opts.Scenarios); err != nil {
			return nil, nil, fmt.Errorf("Options.Scenarios: %w", err)
		}
	}
	if !opts.SkipCatalogue {
		if files, err = catalogue(opts.CatalogueDir); err != nil {
			return nil, nil, fmt.Errorf("reading the catalogue: %w", err)
		}
	}
	for _, dir := range opts.Dirs {
		own, err := ReadScenarioDir(dir)
		if err != nil {
			return nil, nil, err
		}
		files = append(files, own...)
	}
	return files, sel, opts.validate(files)
}

// runScenarios runs each scenario file sel selects (all if sel is nil)
// as a subtest, adds its result to report, and says what ran: how many
// of the files, how many -run filtered out, and each outcome's count. A
// scenario the target finds n/a is skipped, and counted as n/a.
func runScenarios(t *testing.T, newTarget NewTarget, opts Options, files []ScenarioFile, sel *regexp.Regexp, report *Report) string {
	var mu sync.Mutex
	var counts [5]int // by outcome: pass, fail, known, stale, n/a
	outcomes := []Outcome{Pass, Fail, Known, Stale, NotApplicable}
	ran, selected := 0, 0
	for _, f := range files {
		if sel != nil && !sel.MatchString(f.Name) {
			continue
		}
		selected++
		t.Run(f.Name, func(t *testing.T) {
			res, info := runFile(t, newTarget, f, opts.KnownDifferences[f.Name])
			mu.Lock()
			ran++
			if info.Name != "" { // "" if the target refused the scenario's profile
				report.Target = info
			}
			report.Results = append(report.Results, res)
			counts[slices.Index(outcomes, res.Outcome)]++
			mu.Unlock()
			if res.Outcome == NotApplicable {
				t.Skip(res.Detail) // counted as n/a, shown as SKIP
			}
		})
	}
	summary := fmt.Sprintf("%d of %d scenarios ran", ran, len(files))
	if sel != nil {
		summary += fmt.Sprintf(" (selected by Scenarios=%q)", opts.Scenarios)
	}
	if ran < selected {
		summary += fmt.Sprintf(" (%d filtered by -run)", selected-ran)
	}
	return summary + fmt.Sprintf(": %d pass, %d fail, %d known differences, %d stale, %d n/a", counts[0], counts[1], counts[2], counts[3], counts[4])
}

// runRandom runs each profile's model-differential random runs as a
// subtest, adds the result of each that ran to report, and says how each
// went: skipped by the options, n/a to the target (shown as SKIP), not
// run (filtered by -run), or its outcome.
func runRandom(t *testing.T, newTarget NewTarget, opts Options, report *Report) string {
	summary := ""
	for _, p := range []spec.Profile{spec.ProfileClassic, spec.ProfileHints, spec.ProfilePodGroups} {
		ran := false
		var res Result
		t.Run(drawings[p].test, func(t *testing.T) {
			res = differentialResult(t, newTarget, opts, p, report.Target.Observes.Metrics, &ran)
			if res.Outcome == NotApplicable {
				t.Skip(res.Detail) // counted as n/a, shown as SKIP
			}
		})
		what := "; " + p.String() + " random runs"
		switch skip := opts.skipDifferential(p); {
		case skip != "":
			summary += what + " skipped: " + skip
		case res.Outcome == NotApplicable:
			summary += what + " n/a: " + res.Detail
		case !ran:
			summary += what + " not run (filtered by -run)"
			continue // nothing to report
		default:
			summary += what + ": " + res.Detail + ": " + string(res.Outcome)
		}
		report.Results = append(report.Results, res)
	}
	return summary
}

// validate checks the options against the scenarios of the run.
func (opts Options) validate(files []ScenarioFile) error {
	for _, o := range opts.Ignore {
		if !slices.Contains(observations, o) {
			return fmt.Errorf("Options.Ignore: unknown observation %q (want one of %v)", o, observations)
		}
	}
	if opts.Checks < 0 {
		return fmt.Errorf("Options.Checks is %d; want 0 (DefaultChecks) or more", opts.Checks)
	}
	for _, name := range slices.Sorted(maps.Keys(opts.KnownDifferences)) {
		if !slices.ContainsFunc(files, func(f ScenarioFile) bool { return f.Name == name }) {
			return fmt.Errorf("Options.KnownDifferences names %q, which is not a scenario of this run (a typo, or a renamed scenario?)", name)
		}
		if opts.KnownDifferences[name].Reason == "" {
			return fmt.Errorf("Options.KnownDifferences[%q] has no Reason: say what differs and why", name)
		}
		if err := opts.KnownDifferences[name].CheckKind(); err != nil {
			return fmt.Errorf("Options.KnownDifferences[%q]: %w", name, err)
		}
	}
	return nil
}

// RunScenario runs the catalogue scenario with this name (e.g.
// "add/new-pod-enters-activeQ") on a fresh target; see RunFile.
func RunScenario(t *testing.T, newTarget NewTarget, name string) (Result, TargetInfo) {
	t.Helper()
	cat, err := catalogue("")
	if err != nil {
		t.Fatalf("conformance: reading the catalogue: %v", err)
	}
	for _, f := range cat {
		if f.Name == name {
			return RunFile(t, newTarget, f)
		}
	}
	t.Fatalf("conformance: no scenario %q in the catalogue", name)
	return Result{}, TargetInfo{}
}

// RunFile runs one scenario file on a fresh target and reports its outcome
// on t: a failure fails t unless a known difference of the target's
// profile explains it; a known difference that does not show fails t as
// stale. The file's expected output must be what the model prints (run
// with -rewrite to regenerate it); a file that disagrees with the model
// fails whatever the target. A scenario that does not apply to the target
// is logged and returned as NotApplicable; Run skips its subtest.
func RunFile(t *testing.T, newTarget NewTarget, f ScenarioFile) (res Result, info TargetInfo) {
	t.Helper()
	res, info = runFile(t, newTarget, f, KnownDifference{})
	if res.Outcome == NotApplicable {
		t.Logf("not applicable to %s: %s", info.Name, res.Detail)
	}
	return res, info
}

// runFile is RunFile with the known difference Options declares for the
// scenario, if any (Reason empty: none).
func runFile(t testing.TB, newTarget NewTarget, f ScenarioFile, own KnownDifference) (res Result, info TargetInfo) {
	t.Helper()
	tb := &fileTB{TB: t}
	d := newDriver(tb, f.Name, newTarget)
	res = Result{Scenario: f.Name}
	finish := func() {
		info = d.info
		res.Profile = d.sc.Config.Profile.String()
		for _, r := range d.sc.Rules {
			res.Rules = append(res.Rules, spec.Rule(r))
		}
		var known *KnownDifference
		for i := range d.sc.KnownDifferences {
			if d.sc.KnownDifferences[i].AppliesTo(info.Name) {
				known = &d.sc.KnownDifferences[i]
			}
		}
		if own.Reason != "" && (len(own.Profiles) == 0 || own.AppliesTo(info.Name)) {
			known = &own
		}
		switch {
		case d.invalid != nil || t.Failed():
			res.Outcome, res.Detail = Fail, "the scenario file is invalid or its expected output is not the model's"
			if d.invalid != nil {
				res.Detail = d.invalid.Error()
				if !t.Failed() { // invalid only as driven on this target (e.g. a Pop that would block it)
					t.Errorf("%s: %v", f.Name, d.invalid)
				}
			} else {
				t.Errorf("%s: the expected output in the file must be what the model prints; if the diff above is intended, regenerate it with -rewrite on the model (go test ./conformance/ -run TestModel -rewrite for the catalogue)", f.Name)
			}
		case d.na != "":
			res.Outcome, res.Detail = NotApplicable, d.na
		case d.failed && known != nil:
			res.Outcome, res.Detail, res.Kind, res.Finding = Known, known.Reason, known.Kind, known.Finding
			if known.Source != "" {
				res.Detail += " (" + known.Source + ")"
			}
			res.Observed = strings.TrimSpace(d.failure)
			t.Logf("known difference of %s: %s\n  source: %s\n  observed: %s", info.Name, known.Reason, known.Source, d.failureReport())
		case d.failed:
			res.Outcome, res.Detail = Fail, firstLine(strings.SplitN(d.failure, "\n", 2)[1])
			res.Observed = strings.TrimSpace(d.failure) // the branch report's first differing observation
			t.Errorf("scenario %s (rules %s) fails on %s (model = the reference, target = %s):\n%s",
				f.Name, strings.Join(d.sc.Rules, " "), info.Name, info.Name, d.failureReport())
		case known != nil && known.Intermittent:
			res.Outcome = Pass
			t.Logf("the intermittent difference declared for %s did not show in this run: %s", info.Name, known.Reason)
		case known != nil:
			res.Outcome, res.Detail, res.Kind, res.Finding = Stale, known.Reason, known.Kind, known.Finding
			t.Errorf("%s declares a known difference for %s (%s) but the target behaved as the reference: remove the declaration or check the target", f.Name, info.Name, known.Reason)
		default:
			res.Outcome = Pass
		}
	}
	playFile(tb, d, f)
	finish()
	return res, info
}

// playFile plays the file through d. It returns when the file is done or
// tb was failed fatally (a file whose expected output is not the model's,
// or an invalid directive): the outcome is in d and tb.
func playFile(tb *fileTB, d *driver, f ScenarioFile) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		run := func(_ testing.TB, td *datadriven.TestData) string {
			out, err := d.directive(td.Cmd, td.CmdArgs, td.Input)
			if err != nil {
				tb.Fatalf("%s: %s: %v", td.Pos, td.FullCmd(), err)
			}
			return out
		}
		if f.Path != "" {
			datadriven.RunTestAny(tb, f.Path, run)
		} else {
			datadriven.RunTestFromStringAny(tb, f.Text, run)
		}
	}()
	<-done
}

// fileTB runs a scenario file in a goroutine of the runner's: a fatal
// error fails the test and ends that goroutine (not the test's), so that
// the outcome is still recorded.
type fileTB struct{ testing.TB }

func (f *fileTB) FailNow() { f.TB.Fail(); runtime.Goexit() }

func (f *fileTB) Fatal(args ...any) { f.TB.Error(args...); runtime.Goexit() }

func (f *fileTB) Fatalf(format string, args ...any) { f.TB.Errorf(format, args...); runtime.Goexit() }

func writeReport(dir string, r Report) error {
	return WriteResult(dir, r.Target.Name, r)
}

// WriteResult writes v, indented JSON, to dir/name.json, making dir: one
// report of a results directory (conformance-report reads them all into
// RESULTS.md). Run, RunGenerated and package concurrent write theirs so.
func WriteResult(dir, name string, v any) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, name+".json"), b, 0o644)
}
