package realsched

import (
	"bytes"
	"context"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	pprofile "github.com/google/pprof/profile"
)

// TestAsSchedulerLeavesCallerUnlabelled: after asScheduler, the goroutines
// its caller starts do not count as the scheduler's. Shown on a CPU
// profile of a goroutine the caller starts afterwards, and, so that the
// check can fail, on the form the harness used before, pprof.Do given the
// scheduler's own labelled context, which left the caller labelled: from
// the second run of a process on, the run's kube-apiserver, etcd and
// workload driver counted as the scheduler's CPU.
func TestAsSchedulerLeavesCallerUnlabelled(t *testing.T) {
	labelledCtx := pprof.WithLabels(context.Background(), schedulerLabel)
	for _, c := range []struct {
		name  string
		enter func()
		want  bool // whether the later goroutine is labelled
	}{
		{"asScheduler", func() { asScheduler(func() {}) }, false},
		{"broken: pprof.Do with the scheduler's context", func() { pprof.Do(labelledCtx, schedulerLabel, func(context.Context) {}) }, true},
	} {
		labelled, all := laterGoroutineLabelled(t, c.enter)
		t.Logf("%s: %d of %d samples of a goroutine started afterwards carry the scheduler's label", c.name, labelled, all)
		if all < 5 {
			t.Fatalf("%s: only %d samples of the spinning goroutine; the check needs at least 5", c.name, all)
		}
		if got := labelled > 0; got != c.want {
			t.Errorf("%s: later goroutine labelled %v, want %v (%d of %d samples)", c.name, got, c.want, labelled, all)
		}
	}
}

// laterGoroutineLabelled calls enter on a goroutine of its own (whatever
// labels enter leaves stay there), which then starts a goroutine that
// spins for 300 ms of process CPU under the CPU profiler; it returns how
// many of that goroutine's CPU samples carry the realsched label, of all.
func laterGoroutineLabelled(t *testing.T, enter func()) (labelled, all int) {
	var buf bytes.Buffer
	if err := pprof.StartCPUProfile(&buf); err != nil {
		t.Skipf("the CPU profiler is in use (%v): this check needs it", err)
	}
	done := make(chan struct{})
	go func() {
		enter()
		spun := make(chan struct{})
		go func() { spinForProfile(300 * time.Millisecond); close(spun) }()
		<-spun
		close(done)
	}()
	<-done
	pprof.StopCPUProfile()
	p, err := pprofile.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range p.Sample {
		if !onStack(s, "spinForProfile") {
			continue
		}
		n := int(s.Value[0]) // samples with the same stack and labels are one, counted
		all += n
		if len(s.Label["realsched"]) > 0 {
			labelled += n
		}
	}
	return labelled, all
}

func onStack(s *pprofile.Sample, fn string) bool {
	for _, l := range s.Location {
		for _, ln := range l.Line {
			if ln.Function != nil && strings.HasSuffix(ln.Function.Name, "."+fn) {
				return true
			}
		}
	}
	return false
}

// spinForProfile burns d of process CPU (10 s of wall time at most).
//
//go:noinline
func spinForProfile(d time.Duration) {
	start, wall := cpuTime(), time.Now()
	x := uint64(1)
	for cpuTime()-start < d.Seconds() && time.Since(wall) < 10*time.Second {
		for range 100_000 {
			x = x*6364136223846793005 + 1442695040888963407
		}
	}
	sink = x
}

var sink uint64
