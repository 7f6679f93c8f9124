package v133

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/schedq/schedq/internal/inflightlist"
	"github.com/schedq/schedq/spec"
)

// The in-flight list (R15) is unexported upstream (activeQueue.inFlightEvents,
// active_queue.go:157-170 of v1.33.13); with queueing hints on, the adapter
// reads it with internal/inflightlist, for observation only, so the suite
// compares the list itself with the model's after every step.

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
			e, ok := v.(framework.ClusterEvent)
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

// fromEvent is the inverse of toEvent: resources and action bits are
// spec's; a wildcard keeps upstream's label.
func fromEvent(e framework.ClusterEvent) spec.ClusterEvent {
	if e.IsWildCard() {
		return spec.ClusterEvent{Resource: spec.WildCard, ActionType: spec.All, Label: e.Label()}
	}
	return spec.ClusterEvent{Resource: spec.EventResource(e.Resource), ActionType: spec.ActionType(e.ActionType)}
}
