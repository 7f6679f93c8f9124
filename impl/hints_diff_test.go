package impl_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"
	"pgregory.net/rapid"

	"github.com/schedq/schedq/impl"
	"github.com/schedq/schedq/model"
	"github.com/schedq/schedq/spec"
)

// The hints profile, impl against the model (the oracle), on random
// operation sequences drawn by rapid: after every operation the two must
// return the same error (by errors.Is against every spec error), Pop must
// return one of the model's PopCandidates with the model's info and cycle,
// the snapshots (in-flight list included) and the nominations must be
// equal, spec.CheckStep (which dispatches to the hints invariants I2h-I7)
// must hold on impl's step, and impl's CheckConsistency must pass. A
// failure names the check, the rule of the step, and the operations so far
// as a scenario.

var (
	hNodeAdd   = spec.ClusterEvent{Resource: spec.ResourceNode, ActionType: spec.Add}
	hNodeLabel = spec.ClusterEvent{Resource: spec.ResourceNode, ActionType: spec.UpdateNodeLabel}
	hNodeTaint = spec.ClusterEvent{Resource: spec.ResourceNode, ActionType: spec.UpdateNodeTaint}
	hPodLabel  = spec.ClusterEvent{Resource: spec.ResourcePod, ActionType: spec.UpdatePodLabel}
	hPVAdd     = spec.ClusterEvent{Resource: spec.ResourcePersistentVolume, ActionType: spec.Add}
	hSCAdd     = spec.ClusterEvent{Resource: spec.ResourceStorageClass, ActionType: spec.Add}
)

// quotaOpen is the outside state the PreEnqueue plugin Quota reads (as a
// real PreEnqueue plugin may read the cluster): while it is false, Quota
// refuses pods labelled quota=yes. An operation of the test flips it; each
// rapid run starts with it false. Only then can a gated pod become
// admissible without changing, which is what shows whether a move request
// re-examines gated pods it should skip (R4h).
var quotaOpen atomic.Bool

// hintsDiffConfig: Fit wakes on NodeAdd (no hint: Queue) and on node label
// updates (Queue only for pods labelled fit=label); Flaky's hint for node
// taints always errs (which counts as Queue); Gate is a PreEnqueue plugin
// refusing pods labelled gated=yes, registered for pod label updates with
// a hint that says Queue once the pod itself lost the label; Quota is a
// PreEnqueue plugin refusing pods labelled quota=yes while quotaOpen is
// false, registered (without a hint) for StorageClass/Add only; Unreg
// registered nothing.
func hintsDiffConfig() spec.Config {
	cfg := spec.DefaultHintsConfig(spec.PluginEvents{
		"Fit":   {hNodeAdd, hNodeLabel},
		"Flaky": {hNodeTaint},
		"Gate":  {hPodLabel},
		"Quota": {hSCAdd},
	})
	cfg.QueueingHints = spec.QueueingHints{
		{Plugin: "Fit", Event: hNodeLabel}: func(p *spec.Pod, _ spec.Occurrence) (spec.QueueingHint, error) {
			if p.Labels["fit"] == "label" {
				return spec.HintQueue, nil
			}
			return spec.HintSkip, nil
		},
		{Plugin: "Flaky", Event: hNodeTaint}: func(*spec.Pod, spec.Occurrence) (spec.QueueingHint, error) {
			return spec.HintSkip, errors.New("flaky hint")
		},
		{Plugin: "Gate", Event: hPodLabel}: func(p *spec.Pod, ev spec.Occurrence) (spec.QueueingHint, error) {
			if ev.New != nil && ev.New.UID == p.UID && ev.New.Labels["gated"] != "yes" {
				return spec.HintQueue, nil
			}
			return spec.HintSkip, nil
		},
	}
	cfg.PreEnqueuePlugins = spec.PreEnqueuePlugins{
		"Gate":  func(p *spec.Pod) bool { return p.Labels["gated"] != "yes" },
		"Quota": func(p *spec.Pod) bool { return quotaOpen.Load() || p.Labels["quota"] != "yes" },
	}
	return cfg
}

