package linearizability

import (
	"fmt"
	"hash/fnv"
	"html"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/schedq/schedq/model"
	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// State is the porcupine state: the model, and a canonical key of its
// state (stateKey) with the key's hash, computed once when the state is
// made. The checker compares and caches states by the key alone: one
// string comparison instead of the model's own Equal, and a hash that
// covers everything the key does (the hints profile's in-flight list and
// per-pod counts included), so states that differ only there do not pile
// up in one bucket of the checker's cache.
type State struct {
	Model *model.Model
	key   string
	hash  uint64
}

// podKeys numbers pods for state keys: equal pods (every field, the
// caller object included: the workload's are comparable values, which
// %#v prints whole) get the same number, looked up once per pointer,
// since the pods of a history are immutable (spec.Queue's contract).
type podKeys struct {
	mu     sync.Mutex
	byPtr  map[*spec.Pod]string
	byText map[string]string
	canon  map[string]*spec.Pod
	objs   map[any]string
}

func (k *podKeys) of(p *spec.Pod) string {
	if p == nil {
		return "-"
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if s, ok := k.byPtr[p]; ok {
		return s
	}
	if k.byPtr == nil {
		k.byPtr, k.byText = map[*spec.Pod]string{}, map[string]string{}
	}
	// %#v prints every field, map keys sorted: equal pods, equal text.
	text := fmt.Sprintf("%#v", *p)
	s, ok := k.byText[text]
	if !ok {
		s = strconv.Itoa(len(k.byText))
		k.byText[text] = s
	}
	k.byPtr[p] = s
	return s
}

// object numbers an event's caller object for state keys. The workload's
// are the pointers of nodeObjects (compared by identity, spec.SameObject),
// so a lookup by the object itself is exact and allocates nothing once
// seen; an object of a type that is not comparable (a hand-made history)
// gets its text.
func (k *podKeys) object(obj any) string {
	if obj == nil {
		return "-"
	}
	if !reflect.TypeOf(obj).Comparable() {
		return fmt.Sprintf("%#v", obj)
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if s, ok := k.objs[obj]; ok {
		return s
	}
	if k.objs == nil {
		k.objs = map[any]string{}
	}
	s := "o" + strconv.Itoa(len(k.objs))
	k.objs[obj] = s
	return s
}

// stateKey is the model's state as text: equal keys, equal states (the
// key holds every field Model.Equal compares, the nominator included). Pods are listed per place in key order, as
// Snapshot sorts them.
func (k *podKeys) stateKey(m *model.Model) string {
	s := m.Snapshot()
	var b strings.Builder
	num := func(v int64) { b.WriteString(strconv.FormatInt(v, 36)); b.WriteByte(',') }
	num(s.Now.UnixNano())
	num(s.SchedulingCycle)
	num(s.MoveRequestCycle)
	if s.Closed {
		b.WriteString("closed,")
	}
	pods := func(place string, ps []spec.QueuedPodInfo) {
		b.WriteString("|" + place + ":")
		for i := range ps {
			p := &ps[i]
			b.WriteString(k.of(p.Pod) + ",")
			num(p.Timestamp.UnixNano())
			num(p.InitialAttemptTimestamp.UnixNano())
			num(int64(p.Attempts))
			b.WriteString(strings.Join(p.UnschedulablePlugins, "+") + ",")
			num(int64(p.UnschedulableCount))
			num(int64(p.ConsecutiveErrorsCount))
			b.WriteString(strings.Join(p.PendingPlugins, "+") + "," + p.GatingPlugin + ",")
			num(p.FlushTimestamp.UnixNano())
			b.WriteByte(';')
		}
	}
	for _, pl := range s.Places() {
		pods(pl.Loc.String(), pl.Pods)
	}
	// The nominator (R18), as stored: per node, the pod objects in
	// nomination order.
	if noms := m.Nominations(); len(noms) > 0 {
		b.WriteString("|nominated:")
		for _, node := range slices.Sorted(maps.Keys(noms)) {
			b.WriteString(node + "=")
			for _, p := range noms[node] {
				b.WriteString(k.of(p) + ",")
			}
			b.WriteByte(';')
		}
	}
	if g := s.PodGroups; g != nil {
		// The podgroups profile: the objects, the entities with their
		// fields, the open cycles and the members waiting outside any
		// entity (spec.PodGroupsState).
		b.WriteString("|groups:")
		for i := range g.PodGroups {
			pg := &g.PodGroups[i]
			b.WriteString(string(pg.Key()) + " " + k.object(pg.Object) + ",")
			num(int64(pg.Priority))
		}
		b.WriteString("|entities:")
		for _, e := range g.Entities {
			b.WriteString(string(e.Group) + " " + e.Place.String() + ",")
			for _, m := range e.Members {
				b.WriteString(string(m) + ",")
			}
			num(e.Timestamp.UnixNano())
			num(int64(e.Attempts))
			num(e.InitialAttemptTimestamp.UnixNano())
			num(e.BackoffExpiry.UnixNano())
			num(int64(e.UnschedulableCount))
			num(int64(e.ConsecutiveErrorsCount))
			b.WriteString(strings.Join(e.PendingPlugins, "+") + "," + e.GatingPlugin + ",")
			num(e.FlushTimestamp.UnixNano())
			b.WriteByte(';')
		}
		b.WriteString("|inCycle:")
		for _, c := range g.InCycle {
			b.WriteString(string(c) + ",")
		}
		pods("pending", g.PendingPodGroupPods)
		pods("incomplete", g.IncompletePodGroupPods)
	}
	b.WriteString("|inflight:")
	for _, e := range s.InFlightEvents {
		if e.IsMarker() {
			b.WriteString("pod " + string(e.UID) + " " + string(e.Key) + ";")
			continue
		}
		fmt.Fprintf(&b, "%#v %s %s %s %s;", e.Event.Event, k.of(e.Event.Old), k.of(e.Event.New),
			k.object(e.Event.OldObject), k.object(e.Event.NewObject))
	}
	return b.String()
}

// intern returns the first pod seen equal to p (every field). The
// executor builds an operation's pods afresh at every step of the search
// (schedqtest.Executor); interned, the states hold pods that the state
// key, which numbers pods by pointer, has seen before.
func (k *podKeys) intern(p *spec.Pod) *spec.Pod {
	if p == nil {
		return nil
	}
	text := fmt.Sprintf("%#v", *p)
	k.mu.Lock()
	defer k.mu.Unlock()
	if c, ok := k.canon[text]; ok {
		return c
	}
	if k.canon == nil {
		k.canon = map[string]*spec.Pod{}
	}
	k.canon[text] = p
	return p
}

// interned is the model taking the pods it is handed interned: the
// methods that keep a pod they are given.
type interned struct {
	*model.Model
	k *podKeys
}

func (q interned) Add(p *spec.Pod) error { return q.Model.Add(q.k.intern(p)) }

func (q interned) Update(o, n *spec.Pod) error { return q.Model.Update(q.k.intern(o), q.k.intern(n)) }

func (q interned) AssignedPodAdded(p *spec.Pod) error {
	return q.Model.AssignedPodAdded(q.k.intern(p))
}

func (q interned) AssignedPodUpdated(o, n *spec.Pod, e spec.ClusterEvent) error {
	return q.Model.AssignedPodUpdated(q.k.intern(o), q.k.intern(n), e)
}

func (k *podKeys) newState(m *model.Model) *State {
	key := k.stateKey(m)
	h := fnv.New64a()
	h.Write([]byte(key))
	return &State{Model: m, key: key, hash: h.Sum64()}
}

// ModelOptions adapt the model to a target's profile.
type ModelOptions struct {
	// SilentNoOps accepts a nil error where the model returns one: the
	// model's error means the operation changed nothing, and a target
	// that reports nothing for such input (conformance.TargetInfo.
	// SilentNoOps) must then have changed nothing either, which the
	// later operations of the history check.
	SilentNoOps bool
}

// Model returns the porcupine model of a queue with config cfg whose clock
// starts at start. Its states are *State.
func Model(cfg spec.Config, start time.Time) porcupine.Model {
	return ModelWith(cfg, start, ModelOptions{})
}

// ModelWith is Model with options.
func ModelWith(cfg spec.Config, start time.Time, opts ModelOptions) porcupine.Model {
	d := describer{start: start}
	keys := &podKeys{}
	return porcupine.Model{
		Init: func() any {
			m, err := model.New(cfg, start)
			if err != nil {
				panic(fmt.Sprintf("linearizability: model.New: %v", err))
			}
			return keys.newState(m)
		},
		Step: func(state, input, output any) (bool, any) {
			st, in, out := state.(*State), input.(Input), output.(Output)
			switch {
			case in.Op.Kind == KindSnapshot:
				// Read-only: the state goes on as it is, without a
				// clone or a new key.
				return apply(st.Model, st.Model, in, out, opts), state
			case in.Op.Kind == schedqtest.KindPop && out.Err == nil && out.Cycle != st.Model.SchedulingCycle()+1:
				// Most tries of a Pop are at the wrong place in the
				// history: its cycle says so before any copying.
				return false, state
			}
			m := st.Model.Clone()
			if !apply(m, interned{m, keys}, in, out, opts) {
				return false, state
			}
			return true, keys.newState(m)
		},
		Equal: func(a, b any) bool {
			x, y := a.(*State), b.(*State)
			return x.hash == y.hash && x.key == y.key
		},
		Hash: func(state any) uint64 { return state.(*State).hash },
		DescribeOperation: func(input, output any) string {
			return d.operation(input.(Input), output.(Output))
		},
		DescribeState: func(state any) string { return d.state(state.(*State).Model) },
		DescribeOperationMetadata: func(info any) string {
			if md, ok := info.(Metadata); ok {
				return d.metadata(md)
			}
			if info == nil {
				return ""
			}
			return html.EscapeString(fmt.Sprint(info))
		},
	}
}

// Metadata rides along with each recorded operation for the visualisation's
// tooltip: who issued it and its full arguments and result.
type Metadata struct {
	Client int
	Seq    int // the operation's index in its client's sequence
	In     Input
	Out    Output
}
