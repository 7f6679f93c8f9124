package model_test

import (
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/schedq/schedq/model"
	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// The hints profile of the model, rule by rule, with the profile's
// invariants checked on every step. (Conformance scenarios for the profile
// come with the scenario language.)

var (
	nodeAdd   = spec.ClusterEvent{Resource: spec.ResourceNode, ActionType: spec.Add}
	nodeLabel = spec.ClusterEvent{Resource: spec.ResourceNode, ActionType: spec.UpdateNodeLabel}
	pvAdd     = spec.ClusterEvent{Resource: spec.ResourcePersistentVolume, ActionType: spec.Add}
	podLabel  = spec.ClusterEvent{Resource: spec.ResourcePod, ActionType: spec.UpdatePodLabel}
)

// hintsCfg is the hints profile's standard hint set (schedqtest.HintsConfig,
// the one the hints scenarios run with): Fit wakes on NodeAdd (no hint:
// Queue) and on node label updates (hint: Queue only for pods labelled
// fit=label); Gate is a PreEnqueue plugin refusing pods labelled
// gated=yes, registered for pod label updates with a hint that says Queue
// once the label is gone; Flaky's hint for node taints always errs.
func hintsCfg() spec.Config { return schedqtest.HintsConfig() }

// hm wraps a hints model and checks spec.CheckStep on every operation.
type hm struct {
	t      *testing.T
	m      *model.Model
	cfg    spec.Config
	popped map[string]*spec.QueuedPodInfo
	cycles map[string]int64
}

func newHints(t *testing.T, mut ...func(*spec.Config)) *hm {
	t.Helper()
	cfg := hintsCfg()
	for _, f := range mut {
		f(&cfg)
	}
	m, err := model.New(cfg, t0)
	if err != nil {
		t.Fatal(err)
	}
	return &hm{t: t, m: m, cfg: cfg, popped: map[string]*spec.QueuedPodInfo{}, cycles: map[string]int64{}}
}

func (h *hm) step(rule spec.Rule, key spec.PodKey, cycle int64, op func() error) error {
	h.t.Helper()
	before := h.m.Snapshot()
	err := op()
	after := h.m.Snapshot()
	if ierr := spec.CheckStep(h.cfg, &before, &after, spec.StepRecord{Rule: rule, Pod: key, PodSchedulingCycle: cycle, Err: err}); ierr != nil {
		h.t.Fatalf("%s %s: %v\nbefore:\n%v\nafter:\n%s", rule, key, ierr, before, h.m)
	}
	return err
}

func (h *hm) add(p *spec.Pod) {
	h.t.Helper()
	if err := h.step(spec.R1Add, p.Key(), 0, func() error { return h.m.Add(p) }); err != nil {
		h.t.Fatal(err)
	}
}

func (h *hm) pop(want string) {
	h.t.Helper()
	key := spec.PodKey("ns/" + want)
	if c := h.m.PopCandidates(); !slices.Contains(c, key) {
		h.t.Fatalf("Pop may not return %s; candidates %v\n%s", want, c, h.m)
	}
	var got *spec.QueuedPodInfo
	var cycle int64
	if err := h.step(spec.R2Pop, key, 0, func() error {
		var err error
		got, cycle, err = h.m.PopPod(key)
		return err
	}); err != nil {
		h.t.Fatalf("Pop: %v\n%s", err, h.m)
	}
	h.popped[want], h.cycles[want] = got, cycle
}

func (h *hm) fail(name string, unsched, pending []string) {
	h.t.Helper()
	p := *h.popped[name]
	p.UnschedulablePlugins = spec.NewPluginSet(unsched...)
	p.PendingPlugins = spec.NewPluginSet(pending...)
	if err := h.step(spec.R3AddUnschedulable, p.Key(), h.cycles[name], func() error { return h.m.AddUnschedulableIfNotPresent(&p, h.cycles[name]) }); err != nil {
		h.t.Fatal(err)
	}
}

func (h *hm) move(e spec.ClusterEvent) {
	h.t.Helper()
	_ = h.step(spec.R4MoveAll, "", 0, func() error { h.m.MoveAllToActiveOrBackoffQueue(e, nil); return nil })
}

func (h *hm) tick(d time.Duration) {
	h.t.Helper()
	_ = h.step(spec.RTick, "", 0, func() error { return h.m.Step(d) })
}

func (h *hm) flushBackoff() {
	h.t.Helper()
	_ = h.step(spec.R5FlushBackoffQ, "", 0, func() error { h.m.FlushBackoffQCompleted(); return nil })
}

func (h *hm) flushLeftover() {
	h.t.Helper()
	_ = h.step(spec.R6FlushUnschedulable, "", 0, func() error { h.m.FlushUnschedulablePodsLeftover(); return nil })
}

func (h *hm) done(name string) {
	h.t.Helper()
	if err := h.step(spec.R12Done, spec.PodKey("ns/"+name), 0, func() error { return h.m.Done(spec.UID("uid-" + name)) }); err != nil {
		h.t.Fatal(err)
	}
}

func (h *hm) update(oldPod, newPod *spec.Pod) {
	h.t.Helper()
	if err := h.step(spec.R9Update, newPod.Key(), 0, func() error { return h.m.Update(oldPod, newPod) }); err != nil {
		h.t.Fatal(err)
	}
}

func (h *hm) activate(p *spec.Pod) {
	h.t.Helper()
	if err := h.step(spec.R8Activate, p.Key(), 0, func() error { return h.m.Activate([]*spec.Pod{p}) }); err != nil {
		h.t.Fatal(err)
	}
}

// where asserts the place of each named pod.
func (h *hm) where(rule spec.Rule, want map[string]spec.Location) {
	h.t.Helper()
	for name, loc := range want {
		if got := h.m.Where(spec.PodKey("ns/" + name)); got != loc {
			h.t.Errorf("%s: %s is in %s, want %s\n%s", rule, name, got, loc, h.m)
		}
	}
}

func (h *hm) info(name string) spec.QueuedPodInfo {
	s := h.m.Snapshot()
	_, p := s.Find(spec.PodKey("ns/" + name))
	return p
}

func (h *hm) events() []string {
	var out []string
	for _, e := range h.m.Snapshot().InFlightEvents {
		out = append(out, e.String())
	}
	return out
}

func labelled(name string, kv ...string) *spec.Pod {
	p := pod(name, 0)
	p.Labels = map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		p.Labels[kv[i]] = kv[i+1]
	}
	return p
}

