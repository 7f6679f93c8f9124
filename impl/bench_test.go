package impl_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/schedq/schedq/impl"
	"github.com/schedq/schedq/internal/cputime"
	"github.com/schedq/schedq/internal/workload"
	"github.com/schedq/schedq/spec"
)

// The implementation's benchmarks are the workloads of internal/workload,
// written once and shared with `make bench-compare` (which runs them against
// the upstream queues too), here against schedq alone in both profiles
// (schedq: classic, schedq-hints: queueing hints), for benchstat and
// profiling without Kubernetes:
//
//	go test -run '^$' -bench 'AddPop/N=100000/schedq-hints' -cpuprofile cpu.out ./impl/
//
// Only what no other queue has (Snapshot) is measured here directly.
func profiles() []workload.Subject {
	return []workload.Subject{workload.Schedq(), workload.SchedqHints()}
}

func BenchmarkAddPop(b *testing.B)           { workload.AddPop(b, profiles()...) }
func BenchmarkMoveAll(b *testing.B)          { workload.MoveAll(b, profiles()...) }
func BenchmarkFlushBackoffQ(b *testing.B)    { workload.FlushBackoffQ(b, profiles()...) }
func BenchmarkSchedulingLoop(b *testing.B)   { workload.SchedulingLoop(b, profiles()...) }
func BenchmarkProducerConsumer(b *testing.B) { workload.ProducerConsumer(b, profiles()...) }
func BenchmarkRetained(b *testing.B)         { workload.Retained(b, profiles()...) }
func BenchmarkHintReplay(b *testing.B)       { workload.HintReplay(b, profiles()...) }

// BenchmarkGatedMoves is the hints profile with the PreEnqueue plugin Gate.
func BenchmarkGatedMoves(b *testing.B) { workload.GatedMoves(b, workload.SchedqGated()) }

// BenchmarkRetainedAfterDrain: the heap the queue keeps once a burst of a
// million pods (or half a million parked ones) has drained (see
// workload.RetainedAfterDrain).
func BenchmarkRetainedAfterDrain(b *testing.B) { workload.RetainedAfterDrain(b, workload.Schedq()) }

// snapshotPods is the queue size of BenchmarkSnapshotLockHold.
const snapshotPods = 100_000

// BenchmarkSnapshotLockHold measures how long Snapshot keeps other
// operations out at 100k pods in activeQ: while one goroutine takes a
// Snapshot, another issues Add and Delete of a probe pod back to back and
// records the longest of them. That longest wait (max-add-ns) is the time
// an Add issued during the Snapshot waits for the queue's lock, the cost
// Snapshot imposes on a scheduler; ns/op is Snapshot's own wall time.
func BenchmarkSnapshotLockHold(b *testing.B) {
	fc := clocktesting.NewFakeClock(workload.Start)
	q, err := impl.New(workload.Config(), impl.WithClock(fc))
	if err != nil {
		b.Fatal(err)
	}
	defer q.Close()
	for i, pr := range workload.Priorities(snapshotPods) {
		if err := q.Add(workload.SchedqTarget.Pod(i, pr)); err != nil {
			b.Fatal(err)
		}
	}
	probe := &spec.Pod{Namespace: "probe", Name: "probe", UID: "probe"}
	var worst []time.Duration
	b.ResetTimer()
	cpu := cputime.Start()
	for range b.N {
		started, done := make(chan struct{}), make(chan struct{})
		go func() {
			close(started)
			// The probe may be in activeQ at the instant of the copy.
			if s := q.Snapshot(); len(s.ActiveQ) < snapshotPods {
				panic(fmt.Sprintf("the snapshot has %d pods in activeQ, want %d or the probe too", len(s.ActiveQ), snapshotPods))
			}
			close(done)
		}()
		<-started
		var longest time.Duration
	probing:
		for {
			select {
			case <-done:
				break probing
			default:
			}
			t0 := time.Now()
			if err := q.Add(probe); err != nil {
				b.Fatal(err)
			}
			if err := q.Delete(probe); err != nil {
				b.Fatal(err)
			}
			longest = max(longest, time.Since(t0))
		}
		worst = append(worst, longest)
	}
	cpu.Report(b)
	b.StopTimer()
	slices.Sort(worst)
	b.ReportMetric(float64(worst[len(worst)/2].Nanoseconds()), "max-add-ns")
}
