package workload

import (
	"flag"
	"testing"

	"github.com/schedq/schedq/spec"
)

// The workloads' benchmarks against schedq alone are in impl/bench_test.go
// (make bench); the comparison benchmarks are in the upstream modules.

// TestWorkloads runs every workload once against schedq in both profiles
// (GatedMoves in the hints profile only): each is a valid
// sequence of operations (a queue error panics, a Pop that would block on
// an empty activeQ hangs) and reports its metrics. Nothing is timed.
func TestWorkloads(t *testing.T) {
	if err := flag.Set("test.benchtime", "1x"); err != nil {
		t.Fatal(err)
	}
	for _, s := range []Subject{Schedq(), SchedqHints(), SchedqGated(), Floor()} {
		testWorkloads(t, s)
	}
}

func testWorkloads(t *testing.T, s Subject) {
	for name, run := range map[string]func(*testing.B){
		"AddPop":             func(b *testing.B) { s.addPop(b, 1_000) },
		"MoveAll":            s.moveAll,
		"FlushBackoffQ":      s.flushBackoffQ,
		"SchedulingLoop":     s.schedulingLoop,
		"ProducerConsumer":   s.producerConsumer,
		"Retained":           func(b *testing.B) { s.retained(b, true) },
		"RetainedAfterDrain": func(b *testing.B) { s.afterDrain(b, 1_000, true) },
		"HintReplay":         s.hintReplay,
		"GatedMoves":         s.gatedMoves,
	} {
		if run == nil || s.gatedMoves != nil && name != "GatedMoves" || s.Name == "floor" && name != "AddPop" {
			continue
		}
		t.Run(s.Name+"/"+name, func(t *testing.T) {
			r := testing.Benchmark(run)
			if r.N != 1 {
				t.Fatalf("ran %d times, want 1", r.N)
			}
			if len(r.Extra) == 0 {
				t.Errorf("reported no metrics: %+v", r)
			}
			// Every timed workload reports its CPU time beside its wall
			// time (the retained-bytes ones time nothing).
			if _, timed := r.Extra["ns/pod"]; timed && r.Extra["cpu-ns/pod"] <= 0 {
				t.Errorf("reports ns/pod but no CPU time (cpu-ns/pod %v): %+v", r.Extra["cpu-ns/pod"], r.Extra)
			}
			t.Log(r.String(), r.MemString())
		})
	}
}

// TestNarrowedMoves runs NarrowedMoves once against schedq at the
// smallest size with every k (the larger sizes run the same code on more
// pods, left to the benchmarks: make test's time is spent), and once against a broken target whose queue leaves pre-queueing hints
// off, so that every request moves all N parked pods, and once against
// one whose requests all name the same pods: the workload's check must
// catch both rather than measure a scan, or a region of no-op requests,
// as narrowed requests.
func TestNarrowedMoves(t *testing.T) {
	if err := flag.Set("test.benchtime", "1x"); err != nil {
		t.Fatal(err)
	}
	s := SchedqNarrowed()
	n := NarrowedSizes[0]
	for _, k := range NarrowedNamed(n) {
		r := testing.Benchmark(func(b *testing.B) { s.narrowedMoves(b, n, k) })
		if r.N != 1 || r.Extra["cpu-ns/pod"] <= 0 {
			t.Errorf("N=%d k=%d: ran %d times, cpu-ns/pod %v, want 1 run with CPU time", n, k, r.N, r.Extra["cpu-ns/pod"])
		}
	}
	broken := SchedqNarrowedTarget
	broken.Narrowed = func(tb testing.TB, named [][]int) NarrowedQueue[*spec.Pod, *spec.QueuedPodInfo] {
		cfg := PreQueueingConfig(named)
		cfg.PreQueueing = false
		q := newSchedq(tb, cfg)
		q.object = "node n1"
		return q
	}
	if r := testing.Benchmark(func(b *testing.B) { Of("broken", broken).narrowedMoves(b, 1_000, 10) }); r.N != 0 {
		t.Errorf("a queue that moves every parked pod passed NarrowedMoves' check (ran %d times)", r.N)
	}
	// A region whose requests all name the same pods moves k, not
	// NarrowedBatch x k: the per-region check must catch it too.
	same := SchedqNarrowedTarget
	same.Narrowed = func(tb testing.TB, named [][]int) NarrowedQueue[*spec.Pod, *spec.QueuedPodInfo] {
		return SchedqNarrowedTarget.Narrowed(tb, named[:1])
	}
	if NarrowedBatch(1_000, 10) < 2 {
		t.Fatalf("NarrowedBatch(1000, 10) = %d: the check below needs a region of several requests", NarrowedBatch(1_000, 10))
	}
	if r := testing.Benchmark(func(b *testing.B) { Of("same", same).narrowedMoves(b, 1_000, 10) }); r.N != 0 {
		t.Errorf("requests that name the same pods passed NarrowedMoves' check (ran %d times)", r.N)
	}
}