func TestR3hReplayOfInFlightEvents(t *testing.T) {
	// An event a rejector's hint queues for, received while the pod was in
	// flight, keeps it out of unschedulablePods: no lost event.
	h := newHints(t)
	h.add(pod("a", 0))
	h.add(pod("b", 0))
	h.pop("a")
	h.move(nodeAdd) // Fit: no hint = Queue
	h.pop("b")
	h.move(nodeLabel) // Fit's hint: skip for unlabelled pods
	h.fail("a", []string{"Fit"}, nil)
	h.fail("b", []string{"Fit"}, nil)
	h.where(spec.R3hAddUnschedulable, map[string]spec.Location{"a": spec.InBackoffQ, "b": spec.InUnschedulablePods})
	if a := h.info("a"); a.UnschedulableCount != 1 || a.ConsecutiveErrorsCount != 0 || a.Attempts != 1 {
		t.Errorf("%s: counts of a = %+v", spec.R3hAddUnschedulable, a.HintFields)
	}
	if ev := h.events(); len(ev) != 0 {
		t.Errorf("%s: nothing in flight, yet the in-flight list is %v", spec.R15InFlight, ev)
	}
}

func TestR3hPendingPluginQueuesImmediately(t *testing.T) {
	h := newHints(t)
	h.add(pod("a", 0))
	h.pop("a")
	h.move(nodeAdd)
	h.fail("a", nil, []string{"Fit"})
	h.where(spec.R3hAddUnschedulable, map[string]spec.Location{"a": spec.InActiveQ})
}

