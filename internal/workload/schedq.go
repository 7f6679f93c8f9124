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

// Gate is the PreEnqueue plugin of the hints workloads: it refuses pods
// labelled GateLabel=yes and registered only GateEvent, so a move request
// for NodeAdd leaves the pods it gates alone (R4h).
const (
	Gate      = "Gate"
	GateLabel = "gated"
)

// GateEvent is the only event Gate registered.
var GateEvent = spec.ClusterEvent{Resource: spec.ResourcePod, ActionType: spec.UpdatePodLabel}

// HintsConfig is Config in the queueing-hints profile: Plugin's
// registration has no hint (Queue), as upstream's default, and there is no
// PreEnqueue plugin.
func HintsConfig() spec.Config { return spec.DefaultHintsConfig(spec.PluginEvents{Plugin: {NodeAdd}}) }

// GatedConfig is HintsConfig with the PreEnqueue plugin Gate.
func GatedConfig() spec.Config {
	c := spec.DefaultHintsConfig(spec.PluginEvents{Plugin: {NodeAdd}, Gate: {GateEvent}})
	c.PreEnqueuePlugins = spec.PreEnqueuePlugins{Gate: func(p *spec.Pod) bool { return p.Labels[GateLabel] != "yes" }}
	return c
}

// SchedqHints is schedq's implementation in the queueing-hints profile
// (HintsConfig), compared with upstream v1.37.2; in GatedMoves, with
// GatedConfig.
func SchedqHints() Subject { return Of("schedq-hints", SchedqHintsTarget) }

// SchedqHintsTarget is the Target behind SchedqHints.
var SchedqHintsTarget = func() Target[*spec.Pod, *spec.QueuedPodInfo] {
	t := SchedqTarget
	t.New = func(tb testing.TB) Queue[*spec.Pod, *spec.QueuedPodInfo] { return newSchedq(tb, HintsConfig()) }
	return t
}()

// SchedqGated is SchedqHints with Gate (GatedConfig), for GatedMoves.
func SchedqGated() Subject { return Of("schedq-hints", SchedqGatedTarget) }

// SchedqGatedTarget is the Target behind SchedqGated.
var SchedqGatedTarget = func() Target[*spec.Pod, *spec.QueuedPodInfo] {
	t := SchedqTarget
	t.New = func(tb testing.TB) Queue[*spec.Pod, *spec.QueuedPodInfo] { return newSchedq(tb, GatedConfig()) }
	t.GatedPod = func(i int, priority int32) *spec.Pod {
		p := t.Pod(i, priority)
		p.Labels = map[string]string{GateLabel: "yes"}
		return p
	}
	return t
}()

// PreQueueingConfig is HintsConfig with pre-queueing hints on (R20) and
// a pre-queueing hint on Plugin's NodeAdd registration whose i-th call
// names the pods of SchedqTarget.Pod's indexes named[i % len(named)], its
// answers built once. (A hint that answers by its calls is not what a
// plugin writes; it lets one timed region hold many requests that each
// name other pods, Target.Narrowed.)
func PreQueueingConfig(named [][]int) spec.Config {
	answers := make([]spec.PreQueueingResult, len(named))
	for j, set := range named {
		keys := make([]spec.PodKey, len(set))
		for i, n := range set {
			keys[i] = spec.PodKey(fmt.Sprintf("bench/pod-%d", n))
		}
		answers[j] = spec.PodsNamed(keys...)
	}
	calls := 0
	cfg := HintsConfig()
	cfg.PreQueueing = true
	cfg.PreQueueingHints = spec.PreQueueingHints{
		{Plugin: Plugin, Event: NodeAdd}: func(spec.Occurrence) (spec.PreQueueingResult, error) {
			a := answers[calls%len(answers)]
			calls++
			return a, nil
		},
	}
	return cfg
}

// SchedqNarrowed is schedq's implementation with PreQueueingConfig, for
// NarrowedMoves; it is named "schedq", the one schedq of that table.
func SchedqNarrowed() Subject { return Of("schedq", SchedqNarrowedTarget) }

// SchedqNarrowedTarget is the Target behind SchedqNarrowed.
var SchedqNarrowedTarget = func() Target[*spec.Pod, *spec.QueuedPodInfo] {
	t := SchedqHintsTarget
	t.Narrowed = func(tb testing.TB, named [][]int) NarrowedQueue[*spec.Pod, *spec.QueuedPodInfo] {
		s := newSchedq(tb, PreQueueingConfig(named))
		s.object = "node n1"
		return s
	}
	return t
}()

func newSchedq(tb testing.TB, cfg spec.Config) *schedq {
	clk := clocktesting.NewFakeClock(Start)
	q, err := impl.New(cfg, impl.WithClock(clk))
	if err != nil {
		tb.Fatal(err)
	}
	return &schedq{q: q, clock: clk, rejected: spec.NewPluginSet(Plugin)}
}

// Schedq is schedq's implementation (package impl) through its public API,
// spec.Queue, with spec pods.
func Schedq() Subject { return Of("schedq", SchedqTarget) }

// SchedqTarget is the Target behind Schedq.
var SchedqTarget = Target[*spec.Pod, *spec.QueuedPodInfo]{
	New: func(tb testing.TB) Queue[*spec.Pod, *spec.QueuedPodInfo] { return newSchedq(tb, Config()) },
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
	// object, if set, is the node object of every move request
	// (NarrowedMoves: a request with no object asks no pre-queueing hint).
	object any
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
	// What the scheduler does with the Pop result: name the plugins that
	// rejected this attempt (none: an error), then hand it back. (Classic
	// Pop cleared them already; the hints profile's Pop keeps the last
	// attempt's, which the scheduler replaces, R3h.)
	info.UnschedulablePlugins = nil
	if rejected {
		info.UnschedulablePlugins = s.rejected
	}
	must(s.q.AddUnschedulableIfNotPresent(info, cycle))
}

func (s *schedq) Done(info *spec.QueuedPodInfo) { must(s.q.Done(info.Pod.UID)) }

func (s *schedq) MoveAll(preCheck func(*spec.Pod) bool) {
	if s.object != nil {
		must(s.q.MoveAllToActiveOrBackoffQueueWithObjects(spec.Occurrence{Event: NodeAdd, NewObject: s.object}, preCheck))
		return
	}
	s.q.MoveAllToActiveOrBackoffQueue(NodeAdd, preCheck)
}

// ActiveLen counts activeQ (NarrowedQueue), from a snapshot: untimed.
func (s *schedq) ActiveLen() int { return len(s.q.Snapshot().ActiveQ) }

func (s *schedq) FlushBackoffQ()       { s.q.FlushBackoffQCompleted() }
func (s *schedq) Step(d time.Duration) { s.clock.Step(d) }
func (s *schedq) Close()               { s.q.Close() }
