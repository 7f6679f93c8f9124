package upstream

import (
	"sync"

	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/schedq/schedq/spec"
)

// Events are mapped by name, not by value: the releases number their
// action bits differently (v1.37 added bits in the middle of the set) and
// name the unscheduled-pod resource differently ("UnschedulablePod" up to
// v1.36, "UnscheduledPod" in v1.37), while both sides name each bit and
// resource the same way. Upstream's All, Update and resources are read from
// its own event variables, which every release has.

type actionPair struct {
	s spec.ActionType
	u actionType
}

// actionBits pairs each spec action bit with the release's bit of the same
// name (ActionType.String on both sides).
var actionBits = sync.OnceValue(func() []actionPair {
	byName := map[string]actionType{}
	for i := 0; i < 64; i++ {
		u := actionType(1) << i
		byName[u.String()] = u
	}
	var out []actionPair
	for i := 0; i < 64; i++ {
		s := spec.ActionType(1) << i
		if s&spec.All == 0 {
			break
		}
		if u, ok := byName[s.String()]; ok {
			out = append(out, actionPair{s, u})
		}
	}
	return out
})

var (
	upstreamAll    = framework.EventForceActivate.ActionType
	upstreamUpdate = framework.EventAssignedPodUpdate.ActionType
	wildCard       = framework.EventForceActivate.Resource
)

func toAction(a spec.ActionType) actionType {
	switch a {
	case spec.All:
		return upstreamAll
	case spec.Update:
		return upstreamUpdate
	}
	var out actionType
	for _, m := range actionBits() {
		if a&m.s != 0 {
			out |= m.u
			a &^= m.s
		}
	}
	if a != 0 { // a bit the release has no name for: its general Update
		out |= upstreamUpdate
	}
	return out
}

func fromAction(u actionType) spec.ActionType {
	switch u {
	case upstreamAll:
		return spec.All
	case upstreamUpdate:
		return spec.Update
	}
	var out spec.ActionType
	for _, m := range actionBits() {
		if u&m.u != 0 {
			out |= m.s
			u &^= m.u
		}
	}
	if u != 0 { // an action schedq has no bit for
		out |= spec.Update &^ out
	}
	return out
}

// resources are the resource names that differ between spec and upstream.
var resources = []struct {
	s spec.EventResource
	u string
}{
	{spec.ResourceUnschedulablePod, string(framework.EventUnscheduledPodAdd.Resource)},
	{spec.ResourceAssignedPod, string(framework.EventAssignedPodAdd.Resource)},
}

func toResource(r spec.EventResource) string {
	for _, m := range resources {
		if m.s == r {
			return m.u
		}
	}
	return string(r) // the other names are upstream's
}

func fromResource(r string) spec.EventResource {
	for _, m := range resources {
		if m.u == r {
			return m.s
		}
	}
	return spec.EventResource(r)
}

// toEvent maps a spec event to upstream's. Wildcards keep their label as
// far as the release can carry it (wildcardEvent).
func toEvent(e spec.ClusterEvent) clusterEvent {
	if e.IsWildCard() {
		return wildcardEvent(e.EventLabel())
	}
	return clusterEvent{Resource: eventResource(toResource(e.Resource)), ActionType: toAction(e.ActionType)}
}

// fromEvent is the inverse of toEvent.
func fromEvent(e clusterEvent) spec.ClusterEvent {
	if e.Resource == wildCard && e.ActionType == upstreamAll {
		return spec.ClusterEvent{Resource: spec.WildCard, ActionType: spec.All, Label: e.Label()}
	}
	return spec.ClusterEvent{Resource: fromResource(string(e.Resource)), ActionType: fromAction(e.ActionType), Label: customLabel(e)}
}
