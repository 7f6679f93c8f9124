package main

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/schedq/schedq/conformance"
	"github.com/schedq/schedq/conformance/concurrent"
	"github.com/schedq/schedq/internal/releases"
	"github.com/schedq/schedq/spec"
)

// The release matrix: the upstream targets are named
// upstream-v<release>[-classic|-queueinghints] (conformance/upstream), the
// release possibly a pre-release (v1.38.0-beta.0), one
// release per minor version; the matrix puts them side by side by release
// and says, for every known difference and every concurrency finding, in
// which releases it shows: first, last, and every release between.

// upstreamName is the form of an upstream target's name.
var upstreamName = regexp.MustCompile(`^upstream-v(\d+)\.(\d+)\.(\d+)(-(?:alpha|beta|rc)\.\d+)?(-classic|-queueinghints)?$`)

// upstreamTarget is one upstream target's place in the matrix.
type upstreamTarget struct {
	release string // "v1.35.6"
	minor   int    // 35, for order
	patch   int
	pre     bool // a pre-release, before its release in order
	classic bool // the release with queueing hints off
}

func parseUpstream(name string) (upstreamTarget, bool) {
	m := upstreamName.FindStringSubmatch(name)
	if m == nil {
		return upstreamTarget{}, false
	}
	minor, _ := strconv.Atoi(m[2])
	patch, _ := strconv.Atoi(m[3])
	return upstreamTarget{release: fmt.Sprintf("v%s.%s.%s%s", m[1], m[2], m[3], m[4]), minor: minor, patch: patch, pre: m[4] != "", classic: m[5] == "-classic"}, true
}

// mode names a target's gates in the matrix.
func (u upstreamTarget) mode() string {
	if u.classic {
		return "classic mode"
	}
	return "default gates"
}

// upstreamRank orders upstream targets by release, classic mode first.
func upstreamRank(name string) (int, bool) {
	u, ok := parseUpstream(name)
	if !ok {
		return 0, false
	}
	r := u.minor*10000 + u.patch*10
	if u.pre {
		r -= 5
	}
	if !u.classic {
		r++
	}
	return r, true
}

// upstreamGoTest is the go test command of a release, as the Makefile runs
// it from releases.txt: its toolchain if not the local one, its modfile
// and tag if not go.mod's.
func upstreamGoTest(release string) string {
	u, ok := parseUpstream("upstream-" + release)
	if !ok {
		return "go test "
	}
	rs, err := releases.Load(releases.File)
	if err != nil {
		return "go test "
	}
	r, ok := releases.Find(rs, fmt.Sprintf("1%02d", u.minor))
	if !ok {
		return "go test "
	}
	cmd := "go test "
	if r.Toolchain != "local" {
		cmd = "GOTOOLCHAIN=" + r.Toolchain + " " + cmd
	}
	if f := r.GoFlags(); f != nil {
		cmd += strings.Join(f, " ") + " "
	}
	return cmd
}

// seen is where one difference or finding shows: the releases, in order.
type seen struct {
	what     string
	mode     string
	releases []string
	minors   []int
	detail   string // the first release's reason or rate
	// kind is the declarations' triage ("bug F01", "change"); where
	// releases declare the same scenario differently, each kind once.
	kind string
}

// addKind adds a release's triage of the difference to s.kind.
func (s *seen) addKind(k string) {
	if k == "" || slices.Contains(strings.Split(s.kind, " / "), k) {
		return
	}
	if s.kind != "" {
		s.kind += " / "
	}
	s.kind += k
}

func (s *seen) add(u upstreamTarget, detail string) {
	for _, r := range s.releases {
		if r == u.release {
			return
		}
	}
	s.releases = append(s.releases, u.release)
	s.minors = append(s.minors, u.minor)
	if s.detail == "" {
		s.detail = detail
	}
}

// span says first, last and any gap among the releases run.
func (s *seen) span(all []upstreamTarget) (first, last, gaps string) {
	first, last = s.releases[0], s.releases[len(s.releases)-1]
	var missing []string
	for _, u := range all {
		if u.minor > s.minors[0] && u.minor < s.minors[len(s.minors)-1] && !contains(s.minors, u.minor) {
			missing = append(missing, u.release)
		}
	}
	return first, last, strings.Join(missing, ", ")
}

func contains(l []int, n int) bool {
	for _, x := range l {
		if x == n {
			return true
		}
	}
	return false
}

// renderMatrix is the release matrix: totals by release and mode, then
// every known difference (and failure) and every concurrency finding with
// the releases where it shows.
func renderMatrix(reports []conformance.Report, conc []concurrent.Report) string {
	byName, order := upstreamReleases(reports)
	if len(order) == 0 {
		return ""
	}
	var b strings.Builder
	writeReleaseTotals(&b, reports, conc, byName, order)
	writeDifferencesByRelease(&b, reports, byName, order)
	writeFindingsByRelease(&b, conc, order)
	return b.String()
}

