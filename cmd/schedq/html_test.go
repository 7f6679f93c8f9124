package main

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// page is what a test reads back from a page: the timeline's rows and
// marks, and what the page is made of.
type page struct {
	rows     []string             // data-pod, in order
	names    map[string]string    // data-pod -> the pod name shown
	cells    map[string][]pageCel // data-pod -> cells, in order
	expiries map[string][]int     // data-pod -> steps of expiry marks
	hatches  map[string]int       // data-pod -> backoff-completed stretches
	moves    []int                // steps of move-request lines
	problems int                  // problem columns
	elements map[string]int       // element name -> count
	text     string               // all character data
	attrs    []xml.Attr           // every attribute
}

type pageCel struct {
	step        int
	place, impl string
}

// parsePage reads a page as XML (strict: every element closed, only XML's
// entities), which the page is written to allow.
func parsePage(t *testing.T, b []byte) page {
	t.Helper()
	p := page{names: map[string]string{}, cells: map[string][]pageCel{}, expiries: map[string][]int{},
		hatches: map[string]int{}, elements: map[string]int{}}
	d := xml.NewDecoder(bytes.NewReader(b))
	d.Strict = true
	var stack []string   // the enclosing row's data-pod per element, "" outside rows
	var classes []string // the class of each open element
	var text strings.Builder
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the page is not well-formed: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			attr := func(n string) string {
				for _, a := range tok.Attr {
					if a.Name.Local == n {
						return a.Value
					}
				}
				return ""
			}
			num := func(n string) int {
				v, err := strconv.Atoi(attr(n))
				if err != nil {
					t.Fatalf("<%s %s=%q>: %v", tok.Name.Local, n, attr(n), err)
				}
				return v
			}
			p.elements[tok.Name.Local]++
			p.attrs = append(p.attrs, tok.Attr...)
			pod := ""
			if len(stack) > 0 {
				pod = stack[len(stack)-1]
			}
			class := attr("class")
			switch {
			case tok.Name.Local == "g" && class == "row":
				pod = attr("data-pod")
				p.rows = append(p.rows, pod)
			case class == "cell":
				p.cells[pod] = append(p.cells[pod], pageCel{num("data-step"), attr("data-place"), attr("data-impl-place")})
			case class == "expiryline":
				p.expiries[pod] = append(p.expiries[pod], num("data-step"))
			case class == "hatch":
				p.hatches[pod]++
			case class == "move":
				p.moves = append(p.moves, num("data-step"))
			case class == "problemcol":
				p.problems++
			}
			stack = append(stack, pod)
			classes = append(classes, class)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
			classes = classes[:len(classes)-1]
		case xml.CharData:
			text.Write(tok)
			if len(classes) > 0 && classes[len(classes)-1] == "podname" {
				p.names[stack[len(stack)-1]] += string(tok)
			}
		}
	}
	p.text = text.String()
	return p
}

// places spells a row's places one letter a step: A activeQ, B backoffQ,
// U unschedulablePods, F in flight, G gone, . not yet queued.
func places(cells []pageCel) string {
	var b strings.Builder
	for _, c := range cells {
		b.WriteByte(map[string]byte{placeActive: 'A', placeBackoff: 'B', placeUnschedulable: 'U',
			placeInFlight: 'F', placeGone: 'G', placeNotYet: '.'}[c.place])
	}
	return b.String()
}

func TestHTMLTimelineHasOneRowPerPodWithItsPlaces(t *testing.T) {
	out := filepath.Join(t.TempDir(), "tour.html")
	code, stdout, errOut := schedq(t, "run", "--html", out, tour)
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, errOut)
	}
	wantContains(t, stdout, "wrote "+out+"\n")
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	p := parsePage(t, b)

	if got, want := strings.Join(p.rows, " "), "ns/a ns/b ns/c ns/d"; got != want {
		t.Fatalf("rows %q, want %q (one per pod, in order of appearance)", got, want)
	}
	// Read off the scenario by hand, step by step (27 steps).
	want := map[string]string{
		"ns/a": "AAAFFUBBBBBAFGGGGGGGGGGGGGG",
		"ns/b": ".AAAAAAAAAAAAAAAAGGGGGGGGGG",
		"ns/c": "..AAFFFBBBBAAAFUUUUUUAFFFFF",
		"ns/d": "........................FGG",
	}
	for pod, w := range want {
		if got := places(p.cells[pod]); got != w {
			t.Errorf("%s: places\n got %s\nwant %s", pod, got, w)
		}
		for i, c := range p.cells[pod] {
			if c.step != i+1 {
				t.Errorf("%s: cell %d is step %d", pod, i, c.step)
			}
		}
		if name := strings.TrimPrefix(pod, "ns/"); p.names[pod] != name {
			t.Errorf("row %s is labelled %q, want %q", pod, p.names[pod], name)
		}
	}
	// a and c are still in backoffQ when the clock passes their expiry
	// (+1s) at step 11 (tick 1ns); step 10's flush at now = expiry kept
	// them (R7).
	for _, pod := range []string{"ns/a", "ns/c"} {
		if got := p.expiries[pod]; len(got) != 1 || got[0] != 11 {
			t.Errorf("%s: expiry marks at steps %v, want [11]", pod, got)
		}
		if p.hatches[pod] != 1 {
			t.Errorf("%s: %d backoff-completed stretches, want 1", pod, p.hatches[pod])
		}
	}
	if len(p.expiries["ns/b"])+len(p.expiries["ns/d"]) > 0 {
		t.Errorf("expiry marks on pods never in backoffQ: %v", p.expiries)
	}
	// Move requests: step 7 (move NodeAdd) and step 22 (the leftover
	// flush); step 17 (move PVAdd, an event no plugin registered for)
	// changes nothing.
	if got := p.moves; len(got) != 2 || got[0] != 7 || got[1] != 22 {
		t.Errorf("move-request marks at steps %v, want [7 22]", got)
	}
	if p.problems != 0 {
		t.Errorf("%d problem columns on a passing scenario", p.problems)
	}
	for _, s := range []string{"activeQ", "backoffQ", "unschedulablePods", "in flight", "gone", "backoff expiry", "move request",
		"fail c plugins=(TaintToleration)", "woke pop: popped d cycle=6 attempts=1", "ok: 27 steps on model"} {
		if !strings.Contains(p.text, s) {
			t.Errorf("the page's text lacks %q", s)
		}
	}
	if p.elements["tr"] != 28 { // header + 27 operations
		t.Errorf("the operation list has %d rows, want 28", p.elements["tr"])
	}
	selfContained(t, b, p)
}

