package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// negativeDuration matches a duration before the scenario's start as
// relTime would print it ("-1.5s", "expiry=-2562047h47m16.8s"): no time
// the page shows can be one.
var negativeDuration = regexp.MustCompile(`(^|[^0-9A-Za-z])-[0-9][0-9.]*(ns|µs|us|ms|s|m|h)`)

// groupPageProblems checks a podgroups page's data: no negative duration
// in any text, and every member's row and cell naming its group (the
// group each step's model snapshot gives the pod).
func groupPageProblems(tr *trace, p pageData) []string {
	var out []string
	check := func(where, s string) {
		if m := negativeDuration.FindString(s); m != "" {
			out = append(out, fmt.Sprintf("%s: a negative duration %q in %q", where, m, s))
		}
	}
	for _, c := range p.Columns {
		check("column clock", c.Clock)
	}
	for _, r := range p.Rows {
		for _, b := range r.Bars {
			check("bar of "+r.Key, b.Label)
		}
		for _, m := range r.Marks {
			check("expiry mark of "+r.Key, m.Title)
		}
		for i, c := range r.Cells {
			check("cell of "+r.Key, c.Title)
			v := findPod(&tr.Steps[i].Model, spec.PodKey(r.Key))
			if v.group == "" || v.place == placeGone {
				continue
			}
			g := schedqtest.NameOf(spec.PodKey(v.group))
			if r.Group != g {
				out = append(out, fmt.Sprintf("row %s: a member of group %s, but the row names group %q", r.Key, g, r.Group))
			}
			if !strings.Contains(c.Title, "member of group "+g) {
				out = append(out, fmt.Sprintf("step %d, %s: a member of group %s, but its cell does not say so: %q", c.Step, r.Key, g, c.Title))
			}
		}
	}
	for _, s := range p.Steps {
		check(fmt.Sprintf("step %d clock", s.N), s.Clock)
	}
	return out
}

func podgroupsPages(t *testing.T) (traces []*trace, pages []pageData) {
	t.Helper()
	files, err := filepath.Glob("../../conformance/testdata/scenarios/podgroups/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no podgroups scenarios: %v", err)
	}
	for _, f := range files {
		fl, err := readFile(f)
		if err != nil {
			t.Fatal(err)
		}
		tr := replay(fl, false)
		traces, pages = append(traces, tr), append(pages, buildPage(tr))
	}
	return traces, pages
}

// TestHTMLDrawsPodGroups checks the page of every podgroups scenario: no
// negative duration (a member in backoffQ once showed its own zero
// expiry, -2562047h47m16.854775808s, instead of its group's), every
// member's group named, and the members waiting pending or incomplete
// drawn in those lists rather than as gone.
func TestHTMLDrawsPodGroups(t *testing.T) {
	traces, pages := podgroupsPages(t)
	drawn := map[string]bool{}
	for i, p := range pages {
		for _, pr := range groupPageProblems(traces[i], p) {
			t.Errorf("%s: %s", p.Name, pr)
		}
		for _, r := range p.Rows {
			for _, c := range r.Cells {
				drawn[c.Place] = true
			}
		}
	}
	for _, place := range []string{placePending, placeIncomplete} {
		if !drawn[place] {
			t.Errorf("no podgroups scenario's page draws a member in %s", place)
		}
	}
}

// TestHTMLPodGroupCheckCatchesBrokenPages shows groupPageProblems failing
// on broken page data: a negative expiry and a member's row without its
// group.
func TestHTMLPodGroupCheckCatchesBrokenPages(t *testing.T) {
	traces, pages := podgroupsPages(t)
	i := slices.IndexFunc(pages, func(p pageData) bool {
		return slices.ContainsFunc(p.Rows, func(r row) bool { return r.Group != "" })
	})
	if i < 0 {
		t.Fatal("no page with a member")
	}
	r := slices.IndexFunc(pages[i].Rows, func(r row) bool { return r.Group != "" })
	for _, tc := range []struct {
		name   string
		break_ func(p *pageData)
		want   string
	}{
		{"a negative expiry", func(p *pageData) {
			p.Rows[r].Cells[len(p.Rows[r].Cells)-1].Title += ", expiry=-2562047h47m16.854775808s"
		}, "negative duration"},
		{"a member's row without its group", func(p *pageData) { p.Rows[r].Group = "" }, "the row names group"},
		{"a cell without the group", func(p *pageData) {
			for j := range p.Rows[r].Cells {
				p.Rows[r].Cells[j].Title = strings.ReplaceAll(p.Rows[r].Cells[j].Title, "member of group", "member")
			}
		}, "does not say so"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := buildPage(traces[i]) // a fresh copy to break
			tc.break_(&p)
			if !slices.ContainsFunc(groupPageProblems(traces[i], p), func(s string) bool { return strings.Contains(s, tc.want) }) {
				t.Errorf("not caught: want a problem with %q", tc.want)
			}
		})
	}
}

// TestHTMLExplainsMoves checks that a move request's step says why each
// pod of unschedulablePods moved or stayed: the hint answers and strategy
// (hints profile), a gated pod's PreEnqueue verdict and the preCheck's.
func TestHTMLExplainsMoves(t *testing.T) {
	files, err := filepath.Glob("../../conformance/testdata/scenarios/hints/*/*.txt")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, "../../conformance/testdata/scenarios/move/preCheck-filters-the-pods.txt")
	want := map[string]*regexp.Regexp{
		"a hint answer and the strategy": regexp.MustCompile(`^[a-z0-9-]+: .*hints Fit for NodeAdd: Queue; strategy (Immediately|AfterBackoff)`),
		"a PreEnqueue verdict":           regexp.MustCompile(`^g: PreEnqueue: Gate refuses it`),
		"a preCheck verdict":             regexp.MustCompile(`^a: preCheck holds it$`),
	}
	seen := map[string]bool{}
	for _, f := range files {
		fl, err := readFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range buildPage(replay(fl, false)).Steps {
			for _, w := range s.Why {
				for name, re := range want {
					seen[name] = seen[name] || re.MatchString(w)
				}
			}
		}
	}
	for name := range want {
		if !seen[name] {
			t.Errorf("no move request's step shows %s", name)
		}
	}
}
