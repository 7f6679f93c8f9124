package conformance

import (
	"cmp"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// RunDifferential drives the target and the model with the same random
// sequences of valid operations (bad input is the scenarios' business)
// through the scenario runner, which compares after every step every
// error, every Pop outcome (it must be one the model allows) and the
// observed snapshots. It returns whether it passed. rapid shrinks a failing
// sequence, and the failure prints it as a scenario file, with the model's
// expected output, that reproduces the failure when saved under a
// directory of Options.Dirs. It runs DefaultChecks sequences (or
// -rapid.checks) and compares everything; Run takes Options.
func RunDifferential(t *testing.T, newTarget NewTarget) bool {
	t.Helper()
	return runDifferential(t, newTarget, randomOptions(Options{}))
}

// randomRuns is what the random runs do.
type randomRuns struct {
	checks      int
	fromFlag    bool // -rapid.checks was given and wins
	ignore      map[Observation]bool
	failFileDir string
	ran         *bool // if set, set when the random runs start (go test -run may filter them out)
}

func randomOptions(o Options) randomRuns {
	r := randomRuns{checks: cmp.Or(o.Checks, DefaultChecks), failFileDir: o.FailFileDir}
	if n, ok := checksOnCommandLine(); ok {
		r.checks, r.fromFlag = n, true
	}
	if r.failFileDir == "" {
		r.failFileDir = cmp.Or(os.Getenv(EnvFailFileDir), DefaultFailFileDir())
	}
	for _, ob := range o.Ignore {
		if r.ignore == nil {
			r.ignore = make(map[Observation]bool)
		}
		r.ignore[ob] = true
	}
	return r
}

// String says what the random runs do, for the summary and the report.
func (r randomRuns) String() string {
	s := fmt.Sprintf("%d checks", r.checks)
	if r.fromFlag {
		s += " (-rapid.checks)"
	}
	if len(r.ignore) > 0 {
		var ig []string
		for _, o := range observations {
			if r.ignore[o] {
				ig = append(ig, string(o))
			}
		}
		s += ", ignoring " + strings.Join(ig, ", ")
		if slices.ContainsFunc(ig, func(o string) bool { return o != string(IgnoreMetrics) }) {
			s += " (so no step invariants)"
		}
	}
	return s
}

// checksOnCommandLine returns the -rapid.checks given on the command line,
// read once, before the suite sets the flag itself.
var checksOnCommandLine = sync.OnceValues(func() (int, bool) {
	n, set := 0, false
	flag.Visit(func(f *flag.Flag) {
		if f.Name == "rapid.checks" {
			n, _ = strconv.Atoi(f.Value.String())
			set = true
		}
	})
	return n, set
})

// checksFlag serialises the setting of rapid's process-wide -rapid.checks.
var checksFlag sync.Mutex

func runDifferential(t *testing.T, newTarget NewTarget, ro randomRuns) bool {
	t.Helper()
	return t.Run("random", func(t *testing.T) {
		if ro.ran != nil {
			*ro.ran = true
		}
		if !ro.fromFlag {
			// rapid reads the number of checks from its flag only.
			checksFlag.Lock()
			old := flag.Lookup("rapid.checks").Value.String()
			_ = flag.Set("rapid.checks", strconv.Itoa(ro.checks))
			defer func() { _ = flag.Set("rapid.checks", old); checksFlag.Unlock() }()
		}
		if dir, err := failFileDir(t, ro.failFileDir); err != nil {
			t.Logf("conformance: rapid's fail files go to its default, testdata/rapid: %v", err)
		} else {
			t.Logf("conformance: rapid's fail files go to %s (Options.FailFileDir, $%s); a saved one is replayed first on the next run", filepath.Join(dir, "testdata", "rapid"), EnvFailFileDir)
		}
		checkDifferential(t, t, newTarget, ro.ignore)
	})
}

// failFileDir makes dir the working directory of the test, where rapid
// reads and writes its fail files (testdata/rapid/...). It fails in a
// parallel test, whose working directory cannot change.
func failFileDir(t testing.TB, dir string) (abs string, err error) {
	if abs, err = filepath.Abs(dir); err != nil {
		return "", err
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return "", err
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	t.Chdir(abs)
	return abs, nil
}

// checkDifferential is the random runs reporting to rt; targets are made
// with tb.
func checkDifferential(rt rapid.TB, tb testing.TB, newTarget NewTarget, ignore map[Observation]bool) {
	rapid.Check(rt, func(r *rapid.T) {
		g := newGenerator(tb, newTarget)
		g.d.ignore = ignore
		if err := g.d.begin(); err != nil {
			r.Fatal(err)
		}
		defer g.d.target.Close()
		r.Repeat(g.actions())
	})
}

// generator draws valid operations from the shadow model's state and
// performs them through a driver.
type generator struct{ d *driver }

func newGenerator(tb testing.TB, newTarget NewTarget) *generator {
	d := newDriver(tb, "regressions/differential", newTarget)
	d.noExpect = true // the failure report computes the expectations
	return &generator{d: d}
}

var (
	diffNames   = []string{"a", "b", "c", "d", "e"}
	diffEvents  = []string{"NodeAdd", "NodeTaint", "PVAdd", "WildCard", "AssignedPodDelete"}
	diffPlugins = []string{"NodeResourcesFit", "TaintToleration", "InterPodAffinity", spec.PluginPodTopologySpread}
	diffSteps   = []time.Duration{0, time.Millisecond, 500 * time.Millisecond, time.Second, time.Second + 1,
		10 * time.Second, 5 * time.Minute, 5*time.Minute + 1}
)

// do performs op on the target and its shadow and fails rt with the
// scenario if they disagree.
func (g *generator) do(rt *rapid.T, op schedqtest.Op) {
	d := g.d
	d.sc.Ops = append(d.sc.Ops, op)
	if _, err := d.step(op); err != nil {
		rt.Fatalf("the generator drew an invalid operation %s: %v", op, err)
	}
	if d.invalid != nil {
		rt.Fatalf("the generator drew an invalid operation %s: %v", op, d.invalid)
	}
	if d.failed {
		rt.Fatalf("random run: target and model disagree (model = the reference, target = %s; observed: %s):\n%s", d.info.Name, d.observes(), d.failureReport())
	}
}

func (g *generator) where(name string) spec.Location {
	return g.d.shadow.Model.Where(schedqtest.Key(name))
}

func (g *generator) inFlight() []string {
	var out []string
	for _, p := range g.d.shadow.Model.Snapshot().InFlight {
		out = append(out, schedqtest.NameOf(p.Key()))
	}
	return out
}

func (g *generator) actions() map[string]func(*rapid.T) {
	name := rapid.SampledFrom(diffNames)
	return map[string]func(*rapid.T){
		"add": func(rt *rapid.T) {
			n := name.Draw(rt, "pod")
			if l := g.where(n); l == spec.InActiveQ || l == spec.InFlight {
				rt.Skip("a duplicate Add is bad input")
			}
			op := schedqtest.Op{Kind: schedqtest.KindAdd, Pod: schedqtest.PodRef{Name: n}}
			if p := int32(rapid.IntRange(0, 2).Draw(rt, "priority")); p != 0 {
				op.Pod.Priority = &p
			}
			if rapid.Bool().Draw(rt, "affinity") {
				op.Pod.Affinity = map[string]string{"app": "web"}
			}
			g.do(rt, op)
		},
		"pop": func(rt *rapid.T) {
			if len(g.d.shadow.Model.PopCandidates()) == 0 {
				rt.Skip("Pop would block")
			}
			g.do(rt, schedqtest.Op{Kind: schedqtest.KindPop})
		},
		"fail": func(rt *rapid.T) {
			fl := g.inFlight()
			if len(fl) == 0 {
				rt.Skip("nothing in flight")
			}
			n := rapid.SampledFrom(fl).Draw(rt, "failed")
			op := schedqtest.Op{Kind: schedqtest.KindFail, Pod: schedqtest.PodRef{Name: n}}
			if rapid.Bool().Draw(rt, "stale") {
				popped, _ := g.d.shadow.Exec.Popped(schedqtest.Key(n))
				c := rapid.Int64Range(0, popped.Cycle).Draw(rt, "cycle")
				op.Cycle = &c
			}
			if ps := rapid.SliceOfNDistinct(rapid.SampledFrom(diffPlugins), 0, 2, rapid.ID).Draw(rt, "plugins"); len(ps) > 0 {
				op.Plugins = ps
			}
			g.do(rt, op)
		},
		"move": func(rt *rapid.T) {
			e, _ := schedqtest.ParseEvent(rapid.SampledFrom(diffEvents).Draw(rt, "event"))
			op := schedqtest.Op{Kind: schedqtest.KindMove, Event: e}
			if rapid.Bool().Draw(rt, "preCheck") {
				skip := name.Draw(rt, "preCheckSkips")
				op.PreCheck = slices.DeleteFunc(slices.Clone(diffNames), func(n string) bool { return n == skip })
			}
			g.do(rt, op)
		},
		"flush-backoff":  func(rt *rapid.T) { g.do(rt, schedqtest.Op{Kind: schedqtest.KindFlushBackoff}) },
		"flush-leftover": func(rt *rapid.T) { g.do(rt, schedqtest.Op{Kind: schedqtest.KindFlushLeftover}) },
		"activate": func(rt *rapid.T) {
			g.do(rt, schedqtest.Op{Kind: schedqtest.KindActivate, Pods: []schedqtest.PodRef{{Name: name.Draw(rt, "pod")}}})
		},
		"update": func(rt *rapid.T) {
			n := name.Draw(rt, "pod")
			if g.where(n) == spec.InFlight {
				rt.Skip("updating an in-flight pod is a known difference of classic upstream")
			}
			op := schedqtest.Op{Kind: schedqtest.KindUpdate, Pod: schedqtest.PodRef{Name: n}}
			if rapid.Bool().Draw(rt, "relevant") {
				op.Pod.Labels = map[string]string{"v": rapid.SampledFrom([]string{"x", "y"}).Draw(rt, "label")}
			} else {
				op.Touch = true
			}
			g.do(rt, op)
		},
		"delete": func(rt *rapid.T) {
			n := name.Draw(rt, "pod")
			if g.where(n) == spec.Nowhere {
				rt.Skip("Delete of an unknown pod is bad input")
			}
			g.do(rt, schedqtest.Op{Kind: schedqtest.KindDelete, Pod: schedqtest.PodRef{Name: n}})
		},
		"done": func(rt *rapid.T) {
			fl := g.inFlight()
			if len(fl) == 0 {
				rt.Skip("nothing in flight")
			}
			n := rapid.SampledFrom(fl).Draw(rt, "done")
			g.do(rt, schedqtest.Op{Kind: schedqtest.KindDone, UID: string(schedqtest.UIDOf(n))})
		},
		"assigned-add": func(rt *rapid.T) {
			app := rapid.SampledFrom([]string{"web", "db"}).Draw(rt, "app")
			g.do(rt, schedqtest.Op{Kind: schedqtest.KindAssignedAdd,
				Pod: schedqtest.PodRef{Name: "assigned-" + app, Labels: map[string]string{"app": app}}})
		},
		"tick": func(rt *rapid.T) {
			g.do(rt, schedqtest.Op{Kind: schedqtest.KindTick, Duration: rapid.SampledFrom(diffSteps).Draw(rt, "step")})
		},
		// The instants where R5 and R7 decide: exactly a backoffQ pod's
		// expiry (still backing off, v1.33) and one nanosecond after it.
		// Plain steps reach them rarely, and an off-by-one there is the
		// classic backoff bug.
		"tick-to-expiry": func(rt *rapid.T) {
			m := g.d.shadow.Model
			var steps []time.Duration
			for _, p := range m.Snapshot().BackoffQ {
				if d := g.d.cfg.BackoffExpiry(&p).Sub(m.Now()); d >= 0 {
					steps = append(steps, d, d+1)
				}
			}
			if len(steps) == 0 {
				rt.Skip("no backoffQ pod with an expiry ahead")
			}
			g.do(rt, schedqtest.Op{Kind: schedqtest.KindTick, Duration: rapid.SampledFrom(steps).Draw(rt, "toExpiry")})
			if rapid.Bool().Draw(rt, "thenFlush") {
				g.do(rt, schedqtest.Op{Kind: schedqtest.KindFlushBackoff})
			}
		},
	}
}
