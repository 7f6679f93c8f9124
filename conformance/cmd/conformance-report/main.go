// Command conformance-report turns the <profile>.json files written by
// conformance.Run (with $SCHEDQ_CONFORMANCE_RESULTS set) into RESULTS.md: a
// table of scenario x target with totals, followed by every known
// difference with its reason and source, and then the concurrency
// section from concurrent/<profile>.json (written by
// conformance/concurrent.Run): wake-up checks, conservation runs,
// linearizability where the profile has the model's semantics, and every
// concurrency violation found, with its reproduction.
//
//	conformance-report -in DIR -out conformance/RESULTS.md
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/schedq/schedq/conformance"
	"github.com/schedq/schedq/conformance/concurrent"
	"github.com/schedq/schedq/spec"
)

// order puts the targets in a stable, meaningful order: schedq's, then the
// upstream releases oldest first (classic mode before default gates), then
// any other, by name.
var order = []string{conformance.TargetModel, conformance.TargetImpl}

func main() {
	in := flag.String("in", "", "directory of <profile>.json results")
	out := flag.String("out", "conformance/RESULTS.md", "markdown file to write")
	realschedPath := flag.String("realsched", "realsched/SUMMARY.md", "the real scheduler's findings, kept with its suite, copied in as a section (\"\" to leave it out)")
	flag.Parse()
	realsched := section{path: *realschedPath}
	if realsched.path != "" {
		var err error
		if realsched.text, err = os.ReadFile(realsched.path); err != nil {
			log.Fatal(err)
		}
	}
	reports, err := readAll[conformance.Report](*in)
	if err != nil || len(reports) == 0 {
		log.Fatalf("no results in %q (%v)", *in, err)
	}
	conc, err := readAll[concurrent.Report](filepath.Join(*in, concurrent.ReportDir))
	if err != nil {
		log.Fatal(err)
	}
	races, err := readAll[concurrent.GroupRaceReport](filepath.Join(*in, concurrent.GroupRaceReportDir))
	if err != nil {
		log.Fatal(err)
	}
	gen, err := readGenerated(filepath.Join(*in, conformance.GeneratedReportDir))
	if err != nil {
		log.Fatal(err)
	}
	sortByTarget(reports, func(r conformance.Report) string { return r.Target.Name })
	sortByTarget(conc, func(r concurrent.Report) string { return r.Target.Name })
	sortByTarget(races, func(r concurrent.GroupRaceReport) string { return r.Target.Name })
	sortByTarget(gen, func(r generatedRun) string { return r.target })
	if err := os.WriteFile(*out, []byte(render(reports, conc, realsched)+renderGenerated(gen)+renderConcurrent(conc)+renderGroupRaces(races)), 0o644); err != nil {
		log.Fatal(err)
	}
}

var mark = map[conformance.Outcome]string{
	conformance.Pass:          "pass",
	conformance.Fail:          "**FAIL**",
	conformance.Known:         "known difference",
	conformance.Stale:         "**STALE known difference**",
	conformance.NotApplicable: "n/a",
}

// reproduce is the command that replays one result: schedq's targets run
// in ./conformance/, every upstream release in conformance/upstream with
// its modfile and tag; other targets get none.
func reproduce(r conformance.Report, res conformance.Result) string {
	if r.Test == "" {
		return ""
	}
	run := "^" + r.Test + "$/^" + strings.ReplaceAll(res.Scenario, "/", "$/^") + "$"
	switch u, ok := parseUpstream(r.Target.Name); {
	case r.Target.Name == conformance.TargetModel || r.Target.Name == conformance.TargetImpl:
		return fmt.Sprintf("go test ./conformance/ -run '%s' -v", run)
	case ok:
		return fmt.Sprintf("(cd conformance/upstream && %s-run '%s' -v .)", upstreamGoTest(u.release), run)
	}
	return ""
}

var profiles = []struct {
	p     spec.Profile
	title string
	note  string
}{
	{spec.ProfileClassic, "Classic profile", "The classic queue (rules R1-R14): kube-scheduler v1.33.13 with SchedulerQueueingHints and SchedulerPopFromBackoffQ off."},
	{spec.ProfileHints, "Hints profile", "The queueing-hints profile (rules R1h-R18, `config profile=hints`, the standard hint set of schedqtest.HintsConfig): kube-scheduler v1.37.2 with its default gates."},
	{spec.ProfilePodGroups, "Podgroups profile", "The pod-groups profile (rules G1-G11 over the hints profile, `config profile=podgroups`): kube-scheduler v1.37.2 with GenericWorkload on. A target without spec.PodGroupQueue reports these n/a."},
}

