package conformance

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/schedq/schedq/model"
	"github.com/schedq/schedq/spec"
)

// RunDifferential drives the target and the model with the same random
// sequences of valid operations (bad input is the scenarios' business) and
// compares, after every step, every error, every Pop outcome (it must be
// one the model allows) and the observed snapshots. It returns whether it
// passed; rapid reports the minimal failing sequence.
func RunDifferential(t *testing.T, newTarget NewTarget) bool {
	t.Helper()
	return t.Run("random", func(t *testing.T) {
		rapid.Check(t, func(rt *rapid.T) {
			cfg := spec.DefaultConfig(Registry)
			start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			m, err := model.New(cfg, start)
			if err != nil {
				rt.Fatal(err)
			}
			target := newTarget(t, cfg, start)
			defer target.Close()
			d := &differential{rt: rt, m: m, q: target, prof: target.Profile(), cycles: map[spec.PodKey]int64{}}
			rt.Repeat(d.actions())
		})
	})
}

type differential struct {
	rt     *rapid.T
	m      *model.Model
	q      Target
	prof   Profile
	cycles map[spec.PodKey]int64 // podSchedulingCycle of each in-flight pod
}

var diffNames = []string{"a", "b", "c", "d", "e"}

var diffEvents = []spec.ClusterEvent{NodeAdd, NodeTaint, PVAdd, spec.WildCardEvent,
	{Resource: spec.ResourceAssignedPod, ActionType: spec.Delete}}

var diffPlugins = []string{"NodeResourcesFit", "TaintToleration", "InterPodAffinity", spec.PluginPodTopologySpread}

var diffSteps = []time.Duration{0, time.Millisecond, 500 * time.Millisecond, time.Second, time.Second + 1, 10 * time.Second, 5 * time.Minute, 5*time.Minute + 1}

func (d *differential) pod(rt *rapid.T) *spec.Pod {
	name := rapid.SampledFrom(diffNames).Draw(rt, "pod")
	p := Pod(name, int32(rapid.IntRange(0, 2).Draw(rt, "priority")))
	if rapid.Bool().Draw(rt, "affinity") {
		p.RequiredAffinityTerms = []spec.AffinityTerm{{MatchLabels: map[string]string{"app": "web"}}}
	}
	return p
}

func (d *differential) where(k spec.PodKey) spec.Location { return d.m.Where(k) }

func (d *differential) inFlight() []spec.PodKey {
	var ks []spec.PodKey
	for _, p := range d.m.Snapshot().InFlight {
		ks = append(ks, p.Key())
	}
	return ks
}

