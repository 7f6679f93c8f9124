package model_test

import (
	"fmt"
	"time"

	"github.com/schedq/schedq/model"
	"github.com/schedq/schedq/spec"
)

// The hints profile: a plugin registers events with queueing hints, a pod it
// rejected is parked unless an event received while the pod was being
// scheduled may help it (R3h), and the events are kept only while some pod
// is in flight (R15).
func Example_hintsProfile() {
	nodeAdd := spec.ClusterEvent{Resource: spec.ResourceNode, ActionType: spec.Add}
	nodeTaint := spec.ClusterEvent{Resource: spec.ResourceNode, ActionType: spec.UpdateNodeTaint}
	cfg := spec.DefaultHintsConfig(spec.PluginEvents{"TaintToleration": {nodeAdd, nodeTaint}})
	// A taint update helps no pod this plugin rejected (in this example);
	// NodeAdd has no hint, so it always answers Queue.
	cfg.QueueingHints = spec.QueueingHints{
		{Plugin: "TaintToleration", Event: nodeTaint}: func(*spec.Pod, spec.Occurrence) (spec.QueueingHint, error) {
			return spec.HintSkip, nil
		},
	}
	m, err := model.New(cfg, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		panic(err)
	}
	for _, name := range []string{"a", "b"} {
		_ = m.Add(&spec.Pod{Namespace: "ns", Name: name, UID: spec.UID("uid-" + name)})
	}
	a, cycleA, _ := m.PopPod("ns/a")
	m.MoveAllToActiveOrBackoffQueue(nodeAdd, nil) // recorded: a is in flight
	b, cycleB, _ := m.PopPod("ns/b")
	m.MoveAllToActiveOrBackoffQueue(nodeTaint, nil) // recorded for a and b
	fmt.Println(m.Snapshot().InFlightEvents)

	a.UnschedulablePlugins = spec.NewPluginSet("TaintToleration")
	b.UnschedulablePlugins = spec.NewPluginSet("TaintToleration")
	_ = m.AddUnschedulableIfNotPresent(a, cycleA)
	_ = m.AddUnschedulableIfNotPresent(b, cycleB)
	fmt.Println("a:", m.Where("ns/a"), "b:", m.Where("ns/b"))
	fmt.Println("in-flight list:", len(m.Snapshot().InFlightEvents))
	// Output:
	// [pod:ns/a NodeAdd pod:ns/b NodeUpdateNodeTaint]
	// a: backoffQ b: unschedulablePods
	// in-flight list: 0
}
