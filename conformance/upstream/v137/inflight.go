package v137

import (
	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/schedq/schedq/internal/inflightlist"
	"github.com/schedq/schedq/spec"
)

// The in-flight list (R15) is unexported upstream (activeQueue.inFlightEvents,
// active_queue.go:181-203 and scheduling_queue.go:281-287 of v1.37.2); the
// adapter reads it with internal/inflightlist, for observation only, so the
// suite compares the list itself with the model's after every step, not
// only its effects.

// inFlightEvents returns the queue's in-flight list in schedq's words, and
// whether it could be read (false if upstream's layout changed).
func (t *Target) inFlightEvents() ([]spec.InFlightEntry, bool) {
	return inflightlist.Read(t.q, inflightlist.Convert{
		Marker: func(v any) (spec.InFlightEntry, bool) {
			p, ok := v.(*v1.Pod)
			if !ok {
				return spec.InFlightEntry{}, false
			}
			return spec.InFlightEntry{UID: spec.UID(p.UID), Key: spec.PodKey(p.Namespace + "/" + p.Name)}, true
		},
		Event: func(v any) (spec.ClusterEvent, bool) {
			e, ok := v.(fwk.ClusterEvent)
			return fromEvent(e), ok
		},
		Pod: func(v any) *spec.Pod {
			if p, ok := v.(*v1.Pod); ok && p != nil {
				return toSpec(p)
			}
			return nil
		},
	})
}

// fromEvent is the inverse of toEvent.
func fromEvent(e fwk.ClusterEvent) spec.ClusterEvent {
	if e.Resource == fwk.WildCard && e.ActionType == fwk.All {
		return spec.ClusterEvent{Resource: spec.WildCard, ActionType: spec.All, Label: e.CustomLabel}
	}
	out := spec.ClusterEvent{Resource: spec.EventResource(e.Resource), Label: e.CustomLabel}
	if e.Resource == fwk.UnscheduledPod {
		out.Resource = spec.ResourceUnschedulablePod
	}
	switch e.ActionType {
	case fwk.All:
		out.ActionType = spec.All
		return out
	case fwk.Update:
		out.ActionType = spec.Update
		return out
	}
	rest := e.ActionType
	for _, m := range actions {
		if rest&m.u != 0 {
			out.ActionType |= m.s
			rest &^= m.u
		}
	}
	if rest != 0 {
		out.ActionType |= spec.Update &^ out.ActionType // an action schedq has no bit for
	}
	return out
}