func TestR3hCounts(t *testing.T) {
	h := newHints(t)
	h.add(pod("a", 0))
	h.pop("a")
	h.fail("a", nil, nil) // an error: no rejectors
	a := h.info("a")
	if a.ConsecutiveErrorsCount != 1 || a.UnschedulableCount != 0 {
		t.Fatalf("%s: after an error %+v", spec.R3hAddUnschedulable, a.HintFields)
	}
	h.where(spec.R3hAddUnschedulable, map[string]spec.Location{"a": spec.InBackoffQ})
	h.tick(2 * time.Second)
	h.flushBackoff()
	h.pop("a")
	h.fail("a", []string{"Fit"}, nil)
	if a := h.info("a"); a.ConsecutiveErrorsCount != 0 || a.UnschedulableCount != 1 || a.Attempts != 2 {
		t.Fatalf("%s: a verdict resets the error count: %+v attempts=%d", spec.R3hAddUnschedulable, a.HintFields, a.Attempts)
	}
	h.where(spec.R3hAddUnschedulable, map[string]spec.Location{"a": spec.InUnschedulablePods})
}

func TestR7hWindowsAndR5hFlush(t *testing.T) {
	h := newHints(t)
	h.add(pod("a", 0))
	h.tick(300 * time.Millisecond)
	h.pop("a")
	h.move(nodeAdd)
	h.fail("a", []string{"Fit"}, nil) // Timestamp +0.3s, count 1: expiry window +1s
	if got := h.cfg.BackoffExpiry(ptr(h.info("a"))); !got.Equal(t0.Add(time.Second)) {
		t.Fatalf("%s: expiry %v, want +1s", spec.R7hBackoff, got.Sub(t0))
	}
	h.tick(1600 * time.Millisecond) // +1.9s: still in the expiry's window
	h.flushBackoff()
	h.where(spec.R5hFlushBackoffQ, map[string]spec.Location{"a": spec.InBackoffQ})
	h.tick(100 * time.Millisecond) // +2s: the next window
	h.flushBackoff()
	h.where(spec.R5hFlushBackoffQ, map[string]spec.Location{"a": spec.InActiveQ})
}

func ptr[T any](v T) *T { return &v }

func TestR7hMaxBackoffZero(t *testing.T) {
	h := newHints(t, func(c *spec.Config) { c.PodMaxBackoffDuration = 0 })
	h.add(pod("a", 0))
	h.pop("a")
	h.move(nodeAdd)
	h.fail("a", []string{"Fit"}, nil)
	h.where(spec.R7hBackoff, map[string]spec.Location{"a": spec.InActiveQ})
}

func TestR2hPopFromBackoffQ(t *testing.T) {
	h := newHints(t)
	for _, p := range []*spec.Pod{pod("a", 0), pod("b", 5), pod("e", 9)} {
		h.add(p)
	}
	h.pop("e")
	h.pop("b")
	h.pop("a")
	h.move(nodeAdd)
	h.fail("a", []string{"Fit"}, nil)
	h.fail("b", []string{"Fit"}, nil)
	h.fail("e", nil, nil) // an error retry: never popped early
	if got := h.m.PopCandidates(); !slices.Equal(got, []spec.PodKey{"ns/b"}) {
		t.Fatalf("%s: candidates %v, want the higher priority of the window", spec.R2hPop, got)
	}
	h.pop("b")
	if b := h.info("b"); !slices.Equal(b.UnschedulablePlugins, spec.PluginSet{"Fit"}) {
		t.Errorf("%s: Pop must not clear the rejectors, got %v", spec.R2hPop, b.UnschedulablePlugins)
	}
	h.pop("a")
	if _, _, err := h.m.Pop(); !errors.Is(err, spec.ErrWouldBlock) {
		t.Fatalf("%s: only an error retry left: Pop = %v, want ErrWouldBlock", spec.R2hPop, err)
	}
}

