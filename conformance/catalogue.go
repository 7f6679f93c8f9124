package conformance

import (
	"cmp"
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/schedq/schedq/schedqtest"
)

// The catalogue: one scenario a file, its path under testdata/scenarios
// (without ".txt") its name.
//
//go:embed testdata/scenarios
var catalogueFS embed.FS

const catalogueRoot = "testdata/scenarios"

// ScenarioFile is one scenario file: its name, and its path on disk (for
// -rewrite) or, for the embedded catalogue, its text.
type ScenarioFile struct {
	Name string
	Path string
	Text string
}

// Catalogue lists the scenarios of the embedded catalogue in rule order
// (classic scenarios first, then those of the hints profile, then those
// of the podgroups profile under podgroups/; by their first
// rule id, R3h counting as R3, then by name).
func Catalogue() ([]ScenarioFile, error) { return catalogue("") }

func catalogue(dir string) ([]ScenarioFile, error) {
	var files []ScenarioFile
	var err error
	if dir != "" {
		files, err = ReadScenarioDir(dir)
	} else {
		files, err = readScenarios(catalogueFS, catalogueRoot, false)
	}
	if err != nil {
		return nil, err
	}
	type keyed struct {
		f       ScenarioFile
		profile int
		rule    int
	}
	ks := make([]keyed, len(files))
	for i, f := range files {
		sc, err := schedqtest.ParseScenario(f.Name, f.Text)
		if err != nil {
			return nil, err
		}
		ks[i] = keyed{f, int(sc.Config.Profile), 1000}
		if len(sc.Rules) > 0 {
			if n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(sc.Rules[0], "R"), "h")); err == nil && strings.HasPrefix(sc.Rules[0], "R") {
				ks[i].rule = n
			}
		}
	}
	slices.SortStableFunc(ks, func(a, b keyed) int {
		return cmp.Or(cmp.Compare(a.profile, b.profile), cmp.Compare(a.rule, b.rule), cmp.Compare(a.f.Name, b.f.Name))
	})
	for i := range ks {
		files[i] = ks[i].f
	}
	return files, nil
}

// ReadScenarioDir lists the scenario files (*.txt) below dir, named by
// their path under it without ".txt", sorted by name.
func ReadScenarioDir(dir string) ([]ScenarioFile, error) {
	return readScenarios(os.DirFS(dir), ".", true, dir)
}

func readScenarios(fsys fs.FS, root string, onDisk bool, diskDir ...string) ([]ScenarioFile, error) {
	var out []ScenarioFile
	err := fs.WalkDir(fsys, root, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() || !strings.HasSuffix(path, ".txt") {
			return nil
		}
		b, err := fs.ReadFile(fsys, path)
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(path, root), "/")
		f := ScenarioFile{Name: strings.TrimSuffix(rel, ".txt"), Text: string(b)}
		if onDisk {
			f.Path = filepath.Join(diskDir[0], filepath.FromSlash(path))
		}
		out = append(out, f)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading scenarios: %w", err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no scenario files (*.txt) in %s", cmp.Or(strings.Join(diskDir, ""), root))
	}
	slices.SortFunc(out, func(a, b ScenarioFile) int { return cmp.Compare(a.Name, b.Name) })
	return out, nil
}
