package impl

import (
	"maps"
	"slices"
	"time"

	"github.com/schedq/schedq/spec"
)

// hints answers the decisions of spec.ProfileHints: kube-scheduler v1.37.2
// with its default feature gates (rules R1h-R18 in spec/hints.go), as
// package model's hints profile does, with the structures a fast queue
// needs:
//
//   - popQ, a second heap over the backoffQ pods some plugin rejected, in
//     ordering-window order (aligned expiry, priority, Timestamp), from
//     which Pop takes when activeQ is empty (R2h). It deletes lazily, like
//     podHeap, by the backoffQ slot's seq: a pod leaving backoffQ by any
//     way leaves a stale slot here, discarded at the top or by compaction.
//   - the in-flight list (R15) as a slice with a moving head: markers and
//     event records appended at the end, trimmed at the front (R12h). An
//     in-flight entry's pos is the absolute index of its marker, so Done
//     and a failure find it without a search.
//   - the registry compiled per plugin with its hints, and the PreEnqueue
//     plugins in the order R17 runs them.
type hints struct {
	regs     map[string][]hintReg
	pre      spec.PreEnqueuePlugins
	preNames []string // sorted

	popQ windowHeap

	list  []flightEntry
	head  int    // list[head:] is the in-flight list
	start uint32 // absolute index of list[head], modulo 2^32

	scratch []moveChoice // a move request's choices, reused
}

// hintReg is one registration of a plugin and its hint (nil: Queue).
type hintReg struct {
	ev spec.ClusterEvent
	fn spec.QueueingHintFn
}

// flightEntry is one entry of the in-flight list: a marker (pod set, the
// pod as popped) or an event record.
type flightEntry struct {
	pod  *spec.Pod
	occ  spec.Occurrence
	dead bool // a marker whose pod left flight, not yet trimmed
}

func (f *flightEntry) isMarker() bool { return f.pod != nil && !f.dead }

func (f *flightEntry) isRecord() bool { return f.pod == nil }

// moveChoice is what a move request decided for one pod, before moving it.
type moveChoice struct {
	e    *entry
	to   place  // inActiveQ or inBackoffQ
	gate string // the PreEnqueue plugin that refuses it, "" if admitted
}

func newHints(cfg spec.Config) *hints {
	h := &hints{regs: map[string][]hintReg{}, pre: cfg.PreEnqueuePlugins}
	for plugin, evs := range cfg.PluginEvents {
		for _, ev := range evs {
			h.regs[plugin] = append(h.regs[plugin], hintReg{ev: ev, fn: cfg.QueueingHints[spec.HintKey{Plugin: plugin, Event: ev}]})
		}
	}
	h.preNames = slices.Sorted(maps.Keys(cfg.PreEnqueuePlugins))
	return h
}

// --- R16 and R17 as pure functions of the pod ---

// says is one hint's answer: no hint, or an error, is Queue (R16).
func says(fn spec.QueueingHintFn, pod *spec.Pod, occ spec.Occurrence) bool {
	if fn == nil {
		return true
	}
	hint, err := fn(pod, occ)
	return err != nil || hint == spec.HintQueue
}

// podStrategy is spec.Config.PodStrategy without building the rejector
// set: a plugin both unschedulable and pending is asked twice, which
// changes nothing, hints being pure.
func (h *hints) podStrategy(info *podInfo, occ spec.Occurrence) spec.Strategy {
	pending := info.pending()
	if len(info.UnschedulablePlugins) == 0 && len(pending) == 0 {
		return spec.StrategyAfterBackoff
	}
	if occ.Event.IsWildCard() {
		if occ.New != nil && occ.New.UID != info.Pod.UID {
			return spec.StrategySkip
		}
		return spec.StrategyAfterBackoff
	}
	best := spec.StrategySkip
	for _, set := range [2]spec.PluginSet{info.UnschedulablePlugins, pending} {
		for _, plugin := range set {
			for _, r := range h.regs[plugin] {
				if !spec.HintsMatch(r.ev, occ.Event) || !says(r.fn, info.Pod, occ) {
					continue
				}
				if pending.Has(plugin) {
					return spec.StrategyImmediately
				}
				best = spec.StrategyAfterBackoff
			}
		}
	}
	return best
}

