package spec_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/schedq/schedq/impl"
	"github.com/schedq/schedq/model"
	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// The bad-input tests run every case against both queues through
// spec.Queue, driven by scenario lines (package schedqtest). Each step is
// checked against the invariants I1-I6; the rules themselves are tested by
// the conformance scenarios, on the same two queues.

// subject is one queue under test.
type subject struct {
	q    spec.Queue
	exec *schedqtest.Executor
	cfg  spec.Config
}

var queues = []struct {
	name string
	new  func(*testing.T, spec.Config) *subject
}{
	{"model", func(t *testing.T, cfg spec.Config) *subject {
		m, err := model.New(cfg, schedqtest.Start)
		if err != nil {
			t.Fatalf("model.New: %v", err)
		}
		return &subject{q: m, exec: schedqtest.NewExecutor(m, m.Step), cfg: cfg}
	}},
	{"impl", func(t *testing.T, cfg spec.Config) *subject {
		clk := testingclock.NewFakeClock(schedqtest.Start)
		q, err := impl.New(cfg, impl.WithClock(clk))
		if err != nil {
			t.Fatalf("impl.New: %v", err)
		}
		t.Cleanup(q.Close)
		return &subject{q: q, exec: schedqtest.NewExecutor(q, func(d time.Duration) error { clk.Step(d); return nil }), cfg: cfg}
	}},
}

// run performs scenario lines that must succeed, checking the invariants
// on every step.
func (s *subject) run(t *testing.T, lines ...string) {
	t.Helper()
	for _, l := range lines {
		op, err := schedqtest.ParseOp(l)
		if err != nil {
			t.Fatal(err)
		}
		before := s.q.Snapshot()
		o, err := s.exec.Apply(op)
		if err != nil {
			t.Fatal(err)
		}
		after := s.q.Snapshot()
		if err := spec.CheckStep(s.cfg, &before, &after, o.Step); err != nil {
			t.Errorf("%s broke an invariant: %v\nbefore:\n%safter:\n%s", op, err,
				schedqtest.Render(before, schedqtest.Start, s.cfg), schedqtest.Render(after, schedqtest.Start, s.cfg))
		}
		if o.Err() != nil {
			t.Fatalf("%s: unexpected error %v", op, o.Err())
		}
	}
}

// expect asserts that the rendered state has these lines (or line
// prefixes).
func (s *subject) expect(t *testing.T, prefixes ...string) {
	t.Helper()
	state := schedqtest.Render(s.q.Snapshot(), schedqtest.Start, s.cfg)
	for _, p := range prefixes {
		if !strings.Contains(state, "\n"+p) {
			t.Fatalf("the state lacks a line %q...:\n%s", p, state)
		}
	}
}

// unchanged runs a bad-input operation and asserts that it failed with
// wantErr and that the snapshot is identical before and after.
func (s *subject) unchanged(t *testing.T, wantErr error, op func() error) {
	t.Helper()
	before := s.q.Snapshot()
	err := op()
	after := s.q.Snapshot()
	if !errors.Is(err, wantErr) {
		t.Errorf("got error %v, want %v", err, wantErr)
	}
	if d := cmp.Diff(before, after); d != "" {
		t.Errorf("bad input changed the queue (-before +after):\n%s", d)
	}
}
