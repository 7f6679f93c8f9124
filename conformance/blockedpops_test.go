package conformance

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/schedq/schedq/schedqtest"
)

// TestBlockedPopsCoverTheCatalogue: make conformance-blocked-pops repeats
// the catalogue's blocked-Pop scenarios by a -run pattern
// (BLOCKED_POPS_RUN in the Makefile) that names them. A blocked-Pop
// scenario added to the catalogue and left out of the pattern would be
// run once per make conformance only, where a race it meets shows rarely:
// this test fails until the pattern selects it.
func TestBlockedPopsCoverTheCatalogue(t *testing.T) {
	mk, err := os.ReadFile("../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^BLOCKED_POPS_RUN = (.*)$`).FindSubmatch(mk)
	if m == nil {
		t.Fatal("the Makefile has no BLOCKED_POPS_RUN line")
	}
	pattern := strings.ReplaceAll(string(m[1]), "$$", "$")
	files, err := Catalogue()
	if err != nil {
		t.Fatal(err)
	}
	blocked := blockedPopScenarios(t, files)
	if len(blocked) == 0 {
		t.Fatal("the catalogue has no blocked-Pop scenario: the test would pass on any pattern")
	}
	for _, name := range blocked {
		if !selects(t, pattern, "TestQueueingHints/"+name) && !selects(t, pattern, "TestClassic/"+name) {
			t.Errorf("BLOCKED_POPS_RUN (%s) does not select the blocked-Pop scenario %s: add it to the pattern so that make conformance-blocked-pops repeats it", pattern, name)
		}
	}
	// The check can fail: the pattern without the last scenario's
	// directory leaves that scenario out.
	last := blocked[len(blocked)-1]
	dir, _, _ := strings.Cut(last, "/")
	narrowed := strings.Replace(pattern, "|"+dir+")", ")", 1)
	narrowed = strings.Replace(narrowed, "("+dir+"|", "(", 1)
	if narrowed == pattern || selects(t, narrowed, "TestQueueingHints/"+last) || selects(t, narrowed, "TestClassic/"+last) {
		t.Errorf("the pattern without %q still selects %s: the check above could not fail", dir, last)
	}
}

// blockedPopScenarios names the catalogue's scenarios that park a Pop on
// an empty queue (a blocked pop, or a requirement that Pop blocks).
func blockedPopScenarios(t *testing.T, files []ScenarioFile) []string {
	var names []string
	for _, f := range files {
		sc, err := schedqtest.ParseScenario(f.Name, f.Text)
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(sc.Requires, schedqtest.RequireBlocking) || slices.ContainsFunc(sc.Ops, func(op schedqtest.Op) bool { return op.Blocked }) {
			names = append(names, f.Name)
		}
	}
	return names
}

// selects reports whether go test -run pattern runs the (sub)test named
// name: as the go command does, each slash-separated element of the
// pattern must match the name's element at the same level; a name deeper
// than the pattern is selected by its ancestors' match, and a shorter one
// runs (its body's subtests are filtered by the rest of the pattern).
func selects(t *testing.T, pattern, name string) bool {
	pe, ne := strings.Split(pattern, "/"), strings.Split(name, "/")
	for i, p := range pe[:min(len(pe), len(ne))] {
		re, err := regexp.Compile(p)
		if err != nil {
			t.Fatalf("BLOCKED_POPS_RUN element %q: %v", p, err)
		}
		if !re.MatchString(ne[i]) {
			return false
		}
	}
	return true
}
