package conformance

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/schedq/schedq/spec"
)

// H drives one scenario on one target. Its methods perform an operation and
// assert what the rules say about it; a failed assertion ends the scenario
// (like testing.T.Fatalf) and is reported with the target's snapshot.
type H struct {
	target  Target
	profile Profile
	cfg     spec.Config
	start   time.Time
	log     []string
	failure string
	na      string
}

// Failure reasons end the scenario goroutine; run recovers the outcome.
func (h *H) fatalf(format string, args ...any) {
	h.failure = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// NotApplicable ends the scenario as not applicable to this target, with
// the reason (e.g. it needs an observation the target cannot make).
func (h *H) NotApplicable(reason string) {
	h.na = reason
	runtime.Goexit()
}

// Requires ends the scenario as not applicable unless the target observes
// what it needs.
func (h *H) Requires(o Observes) {
	p := h.profile.Observes
	switch {
	case o.MoveRequestCycle && !p.MoveRequestCycle:
		h.NotApplicable("the target does not observe moveRequestCycle")
	case o.PodInfo && !p.PodInfo:
		h.NotApplicable("the target does not observe queued-pod fields")
	case o.Closed && !p.Closed:
		h.NotApplicable("the target does not observe Closed")
	}
}

// Profile is the target's profile.
func (h *H) Profile() Profile { return h.profile }

// Start is the time the target's clock read when the scenario began.
func (h *H) Start() time.Time { return h.start }

// Target is the queue under test, for operations the helpers do not cover.
func (h *H) Target() Target { return h.target }

func (h *H) logf(format string, args ...any) {
	h.log = append(h.log, fmt.Sprintf(format, args...))
}

// Pod returns a pod of namespace "ns" with UID "uid-<name>".
func Pod(name string, priority int32) *spec.Pod {
	return &spec.Pod{Namespace: "ns", Name: name, UID: spec.UID("uid-" + name), Priority: priority}
}

// Key is the key of Pod(name, ...).
func Key(name string) spec.PodKey { return spec.PodKey("ns/" + name) }

// checksInvariants reports whether the target observes everything the
// invariants I1-I6 are stated over; then every operation is checked.
func (h *H) checksInvariants() bool {
	o := h.profile.Observes
	return o.MoveRequestCycle && o.PodInfo && o.Closed
}

// do performs one operation and, for a target that observes everything,
// checks the step invariants I1-I6 on it (spec.CheckStep).
func (h *H) do(st spec.Step, op func() error) error {
	if !h.checksInvariants() {
		return op()
	}
	before := h.target.Snapshot()
	st.Err = op()
	after := h.target.Snapshot()
	if err := spec.CheckStep(h.cfg, &before, &after, st); err != nil {
		h.fatalf("%s broke an invariant: %v\n%s", st.Rule, err, h.describe())
	}
	return st.Err
}

func keyOf(p *spec.Pod) spec.PodKey {
	if p == nil {
		return ""
	}
	return p.Key()
}

// Step advances the target's clock.
func (h *H) Step(d time.Duration) {
	h.logf("Step(%v)", d)
	h.do(spec.Step{Rule: spec.RTick}, func() error { h.target.Step(d); return nil })
}

// Add performs R1 and returns its error.
func (h *H) Add(p *spec.Pod) error {
	h.logf("Add(%v)", p)
	return h.do(spec.Step{Rule: spec.R1Add, Pod: keyOf(p)}, func() error { return h.target.Add(p) })
}

// MustAdd adds pods that must be accepted.
func (h *H) MustAdd(pods ...*spec.Pod) {
	for _, p := range pods {
		h.NoError(h.Add(p))
	}
}

// Pop pops a pod, which must not block: activeQ must hold one. Where the
// target observes pod fields, the popped pod must be a maximal one (I5).
func (h *H) Pop() (*spec.QueuedPodInfo, int64) {
	before := h.target.Snapshot()
	if len(before.ActiveQ) == 0 {
		h.fatalf("Pop with an empty activeQ would block\n%s", h.describe())
	}
	p, cycle, err := h.target.Pop()
	if err != nil {
		h.fatalf("Pop: %v", err)
	}
	h.logf("Pop() = %s, cycle %d", p.Key(), cycle)
	if h.checksInvariants() {
		after := h.target.Snapshot()
		if err := spec.CheckStep(h.cfg, &before, &after, spec.Step{Rule: spec.R2Pop, Pod: p.Key()}); err != nil {
			h.fatalf("Pop broke an invariant: %v\n%s", err, h.describe())
		}
	}
	allowed := spec.MaximalPods(before.ActiveQ)
	if !h.profile.Observes.PodInfo {
		allowed = placesOf(before).ActiveQ
	}
	if !slices.Contains(allowed, p.Key()) {
		h.fatalf("Pop returned %s; allowed: %v (I5)", p.Key(), allowed)
	}
	return p, cycle
}

// PopKey pops and asserts which pod came out.
func (h *H) PopKey(name string) *spec.QueuedPodInfo {
	p, _ := h.Pop()
	if p.Key() != Key(name) {
		h.fatalf("Pop returned %s, want %s", p.Key(), Key(name))
	}
	return p
}

// Fail hands a popped pod back (R3), rejected by plugins.
func (h *H) Fail(p *spec.QueuedPodInfo, cycle int64, plugins ...string) error {
	p.UnschedulablePlugins = spec.NewPluginSet(plugins...)
	h.logf("AddUnschedulableIfNotPresent(%s, cycle %d, plugins %v)", p.Key(), cycle, plugins)
	return h.do(spec.Step{Rule: spec.R3AddUnschedulable, Pod: p.Key(), PodSchedulingCycle: cycle},
		func() error { return h.target.AddUnschedulableIfNotPresent(p, cycle) })
}

// Park adds a pod, pops it and fails it with no move request since, so it
// lands in unschedulablePods with Attempts=1.
func (h *H) Park(p *spec.Pod, plugins ...string) *spec.QueuedPodInfo {
	h.MustAdd(p)
	got, cycle := h.Pop()
	if got.Key() != p.Key() {
		h.fatalf("Park: popped %s, want %s", got.Key(), p.Key())
	}
	h.NoError(h.Fail(got, cycle, plugins...))
	h.ExpectIn(spec.InUnschedulablePods, p.Name)
	return got
}

// MoveAll performs R4.
func (h *H) MoveAll(e spec.ClusterEvent, pre spec.PreEnqueueCheck) {
	h.logf("MoveAllToActiveOrBackoffQueue(%v)", e)
	h.do(spec.Step{Rule: spec.R4MoveAll}, func() error { h.target.MoveAllToActiveOrBackoffQueue(e, pre); return nil })
}

// FlushBackoffQ performs R5.
func (h *H) FlushBackoffQ() {
	h.logf("FlushBackoffQCompleted()")
	h.do(spec.Step{Rule: spec.R5FlushBackoffQ}, func() error { h.target.FlushBackoffQCompleted(); return nil })
}

// FlushLeftover performs R6.
func (h *H) FlushLeftover() {
	h.logf("FlushUnschedulablePodsLeftover()")
	h.do(spec.Step{Rule: spec.R6FlushUnschedulable}, func() error { h.target.FlushUnschedulablePodsLeftover(); return nil })
}

// Activate performs R8.
func (h *H) Activate(pods ...*spec.Pod) error {
	h.logf("Activate(%v)", pods)
	return h.do(spec.Step{Rule: spec.R8Activate}, func() error { return h.target.Activate(pods) })
}

// Update performs R9.
func (h *H) Update(old, new *spec.Pod) error {
	h.logf("Update(%v -> %v)", old, new)
	return h.do(spec.Step{Rule: spec.R9Update, Pod: keyOf(new)}, func() error { return h.target.Update(old, new) })
}

// Delete performs R10.
func (h *H) Delete(p *spec.Pod) error {
	h.logf("Delete(%v)", p)
	return h.do(spec.Step{Rule: spec.R10Delete, Pod: keyOf(p)}, func() error { return h.target.Delete(p) })
}

// AssignedPodAdded performs R11.
func (h *H) AssignedPodAdded(p *spec.Pod) error {
	h.logf("AssignedPodAdded(%v)", p)
	return h.do(spec.Step{Rule: spec.R11AssignedPod}, func() error { return h.target.AssignedPodAdded(p) })
}

// AssignedPodUpdated performs R11 for an update.
func (h *H) AssignedPodUpdated(old, new *spec.Pod, e spec.ClusterEvent) error {
	h.logf("AssignedPodUpdated(%v, %v)", new, e)
	return h.do(spec.Step{Rule: spec.R11AssignedPod}, func() error { return h.target.AssignedPodUpdated(old, new, e) })
}

// Done performs R12.
func (h *H) Done(uid spec.UID) error {
	h.logf("Done(%s)", uid)
	var k spec.PodKey // the pod Done may remove, for I4
	for _, p := range h.target.Snapshot().InFlight {
		if p.Pod.UID == uid {
			k = p.Key()
		}
	}
	return h.do(spec.Step{Rule: spec.R12Done, Pod: k}, func() error { return h.target.Done(uid) })
}

// NoError asserts that an operation succeeded.
func (h *H) NoError(err error) {
	if err != nil {
		h.fatalf("unexpected error: %v\n%s", err, h.describe())
	}
}

// ExpectErr asserts that err is want. A target with SilentNoOps may return
// nil instead.
func (h *H) ExpectErr(err, want error) {
	if errors.Is(err, want) || err == nil && h.profile.SilentNoOps {
		return
	}
	h.fatalf("got error %v, want %v", err, want)
}

// Unchanged performs a bad-input operation and asserts that it fails with
// want (see ExpectErr) and that the observed state is the same afterwards.
func (h *H) Unchanged(want error, op func() error) {
	before := h.observe()
	err := op()
	h.ExpectErr(err, want)
	if d := diffObserved(before, h.observe()); d != "" {
		h.fatalf("bad input (%v) changed the queue:\n%s", want, d)
	}
}

// Places lists, for each place, the names (without namespace "ns/") or keys
// of the pods expected there.
type Places struct {
	ActiveQ, BackoffQ, UnschedulablePods, InFlight []spec.PodKey
}

func placesOf(s spec.Snapshot) Places {
	ks := func(ps []spec.QueuedPodInfo) []spec.PodKey {
		out := make([]spec.PodKey, 0, len(ps))
		for _, p := range ps {
			out = append(out, p.Key())
		}
		return out
	}
	return Places{ks(s.ActiveQ), ks(s.BackoffQ), ks(s.UnschedulablePods), ks(s.InFlight)}
}

// Expect asserts where every pod is: the places given by name (pods of
// namespace "ns"), every other place empty.
func (h *H) Expect(active, backoff, unschedulable, inFlight []string) {
	want := Places{names(active), names(backoff), names(unschedulable), names(inFlight)}
	got := placesOf(h.target.Snapshot())
	if d := diffPlaces(want, got); d != "" {
		h.fatalf("pods are not where the rules put them:\n%s\n%s", d, h.describe())
	}
}

// ExpectIn asserts that the named pods are in loc.
func (h *H) ExpectIn(loc spec.Location, names ...string) {
	s := h.target.Snapshot()
	for _, n := range names {
		if got, _ := s.Find(Key(n)); got != loc {
			h.fatalf("pod %s is in %s, want %s\n%s", Key(n), got, loc, h.describe())
		}
	}
}

// Info returns the queued-pod fields of a held pod; the scenario must have
// called Requires(Observes{PodInfo: true}).
func (h *H) Info(name string) spec.QueuedPodInfo {
	s := h.target.Snapshot()
	loc, p := s.Find(Key(name))
	if loc == spec.Nowhere {
		h.fatalf("pod %s is not held\n%s", Key(name), h.describe())
	}
	return p
}

// ExpectMoveRequestCycle asserts moveRequestCycle where the target observes
// it and does nothing otherwise: scenarios also assert its effect on a
// later failure, which every target shows.
func (h *H) ExpectMoveRequestCycle(want int64) {
	if !h.profile.Observes.MoveRequestCycle {
		return
	}
	if got := h.target.Snapshot().MoveRequestCycle; got != want {
		h.fatalf("moveRequestCycle = %d, want %d", got, want)
	}
}

// ExpectSchedulingCycle asserts schedulingCycle.
func (h *H) ExpectSchedulingCycle(want int64) {
	if got := h.target.SchedulingCycle(); got != want {
		h.fatalf("schedulingCycle = %d, want %d", got, want)
	}
}

// Check fails the scenario with a message unless ok.
func (h *H) Check(ok bool, format string, args ...any) {
	if !ok {
		h.fatalf(format, args...)
	}
}

func names(ns []string) []spec.PodKey {
	out := make([]spec.PodKey, 0, len(ns))
	for _, n := range ns {
		if strings.Contains(n, "/") {
			out = append(out, spec.PodKey(n))
		} else {
			out = append(out, Key(n))
		}
	}
	slices.Sort(out)
	return out
}

func diffPlaces(want, got Places) string {
	var b strings.Builder
	for _, c := range []struct {
		name      string
		want, got []spec.PodKey
	}{{"activeQ", want.ActiveQ, got.ActiveQ}, {"backoffQ", want.BackoffQ, got.BackoffQ},
		{"unschedulablePods", want.UnschedulablePods, got.UnschedulablePods}, {"inFlight", want.InFlight, got.InFlight}} {
		if !slices.Equal(c.want, c.got) {
			fmt.Fprintf(&b, "  %s: want %v, got %v\n", c.name, c.want, c.got)
		}
	}
	return b.String()
}

// observe is the target's snapshot reduced to what its profile observes.
func (h *H) observe() spec.Snapshot { return Observed(h.profile.Observes, h.target.Snapshot()) }

// Observed reduces a snapshot to what o says is observed, so that two
// snapshots of targets with different powers of observation compare.
func Observed(o Observes, s spec.Snapshot) spec.Snapshot {
	s.Now = time.Time{}
	if !o.MoveRequestCycle {
		s.MoveRequestCycle = 0
	}
	if !o.Closed {
		s.Closed = false
	}
	if !o.PodInfo {
		for _, l := range [][]spec.QueuedPodInfo{s.ActiveQ, s.BackoffQ, s.UnschedulablePods, s.InFlight} {
			for i := range l {
				l[i] = spec.QueuedPodInfo{Pod: l[i].Pod}
			}
		}
	}
	return s
}

func diffObserved(a, b spec.Snapshot) string { return a.Diff(&b) }

func (h *H) describe() string {
	s := h.target.Snapshot()
	p := placesOf(s)
	return fmt.Sprintf("  state: activeQ=%v backoffQ=%v unschedulablePods=%v inFlight=%v schedulingCycle=%d moveRequestCycle=%d",
		p.ActiveQ, p.BackoffQ, p.UnschedulablePods, p.InFlight, s.SchedulingCycle, s.MoveRequestCycle)
}