var (
	hEvents = []spec.ClusterEvent{hNodeAdd, hNodeLabel, hNodeTaint, hPVAdd, hSCAdd, spec.WildCardEvent,
		{Resource: spec.ResourceNode, ActionType: spec.Update}, hPodLabel,
		{Resource: spec.ResourceTargetPod, ActionType: spec.UpdatePodLabel}, spec.EventUnschedulableTimeout, spec.EventForceActivate}
	hNames   = []string{"a", "b", "c", "d"}
	hLabels  = []map[string]string{nil, {"gated": "yes"}, {"fit": "label"}, {"quota": "yes"}}
	hPlugins = []string{"Fit", "Flaky", "Gate", "Quota", "Unreg"}
	hNodes   = []string{"n1", "n2"}
)

type hintsPair struct {
	t      *rapid.T
	cfg    spec.Config
	q      *impl.PriorityQueue
	clock  *clocktesting.FakeClock
	m      *model.Model
	popped map[string]struct {
		info  spec.QueuedPodInfo
		cycle int64
	}
	trace []string
}

func hPod(name string, prio int32, labels map[string]string) *spec.Pod {
	return &spec.Pod{Namespace: "ns", Name: name, UID: spec.UID("uid-" + name), Priority: prio, Labels: labels}
}

var hSentinels = []error{spec.ErrNilPod, spec.ErrInvalidPod, spec.ErrAlreadyQueued, spec.ErrPodNotFound,
	spec.ErrNotInFlight, spec.ErrClosed, spec.ErrInvalidConfig}

func sameSentinel(a, b error) bool {
	if (a == nil) != (b == nil) {
		return false
	}
	for _, s := range hSentinels {
		if errors.Is(a, s) != errors.Is(b, s) {
			return false
		}
	}
	return true
}

func (p *hintsPair) fail(check string, format string, args ...any) {
	p.t.Fatalf("CHECK[%s] %s\nscenario (impl is the queue under test, model the oracle):\n  %s\nmodel:\n%s",
		check, fmt.Sprintf(format, args...), strings.Join(p.trace, "\n  "), p.m)
}

// step runs one operation on both and checks everything.
func (p *hintsPair) step(line string, st spec.Step, onModel, onImpl func() error) {
	p.stepP(line, &st, onModel, onImpl)
}

// stepP is step for an operation that learns its pod as it runs (Pop).
func (p *hintsPair) stepP(line string, st *spec.Step, onModel, onImpl func() error) {
	p.trace = append(p.trace, line)
	before := p.q.Snapshot()
	me := onModel()
	ie := onImpl()
	after := p.q.Snapshot()
	if !sameSentinel(me, ie) {
		p.fail("error mismatch", "%s: model returned %v, impl %v", st.Rule, me, ie)
	}
	st.Err = ie
	if err := spec.CheckStep(p.cfg, &before, &after, *st); err != nil {
		p.fail(firstWord(err.Error()), "%s on impl: %v", st.Rule, err)
	}
	ms := p.m.Snapshot()
	if d := ms.Diff(&after); d != "" {
		p.fail("snapshot diff", "%s: model vs impl: %s", st.Rule, d)
	}
	if err := p.q.CheckConsistency(); err != nil {
		p.fail("consistency", "%s: %v", st.Rule, err)
	}
	for _, n := range hNodes {
		if mn, in := p.m.NominatedPodsForNode(n), p.q.NominatedPodsForNode(n); !slices.EqualFunc(mn, in, spec.PodsEqual) {
			p.fail("nominator", "%s: %s on %s: model %v, impl %v", spec.R18Nominator, st.Rule, n, mn, in)
		}
	}
}

func firstWord(s string) string {
	if i := strings.IndexByte(s, ':'); i > 0 {
		return s[:i]
	}
	return s
}

