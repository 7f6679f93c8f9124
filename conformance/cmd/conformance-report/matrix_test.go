package main

import (
	"strings"
	"testing"

	"github.com/schedq/schedq/conformance"
	"github.com/schedq/schedq/conformance/concurrent"
)

func report(name string, res ...conformance.Result) conformance.Report {
	return conformance.Report{Target: conformance.TargetInfo{Name: name}, Results: res}
}

// TestMatrixSpans: a difference seen on v1.34 and v1.36 but not v1.35 is
// reported first v1.34, last v1.36, not in v1.35; one seen only on v1.37
// starts and ends there; a finding measured at 0 trials on a release does
// not count as shown there. The kind column lists each release's triage
// once: "bug F01 / change" where two releases declare the same scenario
// differently.
func TestMatrixSpans(t *testing.T) {
	known := func(sc string, kind ...string) conformance.Result {
		r := conformance.Result{Scenario: sc, Outcome: conformance.Known, Detail: "why " + sc}
		if len(kind) > 0 {
			r.Kind = conformance.DifferenceKind(kind[0])
		}
		if len(kind) > 1 {
			r.Finding = kind[1]
		}
		return r
	}
	pass := func(sc string) conformance.Result { return conformance.Result{Scenario: sc, Outcome: conformance.Pass} }
	reports := []conformance.Report{
		report("schedq-impl", pass("a"), pass("b")),
		report("upstream-v1.34.7", known("a", "bug", "F01"), pass("b")),
		report("upstream-v1.35.6", pass("a"), pass("b")),
		report("upstream-v1.36.5", known("a", "change"), pass("b")),
		report("upstream-v1.37.2", pass("a"), known("b", "departure")),
		report("upstream-v1.33.13-classic", pass("a"), pass("b")),
	}
	f := concurrent.Finding{Title: "lost pod", Kind: conformance.KindBug, ID: "F02"}
	conc := []concurrent.Report{}
	for name, rate := range map[string]string{"upstream-v1.34.7": "3 of 400 trials", "upstream-v1.35.6": "0 of 400 trials", "upstream-v1.37.2": "5 of 400 trials"} {
		g := f
		g.Rate = rate
		conc = append(conc, concurrent.Report{Target: conformance.TargetInfo{Name: name}, Findings: []concurrent.Finding{g}})
	}
	out := renderMatrix(reports, conc)
	for _, want := range []string{
		"| `a` | default gates | bug F01 / change | v1.34.7 | v1.36.5 | v1.35.6 | why a |",
		"| `b` | default gates | departure | v1.37.2 | v1.37.2 | - | why b |",
		"| lost pod | default gates | bug F02 | v1.34.7 | v1.37.2 | v1.35.6, v1.36.5 |",
		"| v1.33.13 | 2 pass |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the matrix lacks %q:\n%s", want, out)
		}
	}
}