func outcomes(m map[conformance.Outcome]int) string {
	var parts []string
	for _, o := range []conformance.Outcome{conformance.Pass, conformance.Known, conformance.NotApplicable, conformance.Fail, conformance.Stale} {
		if n := m[o]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, o))
		}
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}

// section is a file copied into the report as a section of its own.
type section struct {
	path string
	text []byte // nil: no section
}

// render is RESULTS.md: the targets, the totals per profile and target,
// the matrix, a section per profile, the real scheduler's section when
// there is one, what ran, and the known differences and other notes.
func render(reports []conformance.Report, conc []concurrent.Report, realsched section) string {
	var b strings.Builder
	b.WriteString("# Conformance results\n\n")
	b.WriteString("Written by `make conformance` (conformance/cmd/conformance-report); do not edit by hand.\n")
	b.WriteString("Each cell is the outcome of one scenario on one target. *known difference*: the target behaves\n")
	b.WriteString("differently on purpose or by design, for the reason listed below; *n/a*: the scenario needs\n")
	b.WriteString("something the target cannot do (block, observe a field, or run the scenario's profile: a\n")
	b.WriteString("target whose constructor refuses the profile's config).\n\n")
	b.WriteString("## Targets\n\n| target | what it is |\n|---|---|\n")
	for _, r := range reports {
		fmt.Fprintf(&b, "| `%s` | %s |\n", r.Target.Name, r.Target.Description)
	}
	totals := profileTotals(reports)
	renderTotals(&b, reports, totals)
	b.WriteString(renderMatrix(reports, conc))
	for _, pr := range profiles {
		renderProfile(&b, reports, pr.p, pr.title, pr.note, totals[pr.p])
	}
	if realsched.text != nil {
		// The real scheduler's suite is not part of a conformance run (its
		// modules build a whole kube-scheduler per release): its findings
		// are kept beside it and copied in, so that RESULTS.md has every
		// finding about upstream's queue in one place.
		fmt.Fprintf(&b, "\n## The real kube-scheduler\n\nCopied from `%s`, which the real-scheduler suite keeps (`make realsched`).\n\n", realsched.path)
		b.Write(realsched.text) // its links are relative to a folder one level down, as RESULTS.md's are
	}
	b.WriteString("\n## What ran\n\n")
	for _, r := range reports {
		if r.Summary != "" {
			fmt.Fprintf(&b, "- %s\n", r.Summary)
		}
	}
	renderNotes(&b, reports)
	return b.String()
}

// profileTotals counts each target's outcomes by profile:
// totals[profile][target].
func profileTotals(reports []conformance.Report) map[spec.Profile][]map[conformance.Outcome]int {
	totals := map[spec.Profile][]map[conformance.Outcome]int{}
	for _, pr := range profiles {
		totals[pr.p] = make([]map[conformance.Outcome]int, len(reports))
		for i, r := range reports {
			totals[pr.p][i] = map[conformance.Outcome]int{}
			for _, res := range r.Results {
				if conformance.ProfileOf(res) == pr.p {
					totals[pr.p][i][res.Outcome]++
				}
			}
		}
	}
	return totals
}

// renderTotals is the table of totals, a row per profile and a column per
// target; a target without results cannot run.
func renderTotals(b *strings.Builder, reports []conformance.Report, totals map[spec.Profile][]map[conformance.Outcome]int) {
	b.WriteString("\n## Totals: profile x target\n\n")
	tableHead(b, []string{"profile"}, len(reports), func(i int) string { return reports[i].Target.Name })
	for _, pr := range profiles {
		fmt.Fprintf(b, "| %s |", pr.p)
		for i, r := range reports {
			if len(r.Results) == 0 {
				b.WriteString(" n/a (cannot run) |")
				continue
			}
			fmt.Fprintf(b, " %s |", outcomes(totals[pr.p][i]))
		}
		b.WriteString("\n")
	}
}

