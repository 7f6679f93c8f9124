package impl

import (
	"fmt"
	"slices"

	"github.com/schedq/schedq/spec"
)

// entry is one pod held by the queue. Its key is its pod's: the queue
// key of an entry never changes (Update keeps it).
type entry struct {
	info podInfo
	// pos is the entry's place in the structure loc names: the seq of its
	// live slot in activeQ or backoffQ (podHeap), its index in its group of
	// unschedulablePods (podGroup). In flight it is the token the profile
	// returned at Pop (the hints profile's marker index; an in-flight pod
	// is reached by UID).
	pos uint32
	loc place
	// keySlot and uidSlot are the entry's slots in the key and UID
	// indexes (podIndex.slots), so that Done removes it from both without
	// hashing its key or UID again.
	keySlot, uidSlot slotRef
	// out is the copy Pop handed the caller for the pod, nil if none:
	// the next Pop of the pod fills it again once handed back; Done lets
	// go of it (see handedBack).
	out *spec.QueuedPodInfo
}

// place is a spec.Location in one byte, which keeps an entry at 120 bytes
// (the 128-byte size class).
type place uint8

const (
	nowhere             = place(spec.Nowhere)
	inActiveQ           = place(spec.InActiveQ)
	inBackoffQ          = place(spec.InBackoffQ)
	inUnschedulablePods = place(spec.InUnschedulablePods)
	inFlight            = place(spec.InFlight)
)

// The places of pod-group members (podgroups profile), beyond spec's
// four: in a queued entity (the entity's place says which queue), in
// pendingPodGroupPods, in incompletePodGroupPods. groupNext is not a
// place: it is what popFrom answers when the next entity is a group.
const (
	inEntity     place = 20 + iota
	inPending          // pendingPodGroupPods
	inIncomplete       // incompletePodGroupPods
	groupNext
)

func (p place) String() string { return spec.Location(p).String() }

// grouped reports whether p is one of the group places.
func (p place) grouped() bool { return p >= inEntity && p < groupNext }

// Entries of pods that left the queue (Done, Delete) are recycled, so that
// a queue in steady state allocates no entry per Add: first through the
// queue's own free list, a slice push and pop under the lock the queue holds
// anyway, and past maxFree entries through the queue's entryPool, which the
// garbage collector empties when they stay unused. The pool is the queue's
// own, not shared between queues: a stale heap slot may still point at a
// recycled entry, and the heap reads it (podHeap.isLive) under this
// queue's lock, which another queue's writes would not respect; and a seq
// of another queue's heap could make the stale slot look live.

const maxFree = 4096

// minFree is how many recycled entries shrink leaves an idle queue.
const minFree = 64

// newEntry returns a zero entry.
func (q *PriorityQueue) newEntry() *entry {
	if n := len(q.free); n > 0 {
		e := q.free[n-1]
		q.free[n-1] = nil
		q.free = q.free[:n-1]
		return e
	}
	if e, ok := q.entryPool.Get().(*entry); ok {
		return e
	}
	return new(entry)
}

// freeEntry recycles an entry nothing refers to any more: detached,
// untracked, or never tracked.
func (q *PriorityQueue) freeEntry(e *entry) {
	if q.lastPopped == e {
		q.lastPopped = nil
	}
	h := e.info.hints
	*e = entry{}
	if h != nil {
		*h = zeroHints // kept for the entry's next pod (podInfo)
		e.info.hints = h
	}
	if len(q.free) < maxFree {
		q.free = append(q.free, e)
		q.freePeak = max(q.freePeak, len(q.free))
		return
	}
	q.entryPool.Put(e)
}

// Copies handed out by Pop are reused too, as spec.Queue's Pop allows,
// but only by the pod they were handed out for: the caller owns its copy
// until it hands it back to AddUnschedulableIfNotPresent, and a copy
// handed back stays with the pod's entry for the pod's next Pop, as
// upstream's Pop hands out the same QueuedPodInfo each time. A pod parked
// in unschedulablePods lets go of it, so a parked pod holds no copy. Done
// lets go of it too rather than recycling it for another pod's Pop: Done
// may come from another goroutine than the one that popped the pod (the
// linearizability clients end each other's pods' cycles), which may
// still be reading the copy; a recycled copy refilled by an unrelated Pop
// was a data race there, found by make verify's race build.

// handedBack keeps e's copy for the pod's next Pop if handed, what the
// caller handed to AddUnschedulableIfNotPresent, is that copy; a caller
// that hands back another object keeps the copy, which e forgets.
func (e *entry) handedBack(handed *spec.QueuedPodInfo) {
	if e.out != nil && handed != e.out {
		e.out = nil
	}
}

