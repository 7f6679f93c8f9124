package impl

// popQ is backoffQ's second order, kept only when the profile pops from
// backoffQ (profile.windowed; the hints profile, R2h): a heap over the
// backoffQ pods some plugin rejected, in ordering-window order (aligned
// expiry, priority, Timestamp), from which Pop takes when activeQ is empty.
// It deletes lazily, like podHeap, by the backoffQ slot's seq: a pod
// leaving backoffQ by any way leaves a stale slot here, discarded at the
// top or by compaction. pushBackoffQ (entry.go) keeps it.

// poppable reports whether Pop may take a pod in place p: any pod of
// activeQ, and with the window order a pod some plugin rejected in
// backoffQ (R2h).
func (q *PriorityQueue) poppable(e *entry, p place) bool {
	return p == inActiveQ || p == inBackoffQ && q.windowed && e.info.rejected()
}

// windowSlot is e's slot in popQ; e is in backoffQ.
func (q *PriorityQueue) windowSlot(e *entry) wslot {
	return wslot{
		exp:  sinceBase(q.expiry(e), q.base),
		prio: e.info.Pod.Priority,
		ts:   sinceBase(e.info.Timestamp, q.base),
		seq:  e.pos,
		e:    e,
	}
}

// pushPopQ puts e, just pushed into backoffQ under seq before+1, in popQ
// if Pop may take it from there.
func (q *PriorityQueue) pushPopQ(e *entry, before uint32) {
	if q.backoffQ.seq != before+1 {
		q.rebuildPopQ() // backoffQ renumbered its slots
		return
	}
	if e.info.rejected() {
		q.popQ.push(q.windowSlot(e))
		if len(q.popQ.s) > 2*q.backoffQ.len()+compactAt {
			q.popQ.compact()
		}
	}
}

// rebuildPopQ makes popQ again from backoffQ's live slots.
func (q *PriorityQueue) rebuildPopQ() {
	q.popQ.s = q.popQ.s[:0]
	for _, s := range q.backoffQ.s {
		if q.backoffQ.isLive(&s) && q.poppable(s.e, inBackoffQ) {
			q.popQ.s = append(q.popQ.s, q.windowSlot(s.e))
		}
	}
	q.popQ.heapify()
}

// checkPopQ verifies popQ against backoffQ (CheckConsistency).
func (q *PriorityQueue) checkPopQ(keyed map[*entry]bool, bad func(string, ...any)) {
	live := map[*entry]int{}
	for i := range q.popQ.s {
		s := &q.popQ.s[i]
		if i > 0 && q.popQ.less(s, &q.popQ.s[(i-1)/2]) {
			bad("popQ: slot %d precedes its parent", i)
		}
		if !q.popQ.isLive(s) {
			continue
		}
		live[s.e]++
		if want := q.windowSlot(s.e); *s != want {
			bad("popQ: %s has key %+v, want %+v", describe(s.e), *s, want)
		}
	}
	for e := range keyed {
		want := 0
		if e.loc == inBackoffQ && q.poppable(e, inBackoffQ) {
			want = 1
		}
		if live[e] != want {
			bad("popQ: %s (in %s) has %d live slots, want %d", describe(e), e.loc, live[e], want)
		}
	}
}

// wslot is one slot of popQ: the R2h order's keys, durations since the
// queue's base, and the backoffQ slot's seq, which tells if it is live.
type wslot struct {
	exp  int64
	prio int32
	ts   int64
	seq  uint32
	e    *entry
}

// windowHeap is a binary min-heap of wslots with lazy deletion.
type windowHeap struct{ s []wslot }

func (w *windowHeap) isLive(s *wslot) bool { return s.e.loc == inBackoffQ && s.e.pos == s.seq }

// less is R2h's order: earlier window, higher priority, earlier Timestamp;
// then the order of entry.
func (w *windowHeap) less(a, b *wslot) bool {
	if a.exp != b.exp {
		return a.exp < b.exp
	}
	if a.prio != b.prio {
		return a.prio > b.prio
	}
	if a.ts != b.ts {
		return a.ts < b.ts
	}
	return a.seq < b.seq
}

func (w *windowHeap) push(s wslot) {
	w.s = append(w.s, s)
	w.up(len(w.s) - 1)
}

// hasLive drops stale slots at the top and reports whether one is left.
func (w *windowHeap) hasLive() bool {
	for len(w.s) > 0 && !w.isLive(&w.s[0]) {
		w.removeTop()
	}
	return len(w.s) > 0
}

// popMin removes and returns the first live entry; there must be one.
func (w *windowHeap) popMin() *entry {
	w.hasLive()
	e := w.s[0].e
	w.removeTop()
	return e
}

func (w *windowHeap) removeTop() {
	last := len(w.s) - 1
	w.s[0] = w.s[last]
	w.s[last] = wslot{}
	w.s = w.s[:last]
	if last > 0 {
		w.down(0)
	}
}

func (w *windowHeap) compact() {
	live := w.s[:0]
	for _, s := range w.s {
		if w.isLive(&s) {
			live = append(live, s)
		}
	}
	clear(w.s[len(live):])
	w.s = live
	w.heapify()
}

func (w *windowHeap) heapify() {
	for i := len(w.s)/2 - 1; i >= 0; i-- {
		w.down(i)
	}
}

func (w *windowHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !w.less(&w.s[i], &w.s[p]) {
			return
		}
		w.s[i], w.s[p] = w.s[p], w.s[i]
		i = p
	}
}

func (w *windowHeap) down(i int) {
	n := len(w.s)
	for {
		m, l := i, 2*i+1
		if l < n && w.less(&w.s[l], &w.s[m]) {
			m = l
		}
		if r := l + 1; r < n && w.less(&w.s[r], &w.s[m]) {
			m = r
		}
		if m == i {
			return
		}
		w.s[i], w.s[m] = w.s[m], w.s[i]
		i = m
	}
}
