package workload

import (
	"flag"
	"testing"
)

// The comparison benchmarks live in the upstream modules; these run the
// same workloads against schedq alone, for profiling without Kubernetes:
//
//	go test -run '^$' -bench AddPop/N=100000 -cpuprofile cpu.out ./internal/workload/
func BenchmarkAddPop(b *testing.B)           { AddPop(b, Schedq()) }
func BenchmarkMoveAll(b *testing.B)          { MoveAll(b, Schedq()) }
func BenchmarkFlushBackoffQ(b *testing.B)    { FlushBackoffQ(b, Schedq()) }
func BenchmarkSchedulingLoop(b *testing.B)   { SchedulingLoop(b, Schedq()) }
func BenchmarkProducerConsumer(b *testing.B) { ProducerConsumer(b, Schedq()) }
func BenchmarkRetained(b *testing.B)         { Retained(b, Schedq()) }

// TestWorkloads runs every workload once against schedq: each is a valid
// sequence of operations (a queue error panics, a Pop that would block on
// an empty activeQ hangs) and reports its metrics. Nothing is timed.
func TestWorkloads(t *testing.T) {
	if err := flag.Set("test.benchtime", "1x"); err != nil {
		t.Fatal(err)
	}
	s := Schedq()
	for name, run := range map[string]func(*testing.B){
		"AddPop":           func(b *testing.B) { s.addPop(b, 1_000) },
		"MoveAll":          s.moveAll,
		"FlushBackoffQ":    s.flushBackoffQ,
		"SchedulingLoop":   s.schedulingLoop,
		"ProducerConsumer": s.producerConsumer,
		"Retained":         func(b *testing.B) { s.retained(b, true) },
	} {
		t.Run(name, func(t *testing.T) {
			r := testing.Benchmark(run)
			if r.N != 1 {
				t.Fatalf("ran %d times, want 1", r.N)
			}
			if len(r.Extra) == 0 {
				t.Errorf("reported no metrics: %+v", r)
			}
			t.Log(r.String(), r.MemString())
		})
	}
}
