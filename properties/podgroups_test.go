package properties

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	testingclock "k8s.io/utils/clock/testing"
	"pgregory.net/rapid"

	"github.com/schedq/schedq/conformance"
	"github.com/schedq/schedq/impl"
	"github.com/schedq/schedq/model"
	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// The podgroups profile (spec.ProfilePodGroups, G1-G11): its scenarios,
// played on the model and the implementation, and its state machine, the
// implementation and the model stepped together with random operations of
// the profile's language and compared after every step, the podgroups
// invariants (IG1-IG4, spec.CheckPodGroupsStep) checked on both.

// podgroupsMachine is the state machine of the podgroups profile.
const podgroupsMachine = "TestStateMachinePodGroups"

// podGroupScenarios is the directory of the podgroups scenarios.
const podGroupScenarios = "../conformance/testdata/podgroups"

type pgModelTarget struct{ *model.Model }

func (m pgModelTarget) Advance(d time.Duration) {
	if err := m.Model.Step(d); err != nil {
		panic(err)
	}
}

func (pgModelTarget) Info() conformance.TargetInfo {
	return conformance.TargetInfo{Name: conformance.TargetModel, Description: "schedq model",
		Observes: conformance.Observes{MoveRequestCycle: true, PodInfo: true, Closed: true, InFlightEvents: true, HintCounts: true}}
}

type pgImplTarget struct {
	*impl.PriorityQueue
	clock *testingclock.FakeClock
}

func (t pgImplTarget) Advance(d time.Duration) { t.clock.Step(d) }

func (pgImplTarget) Info() conformance.TargetInfo {
	return conformance.TargetInfo{Name: conformance.TargetImpl, Description: "schedq impl", Blocking: true,
		Observes: conformance.Observes{MoveRequestCycle: true, PodInfo: true, Closed: true, InFlightEvents: true, HintCounts: true}}
}

func newPGModel(t testing.TB, cfg spec.Config, start time.Time) conformance.Target {
	m, err := model.New(cfg, start)
	if err != nil {
		t.Fatal(err)
	}
	return pgModelTarget{m}
}

func newPGImpl(t testing.TB, cfg spec.Config, start time.Time) conformance.Target {
	clk := testingclock.NewFakeClock(start)
	q, err := impl.New(cfg, impl.WithClock(clk))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(q.Close)
	return pgImplTarget{q, clk}
}

// TestPodGroupScenarios plays conformance/testdata/podgroups on the model
// (whose output the files hold: regenerate with -rewrite) and on the
// implementation.
func TestPodGroupScenarios(t *testing.T) {
	for _, tg := range []struct {
		name string
		new  conformance.NewTarget
	}{{"model", newPGModel}, {"impl", newPGImpl}} {
		t.Run(tg.name, func(t *testing.T) {
			conformance.Run(t, tg.new, conformance.Options{SkipCatalogue: true, Dirs: []string{podGroupScenarios},
				SkipDifferential: "the podgroups scenarios alone", SkipHintsDifferential: "the podgroups scenarios alone"})
		})
	}
}

// TestStateMachinePodGroups is TestStateMachine in the podgroups profile:
// members of two groups (a, b, c in g1; d, e in g2) and a pod alone (f),
// the groups' objects added, updated and deleted, PopEntity, the members'
// failures, the ends of the groups' cycles, and every operation of the
// hints profile over them.
func TestStateMachinePodGroups(t *testing.T) {
	var checks, steps int
	rapid.Check(t, func(rt *rapid.T) {
		c := rapidChooser{rt}
		p := newPair(rt, podgroupsMachine, pick(c, "config", podGroupConfigs))
		defer p.close()
		rt.Repeat(p.podGroupActions())
		checks++
		steps += p.steps()
	})
	if checks > 0 {
		t.Logf("%d checks (shrinking included), %d steps, %.1f steps per check", checks, steps, float64(steps)/float64(checks))
	}
}

