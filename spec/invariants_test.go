package spec_test

import (
	"errors"
	"testing"
	"time"

	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// Each invariant must be able to fail: feed it a broken step and check it
// names itself.
func TestInvariantsCatchBrokenSteps(t *testing.T) {
	cfg := schedqtest.Config()
	qp := func(name string, attempts int, ts time.Time, plugins ...string) spec.QueuedPodInfo {
		return spec.QueuedPodInfo{Pod: schedqtest.Pod(name, 0), Attempts: attempts, Timestamp: ts, UnschedulablePlugins: spec.NewPluginSet(plugins...)}
	}
	a, b := qp("a", 1, schedqtest.Start), qp("b", 0, schedqtest.Start)
	hi := spec.QueuedPodInfo{Pod: schedqtest.Pod("hi", 9), Timestamp: schedqtest.Start}
	base := spec.Snapshot{Now: schedqtest.Start, SchedulingCycle: 3, MoveRequestCycle: 1}
	with := func(f func(*spec.Snapshot)) *spec.Snapshot { s := base; f(&s); return &s }
	checkBroken(t, cfg, []brokenStep{
		{"pod in two places", "I1", &base, with(func(s *spec.Snapshot) { s.ActiveQ = []spec.QueuedPodInfo{a}; s.BackoffQ = []spec.QueuedPodInfo{a} }),
			spec.StepRecord{Rule: spec.RTick}},
		{"unsorted list", "I1", &base, with(func(s *spec.Snapshot) { s.ActiveQ = []spec.QueuedPodInfo{b, a} }), spec.StepRecord{Rule: spec.RTick}},
		{"flush releases a pod early", "I2", with(func(s *spec.Snapshot) { s.BackoffQ = []spec.QueuedPodInfo{a} }),
			with(func(s *spec.Snapshot) { s.Now = schedqtest.Start.Add(time.Second); s.ActiveQ = []spec.QueuedPodInfo{a} }), spec.StepRecord{Rule: spec.R5FlushBackoffQ}},
		{"flush keeps a completed pod", "I2", with(func(s *spec.Snapshot) { s.BackoffQ = []spec.QueuedPodInfo{a} }),
			with(func(s *spec.Snapshot) {
				s.Now = schedqtest.Start.Add(2 * time.Second)
				s.BackoffQ = []spec.QueuedPodInfo{a}
			}), spec.StepRecord{Rule: spec.R5FlushBackoffQ}},
		{"event moves a backing-off pod to activeQ", "I2", with(func(s *spec.Snapshot) { s.UnschedulablePods = []spec.QueuedPodInfo{a} }),
			with(func(s *spec.Snapshot) { s.ActiveQ = []spec.QueuedPodInfo{a}; s.MoveRequestCycle = 3 }), spec.StepRecord{Rule: spec.R4MoveAll}},
		{"shortcut not taken", "I3", with(func(s *spec.Snapshot) { s.MoveRequestCycle = 3; s.InFlight = []spec.QueuedPodInfo{a} }),
			with(func(s *spec.Snapshot) {
				s.MoveRequestCycle = 3
				s.UnschedulablePods = []spec.QueuedPodInfo{qp("a", 1, schedqtest.Start, "P")}
			}), spec.StepRecord{Rule: spec.R3AddUnschedulable, Pod: a.Key(), PodSchedulingCycle: 3}},
		{"no rejecting plugin parked", "I3", with(func(s *spec.Snapshot) { s.InFlight = []spec.QueuedPodInfo{a} }),
			with(func(s *spec.Snapshot) { s.UnschedulablePods = []spec.QueuedPodInfo{a} }),
			spec.StepRecord{Rule: spec.R3AddUnschedulable, Pod: a.Key(), PodSchedulingCycle: 3}},
		{"a pod vanishes", "I4", with(func(s *spec.Snapshot) { s.UnschedulablePods = []spec.QueuedPodInfo{a} }), &base, spec.StepRecord{Rule: spec.R4MoveAll}},
		{"a failed operation changes the queue", "I4", &base, with(func(s *spec.Snapshot) { s.ActiveQ = []spec.QueuedPodInfo{b} }),
			spec.StepRecord{Rule: spec.R1Add, Pod: b.Key(), Err: spec.ErrAlreadyQueued}},
		{"Pop of a non-maximal pod", "I5", with(func(s *spec.Snapshot) { s.ActiveQ = []spec.QueuedPodInfo{b, hi} }),
			with(func(s *spec.Snapshot) {
				s.SchedulingCycle = 4
				s.ActiveQ = []spec.QueuedPodInfo{hi}
				s.InFlight = []spec.QueuedPodInfo{b}
			}),
			spec.StepRecord{Rule: spec.R2Pop, Pod: b.Key()}},
		{"Pop without a cycle", "I6", with(func(s *spec.Snapshot) { s.ActiveQ = []spec.QueuedPodInfo{b} }),
			with(func(s *spec.Snapshot) { s.InFlight = []spec.QueuedPodInfo{b} }), spec.StepRecord{Rule: spec.R2Pop, Pod: b.Key()}},
		{"moveRequestCycle ahead", "I6", &base, with(func(s *spec.Snapshot) { s.MoveRequestCycle = 4 }), spec.StepRecord{Rule: spec.R8Activate}},
	})
	if err := spec.CheckStep(cfg, &base, &base, spec.StepRecord{Rule: spec.RTick}); err != nil {
		t.Fatalf("a no-op step broke %v", err)
	}
}

// brokenStep is a step that breaks the invariant want.
type brokenStep struct {
	name          string
	want          string
	before, after *spec.Snapshot
	step          spec.StepRecord
}

// checkBroken checks that CheckStep names each case's invariant among the
// violations it finds.
func checkBroken(t *testing.T, cfg spec.Config, cases []brokenStep) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := spec.CheckStep(cfg, c.before, c.after, c.step)
			for _, e := range unjoin(err) {
				var ie *spec.InvariantError
				if errors.As(e, &ie) && ie.Invariant == c.want {
					return
				}
			}
			t.Fatalf("CheckStep = %v, want an %s violation", err, c.want)
		})
	}
}