// renderNotes lists, per target, every result but a plain pass: its
// reason, how it showed and the command that reproduces it.
func renderNotes(b *strings.Builder, reports []conformance.Report) {
	b.WriteString("\n## Known differences and other notes\n\n")
	b.WriteString("Each known difference with its reason and upstream source, how it showed (model = schedq's\n")
	b.WriteString("reference, target = the queue), and the command that reproduces it.\n\n")
	for _, r := range reports {
		var lines []string
		for _, res := range r.Results {
			if res.Outcome == conformance.Pass || res.Detail == "" {
				continue
			}
			l := fmt.Sprintf("- `%s` [%s] (%s%s): %s", res.Scenario, conformance.ProfileOf(res), res.Outcome, kindText(res.Kind, res.Finding), res.Detail)
			if res.Observed != "" {
				l += "\n\n  ```\n  " + strings.ReplaceAll(res.Observed, "\n", "\n  ") + "\n  ```\n"
			}
			if cmd := reproduce(r, res); cmd != "" && res.Outcome != conformance.NotApplicable {
				l += fmt.Sprintf("\n  reproduce: `%s`\n", cmd)
			}
			lines = append(lines, l)
		}
		if len(lines) == 0 {
			continue
		}
		fmt.Fprintf(b, "### %s\n\n%s\n\n", r.Target.Name, strings.Join(lines, "\n"))
	}
}

func renderProfile(b *strings.Builder, reports []conformance.Report, p spec.Profile, title, note string, totals []map[conformance.Outcome]int) {
	var scenarios []string
	rules := map[string]string{}
	cell := map[[2]string]conformance.Result{}
	for _, r := range reports {
		for _, res := range r.Results {
			if conformance.ProfileOf(res) != p {
				continue
			}
			if _, ok := rules[res.Scenario]; !ok {
				scenarios = append(scenarios, res.Scenario)
				var rs []string
				for _, x := range res.Rules {
					rs = append(rs, strings.SplitN(string(x), " ", 2)[0])
				}
				rules[res.Scenario] = strings.Join(rs, ", ")
			}
			cell[[2]string{res.Scenario, r.Target.Name}] = res
		}
	}
	fmt.Fprintf(b, "\n## %s: scenario x target\n\n%s\n\n", title, note)
	tableHead(b, []string{"scenario", "rules"}, len(reports), func(i int) string { return reports[i].Target.Name })
	for _, sc := range scenarios {
		fmt.Fprintf(b, "| %s | %s |", sc, rules[sc])
		for _, r := range reports {
			res, ok := cell[[2]string{sc, r.Target.Name}]
			if !ok {
				b.WriteString(" not run |")
				continue
			}
			fmt.Fprintf(b, " %s |", mark[res.Outcome])
		}
		b.WriteString("\n")
	}
	b.WriteString("| **totals** | |")
	for i := range reports {
		fmt.Fprintf(b, " %s |", outcomes(totals[i]))
	}
	b.WriteString("\n")
}

// tableHead writes the head of a table whose columns are heads, then the
// n targets, named by target.
func tableHead(b *strings.Builder, heads []string, n int, target func(int) string) {
	for _, h := range heads {
		fmt.Fprintf(b, "| %s ", h)
	}
	b.WriteString("|")
	for i := range n {
		fmt.Fprintf(b, " %s |", target(i))
	}
	b.WriteString("\n|" + strings.Repeat("---|", len(heads)+n) + "\n")
}

// renderConcurrent is the concurrency section: what ran against each
// target, and every violation found.
func renderConcurrent(reports []concurrent.Report) string {
	var b strings.Builder
	b.WriteString("\n## Concurrency\n\n")
	if len(reports) == 0 {
		b.WriteString("No concurrent results (conformance/concurrent writes them under concurrent/ of the results directory).\n")
		return b.String()
	}
	b.WriteString("Written from conformance/concurrent (`concurrent.Run`). *Wake-ups*: for each operation that must wake a\n")
	b.WriteString("blocked Pop, the Pop goroutine is first seen parked inside the target's Pop by the runtime's own account\n")
	b.WriteString("(internal/parked), then the operation runs and the Pop must return; *n/a* where the operation does not put\n")
	b.WriteString("a pod in activeQ on that target (or its Pop does not block there). *Conservation*: workers add, pop, hand\n")
	b.WriteString("back, finish and delete pods concurrently with moves, flushes and clock steps (GOMAXPROCS varied per\n")
	b.WriteString("round); no pod may be handed to two Pops without being handed back in between, and after quiescence every\n")
	b.WriteString("pod added and neither Done nor deleted is held exactly once. *Linearizability*: concurrent histories checked\n")
	b.WriteString("against the model (package linearizability), for profiles with the model's semantics.\n\n")
	b.WriteString("| target | wake-ups | conservation | linearizability | findings |\n|---|---|---|---|---|\n")
	for _, r := range reports {
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %d |\n", r.Target.Name, wakeupCounts(r), conservationCell(r.Conservation), linearizabilityCell(r.Linearizability), len(r.Findings))
	}
	writeWakeupChecks(&b, reports)
	if notes := concurrentNotes(reports); len(notes) > 0 {
		b.WriteString("\n" + strings.Join(notes, "\n") + "\n")
	}
	writeConcurrencyFindings(&b, reports)
	return b.String()
}

