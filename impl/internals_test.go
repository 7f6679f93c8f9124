package impl

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/schedq/schedq/spec"
)

// The heap and the indexes are internal, but their failure modes (a stale
// slot taken for live, a wrapped seq, a sweep that loses an entry) need
// sequences the queue-level suites reach rarely: these tests drive them
// directly against plain reference structures.

var heapBase = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// refItem is the reference's view of a live pod in the heap.
type refItem struct {
	e     *entry
	rank  int32
	t     time.Time // the exact time behind at
	order int       // push order: ties keep it, across renumbering too
}

func refCmp(a, b refItem) int {
	return cmp.Or(cmp.Compare(a.rank, b.rank), a.t.Compare(b.t), cmp.Compare(a.order, b.order))
}

// TestHeapAgainstReference pushes, pops and drops at random, with entries
// recycled as the queue recycles them, keys that tie and keys that
// saturate, and seq starting just below its wrap, and checks every popMin
// and len against a sorted reference.
func TestHeapAgainstReference(t *testing.T) {
	for seed := range uint64(40) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 7))
			h := &podHeap{where: inActiveQ, timeOf: func(e *entry) time.Time { return e.info.Timestamp }}
			// Wrap seq within the run: renumber must keep the order.
			h.seq = math.MaxUint32 - uint32(r.IntN(300))
			saturating := seed%4 == 0
			var free []*entry
			var ref []refItem
			order := 0
			for step := range 3000 {
				switch op := r.IntN(10); {
				case op < 5 || len(ref) == 0: // push
					var e *entry
					if n := len(free); n > 0 && r.IntN(2) == 0 {
						e, free = free[n-1], free[:n-1]
					} else {
						e = new(entry)
					}
					rank := int32(r.IntN(4)) - 2
					d := time.Duration(r.IntN(20))
					at := int64(d)
					ts := heapBase.Add(d)
					if saturating && r.IntN(3) == 0 {
						// ~300 years on: the key saturates, the time does not.
						ts = heapBase.Add(math.MaxInt64).Add(time.Duration(r.IntN(5)) * time.Hour)
						at = math.MaxInt64
					}
					e.info.Timestamp = ts
					h.push(e, rank, at)
					order++
					ref = append(ref, refItem{e, rank, ts, order})
				case op < 8: // popMin
					slices.SortFunc(ref, refCmp)
					want := ref[0]
					ref = ref[1:]
					if got := h.popMin(); got != want.e {
						t.Fatalf("step %d: popMin = %p (%v), want %p (rank %d, %v, #%d)",
							step, got, got.info.Timestamp, want.e, want.rank, want.t, want.order)
					}
					if want.e.loc != nowhere {
						t.Fatalf("step %d: a popped entry is still in %v", step, want.e.loc)
					}
					*want.e = entry{}
					free = append(free, want.e)
				default: // drop a random live entry
					i := r.IntN(len(ref))
					it := ref[i]
					ref = slices.Delete(ref, i, i+1)
					h.drop(it.e)
					*it.e = entry{}
					free = append(free, it.e)
				}
				if h.len() != len(ref) {
					t.Fatalf("step %d: len = %d, want %d", step, h.len(), len(ref))
				}
				if stale := len(h.s) - h.live; h.nSaturated == 0 && stale > compactAt && stale > h.live {
					t.Fatalf("step %d: %d stale slots for %d live were not compacted", step, stale, h.live)
				}
			}
			if h.seq > math.MaxUint32-300 {
				t.Fatalf("seq %d never wrapped: renumber was not exercised", h.seq)
			}
		})
	}
}

