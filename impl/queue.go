// Package impl is the production scheduling queue: a queue that satisfies
// the contract of spec.Queue in both of its profiles (spec.Profile: the
// classic kube-scheduler v1.33 queue, and v1.37.2's queueing hints), built
// for speed and safe for concurrent use. It behaves exactly like package
// model, the contract's executable form, for every operation; the
// differences are the ones a real queue needs: Pop blocks instead of
// returning spec.ErrWouldBlock, time comes from an injected clock, the two
// flushes run periodically after Run (in the hints profile the backoffQ
// flush at the start of every one-second window), and pods that spec.Less
// leaves tied are popped in the order they entered activeQ.
//
// The profiles share this machine; where they differ (the decisions D1-D7
// of spec.Profile) it asks its profile (profile.go), answered once in
// classic.go and once in hints.go, which adds the in-flight list, a second
// heap over backoffQ for Pop's ordering windows, PreEnqueue gating and hint
// replay.
//
// Layout: every pod the queue holds has one entry of 112 bytes (the
// hints profile's per-pod fields, spec.HintFields, behind a pointer that
// stays nil in the classic profile), found by key
// (Add, Update, Delete, Activate) and by UID (Done) in two compact hash
// indexes (index.go). The entry records where the pod is: activeQ and
// backoffQ are 4-ary heaps of 24-byte slots that carry the sort keys inline
// and delete lazily (heap.go), unschedulablePods groups its pods by the
// interned set of plugins that rejected them (so a move request examines
// only the pods its event may help, unschedulable.go), and in flight is just
// a mark on the entry. One mutex guards everything; one condition
// variable on it wakes blocked Pops. Pop allocates only the copy it
// returns; Add, AddUnschedulableIfNotPresent, Done and the moves allocate
// nothing once the queue has recycled the entries of pods that are Done and
// interned the plugin sets it is given.
package impl

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/utils/clock"

	"github.com/schedq/schedq/spec"
)

// entry is one pod held by the queue. Its key is its pod's: the queue
// key of an entry never changes (Update keeps it).
type entry struct {
	info podInfo
	// pos is the entry's place in the structure loc names: the seq of its
	// live slot in activeQ or backoffQ (podHeap), its index in its group of
	// unschedulablePods (podGroup). Unused in flight: an in-flight pod is reached by
	// UID.
	pos uint32
	loc place
	// keySlot and uidSlot are the entry's slots in the key and UID
	// indexes (podIndex.slots), so that Done removes it from both without
	// hashing its key or UID again.
	keySlot, uidSlot slotRef
}

// place is a spec.Location in one byte, which keeps an entry at 112 bytes.
type place uint8

const (
	nowhere             = place(spec.Nowhere)
	inActiveQ           = place(spec.InActiveQ)
	inBackoffQ          = place(spec.InBackoffQ)
	inUnschedulablePods = place(spec.InUnschedulablePods)
	inFlight            = place(spec.InFlight)
)

func (p place) String() string { return spec.Location(p).String() }

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
	*e = entry{}
	if len(q.free) < maxFree {
		q.free = append(q.free, e)
		q.freePeak = max(q.freePeak, len(q.free))
		return
	}
	q.entryPool.Put(e)
}

// PriorityQueue is the concurrent scheduling queue. Create it with New; it
// satisfies spec.Queue. All methods are safe for concurrent use.
type PriorityQueue struct {
	cfg   spec.Config
	clock clock.WithTicker
	// base is the clock reading at New; heap keys are durations since it.
	base time.Time

	// mu guards everything below. cond (on mu) is where Pop waits for
	// activeQ to fill or the queue to close.
	mu   sync.Mutex
	cond sync.Cond

	// pods and byUID index every pod the queue holds, wherever it is. The
	// UID index is kept from Add on, not only in flight, because Add has
	// the pod in cache and Pop would not: Pop then touches no index at all.
	pods              podIndex
	byUID             podIndex
	activeQ           podHeap
	backoffQ          podHeap
	unschedulablePods unschedulablePods
	// lastPopped is the entry Pop returned last, nil once it is recycled:
	// the scheduler usually ends the cycle of the pod it popped last, and
	// Done finds that pod without hashing its UID (see Done).
	lastPopped *entry
	free       []*entry   // recycled entries, see newEntry
	entryPool  sync.Pool  // more recycled entries, see newEntry
	freePeak   int        // the longest free list since the last flush
	freeLow    slackTimer // how long the free list has been too long
	// lastEvent and lastLabel cache eventLabel.
	lastEvent spec.ClusterEvent
	lastLabel string

	schedulingCycle  int64
	moveRequestCycle int64

	closed  bool
	running bool
	waiting int           // Pops blocked in cond.Wait; lets tests see them block
	stop    chan struct{} // closed by Close; stops the flush goroutines
	wg      sync.WaitGroup

	metrics counters

	// p answers the decisions of cfg.Profile (profile.go); nom is the
	// nominator (R18, both profiles).
	p   profile
	nom nominator
}

