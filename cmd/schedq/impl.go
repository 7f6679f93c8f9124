package main

import (
	"fmt"
	"strings"
	"time"

	testingclock "k8s.io/utils/clock/testing"

	"github.com/schedq/schedq/impl"
	"github.com/schedq/schedq/model"
	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// fakeClockQueue is package impl's queue on a fake clock: tick steps the
// clock, and the periodic flushes never run (Run is not called), so both
// flushes happen exactly where the scenario says.
type fakeClockQueue struct {
	*impl.PriorityQueue
	clock *testingclock.FakeClock
}

func (q fakeClockQueue) Step(d time.Duration) { q.clock.Step(d) }

func newImplQueue(cfg spec.Config, start time.Time) (implQueue, error) {
	clk := testingclock.NewFakeClock(start)
	q, err := impl.New(cfg, impl.WithClock(clk))
	if err != nil {
		return nil, err
	}
	return fakeClockQueue{q, clk}, nil
}

// newStepper steps q beside the model: the one pair of the suites
// (schedqtest.Stepper), with q's Pop blocking as a concurrent queue's does
// and the invariants checked on both sides.
func newStepper(cfg spec.Config, q implQueue) (*schedqtest.Stepper, error) {
	return schedqtest.NewStepper(cfg, schedqtest.Start, q, q.Step, schedqtest.StepOptions{
		Blocking: true, Invariants: true, ModelInvariants: true, Wait: wakeWait,
	})
}

// replayBoth applies one operation to the implementation and the model
// through the stepper, the model following the implementation's choice
// among equal pods, and records what the stepper found as the replay's
// problems. followed reports that the implementation chose a pod other
// than the model's own choice (allowed by I5).
func replayBoth(sp *schedqtest.Stepper, s *step) (followed bool, err error) {
	op, mr := s.Op, sp.Shadow
	rule := string(op.Rule())
	if op.Kind == schedqtest.KindPop && !op.Blocked && !mr.Model.Closed() && !mayPop(sp.Cfg, mr.Model) {
		// The model answers ErrWouldBlock; the implementation would wait
		// for ever, so it is not asked.
		_, line, err := mr.ApplyOnly(op)
		s.Result, s.ImplResult = line, `(not run: Pop would block on an empty activeQ; write "pop blocked" to wait)`
		impl := sp.Target.Snapshot()
		s.Impl = &impl
		return false, err
	}
	cands := mr.Model.PopCandidates()
	st, err := sp.Step(op)
	if err != nil {
		return false, err
	}
	s.Result, s.ImplResult = strings.Join(st.ModelLines, "\n"), strings.Join(st.TargetLines, "\n")
	for _, p := range st.Problems {
		switch {
		case p.Err != nil:
			side := "impl"
			if strings.HasPrefix(p.Check, "model ") {
				side = "model"
			}
			s.Problems = append(s.Problems, named(p.Err, side, spec.Rule(rule))...)
		case p.Check == "Pop blocked" && op.Kind == schedqtest.KindPop && !op.Blocked:
			s.ImplResult = "(still waiting)"
			s.Problems = append(s.Problems, problem{Kind: problemDisagree, ID: rule, Detail: fmt.Sprintf(
				"impl's Pop did not return within %v though the model pops one of %v (closed=%v)", wakeWait, names(cands), st.ShadowBefore.Closed)})
		case p.Check == "snapshot diff":
			s.Problems = append(s.Problems, problem{Kind: problemDisagree, ID: rule,
				Detail: "state after the step:\n    " + strings.Join(stateDiff(sp.Cfg, &st.ShadowAfter, &st.TargetAfter), "\n    ")})
		case p.Check == "error mismatch" && op.Kind != schedqtest.KindPop:
			s.Problems = append(s.Problems, problem{Kind: problemDisagree, ID: rule,
				Detail: fmt.Sprintf("model: %s / impl: %s", st.ModelLines[0], st.TargetLines[0])})
		default:
			s.Problems = append(s.Problems, problem{Kind: problemDisagree, ID: rule, Detail: p.Text})
		}
	}
	s.Impl = &st.TargetAfter
	return st.Followed, nil
}

func names(keys []spec.PodKey) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = schedqtest.NameOf(k)
	}
	return out
}

// mayPop reports whether the model has something a Pop returns at once: a
// pod of activeQ, or in the podgroups profile an entity (a group or a pod
// alone: PopEntity, G3).
func mayPop(cfg spec.Config, m *model.Model) bool {
	if cfg.Profile == spec.ProfilePodGroups {
		return len(m.EntityCandidates()) > 0
	}
	return len(m.PopCandidates()) > 0
}
