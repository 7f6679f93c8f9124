package impl

import (
	"errors"
	"fmt"
	"strings"

	"github.com/schedq/schedq/spec"
)

// CheckConsistency verifies the queue's internal structures against each
// other and against the pods it holds, and returns every disagreement
// found (nil if none):
//
//   - the key index and the UID index hold the same entries, each once,
//     under the hash of its pod's key (UID), reachable by a lookup, with
//     their counts, control bytes and recorded slots right;
//   - every indexed entry is in exactly one place, and each place holds
//     exactly the indexed entries that say they are there: one live slot
//     per entry in activeQ and backoffQ, with the sort key its pod has now,
//     the heap order kept over every slot, and one position per entry in
//     the group of unschedulablePods of its plugin set;
//   - recycled entries are zero, listed once and indexed nowhere, and the
//     free list is within maxFree; the entry Pop returned last (which Done
//     tries first) is one the indexes hold, never a recycled one;
//   - a queue holding nothing refers to no entry: no index slot, no heap
//     slot (stale ones included), no group position;
//   - moveRequestCycle <= schedulingCycle (I6).
//
// Failures name the structure, the pod (key, UID, place) and what
// disagrees, at most 20 of them.
//
// It takes the queue's lock and walks everything, O(pods + capacity): it
// is meant for tests (run it after every step of a test, or at quiescence
// under concurrency), not for production paths.
func (q *PriorityQueue) CheckConsistency() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	var errs []error
	bad := func(format string, args ...any) {
		if len(errs) < 20 {
			errs = append(errs, fmt.Errorf(format, args...))
		}
	}

	keyed := q.pods.check("key index", bad)
	byUID := q.byUID.check("UID index", bad)
	for e := range keyed {
		if !byUID[e] {
			bad("%s is in the key index but not in the UID index", e.info.Key())
		}
	}
	for e := range byUID {
		if !keyed[e] {
			bad("the UID index holds %s (UID %q), which the key index does not: a leaked UID entry", describe(e), uidOf(e))
		}
	}

	count := map[place]int{}
	for e := range keyed {
		switch e.loc {
		case inActiveQ, inBackoffQ, inUnschedulablePods, inFlight:
			count[e.loc]++
		default:
			if !e.loc.grouped() {
				bad("%s is indexed but in %s", e.info.Key(), e.loc)
			}
		}
	}
	q.activeQ.check(keyed, count[inActiveQ], func(e *entry) (int32, int64) {
		return ^e.info.Pod.Priority, sinceBase(e.info.Timestamp, q.base)
	}, bad)
	q.backoffQ.check(keyed, count[inBackoffQ], func(e *entry) (int32, int64) {
		expiry := q.expiry(e)
		if expiry.IsZero() {
			return 0, 0
		}
		return 1, sinceBase(expiry, q.base)
	}, bad)
	q.unschedulablePods.check(keyed, count[inUnschedulablePods], bad)
	q.checkPopQ(keyed, bad)
	q.p.check(keyed, bad)

	seen := map[*entry]bool{}
	for i, e := range q.free {
		switch {
		case e == nil:
			bad("free list slot %d is nil", i)
		case seen[e]:
			bad("entry %p is twice in the free list", e)
		case keyed[e] || byUID[e]:
			bad("recycled entry %p is still indexed as %s", e, describe(e))
		case !isZero(e):
			bad("recycled entry %p is not zero: %s", e, describe(e))
		}
		seen[e] = true
	}
	// A copy Pop handed out is held by no parked pod.
	for e := range keyed {
		if e.out != nil && e.loc == inUnschedulablePods {
			bad("%s holds the copy Pop handed out but is parked in unschedulablePods", e.info.Key())
		}
	}
	if e := q.lastPopped; e != nil && !keyed[e] {
		bad("lastPopped is entry %p, which no index holds (recycled: Done could match a pod the queue no longer has): %s", e, describe(e))
	}
	if len(q.free) > maxFree {
		bad("free list holds %d entries, more than maxFree %d", len(q.free), maxFree)
	}
	if q.moveRequestCycle < -1 || q.moveRequestCycle > q.schedulingCycle {
		bad("I6: moveRequestCycle %d outside [-1, schedulingCycle %d]", q.moveRequestCycle, q.schedulingCycle)
	}
	return errors.Join(errs...)
}