var _ spec.Queue = (*PriorityQueue)(nil)

// Option configures New.
type Option func(*PriorityQueue)

// WithClock makes the queue read time from c instead of the real clock:
// Timestamps, backoff, the leftover age and the periodic flushes all follow
// c. Tests pass a k8s.io/utils/clock/testing.FakeClock. A nil c (or a nil
// pointer in the interface) makes New fail with spec.ErrInvalidConfig.
func WithClock(c clock.WithTicker) Option {
	return func(q *PriorityQueue) { q.clock = c }
}

// New returns an empty queue. It returns cfg.Validate()'s error, wrapping
// spec.ErrInvalidConfig, as is, and spec.ErrInvalidConfig for a nil clock.
// The flushes do not run until Run.
func New(cfg spec.Config, opts ...Option) (*PriorityQueue, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	// Own the registry: a caller changing its map later must not race with
	// move requests.
	if cfg.PluginEvents != nil {
		evs := make(spec.PluginEvents, len(cfg.PluginEvents))
		for p, e := range cfg.PluginEvents {
			evs[p] = slices.Clone(e)
		}
		cfg.PluginEvents = evs
	}
	// The same for the hints profile's functions (R16, R17).
	cfg.QueueingHints = maps.Clone(cfg.QueueingHints)
	cfg.PreEnqueuePlugins = maps.Clone(cfg.PreEnqueuePlugins)
	q := &PriorityQueue{
		cfg:              cfg,
		clock:            clock.RealClock{},
		pods:             podIndex{slots: true},
		byUID:            podIndex{byUID: true, slots: true},
		moveRequestCycle: -1,
		stop:             make(chan struct{}),
		p:                newProfile(cfg),
		nom:              newNominator(),
	}
	q.activeQ = podHeap{where: inActiveQ, timeOf: func(e *entry) time.Time { return e.info.Timestamp }}
	q.backoffQ = podHeap{where: inBackoffQ, timeOf: q.expiry}
	for _, o := range opts {
		o(q)
	}
	if isNil(q.clock) {
		return nil, fmt.Errorf("%w: WithClock(nil): the queue needs a clock", spec.ErrInvalidConfig)
	}
	q.cond.L = &q.mu
	q.base = q.clock.Now()
	return q, nil
}

// isNil reports whether c is nil or a nil pointer, map, func... in an
// interface, any of which would panic on the first reading of the time.
func isNil(c clock.WithTicker) bool {
	if c == nil {
		return true
	}
	switch v := reflect.ValueOf(c); v.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Func, reflect.Chan, reflect.Interface, reflect.Slice:
		return v.IsNil()
	}
	return false
}

// Config returns a copy of the queue's config.
func (q *PriorityQueue) Config() spec.Config {
	c := q.cfg
	if c.PluginEvents != nil {
		c.PluginEvents = make(spec.PluginEvents, len(q.cfg.PluginEvents))
		for p, e := range q.cfg.PluginEvents {
			c.PluginEvents[p] = slices.Clone(e)
		}
	}
	return c
}

// Run starts the two periodic flushes on the queue's clock:
// FlushBackoffQCompleted every BackoffQFlushPeriod (R5) and
// FlushUnschedulablePodsLeftover every UnschedulablePodsFlushPeriod (R6).
// The first of each runs one period after Run. Run on a running or closed
// queue does nothing. Close stops them; RunContext can stop them earlier.
func (q *PriorityQueue) Run() { q.RunContext(context.Background()) }

