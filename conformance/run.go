package conformance

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/schedq/schedq/spec"
)

// Scenario is one named case of the catalogue.
type Scenario struct {
	Name string
	// Rules are the rule ids the scenario checks.
	Rules []spec.Rule
	// Config adjusts the default config (spec.DefaultConfig(Registry)).
	Config func(*spec.Config)
	// Run drives the target.
	Run func(h *H)
	// KnownDifferences are the profiles that behave differently here.
	KnownDifferences []KnownDifference
}

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
}

// Report is every result for one target, as written for RESULTS.md.
type Report struct {
	Profile Profile  `json:"profile"`
	Results []Result `json:"results"`
}

// Options tune Run.
type Options struct {
	// Scenarios, if set, is a regular expression selecting scenarios by
	// name.
	Scenarios string
	// SkipDifferential, if not empty, is why the model-differential random
	// runs do not apply to this target (a profile whose semantics differ
	// from the classic queue by design); the report shows it. Their number
	// is rapid's -rapid.checks.
	SkipDifferential string
	// ResultsDir, if set (or if $SCHEDQ_CONFORMANCE_RESULTS is), receives
	// <profile>.json with every result, for the RESULTS.md report.
	ResultsDir string
}

// Run runs the scenario catalogue and the model-differential random runs
// against targets made by newTarget. Each scenario is a subtest; a failure
// shows the operations performed and the target's state.
func Run(t *testing.T, newTarget NewTarget, opts Options) {
	t.Helper()
	var sel *regexp.Regexp
	if opts.Scenarios != "" {
		sel = regexp.MustCompile(opts.Scenarios)
	}
	var mu sync.Mutex
	var report Report
	for _, sc := range Scenarios() {
		if sel != nil && !sel.MatchString(sc.Name) {
			continue
		}
		t.Run(sc.Name, func(t *testing.T) {
			res, prof := RunScenario(t, newTarget, sc)
			mu.Lock()
			defer mu.Unlock()
			report.Profile = prof
			report.Results = append(report.Results, res)
		})
	}
	if sel == nil {
		t.Run("differential", func(t *testing.T) {
			res := Result{Scenario: "model-differential random runs", Rules: []spec.Rule{"R1-R13"}, Outcome: Pass}
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

// RunScenario runs one scenario on a fresh target and reports its outcome
// on t: a failure fails t unless a known difference of the target's profile
// explains it; a known difference that does not show fails t as stale.
func RunScenario(t *testing.T, newTarget NewTarget, sc Scenario) (Result, Profile) {
	t.Helper()
	cfg := spec.DefaultConfig(Registry)
	if sc.Config != nil {
		sc.Config(&cfg)
	}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	target := newTarget(t, cfg, start)
	prof := target.Profile()
	h := &H{target: target, profile: prof, cfg: cfg, start: start}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			if r := recover(); r != nil {
				h.failure = fmt.Sprintf("panic: %v", r)
			}
		}()
		sc.Run(h)
	}()
	<-done

	res := Result{Scenario: sc.Name, Rules: sc.Rules}
	var known *KnownDifference
	for i := range sc.KnownDifferences {
		if sc.KnownDifferences[i].appliesTo(prof.Name) {
			known = &sc.KnownDifferences[i]
		}
	}
	trace := "  operations:\n    " + strings.Join(h.log, "\n    ")
	switch {
	case h.na != "":
		res.Outcome, res.Detail = NotApplicable, h.na
		t.Logf("not applicable to %s: %s", prof.Name, h.na)
	case h.failure != "" && known != nil:
		res.Outcome, res.Detail = Known, known.Reason+" ("+known.Source+")"
		t.Logf("known difference of %s: %s\n  source: %s\n  observed: %s\n%s", prof.Name, known.Reason, known.Source, h.failure, trace)
	case h.failure != "":
		res.Outcome, res.Detail = Fail, firstLine(h.failure)
		t.Errorf("%s %v on %s: %s\n%s", sc.Name, sc.Rules, prof.Name, h.failure, trace)
	case known != nil:
		res.Outcome, res.Detail = Stale, known.Reason
		t.Errorf("%s declares a known difference for %s (%s) but the target behaved as the reference: remove the declaration or check the target", sc.Name, prof.Name, known.Reason)
	default:
		res.Outcome = Pass
	}
	return res, prof
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

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
