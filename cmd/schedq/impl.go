package main

import (
	"fmt"
	"slices"
	"strings"
	"time"

	testingclock "k8s.io/utils/clock/testing"

	"github.com/schedq/schedq/impl"
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
	if cfg.Profile == spec.ProfileClassic && len(cfg.PreEnqueuePlugins) > 0 {
		// impl.New accepts the config and ignores the plugins; until impl
		// gates (R17's classic text), report the scenario n/a on impl.
		return nil, fmt.Errorf("%w: impl does not run PreEnqueue plugins in the classic profile yet (R17)", spec.ErrInvalidConfig)
	}
	clk := testingclock.NewFakeClock(start)
	q, err := impl.New(cfg, impl.WithClock(clk))
	if err != nil {
		return nil, err
	}
	return fakeClockQueue{q, clk}, nil
}

// popResult is what one Pop of the implementation returned.
type popResult struct {
	info  *spec.QueuedPodInfo
	cycle int64
	err   error
}

// implDriver drives the implementation: an Executor for the operations,
// and goroutines for the Pops that block.
type implDriver struct {
	q       implQueue
	exec    *schedqtest.Executor
	results chan popResult
	// waiting counts the blocked Pops started and not yet returned.
	waiting int
}

func newImplDriver(q implQueue) *implDriver {
	return &implDriver{
		q:       q,
		exec:    schedqtest.NewExecutor(q, func(d time.Duration) error { q.Step(d); return nil }),
		results: make(chan popResult, 64),
	}
}

// startPop starts a Pop that is expected to block.
func (d *implDriver) startPop() {
	d.waiting++
	go func() {
		info, cycle, err := d.q.Pop()
		d.results <- popResult{info, cycle, err}
	}()
}

// pop is a Pop that must not block: it returns what the implementation's
// Pop returned, or false if it did not return within wakeWait (the Pop is
// then counted as waiting and its result arrives on results).
func (d *implDriver) pop() (popResult, bool) {
	d.waiting++
	go func() {
		info, cycle, err := d.q.Pop()
		d.results <- popResult{info, cycle, err}
	}()
	select {
	case r := <-d.results:
		d.waiting--
		return r, true
	case <-time.After(wakeWait):
		return popResult{}, false
	}
}

// record hands a returned Pop to the executor's bookkeeping, so that a
// later "fail a" hands back what the implementation's Pop returned.
func (d *implDriver) record(r popResult) schedqtest.Outcome {
	d.waiting--
	return d.exec.ApplyPop(func() (*spec.QueuedPodInfo, int64, error) { return r.info, r.cycle, r.err })
}

// close closes the queue, which returns every blocked Pop.
func (d *implDriver) close() {
	d.q.Close()
	deadline := time.After(wakeWait)
	for d.waiting > 0 {
		select {
		case <-d.results:
			d.waiting--
		case <-deadline:
			return
		}
	}
}