func TestR15InFlightListTrimmedByDone(t *testing.T) {
	h := newHints(t)
	h.add(pod("a", 0))
	h.add(pod("b", 0))
	h.move(nodeAdd) // nothing in flight: not recorded
	h.pop("a")
	h.move(nodeAdd)
	h.move(pvAdd) // of no interest: not recorded
	h.pop("b")
	h.move(nodeLabel)
	if got, want := h.events(), []string{"pod:ns/a", "NodeAdd", "pod:ns/b", "NodeUpdateNodeLabel"}; !slices.Equal(got, want) {
		t.Fatalf("%s: list %v, want %v", spec.R15InFlight, got, want)
	}
	h.done("b")
	if got, want := h.events(), []string{"pod:ns/a", "NodeAdd", "NodeUpdateNodeLabel"}; !slices.Equal(got, want) {
		t.Fatalf("%s: after Done(b) %v, want %v", spec.R12hDone, got, want)
	}
	h.done("a")
	if got := h.events(); len(got) != 0 {
		t.Fatalf("%s: nothing in flight, list %v", spec.R12hDone, got)
	}
}

func TestR17GatedPods(t *testing.T) {
	h := newHints(t)
	g := labelled("g", "gated", "yes")
	h.add(g)
	h.where(spec.R17PreEnqueue, map[string]spec.Location{"g": spec.InUnschedulablePods})
	if gi := h.info("g"); gi.GatingPlugin != "Gate" || !gi.UnschedulablePlugins.Has("Gate") {
		t.Fatalf("%s: gated pod %+v", spec.R17PreEnqueue, gi)
	}
	h.move(nodeAdd) // not the gating plugin's event
	h.where(spec.R4hMoveAll, map[string]spec.Location{"g": spec.InUnschedulablePods})
	// The leftover flush takes it (wildcard), PreEnqueue refuses it again,
	// and its FlushTimestamp keeps it from being taken again at once.
	h.tick(5*time.Minute + 1)
	h.flushLeftover()
	h.where(spec.R6hFlushUnschedulable, map[string]spec.Location{"g": spec.InUnschedulablePods})
	if gi := h.info("g"); !gi.FlushTimestamp.Equal(h.m.Now()) {
		t.Fatalf("%s: FlushTimestamp %v, want now", spec.R6hFlushUnschedulable, gi.FlushTimestamp)
	}
	h.tick(5 * time.Minute)
	before := h.m.Snapshot()
	h.flushLeftover()
	if after := h.m.Snapshot(); before.Diff(&after) != "" {
		t.Fatalf("%s: flushed again after exactly the max duration since the last flush:\n%s", spec.R6hFlushUnschedulable, before.Diff(&after))
	}
	// Removing the label: the Update's TargetPod/UpdatePodLabel event asks
	// Gate's hint, which queues; PreEnqueue admits it.
	h.update(g, labelled("g"))
	h.where(spec.R9hUpdate, map[string]spec.Location{"g": spec.InActiveQ})
	if gi := h.info("g"); gi.Gated() {
		t.Fatalf("%s: admitted pod still gated: %+v", spec.R17PreEnqueue, gi.HintFields)
	}
}

func TestR8hActivateInFlight(t *testing.T) {
	h := newHints(t)
	a, b := pod("a", 0), pod("b", 0)
	h.add(a)
	h.add(b)
	h.pop("a")
	h.pop("b")
	h.activate(a)
	if got := h.events(); !slices.Equal(got, []string{"pod:ns/a", "pod:ns/b", "ForceActivate(new=ns/a)"}) {
		t.Fatalf("%s: list %v", spec.R8hActivate, got)
	}
	h.fail("a", []string{"Fit"}, nil)
	h.fail("b", []string{"Fit"}, nil)
	h.where(spec.R8hActivate, map[string]spec.Location{"a": spec.InBackoffQ, "b": spec.InUnschedulablePods})
	if s := h.m.Snapshot(); s.MoveRequestCycle != -1 {
		t.Errorf("%s: the hints profile has no moveRequestCycle, got %d", spec.R8hActivate, s.MoveRequestCycle)
	}
}