func (d *differential) actions() map[string]func(*rapid.T) {
	return map[string]func(*rapid.T){
		"": d.compare,
		"Add": func(rt *rapid.T) {
			p := d.pod(rt)
			if l := d.where(p.Key()); l == spec.InActiveQ || l == spec.InFlight {
				rt.Skip("a duplicate Add is bad input")
			}
			d.same(fmt.Sprintf("Add(%s)", p.Key()), d.q.Add(p), d.m.Add(p))
		},
		"Pop": func(rt *rapid.T) {
			if len(d.m.PopCandidates()) == 0 {
				rt.Skip("Pop would block")
			}
			got, cycle, err := d.q.Pop()
			if err != nil {
				rt.Fatalf("Pop: %v", err)
			}
			if !slices.Contains(d.m.PopCandidates(), got.Key()) {
				rt.Fatalf("Pop returned %s; the model allows %v\n%s", got.Key(), d.m.PopCandidates(), d.m)
			}
			want, wantCycle, _ := d.m.PopPod(got.Key())
			if cycle != wantCycle || d.prof.Observes.PodInfo && got.Attempts != want.Attempts {
				rt.Fatalf("Pop of %s: cycle %d attempts %d, model says %d and %d", got.Key(), cycle, got.Attempts, wantCycle, want.Attempts)
			}
			d.cycles[got.Key()] = cycle
		},
		"AddUnschedulableIfNotPresent": func(rt *rapid.T) {
			fl := d.inFlight()
			if len(fl) == 0 {
				rt.Skip("nothing in flight")
			}
			k := rapid.SampledFrom(fl).Draw(rt, "failed")
			_, info := func() (spec.Location, spec.QueuedPodInfo) { s := d.m.Snapshot(); return s.Find(k) }()
			cycle := d.cycles[k]
			if rapid.Bool().Draw(rt, "stale") {
				cycle = rapid.Int64Range(0, cycle).Draw(rt, "cycle")
			}
			plugins := rapid.SliceOfNDistinct(rapid.SampledFrom(diffPlugins), 0, 2, rapid.ID).Draw(rt, "plugins")
			a, b := info, info
			a.UnschedulablePlugins, b.UnschedulablePlugins = spec.NewPluginSet(plugins...), spec.NewPluginSet(plugins...)
			d.same(fmt.Sprintf("AddUnschedulableIfNotPresent(%s, %d, %v)", k, cycle, plugins),
				d.q.AddUnschedulableIfNotPresent(&a, cycle), d.m.AddUnschedulableIfNotPresent(&b, cycle))
		},
		"MoveAllToActiveOrBackoffQueue": func(rt *rapid.T) {
			e := rapid.SampledFrom(diffEvents).Draw(rt, "event")
			var pre spec.PreEnqueueCheck
			if rapid.Bool().Draw(rt, "preCheck") {
				skip := rapid.SampledFrom(diffNames).Draw(rt, "preCheckSkips")
				pre = func(p *spec.Pod) bool { return p.Name != skip }
			}
			d.q.MoveAllToActiveOrBackoffQueue(e, pre)
			d.m.MoveAllToActiveOrBackoffQueue(e, pre)
		},
		"FlushBackoffQCompleted": func(rt *rapid.T) {
			d.q.FlushBackoffQCompleted()
			d.m.FlushBackoffQCompleted()
		},
		"FlushUnschedulablePodsLeftover": func(rt *rapid.T) {
			d.q.FlushUnschedulablePodsLeftover()
			d.m.FlushUnschedulablePodsLeftover()
		},
		"Activate": func(rt *rapid.T) {
			p := d.pod(rt)
			d.same("Activate", d.q.Activate([]*spec.Pod{p}), d.m.Activate([]*spec.Pod{p}))
		},
		"Update": func(rt *rapid.T) {
			k := spec.PodKey("ns/" + rapid.SampledFrom(diffNames).Draw(rt, "pod"))
			if d.where(k) == spec.InFlight {
				rt.Skip("updating an in-flight pod is a known difference of classic upstream")
			}
			s := d.m.Snapshot()
			_, old := s.Find(k)
			if old.Pod == nil {
				old.Pod = Pod(strings.TrimPrefix(string(k), "ns/"), 0)
			}
			nw := *old.Pod
			if rapid.Bool().Draw(rt, "relevant") {
				nw.Labels = map[string]string{"v": rapid.SampledFrom([]string{"x", "y"}).Draw(rt, "label")}
			} else {
				nw.ResourceVersion += "1"
			}
			d.same(fmt.Sprintf("Update(%s)", k), d.q.Update(old.Pod, &nw), d.m.Update(old.Pod, &nw))
		},
		"Delete": func(rt *rapid.T) {
			p := d.pod(rt)
			if d.where(p.Key()) == spec.Nowhere {
				rt.Skip("Delete of an unknown pod is bad input")
			}
			d.same(fmt.Sprintf("Delete(%s)", p.Key()), d.q.Delete(p), d.m.Delete(p))
		},
		"Done": func(rt *rapid.T) {
			fl := d.inFlight()
			if len(fl) == 0 {
				rt.Skip("nothing in flight")
			}
			k := rapid.SampledFrom(fl).Draw(rt, "done")
			uid := spec.UID("uid-" + strings.TrimPrefix(string(k), "ns/"))
			d.same(fmt.Sprintf("Done(%s)", uid), d.q.Done(uid), d.m.Done(uid))
		},
		"AssignedPodAdded": func(rt *rapid.T) {
			app := rapid.SampledFrom([]string{"web", "db"}).Draw(rt, "app")
			p := &spec.Pod{Namespace: "ns", Name: "assigned-" + app, UID: spec.UID("uid-assigned-" + app), Labels: map[string]string{"app": app}}
			d.same("AssignedPodAdded", d.q.AssignedPodAdded(p), d.m.AssignedPodAdded(p))
		},
		"Step": func(rt *rapid.T) {
			dt := rapid.SampledFrom(diffSteps).Draw(rt, "step")
			d.q.Step(dt)
			if err := d.m.Step(dt); err != nil {
				rt.Fatal(err)
			}
		},
	}
}

// same checks that the target's error is the model's.
func (d *differential) same(op string, got, want error) {
	for _, sentinel := range []error{spec.ErrNilPod, spec.ErrInvalidPod, spec.ErrAlreadyQueued, spec.ErrPodNotFound, spec.ErrNotInFlight, spec.ErrClosed} {
		if errors.Is(got, sentinel) != errors.Is(want, sentinel) && !(got == nil && d.prof.SilentNoOps) {
			d.rt.Fatalf("%s: target returned %v, the model %v", op, got, want)
		}
	}
	if (got == nil) != (want == nil) && !(got == nil && d.prof.SilentNoOps) {
		d.rt.Fatalf("%s: target returned %v, the model %v", op, got, want)
	}
}

// compare runs after every action: the observed states must agree.
func (d *differential) compare(rt *rapid.T) {
	got := Observed(d.prof.Observes, d.q.Snapshot())
	want := Observed(d.prof.Observes, d.m.Snapshot())
	if diff := want.Diff(&got); diff != "" {
		rt.Fatalf("target and model disagree (model != target):\n%s\nmodel state:\n%s", diff, d.m)
	}
}
