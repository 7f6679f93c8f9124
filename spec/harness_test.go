package spec_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/schedq/schedq/conformance"
	"github.com/schedq/schedq/impl"
	"github.com/schedq/schedq/model"
	"github.com/schedq/schedq/spec"
)

// The bad-input tests run every case against both queues through
// spec.Queue. Each operation goes through subject, which checks the
// invariants I1-I6 on the step and reports a go-cmp diff of the snapshots
// when a case's expectation fails. (The rules themselves are tested by the
// conformance scenarios, on the same two queues.)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// The conformance suite's registry and pods, so that cases read the same in
// both places.
var (
	registry = conformance.Registry
	pod      = conformance.Pod
	key      = conformance.Key
)

type subject struct {
	name string
	t    *testing.T
	q    spec.Queue
	cfg  spec.Config
}

func newModel(t *testing.T, cfg spec.Config) *subject {
	m, err := model.New(cfg, t0)
	if err != nil {
		t.Fatalf("model.New: %v", err)
	}
	return &subject{name: "model", t: t, q: m, cfg: cfg}
}

func newImpl(t *testing.T, cfg spec.Config) *subject {
	clk := testingclock.NewFakeClock(t0)
	q, err := impl.New(cfg, impl.WithClock(clk))
	if err != nil {
		t.Fatalf("impl.New: %v", err)
	}
	t.Cleanup(q.Close)
	return &subject{name: "impl", t: t, q: q, cfg: cfg}
}

var queues = []struct {
	name string
	new  func(*testing.T, spec.Config) *subject
}{{"model", newModel}, {"impl", newImpl}}

// do runs one operation and checks the step invariants on it.
func (s *subject) do(st spec.Step, op func() error) error {
	s.t.Helper()
	before := s.q.Snapshot()
	st.Err = op()
	after := s.q.Snapshot()
	if err := spec.CheckStep(s.cfg, &before, &after, st); err != nil {
		s.t.Errorf("%s broke an invariant: %v\nbefore → after (-want +got):\n%s", st.Rule, err, cmp.Diff(before, after))
	}
	return st.Err
}

func (s *subject) must(err error) {
	s.t.Helper()
	if err != nil {
		s.t.Fatalf("unexpected error: %v", err)
	}
}

func (s *subject) add(p *spec.Pod) error {
	s.t.Helper()
	return s.do(spec.Step{Rule: spec.R1Add, Pod: p.Key()}, func() error { return s.q.Add(p) })
}

// pop pops a pod the queue has; it never blocks on an empty activeQ.
func (s *subject) pop() (*spec.QueuedPodInfo, int64) {
	s.t.Helper()
	if snap := s.q.Snapshot(); len(snap.ActiveQ) == 0 {
		s.t.Fatalf("pop on an empty activeQ would block")
	}
	var p *spec.QueuedPodInfo
	var cycle int64
	st := spec.Step{Rule: spec.R2Pop}
	before := s.q.Snapshot()
	p, cycle, st.Err = s.q.Pop()
	s.must(st.Err)
	st.Pod = p.Key()
	after := s.q.Snapshot()
	if err := spec.CheckStep(s.cfg, &before, &after, st); err != nil {
		s.t.Errorf("Pop broke an invariant: %v", err)
	}
	return p, cycle
}

// fail hands a popped pod back as unschedulable, rejected by plugins.
func (s *subject) fail(p *spec.QueuedPodInfo, cycle int64, plugins ...string) error {
	s.t.Helper()
	p.UnschedulablePlugins = spec.NewPluginSet(plugins...)
	return s.do(spec.Step{Rule: spec.R3AddUnschedulable, Pod: p.Key(), PodSchedulingCycle: cycle},
		func() error { return s.q.AddUnschedulableIfNotPresent(p, cycle) })
}

// park adds a pod, pops it and fails it with no move request pending, so
// it lands in unschedulablePods with Attempts=1.
func (s *subject) park(p *spec.Pod, plugins ...string) {
	s.t.Helper()
	s.must(s.add(p))
	got, cycle := s.pop()
	if got.Key() != p.Key() {
		s.t.Fatalf("park: popped %s, want %s", got.Key(), p.Key())
	}
	s.must(s.fail(got, cycle, plugins...))
	s.expectIn(spec.InUnschedulablePods, p.Key())
}

// places is the part of a snapshot most cases assert: which pod is where.
type places struct {
	ActiveQ, BackoffQ, UnschedulablePods, InFlight []spec.PodKey
}

func placesOf(s spec.Snapshot) places {
	ks := func(ps []spec.QueuedPodInfo) []spec.PodKey {
		var out []spec.PodKey
		for _, p := range ps {
			out = append(out, p.Key())
		}
		return out
	}
	return places{ks(s.ActiveQ), ks(s.BackoffQ), ks(s.UnschedulablePods), ks(s.InFlight)}
}

// expect asserts where every pod is.
func (s *subject) expect(want places) {
	s.t.Helper()
	snap := s.q.Snapshot()
	if d := cmp.Diff(want, placesOf(snap), cmpopts.EquateEmpty()); d != "" {
		s.t.Fatalf("pods are not where the rule puts them (-want +got):\n%s\nfull snapshot: %+v", d, snap)
	}
}

// expectIn asserts that the pods are in loc (and says where they are if not).
func (s *subject) expectIn(loc spec.Location, keys ...spec.PodKey) {
	s.t.Helper()
	snap := s.q.Snapshot()
	for _, k := range keys {
		if got, _ := snap.Find(k); got != loc {
			s.t.Fatalf("pod %s is in %s, want %s\n%s", k, got, loc, describe(snap))
		}
	}
}

// unchanged runs a bad-input operation and asserts that it failed with
// wantErr and that the snapshot is identical before and after.
func (s *subject) unchanged(wantErr error, op func() error) {
	s.t.Helper()
	before := s.q.Snapshot()
	err := op()
	after := s.q.Snapshot()
	if !errors.Is(err, wantErr) {
		s.t.Errorf("got error %v, want %v", err, wantErr)
	}
	if d := cmp.Diff(before, after); d != "" {
		s.t.Errorf("bad input changed the queue (-before +after):\n%s", d)
	}
}

func describe(s spec.Snapshot) string {
	return fmt.Sprintf("%+v", placesOf(s))
}