func TestR9hUpdateInFlightIsRecorded(t *testing.T) {
	h := newHints(t)
	a := labelled("a", "fit", "no")
	h.add(a)
	h.pop("a")
	h.update(a, labelled("a", "fit", "yes"))
	h.update(a, labelled("a", "fit", "yes"))
	if got := h.events(); !slices.Equal(got, []string{"pod:ns/a", "TargetPodUpdatePodLabel(old=ns/a,new=ns/a)", "TargetPodUpdatePodLabel(old=ns/a,new=ns/a)"}) {
		t.Fatalf("%s: list %v", spec.R9hUpdate, got)
	}
	if s := h.m.Snapshot(); len(s.InFlight) != 1 || len(s.ActiveQ) != 0 {
		t.Fatalf("%s: an update of an in-flight pod must not queue it again", spec.R9hUpdate)
	}
}

func TestHintsStringShowsListAndCounts(t *testing.T) {
	h := newHints(t)
	h.add(pod("a", 0))
	h.pop("a")
	h.move(nodeAdd)
	s := h.m.String()
	for _, want := range []string{"inFlightEvents: pod:ns/a NodeAdd", "moveRequestCycle=-1"} {
		if !strings.Contains(s, want) {
			t.Errorf("String() lacks %q:\n%s", want, s)
		}
	}
	h.fail("a", []string{"Fit"}, []string{"Gate"})
	if s := h.m.String(); !strings.Contains(s, "unschedulableCount=1 pending=Gate") {
		t.Errorf("String() lacks the counts:\n%s", s)
	}
	if c := newModel(t).String(); strings.Contains(c, "inFlightEvents") {
		t.Errorf("the classic String must not change:\n%s", c)
	}
}

// A random walk over the hints model: every step must keep the profile's
// invariants (spec.CheckStep dispatches on the profile), the clone must stay
// equal, and the in-flight list must be empty whenever nothing is in flight.
func TestHintsRandomWalkKeepsInvariants(t *testing.T) {
	events := []spec.ClusterEvent{nodeAdd, nodeLabel, pvAdd, spec.WildCardEvent,
		{Resource: spec.ResourceNode, ActionType: spec.Update}, podLabel}
	seeds := 300
	if testing.Short() {
		seeds = 30
	}
	for seed := int64(0); seed < int64(seeds); seed++ {
		r := rand.New(rand.NewSource(seed))
		h := newHints(t, func(c *spec.Config) {
			if seed%4 == 0 {
				c.PodMaxBackoffDuration = 0
			}
		})
		names := []string{"a", "b", "c", "d"}
		mk := func(n string) *spec.Pod {
			p := pod(n, int32(r.Intn(3)))
			switch r.Intn(4) {
			case 0:
				p.Labels = map[string]string{"gated": "yes"}
			case 1:
				p.Labels = map[string]string{"fit": "label"}
			}
			return p
		}
		var trace []string
		for i := 0; i < 80; i++ {
			n := names[r.Intn(len(names))]
			key := spec.PodKey("ns/" + n)
			var line string
			switch r.Intn(12) {
			case 0, 1:
				p := mk(n)
				line = fmt.Sprintf("add %s %v", n, p.Labels)
				_ = h.step(spec.R1Add, key, 0, func() error { return h.m.Add(p) })
			case 2, 3:
				c := h.m.PopCandidates()
				if len(c) == 0 {
					continue
				}
				k := c[r.Intn(len(c))]
				line = "pop " + string(k)
				_ = h.step(spec.R2Pop, k, 0, func() error {
					p, cyc, err := h.m.PopPod(k)
					if err == nil {
						h.popped[p.Pod.Name], h.cycles[p.Pod.Name] = p, cyc
					}
					return err
				})
			case 4:
				p, ok := h.popped[n]
				if !ok {
					continue
				}
				q := *p
				q.UnschedulablePlugins = spec.NewPluginSet([]string{"Fit", "Gate"}[:r.Intn(3)]...)
				q.PendingPlugins = nil
				if r.Intn(4) == 0 {
					q.PendingPlugins = spec.NewPluginSet("Fit")
				}
				line = fmt.Sprintf("fail %s %v pending=%v", n, q.UnschedulablePlugins, q.PendingPlugins)
				_ = h.step(spec.R3AddUnschedulable, key, h.cycles[n], func() error { return h.m.AddUnschedulableIfNotPresent(&q, h.cycles[n]) })
			case 5:
				e := events[r.Intn(len(events))]
				line = "move " + e.String()
				h.move(e)
			case 6:
				line = "flush-backoff"
				h.flushBackoff()
			case 7:
				line = "flush-leftover"
				h.flushLeftover()
			case 8:
				d := time.Duration(r.Intn(3000)) * time.Millisecond * time.Duration(1+r.Intn(200))
				line = "tick " + d.String()
				h.tick(d)
			case 9:
				p := mk(n)
				line = "activate " + n
				_ = h.step(spec.R8Activate, key, 0, func() error { return h.m.Activate([]*spec.Pod{p}) })
			case 10:
				o, p := mk(n), mk(n)
				line = fmt.Sprintf("update %s %v", n, p.Labels)
				_ = h.step(spec.R9Update, key, 0, func() error { return h.m.Update(o, p) })
			case 11:
				if r.Intn(2) == 0 {
					line = "done " + n
					_ = h.step(spec.R12Done, key, 0, func() error { return h.m.Done(spec.UID("uid-" + n)) })
				} else {
					line = "delete " + n
					_ = h.step(spec.R10Delete, key, 0, func() error { return h.m.Delete(pod(n, 0)) })
				}
			}
			trace = append(trace, line)
			if c := h.m.Clone(); !c.Equal(h.m) {
				t.Fatalf("seed %d: a clone differs after %v", seed, trace)
			}
			if s := h.m.Snapshot(); len(s.InFlight) == 0 && len(s.InFlightEvents) != 0 {
				t.Fatalf("seed %d: %s: nothing in flight, list %v after %v", seed, spec.R15InFlight, s.InFlightEvents, trace)
			}
		}
	}
}

