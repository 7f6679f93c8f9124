package impl

import (
	"slices"
	"time"

	"github.com/schedq/schedq/spec"
)

// hints answers the decisions of spec.ProfileHints: kube-scheduler v1.37.2
// with its default feature gates (rules R1h-R18 in spec/hints.go), as
// package model's hints profile does. Its own state:
//
//   - the in-flight list (R15) as a slice with a moving head: markers and
//     event records appended at the end, trimmed at the front (R12h). An
//     in-flight entry's pos is the absolute index of its marker (the token
//     popped returns), so Done and a failure find it without a search.
//   - the registry compiled per plugin with its hints, and the PreEnqueue
//     plugins in the order R17 runs them.
//
// Pop's order over backoffQ by ordering window (R2h) is the queue's: it
// keeps backoffQ's window heap (window.go) because windowed says so.
type hints struct {
	cfg  *spec.Config
	regs map[string][]hintReg
	gates
	noGroups // the podgroups profile, which embeds hints, answers them
	// narrow is the current move request's narrowing (R20), refilled by
	// each request under the queue's lock.
	narrow narrowed

	list  []flightEntry
	head  int    // list[head:] is the in-flight list
	start uint32 // absolute index of list[head], modulo 2^32
}

// hintReg is one registration of a plugin, its hint (nil: Queue) and its
// pre-queueing hint (nil: all pods, R20).
type hintReg struct {
	ev  spec.ClusterEvent
	fn  spec.QueueingHintFn
	pre spec.PreQueueingHintFn
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

func newHints(cfg *spec.Config) *hints {
	h := &hints{cfg: cfg, regs: map[string][]hintReg{}, gates: newGates(cfg)}
	for plugin, evs := range cfg.PluginEvents {
		for _, ev := range evs {
			k := spec.HintKey{Plugin: plugin, Event: ev}
			h.regs[plugin] = append(h.regs[plugin], hintReg{ev: ev, fn: cfg.QueueingHints[k], pre: cfg.PreQueueingHints[k]})
		}
	}
	return h
}

// --- R16 and R17 as pure functions of the pod ---

// says is one hint's answer: no hint, an error or a panic is Queue (R16),
// as spec.Config's hint call has it: a hint runs under the queue's lock,
// and caller code must not bring the queue down.
func says(fn spec.QueueingHintFn, pod *spec.Pod, occ spec.Occurrence) (queue bool) {
	if fn == nil {
		return true
	}
	defer func() {
		if recover() != nil {
			queue = true
		}
	}()
	hint, err := fn(pod, occ)
	return err != nil || hint == spec.HintQueue
}

// podStrategy is spec.Config.PodStrategy without building the rejector
// set: a plugin both unschedulable and pending is asked twice, which
// changes nothing, hints being pure.
func (h *hints) podStrategy(info *podInfo, occ spec.Occurrence) spec.Strategy {
	return h.narrowedStrategy(info, occ, nil)
}

// narrowedStrategy is spec.Config.MoveStrategy: podStrategy asking only the
// rejectors n allows (R22). The pod's key is needed only when n narrowed
// some plugin, and is built only when the request did not find the pod by
// it (keyOf), so a request allocates nothing per pod.
func (h *hints) narrowedStrategy(info *podInfo, occ spec.Occurrence, n *narrowed) spec.Strategy {
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
	var key spec.PodKey
	if n != nil && len(n.Named) > 0 {
		key = n.keyOf(info)
	}
	best := spec.StrategySkip
	for _, set := range [2]spec.PluginSet{info.UnschedulablePlugins, pending} {
		for _, plugin := range set {
			if key != "" && !n.Asks(plugin, key) {
				continue
			}
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

// --- placing pods (R3h, R17) ---

// place is where a pod goes by its strategy (R3h): Skip parks it in
// unschedulablePods; AfterBackoff while backing off is backoffQ; anything
// else activeQ; admission first, except for the park. info is e's, or
// what it would be at this point of an Update (updatedUnschedulable).
func (h *hints) place(v view, e *entry, info *podInfo, s spec.Strategy) move {
	switch {
	case s == spec.StrategySkip:
		return move{to: inUnschedulablePods}
	case s == spec.StrategyAfterBackoff && v.backingOff(e):
		return h.admit(info, inBackoffQ)
	default:
		return h.admit(info, inActiveQ)
	}
}

// --- the decisions ---

// added (D6) is R1h: a new pod must pass PreEnqueue. A refused pod whose
// key was already in unschedulablePods stays there uncounted: R14h counts
// only a key new to unschedulablePods (as v1.37.2, whose addOrUpdate
// counts only a new key).
func (h *hints) added(e *entry, from place, _ bool) move {
	m := h.admit(&e.info, inActiveQ)
	if m.to == inActiveQ || from != inUnschedulablePods {
		m.why = unscheduledPodAdd
	}
	return m
}

// popFrom (D4) is R2h: activeQ, else the first pod of backoffQ by
// ordering window.
func (h *hints) popFrom(v view) place {
	switch {
	case v.activeQHasPods():
		return inActiveQ
	case v.backoffQHasPoppable():
		return inBackoffQ
	}
	return nowhere
}

func (h *hints) windowed() bool { return true }

// popped (D4, D5): nothing is cleared; the marker is appended and its
// index is the entry's token while in flight.
func (h *hints) popped(e *entry) (uint32, bool) {
	token := h.start + uint32(len(h.list)-h.head)
	h.list = append(h.list, flightEntry{pod: e.info.Pod})
	return token, false
}

// failed (D1) is R3h: count, then requeue.
func (h *hints) failed(v view, e *entry, flightUID spec.UID, _ int64) move {
	countFailure(e.info.hf(), e.info.rejected())
	return h.requeue(v, e, flightUID)
}

// countFailure is the one count of a failed attempt, R3h for a pod and G4
// and G5 for a member and a group alike: with a rejector (rejected),
// UnschedulableCount grows and ConsecutiveErrorsCount starts over;
// without, ConsecutiveErrorsCount grows. FlushTimestamp is cleared: the
// leftover clock starts again from the failure.
func countFailure(h *spec.HintFields, rejected bool) {
	if rejected {
		h.UnschedulableCount++
		h.ConsecutiveErrorsCount = 0
	} else {
		h.ConsecutiveErrorsCount++
	}
	h.FlushTimestamp = time.Time{}
}

// requeue is R3h after the count: replay the records after the pod's
// marker, end its flight, place it.
func (h *hints) requeue(v view, e *entry, flightUID spec.UID) move {
	info := &e.info
	s := spec.StrategyAfterBackoff
	if flightUID != "" {
		if i := h.markerOf(e, info.Pod.UID); i >= 0 {
			s = h.replay(i, info)
		}
		h.leave(e, flightUID)
	}
	m := h.place(v, e, info, s)
	m.why = scheduleAttemptFailure
	return m
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

// ofInterest, mayHelp and moveTo (D2) are R4h: each pod is evaluated
// alone by its rejectors' hints, a gated pod only if the event may concern
// its gating plugin; a moved pod passes PreEnqueue again, and one refused
// is gated anew (not counted).
func (h *hints) ofInterest(ev spec.ClusterEvent) bool { return h.cfg.IsEventOfInterestHints(ev) }

func (h *hints) mayHelp(plugins spec.PluginSet, ev spec.ClusterEvent) bool {
	return ev.IsWildCard() || h.groupMayCare(plugins, ev)
}

// narrowing (D8) is R20, as spec.Config.PreQueueingNarrowing: nil unless
// Config.PreQueueing is set and the event asks the pre-queueing hints
// (not a wildcard, some object). A plugin with a matching registration
// that could not narrow (no pre-queueing hint, all pods, an error, a
// panic) is not narrowed, and its other registrations need not be asked:
// pre-queueing hints are pure.
func (h *hints) narrowing(occ spec.Occurrence) *narrowed {
	if !h.cfg.PreQueueing || occ.Event.IsWildCard() || !occ.HasObjects() {
		return nil
	}
	n := &h.narrow
	n.reset()
	for plugin, regs := range h.regs {
		var named *namedKeys
		all := false
		for _, r := range regs {
			if !spec.HintsMatch(r.ev, occ.Event) {
				continue
			}
			res, ok := preSays(r.pre, occ)
			if !ok || res.AllPods {
				all = true
				break
			}
			if named == nil {
				named = n.add(plugin)
			}
			named.keys = append(named.keys, res.Pods...)
		}
		switch {
		case all:
			n.AllPods = true
			if named != nil {
				n.drop()
			}
		case named != nil:
			n.settle()
		}
	}
	return n
}

// preSays is one pre-queueing hint's answer; ok is false for no hint, an
// error or a panic, none of which narrows (R20).
func preSays(fn spec.PreQueueingHintFn, occ spec.Occurrence) (r spec.PreQueueingResult, ok bool) {
	if fn == nil {
		return r, false
	}
	defer func() {
		if recover() != nil {
			r, ok = spec.PreQueueingResult{}, false
		}
	}()
	r, err := fn(occ)
	return r, err == nil
}

func (h *hints) moveTo(v view, e *entry, occ spec.Occurrence, n *narrowed, _ bool) move {
	if g := e.info.gating(); g != "" && !h.cfg.GatingEventMatches(g, occ.Event) {
		return move{}
	}
	s := h.narrowedStrategy(&e.info, occ, n)
	if s == spec.StrategySkip {
		return move{}
	}
	to := inActiveQ
	if s == spec.StrategyAfterBackoff && v.backingOff(e) {
		to = inBackoffQ
	}
	m := h.admit(&e.info, to)
	if m.gate == "" {
		m.why = clusterEvent
	}
	return m
}

// requested (D2) is R15: the event is recorded if some pod is in flight;
// moveRequestCycle does not exist in this profile.
func (h *hints) requested(occ spec.Occurrence) bool {
	h.record(occ)
	return false
}

// record appends an event record if some pod is in flight (R15).
func (h *hints) record(occ spec.Occurrence) {
	if h.head < len(h.list) {
		h.list = append(h.list, flightEntry{occ: occ})
	}
}

// assigned (D2) is R11h: every unschedulable pod; the hints decide, with
// the assigned pod as the event's object.
func (h *hints) assigned(*spec.Pod, spec.ClusterEvent) func(*entry) bool { return everyPod }

// leftover (D7) is R6h: the later of Timestamp and FlushTimestamp, and the
// pods taken restart their leftover clock.
func (h *hints) leftover(v view) (func(*entry) bool, bool) {
	return func(e *entry) bool {
		last := e.info.Timestamp
		if e.info.hints != nil && e.info.hints.FlushTimestamp.After(last) {
			last = e.info.hints.FlushTimestamp
		}
		return v.now.Sub(last) > h.cfg.PodMaxInUnschedulablePodsDuration
	}, true
}

// updatedUnschedulable (D7) is R9h: each event of the update in turn, no
// gating filter, until one moves the pod out of unschedulablePods; the
// move counts under that event. A pod PreEnqueue refuses on the way is
// gated, and the later events see it gated.
func (h *hints) updatedUnschedulable(v view, e *entry, oldPod, newPod *spec.Pod, change *spec.PodChange) (move, spec.ClusterEvent) {
	info := e.info // gated below, if need be, without touching e
	var gated spec.HintFields
	gate := ""
	for _, ev := range updateEvents(oldPod, newPod, change) {
		s := h.podStrategy(&info, spec.Occurrence{Event: ev, Old: oldPod, New: newPod})
		if s == spec.StrategySkip {
			continue
		}
		m := h.place(v, e, &info, s)
		if m.gate == "" {
			m.why = clusterEvent
			return m, ev
		}
		gate = m.gate
		if info.hints != nil {
			gated = *info.hints
		}
		gated.GatingPlugin = gate
		info.hints = &gated
		if !info.UnschedulablePlugins.Has(gate) {
			info.UnschedulablePlugins = spec.NewPluginSet(append(slices.Clone(info.UnschedulablePlugins), gate)...)
		}
	}
	if gate != "" {
		return move{to: inUnschedulablePods, gate: gate}, spec.ClusterEvent{}
	}
	return move{}, spec.ClusterEvent{}
}

// updateEvents are the events of an update (R9h): the caller's, or
// without a verdict spec.PodUpdateEvents.
func updateEvents(oldPod, newPod *spec.Pod, change *spec.PodChange) []spec.ClusterEvent {
	if change != nil {
		return change.Events
	}
	return spec.PodUpdateEvents(oldPod, newPod)
}

// activated (R8h): PreEnqueue first; a refused pod stays gated, uncounted.
func (h *hints) activated(e *entry) move {
	m := h.admit(&e.info, inActiveQ)
	if m.gate == "" {
		m.why = forceActivate
	}
	return m
}

// fromBackoffQ (R5h, R8h): a pod leaving backoffQ enters activeQ without
// PreEnqueue: it passed it on entering backoffQ.
func (h *hints) fromBackoffQ(_ *entry, why reason) move { return move{to: inActiveQ, why: why} }

// updatedInFlight (D5) is R9h: each event of the update is recorded (the
// UID is the same: an Update giving the pod another UID ends the attempt).
func (h *hints) updatedInFlight(_ *entry, oldPod, newPod *spec.Pod, change *spec.PodChange) {
	for _, ev := range updateEvents(oldPod, newPod, change) {
		h.list = append(h.list, flightEntry{occ: spec.Occurrence{Event: ev, Old: oldPod, New: newPod}})
	}
}

// activatedOther (D5) is R8h: a pod in flight gets a ForceActivate record
// aimed at it alone.
func (h *hints) activatedOther(e *entry, pod *spec.Pod) bool {
	if e != nil && e.loc == inFlight && e.info.Pod.UID == pod.UID && h.markerOf(e, pod.UID) >= 0 {
		h.list = append(h.list, flightEntry{occ: spec.Occurrence{Event: spec.EventForceActivate, New: pod}})
	}
	return false
}

// leftFlight (D5) is R12h.
func (h *hints) leftFlight(e *entry) { h.leave(e, e.info.Pod.UID) }

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
func (h *hints) metrics(v view, m *MetricsSnapshot) {
	gated := 0
	m.UnschedulablePods = map[string]int{}
	v.pods(func(e *entry) {
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

// check verifies the in-flight list against the pods in flight (I7).
func (h *hints) check(keyed map[*entry]bool, bad func(string, ...any)) {
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
