package upstream

// The comparison benchmarks: every workload of internal/workload against
// schedq's implementation and the release's queue, side by side in one
// invocation. `make bench-compare` runs them and prints the table; see
// internal/workload for what each workload does. A release that can switch
// queueing hints off (v1.33) runs in classic mode, the semantics of
// schedq's classic profile; later releases run with their default gates,
// the semantics of schedq's hints profile (schedq-hints), and add the gated
// workload.
//
// The upstream queue is driven directly with *v1.Pod and the
// *framework.QueuedPodInfo its Pop returns, not through the conformance
// adapter (which converts pods): neither side pays for conversions.

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
	"k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/schedq/schedq/internal/workload"
	"github.com/schedq/schedq/spec"
)

// benchClassic: the release is measured in classic mode.
var benchClassic = Release().CanSwitchHintsOff

func subjects() []workload.Subject {
	if benchClassic {
		return []workload.Subject{workload.Schedq(), workload.Of("upstream", upstreamTarget)}
	}
	return []workload.Subject{workload.Schedq(), workload.SchedqHints(), workload.Of("upstream", upstreamTarget)}
}

func BenchmarkAddPop(b *testing.B)           { workload.AddPop(b, subjects()...) }
func BenchmarkMoveAll(b *testing.B)          { workload.MoveAll(b, subjects()...) }
func BenchmarkFlushBackoffQ(b *testing.B)    { workload.FlushBackoffQ(b, subjects()...) }
func BenchmarkSchedulingLoop(b *testing.B)   { workload.SchedulingLoop(b, subjects()...) }
func BenchmarkProducerConsumer(b *testing.B) { workload.ProducerConsumer(b, subjects()...) }
func BenchmarkRetained(b *testing.B)         { workload.Retained(b, subjects()...) }

// BenchmarkHintReplay measures the in-flight replay, which classic mode
// does not have.
func BenchmarkHintReplay(b *testing.B) {
	if benchClassic {
		b.Skip("classic mode has no in-flight replay")
	}
	workload.HintReplay(b, subjects()...)
}

// BenchmarkGatedMoves runs only the queues with scheduling gates: schedq's
// hints profile and upstream with its default gates, each with the
// PreEnqueue plugin Gate.
func BenchmarkGatedMoves(b *testing.B) {
	if benchClassic {
		b.Skip("classic mode, which this release is measured in, has no PreEnqueue gating")
	}
	workload.GatedMoves(b, workload.SchedqGated(), workload.Of("upstream", upstreamGatedTarget))
}

// BenchmarkNarrowedMoves runs where the release's default gates run
// pre-queueing hints (v1.38 on): schedq's hints profile with pre-queueing
// hints against the release's queue, each with a pre-queueing hint that
// names the same pods. `make bench-compare-prequeue` tabulates it.
func BenchmarkNarrowedMoves(b *testing.B) {
	if !Release().PreQueueingHints {
		b.Skip(Release().Version + "'s default gates leave SchedulerPreQueueingHints off")
	}
	workload.NarrowedMoves(b, workload.SchedqNarrowed(), workload.Of("upstream", upstreamNarrowedTarget))
}

