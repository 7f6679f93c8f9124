package impl

import "time"

// Shrinking. Go slices and the indexes' tables only grow: without care, a
// queue keeps the room of the largest burst it ever held for the rest of
// its life (57 MiB after a million pods had come and gone). So each
// structure gives its room back once it has been oversized for a while:
//
//   - when: a structure whose peak use has stayed below a quarter of its
//     room (a sixteenth for the indexes) for shrinkAfter of the queue's
//     clock. The check runs with every backoffQ flush (every
//     BackoffQFlushPeriod after Run), never on Add, Pop or Done, and looks
//     at the peak since the previous flush, so a structure that fills and
//     drains between flushes, or from one flush to the next, is not
//     oversized: a steady load never pays a rehash or a reallocation.
//   - to what: the room the current content needs, with the slack each
//     structure documents (podIndex.shrink, podHeap.shrink,
//     podGroup.shrink, PriorityQueue.shrink for the free list), each with
//     a small floor.
//
// So after a burst has drained, a running queue holds its peak memory for
// at most shrinkAfter plus two flush periods, then what its pods need. Entries
// are not part of this: a drained queue refers to none (the indexes and
// heaps drop their pointers as pods leave, CheckConsistency checks it), and
// recycled ones past the free list go to a sync.Pool the garbage collector
// empties.
const shrinkAfter = time.Minute

// slackTimer tracks how long a structure has been oversized, from flush to
// flush.
type slackTimer struct {
	since time.Time
	on    bool
}

// due reports, at a flush at now, whether a structure that is (oversized)
// or is not oversized over the period since the previous flush has been
// oversized for shrinkAfter.
func (s *slackTimer) due(now time.Time, oversized bool) bool {
	if !oversized {
		s.on = false
		return false
	}
	if !s.on {
		s.on, s.since = true, now
		return false
	}
	return now.Sub(s.since) >= shrinkAfter
}