// RunContext is Run with a context: when ctx is done the flushes stop
// (the queue stays open, its operations keep working, and a later Run or
// RunContext starts them again), as they do on Close. RunContext returns at
// once; Close still waits for the flush goroutines to exit, whichever way
// they were stopped. A ctx that is already done starts nothing.
func (q *PriorityQueue) RunContext(ctx context.Context) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.running || q.closed || ctx.Err() != nil {
		return
	}
	q.running = true
	// Added under mu, so a Close that follows waits for both. The tickers
	// are made here, not in the goroutines, so that when Run returns they
	// are armed: a test may step a fake clock right away.
	q.wg.Add(2)
	left := new(atomic.Int32)
	left.Store(2)
	exit := func() {
		// The last goroutine of this run to exit lets a later Run start
		// new ones. Done comes after unlocking: Close waits without mu.
		if left.Add(-1) == 0 {
			q.mu.Lock()
			q.running = false
			q.mu.Unlock()
		}
		q.wg.Done()
	}
	if q.p.alignedFlushes() {
		// Due at the start of each ordering window (R5h): the timer is set
		// again after each flush for the next window start, so the flushes
		// stay aligned to the clock, not to Run.
		t := q.clock.NewTimer(q.p.backoffFlushDelay(q.clock.Now(), q.cfg.BackoffQFlushPeriod))
		rearm := func() { t.Reset(q.p.backoffFlushDelay(q.clock.Now(), q.cfg.BackoffQFlushPeriod)) }
		go q.flushLoop(ctx, t.C(), func() { t.Stop() }, q.FlushBackoffQCompleted, rearm, exit)
	} else {
		t := q.clock.NewTicker(q.cfg.BackoffQFlushPeriod)
		go q.flushLoop(ctx, t.C(), t.Stop, q.FlushBackoffQCompleted, nil, exit)
	}
	t := q.clock.NewTicker(q.cfg.UnschedulablePodsFlushPeriod)
	go q.flushLoop(ctx, t.C(), t.Stop, q.FlushUnschedulablePodsLeftover, nil, exit)
}

// flushLoop runs flush each time fire delivers, until Close or ctx ends;
// rearm, if not nil, sets the next delivery after each flush (a timer).
func (q *PriorityQueue) flushLoop(ctx context.Context, fire <-chan time.Time, stop func(), flush, rearm func(), exit func()) {
	defer exit()
	defer stop()
	for {
		select {
		case <-q.stop:
			return
		case <-ctx.Done():
			return
		case <-fire:
		}
		// A tick and Close (or cancel) may be ready together; select picks
		// at random, so look again rather than flush after being stopped.
		select {
		case <-q.stop:
			return
		case <-ctx.Done():
			return
		default:
		}
		flush()
		if rearm != nil {
			rearm()
		}
	}
}

// Close is R13 of spec.Queue. It stops the periodic flushes of Run and
// returns once their goroutines have exited.
func (q *PriorityQueue) Close() {
	q.mu.Lock()
	if !q.closed {
		q.closed = true
		close(q.stop)
		q.cond.Broadcast()
	}
	q.mu.Unlock()
	// Not under mu: a flush in progress needs it to finish.
	q.wg.Wait()
}

// SchedulingCycle implements spec.Queue.SchedulingCycle.
func (q *PriorityQueue) SchedulingCycle() int64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.schedulingCycle
}

// MoveRequestCycle returns moveRequestCycle, the schedulingCycle of the
// last move request, -1 before any (see spec.Queue).
func (q *PriorityQueue) MoveRequestCycle() int64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.moveRequestCycle
}

// Add is R1 of spec.Queue. A pod it replaces keeps its entry, reset.
func (q *PriorityQueue) Add(pod *spec.Pod) error {
	if err := pod.Validate(); err != nil {
		return err
	}
	// Hash before locking: the critical section stays short.
	h := hashesOf(pod)
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.addLocked(pod, h, activeUnschedulablePodAdd)
}

// hashes are a pod's hashes in the two indexes.
type hashes struct{ key, uid uint64 }

func hashesOf(p *spec.Pod) hashes {
	return hashes{keyHash(p.Namespace, p.Name), uidHash(p.UID)}
}

// addLocked is R1 under mu; h are the pod's hashes. Callers wake Pop.
func (q *PriorityQueue) addLocked(pod *spec.Pod, h hashes, counter hotCounter) error {
	e := q.pods.findKey(h.key, pod.Namespace, pod.Name)
	if e != nil && (e.loc == inActiveQ || e.loc == inFlight) {
		return fmt.Errorf("%w: Add of %s, which is in %s", spec.ErrAlreadyQueued, pod.Key(), e.loc)
	}
	if err := q.uidHeldElsewhere(pod, h, e); err != nil {
		return err
	}
	from := nowhere
	if e != nil {
		from = e.loc
		q.detach(e)
		q.setPod(e, pod, h)
	} else {
		e = q.newEntry()
		e.info.Pod = pod
		q.track(e, h)
	}
	now := q.clock.Now()
	e.info = podInfo{Pod: pod, Timestamp: now}
	q.nom.add(pod, spec.NominateNoop, "") // R18
	if q.p.added(q, e, from, now, counter) {
		q.cond.Signal()
	}
	return nil
}

