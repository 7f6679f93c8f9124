// Package inflightlist reads the in-flight list (R15) out of an upstream
// kube-scheduler PriorityQueue, for the conformance adapters of the
// upstream modules, which observe it but cannot reach it otherwise.
//
// Upstream keeps the list unexported: PriorityQueue.activeQ (an interface
// holding an *activeQueue) has inFlightEvents, a container/list whose
// values are a *v1.Pod (the marker of a pod in flight, pushed by Pop) or a
// *clusterEvent (an event record with fields event, oldObj and newObj).
// That layout is the same in v1.33.13 and v1.37.2 (active_queue.go); only
// the types of the pod and the event differ, which the caller converts.
// The list is read by reflection, for observation only, while no
// operation is under way (the adapters drive the queue from one
// goroutine; a blocked Pop holds no lock while it waits).
//
// This package imports no Kubernetes code, so that the main module keeps
// none in its dependencies.
package inflightlist

import (
	"container/list"
	"reflect"
	"unsafe"

	"github.com/schedq/schedq/spec"
)

// Convert turns upstream's values into schedq's words.
type Convert struct {
	// Marker converts a list value that is a pod (a marker); false if v is
	// not one.
	Marker func(v any) (spec.InFlightEntry, bool)
	// Event converts the event field of a record.
	Event func(v any) (spec.ClusterEvent, bool)
	// Pod converts a record's oldObj or newObj: nil if it is not a pod.
	Pod func(v any) *spec.Pod
	// Object, if set, converts a record's oldObj or newObj that is not a
	// pod (a node: Occurrence.OldObject, NewObject); nil for none.
	Object func(v any) any
}

// Read returns the in-flight list of queue (a *PriorityQueue), and whether
// it could be read: false if upstream's layout is not the one above.
func Read(queue any, c Convert) ([]spec.InFlightEntry, bool) {
	q := reflect.ValueOf(queue)
	if q.Kind() != reflect.Pointer || q.IsNil() || q.Elem().Kind() != reflect.Struct {
		return nil, false
	}
	aq := q.Elem().FieldByName("activeQ")
	if !aq.IsValid() || aq.Kind() != reflect.Interface || aq.IsNil() {
		return nil, false
	}
	impl := aq.Elem() // *activeQueue
	if impl.Kind() != reflect.Pointer || impl.Elem().Kind() != reflect.Struct {
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
		if m, ok := c.Marker(e.Value); ok {
			out = append(out, m)
			continue
		}
		occ, ok := readRecord(e.Value, c)
		if !ok {
			return nil, false
		}
		out = append(out, spec.InFlightEntry{Event: occ})
	}
	return out, true
}

// readRecord reads an unexported *clusterEvent.
func readRecord(x any, c Convert) (spec.Occurrence, bool) {
	p := reflect.ValueOf(x)
	if p.Kind() != reflect.Pointer || p.IsNil() || p.Elem().Kind() != reflect.Struct {
		return spec.Occurrence{}, false
	}
	s := p.Elem()
	read := func(name string) (any, bool) {
		f := s.FieldByName(name)
		if !f.IsValid() {
			return nil, false
		}
		return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Interface(), true
	}
	ev, ok1 := read("event")
	oldObj, ok2 := read("oldObj")
	newObj, ok3 := read("newObj")
	if !ok1 || !ok2 || !ok3 {
		return spec.Occurrence{}, false
	}
	e, ok := c.Event(ev)
	if !ok {
		return spec.Occurrence{}, false
	}
	occ := spec.Occurrence{Event: e, Old: c.Pod(oldObj), New: c.Pod(newObj)}
	if c.Object != nil {
		if occ.Old == nil {
			occ.OldObject = c.Object(oldObj)
		}
		if occ.New == nil {
			occ.NewObject = c.Object(newObj)
		}
	}
	return occ, true
}
