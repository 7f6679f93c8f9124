package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/schedq/schedq/conformance"
)

// generatedRun is one target's results of the generated run.
type generatedRun struct {
	target  string
	results []conformance.GeneratedResult
}

// readGenerated reads the generated run's results (conformance.RunGenerated
// under make generated), one file a target; a missing directory is a run
// not made.
func readGenerated(dir string) ([]generatedRun, error) {
	all, err := readAll[[]conformance.GeneratedResult](dir)
	var out []generatedRun
	for _, rs := range all {
		if len(rs) > 0 {
			out = append(out, generatedRun{target: rs[0].Target, results: rs})
		}
	}
	return out, err
}

// renderGenerated is the section of the scenarios generated from the TLA+
// graphs: per target and graph, what ran and how it came out, and the
// declared differences the failures were counted under.
func renderGenerated(runs []generatedRun) string {
	var b strings.Builder
	b.WriteString("\n## Generated from the TLA+ graphs\n\n")
	if len(runs) == 0 {
		b.WriteString("Not run in the run that wrote this file: `make generated` (a make verify step) writes these results.\n")
		return b.String()
	}
	b.WriteString("From `make generated` (conformance.RunGenerated): for each stored state graph of the TLA+ specs, scenarios\n")
	b.WriteString("generated to end in steps of the graph (a shortest path to each, at most GENERATED_MAX per graph, spread over\n")
	b.WriteString("the graph), played on every target. A failure counts as *known* when it fails at the same kind of\n")
	b.WriteString("operation with the same parts of the state differing as a difference the target declares; any other is\n")
	b.WriteString("*unexplained* and fails the run with its shrunk scenario. *n/a*: the target popped another pod among\n")
	b.WriteString("equals than the scenario pins, so the step is not reached that way. The generated set is never committed;\n")
	b.WriteString("docs/coverage.md says what share of each graph and of the rules it reaches.\n\n")
	b.WriteString("| target | graph | ran | pass | known | unexplained | n/a |\n|---|---|---|---|---|---|---|\n")
	type use struct{ target, known string }
	counts := map[use]int{}
	var order []use
	var unexplained, index []string
	for _, r := range runs {
		for _, res := range r.results {
			known := 0
			for _, g := range res.Groups {
				if g.Known == "" {
					unexplained = append(unexplained, fmt.Sprintf("- `%s`, %s, %d scenarios: %s\n\n```\n%s```\n", r.target, res.Graph, g.Count, firstLine(g.Detail), g.Scenario))
					continue
				}
				known += g.Count
				u := use{r.target, g.Known}
				if counts[u] == 0 {
					order = append(order, u)
				}
				counts[u] += g.Count
			}
			un := fmt.Sprint(res.Unexplained())
			if res.Unexplained() > 0 {
				un = "**" + un + "**"
			}
			fmt.Fprintf(&b, "| `%s` | %s | %d | %d | %d | %s | %d |\n", r.target, res.Graph, res.Ran, res.Pass, known, un, res.NA)
			if res.Index != "" && !slices.Contains(index, res.Index) {
				index = append(index, res.Index)
			}
		}
	}
	if len(index) > 0 {
		b.WriteString("\nWhat was generated, per graph (the generator's INDEX):\n\n- " + strings.Join(index, "\n- ") + "\n")
	}
	if len(order) > 0 {
		b.WriteString("\nThe known failures, by the declared difference (the hand-written scenario that declares it) they show as:\n\n")
		for _, u := range order {
			fmt.Fprintf(&b, "- `%s`: %d under `%s`\n", u.target, counts[u], u.known)
		}
	}
	b.WriteString("\n### Unexplained differences of the generated run\n\n")
	if len(unexplained) == 0 {
		b.WriteString("None.\n")
	} else {
		b.WriteString(strings.Join(unexplained, "\n"))
	}
	return b.String()
}
