package releases

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestTheList: the repository's list parses, and each line agrees with
// the modfile it names (its k8s.io/kubernetes requirement is the line's
// version) and with the release files (a tag that no build constraint
// names would select nothing).
func TestTheList(t *testing.T) {
	rs, err := Load(filepath.Join("..", "..", File))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("..", "..", "conformance", "upstream")
	req := regexp.MustCompile(`(?m)^\s*k8s\.io/kubernetes (v\S+)`)
	var constraints strings.Builder
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if l, _, _ := strings.Cut(string(b), "\n"); strings.HasPrefix(l, "//go:build") {
			constraints.WriteString(l + "\n")
		}
	}
	for _, r := range rs {
		b, err := os.ReadFile(filepath.Join(dir, r.Modfile))
		if err != nil {
			t.Errorf("release %s: %v", r.Minor, err)
			continue
		}
		m := req.FindSubmatch(b)
		if m == nil || string(m[1]) != r.Version {
			t.Errorf("release %s: %s requires k8s.io/kubernetes %q, the list says %s", r.Minor, r.Modfile, m, r.Version)
		}
		if r.Tag != "" && !strings.Contains(constraints.String(), r.Tag) {
			t.Errorf("release %s: no release file's build constraint names tag %s", r.Minor, r.Tag)
		}
	}
}

// TestParseRefuses: each broken line is refused with its line number.
func TestParseRefuses(t *testing.T) {
	good := "137 v1.37.2 go.mod - local\n"
	for name, bad := range map[string]string{
		"four fields":         "138 v1.38.0 go.v138.mod k8s138\n",
		"version of a minor":  "138 v1.37.2 go.v138.mod k8s138 local\n",
		"modfile of another":  "138 v1.38.0 go.v137.mod k8s138 local\n",
		"tag of another":      "138 v1.38.0 go.v138.mod k8s137 local\n",
		"go.mod with a tag":   "138 v1.38.0 go.mod k8s138 local\n",
		"second go.mod":       "138 v1.38.0 go.mod - local\n",
		"listed twice":        "137 v1.37.2 go.v137.mod k8s137 local\n",
		"toolchain not a Go":  "138 v1.38.0 go.v138.mod k8s138 1.27\n",
		"minor not a number":  "1x8 v1.38.0 go.v1x8.mod k8s1x8 local\n",
		"pre-release garbage": "138 v1.38.0-beta 0 go.v138.mod k8s138 local\n",
	} {
		_, err := Parse(strings.NewReader(good + bad))
		if err == nil || !strings.Contains(err.Error(), ":2:") {
			t.Errorf("%s: Parse(%q) = %v, want an error on line 2", name, bad, err)
		}
	}
	if _, err := Parse(strings.NewReader("# nothing\n")); err == nil {
		t.Error("an empty list parsed")
	}
}

// TestParseReads: comments and blank lines are skipped, and each field
// lands where it should.
func TestParseReads(t *testing.T) {
	rs, err := Parse(strings.NewReader("# c\n\n137 v1.37.2 go.mod - local # newest released\n138 v1.38.0-beta.0 go.v138.mod k8s138 go1.27.3\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Release{{"137", "v1.37.2", "go.mod", "", "local"}, {"138", "v1.38.0-beta.0", "go.v138.mod", "k8s138", "go1.27.3"}}
	if len(rs) != 2 || rs[0] != want[0] || rs[1] != want[1] {
		t.Fatalf("Parse = %+v, want %+v", rs, want)
	}
	if f := rs[0].GoFlags(); f != nil {
		t.Errorf("go.mod's flags = %v, want none", f)
	}
	if f := strings.Join(rs[1].GoFlags(), " "); f != "-modfile=go.v138.mod -tags k8s138" {
		t.Errorf("flags = %q", f)
	}
	if r, ok := Find(rs, "138"); !ok || r.Env()[0] != "GOTOOLCHAIN=go1.27.3" {
		t.Errorf("Find(138) = %+v, %v", r, ok)
	}
}