// hashes are a pod's hashes in the two indexes.
type hashes struct{ key, uid uint64 }

func hashesOf(p *spec.Pod) hashes {
	return hashes{keyHash(p.Namespace, p.Name), uidHash(p.UID)}
}

// --- the places: every helper runs under mu, and none counts or wakes
// (put, in queue.go, does) ---

// track adds a new entry, whose pod is set, to both indexes.
func (q *PriorityQueue) track(e *entry, h hashes) {
	q.nom.touched(e.info.Pod.UID)
	q.pods.insert(h.key, e)
	q.byUID.insert(h.uid, e)
}

// untrack removes a detached entry from both indexes.
func (q *PriorityQueue) untrack(e *entry) {
	q.nom.touched(e.info.Pod.UID)
	q.pods.remove(e)
	q.byUID.remove(e)
}

// setPod replaces a tracked entry's pod object, of the same key, whose
// hashes are h; the UID may change with it.
func (q *PriorityQueue) setPod(e *entry, pod *spec.Pod, h hashes) {
	q.nom.touched(e.info.Pod.UID)
	q.nom.touched(pod.UID)
	if e.info.Pod.UID == pod.UID {
		e.info.Pod = pod
		return
	}
	q.byUID.remove(e)
	e.info.Pod = pod
	q.byUID.insert(h.uid, e)
}

// uidHeldElsewhere reports spec.ErrAlreadyQueued if a pod other than e,
// the entry of the pod's key (nil if none), holds the pod's UID (I1 of
// spec.Queue).
func (q *PriorityQueue) uidHeldElsewhere(pod *spec.Pod, h hashes, e *entry) error {
	if u := q.byUID.findUID(h.uid, pod.UID); u != nil && u != e {
		return fmt.Errorf("%w: UID %q of %s is held by %s", spec.ErrAlreadyQueued, pod.UID, pod.Key(), u.info.Key())
	}
	return nil
}

// detach takes an entry out of whichever place holds it; it stays indexed.
// In flight there is nothing to take it out of: that place is only loc.
func (q *PriorityQueue) detach(e *entry) {
	switch e.loc {
	case inActiveQ:
		q.activeQ.drop(e)
	case inBackoffQ:
		q.backoffQ.drop(e)
	case inUnschedulablePods:
		q.unschedulablePods.remove(q.unschedulablePods.groupOfEntry(e), e)
	}
	e.loc = nowhere
}

// pushActiveQ puts a detached entry in activeQ, ordered by spec.Less.
// ^priority orders higher priorities first, as -priority would without
// overflowing.
func (q *PriorityQueue) pushActiveQ(e *entry) {
	q.activeQ.push(e, ^e.info.Pod.Priority, sinceBase(e.info.Timestamp, q.base))
}

// resortActiveQ re-sorts a pod in activeQ whose priority changed.
func (q *PriorityQueue) resortActiveQ(e *entry) {
	q.activeQ.drop(e)
	q.pushActiveQ(e)
}

// pushBackoffQ puts a detached entry in backoffQ, keyed by its expiry
// (Timestamp and Attempts cannot change while the pod waits there, so
// neither can the expiry, I2), and in popQ if the queue keeps it (see
// window.go). A pod never attempted has no backoff (the zero expiry); rank
// 0 keeps it ahead of every pod that has one, whatever the clock reads.
func (q *PriorityQueue) pushBackoffQ(e *entry) {
	before := q.backoffQ.seq
	if expiry := q.expiry(e); expiry.IsZero() {
		q.backoffQ.push(e, 0, 0)
	} else {
		q.backoffQ.push(e, 1, sinceBase(expiry, q.base))
	}
	if q.windowed {
		q.pushPopQ(e, before)
	}
}

// resortBackoffQ re-sorts a pod in backoffQ whose priority changed: only
// the window order depends on it (R2h).
func (q *PriorityQueue) resortBackoffQ(e *entry) {
	if q.windowed {
		q.backoffQ.drop(e)
		q.pushBackoffQ(e)
	}
}

// gate makes e, detached, wait gated by the PreEnqueue plugin g (R17): g
// is its gating plugin and joins its rejectors; its Timestamp is kept.
func (q *PriorityQueue) gate(e *entry, g string) {
	e.info.hf().GatingPlugin = g
	if !e.info.UnschedulablePlugins.Has(g) {
		e.info.UnschedulablePlugins = q.unschedulablePods.intern(append(slices.Clone(e.info.UnschedulablePlugins), g))
	}
}
