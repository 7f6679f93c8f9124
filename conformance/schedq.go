package conformance

import (
	"testing"
	"time"

	testingclock "k8s.io/utils/clock/testing"

	"github.com/schedq/schedq/impl"
	"github.com/schedq/schedq/model"
	"github.com/schedq/schedq/spec"
)

// schedq's own two queues as targets: the conformance, concurrent,
// properties and protocol tests, the protocol's reference peer
// (cmd/schedq-peer) and the examples build them here, so that what
// "schedq-impl" and "schedq-model" claim to observe is said once; a caller
// that reports under another name sets About. (linearizability drives a
// spec.Queue of its own and needs no target.) A queue author's adapter
// looks like Impl (see its source).

// ImplTarget is the constructor of schedq's implementation as a target
// (TargetImpl), for Run and the concurrent checks: it fails t on a config
// the implementation refuses and closes the queue when t ends.
func ImplTarget(t testing.TB, cfg spec.Config, start time.Time) Target {
	q, err := NewImpl(cfg, start)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(q.Close)
	return q
}

// ModelTarget is the constructor of schedq's model as a target
// (TargetModel). The model is sequential: its Pop never waits
// (Blocking false), so the scenarios about blocking are n/a on it.
func ModelTarget(t testing.TB, cfg spec.Config, start time.Time) Target {
	m, err := NewModel(cfg, start)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Impl is schedq's implementation (impl.PriorityQueue) on a fake clock
// the suite advances. About is what Info reports; a caller that runs it
// under another name (a peer, a test's own report) changes it.
type Impl struct {
	*impl.PriorityQueue
	Clock *testingclock.FakeClock
	About TargetInfo
}

// NewImpl returns the implementation with cfg, its clock at start,
// reporting itself as TargetImpl with everything it observes.
func NewImpl(cfg spec.Config, start time.Time) (*Impl, error) {
	clk := testingclock.NewFakeClock(start)
	q, err := impl.New(cfg, impl.WithClock(clk))
	if err != nil {
		return nil, err
	}
	return &Impl{PriorityQueue: q, Clock: clk, About: TargetInfo{
		Name:        TargetImpl,
		Description: "schedq impl: the concurrent implementation",
		Blocking:    true,
		// impl's snapshots are spec.Snapshots: complete in every profile.
		Observes: Observes{MoveRequestCycle: true, PodInfo: true, Closed: true, Metrics: true,
			InFlightEvents: true, HintCounts: true},
	}}, nil
}

// Advance steps the fake clock; the queue's timers (the flushes) fire only
// if the suite asks for them.
func (t *Impl) Advance(d time.Duration) { t.Clock.Step(d) }

// Info is About.
func (t *Impl) Info() TargetInfo { return t.About }

// Metrics reports the queue's metrics (R14, R14h) in the suite's types,
// which Observes.Metrics claims; it shadows impl's own Metrics.
func (t *Impl) Metrics() Metrics {
	m := t.PriorityQueue.Metrics()
	out := Metrics{PendingPods: m.PendingPods, IncomingPods: map[IncomingSeries]uint64{},
		UnschedulablePods: m.UnschedulablePods}
	for k, v := range m.IncomingPods {
		out.IncomingPods[IncomingSeries{Queue: k.Queue, Event: k.Event}] = v
	}
	return out
}

// Model is schedq's executable model as a target: its clock is the
// model's own, which Advance steps.
type Model struct {
	*model.Model
	About TargetInfo
}

// NewModel returns the model with cfg at start, reporting itself as
// TargetModel.
func NewModel(cfg spec.Config, start time.Time) (*Model, error) {
	m, err := model.New(cfg, start)
	if err != nil {
		return nil, err
	}
	return &Model{Model: m, About: TargetInfo{
		Name:        TargetModel,
		Description: "schedq model: the executable specification",
		Observes: Observes{MoveRequestCycle: true, PodInfo: true, Closed: true,
			InFlightEvents: true, HintCounts: true},
	}}, nil
}

// Advance steps the model's clock. A step the model refuses (a negative
// duration) is a bug of the caller, not of a queue: it panics.
func (m *Model) Advance(d time.Duration) {
	if err := m.Model.Step(d); err != nil {
		panic(err)
	}
}

// Info is About.
func (m *Model) Info() TargetInfo { return m.About }
