package v137

import (
	"container/list"
	"reflect"
	"unsafe"

	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/schedq/schedq/spec"
)

// The in-flight list (R15) is unexported upstream: PriorityQueue.activeQ
// (an *activeQueue) keeps it in inFlightEvents, a container/list of
// *v1.Pod (the marker of a pod in flight) and *clusterEvent (an event
// record: event, oldObj, newObj), active_queue.go:181-203 and
// scheduling_queue.go:281-287 of v1.37.2. The adapter reads it by
// reflection, for observation only, so the suite compares the list itself
// with the model's after every step, not only its effects. The adapter
// drives the queue from one goroutine; a blocked Pop holds no lock while
// it waits, and Snapshot runs only when no operation is under way.

// inFlightEvents returns the queue's in-flight list in schedq's words, and
// whether it could be read (false if upstream's layout changed).
func (t *Target) inFlightEvents() ([]spec.InFlightEntry, bool) {
	aq := reflect.ValueOf(t.q).Elem().FieldByName("activeQ")
	if !aq.IsValid() || aq.Kind() != reflect.Interface || aq.IsNil() {
		return nil, false
	}
	impl := aq.Elem() // *activeQueue
	if impl.Kind() != reflect.Pointer {
		return nil, false
	}
	field := impl.Elem().FieldByName("inFlightEvents")
	if !field.IsValid() || field.Type() != reflect.TypeOf((*list.List)(nil)) {
		return nil, false
	}
	l := (*list.List)(unsafe.Pointer(field.Pointer()))
	if l == nil {
		return nil, true
	}
	var out []spec.InFlightEntry
	for e := l.Front(); e != nil; e = e.Next() {
		switch v := e.Value.(type) {
		case *v1.Pod:
			out = append(out, spec.InFlightEntry{UID: spec.UID(v.UID), Key: spec.PodKey(v.Namespace + "/" + v.Name)})
		default:
			occ, ok := readClusterEvent(e.Value)
			if !ok {
				return nil, false
			}
			out = append(out, spec.InFlightEntry{Event: occ})
		}
	}
	return out, true
}

// readClusterEvent reads an unexported *clusterEvent.
func readClusterEvent(x any) (spec.Occurrence, bool) {
	p := reflect.ValueOf(x)
	if p.Kind() != reflect.Pointer || p.IsNil() || p.Elem().Kind() != reflect.Struct {
		return spec.Occurrence{}, false
	}
	s := p.Elem()
	read := func(name string) (reflect.Value, bool) {
		f := s.FieldByName(name)
		if !f.IsValid() {
			return reflect.Value{}, false
		}
		return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem(), true
	}
	ev, ok1 := read("event")
	oldObj, ok2 := read("oldObj")
	newObj, ok3 := read("newObj")
	if !ok1 || !ok2 || !ok3 {
		return spec.Occurrence{}, false
	}
	ce, ok := ev.Interface().(fwk.ClusterEvent)
	if !ok {
		return spec.Occurrence{}, false
	}
	occ := spec.Occurrence{Event: fromEvent(ce)}
	if o, ok := oldObj.Interface().(*v1.Pod); ok && o != nil {
		occ.Old = toSpec(o)
	}
	if n, ok := newObj.Interface().(*v1.Pod); ok && n != nil {
		occ.New = toSpec(n)
	}
	return occ, true
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