// groupMayCare reports whether a non-wildcard event matches a registration
// of one of plugins: if not, no pod rejected by exactly those plugins (and
// none pending) can be moved by it, gated or not.
func (h *hints) groupMayCare(plugins spec.PluginSet, ev spec.ClusterEvent) bool {
	for _, p := range plugins {
		for _, r := range h.regs[p] {
			if spec.HintsMatch(r.ev, ev) {
				return true
			}
		}
	}
	return false
}

// preEnqueue is spec.Config.RunPreEnqueue: the refusing plugin, or "".
func (h *hints) preEnqueue(pod *spec.Pod, gating string) string {
	if len(h.preNames) == 0 {
		return ""
	}
	if fn, ok := h.pre[gating]; ok && !fn(pod) {
		return gating
	}
	for _, name := range h.preNames {
		if name != gating && !h.pre[name](pod) {
			return name
		}
	}
	return ""
}

// --- placing pods (R3h, R4h, R17) ---

// gate parks a detached entry refused by plugin g in unschedulablePods:
// g is its gating plugin and joins its rejectors; Timestamp is kept (R17).
func (h *hints) gate(q *PriorityQueue, e *entry, g string) {
	e.info.hf().GatingPlugin = g
	if !e.info.UnschedulablePlugins.Has(g) {
		e.info.UnschedulablePlugins = q.unschedulablePods.intern(append(slices.Clone(e.info.UnschedulablePlugins), g))
	}
	q.unschedulablePods.add(e)
}

// admit (D6) is R17 for a detached entry bound for activeQ or backoffQ; it
// returns where the pod went.
func (h *hints) admit(q *PriorityQueue, e *entry, to place, now time.Time) place {
	if g := h.preEnqueue(e.info.Pod, e.info.gating()); g != "" {
		h.gate(q, e, g)
		return inUnschedulablePods
	}
	if e.info.hints != nil {
		e.info.hints.GatingPlugin = ""
	}
	h.enter(q, e, to, now)
	return to
}

// enter puts an admitted, detached entry in activeQ or backoffQ.
func (h *hints) enter(q *PriorityQueue, e *entry, to place, now time.Time) {
	if to == inBackoffQ {
		h.pushBackoffQ(q, e)
		return
	}
	q.moveToActiveQ(e, now)
}

// place sends a detached entry where its strategy says (R3h): Skip parks
// it in unschedulablePods; AfterBackoff while backing off is backoffQ;
// anything else activeQ; admission first, except for the park.
func (h *hints) place(q *PriorityQueue, e *entry, s spec.Strategy, now time.Time) place {
	switch {
	case s == spec.StrategySkip:
		q.unschedulablePods.add(e)
		return inUnschedulablePods
	case s == spec.StrategyAfterBackoff && q.backingOff(e, now):
		return h.admit(q, e, inBackoffQ, now)
	default:
		return h.admit(q, e, inActiveQ, now)
	}
}

// poppable reports whether a pod in place p may be taken by a Pop: any
// pod of activeQ, a pod some plugin rejected in backoffQ (R2h).
func poppable(e *entry, p place) bool {
	return p == inActiveQ || p == inBackoffQ && e.info.rejected()
}

// pushBackoffQ puts a detached entry in backoffQ and, if some plugin
// rejected it, in popQ under the same seq.
func (h *hints) pushBackoffQ(q *PriorityQueue, e *entry) {
	before := q.backoffQ.seq
	q.pushBackoffQ(e)
	if q.backoffQ.seq != before+1 {
		h.rebuildPopQ(q) // backoffQ renumbered its slots
		return
	}
	if e.info.rejected() {
		h.popQ.push(h.windowSlot(q, e))
		if len(h.popQ.s) > 2*q.backoffQ.len()+compactAt {
			h.popQ.compact()
		}
	}
}

