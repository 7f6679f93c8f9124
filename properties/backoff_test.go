package properties

import (
	"math"
	"math/big"
	"testing"
	"time"

	testingclock "k8s.io/utils/clock/testing"
	"pgregory.net/rapid"

	"github.com/schedq/schedq/impl"
	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// Backoff (R7, I2) over the whole range of attempts and durations,
// including the ones where initial * 2^(attempts-1) overflows int64.

// wantBackoff is R7 computed with big integers: 0 for no attempt, else
// initial * 2^(attempts-1) capped at max.
func wantBackoff(attempts int, initial, max time.Duration) time.Duration {
	if attempts <= 0 {
		return 0
	}
	if attempts-1 >= 64 { // initial >= 1, so the product exceeds any int64
		return max
	}
	v := new(big.Int).Lsh(big.NewInt(int64(initial)), uint(attempts-1))
	if v.Cmp(big.NewInt(int64(max))) > 0 {
		return max
	}
	return time.Duration(v.Int64())
}

// drawBackoffConfig draws backoff bounds anywhere in (0, MaxInt64], with
// extra weight on the top end: a max near MaxInt64 puts expiries ~292
// years out, where the implementation's heap keys saturate.
func drawBackoffConfig(t *rapid.T) spec.Config {
	initial := time.Duration(rapid.OneOf(rapid.Int64Range(1, int64(time.Hour)), rapid.Int64Range(1, math.MaxInt64)).Draw(t, "initial"))
	max := time.Duration(rapid.OneOf(
		rapid.Int64Range(int64(initial), math.MaxInt64),
		rapid.Int64Range(max(int64(initial), math.MaxInt64/2), math.MaxInt64),
		rapid.Just(int64(math.MaxInt64)),
	).Draw(t, "max"))
	cfg := schedqtest.Config()
	cfg.PodInitialBackoffDuration, cfg.PodMaxBackoffDuration = initial, max
	return cfg
}

func TestBackoffMonotonic(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := drawBackoffConfig(t)
		initial, max := cfg.PodInitialBackoffDuration, cfg.PodMaxBackoffDuration
		a := rapid.OneOf(rapid.IntRange(0, 130), rapid.IntRange(0, math.MaxInt)).Draw(t, "attempts")

		d := spec.BackoffDuration(a, initial, max)
		if want := wantBackoff(a, initial, max); d != want {
			t.Fatalf("BackoffDuration(%d, %v, %v) = %v, want %v", a, initial, max, d, want)
		}
		if cd := cfg.BackoffDuration(a); cd != d {
			t.Fatalf("cfg.BackoffDuration(%d) = %v, spec.BackoffDuration = %v", a, cd, d)
		}
		if a > 0 && (d <= 0 || d > max || d < initial) {
			t.Fatalf("BackoffDuration(%d) = %v outside [initial %v, max %v]", a, d, initial, max)
		}
		if a < math.MaxInt {
			if next := spec.BackoffDuration(a+1, initial, max); next < d {
				t.Fatalf("BackoffDuration decreases: %d -> %v, %d -> %v", a, d, a+1, next)
			}
		}
		if err := spec.CheckBackoffMonotonic(cfg, rapid.IntRange(0, 130).Draw(t, "maxAttempts")); err != nil {
			t.Fatal(err)
		}

		// The R7 boundary: still backing off up to and including the
		// expiry, done 1ns after it; never backing off without attempts.
		ts := schedqtest.Start.Add(time.Duration(rapid.Int64Range(-1<<40, 1<<40).Draw(t, "timestamp offset")))
		p := spec.QueuedPodInfo{Pod: schedqtest.Pod("a", 0), Timestamp: ts, Attempts: a}
		exp := ts.Add(d)
		if a == 0 {
			if !cfg.BackoffExpiry(&p).IsZero() || cfg.IsBackingOff(&p, ts) || cfg.IsBackingOff(&p, time.Time{}) {
				t.Fatalf("a pod never attempted is backing off")
			}
			return
		}
		if !cfg.BackoffExpiry(&p).Equal(exp) {
			t.Fatalf("BackoffExpiry = %v, want %v", cfg.BackoffExpiry(&p), exp)
		}
		if !cfg.IsBackingOff(&p, exp.Add(-time.Nanosecond)) || !cfg.IsBackingOff(&p, exp) || cfg.IsBackingOff(&p, exp.Add(time.Nanosecond)) {
			t.Fatalf("IsBackingOff around the expiry %v: %v %v %v, want true true false", exp,
				cfg.IsBackingOff(&p, exp.Add(-time.Nanosecond)), cfg.IsBackingOff(&p, exp), cfg.IsBackingOff(&p, exp.Add(time.Nanosecond)))
		}
		// Monotone in now: once done, done for good.
		n1 := ts.Add(time.Duration(rapid.Int64Range(0, math.MaxInt64).Draw(t, "now")))
		n2 := n1.Add(time.Duration(rapid.Int64Range(0, math.MaxInt64).Draw(t, "later")))
		if !cfg.IsBackingOff(&p, n1) && cfg.IsBackingOff(&p, n2) {
			t.Fatalf("done backing off at %v but backing off again at %v", n1, n2)
		}
	})
}

