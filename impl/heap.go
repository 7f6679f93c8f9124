package impl

import (
	"math"
	"math/bits"
	"slices"
	"time"
)

// slot is one element of a podHeap: 24 bytes. The sort key lives in the slot
// itself, not behind the entry pointer, so sifting compares neighbouring
// memory and never dereferences an entry.
//
// The key is (rank, at, seq), compared in that order:
//
//	activeQ:  rank = ^priority (higher priority first, no overflow),
//	          at = Timestamp - base
//	backoffQ: rank = 0 if no backoff (Attempts 0), else 1;
//	          at = backoff expiry - base
//
// and seq, the order in which pods entered the heap, breaks the ties that
// spec.Less leaves open, so Pop is deterministic. seq also tells whether the
// slot is still live (see podHeap).
//
// The three fields are stored as one unsigned 128-bit number hi:lo (each
// field's sign bit flipped, so unsigned order is signed order): rank in the
// top 32 bits, at in the middle 64, seq in the low 32. Comparing two keys is
// then one subtraction with borrow, without branches, which lets the 4-way
// minimum of a sift compile to conditional moves: on random priorities the
// branches of a field-by-field comparison are coin flips the CPU
// mispredicts.
type slot struct {
	hi, lo uint64
	e      *entry
}

func makeSlot(rank int32, at int64, seq uint32, e *entry) slot {
	uat := uint64(at) ^ 1<<63
	return slot{
		hi: uint64(uint32(rank)^1<<31)<<32 | uat>>32,
		lo: uat<<32 | uint64(seq),
		e:  e,
	}
}

func (s *slot) rank() int32 { return int32(uint32(s.hi>>32) ^ 1<<31) }

// at is nanoseconds since the queue's base time, saturating (see sinceBase).
func (s *slot) at() int64 { return int64((s.hi<<32 | s.lo>>32) ^ 1<<63) }

func (s *slot) seq() uint32 { return uint32(s.lo) }

func (s *slot) setSeq(seq uint32) { s.lo = s.lo&^math.MaxUint32 | uint64(seq) }

// sinceBase turns a clock reading into a heap key. time.Time.Sub uses the
// monotonic reading when both times carry one (the real clock) and the wall
// time otherwise (fake clocks), exactly like time.Time.Before does, so the
// key orders times the way spec.Less and spec.Config.IsBackingOff compare
// them. Sub saturates ±292 years away from base; less falls back to the
// times themselves for saturated keys.
func sinceBase(t, base time.Time) int64 { return int64(t.Sub(base)) }

func saturated(at int64) bool { return at == math.MinInt64 || at == math.MaxInt64 }

// podHeap is a 4-ary min-heap of slots with lazy deletion. A pod that
// leaves the heap other than by popMin (Delete, Update, Activate, a fresh
// Add of a parked pod) is not searched for: its entry moves on, and its
// slot, which no longer matches the entry (entry.loc and entry.pos), is
// stale and discarded when it reaches the top. So the heap never needs to
// know where an entry's slot is, and sifting writes to the slot array only,
// never to the entries: at 100k pods that halves the cache misses of Pop.
// Stale slots are compacted away once they outnumber the live ones (and
// at once while any key is saturated, see nSaturated).
//
// Four children per node halve the depth of a binary heap, and the four
// children of a node share one or two cache lines, which pays off on Pop,
// the operation that walks the whole depth.
type podHeap struct {
	s    []slot
	live int
	// seq numbers the slots pushed; the last one pushed has seq. It never
	// wraps: renumber starts again from the live slots before it would.
	seq uint32
	// where is the place this heap is: a slot is live iff its entry is in
	// that place with pos equal to the slot's seq.
	where place
	// timeOf is the exact time behind a slot's at, for saturated keys.
	timeOf func(*entry) time.Time
	// nSaturated counts the slots with saturated keys (live or stale).
	// While there is one, stale slots are removed at once: the exact time
	// of a stale slot's entry is no longer its own once the entry moves on.
	nSaturated int
	// peak is the most slots held since the last flush, low how long the
	// array has been oversized (see shrink).
	peak int
	low  slackTimer
	// touched keeps the prefetching loads of removeTop alive.
	touched uint64
}

const heapArity = 4

// compactAt: compact when there are more stale slots than this and than live
// ones, so compaction costs O(1) amortised per stale slot.
const compactAt = 64

// len is the number of live slots: the pods in this place.
func (h *podHeap) len() int { return h.live }

func (h *podHeap) isLive(s *slot) bool { return s.e.loc == h.where && s.e.pos == s.seq() }

// less orders slots: rank, then time, then arrival.
func (h *podHeap) less(a, b *slot) bool {
	if h.nSaturated == 0 {
		return lessUnsaturated(a, b)
	}
	if ra, rb := a.rank(), b.rank(); ra != rb {
		return ra < rb
	}
	if ta, tb := a.at(), b.at(); ta != tb {
		return ta < tb
	} else if saturated(ta) {
		return h.saturatedLess(a, b)
	}
	return a.seq() < b.seq()
}

