package v137

// The comparison benchmarks: every workload of internal/workload against
// schedq's implementation and the kube-scheduler v1.37.2 queue with its
// default gates, side by side in one invocation. `make bench-compare` runs
// them and prints the table; see internal/workload for what each workload
// does.
//
// The upstream queue is driven directly with *v1.Pod and the
// *framework.QueuedPodInfo its Pop returns, not through the conformance
// adapter (which converts pods): neither side pays for conversions. It is
// v1.37's own mode (queueing hints, pop-from-backoffQ), not the classic
// one schedq implements: the same calls, each with v1.37's semantics.

import (
	"context"
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/schedq/schedq/internal/workload"
)

// subjects are schedq in both profiles and upstream v1.37.2: the hints
// profile (schedq-hints) has v1.37.2's semantics, the classic one (schedq)
// v1.33's, which the v133 module compares it with.
func subjects() []workload.Subject {
	return []workload.Subject{workload.Schedq(), workload.SchedqHints(), workload.Of("upstream", upstreamTarget)}
}

func BenchmarkAddPop(b *testing.B)           { workload.AddPop(b, subjects()...) }
func BenchmarkMoveAll(b *testing.B)          { workload.MoveAll(b, subjects()...) }
func BenchmarkFlushBackoffQ(b *testing.B)    { workload.FlushBackoffQ(b, subjects()...) }
func BenchmarkSchedulingLoop(b *testing.B)   { workload.SchedulingLoop(b, subjects()...) }
func BenchmarkProducerConsumer(b *testing.B) { workload.ProducerConsumer(b, subjects()...) }
func BenchmarkRetained(b *testing.B)         { workload.Retained(b, subjects()...) }
func BenchmarkHintReplay(b *testing.B)       { workload.HintReplay(b, subjects()...) }

// BenchmarkGatedMoves runs only the queues with scheduling gates: schedq's
// hints profile and upstream, each with the PreEnqueue plugin Gate.
func BenchmarkGatedMoves(b *testing.B) {
	workload.GatedMoves(b, workload.SchedqGated(), workload.Of("upstream", upstreamGatedTarget))
}

// upstreamTarget is kube-scheduler v1.37.2's PriorityQueue with its
// default gates, built as the conformance target builds it.
var upstreamTarget = workload.Target[*v1.Pod, *framework.QueuedPodInfo]{
	New: func(tb testing.TB) workload.Queue[*v1.Pod, *framework.QueuedPodInfo] {
		q, clk, err := newQueue(workload.Config(), workload.Start)
		if err != nil {
			tb.Fatal(err)
		}
		logger := klog.Background()
		return &upstream{q: q, clock: clk, logger: logger, ctx: klog.NewContext(context.Background(), logger),
			nodeAdd: toEvent(workload.NodeAdd)}
	},
	Pod: func(i int, priority int32) *v1.Pod {
		return &v1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "bench", Name: fmt.Sprintf("pod-%d", i), UID: types.UID(fmt.Sprintf("uid-%d", i))},
			Spec:       v1.PodSpec{SchedulerName: SchedulerName, Priority: &priority},
		}
	},
	Priority: priority,
	PodOf:    func(info *framework.QueuedPodInfo) *v1.Pod { return info.Pod },
}

// upstreamGatedTarget is upstreamTarget with workload.GatedConfig: Gate
// registered for its event and run as a PreEnqueue plugin.
var upstreamGatedTarget = func() workload.Target[*v1.Pod, *framework.QueuedPodInfo] {
	t := upstreamTarget
	t.New = func(tb testing.TB) workload.Queue[*v1.Pod, *framework.QueuedPodInfo] {
		q, clk, err := newQueue(workload.GatedConfig(), workload.Start,
			queue.WithPreEnqueuePluginMap(map[string]map[string]fwk.PreEnqueuePlugin{SchedulerName: {workload.Gate: gate{}}}))
		if err != nil {
			tb.Fatal(err)
		}
		logger := klog.Background()
		return &upstream{q: q, clock: clk, logger: logger, ctx: klog.NewContext(context.Background(), logger),
			nodeAdd: toEvent(workload.NodeAdd)}
	}
	t.GatedPod = func(i int, priority int32) *v1.Pod {
		p := upstreamTarget.Pod(i, priority)
		p.Labels = map[string]string{workload.GateLabel: "yes"}
		return p
	}
	return t
}()

// gate is workload.Gate as a v1.37.2 PreEnqueue plugin.
type gate struct{}

func (gate) Name() string { return workload.Gate }

func (gate) PreEnqueue(_ context.Context, p *v1.Pod) *fwk.Status {
	if p.Labels[workload.GateLabel] == "yes" {
		return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, "gated")
	}
	return nil
}

type upstream struct {
	q       *queue.PriorityQueue
	clock   *testingclock.FakeClock
	logger  klog.Logger
	ctx     context.Context
	nodeAdd fwk.ClusterEvent
}

func (u *upstream) Add(p *v1.Pod) { u.q.Add(u.ctx, p) }

func (u *upstream) Pop() (*framework.QueuedPodInfo, int64) {
	e, err := u.q.Pop(u.logger)
	info, ok := e.(*framework.QueuedPodInfo)
	if err != nil || !ok {
		panic(fmt.Sprintf("Pop: %v, %v", e, err))
	}
	return info, u.q.SchedulingCycle()
}

func (u *upstream) Fail(info *framework.QueuedPodInfo, cycle int64, rejected bool) {
	// What v1.37's handleSchedulingFailure does: clear the last attempt's
	// rejectors (Pop no longer does), then name this one's. Refilling the
	// cleared set allocates nothing, the cheapest way to name the plugin.
	info.ClearRejectorPlugins()
	if rejected {
		if info.UnschedulablePlugins == nil {
			info.UnschedulablePlugins = sets.New[string]()
		}
		info.UnschedulablePlugins.Insert(workload.Plugin)
	}
	if err := u.q.AddUnschedulablePodIfNotPresent(u.logger, info, cycle); err != nil {
		panic(err)
	}
}

func (u *upstream) Done(info *framework.QueuedPodInfo) { u.q.Done(info.Pod.UID) }

func (u *upstream) MoveAll(preCheck func(*v1.Pod) bool) {
	u.q.MoveAllToActiveOrBackoffQueue(u.logger, u.nodeAdd, nil, nil, preCheck)
}

func (u *upstream) FlushBackoffQ()       { flushBackoffQCompleted(u.q, u.logger) }
func (u *upstream) Step(d time.Duration) { u.clock.Step(d) }
func (u *upstream) Close()               { u.q.Close() }