// Pop is R2 of spec.Queue. Among the maximal pods of activeQ it returns
// the one that entered activeQ first. The copy it returns is its one
// allocation.
func (q *PriorityQueue) Pop() (*spec.QueuedPodInfo, int64, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for !q.p.canPop(q) && !q.closed {
		q.waiting++
		q.cond.Wait()
		q.waiting--
	}
	return q.popLocked()
}

// PopContext is Pop that gives up when ctx is done first: a Pop blocked on
// an empty activeQ returns ctx.Err() (and changes nothing), so a scheduler
// can stop its loop without closing the queue. A pod already in activeQ is
// returned even if ctx is done.
func (q *PriorityQueue) PopContext(ctx context.Context) (*spec.QueuedPodInfo, int64, error) {
	if ctx.Done() == nil {
		return q.Pop()
	}
	// Wake the waiters under mu when ctx ends: a Pop checks ctx and then
	// waits without letting go of mu in between, so it cannot miss this.
	stop := context.AfterFunc(ctx, func() {
		q.mu.Lock()
		q.cond.Broadcast()
		q.mu.Unlock()
	})
	defer stop()
	q.mu.Lock()
	defer q.mu.Unlock()
	for !q.p.canPop(q) && !q.closed {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		q.waiting++
		q.cond.Wait()
		q.waiting--
	}
	return q.popLocked()
}

// popLocked is R2 under mu once activeQ has a pod or the queue is closed.
func (q *PriorityQueue) popLocked() (*spec.QueuedPodInfo, int64, error) {
	if q.closed {
		return nil, 0, spec.ErrClosed
	}
	e := q.p.next(q)
	e.info.Attempts++
	e.loc = inFlight
	q.schedulingCycle++
	q.lastPopped = e
	out := new(spec.QueuedPodInfo)
	*out = e.info.full()
	q.p.popped(q, e, out)
	return out, q.schedulingCycle, nil
}

// AddUnschedulableIfNotPresent is R3 of spec.Queue. The plugin set is
// interned: pods rejected by the same plugins share one PluginSet and one
// group of unschedulablePods.
func (q *PriorityQueue) AddUnschedulableIfNotPresent(pInfo *spec.QueuedPodInfo, podSchedulingCycle int64) error {
	if err := pInfo.Validate(); err != nil {
		return err
	}
	pod := pInfo.Pod
	h := hashesOf(pod)
	q.mu.Lock()
	defer q.mu.Unlock()
	e := q.pods.findKey(h.key, pod.Namespace, pod.Name)
	if e != nil && e.loc != inFlight {
		return fmt.Errorf("%w: pod %s is already present in %s", spec.ErrAlreadyQueued, pInfo.Key(), e.loc)
	}
	if err := q.uidHeldElsewhere(pod, h, e); err != nil {
		return err
	}
	plugins := q.unschedulablePods.intern(pInfo.UnschedulablePlugins)
	var flightUID spec.UID
	if e != nil {
		flightUID = e.info.Pod.UID
		q.detach(e)
		q.setPod(e, pod, h)
	} else {
		e = q.newEntry()
		e.info.Pod = pod
		q.track(e, h)
	}
	e.info.set(pInfo)
	e.info.UnschedulablePlugins = plugins
	now := q.clock.Now()
	e.info.Timestamp = now
	q.p.failed(q, e, flightUID, podSchedulingCycle, now)
	return nil
}

// MoveAllToActiveOrBackoffQueue is R4 of spec.Queue: if some plugin registered interest
// in event (or it is a wildcard), every unschedulable pod that passes
// preCheck and that the event may help moves to backoffQ if still backing
// off, else to activeQ, and moveRequestCycle becomes schedulingCycle even
// if no pod moved. An event of no interest changes nothing. preCheck runs
// under the queue's lock and must not call the queue.
//
// The request is all or nothing: preCheck is asked about every candidate
// before any pod moves. If it panics, the panic propagates to the caller
// with the lock released and the queue unchanged: no pod moved,
// moveRequestCycle and the metrics as before. No wake-up is lost either:
// no pod reached activeQ, and whatever next puts one there (an Add, a
// retried request, a flush) wakes the blocked Pops as usual.
func (q *PriorityQueue) MoveAllToActiveOrBackoffQueue(event spec.ClusterEvent, preCheck spec.PreEnqueueCheck) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.p.move(q, spec.Occurrence{Event: event}, q.clock.Now(), func(e *entry) bool { return preCheck == nil || preCheck(e.info.Pod) })
}