// replayBoth applies one operation to the implementation and the model,
// the model following the implementation's choice among equal pods, and
// checks both. diverged reports that the implementation chose a pod other
// than the model's own choice (allowed by I5).
func replayBoth(mr *schedqtest.ModelRun, d *implDriver, cfg spec.Config, before, implBefore spec.Snapshot, s *step) (diverged bool, err error) {
	op := s.Op
	rule := string(op.Rule())
	disagree := func(format string, a ...any) {
		s.Problems = append(s.Problems, problem{Kind: problemDisagree, ID: rule, Detail: fmt.Sprintf(format, a...)})
	}
	var mo, io schedqtest.Outcome
	var mLine, iLine string
	checkStep := true
	switch {
	case op.Kind == schedqtest.KindPop && op.Blocked:
		if _, mLine, err = mr.ApplyOnly(op); err != nil {
			return false, err
		}
		d.startPop()
		iLine, checkStep = "blocked", false
	case op.Kind == schedqtest.KindPop && !mr.Model.Closed() && len(mr.Model.PopCandidates()) == 0:
		// The model answers ErrWouldBlock; the implementation would wait
		// for ever, so it is not asked.
		if mo, mLine, err = mr.ApplyOnly(op); err != nil {
			return false, err
		}
		iLine, checkStep = `(not run: Pop would block on an empty activeQ; write "pop blocked" to wait)`, false
	case op.Kind == schedqtest.KindPop:
		cands := mr.Model.PopCandidates()
		r, ok := d.pop()
		if !ok {
			// The model would not block here: the implementation's Pop
			// is stuck. It is counted as waiting; if it returns later,
			// the replay says so.
			disagree("impl's Pop did not return within %v though the model pops one of %v (closed=%v)", wakeWait, names(cands), mr.Model.Closed())
			if mo, mLine, err = mr.ApplyOnly(op); err != nil {
				return false, err
			}
			iLine = "(still waiting)"
			break
		}
		io = d.exec.ApplyPop(func() (*spec.QueuedPodInfo, int64, error) { return r.info, r.cycle, r.err })
		iLine = io.String()
		switch {
		case io.Err() != nil || io.Popped == nil:
			mo, mLine, err = mr.ApplyOnly(op)
		case slices.Contains(cands, io.Step.Pod):
			mo = mr.ApplyPopOf(io.Step.Pod)
			mLine = mo.String()
			diverged = io.Step.Pod != cands[0]
		default:
			disagree("I5: impl popped %s; the model allows %v", schedqtest.NameOf(io.Step.Pod), names(cands))
			mo, mLine, err = mr.ApplyOnly(op)
		}
		if err != nil {
			return diverged, err
		}
		if !schedqtest.SameError(mo.Err(), io.Err()) {
			disagree("model: %s / impl: %s", mLine, iLine)
		}
	default:
		if mo, mLine, err = mr.ApplyOnly(op); err != nil {
			return false, err
		}
		var ierr error
		io, ierr = d.exec.Apply(op)
		if ierr != nil {
			// The model could do it, the implementation's bookkeeping
			// could not (e.g. its Pop never returned the pod).
			disagree("model: %s / impl: cannot apply: %v", mLine, ierr)
			iLine = "cannot apply: " + ierr.Error()
		} else {
			iLine = io.String()
			if !schedqtest.SameError(mo.Err(), io.Err()) {
				disagree("model: %s / impl: %s", mLine, iLine)
			}
		}
	}
	mid := mr.Model.Snapshot()
	if checkStep {
		s.Problems = append(s.Problems, invariants(cfg, &before, &mid, mo.Step, "model")...)
	}
	mLines, iLines := []string{mLine}, []string{iLine}

	// Blocked Pops the operation wakes: the model wakes them itself; the
	// implementation's return in their goroutines.
	woke := false
	for mr.Wakeable() {
		woke = true
		prev := mr.Model.Snapshot()
		var r popResult
		got := false
		select {
		case r = <-d.results:
			got = true
		case <-time.After(wakeWait):
		}
		var wo schedqtest.Outcome
		var w string
		switch {
		case !got:
			disagree("R2 Pop: the model wakes a blocked Pop after %s; the implementation's did not return within %v", op, wakeWait)
			wo, w = mr.WakeOne("")
			iLines = append(iLines, "(blocked pop still waiting)")
		default:
			io := d.record(r)
			iw := "woke pop: " + io.String()
			iLines = append(iLines, iw)
			if r.err == nil && r.info != nil && r.info.Pod != nil {
				if k := r.info.Key(); slices.Contains(mr.Model.PopCandidates(), k) {
					diverged = diverged || k != mr.Model.PopCandidates()[0]
					wo, w = mr.WakeOne(k)
				} else {
					disagree("I5: a woken Pop of impl returned %s; the model allows %v", schedqtest.NameOf(k), names(mr.Model.PopCandidates()))
					wo, w = mr.WakeOne("")
				}
			} else {
				wo, w = mr.WakeOne("")
			}
			if !schedqtest.SameError(wo.Err(), io.Err()) {
				disagree("model: %s / impl: %s", w, iw)
			}
		}
		after := mr.Model.Snapshot()
		s.Problems = append(s.Problems, invariants(cfg, &prev, &after, wo.Step, "model")...)
		mLines = append(mLines, w)
	}
	// A blocked Pop of the implementation that returns though the model
	// wakes none.
	if d.waiting > 0 && !(op.Kind == schedqtest.KindPop && op.Blocked) {
		select {
		case r := <-d.results:
			io := d.record(r)
			iLines = append(iLines, "woke pop: "+io.String())
			disagree("R2 Pop: a blocked Pop of impl returned after %s, which does not wake it in the model: %s", op, io)
		case <-time.After(20 * time.Millisecond):
		}
	}

	implAfter := d.q.Snapshot()
	switch {
	case !checkStep:
	case woke:
		// The operation and the Pops it woke happened at once on the
		// implementation: only the state invariants apply to the pair.
		s.Problems = append(s.Problems, stateInvariants(&implAfter, "impl", spec.Rule(rule))...)
	default:
		s.Problems = append(s.Problems, invariants(cfg, &implBefore, &implAfter, io.Step, "impl")...)
	}
	modelAfter := mr.Model.Snapshot()
	if diff := stateDiff(cfg, &modelAfter, &implAfter); len(diff) > 0 {
		disagree("state after the step:\n    %s", strings.Join(diff, "\n    "))
	}
	s.Result, s.ImplResult = strings.Join(mLines, "\n"), strings.Join(iLines, "\n")
	s.Impl = &implAfter
	return diverged, nil
}

// stateInvariants checks the state invariants (I1, I6) of one state.
func stateInvariants(after *spec.Snapshot, side string, rule spec.Rule) []problem {
	return named(spec.CheckState(after), side, rule)
}

func names(keys []spec.PodKey) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = schedqtest.NameOf(k)
	}
	return out
}