func (p *hintsPair) pod(t *rapid.T, name string) *spec.Pod {
	pod := hPod(name, rapid.Int32Range(0, 2).Draw(t, "priority"), rapid.SampledFrom(hLabels).Draw(t, "labels"))
	if rapid.IntRange(0, 5).Draw(t, "nominated") == 0 {
		pod.NominatedNodeName = rapid.SampledFrom(hNodes).Draw(t, "node")
	}
	return pod
}

func (p *hintsPair) actions() map[string]func(*rapid.T) {
	acts := map[string]func(*rapid.T){
		"add": func(t *rapid.T) {
			pod := p.pod(t, rapid.SampledFrom(hNames).Draw(t, "name"))
			p.step(fmt.Sprintf("add %s prio=%d labels=%v node=%q", pod.Name, pod.Priority, pod.Labels, pod.NominatedNodeName),
				spec.Step{Rule: spec.R1Add, Pod: pod.Key()},
				func() error { return p.m.Add(pod) }, func() error { return p.q.Add(pod) })
		},
		"pop": func(t *rapid.T) {
			c := p.m.PopCandidates()
			if len(c) == 0 && !p.m.Closed() {
				t.Skip("Pop would block")
			}
			var got *spec.QueuedPodInfo
			var cycle int64
			var ierr error
			var key spec.PodKey
			st := spec.Step{Rule: spec.R2Pop}
			p.stepP("pop", &st,
				func() error { return nil },
				func() error {
					got, cycle, ierr = p.q.Pop()
					if ierr != nil {
						return ierr
					}
					key = got.Key()
					st.Pod = key
					if !slices.Contains(c, key) {
						p.fail("I5h", "%s: impl popped %s, the model allows %v", spec.R2hPop, key, c)
					}
					want, wcycle, err := p.m.PopPod(key)
					if err != nil || !infoEq(want, got) || wcycle != cycle {
						p.fail("Pop outcome", "%s: impl returned %+v cycle %d, model %+v cycle %d (%v)", spec.R2hPop, got, cycle, want, wcycle, err)
					}
					return nil
				})
			if ierr == nil && got != nil {
				p.trace[len(p.trace)-1] = "pop -> " + string(key)
				p.popped[got.Pod.Name] = struct {
					info  spec.QueuedPodInfo
					cycle int64
				}{*got, cycle}
			}
		},
		"fail": func(t *rapid.T) {
			name := rapid.SampledFrom(hNames).Draw(t, "name")
			rec, ok := p.popped[name]
			if !ok {
				t.Skip("never popped")
			}
			info := rec.info
			info.UnschedulablePlugins = spec.NewPluginSet(rapid.SliceOfNDistinct(rapid.SampledFrom(hPlugins), 0, 2, rapid.ID[string]).Draw(t, "unschedulable")...)
			info.PendingPlugins = spec.NewPluginSet(rapid.SliceOfNDistinct(rapid.SampledFrom(hPlugins), 0, 1, rapid.ID[string]).Draw(t, "pending")...)
			p.step(fmt.Sprintf("fail %s plugins=%v pending=%v", name, info.UnschedulablePlugins, info.PendingPlugins),
				spec.Step{Rule: spec.R3AddUnschedulable, Pod: info.Key(), PodSchedulingCycle: rec.cycle},
				func() error { c := info; return p.m.AddUnschedulableIfNotPresent(&c, rec.cycle) },
				func() error { c := info; return p.q.AddUnschedulableIfNotPresent(&c, rec.cycle) })
		},
		"move": func(t *rapid.T) {
			ev := rapid.SampledFrom(hEvents).Draw(t, "event")
			p.step("move "+ev.String(), spec.Step{Rule: spec.R4MoveAll},
				func() error { p.m.MoveAllToActiveOrBackoffQueue(ev, nil); return nil },
				func() error { p.q.MoveAllToActiveOrBackoffQueue(ev, nil); return nil })
		},
		"flush-backoff": func(*rapid.T) {
			p.step("flush-backoff", spec.Step{Rule: spec.R5FlushBackoffQ},
				func() error { p.m.FlushBackoffQCompleted(); return nil },
				func() error { p.q.FlushBackoffQCompleted(); return nil })
		},
		"flush-leftover": func(*rapid.T) {
			p.step("flush-leftover", spec.Step{Rule: spec.R6FlushUnschedulable},
				func() error { p.m.FlushUnschedulablePodsLeftover(); return nil },
				func() error { p.q.FlushUnschedulablePodsLeftover(); return nil })
		},
		"tick": func(t *rapid.T) {
			d := rapid.SampledFrom([]time.Duration{100 * time.Millisecond, 700 * time.Millisecond, time.Second,
				1900 * time.Millisecond, 10 * time.Second, 2 * time.Minute, 5*time.Minute + time.Second}).Draw(t, "d")
			p.step("tick "+d.String(), spec.Step{Rule: spec.RTick},
				func() error { return p.m.Step(d) },
				func() error { p.clock.Step(d); return nil })
		},
		"activate": func(t *rapid.T) {
			pod := p.pod(t, rapid.SampledFrom(hNames).Draw(t, "name"))
			p.step("activate "+pod.Name, spec.Step{Rule: spec.R8Activate},
				func() error { return p.m.Activate([]*spec.Pod{pod}) },
				func() error { return p.q.Activate([]*spec.Pod{pod}) })
		},
		"update": func(t *rapid.T) {
			name := rapid.SampledFrom(hNames).Draw(t, "name")
			oldPod, newPod := p.pod(t, name), p.pod(t, name)
			// Sometimes a new UID: the pod was re-created (R9; in flight
			// the attempt ends).
			if rapid.IntRange(0, 9).Draw(t, "newUID") == 0 {
				newPod.UID += "-2"
			}
			p.step(fmt.Sprintf("update %s labels=%v->%v uid=%s", name, oldPod.Labels, newPod.Labels, newPod.UID),
				spec.Step{Rule: spec.R9Update, Pod: newPod.Key()},
				func() error { return p.m.Update(oldPod, newPod) }, func() error { return p.q.Update(oldPod, newPod) })
		},
		"delete": func(t *rapid.T) {
			pod := hPod(rapid.SampledFrom(hNames).Draw(t, "name"), 0, nil)
			p.step("delete "+pod.Name, spec.Step{Rule: spec.R10Delete, Pod: pod.Key()},
				func() error { return p.m.Delete(pod) }, func() error { return p.q.Delete(pod) })
		},
		"done": func(t *rapid.T) {
			name := rapid.SampledFrom(hNames).Draw(t, "name")
			uid := spec.UID("uid-" + name)
			if rapid.Bool().Draw(t, "secondUID") {
				uid += "-2"
			}
			var key spec.PodKey
			for _, f := range p.m.Snapshot().InFlight {
				if f.Pod.UID == uid {
					key = f.Key()
				}
			}
			p.step("done "+string(uid), spec.Step{Rule: spec.R12Done, Pod: key},
				func() error { return p.m.Done(uid) }, func() error { return p.q.Done(uid) })
		},
		"assigned": func(t *rapid.T) {
			pod := hPod("bound-"+rapid.SampledFrom(hNames).Draw(t, "name"), 0, rapid.SampledFrom(hLabels).Draw(t, "labels"))
			if rapid.Bool().Draw(t, "update") {
				old := *pod
				old.Labels = nil
				ev := rapid.SampledFrom([]spec.ClusterEvent{spec.EventAssignedPodUpdate, {Resource: spec.ResourceAssignedPod, ActionType: spec.UpdatePodLabel}}).Draw(t, "event")
				p.step("assigned-update "+pod.Name+" "+ev.String(), spec.Step{Rule: spec.R11AssignedPod},
					func() error { return p.m.AssignedPodUpdated(&old, pod, ev) }, func() error { return p.q.AssignedPodUpdated(&old, pod, ev) })
				return
			}
			p.step("assigned-add "+pod.Name, spec.Step{Rule: spec.R11AssignedPod},
				func() error { return p.m.AssignedPodAdded(pod) }, func() error { return p.q.AssignedPodAdded(pod) })
		},
		"nominate": func(t *rapid.T) {
			pod := p.pod(t, rapid.SampledFrom(hNames).Draw(t, "name"))
			mode := rapid.SampledFrom([]spec.NominatingMode{spec.NominateNoop, spec.NominateOverride}).Draw(t, "mode")
			node := rapid.SampledFrom(append([]string{""}, hNodes...)).Draw(t, "to")
			p.step(fmt.Sprintf("nominate %s mode=%d node=%q", pod.Name, mode, node), spec.Step{Rule: spec.R18Nominator},
				func() error { return p.m.AddNominatedPod(pod, mode, node) }, func() error { return p.q.AddNominatedPod(pod, mode, node) })
		},
		"quota": func(t *rapid.T) {
			open := !quotaOpen.Load()
			p.trace = append(p.trace, fmt.Sprintf("quota open=%v (outside state PreEnqueue plugin Quota reads)", open))
			quotaOpen.Store(open)
		},
		"bad": func(t *rapid.T) {
			p.step("add nil / activate nil / update changing the key", spec.Step{Rule: spec.R1Add},
				func() error {
					return errors.Join(p.m.Add(nil), p.m.Activate([]*spec.Pod{nil}), p.m.Update(hPod("a", 0, nil), hPod("b", 0, nil)))
				},
				func() error {
					return errors.Join(p.q.Add(nil), p.q.Activate([]*spec.Pod{nil}), p.q.Update(hPod("a", 0, nil), hPod("b", 0, nil)))
				})
		},
	}
	// A gated pod's fate turns on the outside state and the next event
	// together (R4h: only its gating plugin's events re-examine it, then
	// PreEnqueue runs again): the pair as one action makes that reachable
	// in a few steps rather than by chance.
	acts["quota-then-move"] = func(t *rapid.T) { acts["quota"](t); acts["move"](t) }
	return acts
}

