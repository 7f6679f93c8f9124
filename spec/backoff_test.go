package spec_test

import (
	"math"
	"testing"
	"time"

	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// The rules R1-R13 are tested, on the model and on the implementation, by
// the conformance scenarios (conformance/TestModel, conformance/TestImpl),
// which check the invariants I1-I6 on every step. R7 is a pure function and
// is tested here.
func TestR7Backoff(t *testing.T) {
	cfg := spec.DefaultConfig(nil)
	want := []time.Duration{0, 1, 2, 4, 8, 10, 10}
	for attempts, w := range want {
		if got := cfg.BackoffDuration(attempts); got != w*time.Second {
			t.Errorf("%s: backoff for %d attempts = %v, want %v", spec.R7Backoff, attempts, got, w*time.Second)
		}
	}
	// Doubling must never overflow, whatever the attempts and bounds.
	for _, c := range []struct {
		attempts     int
		initial, max time.Duration
		want         time.Duration
	}{
		{64, time.Second, 10 * time.Second, 10 * time.Second},
		{math.MaxInt, time.Second, 10 * time.Second, 10 * time.Second},
		{63, 1, math.MaxInt64, 1 << 62},
		{64, 1, math.MaxInt64, math.MaxInt64},
		{2, math.MaxInt64 / 2, math.MaxInt64, math.MaxInt64 - 1},
		{3, math.MaxInt64 / 2, math.MaxInt64, math.MaxInt64},
		{-5, time.Second, 10 * time.Second, 0},
	} {
		if got := spec.BackoffDuration(c.attempts, c.initial, c.max); got != c.want {
			t.Errorf("BackoffDuration(%d, %v, %v) = %v, want %v", c.attempts, c.initial, c.max, got, c.want)
		}
	}
	if err := spec.CheckBackoffMonotonic(cfg, 200); err != nil {
		t.Error(err)
	}
	// The expiry boundary: backing off while expiry >= now.
	p := &spec.QueuedPodInfo{Pod: schedqtest.Pod("a", 0), Timestamp: schedqtest.Start, Attempts: 1}
	for _, c := range []struct {
		now  time.Time
		want bool
	}{{schedqtest.Start, true}, {schedqtest.Start.Add(time.Second), true}, {schedqtest.Start.Add(time.Second + 1), false}} {
		if got := cfg.IsBackingOff(p, c.now); got != c.want {
			t.Errorf("IsBackingOff at %v = %v, want %v", c.now.Sub(schedqtest.Start), got, c.want)
		}
	}
	if cfg.IsBackingOff(&spec.QueuedPodInfo{Pod: schedqtest.Pod("a", 0), Timestamp: schedqtest.Start}, schedqtest.Start) {
		t.Error("a pod never attempted must not back off")
	}
}
