package conformance

import (
	"slices"
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
// directory of Options.Dirs.
func RunDifferential(t *testing.T, newTarget NewTarget) bool {
	t.Helper()
	return t.Run("random", func(t *testing.T) { checkDifferential(t, t, newTarget) })
}

// checkDifferential is the random runs reporting to rt; targets are made
// with tb.
func checkDifferential(rt rapid.TB, tb testing.TB, newTarget NewTarget) {
	rapid.Check(rt, func(r *rapid.T) {
		g := newGenerator(tb, newTarget)
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
		rt.Fatalf("target and model disagree (model = the reference, target = %s):\n%s", d.prof.Name, d.failureReport())
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
	}
}
