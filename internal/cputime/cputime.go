// Package cputime measures the CPU time a benchmark's timed regions cost
// the process, beside the wall time testing.B measures: every benchmark of
// the repository reports it (cpu-ns/op, and the workloads cpu-ns/pod).
package cputime

import (
	"testing"
	"time"
)

// Timer measures the CPU time the whole process spends in a benchmark's
// timed regions (user and system time of every thread, the garbage
// collector's workers included), beside the wall time testing.B measures.
// On a machine shared with other work, wall time counts the waits for a
// core and CPU time does not: CPU time is the figure to compare there.
// It reads getrusage, so it is only as fine as the kernel's accounting
// (nanoseconds on Linux, reported in microseconds): time regions of at
// least milliseconds with it.
//
// Start and Stop bracket each timed region, next to b.StartTimer and
// b.StopTimer; Report divides the total by b.N.
type Timer struct {
	total, since time.Duration
	running      bool
}

// Start returns a Timer already started.
func Start() *Timer {
	c := &Timer{}
	c.Start()
	return c
}

// Start begins a timed region; a running timer is left as it is.
func (c *Timer) Start() {
	if !c.running {
		c.running = true
		c.since = processCPU()
	}
}

// Stop ends a timed region; a stopped timer is left as it is.
func (c *Timer) Stop() {
	if c.running {
		c.total += processCPU() - c.since
		c.running = false
	}
}

// Total is the CPU time of the regions so far (the running one included).
func (c *Timer) Total() time.Duration {
	if c.running {
		return c.total + processCPU() - c.since
	}
	return c.total
}

// Report stops the timer and reports cpu-ns/op, the CPU time of the timed
// regions per iteration, as ns/op is their wall time.
func (c *Timer) Report(b *testing.B) {
	c.Stop()
	if b.N > 0 {
		b.ReportMetric(float64(c.total.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}