// upstreamTarget is the release's PriorityQueue, built as the conformance
// target builds it.
var upstreamTarget = workload.Target[*v1.Pod, *framework.QueuedPodInfo]{
	New: func(tb testing.TB) workload.Queue[*v1.Pod, *framework.QueuedPodInfo] {
		return newBenchQueue(tb, workload.Config())
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

func newBenchQueue(tb testing.TB, cfg spec.Config, opts ...queue.Option) *upstream {
	q, clk, _, stop, err := newQueue(cfg, workload.Start, benchClassic, opts...)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(stop)
	logger := klog.Background()
	return &upstream{q: q, clock: clk, logger: logger, ctx: klog.NewContext(context.Background(), logger), nodeAdd: toEvent(workload.NodeAdd)}
}

// upstreamGatedTarget is upstreamTarget with workload.GatedConfig: Gate
// registered for its event and run as a PreEnqueue plugin.
var upstreamGatedTarget = func() workload.Target[*v1.Pod, *framework.QueuedPodInfo] {
	t := upstreamTarget
	t.New = func(tb testing.TB) workload.Queue[*v1.Pod, *framework.QueuedPodInfo] {
		return newBenchQueue(tb, workload.GatedConfig(), withPreEnqueuePlugins(gate{}))
	}
	t.GatedPod = func(i int, priority int32) *v1.Pod {
		p := upstreamTarget.Pod(i, priority)
		p.Labels = map[string]string{workload.GateLabel: "yes"}
		return p
	}
	return t
}()

// upstreamNarrowedTarget is upstreamTarget with workload.PreQueueingConfig:
// Plugin's NodeAdd registration has upstream's default queueing hint and
// a pre-queueing hint naming the pods, as a plugin of kube-scheduler
// registers them, its answers built once (setNamingPreQueueingHint) so that
// the adapter's conversions cost nothing; every move request carries a
// node, as a NodeAdd event does.
var upstreamNarrowedTarget = func() workload.Target[*v1.Pod, *framework.QueuedPodInfo] {
	t := upstreamTarget
	t.Narrowed = func(tb testing.TB, named [][]int) workload.NarrowedQueue[*v1.Pod, *framework.QueuedPodInfo] {
		keys := make([][]types.NamespacedName, len(named))
		for j, set := range named {
			keys[j] = make([]types.NamespacedName, len(set))
			for i, n := range set {
				keys[j][i] = types.NamespacedName{Namespace: "bench", Name: fmt.Sprintf("pod-%d", n)}
			}
		}
		f := &queue.QueueingHintFunction{PluginName: workload.Plugin, QueueingHintFn: queueHint}
		setNamingPreQueueingHint(f, keys)
		hints := queue.QueueingHintMapPerProfile{SchedulerName: {toEvent(workload.NodeAdd): {f}}}
		u := newBenchQueue(tb, workload.PreQueueingConfig(named), queue.WithQueueingHintMapPerProfile(hints))
		u.object = &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}
		return u
	}
	return t
}()

// gate is workload.Gate as an upstream PreEnqueue plugin.
type gate struct{}

func (gate) Name() string { return workload.Gate }

func (gate) PreEnqueue(_ context.Context, p *v1.Pod) *status {
	if p.Labels[workload.GateLabel] == "yes" {
		return refusedBy(workload.Gate)
	}
	return nil
}

type upstream struct {
	q       *queue.PriorityQueue
	clock   *testingclock.FakeClock
	logger  klog.Logger
	ctx     context.Context
	nodeAdd clusterEvent
	// object, if set, is the new object of every move request (a node:
	// upstream asks no pre-queueing hint for a request without objects).
	object any
}

func (u *upstream) Add(p *v1.Pod) { addPod(u.q, u.ctx, p) }

func (u *upstream) Pop() (*framework.QueuedPodInfo, int64) {
	info, err := pop(u.q, u.logger)
	if err != nil || info == nil {
		panic(fmt.Sprintf("Pop: %v, %v", info, err))
	}
	return info, u.q.SchedulingCycle()
}

func (u *upstream) Fail(info *framework.QueuedPodInfo, cycle int64, rejected bool) {
	// What the scheduler's failure handler does: clear the last attempt's
	// rejectors (v1.36+; earlier Pop cleared them), then name this one's.
	// Refilling the cleared set allocates nothing, the cheapest way to name
	// the plugin.
	clearRejectors(info)
	if rejected {
		if info.UnschedulablePlugins == nil {
			info.UnschedulablePlugins = sets.New[string]()
		}
		info.UnschedulablePlugins.Insert(workload.Plugin)
	}
	if err := addUnschedulable(u.q, u.logger, info, cycle); err != nil {
		panic(err)
	}
}

func (u *upstream) Done(info *framework.QueuedPodInfo) { u.q.Done(info.Pod.UID) }

func (u *upstream) MoveAll(preCheck func(*v1.Pod) bool) {
	u.q.MoveAllToActiveOrBackoffQueue(u.logger, u.nodeAdd, nil, u.object, preEnqueueCheck(preCheck))
}

// ActiveLen counts activeQ (workload.NarrowedQueue); untimed.
func (u *upstream) ActiveLen() int { return len(u.q.PodsInActiveQ()) }

func (u *upstream) FlushBackoffQ()       { flushBackoffQCompleted(u.q, u.logger) }
func (u *upstream) Step(d time.Duration) { u.clock.Step(d) }
func (u *upstream) Close()               { u.q.Close() }