func (h *hints) windowSlot(q *PriorityQueue, e *entry) wslot {
	return wslot{
		exp:  sinceBase(q.expiry(e), q.base),
		prio: e.info.Pod.Priority,
		ts:   sinceBase(e.info.Timestamp, q.base),
		seq:  e.pos,
		e:    e,
	}
}

// rebuildPopQ makes popQ again from backoffQ's live slots.
func (h *hints) rebuildPopQ(q *PriorityQueue) {
	h.popQ.s = h.popQ.s[:0]
	for _, s := range q.backoffQ.s {
		if q.backoffQ.isLive(&s) && poppable(s.e, inBackoffQ) {
			h.popQ.s = append(h.popQ.s, h.windowSlot(q, s.e))
		}
	}
	h.popQ.heapify()
}

// --- the decisions ---

// added (D6) is R1h: a new pod must pass PreEnqueue. A refused pod whose
// key was already in unschedulablePods stays there: R14h counts only a key
// new to unschedulablePods (as v1.37.2, whose addOrUpdate counts only a new
// key).
func (h *hints) added(q *PriorityQueue, e *entry, from place, now time.Time, _ hotCounter) bool {
	if h.admit(q, e, inActiveQ, now) == inActiveQ {
		q.metrics.hot[activeUnscheduledPodAdd]++
		return true
	}
	if from != inUnschedulablePods {
		q.metrics.hot[unschedulableUnscheduledPodAdd]++
	}
	return false
}

// canPop and next (D4) are R2h: activeQ, else the first pod of popQ.
func (h *hints) canPop(q *PriorityQueue) bool { return q.activeQ.len() > 0 || h.popQ.hasLive() }

func (h *hints) next(q *PriorityQueue) *entry {
	if q.activeQ.len() > 0 {
		return q.activeQ.popMin()
	}
	e := h.popQ.popMin()
	q.backoffQ.drop(e)
	q.metrics.hot[activePopFromBackoffQ]++
	return e
}

// popped (D4, D5): nothing is cleared; the marker is appended and its
// index kept in pos. The caller gets its own copies of the plugin sets.
func (h *hints) popped(_ *PriorityQueue, e *entry, out *spec.QueuedPodInfo) {
	e.pos = h.start + uint32(len(h.list)-h.head)
	h.list = append(h.list, flightEntry{pod: e.info.Pod})
	out.UnschedulablePlugins = slices.Clone(out.UnschedulablePlugins)
	out.PendingPlugins = slices.Clone(out.PendingPlugins)
}

// failed (D1) is R3h: count, replay the records after the pod's marker,
// end its flight, place it.
func (h *hints) failed(q *PriorityQueue, e *entry, flightUID spec.UID, _ int64, now time.Time) {
	info := &e.info
	hf := info.hf()
	hf.PendingPlugins = q.unschedulablePods.intern(hf.PendingPlugins)
	if len(info.UnschedulablePlugins) == 0 && len(hf.PendingPlugins) == 0 {
		hf.ConsecutiveErrorsCount++
	} else {
		hf.UnschedulableCount++
		hf.ConsecutiveErrorsCount = 0
	}
	hf.FlushTimestamp = time.Time{}
	s := spec.StrategyAfterBackoff
	own := e
	if flightUID == "" {
		own = nil
	}
	if i := h.markerOf(own, info.Pod.UID); i >= 0 {
		s = h.replay(i, info)
	}
	if flightUID != "" {
		h.leave(e, flightUID)
	}
	where := h.place(q, e, s, now)
	switch where {
	case inActiveQ:
		q.metrics.hot[activeScheduleAttemptFailure]++
	case inBackoffQ:
		q.metrics.hot[backoffScheduleAttemptFailure]++
	default:
		q.metrics.hot[unschedulableScheduleAttemptFailure]++
	}
	if poppable(e, where) {
		q.cond.Signal()
	}
}