// wakeupCounts counts a target's wake-up checks by outcome.
func wakeupCounts(r concurrent.Report) string {
	counts := map[conformance.Outcome]int{}
	for _, w := range r.Wakeups {
		counts[w.Outcome]++
	}
	var wk []string
	for _, o := range []conformance.Outcome{conformance.Pass, conformance.NotApplicable, conformance.Fail} {
		if counts[o] > 0 {
			wk = append(wk, fmt.Sprintf("%d %s", counts[o], o))
		}
	}
	return strings.Join(wk, ", ")
}

// conservationCell sums up a target's conservation rounds.
func conservationCell(c concurrent.ConservationResult) string {
	cons := fmt.Sprintf("%d rounds x %d workers, %d ops, %d Pops, all workers asleep in Pop %d times", c.Rounds, c.Workers, c.Operations, c.Pops, c.Stuck)
	switch {
	case len(c.Violations) > 0:
		return "**FAIL**: " + cons
	case len(c.KnownViolations) > 0:
		return cons + fmt.Sprintf("; %d known violation(s) seen", len(c.KnownViolations))
	default:
		return cons + "; no violation"
	}
}

// linearizabilityCell sums up a target's linearizability histories, n/a
// where it has none.
func linearizabilityCell(l *concurrent.LinearizabilityResult) string {
	if l == nil {
		return "n/a (semantics differ from the model's)"
	}
	linz := fmt.Sprintf("%d histories (clients %s), %d ops", l.Histories, l.Clients, l.Operations)
	if l.Failures+l.Undecided > 0 {
		linz = fmt.Sprintf("**FAIL** (%d not linearizable, %d undecided): ", l.Failures, l.Undecided) + linz
	} else {
		linz += ", all linearizable"
	}
	if l.Adapter != "" {
		linz += " (" + l.Adapter + ")"
	}
	return linz
}

// writeWakeupChecks writes the wake-up checks' table, check x target.
func writeWakeupChecks(b *strings.Builder, reports []concurrent.Report) {
	var checks []string
	cell := map[[2]string]concurrent.WakeResult{}
	for _, r := range reports {
		for _, w := range r.Wakeups {
			if _, ok := cell[[2]string{w.Check, ""}]; !ok {
				checks = append(checks, w.Check)
				cell[[2]string{w.Check, ""}] = w
			}
			cell[[2]string{w.Check, r.Target.Name}] = w
		}
	}
	b.WriteString("\n### Wake-up checks\n\n")
	tableHead(b, []string{"operation", "rules"}, len(reports), func(i int) string { return reports[i].Target.Name })
	for _, ch := range checks {
		fmt.Fprintf(b, "| %s | %s |", ch, cell[[2]string{ch, ""}].Rules)
		for _, r := range reports {
			w, ok := cell[[2]string{ch, r.Target.Name}]
			if !ok {
				b.WriteString(" not run |")
				continue
			}
			fmt.Fprintf(b, " %s |", mark[w.Outcome])
		}
		b.WriteString("\n")
	}
}

// concurrentNotes lists, by target, every wake-up check that did not pass,
// every conservation violation and the linearizability check's detail.
func concurrentNotes(reports []concurrent.Report) []string {
	var notes []string
	for _, r := range reports {
		for _, w := range r.Wakeups {
			if w.Outcome != conformance.Pass {
				notes = append(notes, fmt.Sprintf("- `%s`, %s (%s): %s", r.Target.Name, w.Check, w.Outcome, firstLine(w.Detail)))
			}
		}
		for _, v := range r.Conservation.Violations {
			notes = append(notes, fmt.Sprintf("- `%s`, conservation: %s", r.Target.Name, firstLine(v)))
		}
		if l := r.Linearizability; l != nil && l.Detail != "" {
			notes = append(notes, fmt.Sprintf("- `%s`, linearizability: %s", r.Target.Name, firstLine(l.Detail)))
		}
	}
	return notes
}