// TestGroupRacesTable: a race a target declares a finding is marked so, a
// race the target did not run says so, and no races at all says "Not run"
// rather than an empty table.
func TestGroupRacesTable(t *testing.T) {
	if got := renderGroupRaces(nil); !strings.Contains(got, "Not run") {
		t.Errorf("no reports: %q, want a Not run line", got)
	}
	got := renderGroupRaces([]concurrent.GroupRaceReport{
		{Target: conformance.TargetInfo{Name: "a"}, Races: []concurrent.GroupRaceResult{
			{Name: "r1", Title: "one", Ran: 10, Violations: 3, ByKind: map[string]int{"IG3": 3}, First: "IG3: stuck\nmore"},
			{Name: "r2", Title: "two", Ran: 10},
		}, Known: []string{"r1"}, Findings: map[string]string{"r1": "F04"}},
		{Target: conformance.TargetInfo{Name: "b"}, Races: []concurrent.GroupRaceResult{{Name: "r1", Title: "one", Ran: 5}}},
	})
	for _, want := range []string{
		"| `r1`: one | **3 of 10** (bug F04) | 0 of 5 |",
		"| `r2`: two | 0 of 10 | not run |",
		"- `a`, r1: 3 IG3; the first: IG3: stuck\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
}

// TestGeneratedTable: failures under a declared difference are counted as
// known and listed by it; one no declaration explains is bold in the table
// and printed with its scenario; no results say the run was not made.
func TestGeneratedTable(t *testing.T) {
	if got := renderGenerated(nil); !strings.Contains(got, "Not run") {
		t.Errorf("no results: %q, want a Not run line", got)
	}
	got := renderGenerated([]generatedRun{{target: "up", results: []conformance.GeneratedResult{{
		Target: "up", Graph: "GraphExt", Index: "GraphExt: 3 scenarios", Ran: 3, Pass: 0, NA: 0,
		Groups: []conformance.GeneratedGroup{
			{Signature: "s1", Count: 2, Known: "update/x", Reason: "r"},
			{Signature: "s2", Count: 1, Scenario: "add a\n", Detail: "pop: differs\nmore"},
		},
	}}}})
	for _, want := range []string{
		"| `up` | GraphExt | 3 | 0 | 2 | **1** | 0 |",
		"- `up`: 2 under `update/x`",
		"- `up`, GraphExt, 1 scenarios: pop: differs\n\n```\nadd a\n```",
		"- GraphExt: 3 scenarios",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
}

// TestUpstreamNamesOrderPreReleases: a pre-release is a release of the
// matrix (its name was once left out, and v1.38.0-beta.0's column with
// it), ordered after the minor before it and before its own release,
// classic mode first.
func TestUpstreamNamesOrderPreReleases(t *testing.T) {
	names := []string{"upstream-v1.38.0", "upstream-v1.38.0-beta.0", "upstream-v1.38.0-beta.0-classic", "upstream-v1.37.2"}
	var ranks []int
	for _, n := range names {
		r, ok := upstreamRank(n)
		if !ok {
			t.Fatalf("%s is not an upstream target's name", n)
		}
		ranks = append(ranks, r)
	}
	if !(ranks[3] < ranks[2] && ranks[2] < ranks[1] && ranks[1] < ranks[0]) {
		t.Errorf("ranks %v of %v: want v1.37.2 < v1.38.0-beta.0-classic < v1.38.0-beta.0 < v1.38.0", ranks, names)
	}
	if u, _ := parseUpstream("upstream-v1.38.0-beta.0"); u.release != "v1.38.0-beta.0" || u.classic {
		t.Errorf("upstream-v1.38.0-beta.0 parsed as %+v", u)
	}
}

// TestConcurrentCellNamesEachFindingsRate: the concurrent column names each
// declared finding with the rate its reproduction measured on that
// release, so a release with upstream's fix reads "known F01: 0 of 2000
// trials" and not as one more known finding; a finding without an id is
// named by its triage.
func TestConcurrentCellNamesEachFindingsRate(t *testing.T) {
	conc := []concurrent.Report{
		{Target: conformance.TargetInfo{Name: "upstream-v1.37.2"}, Findings: []concurrent.Finding{{ID: "F01", Kind: conformance.KindBug, Rate: "3 of 400 trials"}}},
		{Target: conformance.TargetInfo{Name: "upstream-v1.38.0-beta.0"}, Findings: []concurrent.Finding{{ID: "F01", Kind: conformance.KindBug, Rate: "0 of 2000 trials"}}},
		{Target: conformance.TargetInfo{Name: "upstream-v1.33.13"}, Findings: []concurrent.Finding{{Kind: conformance.KindDeparture}}},
	}
	for release, want := range map[string]string{
		"v1.37.2":        "known F01: 3 of 400 trials",
		"v1.38.0-beta.0": "known F01: 0 of 2000 trials",
		"v1.33.13":       "known " + string(conformance.KindDeparture),
	} {
		if got := concurrentCell(conc, release); !strings.HasSuffix(got, want) || strings.Contains(got, "finding(s)") {
			t.Errorf("%s: %q, want it to end %q", release, got, want)
		}
	}
}