// replay is ReplayStrategy over the records after the marker at i.
func (h *hints) replay(i int, info *podInfo) spec.Strategy {
	if !info.rejected() {
		return spec.StrategyAfterBackoff
	}
	best := spec.StrategySkip
	for j := i + 1; j < len(h.list); j++ {
		if !h.list[j].isRecord() {
			continue
		}
		best = max(best, h.podStrategy(info, h.list[j].occ))
		if best == spec.StrategyImmediately || best == spec.StrategyAfterBackoff && len(info.pending()) == 0 {
			break // nothing later can change the answer
		}
	}
	return best
}

// move (D2) is R4h.
func (h *hints) move(q *PriorityQueue, occ spec.Occurrence, now time.Time, keep func(*entry) bool) {
	h.moveRequest(q, occ, now, keep, false)
}

// moveRequest is R4h, and R6h when flush is set (the moved pods' leftover
// clock restarts). It is all or nothing like movePods: every piece of
// caller code (keep's preCheck, the hints, the PreEnqueue plugins) runs in
// the first phase, which only reads; the second moves.
func (h *hints) moveRequest(q *PriorityQueue, occ spec.Occurrence, now time.Time, keep func(*entry) bool, flush bool) {
	if !q.cfg.IsEventOfInterestHints(occ.Event) {
		return
	}
	wild := occ.Event.IsWildCard()
	choices := h.scratch[:0]
	q.unschedulablePods.all(func(g *podGroup) {
		if g != &q.unschedulablePods.private && !wild && !h.groupMayCare(g.plugins, occ.Event) {
			return
		}
		for _, e := range g.pods {
			if !keep(e) || e.info.gating() != "" && !q.cfg.GatingEventMatches(e.info.gating(), occ.Event) {
				continue
			}
			s := h.podStrategy(&e.info, occ)
			if s == spec.StrategySkip {
				continue
			}
			to := inActiveQ
			if s == spec.StrategyAfterBackoff && q.backingOff(e, now) {
				to = inBackoffQ
			}
			choices = append(choices, moveChoice{e: e, to: to, gate: h.preEnqueue(e.info.Pod, e.info.gating())})
		}
	})
	h.scratch = choices
	var toActive, toBackoff, woken int
	for i := range choices {
		c := &choices[i]
		q.detach(c.e)
		if flush {
			c.e.info.hf().FlushTimestamp = now
		}
		if c.gate != "" {
			h.gate(q, c.e, c.gate)
			continue
		}
		if c.e.info.hints != nil {
			c.e.info.hints.GatingPlugin = ""
		}
		h.enter(q, c.e, c.to, now)
		if c.to == inActiveQ {
			toActive++
		} else {
			toBackoff++
		}
		if poppable(c.e, c.to) {
			woken++
		}
		c.e = nil
	}
	clear(choices)
	if toActive+toBackoff > 0 {
		label := q.metrics.label(q.eventLabel(occ.Event))
		q.metrics.addEvent(QueueActive, label, toActive)
		q.metrics.addEvent(QueueBackoff, label, toBackoff)
	}
	h.record(occ)
	q.wake(woken)
}

// record appends an event record if some pod is in flight (R15).
func (h *hints) record(occ spec.Occurrence) {
	if h.head < len(h.list) {
		h.list = append(h.list, flightEntry{occ: occ})
	}
}

// everyPod is the keep of a move request over all unschedulable pods.
func everyPod(*entry) bool { return true }

// assignedPodAdded (D2) is R11h: every unschedulable pod, the assigned pod
// as the event's object.
func (h *hints) assignedPodAdded(q *PriorityQueue, pod *spec.Pod, now time.Time) {
	h.move(q, spec.Occurrence{Event: spec.EventAssignedPodAdd, New: pod}, now, everyPod)
}

func (h *hints) assignedPodUpdated(q *PriorityQueue, oldPod, newPod *spec.Pod, event spec.ClusterEvent, now time.Time) {
	h.move(q, spec.Occurrence{Event: event, Old: oldPod, New: newPod}, now, everyPod)
}