// lessUnsaturated is less for slots whose keys are not saturated (or not
// both equal and saturated), the only kind but ±292 years from base: the
// key as a 128-bit number. Inlined, it is what the sifts compare with.
func lessUnsaturated(a, b *slot) bool { return lessBit(a, b) != 0 }

// lessBit is lessUnsaturated as 1 or 0, the borrow of a-b.
func lessBit(a, b *slot) uint64 {
	_, borrow := bits.Sub64(a.lo, b.lo, 0)
	_, borrow = bits.Sub64(a.hi, b.hi, borrow)
	return borrow
}

// minChild returns the index of the smallest of the children of a node,
// which start at c and end before end, for unsaturated keys. The index is
// selected arithmetically, not by branching (see slot).
func minChild(s []slot, c, end int) int {
	m := c
	for j := c + 1; j < end; j++ {
		m += (j - m) & -int(lessBit(&s[j], &s[m]))
	}
	return m
}

// saturatedLess is less for two slots whose keys both saturated: they may
// stand for different times.
func (h *podHeap) saturatedLess(a, b *slot) bool {
	if ta, tb := h.timeOf(a.e), h.timeOf(b.e); !ta.Equal(tb) {
		return ta.Before(tb)
	}
	return a.seq() < b.seq()
}

// push puts entry e, which is nowhere, into this heap with the given keys.
func (h *podHeap) push(e *entry, rank int32, at int64) {
	if h.seq == math.MaxUint32 {
		h.renumber()
	}
	h.seq++
	e.loc, e.pos = h.where, h.seq
	if saturated(at) {
		h.nSaturated++
	}
	if n := len(h.s); n == cap(h.s) {
		// append's growth: double while small, then by a quarter.
		if n < 256 {
			n = max(2*n, 8)
		} else {
			n += (n + 3*256) / 4
		}
		h.s = alignedSlots(h.s, n)
	}
	h.s = append(h.s, makeSlot(rank, at, h.seq, e))
	h.peak = max(h.peak, len(h.s))
	h.up(len(h.s) - 1)
	h.live++
}

// min returns the smallest live entry; the heap must have one.
func (h *podHeap) min() *entry {
	for !h.isLive(&h.s[0]) {
		h.removeTop()
	}
	return h.s[0].e
}

// popMin removes and returns the smallest live entry, which the caller
// then moves elsewhere; the heap must have one.
func (h *podHeap) popMin() *entry {
	e := h.min()
	h.removeTop()
	h.live--
	e.loc = nowhere
	h.afterRemove(false)
	return e
}

// afterRemove runs after a live slot left: an empty heap drops its stale
// slots at once (there are at most compactAt of them), so that a queue
// holding nothing refers to no entry; otherwise stale slots are compacted
// away once they outnumber the live ones, and after a drop (which leaves a
// stale slot) at once while a key is saturated (see nSaturated).
func (h *podHeap) afterRemove(dropped bool) {
	if h.live == 0 {
		clear(h.s)
		h.s = h.s[:0]
		h.nSaturated = 0
		return
	}
	if stale := len(h.s) - h.live; dropped && h.nSaturated > 0 || stale > compactAt && stale > h.live {
		h.compact()
	}
}

// minHeapCap is the capacity below which shrink leaves a heap's array
// alone: 256 slots, 6 KiB.
const minHeapCap = 256

// shrink is the heap's part of shrinking (see slack.go), at a flush at
// now: an array of more than minHeapCap slots whose peak use since the
// previous flush has stayed under a quarter of it for shrinkAfter is
// reallocated at twice its length (nil if empty). So a heap keeps at most
// 4 slots (24 bytes each) per slot in use, or minHeapCap, once it has been
// this small for shrinkAfter.
func (h *podHeap) shrink(now time.Time) {
	used := h.peak
	h.peak = len(h.s)
	if c := cap(h.s); !h.low.due(now, c > minHeapCap && c > 4*used) {
		return
	}
	h.low = slackTimer{}
	if len(h.s) == 0 {
		h.s = nil
		return
	}
	h.s = alignedSlots(h.s, 2*len(h.s))
}

// alignedSlots returns a copy of s with capacity c, placed so that the
// children of every node share two cache lines. A node's four children
// (96 bytes, at 4i+1..4i+4) start at a multiple of 32 bytes if slot 0 sits
// 72 bytes past a 64-byte boundary: three slots of padding in front, where
// Go places an array of 32 KiB or more at a page boundary. Without the
// padding one group in two straddles three lines, and Pop at 100k pods
// walks eight levels of them.
func alignedSlots(s []slot, c int) []slot {
	const pad = 3
	a := make([]slot, pad+len(s), pad+c)[pad:]
	copy(a, s)
	return a
}