// movePods is the heart of R4, shared by R6 and R11: it moves the
// unschedulable pods that keep selects and event may help, deciding
// backoffQ or activeQ at now.
//
// It is all or nothing: keep, which may run the caller's preCheck, is
// asked about every candidate before any pod moves, so a keep that panics
// leaves the queue as it was (no pod moved, moveRequestCycle and the
// metrics unchanged) and the panic reaches the caller once the deferred
// unlock has run. Nothing moved means no Pop has a pod to wake for; the
// second phase, which moves and then wakes, runs no caller code.
//
// The first phase remembers its choice without memory of its own: it
// partitions each group so that the chosen pods end it, from g.split on
// (the order of pods within a group means nothing, and each swap keeps
// every pos right, so a panic between two swaps leaves a valid group); the
// second phase moves each group's tail.
func (q *PriorityQueue) movePods(event spec.ClusterEvent, now time.Time, keep func(*entry) bool) {
	if !q.cfg.PluginEvents.IsEventOfInterest(event) {
		return
	}
	events := q.cfg.PluginEvents
	q.unschedulablePods.all(func(g *podGroup) {
		g.split = len(g.pods)
		// A group shares its plugins: if the event cannot help them, none
		// of its pods is examined.
		perPod := g == &q.unschedulablePods.private
		if !perPod && !events.IsPodWorthRequeuing(g.plugins, event) {
			return
		}
		for i := len(g.pods) - 1; i >= 0; i-- {
			e := g.pods[i]
			if keep(e) && (!perPod || events.IsPodWorthRequeuing(e.info.UnschedulablePlugins, event)) {
				g.split--
				g.swap(i, g.split)
			}
		}
	})
	var toActive, toBackoff int
	q.unschedulablePods.all(func(g *podGroup) {
		// Last first: removing a group's last pod moves no other.
		for len(g.pods) > g.split {
			e := g.pods[len(g.pods)-1]
			q.unschedulablePods.remove(g, e)
			if q.requeue(e, now) {
				toActive++
			} else {
				toBackoff++
			}
		}
	})
	q.moveRequestCycle = q.schedulingCycle
	if toActive+toBackoff > 0 {
		label := q.metrics.label(q.eventLabel(event))
		q.metrics.addEvent(QueueActive, label, toActive)
		q.metrics.addEvent(QueueBackoff, label, toBackoff)
	}
	q.wake(toActive)
}

// requeue is "requeueing a pod" of spec.Queue for a detached entry. It
// reports whether the pod went to activeQ; the caller wakes Pop.
func (q *PriorityQueue) requeue(e *entry, now time.Time) bool {
	if q.backingOff(e, now) {
		q.pushBackoffQ(e)
		return false
	}
	q.moveToActiveQ(e, now)
	return true
}

// FlushBackoffQCompleted is R5 of spec.Queue. The pods enter activeQ in
// expiry order, which decides how they tie there. Run calls it every
// BackoffQFlushPeriod.
func (q *PriorityQueue) FlushBackoffQCompleted() {
	q.mu.Lock()
	defer q.mu.Unlock()
	now := q.clock.Now()
	moved := 0
	// backoffQ is ordered by expiry and being past one's expiry is
	// monotone in it, so the completed pods are exactly a prefix.
	for q.backoffQ.len() > 0 && !q.backingOff(q.backoffQ.min(), now) {
		q.moveToActiveQ(q.backoffQ.popMin(), now)
		moved++
	}
	q.metrics.hot[activeBackoffComplete] += uint64(moved)
	q.wake(moved)
	q.shrink(now)
}

// shrink gives back the room a burst left behind (see slack.go), at the
// backoffQ flush at now. The free list keeps at most max(minFree, pods/4)
// entries once its peak has stayed above that for shrinkAfter; the
// entries past it go to the queue's entryPool.
func (q *PriorityQueue) shrink(now time.Time) {
	q.pods.shrink(now)
	q.byUID.shrink(now)
	q.activeQ.shrink(now)
	q.backoffQ.shrink(now)
	q.unschedulablePods.shrink(now)
	keep := max(minFree, q.pods.n/4)
	used := q.freePeak
	q.freePeak = len(q.free)
	if !q.freeLow.due(now, used > keep && cap(q.free) > keep) {
		return
	}
	q.freeLow = slackTimer{}
	for _, e := range q.free[min(keep, len(q.free)):] {
		q.entryPool.Put(e)
	}
	q.free = slices.Clone(q.free[:min(keep, len(q.free))])
}

