package conformance

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
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
	// Observed is, for a known difference, how it showed: the step, its
	// operation and each differing field (model / target).
	Observed string `json:"observed,omitempty"`
}

// Report is every result for one target, as written for RESULTS.md.
type Report struct {
	Profile Profile  `json:"profile"`
	Results []Result `json:"results"`
	// Test is the name of the test that ran Run, to reproduce a result
	// with go test -run.
	Test string `json:"test,omitempty"`
}

// Options tune Run.
type Options struct {
	// Scenarios, if set, is a regular expression selecting scenarios by
	// name; the differential runs then do not run.
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
	// SkipCatalogue runs only Dirs (and the differential runs).
	SkipCatalogue bool
	// SkipDifferential, if not empty, is why the model-differential random
	// runs of the classic profile do not apply to this target (a queue
	// whose semantics differ from the classic queue by design); the report
	// shows it. Their number is rapid's -rapid.checks.
	SkipDifferential string
	// SkipHintsDifferential is the same for the random runs of the hints
	// profile (RunHintsDifferential). A target that refuses the hints
	// config needs none: those runs are then n/a by themselves.
	SkipHintsDifferential string
	// ResultsDir, if set (or if $SCHEDQ_CONFORMANCE_RESULTS is), receives
	// <profile>.json with every result, for the RESULTS.md report.
	ResultsDir string
}

// Run runs the scenario catalogue, the scenarios of opts.Dirs and the
// model-differential random runs against targets made by newTarget. Each
// scenario is a subtest; a failure names the step, the rule or invariant,
// what the model and the target did, and the operations as a scenario.
func Run(t *testing.T, newTarget NewTarget, opts Options) {
	t.Helper()
	var sel *regexp.Regexp
	if opts.Scenarios != "" {
		var err error
		if sel, err = regexp.Compile(opts.Scenarios); err != nil {
			t.Fatalf("conformance: Options.Scenarios: %v", err)
		}
	}
	var files []ScenarioFile
	if !opts.SkipCatalogue {
		cat, err := catalogue(opts.CatalogueDir)
		if err != nil {
			t.Fatalf("conformance: reading the catalogue: %v", err)
		}
		files = cat
	}
	for _, dir := range opts.Dirs {
		own, err := ReadScenarioDir(dir)
		if err != nil {
			t.Fatalf("conformance: %v", err)
		}
		files = append(files, own...)
	}
	var mu sync.Mutex
	report := Report{Test: t.Name()}
	for _, f := range files {
		if sel != nil && !sel.MatchString(f.Name) {
			continue
		}
		t.Run(f.Name, func(t *testing.T) {
			res, prof := RunFile(t, newTarget, f)
			mu.Lock()
			defer mu.Unlock()
			if prof.Name != "" { // "" if the target refused the scenario's profile
				report.Profile = prof
			}
			report.Results = append(report.Results, res)
		})
	}
	if sel == nil {
		t.Run("differential", func(t *testing.T) {
			res := Result{Scenario: "model-differential random runs", Rules: []spec.Rule{"R1-R13"}, Outcome: Pass, Profile: spec.ProfileClassic.String()}
			switch {
			case opts.SkipDifferential != "":
				res.Outcome, res.Detail = NotApplicable, opts.SkipDifferential
			case !RunDifferential(t, newTarget):
				res.Outcome = Fail
			}
			mu.Lock()
			defer mu.Unlock()
			report.Results = append(report.Results, res)
			if res.Outcome == NotApplicable {
				t.Skip(opts.SkipDifferential)
			}
		})
		t.Run("differential-hints", func(t *testing.T) {
			res := runHintsDifferentialResult(t, newTarget, opts.SkipHintsDifferential)
			mu.Lock()
			defer mu.Unlock()
			report.Results = append(report.Results, res)
			if res.Outcome == NotApplicable {
				t.Skip(res.Detail)
			}
		})
	}
	dir := opts.ResultsDir
	if dir == "" {
		dir = os.Getenv("SCHEDQ_CONFORMANCE_RESULTS")
	}
	if dir != "" && report.Profile.Name != "" {
		if err := writeReport(dir, report); err != nil {
			t.Errorf("writing results: %v", err)
		}
	}
}

// RunScenario runs the catalogue scenario with this name (e.g.
// "add/new-pod-enters-activeQ") on a fresh target; see RunFile.
func RunScenario(t *testing.T, newTarget NewTarget, name string) (Result, Profile) {
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
	return Result{}, Profile{}
}

// RunFile runs one scenario file on a fresh target and reports its outcome
// on t: a failure fails t unless a known difference of the target's
// profile explains it; a known difference that does not show fails t as
// stale. The file's expected output must be what the model prints (run
// with -rewrite to regenerate it); a file that disagrees with the model
// fails whatever the target.
func RunFile(t *testing.T, newTarget NewTarget, f ScenarioFile) (res Result, prof Profile) {
	t.Helper()
	tb := &fileTB{TB: t}
	d := newDriver(tb, f.Name, newTarget)
	res = Result{Scenario: f.Name}
	finish := func() {
		prof = d.prof
		res.Profile = d.sc.Config.Profile.String()
		for _, r := range d.sc.Rules {
			res.Rules = append(res.Rules, spec.Rule(r))
		}
		var known *KnownDifference
		for i := range d.sc.KnownDifferences {
			if d.sc.KnownDifferences[i].AppliesTo(prof.Name) {
				known = &d.sc.KnownDifferences[i]
			}
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
			t.Logf("not applicable to %s: %s", prof.Name, d.na)
		case d.failed && known != nil:
			res.Outcome, res.Detail = Known, known.Reason+" ("+known.Source+")"
			res.Observed = strings.TrimSpace(d.failure)
			t.Logf("known difference of %s: %s\n  source: %s\n  observed: %s", prof.Name, known.Reason, known.Source, d.failureReport())
		case d.failed:
			res.Outcome, res.Detail = Fail, firstLine(strings.SplitN(d.failure, "\n", 2)[1])
			t.Errorf("scenario %s (rules %s) fails on %s (model = the reference, target = %s):\n%s",
				f.Name, strings.Join(d.sc.Rules, " "), prof.Name, prof.Name, d.failureReport())
		case known != nil:
			res.Outcome, res.Detail = Stale, known.Reason
			t.Errorf("%s declares a known difference for %s (%s) but the target behaved as the reference: remove the declaration or check the target", f.Name, prof.Name, known.Reason)
		default:
			res.Outcome = Pass
		}
	}
	playFile(tb, d, f)
	finish()
	return res, prof
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
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, r.Profile.Name+".json"), b, 0o644)
}
