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

func render(reports []conformance.Report) string {
	var b strings.Builder
	b.WriteString("# Conformance results\n\n")
	b.WriteString("Written by `make conformance` (conformance/cmd/conformance-report); do not edit by hand.\n")
	b.WriteString("Each cell is the outcome of one scenario on one target. *known difference*: the target behaves\n")
	b.WriteString("differently on purpose or by design, for the reason listed below; *n/a*: the scenario needs\n")
	b.WriteString("something the target cannot do (block, or observe a field).\n\n")
	b.WriteString("## Targets\n\n| target | profile |\n|---|---|\n")
	for _, r := range reports {
		fmt.Fprintf(&b, "| `%s` | %s |\n", r.Profile.Name, r.Profile.Description)
	}
	var scenarios []string
	rules := map[string]string{}
	cell := map[[2]string]conformance.Result{}
	for _, r := range reports {
		for _, res := range r.Results {
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
	b.WriteString("\n## Scenario x target\n\n| scenario | rules |")
	for _, r := range reports {
		fmt.Fprintf(&b, " %s |", r.Profile.Name)
	}
	b.WriteString("\n|---|---|")
	for range reports {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	totals := make([]map[conformance.Outcome]int, len(reports))
	for i := range totals {
		totals[i] = map[conformance.Outcome]int{}
	}
	for _, sc := range scenarios {
		fmt.Fprintf(&b, "| %s | %s |", sc, rules[sc])
		for i, r := range reports {
			res, ok := cell[[2]string{sc, r.Profile.Name}]
			if !ok {
				b.WriteString(" not run |")
				continue
			}
			totals[i][res.Outcome]++
			fmt.Fprintf(&b, " %s |", mark[res.Outcome])
		}
		b.WriteString("\n")
	}
	b.WriteString("| **totals** | |")
	for i := range reports {
		var parts []string
		for _, o := range []conformance.Outcome{conformance.Pass, conformance.Known, conformance.NotApplicable, conformance.Fail, conformance.Stale} {
			if n := totals[i][o]; n > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", n, o))
			}
		}
		fmt.Fprintf(&b, " %s |", strings.Join(parts, ", "))
	}
	b.WriteString("\n\n## What ran\n\n")
	for _, r := range reports {
		if r.Summary != "" {
			fmt.Fprintf(&b, "- %s\n", r.Summary)
		}
	}
	b.WriteString("\n## Known differences and other notes\n\n")
	for _, r := range reports {
		var lines []string
		for _, res := range r.Results {
			if res.Outcome != conformance.Pass && res.Detail != "" {
				lines = append(lines, fmt.Sprintf("- `%s` (%s): %s", res.Scenario, res.Outcome, res.Detail))
			}
		}
		if len(lines) == 0 {
			continue
		}
		fmt.Fprintf(&b, "### %s\n\n%s\n\n", r.Profile.Name, strings.Join(lines, "\n"))
	}
	return b.String()
}