var (
	podGroupConfigs = []schedqtest.ConfigChange{
		{Profile: spec.ProfilePodGroups},
		{Profile: spec.ProfilePodGroups, InitialBackoff: time.Second, MaxBackoff: 2 * time.Second, Leftover: 3 * time.Second},
		{Profile: spec.ProfilePodGroups, NoBackoff: true},
		// A capped backoff: from the second rejection on, a group's cap
		// (2s x sqrt(size)) is above a pod's (G6).
		{Profile: spec.ProfilePodGroups, InitialBackoff: 2 * time.Second, MaxBackoff: 2 * time.Second},
	}
	groupOf        = map[string]string{"a": "g1", "b": "g1", "c": "g1", "d": "g2", "e": "g2"}
	podGroupNames  = []string{"g1", "g2"}
	groupPrios     = []int32{0, 5, -1}
	podGroupTicks  = []time.Duration{500 * time.Millisecond, time.Second, 3 * time.Second, 5*time.Minute + time.Second}
	attemptResults = []spec.AttemptStatus{spec.AttemptSuccess, spec.AttemptRejected, spec.AttemptError}
)

// memberRef is the pod name stands for: a member of its group, or f alone.
func memberRef(name string) schedqtest.PodRef {
	r := schedqtest.PodRef{Name: name}
	if g, ok := groupOf[name]; ok {
		r.Group = ptr(g)
	}
	return r
}

// podGroupActions are the generators of the podgroups machine.
func (p *pair) podGroupActions() map[string]func(*rapid.T) {
	gens := map[string]func(c chooser) bool{
		"add": func(c chooser) bool {
			r := memberRef(pick(c, "pod", names))
			r.Priority = ptr(pick(c, "priority", priorities))
			if l := pick(c, "labels", hintsLabelSets); l != nil {
				r.Labels = l
			}
			p.do(schedqtest.Op{Kind: schedqtest.KindAdd, Pod: r})
			return true
		},
		"podgroup-add": func(c chooser) bool {
			p.do(schedqtest.Op{Kind: schedqtest.KindPodGroupAdd, Group: pick(c, "group", podGroupNames), GroupPriority: pick(c, "prio", groupPrios)})
			return true
		},
		"podgroup-update": func(c chooser) bool {
			p.do(schedqtest.Op{Kind: schedqtest.KindPodGroupUpdate, Group: pick(c, "group", podGroupNames), GroupPriority: pick(c, "prio", groupPrios)})
			return true
		},
		"podgroup-delete": func(c chooser) bool {
			p.do(schedqtest.Op{Kind: schedqtest.KindPodGroupDelete, Group: pick(c, "group", podGroupNames)})
			return true
		},
		"pop": func(c chooser) bool {
			m := p.model.Model
			if !m.Closed() && len(m.EntityCandidates()) == 0 {
				return false
			}
			st := p.do(schedqtest.Op{Kind: schedqtest.KindPop})
			// Half the time a popped group's cycle fails at once, every
			// member rejected and the cycle handed back: the common path
			// of a gang that does not fit (G4, G5, G6).
			if e := st.Target.Entity; e != nil && e.Group != nil && c.choose(2, "group fails at once") == 1 {
				for _, m := range e.Group.Members {
					p.do(schedqtest.Op{Kind: schedqtest.KindFail, Pod: schedqtest.PodRef{Name: m.Pod.Name}, Plugins: []string{schedqtest.PluginFit}})
				}
				p.do(schedqtest.Op{Kind: schedqtest.KindAttempted, Group: e.Group.PodGroup.Name, Status: spec.AttemptRejected})
			}
			return true
		},
		"fail": func(c chooser) bool {
			var popped []string
			for _, n := range names {
				if _, ok := p.model.Exec.Popped(schedqtest.Key(n)); ok {
					popped = append(popped, n)
				}
			}
			if len(popped) == 0 {
				return false
			}
			op := schedqtest.Op{Kind: schedqtest.KindFail, Pod: schedqtest.PodRef{Name: pick(c, "hand back", popped)}}
			if c.choose(3, "rejected by plugins") > 0 {
				op.Plugins = drawPlugins(c, "rejecting plugins", schedqtest.HintsPlugins)
			}
			if c.choose(4, "pending plugins") == 3 {
				op.Pending = drawPlugins(c, "pending plugins", schedqtest.HintsPlugins)
			}
			p.do(op)
			return true
		},
		"done": func(c chooser) bool {
			s := p.model.Model.Snapshot()
			if len(s.InFlight) == 0 {
				return false
			}
			p.do(schedqtest.Op{Kind: schedqtest.KindDone, UID: string(pick(c, "in flight", s.InFlight).Pod.UID)})
			return true
		},
		"attempted": func(c chooser) bool {
			var gs []string
			for _, g := range podGroupNames {
				if _, ok := p.model.Exec.PoppedGroup(schedqtest.GroupKey(g)); ok {
					gs = append(gs, g)
				}
			}
			if len(gs) == 0 {
				return false
			}
			p.do(schedqtest.Op{Kind: schedqtest.KindAttempted, Group: pick(c, "group", gs), Status: pick(c, "status", attemptResults)})
			return true
		},
		"move": func(c chooser) bool {
			op := schedqtest.Op{Kind: schedqtest.KindMove, Event: pick(c, "event", hintsEvents)}
			if c.choose(4, "precheck") == 3 {
				op.PreCheck = []string{pick(c, "precheck pod", names)}
			}
			p.do(op)
			return true
		},
		"flush-backoff":  func(chooser) bool { p.do(schedqtest.Op{Kind: schedqtest.KindFlushBackoff}); return true },
		"flush-leftover": func(chooser) bool { p.do(schedqtest.Op{Kind: schedqtest.KindFlushLeftover}); return true },
		"tick": func(c chooser) bool {
			p.do(schedqtest.Op{Kind: schedqtest.KindTick, Duration: pick(c, "duration", podGroupTicks)})
			switch c.choose(3, "flush after") {
			case 0:
				p.do(schedqtest.Op{Kind: schedqtest.KindFlushBackoff})
			case 1:
				p.do(schedqtest.Op{Kind: schedqtest.KindFlushLeftover})
			}
			return true
		},
		"activate": func(c chooser) bool {
			p.do(schedqtest.Op{Kind: schedqtest.KindActivate, Pods: []schedqtest.PodRef{{Name: pick(c, "pod", names)}}})
			return true
		},
		"update": func(c chooser) bool {
			name := pick(c, "pod", names)
			r := schedqtest.PodRef{Name: name, Labels: pick(c, "labels", hintsNewLabels)}
			switch c.choose(8, "update kind") {
			case 0:
				r.Labels, r.Group = nil, ptr("g2") // bad input for a's group: G9
			case 1:
				r.Labels, r.Priority = nil, ptr(pick(c, "priority", priorities))
			}
			p.do(schedqtest.Op{Kind: schedqtest.KindUpdate, Pod: r})
			return true
		},
		"delete": func(c chooser) bool {
			p.do(schedqtest.Op{Kind: schedqtest.KindDelete, Pod: schedqtest.PodRef{Name: pick(c, "pod", names)}})
			return true
		},
	}
	weights := map[string]int{"add": 4, "podgroup-add": 2, "pop": 4, "fail": 3, "done": 2, "attempted": 3, "tick": 2}
	out := make(map[string]func(*rapid.T), len(gens))
	for _, name := range slices.Sorted(mapsKeys(gens)) {
		g := gens[name]
		for i := range max(weights[name], 1) {
			key := name
			if i > 0 {
				key = fmt.Sprintf("%s#%d", name, i+1)
			}
			out[key] = func(t *rapid.T) {
				if !g(rapidChooser{t}) {
					t.Skip("does not apply")
				}
			}
		}
	}
	return out
}

func mapsKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// TestPodGroupsPopIsNotPopEntity: Pop of a group is ErrGroupEntity on both
// queues and changes nothing (G3).
func TestPodGroupsPopIsNotPopEntity(t *testing.T) {
	cfg := schedqtest.ConfigFor(spec.ProfilePodGroups)
	for _, tg := range []conformance.Target{newPGModel(t, cfg, schedqtest.Start), newPGImpl(t, cfg, schedqtest.Start)} {
		q := tg.(spec.PodGroupQueue)
		if err := q.AddPodGroup(schedqtest.PodGroupOf("g1", 0)); err != nil {
			t.Fatal(err)
		}
		if err := q.Add(&spec.Pod{Namespace: "ns", Name: "a", UID: "uid-a", Group: "g1"}); err != nil {
			t.Fatal(err)
		}
		before := q.Snapshot()
		if _, _, err := q.Pop(); err == nil || !errors.Is(err, spec.ErrGroupEntity) {
			t.Errorf("%s: Pop of a group: %v, want ErrGroupEntity", tg.Info().Name, err)
		}
		after := q.Snapshot()
		before.Now, after.Now = time.Time{}, time.Time{}
		if d := before.Diff(&after); d != "" {
			t.Errorf("%s: the refused Pop changed the queue:\n%s", tg.Info().Name, d)
		}
	}
}