// TestIndexAgainstMap inserts, finds and removes at random, through several
// rehashes, and checks the indexes against Go maps, and that every entry's
// keySlot and uidSlot name its slots. probed is a UID index that records no
// slots, so that remove finds entries by probing (as it does in tables too
// large for a slotRef).
func TestIndexAgainstMap(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	keys := podIndex{slots: true}
	uids := podIndex{byUID: true, slots: true}
	probed := podIndex{byUID: true}
	byKey := map[string]*entry{}
	byUID := map[spec.UID]*entry{}
	for step := range 20000 {
		// Few names over many namespaces, and the reverse: probes collide.
		ns := fmt.Sprintf("ns-%d", r.IntN(40))
		name := fmt.Sprintf("p-%d", r.IntN(60))
		k := ns + "/" + name
		e := keys.findKey(keyHash(ns, name), ns, name)
		if e != byKey[k] {
			t.Fatalf("step %d: findKey(%s) = %p, want %p", step, k, e, byKey[k])
		}
		if e == nil {
			p := &spec.Pod{Namespace: ns, Name: name, UID: spec.UID(fmt.Sprintf("u-%d", step))}
			e = &entry{info: podInfo{Pod: p}}
			h := hashesOf(p)
			keys.insert(h.key, e)
			uids.insert(h.uid, e)
			probed.insert(h.uid, e)
			byKey[k], byUID[p.UID] = e, e
		} else if r.IntN(3) > 0 {
			keys.remove(e)
			if got := uids.findUID(uidHash(e.info.Pod.UID), e.info.Pod.UID); got != e {
				t.Fatalf("step %d: findUID(%s) = %p, want %p", step, e.info.Pod.UID, got, e)
			}
			uids.remove(e)
			probed.remove(e)
			delete(byKey, k)
			delete(byUID, e.info.Pod.UID)
		}
		if keys.n != len(byKey) || uids.n != len(byUID) || probed.n != len(byUID) {
			t.Fatalf("step %d: sizes %d, %d, %d, want %d", step, keys.n, uids.n, probed.n, len(byKey))
		}
		if step%500 == 0 {
			for name, x := range map[string]*podIndex{"keys": &keys, "uids": &uids, "probed": &probed} {
				held := x.check(name, func(format string, args ...any) { t.Fatalf("step %d: "+format, append([]any{step}, args...)...) })
				if len(held) != x.n {
					t.Fatalf("step %d: %s holds %d entries, counts %d", step, name, len(held), x.n)
				}
			}
			for bi := range keys.blocks {
				for j, e := range keys.blocks[bi].ents {
					if i := bi*slotsPerBlock + j; e != nil && e.keySlot.get() != i {
						t.Fatalf("step %d: entry in key slot %d records slot %d", step, i, e.keySlot.get())
					}
				}
			}
			for bi := range uids.blocks {
				for j, e := range uids.blocks[bi].ents {
					if i := bi*slotsPerBlock + j; e != nil && e.uidSlot.get() != i {
						t.Fatalf("step %d: entry in UID slot %d records slot %d", step, i, e.uidSlot.get())
					}
				}
			}
			for uid, e := range byUID {
				if got := uids.findUID(uidHash(uid), uid); got != e {
					t.Fatalf("step %d: findUID(%s) = %p, want %p", step, uid, got, e)
				}
				if got := probed.findUID(uidHash(uid), uid); got != e {
					t.Fatalf("step %d: probed findUID(%s) = %p, want %p", step, uid, got, e)
				}
			}
		}
	}
}

// TestInternedPluginSets: equal sets share one copy whatever order and
// duplicates the caller used, the caller's slice is never kept, and past
// the bound sets are still returned, as private copies.
func TestInternedPluginSets(t *testing.T) {
	var ps unschedulablePods
	in := []string{"b", "a", "b"}
	a := ps.intern(in)
	b := ps.intern(spec.NewPluginSet("a", "b"))
	if !slices.Equal(a, spec.PluginSet{"a", "b"}) || &a[0] != &b[0] {
		t.Fatalf("intern = %v and %v, want one shared [a b]", a, b)
	}
	in[0] = "z"
	if !slices.Equal(a, spec.PluginSet{"a", "b"}) {
		t.Fatalf("the caller's slice changed the interned set: %v", a)
	}
	if ps.intern(nil) != nil {
		t.Fatal("intern(nil) is not nil")
	}
	for i := range maxInternedSets + 10 {
		name := fmt.Sprint("p", i)
		s := ps.intern(spec.PluginSet{name})
		if !slices.Equal(s, spec.PluginSet{name}) {
			t.Fatalf("intern(%s) = %v", name, s)
		}
	}
	if len(ps.groups) != maxInternedSets {
		t.Fatalf("%d sets interned, want the bound %d", ps.n, maxInternedSets)
	}
}

// TestMoveByPluginGroups: a move request moves exactly the unschedulable
// pods whose rejecting plugins registered for its event, across interned
// groups and the private group past maxInternedSets, and a second request
// for another event finds the rest.
func TestMoveByPluginGroups(t *testing.T) {
	nodeAdd := spec.ClusterEvent{Resource: spec.ResourceNode, ActionType: spec.Add}
	pvAdd := spec.ClusterEvent{Resource: spec.ResourcePersistentVolume, ActionType: spec.Add}
	cfg := spec.DefaultConfig(spec.PluginEvents{"A": {nodeAdd}, "B": {pvAdd}})
	q, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	const n = maxInternedSets + 200 // the last sets are private copies
	wantA := map[string]bool{}
	for i := range n {
		p := &spec.Pod{Namespace: "ns", Name: fmt.Sprint("p", i), UID: spec.UID(fmt.Sprint("u", i))}
		if err := q.Add(p); err != nil {
			t.Fatal(err)
		}
		info, cycle, err := q.Pop()
		if err != nil {
			t.Fatal(err)
		}
		rejector := []string{"A", "B"}[i%2]
		wantA[p.Name] = rejector == "A"
		// A distinct unregistered plugin per pod: a new set each time.
		info.UnschedulablePlugins = spec.PluginSet{rejector, fmt.Sprint("x", i)}
		if err := q.AddUnschedulableIfNotPresent(info, cycle); err != nil {
			t.Fatal(err)
		}
	}
	if got := len(q.unschedulablePods.private.pods); got == 0 {
		t.Fatal("no pod in the private group: the test does not cover it")
	}
	moved := func(event spec.ClusterEvent, wantMoved func(name string) bool) {
		t.Helper()
		before := q.Snapshot()
		q.MoveAllToActiveOrBackoffQueue(event, nil)
		if err := q.CheckConsistency(); err != nil {
			t.Fatalf("after the %v request: %v", event, err)
		}
		after := q.Snapshot()
		stayed := map[string]bool{}
		for _, p := range after.UnschedulablePods {
			stayed[p.Pod.Name] = true
		}
		for _, p := range before.UnschedulablePods {
			if m := !stayed[p.Pod.Name]; m != wantMoved(p.Pod.Name) {
				t.Fatalf("%v: pod %s moved=%v, want %v", event, p.Pod.Name, m, !m)
			}
		}
	}
	moved(nodeAdd, func(name string) bool { return wantA[name] })
	moved(pvAdd, func(string) bool { return true })
	if l := q.unschedulablePods.len(); l != 0 {
		t.Fatalf("%d pods still unschedulable", l)
	}
}