// checkSlack verifies that every structure is within the slack that shrink
// leaves (see shrink), as it must be right after a backoffQ flush.
func (q *PriorityQueue) checkSlack() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	var errs []error
	if nb, n := len(q.pods.blocks), q.pods.n; nb > minBlocks && n*16 < nb*slotsPerBlock {
		errs = append(errs, fmt.Errorf("key index: %d blocks for %d pods", nb, n))
	}
	if nb, n := len(q.byUID.blocks), q.byUID.n; nb > minBlocks && n*16 < nb*slotsPerBlock {
		errs = append(errs, fmt.Errorf("UID index: %d blocks for %d pods", nb, n))
	}
	for _, h := range []*podHeap{&q.activeQ, &q.backoffQ} {
		if c := cap(h.s); c > minHeapCap && c > 4*len(h.s) {
			errs = append(errs, fmt.Errorf("%s: array of %d slots for %d", h.where, c, len(h.s)))
		}
	}
	for _, g := range append(q.unschedulablePods.groups, &q.unschedulablePods.private) {
		if c := cap(g.pods); c > minGroupCap && c > 4*len(g.pods) {
			errs = append(errs, fmt.Errorf("unschedulablePods group %v: array of %d for %d pods", g.plugins, c, len(g.pods)))
		}
	}
	if keep := max(minFree, q.pods.n/4); len(q.free) > keep {
		errs = append(errs, fmt.Errorf("free list: %d entries for %d pods", len(q.free), q.pods.n))
	}
	return errors.Join(errs...)
}

// isZero reports whether a recycled entry was wiped: no pod, no place, no
// time, no plugins.
func isZero(e *entry) bool {
	return e.info.Pod == nil && e.loc == nowhere && e.pos == 0 && e.keySlot == (slotRef{}) && e.uidSlot == (slotRef{}) &&
		e.info.Timestamp.IsZero() && e.info.InitialAttemptTimestamp.IsZero() &&
		e.info.Attempts == 0 && e.info.UnschedulablePlugins == nil &&
		(e.info.hints == nil || spec.HintFieldsEqual(e.info.hints, &zeroHints))
}

func uidOf(e *entry) string {
	if e.info.Pod == nil {
		return ""
	}
	return string(e.info.Pod.UID)
}

// describe names an entry for a failure message, whatever state it is in.
func describe(e *entry) string {
	if e.info.Pod == nil {
		return fmt.Sprintf("entry %p (no pod, %s)", e, e.loc)
	}
	return fmt.Sprintf("%s (UID %q, %s)", e.info.Key(), e.info.Pod.UID, e.loc)
}

// check verifies the table and returns the entries it holds.
func (x *podIndex) check(name string, bad func(string, ...any)) map[*entry]bool {
	held := map[*entry]bool{}
	if len(x.blocks)&(len(x.blocks)-1) != 0 {
		bad("%s: %d blocks, not a power of two", name, len(x.blocks))
	}
	full, deleted := 0, 0
	for bi := range x.blocks {
		b := &x.blocks[bi]
		if b.ctrl[slotsPerBlock] != ctrlSentinel {
			bad("%s: block %d lost its sentinel", name, bi)
		}
		for j, c := range b.ctrl[:slotsPerBlock] {
			e := b.ents[j]
			switch {
			case c >= ctrlFull:
				full++
				if e == nil {
					bad("%s: full slot %d holds no entry", name, bi*slotsPerBlock+j)
					continue
				}
				if e.info.Pod == nil {
					bad("%s: slot %d holds entry %p with no pod (recycled while indexed)", name, bi*slotsPerBlock+j, e)
					continue
				}
				if held[e] {
					bad("%s: %s is indexed twice", name, describe(e))
				}
				held[e] = true
				if h := x.hashOf(e); tagOf(h) != c {
					bad("%s: slot %d of %s has the tag of another hash (a leaked or stale slot)", name, bi*slotsPerBlock+j, describe(e))
				} else if !x.reachable(h, e) {
					bad("%s: %s is unreachable by lookup", name, describe(e))
				}
				if r := x.slotOf(e).get(); x.slots && r != noSlot && r != bi*slotsPerBlock+j {
					bad("%s: %s records slot %d, is in %d", name, describe(e), r, bi*slotsPerBlock+j)
				}
			case c == ctrlDeleted || c == ctrlEmpty:
				if c == ctrlDeleted {
					deleted++
				}
				if e != nil {
					bad("%s: free slot %d still holds %s", name, bi*slotsPerBlock+j, describe(e))
				}
			default:
				bad("%s: slot %d has control byte %#x", name, bi*slotsPerBlock+j, c)
			}
		}
	}
	if full != x.n || full+deleted != x.used {
		bad("%s: counts n=%d used=%d, but %d full and %d tombstones", name, x.n, x.used, full, deleted)
	}
	if x.used*4 > len(x.blocks)*slotsPerBlock*3 {
		bad("%s: %d of %d slots used, above the 3/4 load", name, x.used, len(x.blocks)*slotsPerBlock)
	}
	return held
}

// reachable reports whether a probe for hash h reaches e before a block
// with an empty slot.
func (x *podIndex) reachable(h uint64, e *entry) bool {
	mask := len(x.blocks) - 1
	for bi, n := int(h)&mask, 0; n < len(x.blocks); bi, n = (bi+1)&mask, n+1 {
		b := &x.blocks[bi]
		for _, o := range b.ents {
			if o == e {
				return true
			}
		}
		if matchByte(b.word(), ctrlEmpty) != 0 {
			return false
		}
	}
	return false
}

