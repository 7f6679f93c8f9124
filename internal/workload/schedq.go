package workload

import (
	"fmt"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/schedq/schedq/impl"
	"github.com/schedq/schedq/spec"
)

// NodeAdd is the event of every move request in the workloads.
var NodeAdd = spec.ClusterEvent{Resource: spec.ResourceNode, ActionType: spec.Add}

// Config is the queue config of every workload: upstream defaults, Plugin
// registered for NodeAdd.
func Config() spec.Config {
	return spec.DefaultConfig(spec.PluginEvents{Plugin: {NodeAdd}})
}

// Schedq is schedq's implementation (package impl) through its public API,
// spec.Queue, with spec pods.
func Schedq() Subject { return Of("schedq", SchedqTarget) }

// SchedqTarget is the Target behind Schedq.
var SchedqTarget = Target[*spec.Pod, *spec.QueuedPodInfo]{
	New: func(tb testing.TB) Queue[*spec.Pod, *spec.QueuedPodInfo] {
		clk := clocktesting.NewFakeClock(Start)
		q, err := impl.New(Config(), impl.WithClock(clk))
		if err != nil {
			tb.Fatal(err)
		}
		return &schedq{q: q, clock: clk, rejected: spec.NewPluginSet(Plugin)}
	},
	Pod: func(i int, priority int32) *spec.Pod {
		return &spec.Pod{
			Namespace: "bench",
			Name:      fmt.Sprintf("pod-%d", i),
			UID:       spec.UID(fmt.Sprintf("uid-%d", i)),
			Priority:  priority,
		}
	},
	Priority: func(p *spec.Pod) int32 { return p.Priority },
	PodOf:    func(info *spec.QueuedPodInfo) *spec.Pod { return info.Pod },
}

type schedq struct {
	q        *impl.PriorityQueue
	clock    *clocktesting.FakeClock
	rejected spec.PluginSet
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

func (s *schedq) Add(p *spec.Pod) { must(s.q.Add(p)) }

func (s *schedq) Pop() (*spec.QueuedPodInfo, int64) {
	info, cycle, err := s.q.Pop()
	must(err)
	return info, cycle
}

func (s *schedq) Fail(info *spec.QueuedPodInfo, cycle int64, rejected bool) {
	if rejected {
		// What the scheduler does with the Pop result: name the plugins
		// that rejected the pod, then hand it back.
		info.UnschedulablePlugins = s.rejected
	}
	must(s.q.AddUnschedulableIfNotPresent(info, cycle))
}

func (s *schedq) Done(info *spec.QueuedPodInfo) { must(s.q.Done(info.Pod.UID)) }

func (s *schedq) MoveAll(preCheck func(*spec.Pod) bool) {
	s.q.MoveAllToActiveOrBackoffQueue(NodeAdd, preCheck)
}

func (s *schedq) FlushBackoffQ()       { s.q.FlushBackoffQCompleted() }
func (s *schedq) Step(d time.Duration) { s.clock.Step(d) }
func (s *schedq) Close()               { s.q.Close() }