// Bad input in the hints profile: a clear error and no change, in-flight
// list and nominator included.
func TestHintsBadInputChangesNothing(t *testing.T) {
	h := newHints(t)
	h.add(pod("a", 0))
	h.add(pod("b", 0))
	h.pop("a")
	h.move(nodeAdd)
	other := pod("x", 0)
	other.UID = "uid-a" // a's UID under another key
	cases := []struct {
		name string
		want error
		op   func() error
	}{
		{"add nil", spec.ErrNilPod, func() error { return h.m.Add(nil) }},
		{"add queued", spec.ErrAlreadyQueued, func() error { return h.m.Add(pod("b", 0)) }},
		{"add in flight", spec.ErrAlreadyQueued, func() error { return h.m.Add(pod("a", 0)) }},
		{"add a UID held elsewhere", spec.ErrAlreadyQueued, func() error { return h.m.Add(other) }},
		{"fail a queued pod", spec.ErrAlreadyQueued, func() error {
			return h.m.AddUnschedulableIfNotPresent(&spec.QueuedPodInfo{Pod: pod("b", 0), Attempts: 1}, 1)
		}},
		{"fail nil", spec.ErrNilPod, func() error { return h.m.AddUnschedulableIfNotPresent(nil, 1) }},
		{"update changing the key", spec.ErrInvalidPod, func() error { return h.m.Update(pod("a", 0), pod("z", 0)) }},
		{"delete unknown", spec.ErrPodNotFound, func() error { return h.m.Delete(pod("z", 0)) }},
		{"done unknown", spec.ErrNotInFlight, func() error { return h.m.Done("uid-b") }},
		{"activate nil", spec.ErrNilPod, func() error { return h.m.Activate([]*spec.Pod{pod("b", 0), nil}) }},
		{"nominate nil", spec.ErrNilPod, func() error { return h.m.AddNominatedPod(nil, spec.NominateOverride, "n1") }},
	}
	for _, c := range cases {
		before := h.m.Clone()
		if err := c.op(); !errors.Is(err, c.want) {
			t.Errorf("%s: err = %v, want %v", c.name, err, c.want)
		}
		if !before.Equal(h.m) {
			t.Errorf("%s: the failed operation changed the model:\nbefore:\n%s\nafter:\n%s", c.name, before, h.m)
		}
	}
}