// FlushUnschedulablePodsLeftover is R6 of spec.Queue. Run calls it every
// UnschedulablePodsFlushPeriod.
func (q *PriorityQueue) FlushUnschedulablePodsLeftover() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.p.leftover(q, q.clock.Now())
}

// Activate is R8 of spec.Queue.
func (q *PriorityQueue) Activate(pods []*spec.Pod) error {
	for _, p := range pods {
		if err := p.Validate(); err != nil {
			return err
		}
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	now := q.clock.Now()
	moved := 0
	for _, p := range pods {
		e := q.pods.findKey(keyHash(p.Namespace, p.Name), p.Namespace, p.Name)
		switch {
		case e != nil && e.loc == inUnschedulablePods:
			if q.p.activateParked(q, e, now) {
				moved++
			}
		case e != nil && e.loc == inBackoffQ:
			q.detach(e)
			q.moveToActiveQ(e, now)
			moved++
		default:
			q.p.activateOther(q, e, p)
		}
	}
	q.metrics.hot[activeForceActivate] += uint64(moved)
	q.wake(moved)
	return nil
}

// Update is R9 of spec.Queue. A pod in activeQ whose priority changed is
// re-sorted there; in backoffQ the heap key, its expiry, does not depend on
// the pod object.
func (q *PriorityQueue) Update(oldPod, newPod *spec.Pod) error {
	if err := oldPod.Validate(); err != nil {
		return err
	}
	if err := newPod.Validate(); err != nil {
		return err
	}
	if oldPod.Namespace != newPod.Namespace || oldPod.Name != newPod.Name {
		return fmt.Errorf("%w: Update from %s to %s changes the key", spec.ErrInvalidPod, oldPod.Key(), newPod.Key())
	}
	h := hashesOf(newPod)
	q.mu.Lock()
	defer q.mu.Unlock()
	e := q.pods.findKey(h.key, newPod.Namespace, newPod.Name)
	if err := q.uidHeldElsewhere(newPod, h, e); err != nil {
		return err
	}
	if e == nil {
		// Cannot fail: the pod is unknown and its UID is free.
		return q.addLocked(newPod, h, activeUnschedulablePodUpdate)
	}
	if e.loc == inFlight && e.info.Pod.UID != newPod.UID {
		// R9: another object under the key; the attempt in flight was on
		// the old one, which ends as by Delete.
		q.nom.remove(e.info.Pod.UID)
		q.drop(e)
		return q.addLocked(newPod, h, activeUnschedulablePodUpdate)
	}
	if e.loc != inFlight {
		q.nom.update(oldPod, newPod) // R18
	}
	oldPriority := e.info.Pod.Priority
	q.setPod(e, newPod, h)
	switch e.loc {
	case inActiveQ:
		if newPod.Priority != oldPriority {
			q.resortActiveQ(e)
		}
	case inBackoffQ:
		if newPod.Priority != oldPriority {
			q.p.resortBackoffQ(q, e)
		}
	case inUnschedulablePods:
		q.p.updateUnschedulable(q, e, oldPod, newPod, q.clock.Now())
	case inFlight:
		q.p.updateInFlight(q, e, oldPod, newPod)
	}
	return nil
}

// Delete is R10 of spec.Queue. The entry is recycled.
func (q *PriorityQueue) Delete(pod *spec.Pod) error {
	if err := pod.Validate(); err != nil {
		return err
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	nominated := q.nom.remove(pod.UID) // R18
	e := q.pods.findKey(keyHash(pod.Namespace, pod.Name), pod.Namespace, pod.Name)
	if e == nil {
		if nominated {
			return nil
		}
		return fmt.Errorf("%w: Delete of %s", spec.ErrPodNotFound, pod.Key())
	}
	q.drop(e)
	return nil
}

// drop takes e out of the queue wherever it is, in flight included, and
// recycles it (R10).
func (q *PriorityQueue) drop(e *entry) {
	if e.loc == inFlight {
		q.p.leftFlight(q, e)
	}
	q.detach(e)
	q.untrack(e)
	q.freeEntry(e)
}

// AssignedPodAdded is R11 of spec.Queue.
func (q *PriorityQueue) AssignedPodAdded(pod *spec.Pod) error {
	if err := pod.Validate(); err != nil {
		return err
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.p.assignedPodAdded(q, pod, q.clock.Now())
	return nil
}

// AssignedPodUpdated is R11 of spec.Queue for an update of an assigned
// pod.
func (q *PriorityQueue) AssignedPodUpdated(oldPod, newPod *spec.Pod, event spec.ClusterEvent) error {
	if err := newPod.Validate(); err != nil {
		return err
	}
	if oldPod != nil {
		if err := oldPod.Validate(); err != nil {
			return err
		}
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.p.assignedPodUpdated(q, oldPod, newPod, event, q.clock.Now())
	return nil
}

// crossTopology selects the unschedulable pods an assigned pod may help,
// as spec.Queue.AssignedPodAdded defines them (R11).
func crossTopology(assigned *spec.Pod) func(*entry) bool {
	return func(e *entry) bool {
		p := e.info.Pod
		if e.info.UnschedulablePlugins.Has(spec.PluginPodTopologySpread) && p.Namespace == assigned.Namespace {
			return true
		}
		return slices.ContainsFunc(p.RequiredAffinityTerms, func(t spec.AffinityTerm) bool {
			return t.Matches(p.Namespace, assigned)
		})
	}
}

// Done is R12 of spec.Queue. The pod is found by UID in its own index,
// and its entry is recycled. The pod popped last is found without the
// index: the UID the scheduler passes is usually that pod's own string, so
// comparing it costs no read of its bytes, where hashing it would read
// them (a cache miss per Done in a large queue). The entry leaves both
// indexes by the slots it records, without a probe.
func (q *PriorityQueue) Done(uid spec.UID) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	e := q.lastPopped
	if e == nil || e.loc != inFlight || e.info.Pod.UID != uid {
		// The UID index holds at most one entry per UID (I1), so the
		// entry found either way is the same.
		e = q.byUID.findUID(uidHash(uid), uid)
	}
	if e == nil || e.loc != inFlight {
		return fmt.Errorf("%w: Done of UID %q", spec.ErrNotInFlight, uid)
	}
	q.p.leftFlight(q, e)
	q.detach(e)
	q.untrack(e)
	q.freeEntry(e)
	return nil
}

// Snapshot returns a copy of everything the queue holds: the pods of each
// place sorted by key, both cycles, Closed, and Now read from the clock.
// The copies share the immutable Pod pointers and nothing else.
//
// Snapshot holds the queue's lock only to copy the entries into room it
// allocated before; cloning the plugin sets (immutable once the queue holds
// them) and sorting happen after it lets go, so operations issued
// meanwhile wait for the copy, not for the allocation or the sort.
func (q *PriorityQueue) Snapshot() spec.Snapshot {
	// Allocate the room (about 9 MB at 100k pods) before taking the lock
	// for the copy, sized by a first look; appending covers pods that
	// arrive in between.
	q.mu.Lock()
	nActive, nBackoff, nUnschedulable := q.activeQ.len(), q.backoffQ.len(), q.unschedulablePods.len()
	nFlight := q.pods.n - nActive - nBackoff - nUnschedulable
	q.mu.Unlock()
	var s spec.Snapshot
	s.ActiveQ = makeInfos(nActive)
	s.BackoffQ = makeInfos(nBackoff)
	s.UnschedulablePods = makeInfos(nUnschedulable)
	s.InFlight = makeInfos(nFlight)

	q.mu.Lock()
	s.Now = q.clock.Now()
	s.SchedulingCycle, s.MoveRequestCycle, s.Closed = q.schedulingCycle, q.moveRequestCycle, q.closed
	q.pods.all(func(e *entry) {
		switch e.loc {
		case inActiveQ:
			s.ActiveQ = append(s.ActiveQ, e.info.full())
		case inBackoffQ:
			s.BackoffQ = append(s.BackoffQ, e.info.full())
		case inUnschedulablePods:
			s.UnschedulablePods = append(s.UnschedulablePods, e.info.full())
		case inFlight:
			s.InFlight = append(s.InFlight, e.info.full())
		}
	})
	q.p.snapshot(&s)
	q.mu.Unlock()
	for _, pl := range []*[]spec.QueuedPodInfo{&s.ActiveQ, &s.BackoffQ, &s.UnschedulablePods, &s.InFlight} {
		if len(*pl) == 0 {
			*pl = nil // emptied since the first look: nil, as the model has it
			continue
		}
		for i := range *pl {
			(*pl)[i].UnschedulablePlugins = slices.Clone((*pl)[i].UnschedulablePlugins)
			(*pl)[i].PendingPlugins = slices.Clone((*pl)[i].PendingPlugins)
		}
		sortByKey(*pl)
	}
	return s
}

// makeInfos returns room for about n pods, nil for none (as the model's
// snapshots have it: a place that is still empty stays nil).
func makeInfos(n int) []spec.QueuedPodInfo {
	if n == 0 {
		return nil
	}
	return make([]spec.QueuedPodInfo, 0, n+n/64)
}

// sortByKey is spec.SortPods without building a key string per
// comparison.
func sortByKey(pods []spec.QueuedPodInfo) {
	slices.SortFunc(pods, func(a, b spec.QueuedPodInfo) int { return compareKeys(a.Pod, b.Pod) })
}

// compareKeys orders two pods as strings.Compare orders their keys,
// namespace + "/" + name, without concatenating: valid pods have no "/" in
// either part, so when one namespace is a proper prefix of the other, the
// "/" that follows the shorter decides against the other's next byte.
func compareKeys(a, b *spec.Pod) int {
	if a.Namespace == b.Namespace {
		return strings.Compare(a.Name, b.Name)
	}
	n := min(len(a.Namespace), len(b.Namespace))
	if c := strings.Compare(a.Namespace[:n], b.Namespace[:n]); c != 0 {
		return c
	}
	if len(a.Namespace) == n {
		return cmp.Compare('/', b.Namespace[n])
	}
	return cmp.Compare(a.Namespace[n], '/')
}

// String renders the queue's size in queue terms, for logs.
func (q *PriorityQueue) String() string {
	q.mu.Lock()
	defer q.mu.Unlock()
	return fmt.Sprintf("activeQ=%d backoffQ=%d unschedulablePods=%d inFlight=%d schedulingCycle=%d moveRequestCycle=%d closed=%v",
		q.activeQ.len(), q.backoffQ.len(), q.unschedulablePods.len(), q.pods.n-q.activeQ.len()-q.backoffQ.len()-q.unschedulablePods.len(),
		q.schedulingCycle, q.moveRequestCycle, q.closed)
}

// --- moving entries between places; all under mu ---

// moveToActiveQ puts a detached entry in activeQ: "entering activeQ" of
// spec.Queue, but the callers wake Pop, once per operation.
func (q *PriorityQueue) moveToActiveQ(e *entry, now time.Time) {
	if e.info.InitialAttemptTimestamp.IsZero() {
		e.info.InitialAttemptTimestamp = now
	}
	q.pushActiveQ(e)
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
// neither can the expiry, I2). A pod never attempted has no backoff (the
// zero expiry); rank 0 keeps it ahead of every pod that has one, whatever
// the clock reads.
func (q *PriorityQueue) pushBackoffQ(e *entry) {
	expiry := q.expiry(e)
	if expiry.IsZero() {
		q.backoffQ.push(e, 0, 0)
		return
	}
	q.backoffQ.push(e, 1, sinceBase(expiry, q.base))
}

// eventLabel is event.EventLabel(), which formats a label unless the event
// has one, remembered for the last event: move requests come in runs of the
// same event.
func (q *PriorityQueue) eventLabel(event spec.ClusterEvent) string {
	if event != q.lastEvent || q.lastLabel == "" {
		q.lastEvent, q.lastLabel = event, event.EventLabel()
	}
	return q.lastLabel
}

// track adds a new entry, whose pod is set, to both indexes.
func (q *PriorityQueue) track(e *entry, h hashes) {
	q.pods.insert(h.key, e)
	q.byUID.insert(h.uid, e)
}

// untrack removes a detached entry from both indexes.
func (q *PriorityQueue) untrack(e *entry) {
	q.pods.remove(e)
	q.byUID.remove(e)
}

// setPod replaces a tracked entry's pod object, of the same key, whose
// hashes are h; the UID may change with it.
func (q *PriorityQueue) setPod(e *entry, pod *spec.Pod, h hashes) {
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

// wake tells blocked Pops that n pods reached activeQ: one Pop per pod, so
// Signal for one and Broadcast for more.
func (q *PriorityQueue) wake(n int) {
	switch {
	case n == 1:
		q.cond.Signal()
	case n > 1:
		q.cond.Broadcast()
	}
}