// leftover (D7) is R6h: the later of Timestamp and FlushTimestamp.
func (h *hints) leftover(q *PriorityQueue, now time.Time) {
	old := func(e *entry) bool {
		last := e.info.Timestamp
		if e.info.hints != nil && e.info.hints.FlushTimestamp.After(last) {
			last = e.info.hints.FlushTimestamp
		}
		return now.Sub(last) > q.cfg.PodMaxInUnschedulablePodsDuration
	}
	if q.unschedulablePods.any(old) {
		h.moveRequest(q, spec.Occurrence{Event: spec.EventUnschedulableTimeout}, now, old, true)
	}
}

// updateUnschedulable (D7) is R9h: each event of the update in turn, no
// gating filter, until one moves the pod out of unschedulablePods.
func (h *hints) updateUnschedulable(q *PriorityQueue, e *entry, oldPod, newPod *spec.Pod, now time.Time) {
	for _, ev := range spec.PodUpdateEvents(oldPod, newPod) {
		s := h.podStrategy(&e.info, spec.Occurrence{Event: ev, Old: oldPod, New: newPod})
		if s == spec.StrategySkip {
			continue
		}
		q.detach(e)
		where := h.place(q, e, s, now)
		if where == inUnschedulablePods {
			continue
		}
		q.metrics.addEvent(queueLabel(where), q.metrics.label(q.eventLabel(ev)), 1)
		if poppable(e, where) {
			q.cond.Signal()
		}
		return
	}
}

// resortBackoffQ: popQ orders by priority within a window (R2h), so the
// pod enters backoffQ again with its new priority (same expiry).
func (h *hints) resortBackoffQ(q *PriorityQueue, e *entry) {
	q.backoffQ.drop(e)
	h.pushBackoffQ(q, e)
}

// activateParked (R8h): PreEnqueue first; a refused pod stays gated.
func (h *hints) activateParked(q *PriorityQueue, e *entry, now time.Time) bool {
	q.detach(e)
	return h.admit(q, e, inActiveQ, now) == inActiveQ
}

// updateInFlight (D5) is R9h: each event of the update is recorded (the
// UID is the same: an Update giving the pod another UID ends the attempt).
func (h *hints) updateInFlight(_ *PriorityQueue, e *entry, oldPod, newPod *spec.Pod) {
	for _, ev := range spec.PodUpdateEvents(oldPod, newPod) {
		h.list = append(h.list, flightEntry{occ: spec.Occurrence{Event: ev, Old: oldPod, New: newPod}})
	}
}

// activateOther (D5) is R8h: a pod in flight gets a ForceActivate record
// aimed at it alone.
func (h *hints) activateOther(_ *PriorityQueue, e *entry, pod *spec.Pod) {
	if e != nil && e.loc == inFlight && e.info.Pod.UID == pod.UID && h.markerOf(e, pod.UID) >= 0 {
		h.list = append(h.list, flightEntry{occ: spec.Occurrence{Event: spec.EventForceActivate, New: pod}})
	}
}

// leftFlight (D5) is R12h.
func (h *hints) leftFlight(_ *PriorityQueue, e *entry) { h.leave(e, e.info.Pod.UID) }

// --- the in-flight list ---

// rel turns an absolute index into an index of list, if it is still there.
func (h *hints) rel(abs uint32) (int, bool) {
	i := h.head + int(abs-h.start)
	return i, int(abs-h.start) < len(h.list)-h.head
}

// markerOf returns the index in list of own's live marker if it carries
// uid (own nil: none); -1 if there is none.
func (h *hints) markerOf(own *entry, uid spec.UID) int {
	if own != nil {
		if i, ok := h.rel(own.pos); ok && h.list[i].isMarker() && h.list[i].pod.UID == uid {
			return i
		}
	}
	return -1
}

