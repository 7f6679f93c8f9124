package remote

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"

	"github.com/schedq/schedq/schedqtest"
)

// Object is a caller's object on the wire (R19: Pod.Object,
// PodGroup.Object, an event's OldObject and NewObject): a JSON value a
// peer may read, with the reference that gives it back its identity.
//
// A queue keeps a caller's object untouched and returns it as it came, so
// a peer echoes the whole Object, ref included, wherever the queue returns
// the object. Ref is chosen by the side that first sends the object (the
// driver): the same object (the same pointer, or an equal comparable
// value) always travels with the same ref, so the driver hands back to
// the suite the very object the model holds. An object that comes back
// with a ref the driver never sent, or with another type or value, is
// decoded as an *Opaque, which equals nothing the model holds: the suite
// reports the difference (R19).
type Object struct {
	Ref int64 `json:"ref"`
	// Type is "node" for the scenario language's node objects
	// (schedqtest.Node: {"name":N,"labels":{...}}, what the standard
	// hint NodeZoneHint reads), else the Go type of the caller's object.
	Type  string          `json:"type"`
	Value json.RawMessage `json:"value"`
}

// Opaque is an object as the wire carried it, when no Go value of the
// side decoding it stands for it: a peer written in Go keeps the objects
// other than nodes this way and sends them back unchanged.
type Opaque struct{ Object }

// String shows the object in states and diffs.
func (o *Opaque) String() string { return fmt.Sprintf("%s#%d%s", o.Type, o.Ref, o.Value) }

// wireNode is schedqtest.Node's value on the wire.
type wireNode struct {
	Name   string            `json:"name"`
	Labels map[string]string `json:"labels,omitempty"`
}

// Codec converts between the spec values and the wire, keeping the table
// of the caller's objects that crossed (Object). Each side of one
// connection has its own: Peer and Serve make theirs. A nil Codec
// converts everything but objects the same way, sends objects without a
// ref and decodes every object as an *Opaque. It is safe for concurrent
// use.
type Codec struct {
	// adopt: objects that arrive with a new ref are registered under it
	// (the peer's side, which receives objects first and must send them
	// back with the ref they came with); the driver adopts nothing.
	adopt bool

	mu    sync.Mutex
	byRef map[int64]any
	refOf map[any]int64 // comparable objects
	next  int64
}

// NewCodec returns a Codec for the driver's side (adopt false) or the
// peer's (adopt true).
func NewCodec(adopt bool) *Codec {
	return &Codec{adopt: adopt, byRef: map[int64]any{}, refOf: map[any]int64{}}
}

// EncodeObject returns the wire form of a caller's object; nil stays nil.
func (c *Codec) EncodeObject(obj any) *Object {
	if obj == nil {
		return nil
	}
	if o, ok := obj.(*Opaque); ok {
		w := o.Object
		return &w
	}
	w := objectValue(obj)
	if c == nil {
		return w
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	comparable := reflect.TypeOf(obj).Comparable()
	if comparable {
		if ref, ok := c.refOf[obj]; ok {
			w.Ref = ref
			return w
		}
	}
	c.next++
	w.Ref = c.next
	c.byRef[w.Ref] = obj
	if comparable {
		c.refOf[obj] = w.Ref
	}
	return w
}

// objectValue is an object's type and value, without a ref. A value
// json cannot encode travels as null.
func objectValue(obj any) *Object {
	if n, ok := obj.(*schedqtest.Node); ok && n != nil {
		b, _ := json.Marshal(wireNode{Name: n.Name, Labels: n.Labels})
		return &Object{Type: "node", Value: b}
	}
	b, err := json.Marshal(obj)
	if err != nil {
		b = []byte("null")
	}
	return &Object{Type: fmt.Sprintf("%T", obj), Value: b}
}

// DecodeObject returns the Go value of a wire object: the object that was
// sent with w's ref if w still carries its type and value, else (a peer
// that changed it, or invented it) a new value that equals nothing sent.
func (c *Codec) DecodeObject(w *Object) any {
	if w == nil {
		return nil
	}
	if c != nil {
		c.mu.Lock()
		defer c.mu.Unlock()
		if obj, ok := c.byRef[w.Ref]; ok && w.Ref != 0 {
			if sameValue(objectValue(obj), w) {
				return obj
			}
			return &Opaque{*w}
		}
	}
	var obj any = &Opaque{*w}
	if w.Type == "node" && c != nil && c.adopt {
		var n wireNode
		if json.Unmarshal(w.Value, &n) == nil {
			obj = &schedqtest.Node{Name: n.Name, Labels: n.Labels}
		}
	}
	if c != nil && c.adopt && w.Ref != 0 {
		c.byRef[w.Ref] = obj
		c.refOf[obj] = w.Ref
	}
	return obj
}

// sameValue compares two objects' type and value as JSON values (a peer
// may space or order its JSON differently).
func sameValue(a, b *Object) bool {
	if a.Type != b.Type {
		return false
	}
	if bytes.Equal(a.Value, b.Value) {
		return true
	}
	var va, vb any
	return json.Unmarshal(a.Value, &va) == nil && json.Unmarshal(b.Value, &vb) == nil && reflect.DeepEqual(va, vb)
}