// drop takes e, which is in this heap, out of it: its slot turns stale.
func (h *podHeap) drop(e *entry) {
	e.loc = nowhere
	h.live--
	h.afterRemove(true)
}

// removeTop deletes the slot at the root.
func (h *podHeap) removeTop() {
	last := len(h.s) - 1
	if saturated(h.s[0].at()) {
		h.nSaturated--
	}
	x := h.s[last]
	h.s[last] = slot{} // drop the pointer so a removed pod can be collected
	h.s = h.s[:last]
	if last == 0 {
		return
	}
	if h.nSaturated > 0 {
		h.s[0] = x
		h.downAny(0)
		return
	}
	// The last slot, which replaces the root, is usually among the
	// largest and sinks back near the leaves. So move the hole at the root
	// down to a leaf along the smaller children first, comparing children
	// only, then sift x up from there: one comparison fewer per level
	// than sifting x down (Floyd).
	s := h.s
	n := len(s)
	i := 0
	// The hole's next children are among its grandchildren: touching the
	// first slot of each of their four groups while comparing the
	// children loads the next level's lines in parallel with this one's,
	// instead of one level after the other (Go has no prefetch
	// instruction; a load whose value is kept does the same).
	var touched uint64
	for {
		c := heapArity*i + 1
		if c >= n {
			break
		}
		if g := heapArity*c + 1; g+3*heapArity < n {
			touched ^= s[g].lo ^ s[g+heapArity].lo ^ s[g+2*heapArity].lo ^ s[g+3*heapArity].lo
		}
		m := minChild(s, c, min(c+heapArity, n))
		s[i] = s[m]
		i = m
	}
	for i > 0 {
		p := (i - 1) / heapArity
		if !lessUnsaturated(&x, &s[p]) {
			break
		}
		s[i] = s[p]
		i = p
	}
	s[i] = x
	// The next Pop starts with the entry now at the top: load it while
	// this Pop's caller goes on.
	touched ^= uint64(s[0].e.pos)
	h.touched = touched
}

// compact removes every stale slot and restores the heap in O(n).
func (h *podHeap) compact() {
	live := h.s[:0]
	h.nSaturated = 0
	for _, s := range h.s {
		if h.isLive(&s) {
			live = append(live, s)
			if saturated(s.at()) {
				h.nSaturated++
			}
		}
	}
	clear(h.s[len(live):])
	h.s = live
	if len(h.s) < 2 {
		return
	}
	for i := (len(h.s) - 2) / heapArity; i >= 0; i-- {
		h.down(i)
	}
}

// renumber gives the live slots the seqs 1..live in their heap order, so
// that seq can go on growing without wrapping and ties keep their order. A
// sorted array is a heap. It runs once per 2^32 pushes.
func (h *podHeap) renumber() {
	h.compact()
	slices.SortFunc(h.s, func(a, b slot) int {
		if h.less(&a, &b) {
			return -1
		}
		if h.less(&b, &a) {
			return 1
		}
		return 0
	})
	for i := range h.s {
		h.s[i].setSeq(uint32(i + 1))
		h.s[i].e.pos = uint32(i + 1)
	}
	h.seq = uint32(len(h.s))
}

// up sifts slot i towards the root. It moves a hole rather than swapping,
// so each level costs one copy.
func (h *podHeap) up(i int) {
	if h.nSaturated > 0 {
		h.upAny(i)
		return
	}
	s := h.s
	x := s[i]
	for i > 0 {
		p := (i - 1) / heapArity
		if !lessUnsaturated(&x, &s[p]) {
			break
		}
		s[i] = s[p]
		i = p
	}
	s[i] = x
}

// down sifts slot i towards the leaves.
func (h *podHeap) down(i int) {
	if h.nSaturated > 0 {
		h.downAny(i)
		return
	}
	s := h.s
	n := len(s)
	x := s[i]
	for {
		c := heapArity*i + 1
		if c >= n {
			break
		}
		m := minChild(s, c, min(c+heapArity, n))
		if !lessUnsaturated(&s[m], &x) {
			break
		}
		s[i] = s[m]
		i = m
	}
	s[i] = x
}

// upAny and downAny are up and down with less, for heaps with saturated
// keys.
func (h *podHeap) upAny(i int) {
	s := h.s
	x := s[i]
	for i > 0 {
		p := (i - 1) / heapArity
		if !h.less(&x, &s[p]) {
			break
		}
		s[i] = s[p]
		i = p
	}
	s[i] = x
}

func (h *podHeap) downAny(i int) {
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
			if h.less(&s[j], &s[m]) {
				m = j
			}
		}
		if !h.less(&s[m], &x) {
			break
		}
		s[i] = s[m]
		i = m
	}
	s[i] = x
}