// upstreamReleases finds the upstream targets among reports: byName maps
// each target's name to its release and mode, order is one target per
// release, oldest first.
func upstreamReleases(reports []conformance.Report) (byName map[string]upstreamTarget, order []upstreamTarget) {
	byName = map[string]upstreamTarget{}
	releases := map[string]bool{}
	for _, r := range reports {
		u, ok := parseUpstream(r.Target.Name)
		if !ok {
			continue
		}
		byName[r.Target.Name] = u
		if !releases[u.release] {
			releases[u.release] = true
			order = append(order, u)
		}
	}
	sort.Slice(order, func(i, j int) bool { return order[i].minor < order[j].minor })
	return byName, order
}

// writeReleaseTotals writes the matrix's first table: a row per release,
// the outcomes of each mode and profile and the concurrent run's.
func writeReleaseTotals(b *strings.Builder, reports []conformance.Report, conc []concurrent.Report, byName map[string]upstreamTarget, order []upstreamTarget) {
	b.WriteString("\n## Release matrix\n\n")
	b.WriteString("Every kube-scheduler release the suite ran, from one adapter source (conformance/upstream, one build per\n")
	b.WriteString("release), in each mode: *classic mode* is the release with queueing hints and pop-from-backoffQ off (only\n")
	b.WriteString("v1.33 can switch them off: from v1.34 the gate is locked on, and v1.37 removed it, so every scenario is\n")
	b.WriteString("n/a there); *default gates* is the release as it ships. Rows: the scenarios of each contract profile.\n\n")
	b.WriteString("| release | classic mode: classic scenarios | default gates: classic scenarios | default gates: hints scenarios | concurrent (default gates) |\n|---|---|---|---|---|\n")
	for _, u := range order {
		classicName, hintsName := "", ""
		for name, t := range byName {
			if t.release != u.release {
				continue
			}
			if t.classic {
				classicName = name
			} else {
				hintsName = name
			}
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", u.release, outcomeCell(reports, classicName, spec.ProfileClassic),
			outcomeCell(reports, hintsName, spec.ProfileClassic), outcomeCell(reports, hintsName, spec.ProfileHints), concurrentCell(conc, u.release))
	}
}

// outcomeCell counts the outcomes of target name's scenarios of profile p.
func outcomeCell(reports []conformance.Report, name string, p spec.Profile) string {
	for _, r := range reports {
		if r.Target.Name != name {
			continue
		}
		if len(r.Results) == 0 {
			return "n/a (the target cannot run: see Targets)"
		}
		m := map[conformance.Outcome]int{}
		for _, res := range r.Results {
			if conformance.ProfileOf(res) == p {
				m[res.Outcome]++
			}
		}
		return outcomes(m)
	}
	return "not run"
}

// concurrentCell sums up the concurrent run of release's default-gates
// target: its wake-ups and operations, violations, and each declared
// finding with the rate its reproduction measured there.
func concurrentCell(conc []concurrent.Report, release string) string {
	for _, c := range conc {
		u, ok := parseUpstream(c.Target.Name)
		if !ok || u.release != release || u.classic {
			continue
		}
		s := fmt.Sprintf("%d wake-ups, %d ops", len(c.Wakeups), c.Conservation.Operations)
		if n := len(c.Conservation.Violations); n > 0 {
			s = fmt.Sprintf("**FAIL** (%d violations), ", n) + s
		}
		// Each declared finding with what its reproduction measured on
		// this release, so a finding the release fixed reads as its
		// zero count, not as one more known finding.
		for _, f := range c.Findings {
			name := f.ID
			if name == "" {
				name = string(f.Kind)
			}
			if f.Rate != "" {
				name += ": " + f.Rate
			}
			s += ", known " + name
		}
		return s
	}
	return "not run"
}

