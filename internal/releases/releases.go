// Package releases reads the list of Kubernetes releases that the upstream
// conformance targets are built for (conformance/upstream/releases.txt):
// for each, its modfile, build tag and Go toolchain. The Makefile reads the
// same file with awk; scripts/verifyrun and conformance/cmd/k8sbranch read
// it here, so that adding a release is a line of data, not code.
package releases

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
)

// File is the list's path from the repository's root.
const File = "conformance/upstream/releases.txt"

// Release is one line of the list.
type Release struct {
	// Minor is the release's minor as the Makefile names it ("137").
	Minor string
	// Version is k8s.io/kubernetes's version in the modfile ("v1.37.2").
	Version string
	// Modfile is the modfile's name in conformance/upstream ("go.v133.mod",
	// or "go.mod", which builds with no tag).
	Modfile string
	// Tag is the build tag of the release files ("k8s133"), "" for go.mod.
	Tag string
	// Toolchain is GOTOOLCHAIN for the release's builds ("local", or a
	// version such as "go1.27.3" when the release needs a newer Go).
	Toolchain string
}

// GoFlags are go test's flags that select the release.
func (r Release) GoFlags() []string {
	if r.Modfile == "go.mod" {
		return nil
	}
	return []string{"-modfile=" + r.Modfile, "-tags", r.Tag}
}

// Env is the environment the release's go commands need.
func (r Release) Env() []string { return []string{"GOTOOLCHAIN=" + r.Toolchain} }

var (
	minorRE   = regexp.MustCompile(`^1[0-9]{2}$`)
	versionRE = regexp.MustCompile(`^v1\.([0-9]+)\.[0-9]+(-[0-9A-Za-z.]+)?$`)
	toolRE    = regexp.MustCompile(`^(local|go1\.[0-9]+(\.[0-9]+)?)$`)
)

// Parse reads the list: a release a line, five fields, "#" starts a
// comment. A line that does not hold together (a version of another
// minor, a modfile or tag that does not name the minor, go.mod with a
// tag, a minor twice, more than one go.mod) is an error naming its line.
func Parse(r io.Reader) ([]Release, error) {
	var out []Release
	seen := map[string]bool{}
	goMod := false
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line, _, _ := strings.Cut(sc.Text(), "#")
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		bad := func(format string, a ...any) error {
			return fmt.Errorf("%s:%d: %s", File, n, fmt.Sprintf(format, a...))
		}
		if len(f) != 5 {
			return nil, bad("want 5 fields (minor version modfile tag toolchain), got %d", len(f))
		}
		rel := Release{Minor: f[0], Version: f[1], Modfile: f[2], Tag: f[3], Toolchain: f[4]}
		if !minorRE.MatchString(rel.Minor) {
			return nil, bad("minor %q is not like 137", rel.Minor)
		}
		m := versionRE.FindStringSubmatch(rel.Version)
		if m == nil || "1"+m[1] != rel.Minor {
			return nil, bad("version %q is not a v1.%s.N release", rel.Version, rel.Minor[1:])
		}
		switch {
		case rel.Modfile == "go.mod":
			if rel.Tag != "-" {
				return nil, bad("go.mod builds with no tag (-), not %q", rel.Tag)
			}
			if goMod {
				return nil, bad("a second release on go.mod")
			}
			goMod = true
			rel.Tag = ""
		case rel.Modfile != "go.v"+rel.Minor+".mod" || rel.Tag != "k8s"+rel.Minor:
			return nil, bad("release %s wants modfile go.v%s.mod and tag k8s%s, not %s and %s", rel.Minor, rel.Minor, rel.Minor, rel.Modfile, rel.Tag)
		}
		if !toolRE.MatchString(rel.Toolchain) {
			return nil, bad("toolchain %q is neither local nor a Go version like go1.27.3", rel.Toolchain)
		}
		if seen[rel.Minor] {
			return nil, bad("release %s listed twice", rel.Minor)
		}
		seen[rel.Minor] = true
		out = append(out, rel)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no release listed", File)
	}
	return out, nil
}

// Load reads the list from its file (File, from the repository's root; or
// releases.txt in the upstream module's directory).
func Load(path string) ([]Release, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Parse(f)
}

// Find is the release of minor ("137") in rs.
func Find(rs []Release, minor string) (Release, bool) {
	for _, r := range rs {
		if r.Minor == minor {
			return r, true
		}
	}
	return Release{}, false
}
