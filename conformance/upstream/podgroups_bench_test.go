//go:build !k8s133 && !k8s134 && !k8s135 && !k8s136

package upstream

// The pod-group comparison benchmarks: schedq's implementation in the
// podgroups profile ("schedq") against v1.37.2's queue with GenericWorkload
// on ("upstream"), on the same workloads, named workload/subject as the
// other comparison benchmarks so that `make bench-compare-podgroups`
// tabulates them with internal/workload/cmd/benchtable.
//
//   - PodGroupCycle/size=N: one scheduling cycle of a group of N members:
//     Add of every member, PopEntity of the group, Done of every member
//     (all bound), AddAttemptedPodGroupIfNeeded (success, nothing
//     pending: the group leaves the queue). One op is one whole cycle.
//   - PodGroupMoveParked/groups=G: G groups of 8 members each parked in
//     unschedulablePods (a PreEnqueue plugin gates their members), and a
//     move request for an event the gate did not register, which examines
//     every parked group and moves none. One op is one move request.
//
// Each reports ns/pod and allocs/pod, what benchtable shows: per member
// through the cycle, per parked member examined by the move.

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/schedq/schedq/impl"
	"github.com/schedq/schedq/internal/cputime"
	"github.com/schedq/schedq/internal/workload"
	"github.com/schedq/schedq/spec"
)

func benchGroupConfig(gated bool) spec.Config {
	cfg := workload.HintsConfig()
	if gated {
		cfg = workload.GatedConfig()
	}
	cfg.Profile = spec.ProfilePodGroups
	return cfg
}

func benchMemberV1(group string, i int, gated bool) *v1.Pod {
	prio := int32(0)
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "bench", Name: fmt.Sprintf("%s-%d", group, i), UID: types.UID(fmt.Sprintf("uid-%s-%d", group, i))},
		Spec:       v1.PodSpec{SchedulerName: SchedulerName, Priority: &prio},
	}
	setGroup(p, group)
	if gated {
		p.Labels = map[string]string{workload.GateLabel: "yes"}
	}
	return p
}

func benchMemberSpec(group string, i int, gated bool) *spec.Pod {
	p := &spec.Pod{Namespace: "bench", Name: fmt.Sprintf("%s-%d", group, i), UID: spec.UID(fmt.Sprintf("uid-%s-%d", group, i)), Group: group}
	if gated {
		p.Labels = map[string]string{workload.GateLabel: "yes"}
	}
	return p
}

func newBenchImpl(b *testing.B, gated bool) *impl.PriorityQueue {
	q, err := impl.New(benchGroupConfig(gated), impl.WithClock(testingclock.NewFakeClock(workload.Start)))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(q.Close)
	return q
}

type benchUpstreamGroups struct {
	*upstream
}

func newBenchUpstreamGroups(b *testing.B, gated bool) benchUpstreamGroups {
	var opts []queue.Option
	if gated {
		opts = append(opts, withPreEnqueuePlugins(gate{}))
	}
	q, clk, _, stop, err := newQueueGated(benchGroupConfig(gated), workload.Start, false, true, opts...)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(stop)
	b.Cleanup(q.Close)
	logger := klog.Background()
	return benchUpstreamGroups{&upstream{q: q, clock: clk, logger: logger, ctx: klog.NewContext(context.Background(), logger), nodeAdd: toEvent(workload.NodeAdd)}}
}

func BenchmarkPodGroupCycle(b *testing.B) {
	for _, size := range []int{8, 64} {
		b.Run(fmt.Sprintf("size=%d/schedq", size), func(b *testing.B) {
			q := newBenchImpl(b, false)
			if err := q.AddPodGroup(&spec.PodGroup{Namespace: "bench", Name: "g"}); err != nil {
				b.Fatal(err)
			}
			pods := make([]*spec.Pod, size)
			for i := range pods {
				pods[i] = benchMemberSpec("g", i, false)
			}
			perPod(b, size, func() {
				for _, p := range pods {
					if err := q.Add(p); err != nil {
						b.Fatal(err)
					}
				}
				e, cycle, err := q.PopEntity()
				if err != nil || e.Group == nil || len(e.Group.Members) != size {
					b.Fatalf("PopEntity: %v, %v", e.Key(), err)
				}
				for _, p := range pods {
					_ = q.Done(p.UID)
				}
				if err := q.AddAttemptedPodGroupIfNeeded(e.Group, cycle, spec.AttemptSuccess); err != nil {
					b.Fatal(err)
				}
			})
		})
		b.Run(fmt.Sprintf("size=%d/upstream", size), func(b *testing.B) {
			u := newBenchUpstreamGroups(b, false)
			addPodGroup(u.q, u.logger, toV1PodGroup(&spec.PodGroup{Namespace: "bench", Name: "g"}))
			pods := make([]*v1.Pod, size)
			for i := range pods {
				pods[i] = benchMemberV1("g", i, false)
			}
			ok := fwk.NewStatus(fwk.Success)
			perPod(b, size, func() {
				for _, p := range pods {
					u.q.Add(u.ctx, p)
				}
				e, err := u.q.Pop(u.logger)
				g, isGroup := e.(*framework.QueuedPodGroupInfo)
				if err != nil || !isGroup || g.Size() != size {
					b.Fatalf("Pop: %T, %v", e, err)
				}
				for _, p := range pods {
					u.q.Done(p.UID)
				}
				if err := u.q.AddAttemptedPodGroupIfNeeded(u.logger, g, u.q.SchedulingCycle(), ok); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

func BenchmarkPodGroupMoveParked(b *testing.B) {
	const members = 8
	for _, groups := range []int{100, 1000} {
		b.Run(fmt.Sprintf("groups=%d/schedq", groups), func(b *testing.B) {
			q := newBenchImpl(b, true)
			for g := range groups {
				name := fmt.Sprintf("g%d", g)
				if err := q.AddPodGroup(&spec.PodGroup{Namespace: "bench", Name: name}); err != nil {
					b.Fatal(err)
				}
				for i := range members {
					if err := q.Add(benchMemberSpec(name, i, true)); err != nil {
						b.Fatal(err)
					}
				}
			}
			if n := len(q.Snapshot().UnschedulablePods); n != groups*members {
				b.Fatalf("%d members parked, want %d", n, groups*members)
			}
			perPod(b, groups*members, func() { q.MoveAllToActiveOrBackoffQueue(workload.NodeAdd, nil) })
		})
		b.Run(fmt.Sprintf("groups=%d/upstream", groups), func(b *testing.B) {
			u := newBenchUpstreamGroups(b, true)
			for g := range groups {
				name := fmt.Sprintf("g%d", g)
				addPodGroup(u.q, u.logger, toV1PodGroup(&spec.PodGroup{Namespace: "bench", Name: name}))
				for i := range members {
					u.q.Add(u.ctx, benchMemberV1(name, i, true))
				}
			}
			if n := len(u.q.UnschedulablePods()); n != groups*members {
				b.Fatalf("%d members parked, want %d", n, groups*members)
			}
			perPod(b, groups*members, func() { u.MoveAll(nil) })
		})
	}
}

// perPod times b.N runs of op, each handling pods pods, and reports
// cpu-ns/pod (workload.CPUTimer), ns/pod and allocs/pod.
func perPod(b *testing.B, pods int, op func()) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cputime.Start()
	for range b.N {
		op()
	}
	cpu.Report(b)
	b.StopTimer()
	runtime.ReadMemStats(&after)
	n := float64(b.N) * float64(pods)
	b.ReportMetric(float64(cpu.Total().Nanoseconds())/n, "cpu-ns/pod")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/pod")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/n, "allocs/pod")
}