// writeDifferencesByRelease writes every scenario that is not a pass (nor
// n/a) on some upstream target, by scenario and mode, with the releases
// where it shows.
func writeDifferencesByRelease(b *strings.Builder, reports []conformance.Report, byName map[string]upstreamTarget, order []upstreamTarget) {
	diffs := map[[2]string]*seen{}
	var keys [][2]string
	for _, r := range reports {
		u, ok := byName[r.Target.Name]
		if !ok {
			continue
		}
		for _, res := range r.Results {
			if res.Outcome == conformance.Pass || res.Outcome == conformance.NotApplicable {
				continue
			}
			k := [2]string{res.Scenario, u.mode()}
			s, ok := diffs[k]
			if !ok {
				s = &seen{what: res.Scenario, mode: u.mode()}
				diffs[k] = s
				keys = append(keys, k)
			}
			d := firstLine(res.Detail)
			if res.Outcome != conformance.Known {
				d = strings.ToUpper(string(res.Outcome)) + ": " + d
			}
			s.addKind(strings.TrimPrefix(kindText(res.Kind, res.Finding), ", "))
			s.add(u, d)
		}
	}
	for _, s := range diffs {
		sort.Sort(byMinor{s})
	}
	sort.Slice(keys, func(i, j int) bool {
		a, c := diffs[keys[i]], diffs[keys[j]]
		if a.minors[0] != c.minors[0] {
			return a.minors[0] < c.minors[0]
		}
		return keys[i][0]+keys[i][1] < keys[j][0]+keys[j][1]
	})
	b.WriteString("\n### Known differences by release\n\n")
	b.WriteString("Each scenario where an upstream release differs from the contract (a declared known difference, or a\n")
	b.WriteString("failure, in capitals), the first and last release where it shows, any release between where it does not,\n")
	b.WriteString("and the reason given for the first (the full reasons are under *Known differences* above).\n\n")
	b.WriteString("The kind is the declaration's triage: bug (upstream breaks its own intent; the id names its entry in\n")
	b.WriteString("findings/), departure (the contract chose otherwise on purpose) or change (a release changed it on purpose).\n\n")
	b.WriteString("| scenario | mode | kind | first | last | not in | reason (first release) |\n|---|---|---|---|---|---|---|\n")
	for _, k := range keys {
		s := diffs[k]
		first, last, gaps := s.span(order)
		fmt.Fprintf(b, "| `%s` | %s | %s | %s | %s | %s | %s |\n", s.what, s.mode, orDash(s.kind), first, last, orDash(gaps), cellText(s.detail))
	}
}

// writeFindingsByRelease writes every concurrency finding that shows on
// some upstream target, by title, with the releases where it shows and
// each release's measured rate.
func writeFindingsByRelease(b *strings.Builder, conc []concurrent.Report, order []upstreamTarget) {
	finds := map[string]*seen{}
	var titles []string
	for _, c := range conc {
		u, ok := parseUpstream(c.Target.Name)
		if !ok {
			continue
		}
		for _, f := range c.Findings {
			if !findingShows(f, c) {
				continue
			}
			s, ok := finds[f.Title]
			if !ok {
				s = &seen{what: f.Title, mode: u.mode(), kind: strings.TrimPrefix(kindText(f.Kind, f.ID), ", ")}
				finds[f.Title] = s
				titles = append(titles, f.Title)
			}
			s.add(u, u.release+": "+f.Rate)
		}
	}
	b.WriteString("\n### Concurrency findings by release\n\n")
	if len(titles) == 0 {
		b.WriteString("None.\n")
		return
	}
	b.WriteString("| finding | mode | kind | first | last | not in | measured |\n|---|---|---|---|---|---|---|\n")
	for _, t := range titles {
		s := finds[t]
		sort.Sort(byMinor{s})
		first, last, gaps := s.span(order)
		var rates []string
		for _, c := range conc {
			for _, f := range c.Findings {
				if u, ok := parseUpstream(c.Target.Name); ok && f.Title == t && f.Rate != "" {
					rates = append(rates, u.release+": "+f.Rate)
				}
			}
		}
		sort.Strings(rates)
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s |\n", cellText(t), s.mode, orDash(s.kind), first, last, orDash(gaps), cellText(strings.Join(rates, "; ")))
	}
}

// orDash is s, or "-" for an empty table cell.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// findingShows: a declared finding shows on a target if its reproduction
// lost a pod there, or the conservation rounds saw it; a finding declared
// without a measured rate (one the adapter works around, such as the
// non-atomic moves) counts as shown.
func findingShows(f concurrent.Finding, c concurrent.Report) bool {
	if f.Rate == "" || len(c.Conservation.KnownViolations) > 0 {
		return true
	}
	return !strings.HasPrefix(f.Rate, "0 of ")
}

type byMinor struct{ s *seen }

func (b byMinor) Len() int           { return len(b.s.minors) }
func (b byMinor) Less(i, j int) bool { return b.s.minors[i] < b.s.minors[j] }
func (b byMinor) Swap(i, j int) {
	b.s.minors[i], b.s.minors[j] = b.s.minors[j], b.s.minors[i]
	b.s.releases[i], b.s.releases[j] = b.s.releases[j], b.s.releases[i]
}

// cellText keeps a table cell on one line and short.
func cellText(s string) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\n", " "), "|", "/")
	if len(s) > 160 {
		s = s[:157] + "..."
	}
	return s
}
