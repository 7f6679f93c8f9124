// Command findings runs the findings catalogue's reproductions (findings/)
// in upstream's own package, pkg/scheduler/backend/queue, of every
// release, and keeps the catalogue's index. It is what `make findings`
// runs.
//
//	findings                                  every release of -releases: the table
//	findings -kubernetes ../kubernetes        a checkout against the release it is based on
//	findings -index                           rewrite findings/README.md from the entries
//
// Each reproduction is a _test.go file of package queue that fails where
// the bug shows. For each release the command builds a copy of the
// release's module (symbolic links, but for the queue package's own
// directory, under the user's cache directory: os.UserCacheDir()/
// schedq/findings/<release>, a stable path so that Go's build cache stays
// warm between runs), places the reproductions with the shared helpers and
// the release's compat file there, and runs go test through a modfile of
// the copy's own (staging modules at the release's version). Neither the
// module cache nor this repository nor a checkout is written to.
//
// The table says, per finding and release, whether it reproduces; a
// release an entry lists where it does not reproduce is reported as
// "fixed in vX, or the reproduction broke", a release where it reproduces
// that the entry does not list as new; either fails the command.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// Releases are the releases the table covers: every release of the
// upstream targets and the next one.
var Releases = []string{"v1.33.13", "v1.34.7", "v1.35.6", "v1.36.5", "v1.37.2", "v1.38.0-beta.0"}

func main() {
	dir := flag.String("dir", "findings", "the findings catalogue")
	releases := flag.String("releases", strings.Join(Releases, ","), "the releases to run, comma-separated")
	k8s := flag.String("kubernetes", "", "a Kubernetes checkout: run it and its base release, and say which findings it fixes")
	base := flag.String("base", "", "the release the checkout is based on (default: git describe --tags in it)")
	index := flag.Bool("index", false, "rewrite the catalogue's index (README.md) from its entries and stop")
	table := flag.String("table", "", "with the release run, also write the table to this file (make findings: findings/TABLE.md)")
	flag.Parse()
	cat, err := ReadCatalogue(*dir)
	if err != nil {
		fail(err)
	}
	if *index {
		if err := os.WriteFile(filepath.Join(*dir, "README.md"), []byte(Index(cat)), 0o644); err != nil {
			fail(err)
		}
		return
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		fail(err)
	}
	work := filepath.Join(cache, "schedq", "findings")
	if *k8s != "" {
		out, err := Branch(cat, *dir, work, *k8s, *base, os.Stderr)
		fmt.Print(out)
		if err != nil {
			fail(err)
		}
		return
	}
	var results []Result
	for _, r := range strings.Split(*releases, ",") {
		tree, err := releaseTree(r, work)
		if err != nil {
			fail(err)
		}
		res, err := runTree(tree, cat, *dir, os.Stderr)
		if err != nil {
			fail(err)
		}
		results = append(results, res)
	}
	out, problems := Table(cat, results)
	fmt.Print(out)
	if *table != "" {
		if err := os.WriteFile(*table, []byte(TableFile(out)), 0o644); err != nil {
			fail(err)
		}
	}
	if problems > 0 {
		fail(fmt.Errorf("%d cell(s) disagree with the catalogue (above)", problems))
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "findings:", err)
	os.Exit(1)
}

// releaseTree is a release from the module cache (downloaded if absent).
func releaseTree(release, work string) (Tree, error) {
	cmd := exec.Command("go", "mod", "download", "-json", "k8s.io/kubernetes@"+release)
	// The release's go.mod may ask for a newer Go than the local one.
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN="+toolchain(release))
	out, err := cmd.Output()
	if err != nil {
		return Tree{}, fmt.Errorf("go mod download k8s.io/kubernetes@%s: %v", release, err)
	}
	dir := jsonField(string(out), "Dir")
	if dir == "" {
		return Tree{}, fmt.Errorf("go mod download k8s.io/kubernetes@%s gave no directory", release)
	}
	return Tree{Name: release, Source: dir, Release: release, Work: filepath.Join(work, release)}, nil
}

// jsonField reads "Key": "value" out of go mod download -json's output.
func jsonField(s, key string) string {
	_, rest, ok := strings.Cut(s, `"`+key+`": "`)
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(rest, `"`)
	return v
}

