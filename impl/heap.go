package impl

import (
	"math"
	"time"
)

// slot is one element of a podHeap. The sort keys live in the slot itself,
// not behind the entry pointer, so sifting compares neighbouring memory and
// only dereferences an entry to record its new index.
//
// The same layout serves both heaps:
//
//	activeQ:  rank = -priority,                   at = Timestamp - base
//	backoffQ: rank = -1 if no backoff (Attempts 0), else 0;
//	          at = backoff expiry - base
//
// and seq, the arrival sequence of the pod in that queue, breaks the ties
// that spec.Less leaves open, so Pop is deterministic.
type slot struct {
	rank int64
	at   int64 // nanoseconds since the queue's base time, saturating (see sinceBase)
	seq  uint64
	e    *entry
}

// sinceBase turns a clock reading into a heap key. time.Time.Sub uses the
// monotonic reading when both times carry one (the real clock) and the wall
// time otherwise (fake clocks), exactly like time.Time.Before does, so the
// key orders times the way spec.Less and spec.Config.IsBackingOff compare
// them. Sub saturates ±292 years away from base; less falls back to the
// times themselves for saturated keys.
func sinceBase(t, base time.Time) int64 { return int64(t.Sub(base)) }

// less orders slots: rank, then time, then arrival.
func (a *slot) less(b *slot) bool {
	if a.rank != b.rank {
		return a.rank < b.rank
	}
	if a.at != b.at {
		return a.at < b.at
	}
	if a.at == math.MinInt64 || a.at == math.MaxInt64 {
		// Both keys saturated: they may stand for different times.
		if ta, tb := a.e.heapTime(), b.e.heapTime(); !ta.Equal(tb) {
			return ta.Before(tb)
		}
	}
	return a.seq < b.seq
}

// podHeap is an indexed 4-ary min-heap of slots: each entry knows its index
// (entry.idx), so a pod can be removed or re-sorted in O(log n) when it is
// deleted, updated or activated. Four children per node halve the depth of
// a binary heap, and the four children sit in one or two cache lines, which
// pays off on Pop, the operation that walks the whole depth.
type podHeap struct {
	s []slot
}

const heapArity = 4

func (h *podHeap) len() int { return len(h.s) }

// min returns the smallest entry; the heap must not be empty.
func (h *podHeap) min() *entry { return h.s[0].e }

// push adds a slot.
func (h *podHeap) push(x slot) {
	h.s = append(h.s, x)
	h.up(len(h.s) - 1)
}

// popMin removes and returns the smallest entry; the heap must not be empty.
func (h *podHeap) popMin() *entry {
	e := h.s[0].e
	h.remove(0)
	return e
}

// remove deletes the slot at index i.
func (h *podHeap) remove(i int) {
	last := len(h.s) - 1
	if i != last {
		h.s[i] = h.s[last]
		h.s[i].e.idx = i
	}
	h.s[last] = slot{} // drop the pointer so a removed pod can be collected
	h.s = h.s[:last]
	if i != last {
		h.fix(i)
	}
}

// fix restores the heap after the keys of slot i changed.
func (h *podHeap) fix(i int) {
	if !h.up(i) {
		h.down(i)
	}
}

// up sifts slot i towards the root and reports whether it moved. It moves
// a hole rather than swapping, so each level costs one copy.
func (h *podHeap) up(i int) bool {
	s := h.s
	x := s[i]
	start := i
	for i > 0 {
		p := (i - 1) / heapArity
		if !x.less(&s[p]) {
			break
		}
		s[i] = s[p]
		s[i].e.idx = i
		i = p
	}
	s[i] = x
	x.e.idx = i
	return i != start
}

// down sifts slot i towards the leaves.
func (h *podHeap) down(i int) {
	s := h.s
	n := len(s)
	x := s[i]
	for {
		c := heapArity*i + 1
		if c >= n {
			break
		}
		m := c
		end := min(c+heapArity, n)
		for j := c + 1; j < end; j++ {
			if s[j].less(&s[m]) {
				m = j
			}
		}
		if !s[m].less(&x) {
			break
		}
		s[i] = s[m]
		s[i].e.idx = i
		i = m
	}
	s[i] = x
	x.e.idx = i
}