func infoEq(a, b *spec.QueuedPodInfo) bool {
	return spec.PodsEqual(a.Pod, b.Pod) && a.Timestamp.Equal(b.Timestamp) && a.Attempts == b.Attempts &&
		slices.Equal(a.UnschedulablePlugins, b.UnschedulablePlugins) &&
		a.InitialAttemptTimestamp.Equal(b.InitialAttemptTimestamp) && spec.HintFieldsEqual(&a.HintFields, &b.HintFields)
}

func TestHintsImplMatchesModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := hintsDiffConfig()
		cfg.PodMaxBackoffDuration = rapid.SampledFrom([]time.Duration{10 * time.Second, 0, 3 * time.Second}).Draw(t, "maxBackoff")
		if cfg.PodMaxBackoffDuration > 0 && cfg.PodMaxBackoffDuration < cfg.PodInitialBackoffDuration {
			cfg.PodMaxBackoffDuration = cfg.PodInitialBackoffDuration
		}
		// Windows are absolute: start on a whole second or in between.
		start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(rapid.SampledFrom([]time.Duration{0, 300 * time.Millisecond}).Draw(t, "offset"))
		fc := clocktesting.NewFakeClock(start)
		q, err := impl.New(cfg, impl.WithClock(fc))
		if err != nil {
			t.Fatal(err)
		}
		defer q.Close()
		m, err := model.New(cfg, start)
		if err != nil {
			t.Fatal(err)
		}
		quotaOpen.Store(false)
		p := &hintsPair{t: t, cfg: cfg, q: q, clock: fc, m: m, popped: map[string]struct {
			info  spec.QueuedPodInfo
			cycle int64
		}{}}
		t.Repeat(p.actions())
	})
}
