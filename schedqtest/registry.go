package schedqtest

import (
	"fmt"
	"strings"

	"github.com/schedq/schedq/spec"
)

// Registry is the plugin -> events registration every suite and scenario
// runs with: NodeResourcesFit wakes on node adds and pod deletes or
// scale-downs, InterPodAffinity on pod adds and label updates,
// PodTopologySpread on any pod event, TaintToleration on node taint
// updates. Adapters of real queues register the same (upstream:
// WithQueueingHintMapPerProfile). Treat it as read-only.
var Registry = spec.PluginEvents{
	"NodeResourcesFit":           {{Resource: spec.ResourceNode, ActionType: spec.Add}, {Resource: spec.ResourcePod, ActionType: spec.Delete | spec.UpdatePodScaleDown}},
	"InterPodAffinity":           {{Resource: spec.ResourcePod, ActionType: spec.Add | spec.UpdatePodLabel}},
	spec.PluginPodTopologySpread: {{Resource: spec.ResourcePod, ActionType: spec.All}},
	"TaintToleration":            {{Resource: spec.ResourceNode, ActionType: spec.UpdateNodeTaint}},
}

// Plugins are the plugins of Registry, sorted, plus one that registered
// nothing: the rejecting plugins random runs draw from.
var Plugins = []string{"InterPodAffinity", "NodeResourcesFit", spec.PluginPodTopologySpread, "TaintToleration", "UnregisteredPlugin"}

// Config returns spec.DefaultConfig(Registry): the config every suite
// starts from.
func Config() spec.Config { return spec.DefaultConfig(Registry) }

// The standard events of the scenario language, by the name a scenario
// uses for them.
var (
	// NodeAdd interests NodeResourcesFit.
	NodeAdd = spec.ClusterEvent{Resource: spec.ResourceNode, ActionType: spec.Add}
	// NodeTaint interests TaintToleration.
	NodeTaint = spec.ClusterEvent{Resource: spec.ResourceNode, ActionType: spec.UpdateNodeTaint}
	// PVAdd is an event no plugin of Registry registered for.
	PVAdd = spec.ClusterEvent{Resource: spec.ResourcePersistentVolume, ActionType: spec.Add}
	// AssignedPodDelete matches the Pod/Delete registration of
	// NodeResourcesFit (a Pod registration covers assigned pods).
	AssignedPodDelete = spec.ClusterEvent{Resource: spec.ResourceAssignedPod, ActionType: spec.Delete}
)

// Events maps each standard event name of the language to its event. Any
// other event is written Resource/Action (e.g. AssignedPod/UpdatePodScaleDown,
// Node/Add|Delete).
var Events = map[string]spec.ClusterEvent{
	"NodeAdd":              NodeAdd,
	"NodeTaint":            NodeTaint,
	"PVAdd":                PVAdd,
	"WildCard":             spec.WildCardEvent,
	"AssignedPodDelete":    AssignedPodDelete,
	"AssignedPodAdd":       spec.EventAssignedPodAdd,
	"AssignedPodUpdate":    spec.EventAssignedPodUpdate,
	"UnschedulableTimeout": spec.EventUnschedulableTimeout,
	"ForceActivate":        spec.EventForceActivate,
	"NodeLabel":            NodeLabel,
	"PodLabel":             PodLabel,
}

var actions = []struct {
	name string
	a    spec.ActionType
}{
	{"All", spec.All}, {"Update", spec.Update},
	{"Add", spec.Add}, {"Delete", spec.Delete},
	{"UpdateNodeAllocatable", spec.UpdateNodeAllocatable}, {"UpdateNodeLabel", spec.UpdateNodeLabel},
	{"UpdateNodeTaint", spec.UpdateNodeTaint}, {"UpdateNodeCondition", spec.UpdateNodeCondition},
	{"UpdateNodeAnnotation", spec.UpdateNodeAnnotation}, {"UpdatePodLabel", spec.UpdatePodLabel},
	{"UpdatePodScaleDown", spec.UpdatePodScaleDown}, {"UpdatePodToleration", spec.UpdatePodToleration},
	{"UpdatePodSchedulingGatesEliminated", spec.UpdatePodSchedulingGatesEliminated},
	{"UpdatePodGeneratedResourceClaim", spec.UpdatePodGeneratedResourceClaim},
	{"UpdatePodOther", spec.UpdatePodOther}, {"UpdatePodScaleUp", spec.UpdatePodScaleUp},
	{"UpdateNodeDeclaredFeature", spec.UpdateNodeDeclaredFeature},
	{"UpdateNodePreemptionPolicy", spec.UpdateNodePreemptionPolicy},
}

// EventName is the name of e in the language: a standard name if e is one
// of Events, else Resource/Action with the action bits joined by "|".
// ParseEvent(EventName(e)) == e for every event without a custom Label.
func EventName(e spec.ClusterEvent) string {
	for _, n := range eventNames() {
		if Events[n] == e {
			return n
		}
	}
	var parts []string
	rest := e.ActionType
	for _, a := range actions {
		if rest&a.a == a.a && a.a != 0 {
			parts = append(parts, a.name)
			rest &^= a.a
		}
	}
	if rest != 0 || len(parts) == 0 {
		parts = append(parts, fmt.Sprintf("%#x", uint64(rest)))
	}
	return string(e.Resource) + "/" + strings.Join(parts, "|")
}

func eventNames() []string {
	return []string{"NodeAdd", "NodeTaint", "PVAdd", "WildCard", "AssignedPodDelete", "AssignedPodAdd",
		"AssignedPodUpdate", "UnschedulableTimeout", "ForceActivate", "NodeLabel", "PodLabel"}
}

// ParseEvent parses an event name of the language (see EventName).
func ParseEvent(name string) (spec.ClusterEvent, error) {
	if e, ok := Events[name]; ok {
		return e, nil
	}
	i := strings.LastIndexByte(name, '/')
	if i <= 0 || i == len(name)-1 {
		return spec.ClusterEvent{}, fmt.Errorf("unknown event %q: want one of %s, or Resource/Action", name, strings.Join(eventNames(), " "))
	}
	e := spec.ClusterEvent{Resource: spec.EventResource(name[:i])}
	for _, part := range strings.Split(name[i+1:], "|") {
		found := false
		for _, a := range actions {
			if a.name == part {
				e.ActionType |= a.a
				found = true
			}
		}
		if !found {
			var v uint64
			if _, err := fmt.Sscanf(part, "0x%x", &v); err != nil || v == 0 {
				return spec.ClusterEvent{}, fmt.Errorf("event %q: unknown action %q", name, part)
			}
			e.ActionType |= spec.ActionType(v)
		}
	}
	return e, nil
}
