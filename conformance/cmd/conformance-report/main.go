// Command conformance-report turns the <profile>.json files written by
// conformance.Run (with $SCHEDQ_CONFORMANCE_RESULTS set) into RESULTS.md: a
// table of scenario x target with totals, followed by every known
// difference with its reason and source.
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
	"sort"
	"strings"

	"github.com/schedq/schedq/conformance"
	"github.com/schedq/schedq/spec"
)

// order puts the targets in a stable, meaningful order; unknown profiles
// follow, by name.
var order = []string{conformance.ProfileModel, conformance.ProfileImpl,
	conformance.ProfileUpstream133Classic, conformance.ProfileUpstream133Hints, conformance.ProfileUpstream137}

func main() {
	in := flag.String("in", "", "directory of <profile>.json results")
	out := flag.String("out", "conformance/RESULTS.md", "markdown file to write")
	flag.Parse()
	files, err := filepath.Glob(filepath.Join(*in, "*.json"))
	if err != nil || len(files) == 0 {
		log.Fatalf("no results in %q (%v)", *in, err)
	}
	var reports []conformance.Report
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			log.Fatal(err)
		}
		var r conformance.Report
		if err := json.Unmarshal(b, &r); err != nil {
			log.Fatalf("%s: %v", f, err)
		}
		reports = append(reports, r)
	}
	rank := func(name string) int {
		for i, n := range order {
			if n == name {
				return i
			}
		}
		return len(order)
	}
	sort.Slice(reports, func(i, j int) bool {
		ri, rj := rank(reports[i].Profile.Name), rank(reports[j].Profile.Name)
		if ri != rj {
			return ri < rj
		}
		return reports[i].Profile.Name < reports[j].Profile.Name
	})
	if err := os.WriteFile(*out, []byte(render(reports)), 0o644); err != nil {
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

// dirs are where each of this repository's targets runs, for the
// reproduction commands; other targets get none.
var dirs = map[string]string{
	conformance.ProfileModel:              "./conformance/",
	conformance.ProfileImpl:               "./conformance/",
	conformance.ProfileUpstream133Classic: "conformance/upstream/v133",
	conformance.ProfileUpstream133Hints:   "conformance/upstream/v133",
	conformance.ProfileUpstream137:        "conformance/upstream/v137",
}

// reproduce is the command that replays one result.
func reproduce(r conformance.Report, res conformance.Result) string {
	dir, ok := dirs[r.Profile.Name]
	if !ok || r.Test == "" {
		return ""
	}
	run := "^" + r.Test + "$/^" + strings.ReplaceAll(res.Scenario, "/", "$/^") + "$"
	if strings.HasPrefix(dir, "./") {
		return fmt.Sprintf("go test %s -run '%s' -v", dir, run)
	}
	return fmt.Sprintf("(cd %s && go test -run '%s' -v .)", dir, run)
}

var profiles = []struct {
	p     spec.Profile
	title string
	note  string
}{
	{spec.ProfileClassic, "Classic profile", "The classic queue (rules R1-R14): kube-scheduler v1.33.13 with SchedulerQueueingHints and SchedulerPopFromBackoffQ off."},
	{spec.ProfileHints, "Hints profile", "The queueing-hints profile (rules R1h-R18, `config profile=hints`, the standard hint set of schedqtest.HintsConfig): kube-scheduler v1.37.2 with its default gates."},
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

func render(reports []conformance.Report) string {
	var b strings.Builder
	b.WriteString("# Conformance results\n\n")
	b.WriteString("Written by `make conformance` (conformance/cmd/conformance-report); do not edit by hand.\n")
	b.WriteString("Each cell is the outcome of one scenario on one target. *known difference*: the target behaves\n")
	b.WriteString("differently on purpose or by design, for the reason listed below; *n/a*: the scenario needs\n")
	b.WriteString("something the target cannot do (block, observe a field, or run the scenario's profile: a\n")
	b.WriteString("target whose constructor refuses the profile's config).\n\n")
	b.WriteString("## Targets\n\n| target | what it is |\n|---|---|\n")
	for _, r := range reports {
		fmt.Fprintf(&b, "| `%s` | %s |\n", r.Profile.Name, r.Profile.Description)
	}
	// totals[profile][target]
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
	b.WriteString("\n## Totals: profile x target\n\n| profile |")
	for _, r := range reports {
		fmt.Fprintf(&b, " %s |", r.Profile.Name)
	}
	b.WriteString("\n|---|")
	for range reports {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, pr := range profiles {
		fmt.Fprintf(&b, "| %s |", pr.p)
		for i := range reports {
			fmt.Fprintf(&b, " %s |", outcomes(totals[pr.p][i]))
		}
		b.WriteString("\n")
	}
	for _, pr := range profiles {
		renderProfile(&b, reports, pr.p, pr.title, pr.note, totals[pr.p])
	}
	b.WriteString("\n## Known differences and other notes\n\n")
	b.WriteString("Each known difference with its reason and upstream source, how it showed (model = schedq's\n")
	b.WriteString("reference, target = the queue), and the command that reproduces it.\n\n")
	for _, r := range reports {
		var lines []string
		for _, res := range r.Results {
			if res.Outcome == conformance.Pass || res.Detail == "" {
				continue
			}
			l := fmt.Sprintf("- `%s` [%s] (%s): %s", res.Scenario, conformance.ProfileOf(res), res.Outcome, res.Detail)
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
		fmt.Fprintf(&b, "### %s\n\n%s\n\n", r.Profile.Name, strings.Join(lines, "\n"))
	}
	return b.String()
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
			cell[[2]string{res.Scenario, r.Profile.Name}] = res
		}
	}
	fmt.Fprintf(b, "\n## %s: scenario x target\n\n%s\n\n| scenario | rules |", title, note)
	for _, r := range reports {
		fmt.Fprintf(b, " %s |", r.Profile.Name)
	}
	b.WriteString("\n|---|---|")
	for range reports {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, sc := range scenarios {
		fmt.Fprintf(b, "| %s | %s |", sc, rules[sc])
		for _, r := range reports {
			res, ok := cell[[2]string{sc, r.Profile.Name}]
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