// selfContained fails if the page loads anything: no script, no source,
// no link but to its own anchors, no URL but its own pattern.
func selfContained(t *testing.T, b []byte, p page) {
	t.Helper()
	for _, e := range []string{"script", "link", "img", "iframe", "object", "embed"} {
		if p.elements[e] > 0 {
			t.Errorf("the page has <%s>", e)
		}
	}
	for _, a := range p.attrs {
		switch n := a.Name.Local; {
		case n == "src", strings.HasPrefix(n, "on"):
			t.Errorf("the page has %s=%q", n, a.Value)
		case n == "href" && !strings.HasPrefix(a.Value, "#"):
			t.Errorf("the page links to %q", a.Value)
		}
	}
	s := string(b)
	if n := strings.Count(s, "http"); n != strings.Count(s, `xmlns="http://www.w3.org/2000/svg"`) {
		t.Errorf("the page names a URL other than the SVG namespace")
	}
	if strings.Count(s, "url(") != strings.Count(s, "url(#hatch)") || strings.Contains(s, "@import") {
		t.Errorf("the page's CSS loads something")
	}
}

func TestHTMLShowsTheImplementationsDisagreement(t *testing.T) {
	withBrokenImpl(t)
	out := filepath.Join(t.TempDir(), "broken.html")
	if code, stdout, _ := schedq(t, "run", "-q", "--impl", "--html", out, tour); code != exitFailed {
		t.Fatalf("exit %d, want %d\n%s", code, exitFailed, stdout)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	p := parsePage(t, b)
	if p.problems != 1 {
		t.Errorf("%d problem columns, want 1 (step 8)", p.problems)
	}
	c := p.cells["ns/c"][7]
	if c.step != 8 || c.place != placeBackoff || c.impl != placeUnschedulable {
		t.Errorf("c at step 8: %+v, want the model's backoffQ and the implementation's unschedulablePods", c)
	}
	for pod, cells := range p.cells {
		for _, c := range cells {
			if c.impl != "" && (pod != "ns/c" || c.step != 8) {
				t.Errorf("%s differs at step %d too (%+v)", pod, c.step, c)
			}
		}
	}
	for _, s := range []string{"FAIL: 2 problem(s)", "I3 broken on impl", "pod c: model: backoffQ c(", "/ impl: unschedulablePods c("} {
		if !strings.Contains(p.text, s) {
			t.Errorf("the page's text lacks %q", s)
		}
	}
}

// Pod names come from files: the page shows them as text, never as markup.
func TestHTMLEscapesNamesFromTheFile(t *testing.T) {
	dir := t.TempDir()
	sc := filepath.Join(dir, "evil.txt")
	name := `<script>x&y"z'<i>`
	if err := os.WriteFile(sc, []byte("# <b>prose</b> & more\nadd name="+name+" labels=(app=<u>)\n----\n\npop\n----\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "evil.html")
	if code, stdout, errOut := schedq(t, "run", "-q", "--html", out, sc); code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, errOut)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	p := parsePage(t, b)
	for _, e := range []string{"i", "u", "script"} {
		if p.elements[e] > 0 {
			t.Errorf("a name from the file became a <%s> element", e)
		}
	}
	if got := p.names["ns/"+name]; got != name {
		t.Errorf("row label %q, want the name as text %q (rows %q)", got, name, p.rows)
	}
	if len(p.rows) != 1 {
		t.Fatalf("rows %q, want the one pod", p.rows)
	}
	for _, s := range []string{"<b>prose</b> & more", "add " + name + " labels=(app=<u>)", "popped " + name + " cycle=1"} {
		if !strings.Contains(p.text, s) {
			t.Errorf("the page's text lacks %q", s)
		}
	}
	selfContained(t, b, p)
}