// leave is R12h for a pod leaving flight: every marker carrying uid dies,
// then the front of the list is trimmed up to the first live marker.
func (h *hints) leave(e *entry, uid spec.UID) {
	if i, ok := h.rel(e.pos); ok && h.list[i].isMarker() && h.list[i].pod.UID == uid {
		h.list[i].dead = true
	}
	for h.head < len(h.list) && !h.list[h.head].isMarker() {
		h.list[h.head] = flightEntry{}
		h.head++
		h.start++
	}
	switch {
	case h.head == len(h.list):
		h.list, h.head = h.list[:0], 0
		if cap(h.list) > 4*minHeapCap {
			h.list = nil // a burst's room goes back once nothing is in flight
		}
	case h.head > minHeapCap && h.head > len(h.list)/2:
		n := copy(h.list, h.list[h.head:])
		clear(h.list[n:])
		h.list, h.head = h.list[:n], 0
	}
}

// --- views ---

func (h *hints) snapshot(s *spec.Snapshot) {
	for i := h.head; i < len(h.list); i++ {
		f := &h.list[i]
		switch {
		case f.isMarker():
			s.InFlightEvents = append(s.InFlightEvents, spec.InFlightEntry{UID: f.pod.UID, Key: f.pod.Key()})
		case f.isRecord():
			s.InFlightEvents = append(s.InFlightEvents, spec.InFlightEntry{Event: f.occ})
		}
	}
}

// metrics (R14h): gated pods apart, and the rejectors of every queued pod.
// It walks every pod: O(pods) per scrape, nothing on the operations.
func (h *hints) metrics(q *PriorityQueue, m *MetricsSnapshot) {
	gated := 0
	m.UnschedulablePods = map[string]int{}
	q.pods.all(func(e *entry) {
		if e.loc == inFlight {
			return
		}
		if e.loc == inUnschedulablePods && e.info.gating() != "" {
			gated++
		}
		for _, p := range e.info.UnschedulablePlugins {
			m.UnschedulablePods[p]++
		}
		for _, p := range e.info.pending() {
			if !e.info.UnschedulablePlugins.Has(p) {
				m.UnschedulablePods[p]++
			}
		}
	})
	m.PendingPods[QueueGated] = gated
	m.PendingPods[QueueUnschedulable] -= gated
}

// check verifies popQ against backoffQ and the in-flight list against the
// pods in flight (I7).
func (h *hints) check(q *PriorityQueue, keyed map[*entry]bool, bad func(string, ...any)) {
	live := map[*entry]int{}
	for i := range h.popQ.s {
		s := &h.popQ.s[i]
		if i > 0 && h.popQ.less(s, &h.popQ.s[(i-1)/2]) {
			bad("popQ: slot %d precedes its parent", i)
		}
		if !h.popQ.isLive(s) {
			continue
		}
		live[s.e]++
		if want := h.windowSlot(q, s.e); *s != want {
			bad("popQ: %s has key %+v, want %+v", describe(s.e), *s, want)
		}
	}
	for e := range keyed {
		want := 0
		if e.loc == inBackoffQ && poppable(e, inBackoffQ) {
			want = 1
		}
		if live[e] != want {
			bad("popQ: %s (in %s) has %d live slots, want %d", describe(e), e.loc, live[e], want)
		}
	}
	if h.head > len(h.list) {
		bad("in-flight list: head %d past its end %d", h.head, len(h.list))
		return
	}
	if h.head < len(h.list) && !h.list[h.head].isMarker() {
		bad("I7: the in-flight list starts with a record or a dead marker")
	}
	markers := 0
	for i := h.head; i < len(h.list); i++ {
		if h.list[i].isMarker() {
			markers++
		}
	}
	owned := 0
	for e := range keyed {
		if e.loc != inFlight {
			continue
		}
		if h.markerOf(e, e.info.Pod.UID) >= 0 {
			owned++
		} else {
			bad("I7: %s is in flight without a live marker of its UID", describe(e))
		}
	}
	if markers != owned {
		bad("I7: %d live markers, but %d in-flight pods own one", markers, owned)
	}
}

// backoffFlushDelay (R5h): until the next start of a period-aligned window.
func (h *hints) backoffFlushDelay(now time.Time, period time.Duration) time.Duration {
	return now.Truncate(period).Add(period).Sub(now)
}

func (h *hints) alignedFlushes() bool { return true }

// --- popQ ---

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
