package impl_test

import (
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/schedq/schedq/impl"
	"github.com/schedq/schedq/internal/cputime"
	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// BenchmarkNominatedPodsForNodeParallel is the scheduler's Filter phase
// against a working queue: 16 goroutines ask NominatedPodsForNode for one
// of 500 nodes, as the parallel Filter calls do once per node, while
// another goroutine keeps the queue busy with Add, Pop and Done. With
// nominated=0 nothing is nominated (the common case); with nominated=100,
// 100 pods outside the queue are nominated to 50 of the nodes.
func BenchmarkNominatedPodsForNodeParallel(b *testing.B) {
	nodes := make([]string, 500)
	for i := range nodes {
		nodes[i] = fmt.Sprintf("node-%d", i)
	}
	for _, nominated := range []int{0, 100} {
		b.Run(fmt.Sprintf("nominated=%d", nominated), func(b *testing.B) {
			q, err := impl.New(schedqtest.Config())
			if err != nil {
				b.Fatal(err)
			}
			defer q.Close()
			for i := range nominated {
				p := &spec.Pod{Namespace: "nom", Name: fmt.Sprintf("p%d", i), UID: spec.UID(fmt.Sprintf("nom-%d", i))}
				if err := q.AddNominatedPod(p, spec.NominateOverride, nodes[i%50]); err != nil {
					b.Fatal(err)
				}
			}
			pods := make([]*spec.Pod, 64)
			for i := range pods {
				pods[i] = schedqtest.Pod(fmt.Sprintf("w%d", i), int32(i%3))
			}
			stop := make(chan struct{})
			var wg sync.WaitGroup
			wg.Add(1)
			go func() { // the queue at work
				defer wg.Done()
				for {
					for _, p := range pods {
						select {
						case <-stop:
							return
						default:
						}
						if err := q.Add(p); err != nil {
							panic(err)
						}
						info, _, err := q.Pop()
						if err != nil {
							panic(err)
						}
						if err := q.Done(info.Pod.UID); err != nil {
							panic(err)
						}
					}
				}
			}()
			b.SetParallelism((16 + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
			b.ResetTimer()
			// The CPU figure includes the goroutine keeping the queue
			// busy: the cost of the Filter phase and its interference.
			cpu := cputime.Start()
			b.RunParallel(func(pb *testing.PB) {
				i := 0
				for pb.Next() {
					_ = q.NominatedPodsForNode(nodes[i%len(nodes)])
					i += 7
				}
			})
			cpu.Report(b)
			b.StopTimer()
			close(stop)
			wg.Wait()
		})
	}
}
