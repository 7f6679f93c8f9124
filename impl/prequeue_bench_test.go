package impl_test

import (
	"fmt"
	"testing"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/schedq/schedq/impl"
	"github.com/schedq/schedq/internal/cputime"
	"github.com/schedq/schedq/internal/workload"
	"github.com/schedq/schedq/spec"
)

// BenchmarkMoveNarrowed is R21's hot path: a move request whose
// pre-queueing hint names 10 of N parked pods, against the same request
// without the pre-queueing setting (v1.37.2's hints profile), which
// evaluates all N. The queueing hint answers QueueSkip, so no pod moves and
// every iteration sees the same queue: the cost is the evaluation alone.
// With the setting it should stay flat as N grows (ns/named-pod), without
// it grow with N (ns/parked-pod):
//
//	go test -run '^$' -bench MoveNarrowed ./impl/
func BenchmarkMoveNarrowed(b *testing.B) {
	const named = 10
	for _, n := range []int{1_000, 10_000, 100_000} {
		for _, pre := range []bool{true, false} {
			name := fmt.Sprintf("N=%d/prequeue=%v", n, pre)
			b.Run(name, func(b *testing.B) {
				q, occ := narrowedQueue(b, n, named, pre)
				b.ResetTimer()
				cpu := cputime.Start()
				for range b.N {
					if err := q.MoveAllToActiveOrBackoffQueueWithObjects(occ, nil); err != nil {
						b.Fatal(err)
					}
				}
				cpu.Report(b)
				b.StopTimer()
				if s := q.Snapshot(); len(s.UnschedulablePods) != n {
					b.Fatalf("%d pods parked after the requests, want all %d: the hint must skip them", len(s.UnschedulablePods), n)
				}
				if pre {
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/named, "ns/named-pod")
				} else {
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/parked-pod")
				}
			})
		}
	}
}

// narrowedQueue is an impl queue with n pods parked by workload.Plugin,
// whose NodeAdd hint answers QueueSkip and, with pre, whose pre-queueing
// hint names the first named pods; and the occurrence of a NodeAdd with a
// node object.
func narrowedQueue(b *testing.B, n, named int, pre bool) (*impl.PriorityQueue, spec.Occurrence) {
	cfg := workload.HintsConfig()
	k := spec.HintKey{Plugin: workload.Plugin, Event: workload.NodeAdd}
	cfg.QueueingHints = spec.QueueingHints{k: func(*spec.Pod, spec.Occurrence) (spec.QueueingHint, error) { return spec.HintSkip, nil }}
	if pre {
		keys := make([]spec.PodKey, named)
		for i := range keys {
			keys[i] = spec.PodKey(fmt.Sprintf("ns/p%d", i))
		}
		cfg.PreQueueing = true
		cfg.PreQueueingHints = spec.PreQueueingHints{k: func(spec.Occurrence) (spec.PreQueueingResult, error) { return spec.PodsNamed(keys...), nil }}
	}
	q, err := impl.New(cfg, impl.WithClock(clocktesting.NewFakeClock(workload.Start)))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(q.Close)
	for i := range n {
		if err := q.Add(&spec.Pod{Namespace: "ns", Name: fmt.Sprintf("p%d", i), UID: spec.UID(fmt.Sprintf("u%d", i))}); err != nil {
			b.Fatal(err)
		}
		info, cycle, err := q.Pop()
		if err != nil {
			b.Fatal(err)
		}
		info.UnschedulablePlugins = spec.NewPluginSet(workload.Plugin)
		// The failure ends the pod's time in flight (R3h): no Done.
		if err := q.AddUnschedulableIfNotPresent(info, cycle); err != nil {
			b.Fatal(err)
		}
	}
	return q, spec.Occurrence{Event: workload.NodeAdd, NewObject: "node n1"}
}
