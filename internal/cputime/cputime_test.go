//go:build unix

package cputime

import (
	"testing"
	"time"
)

// spin burns CPU until the process's CPU time has grown by d (or fails
// after ten seconds of wall time, as on a machine that never schedules
// it).
func spin(t *testing.T, d time.Duration) {
	t.Helper()
	start, deadline := processCPU(), time.Now().Add(10*time.Second)
	x := 0
	for processCPU()-start < d {
		for i := 0; i < 100000; i++ {
			x += i
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %v of CPU time within 10 s of wall time", d)
		}
	}
	_ = x
}

// The timer counts the CPU time of its regions and not what runs between
// them; a second Start or Stop changes nothing.
func TestTimerCountsOnlyItsRegions(t *testing.T) {
	c := Start()
	c.Start() // left as it is: the region started above goes on
	spin(t, 20*time.Millisecond)
	c.Stop()
	inside := c.Total()
	if inside < 20*time.Millisecond {
		t.Fatalf("a region that burned 20ms of CPU counts %v", inside)
	}
	c.Stop()
	spin(t, 50*time.Millisecond) // outside any region
	if got := c.Total(); got != inside {
		t.Fatalf("stopped at %v, the timer reads %v after work outside it", inside, got)
	}
	c.Start()
	spin(t, 5*time.Millisecond)
	if got := c.Total(); got < inside+5*time.Millisecond {
		t.Fatalf("a running region is not in Total: %v after %v", got, inside)
	}
}
