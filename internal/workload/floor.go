package workload

import (
	"testing"
	"time"

	"github.com/schedq/schedq/spec"
)

// Floor is the floor of AddPop: a bare binary heap of pointers, ordered
// as activeQ is (higher priority first, then the earlier timestamp, then
// arrival), with nothing else a queue has: no index by key or UID, no
// lock, no states, no copy for the caller. Its ns/pod is what an Add, a
// Pop and a Done cost at the least with pods at random places in memory,
// and AddPop runs it first at every size, so that a queue's figure can be
// read as a multiple of it (the "× floor" column of make bench-compare).
// It serves AddPop only: its Fail, MoveAll and FlushBackoffQ panic.
func Floor() Subject { return Of("floor", floorTarget) }

var floorTarget = Target[*spec.Pod, *floorEntry]{
	New:      func(testing.TB) Queue[*spec.Pod, *floorEntry] { return &floorHeap{clock: Start} },
	Pod:      SchedqTarget.Pod,
	Priority: SchedqTarget.Priority,
	PodOf:    func(e *floorEntry) *spec.Pod { return e.pod },
}

// floorEntry is what the heap holds a pointer to: the pod and the keys
// of the comparison, copied from it at Add as a queue's entry holds them.
// Entries are recycled by Done, so the steady state allocates nothing.
type floorEntry struct {
	priority  int32
	timestamp int64 // Unix nanoseconds
	arrival   uint64
	pod       *spec.Pod
}

type floorHeap struct {
	heap    []*floorEntry
	free    []*floorEntry
	clock   time.Time
	arrival uint64
}

// less is activeQ's order, read through the two pointers.
func less(a, b *floorEntry) bool {
	if a.priority != b.priority {
		return a.priority > b.priority
	}
	if a.timestamp != b.timestamp {
		return a.timestamp < b.timestamp
	}
	return a.arrival < b.arrival
}

func (h *floorHeap) Add(p *spec.Pod) {
	var e *floorEntry
	if n := len(h.free); n > 0 {
		e, h.free = h.free[n-1], h.free[:n-1]
	} else {
		e = new(floorEntry)
	}
	h.arrival++
	*e = floorEntry{priority: p.Priority, timestamp: h.clock.UnixNano(), arrival: h.arrival, pod: p}
	h.heap = append(h.heap, e)
	for i := len(h.heap) - 1; i > 0; {
		parent := (i - 1) / 2
		if !less(h.heap[i], h.heap[parent]) {
			break
		}
		h.heap[i], h.heap[parent] = h.heap[parent], h.heap[i]
		i = parent
	}
}

func (h *floorHeap) Pop() (*floorEntry, int64) {
	n := len(h.heap) - 1
	if n < 0 {
		panic("floor: Pop of an empty heap")
	}
	top := h.heap[0]
	h.heap[0] = h.heap[n]
	h.heap[n] = nil
	h.heap = h.heap[:n]
	for i := 0; ; {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && less(h.heap[c+1], h.heap[c]) {
			c++
		}
		if !less(h.heap[c], h.heap[i]) {
			break
		}
		h.heap[i], h.heap[c] = h.heap[c], h.heap[i]
		i = c
	}
	return top, 0
}

func (h *floorHeap) Done(e *floorEntry) {
	e.pod = nil
	h.free = append(h.free, e)
}

func (h *floorHeap) Fail(*floorEntry, int64, bool) { panic("floor: AddPop only") }
func (h *floorHeap) MoveAll(func(*spec.Pod) bool)  { panic("floor: AddPop only") }
func (h *floorHeap) FlushBackoffQ()                { panic("floor: AddPop only") }
func (h *floorHeap) Step(d time.Duration)          { h.clock = h.clock.Add(d) }
func (h *floorHeap) Close()                        {}
