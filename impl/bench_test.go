package impl_test

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/schedq/schedq/impl"
	"github.com/schedq/schedq/spec"
)

// benchPods returns n pods with random priorities (a fixed seed, so runs
// compare).
func benchPods(n int) []*spec.Pod {
	r := rand.New(rand.NewPCG(uint64(n), 42))
	pods := make([]*spec.Pod, n)
	for i := range pods {
		pods[i] = &spec.Pod{
			Namespace: "bench",
			Name:      fmt.Sprintf("pod-%d", i),
			UID:       spec.UID(fmt.Sprintf("uid-%d", i)),
			Priority:  r.Int32N(1000),
		}
	}
	return pods
}

func benchQueue(b *testing.B, c clock.WithTicker) *impl.PriorityQueue {
	q, err := impl.New(spec.DefaultConfig(events), impl.WithClock(c))
	if err != nil {
		b.Fatal(err)
	}
	return q
}

// perPod reports the timed cost per pod: ns/pod, and allocs/pod and B/pod
// from the allocations counted in the timed regions (mallocs, bytes).
type perPod struct {
	pods           int
	mallocs, bytes uint64
	ms             runtime.MemStats
}

// start and stop bracket a timed region; both run with the timer stopped.
func (p *perPod) start(b *testing.B) {
	runtime.ReadMemStats(&p.ms)
	p.mallocs -= p.ms.Mallocs
	p.bytes -= p.ms.TotalAlloc
	b.StartTimer()
}

func (p *perPod) stop(b *testing.B, pods int) {
	b.StopTimer()
	runtime.ReadMemStats(&p.ms)
	p.mallocs += p.ms.Mallocs
	p.bytes += p.ms.TotalAlloc
	p.pods += pods
}

func (p *perPod) report(b *testing.B) {
	if p.pods == 0 {
		return
	}
	n := float64(p.pods)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/pod")
	b.ReportMetric(float64(p.mallocs)/n, "allocs/pod")
	b.ReportMetric(float64(p.bytes)/n, "B/pod")
}

// BenchmarkAddPop adds N pods with random priorities to an empty activeQ
// and pops them all, on the real clock. One op is the whole round of N
// pods; ns/pod is the cost of one Add plus one Pop. The queue lives across
// rounds (the popped pods are Done with the timer stopped), so its maps
// have grown once and this is the steady state of a long-running
// scheduler; BenchmarkAddPopFresh includes the growth from an empty queue.
func BenchmarkAddPop(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			pods := benchPods(n)
			q := benchQueue(b, clock.RealClock{})
			defer q.Close()
			var pp perPod
			b.ReportAllocs()
			b.StopTimer()
			b.ResetTimer()
			for range b.N {
				pp.start(b)
				addPopAll(b, q, pods)
				pp.stop(b, n)
				for _, p := range pods {
					if err := q.Done(p.UID); err != nil {
						b.Fatal(err)
					}
				}
			}
			pp.report(b)
		})
	}
}

// BenchmarkAddPopFresh is BenchmarkAddPop on a new queue every round.
func BenchmarkAddPopFresh(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			pods := benchPods(n)
			var pp perPod
			b.ReportAllocs()
			b.StopTimer()
			b.ResetTimer()
			for range b.N {
				q := benchQueue(b, clock.RealClock{})
				pp.start(b)
				addPopAll(b, q, pods)
				pp.stop(b, n)
				q.Close()
			}
			pp.report(b)
		})
	}
}

func addPopAll(b *testing.B, q *impl.PriorityQueue, pods []*spec.Pod) {
	for _, p := range pods {
		if err := q.Add(p); err != nil {
			b.Fatal(err)
		}
	}
	for range pods {
		if _, _, err := q.Pop(); err != nil {
			b.Fatal(err)
		}
	}
}

// failAll pops every pod of q and hands each back as failed by plugins.
func failAll(b *testing.B, q *impl.PriorityQueue, n int, plugins spec.PluginSet) {
	for range n {
		p, cycle, err := q.Pop()
		if err != nil {
			b.Fatal(err)
		}
		p.UnschedulablePlugins = plugins
		if err := q.AddUnschedulableIfNotPresent(p, cycle); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMoveAllToActiveOrBackoffQueue moves 10k unschedulable pods
// whose backoff has completed to activeQ with one node event (R4).
func BenchmarkMoveAllToActiveOrBackoffQueue(b *testing.B) {
	const n = 10_000
	pods := benchPods(n)
	var pp perPod
	b.ReportAllocs()
	b.StopTimer()
	b.ResetTimer()
	for range b.N {
		fc := clocktesting.NewFakeClock(t0)
		q := benchQueue(b, fc)
		for _, p := range pods {
			_ = q.Add(p)
		}
		failAll(b, q, n, spec.NewPluginSet("NodeFit"))
		fc.Step(spec.DefaultPodMaxBackoffDuration + time.Second)
		pp.start(b)
		q.MoveAllToActiveOrBackoffQueue(nodeAdd, nil)
		pp.stop(b, n)
		if s := q.Metrics().PendingPods[impl.QueueActive]; s != n {
			b.Fatalf("activeQ has %d pods after the move, want %d", s, n)
		}
		q.Close()
	}
	pp.report(b)
}

// BenchmarkFlushBackoffQCompleted flushes 10k pods whose backoff has
// completed from backoffQ to activeQ (R5).
func BenchmarkFlushBackoffQCompleted(b *testing.B) {
	const n = 10_000
	pods := benchPods(n)
	var pp perPod
	b.ReportAllocs()
	b.StopTimer()
	b.ResetTimer()
	for range b.N {
		fc := clocktesting.NewFakeClock(t0)
		q := benchQueue(b, fc)
		for _, p := range pods {
			_ = q.Add(p)
		}
		// No rejecting plugin: every pod goes to backoffQ, and the clock
		// moves while they fail so that their expiries differ.
		for range n {
			p, cycle, _ := q.Pop()
			_ = q.AddUnschedulableIfNotPresent(p, cycle)
			fc.Step(time.Microsecond)
		}
		fc.Step(spec.DefaultPodMaxBackoffDuration + time.Second)
		pp.start(b)
		q.FlushBackoffQCompleted()
		pp.stop(b, n)
		if s := q.Metrics().PendingPods[impl.QueueActive]; s != n {
			b.Fatalf("activeQ has %d pods after the flush, want %d", s, n)
		}
		q.Close()
	}
	pp.report(b)
}