// TestMoveExaminesOnlyHelpedGroups: a move request calls preCheck only for
// the pods of the groups its event may help, not for every unschedulable
// pod: its cost is proportional to the pods it examines.
func TestMoveExaminesOnlyHelpedGroups(t *testing.T) {
	nodeAdd := spec.ClusterEvent{Resource: spec.ResourceNode, ActionType: spec.Add}
	pvAdd := spec.ClusterEvent{Resource: spec.ResourcePersistentVolume, ActionType: spec.Add}
	q, err := New(spec.DefaultConfig(spec.PluginEvents{"A": {nodeAdd}, "B": {pvAdd}}))
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	for i := range 1000 {
		p := &spec.Pod{Namespace: "ns", Name: fmt.Sprint("p", i), UID: spec.UID(fmt.Sprint("u", i))}
		_ = q.Add(p)
		info, cycle, _ := q.Pop()
		info.UnschedulablePlugins = spec.PluginSet{"B"}
		if i%100 == 0 {
			info.UnschedulablePlugins = spec.PluginSet{"A"}
		}
		if err := q.AddUnschedulableIfNotPresent(info, cycle); err != nil {
			t.Fatal(err)
		}
	}
	examined := 0
	q.MoveAllToActiveOrBackoffQueue(nodeAdd, func(*spec.Pod) bool { examined++; return true })
	if examined != 10 {
		t.Fatalf("the NodeAdd request examined %d pods, want the 10 that A rejected", examined)
	}
}

// TestFillOverwritesEveryField: Pop refills a copy that may hold another
// Pop's values (the pod's previous attempt), so fill must write every
// field of spec.QueuedPodInfo. The stale copy sets them all (checked by
// reflection, so a field added to the type fails here until the literal,
// and fill, have it), and fill must leave exactly full(): with the hint
// fields of an entry that has none, too.
func TestFillOverwritesEveryField(t *testing.T) {
	at := time.Unix(100, 0)
	stale := spec.QueuedPodInfo{
		Pod:                     &spec.Pod{Namespace: "ns", Name: "old", UID: "u-old"},
		Timestamp:               at,
		Attempts:                7,
		UnschedulablePlugins:    spec.NewPluginSet("Old"),
		InitialAttemptTimestamp: at,
		HintFields: spec.HintFields{UnschedulableCount: 1, ConsecutiveErrorsCount: 2,
			PendingPlugins: spec.NewPluginSet("Pending"), GatingPlugin: "Gate", FlushTimestamp: at},
	}
	assertAllSet(t, reflect.ValueOf(stale), "QueuedPodInfo")
	pod := &spec.Pod{Namespace: "ns", Name: "new", UID: "u-new"}
	for _, h := range []*spec.HintFields{nil, {UnschedulableCount: 3}} {
		i := podInfo{Pod: pod, Timestamp: at.Add(time.Second), Attempts: 1, hints: h}
		out := stale
		i.fill(&out)
		if want := i.full(); !reflect.DeepEqual(out, want) {
			t.Errorf("hints %v: fill over a stale copy left %+v, want %+v", h, out, want)
		}
	}
}

// assertAllSet fails for every field of v (a struct, embedded structs
// walked) that holds its zero value.
func assertAllSet(t *testing.T, v reflect.Value, path string) {
	t.Helper()
	for i := range v.NumField() {
		f, name := v.Field(i), path+"."+v.Type().Field(i).Name
		if v.Type().Field(i).Anonymous && f.Kind() == reflect.Struct {
			assertAllSet(t, f, name)
			continue
		}
		if f.IsZero() {
			t.Errorf("the test's stale copy leaves %s zero: set it, and make fill write it", name)
		}
	}
}