// writeConcurrencyFindings writes each target's declared concurrency
// findings: how often each was reproduced and seen, and its reproduction.
func writeConcurrencyFindings(b *strings.Builder, reports []concurrent.Report) {
	b.WriteString("\n### Concurrency violations found\n\n")
	found := false
	for _, r := range reports {
		for _, f := range r.Findings {
			found = true
			fmt.Fprintf(b, "#### %s: %s\n\n", r.Target.Name, f.Title)
			if f.Rate != "" {
				fmt.Fprintf(b, "Reproduced in %s (conformance/upstream, the reproduction subtest).", f.Rate)
			}
			if n := len(r.Conservation.KnownViolations); n > 0 {
				fmt.Fprintf(b, " Seen %d time(s) in the conservation rounds of this run, confirmed by upstream's own log line for the pod.", n)
			}
			fmt.Fprintf(b, "\n\n```\n%s\n```\n\nSource: %s\n\n", f.Reproduction, f.Source)
		}
	}
	if !found {
		b.WriteString("None: every target passed the checks above.\n")
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// renderGroupRaces is the podgroups profile's part of the concurrency
// section: race x target, the trials that broke the contract and the
// legal outcomes of the others.
func renderGroupRaces(reports []concurrent.GroupRaceReport) string {
	var b strings.Builder
	b.WriteString("\n### Pod-group races (podgroups profile)\n\n")
	if len(reports) == 0 {
		b.WriteString("Not run: no target wrote concurrent-podgroups/ results (`concurrent.ReportPodGroupRaces`).\n")
		return b.String()
	}
	b.WriteString("Written from conformance/concurrent (`concurrent.ReportPodGroupRaces`): two goroutines, released\n")
	b.WriteString("together, play the scheduler's binding and scheduling goroutines around one group's cycle, on a fresh\n")
	b.WriteString("target per trial, and the state after both is judged by the contract (G2, G4, G5, IG1-IG4). A cell is\n")
	b.WriteString("the trials that broke the contract, of those run; *finding* marks a race the target's suite declares a\n")
	b.WriteString("reported finding (its reproductions are in docs/podgroups-upstream.md), so it does not fail the run.\n\n")
	tableHead(&b, []string{"race"}, len(reports), func(i int) string { return reports[i].Target.Name + " (podgroups)" })
	var names []string
	title := map[string]string{}
	cell := map[[2]string]concurrent.GroupRaceResult{}
	for _, r := range reports {
		for _, res := range r.Races {
			if _, ok := title[res.Name]; !ok {
				names = append(names, res.Name)
				title[res.Name] = res.Title
			}
			cell[[2]string{res.Name, r.Target.Name}] = res
		}
	}
	for _, n := range names {
		fmt.Fprintf(&b, "| `%s`: %s |", n, title[n])
		for _, r := range reports {
			res, ok := cell[[2]string{n, r.Target.Name}]
			if !ok {
				b.WriteString(" not run |")
				continue
			}
			c := fmt.Sprintf("%d of %d", res.Violations, res.Ran)
			if res.Violations > 0 {
				c = "**" + c + "**"
				if slices.Contains(r.Known, n) {
					c += " (bug " + r.Findings[n] + ")"
				}
			}
			fmt.Fprintf(&b, " %s |", c)
		}
		b.WriteString("\n")
	}
	var notes []string
	for _, r := range reports {
		for _, res := range r.Races {
			if res.First != "" {
				var kinds []string
				for k, n := range res.ByKind {
					kinds = append(kinds, fmt.Sprintf("%d %s", n, k))
				}
				sort.Strings(kinds)
				notes = append(notes, fmt.Sprintf("- `%s`, %s: %s; the first: %s", r.Target.Name, res.Name, strings.Join(kinds, ", "), firstLine(res.First)))
			}
		}
	}
	if len(notes) > 0 {
		b.WriteString("\n" + strings.Join(notes, "\n") + "\n")
	}
	return b.String()
}

// readAll reads every report dir/*.json as a T; a missing directory is
// none (that part of the run was not made).
func readAll[T any](dir string) ([]T, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	var out []T
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var r T
		if err := json.Unmarshal(b, &r); err != nil {
			return nil, fmt.Errorf("%s: %v", f, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// sortByTarget orders reports as the tables' columns are: schedq's targets
// first (order), then the upstream releases oldest first, then the rest by
// name.
func sortByTarget[T any](s []T, name func(T) string) {
	rank := func(n string) int {
		if i := slices.Index(order, n); i >= 0 {
			return i
		}
		if r, ok := upstreamRank(n); ok {
			return len(order) + r
		}
		return 1 << 30
	}
	sort.SliceStable(s, func(i, j int) bool {
		a, b := name(s[i]), name(s[j])
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra < rb
		}
		return a < b
	})
}

// kindText is ", kind" or ", bug F01" for a triaged difference, "" for
// a result without a declaration.
func kindText(k conformance.DifferenceKind, finding string) string {
	if k == "" {
		return ""
	}
	if finding != "" {
		return ", " + string(k) + " " + finding
	}
	return ", " + string(k)
}