// Table renders the results, a row per finding and a column per tree, and
// counts the cells that disagree with what the entries say.
func Table(cat []Entry, results []Result) (string, int) {
	var b strings.Builder
	b.WriteString("| finding |")
	for _, r := range results {
		fmt.Fprintf(&b, " %s |", r.Tree.Name)
	}
	b.WriteString("\n|---|")
	for range results {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	var notes []string
	for _, e := range cat {
		fmt.Fprintf(&b, "| %s %s |", e.ID, e.Title)
		for _, r := range results {
			o := r.Outcomes[e.ID]
			cell := string(o)
			listed := slices.Contains(e.Reproduces, r.Tree.Release)
			switch {
			case o == Reproduces && !listed:
				cell = "**reproduces (not listed)**"
				notes = append(notes, fmt.Sprintf("%s reproduces on %s, which its entry does not list: a new release with the bug, or the entry is behind", e.ID, r.Tree.Name))
			case o != Reproduces && listed:
				cell = "**" + cell + " (listed)**"
				notes = append(notes, fmt.Sprintf("%s does not reproduce on %s (%s): fixed in %s, or the reproduction broke", e.ID, r.Tree.Name, o, r.Tree.Name))
			}
			if o == NotBuilt {
				cell += " (API absent)"
			}
			fmt.Fprintf(&b, " %s |", cell)
		}
		b.WriteString("\n")
	}
	if len(notes) > 0 {
		b.WriteString("\n" + strings.Join(notes, "\n") + "\n")
	}
	for _, r := range results {
		for _, id := range sortedKeys(r.Why) {
			fmt.Fprintf(&b, "\n%s on %s does not compile: %s", id, r.Tree.Name, r.Why[id])
		}
	}
	b.WriteString("\n")
	return b.String(), len(notes)
}

// TableFile is the table as findings/TABLE.md keeps it.
func TableFile(table string) string {
	return "# The findings table\n\n" +
		"Written by `make findings`: each reproduction (testdata/queue) run in package\n" +
		"`pkg/scheduler/backend/queue` of each release, a failing test meaning the bug reproduces there.\n" +
		"*n/a (API absent)*: the release lacks what the reproduction drives (pod groups before v1.37).\n" +
		"Every reproduction is deterministic (none is a rate).\n\n" + table
}

func sortedKeys(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// Branch runs the reproductions on a checkout and on the release it is
// based on, and says which findings the checkout fixes; any other change
// of outcome is an error.
func Branch(cat []Entry, dir, work, k8s, base string, log io.Writer) (string, error) {
	abs, err := filepath.Abs(k8s)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(filepath.Join(abs, queuePkg)); err != nil {
		return "", fmt.Errorf("%s is not a Kubernetes tree with %s: %v", abs, queuePkg, err)
	}
	if base == "" {
		out, err := exec.Command("git", "-C", abs, "describe", "--tags", "--abbrev=0").Output()
		if err != nil {
			return "", fmt.Errorf("cannot tell the release %s is based on (%v): give KUBERNETES_BASE=v1.37.2", abs, err)
		}
		base = strings.TrimSpace(string(out))
	}
	baseTree, err := releaseTree(base, work)
	if err != nil {
		return "", err
	}
	baseRes, err := runTree(baseTree, cat, dir, log)
	if err != nil {
		return "", err
	}
	// One copy per checkout path, beside the releases'.
	branchTree := Tree{Name: "branch", Source: abs, Release: base,
		Work: filepath.Join(work, "branch-"+strings.NewReplacer("/", "_", ".", "_").Replace(strings.TrimPrefix(abs, "/")))}
	brRes, err := runTree(branchTree, cat, dir, log)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Findings on %s against %s:\n\n| finding | %s | branch | |\n|---|---|---|---|\n", abs, base, base)
	var fixed, changed []string
	for _, e := range cat {
		was, now := baseRes.Outcomes[e.ID], brRes.Outcomes[e.ID]
		note := "unchanged"
		switch {
		case was == now:
		case was == Reproduces && now == NotShown:
			note, fixed = "**fixed by the branch**", append(fixed, e.ID)
		default:
			note, changed = "**changed**", append(changed, e.ID)
		}
		fmt.Fprintf(&b, "| %s %s | %s | %s | %s |\n", e.ID, e.Title, was, now, note)
	}
	b.WriteString("\n")
	if len(fixed) > 0 {
		fmt.Fprintf(&b, "The branch fixes %s; every other finding's outcome is as on %s.\n", strings.Join(fixed, ", "), base)
	} else if len(changed) == 0 {
		fmt.Fprintf(&b, "The branch fixes no finding; every outcome is as on %s.\n", base)
	}
	if len(changed) > 0 {
		return b.String(), errors.New("outcomes changed other than by a fix: " + strings.Join(changed, ", "))
	}
	return b.String(), nil
}