// check verifies the heap: the entries that say they are here (want of
// them) each have exactly one live slot, whose key keyOf recomputes, every
// slot keeps the heap order, and the counters agree.
func (h *podHeap) check(keyed map[*entry]bool, want int, keyOf func(*entry) (int32, int64), bad func(string, ...any)) {
	live, saturatedSlots := 0, 0
	slotOf := map[*entry]int{}
	for i := range h.s {
		s := &h.s[i]
		if s.e == nil {
			bad("%s: slot %d has no entry", h.where, i)
			continue
		}
		if saturated(s.at()) {
			saturatedSlots++
		}
		if s.seq() > h.seq {
			bad("%s: slot %d has seq %d beyond the last pushed %d", h.where, i, s.seq(), h.seq)
		}
		if i > 0 {
			if p := (i - 1) / heapArity; h.less(s, &h.s[p]) {
				bad("%s: slot %d is smaller than its parent %d (heap order)", h.where, i, p)
			}
		}
		if !h.isLive(s) {
			continue
		}
		live++
		e := s.e
		if !keyed[e] {
			bad("%s: live slot %d holds %s, which no index holds", h.where, i, describe(e))
		}
		if j, dup := slotOf[e]; dup {
			bad("%s: %s has two live slots, %d and %d", h.where, describe(e), j, i)
		}
		slotOf[e] = i
		if rank, at := keyOf(e); rank != s.rank() || at != s.at() {
			bad("%s: slot %d of %s has key (%d, %d), its pod now (%d, %d)", h.where, i, describe(e), s.rank(), s.at(), rank, at)
		}
	}
	if live != h.live || live != want {
		bad("%s: %d live slots, the heap counts %d, %d indexed pods say they are here%s", h.where, live, h.live, want, h.staleNames())
	}
	if saturatedSlots != h.nSaturated {
		bad("%s: %d saturated slots, nSaturated = %d", h.where, saturatedSlots, h.nSaturated)
	}
	for i, s := range h.s[len(h.s):cap(h.s)] {
		if s.e != nil {
			bad("%s: slot %d past the end still refers to %s", h.where, len(h.s)+i, describe(s.e))
		}
	}
	if h.live == 0 && len(h.s) != 0 {
		bad("%s: empty, yet %d stale slots still refer to entries", h.where, len(h.s))
	}
	for e := range keyed {
		if e.loc == h.where {
			if _, ok := slotOf[e]; !ok {
				bad("%s: %s says it is here but has no live slot", h.where, describe(e))
			}
		}
	}
}

// staleNames names the pods of the heap's stale slots (their pod moved
// on, the slot left for lazy removal): when the live count disagrees,
// the pod the count still counts, or should, is among them. At most 5.
func (h *podHeap) staleNames() string {
	var names []string
	for i := range h.s {
		if s := &h.s[i]; s.e != nil && !h.isLive(s) && len(names) < 5 {
			names = append(names, fmt.Sprintf("slot %d: %s", i, describe(s.e)))
		}
	}
	if len(names) == 0 {
		return ""
	}
	return "; its stale slots hold " + strings.Join(names, ", ")
}

// check verifies the groups: each pod the indexes say is unschedulable
// (want of them) is in the group of its plugin set at its pos, once.
func (u *unschedulablePods) check(keyed map[*entry]bool, want int, bad func(string, ...any)) {
	n := 0
	seen := map[*entry]bool{}
	groups := append(append([]*podGroup(nil), u.groups...), &u.private)
	for _, g := range groups {
		if g != &u.private {
			if len(g.plugins) == 0 || u.byData[&g.plugins[0]] != g {
				bad("unschedulablePods: group %v is not found by its plugin set", g.plugins)
			}
		}
		for i, e := range g.pods {
			n++
			switch {
			case e == nil:
				bad("unschedulablePods: group %v slot %d is nil", g.plugins, i)
				continue
			case seen[e]:
				bad("unschedulablePods: %s is in two groups or twice in one", describe(e))
			case !keyed[e]:
				bad("unschedulablePods: %s is in group %v but in no index", describe(e), g.plugins)
			case e.loc != inUnschedulablePods:
				bad("unschedulablePods: group %v holds %s", g.plugins, describe(e))
			case e.pos != uint32(i):
				bad("unschedulablePods: %s is at %d of group %v, records %d", describe(e), i, g.plugins, e.pos)
			case u.groupOfEntry(e) != g:
				bad("unschedulablePods: %s (plugins %v) is in the group of %v", describe(e), e.info.UnschedulablePlugins, g.plugins)
			}
			seen[e] = true
		}
		for i, e := range g.pods[len(g.pods):cap(g.pods)] {
			if e != nil {
				bad("unschedulablePods: group %v keeps %s past its end (%d)", g.plugins, describe(e), len(g.pods)+i)
			}
		}
	}
	if n != u.n || n != want {
		bad("unschedulablePods: %d pods in groups, counted %d, %d indexed pods say they are here", n, u.n, want)
	}
	if len(u.groups) > maxInternedSets {
		bad("unschedulablePods: %d interned sets, more than %d", len(u.groups), maxInternedSets)
	}
}