// TestImplBackoffFlush: the implementation's backoffQ releases exactly the
// pods whose backoff completed, whatever the attempts (huge ones included,
// handed back by the scheduler) and whatever the durations (up to
// MaxInt64, where the heap's time keys saturate), and a pod's expiry never
// moves earlier (I2, checked by spec.CheckStep on every step).
func TestImplBackoffFlush(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := drawBackoffConfig(t)
		clk := testingclock.NewFakeClock(schedqtest.Start)
		q, err := impl.New(cfg, impl.WithClock(clk))
		if err != nil {
			t.Fatal(err)
		}
		defer q.Close()
		step := func(st spec.StepRecord, op func() error) {
			before := q.Snapshot()
			st.Err = op()
			after := q.Snapshot()
			if err := spec.CheckStep(cfg, &before, &after, st); err != nil {
				t.Fatalf("%s: %v", st.Rule, err)
			}
		}
		var pods []spec.PodKey
		for i := range rapid.IntRange(1, 6).Draw(t, "pods") {
			p := schedqtest.Pod(string(rune('a'+i)), 0)
			pods = append(pods, p.Key())
			step(spec.StepRecord{Rule: spec.R1Add, Pod: p.Key()}, func() error { return q.Add(p) })
			info, cycle, err := q.Pop()
			if err != nil {
				t.Fatal(err)
			}
			info.Attempts = rapid.OneOf(rapid.IntRange(0, 70), rapid.IntRange(0, math.MaxInt)).Draw(t, "attempts")
			step(spec.StepRecord{Rule: spec.R3AddUnschedulable, Pod: p.Key(), PodSchedulingCycle: cycle},
				func() error { return q.AddUnschedulableIfNotPresent(info, cycle) })
			if d := rapid.Int64Range(0, int64(cfg.PodMaxBackoffDuration)).Draw(t, "gap"); d > 0 {
				step(spec.StepRecord{Rule: spec.RTick}, func() error { clk.Step(time.Duration(d)); return nil })
			}
		}
		for range rapid.IntRange(1, 8).Draw(t, "flushes") {
			s := q.Snapshot()
			var d time.Duration
			if len(s.BackoffQ) > 0 && rapid.Bool().Draw(t, "to an expiry") {
				b := rapid.SampledFrom(s.BackoffQ).Draw(t, "pod")
				if exp := cfg.BackoffExpiry(&b); exp.After(s.Now) {
					// Sub saturates at MaxInt64; do not wrap past it.
					d = exp.Sub(s.Now)
					if around := time.Duration(rapid.IntRange(-1, 1).Draw(t, "around")); d < math.MaxInt64 || around < 0 {
						d += around
					}
				}
			} else {
				d = time.Duration(rapid.Int64Range(0, int64(cfg.PodMaxBackoffDuration)).Draw(t, "tick"))
			}
			step(spec.StepRecord{Rule: spec.RTick}, func() error { clk.Step(d); return nil })
			step(spec.StepRecord{Rule: spec.R5FlushBackoffQ}, func() error { q.FlushBackoffQCompleted(); return nil })
			s = q.Snapshot()
			for _, k := range pods {
				loc, info := s.Find(k)
				if backingOff := cfg.IsBackingOff(&info, s.Now); (loc == spec.InBackoffQ) != backingOff {
					t.Fatalf("pod %s (attempts %d, expiry %v) is in %s at %v after a flush", k, info.Attempts, cfg.BackoffExpiry(&info), loc, s.Now)
				}
			}
		}
	})
}
