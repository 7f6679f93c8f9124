package upstream

import (
	v1 "k8s.io/api/core/v1"

	"github.com/schedq/schedq/internal/inflightlist"
	"github.com/schedq/schedq/spec"
)

// The in-flight list (R15) is unexported upstream (activeQueue.inFlightEvents,
// the same layout in every release from v1.33 to v1.37); with queueing hints
// on, the adapter reads it with internal/inflightlist, for observation only,
// so the suite compares the list itself with the model's after every step,
// not only its effects.

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
			e, ok := v.(clusterEvent)
			return fromEvent(e), ok
		},
		Pod: func(v any) *spec.Pod {
			if p, ok := v.(*v1.Pod); ok && p != nil {
				return toSpec(p)
			}
			return nil
		},
		Object: t.inFlightObject,
	})
}
