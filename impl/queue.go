// Package impl is the production scheduling queue: a queue that satisfies
// the contract of spec.Queue in each of its three profiles (spec.Profile:
// the classic kube-scheduler v1.33 queue, v1.37.2's queueing hints, and
// v1.37.2 with pod groups, which adds spec.PodGroupQueue), built for speed
// and safe for concurrent use. It behaves exactly like package model, the
// contract's executable form, for every operation; the differences are the
// ones a real queue needs: Pop blocks instead of returning
// spec.ErrWouldBlock, time comes from an injected clock, the two flushes
// run periodically after Run (in the hints and podgroups profiles the
// backoffQ flush at the start of every one-second window), and pods that
// spec.Less leaves tied are popped in the order they entered activeQ.
//
// The profiles share this machine; where they differ (the decisions D1-D7
// of spec.Profile) it asks its profile (profile.go), answered once in
// classic.go, once in hints.go (the in-flight list, hint replay) and once
// in podgroups.go (the hints profile plus pod groups: a group's members
// move as one entity, and the group operations of spec.PodGroupQueue);
// all gate with PreEnqueue (R17, gates in profile.go), each at its own
// points. A profile returns decisions and this file applies them: put is
// the one function that moves a pod between places (a member's included),
// counts its arrival and readies a wake-up; putGroup is its twin for a
// group's entity; and unlock, the end of every operation, wakes the
// blocked Pops. queue.go asks every profile the same questions, the group
// ones included (groupRules in profile.go): the classic and hints profiles
// answer those with noGroups (no pod is a member), so their paths never
// reach podgroups.go. The one exception is a move request's group
// decisions, asked of the podgroups profile by type (moveRequest says
// why). entry.go holds the entry and the places' helpers,
// window.go backoffQ's second order for Pop in the hints profiles.
//
// Layout: every pod the queue holds has one entry of 120 bytes (the
// hints profile's per-pod fields, spec.HintFields, behind a pointer that
// stays nil in the classic profile), found by key
// (Add, Update, Delete, Activate) and by UID (Done) in two compact hash
// indexes (index.go). The entry records where the pod is: activeQ and
// backoffQ are 4-ary heaps of 24-byte slots that carry the sort keys inline
// and delete lazily (heap.go), unschedulablePods groups its pods by the
// interned set of plugins that rejected them (so a move request examines
// only the pods its event may help, unschedulable.go), and in flight is just
// a mark on the entry. One mutex guards everything; one condition
// variable on it wakes blocked Pops. Add, AddUnschedulableIfNotPresent,
// Done and the moves allocate nothing once the queue has recycled the
// entries of pods that are Done and interned the plugin sets it is given;
// Pop needs one copy per pod's stay, which the pod's retries reuse once
// the caller hands it back (entry.go), and takes it from blocks of
// copyBlock: one allocation per 64 stays.
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

// PriorityQueue is the concurrent scheduling queue. Create it with New; it
// satisfies spec.ObjectQueue (spec.Queue, and the caller's event objects
// and update verdicts, R19) and spec.Nominator. All methods are safe for
// concurrent use.
type PriorityQueue struct {
	cfg   spec.Config
	clock clock.WithTicker
	// base is the clock reading at New; heap keys are durations since it.
	base time.Time

	// mu guards everything below. cond (on mu) is where Pop waits for a
	// pod it may take or the queue to close; ready counts the pods the
	// operation holding mu made poppable, woken by unlock.
	mu    queueMutex
	cond  sync.Cond
	ready int

	// pods and byUID index every pod the queue holds, wherever it is. The
	// UID index is kept from Add on, not only in flight, because Add has
	// the pod in cache and Pop would not: Pop then touches no index at all.
	pods              podIndex
	byUID             podIndex
	activeQ           podHeap
	backoffQ          podHeap
	unschedulablePods unschedulablePods
	// popQ is backoffQ in ordering-window order, kept when windowed: when
	// the profile may pop from backoffQ (window.go).
	popQ     windowHeap
	windowed bool
	// scratch holds a move request's choices (moveRequest), reused;
	// scratchPeak is the most since the last flush, scratchLow how long
	// it has been oversized (see shrink).
	// copies is the unused rest of the block Pop's copies come from
	// (newCopy).
	copies      []spec.QueuedPodInfo
	scratch     []choice
	scratchPeak int
	scratchLow  slackTimer
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
	// nominator (R18, every profile).
	p   profile
	nom *nominator
}

var _ spec.ObjectQueue = (*PriorityQueue)(nil)

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
		nom:              newNominator(),
	}
	q.p = newProfile(&q.cfg)
	q.windowed = q.p.windowed()
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
	defer q.unlock()
	return q.addLocked(pod, h, false)
}

// addLocked is R1 under mu; h are the pod's hashes; update says it is an
// Update of an unknown pod.
func (q *PriorityQueue) addLocked(pod *spec.Pod, h hashes, update bool) error {
	e := q.pods.findKey(h.key, pod.Namespace, pod.Name)
	if e != nil && (e.loc == inActiveQ || e.loc == inFlight) {
		return fmt.Errorf("%w: Add of %s, which is in %s", spec.ErrAlreadyQueued, pod.Key(), e.loc)
	}
	if e != nil && q.p.member(pod, e) {
		return fmt.Errorf("%w: Add of member %s, which is held", spec.ErrAlreadyQueued, pod.Key()) // G2
	}
	if err := q.uidHeldElsewhere(pod, h, e); err != nil {
		return err
	}
	from := nowhere
	if e != nil {
		from = e.loc
	}
	e = q.entryFor(e, pod, h)
	now := q.clock.Now()
	e.info.reset(pod, now)
	q.nom.add(pod, spec.NominateNoop, "") // R18
	q.put(e, q.p.added(e, from, update), now)
	return nil
}

// entryFor returns the entry that is to hold pod (h its hashes): e, the
// entry held under its key, taken from its place and given pod, or, if e
// is nil, a new entry, tracked.
func (q *PriorityQueue) entryFor(e *entry, pod *spec.Pod, h hashes) *entry {
	if e != nil {
		q.detach(e)
		q.setPod(e, pod, h)
		return e
	}
	e = q.newEntry()
	e.info.Pod = pod
	q.track(e, h)
	return e
}

// Pop is R2 of spec.Queue. Among the maximal pods of activeQ it returns
// the one that entered activeQ first, in a copy that the pod's next Pop
// refills once the caller hands it back (entry.go).
func (q *PriorityQueue) Pop() (*spec.QueuedPodInfo, int64, error) {
	return q.popWait(nil)
}

// PopContext is Pop that gives up when ctx is done first: a Pop blocked on
// an empty activeQ returns ctx.Err() (and changes nothing), so a scheduler
// can stop its loop without closing the queue. A pod already in activeQ is
// returned even if ctx is done.
func (q *PriorityQueue) PopContext(ctx context.Context) (*spec.QueuedPodInfo, int64, error) {
	if ctx.Done() == nil {
		return q.popWait(nil)
	}
	// Wake the waiters under mu when ctx ends: a Pop checks ctx and then
	// waits without letting go of mu in between, so it cannot miss this.
	stop := context.AfterFunc(ctx, func() {
		q.mu.Lock()
		q.cond.Broadcast()
		q.mu.Unlock()
	})
	defer stop()
	return q.popWait(ctx)
}

// popWait is Pop and PopContext.
func (q *PriorityQueue) popWait(ctx context.Context) (*spec.QueuedPodInfo, int64, error) {
	q.mu.Lock()
	defer q.unlock()
	from, err := q.waitPop(ctx)
	if err != nil {
		return nil, 0, err
	}
	return q.popLocked(from)
}

// waitPop, under mu, waits while there is nothing to pop, until the
// queue is closed or ctx, unless nil, is done; it returns where Pop (or
// PopEntity) takes from.
func (q *PriorityQueue) waitPop(ctx context.Context) (place, error) {
	for {
		if q.closed {
			return nowhere, spec.ErrClosed
		}
		if from := q.p.popFrom(view{q: q}); from != nowhere {
			return from, nil
		}
		if ctx != nil {
			if err := ctx.Err(); err != nil {
				return nowhere, err
			}
		}
		q.waiting++
		q.cond.Wait()
		q.waiting--
	}
}

// popLocked is R2 under mu: it takes the pod Pop takes from, the place
// the profile named (activeQ, or backoffQ by ordering window).
func (q *PriorityQueue) popLocked(from place) (*spec.QueuedPodInfo, int64, error) {
	if from == groupNext {
		return nil, 0, spec.ErrGroupEntity // G3: PopEntity's
	}
	var e *entry
	why := noCount
	if from == inActiveQ {
		e = q.activeQ.popMin()
	} else {
		e = q.popQ.popMin()
		why = popFromBackoffQ
	}
	e.info.Attempts++
	q.schedulingCycle++
	q.lastPopped = e
	token, clearRejectors := q.p.popped(e)
	q.put(e, move{to: inFlight, why: why}, time.Time{})
	e.pos = token
	if clearRejectors {
		e.info.UnschedulablePlugins = nil
	}
	// The copy shares the interned plugin sets, which are read-only for
	// the caller as for the queue (spec.Queue's Pop).
	if e.out == nil {
		e.out = q.newCopy()
	}
	e.info.fill(e.out)
	return e.out, q.schedulingCycle, nil
}

// copyBlock is how many Pop copies one allocation makes room for (128
// bytes each, 8 KiB a block). A copy is never refilled for another pod
// (the goroutine that popped a pod may read its copy after anyone's Done:
// entry.go), so every pod's stay needs a new one; taking them from blocks
// makes that one allocation per copyBlock stays instead of one per stay.
// The price: a caller that keeps a copy keeps its whole block alive.
const copyBlock = 64

// newCopy is room for one Pop copy, handed out once: no other pod's Pop
// ever refills it.
func (q *PriorityQueue) newCopy() *spec.QueuedPodInfo {
	if len(q.copies) == 0 {
		q.copies = make([]spec.QueuedPodInfo, copyBlock)
	}
	c := &q.copies[0]
	q.copies = q.copies[1:]
	return c
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
	defer q.unlock()
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
	}
	e = q.entryFor(e, pod, h)
	e.info.set(pInfo)
	e.handedBack(pInfo)
	e.info.UnschedulablePlugins = plugins
	if e.info.hints != nil {
		e.info.hints.PendingPlugins = q.unschedulablePods.intern(e.info.hints.PendingPlugins)
	}
	now := q.clock.Now()
	e.info.Timestamp = now
	q.put(e, q.p.failed(view{q, now}, e, flightUID, podSchedulingCycle), now)
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
	defer q.unlock()
	q.moveAll(spec.Occurrence{Event: event}, preCheck)
}

// MoveAllToActiveOrBackoffQueueWithObjects is R4 of spec.ObjectQueue: the
// move request of MoveAllToActiveOrBackoffQueue with the caller's objects,
// which the hints see and the in-flight list records (R19).
// spec.ErrInvalidEvent for an invalid event, and nothing changes.
func (q *PriorityQueue) MoveAllToActiveOrBackoffQueueWithObjects(occ spec.Occurrence, preCheck spec.PreEnqueueCheck) error {
	if err := occ.Validate(); err != nil {
		return err
	}
	q.mu.Lock()
	defer q.unlock()
	q.moveAll(occ, preCheck)
	return nil
}

// moveAll is R4 under mu.
func (q *PriorityQueue) moveAll(occ spec.Occurrence, preCheck spec.PreEnqueueCheck) {
	q.moveRequest(occ, q.clock.Now(), func(e *entry) bool { return preCheck == nil || preCheck(e.info.Pod) }, false)
}

// maxKeptChoices is the most choices (40 bytes each, 640 KiB)
// moveRequest keeps room for after a request.
const maxKeptChoices = 16384

// choice is a move request's decision for one pod, before it moves, and
// the group of unschedulablePods it leaves.
type choice struct {
	e *entry
	g *podGroup
	m move
}

// moveRequest is a move request (D2) applied, the heart of R4 shared by
// R6 and R11 and their hints forms: among the unschedulable pods keep
// selects, the profile decides which ones occ moves and where, then they
// move. stamp restarts the moved pods' leftover clock (R6h).
//
// It is all or nothing: the first phase (moveChoices, then the group
// decisions) runs every piece of caller code (keep, which may run the
// caller's preCheck; the hints; the PreEnqueue plugins) and only reads,
// so a panic there leaves the queue as it was (no pod moved,
// moveRequestCycle, the in-flight list and the metrics unchanged) and
// reaches the caller once the deferred unlock has run.
// Nothing moved means no Pop has a pod to wake for. The second phase
// (applyMoves), which moves, runs no caller code.
func (q *PriorityQueue) moveRequest(occ spec.Occurrence, now time.Time, keep func(*entry) bool, stamp bool) {
	if !q.p.ofInterest(occ.Event) {
		return
	}
	n := q.p.narrowing(occ)
	choices, named := q.moveChoices(occ, now, keep, n)
	// G10, G14, reading only. The one call queue.go makes by the podgroups
	// profile's type: keep, given to a method of the profile interface,
	// would escape to the heap, one allocation per move request in every
	// profile (TestMoveRequestsAllocateNothing).
	var groups []decision
	if g, ok := q.p.(*podgroupsProfile); ok {
		groups = g.groupMoves(occ, now, keep, stamp, n, named)
	}
	if n != nil {
		n.trim()
	}
	q.applyMoves(occ.Event, now, stamp, choices, groups)
	if q.p.requested(occ) {
		q.moveRequestCycle = q.schedulingCycle
	}
}

// moveChoices is a move request's first phase for pods alone: the profile's
// decision for each unschedulable pod keep selects, in the order they are
// to move (n, the hints' narrowing, may name the pods, R21). It also
// returns the groups of the named pods that are members (G14), for the
// group decisions. It only reads.
func (q *PriorityQueue) moveChoices(occ spec.Occurrence, now time.Time, keep func(*entry) bool, n *narrowed) ([]choice, []spec.PodGroupKey) {
	v := view{q, now}
	choices := q.scratch[:0]
	consider := func(g *podGroup, e *entry) {
		if !keep(e) {
			return
		}
		if m := q.p.moveTo(v, e, occ, n, g != &q.unschedulablePods.private); m.to != nowhere {
			choices = append(choices, choice{e, g, m})
		}
	}
	var named []spec.PodGroupKey
	if n != nil && !n.AllPods {
		// R21: only the named pods, found by key: the request costs in
		// proportion to them, not to unschedulablePods. In key order, so
		// that pods tying in activeQ enter it as the model lists them and
		// a run replays the same.
		for _, k := range n.Candidates() {
			ns, name, _ := strings.Cut(string(k), "/")
			e := q.pods.findKey(keyHash(ns, name), ns, name)
			if e != nil && q.p.member(e.info.Pod, nil) {
				named = append(named, e.info.Pod.GroupKey())
				continue
			}
			if e == nil || e.loc != inUnschedulablePods {
				continue
			}
			if g := q.unschedulablePods.groupOfEntry(e); g == &q.unschedulablePods.private || q.p.mayHelp(g.plugins, occ.Event) {
				n.current = k // the hints need not build the key again
				consider(g, e)
				n.current = ""
			}
		}
	} else {
		q.unschedulablePods.all(func(g *podGroup) {
			// A group shares its plugins: if the event cannot help them,
			// none of its pods is examined.
			if g != &q.unschedulablePods.private && !q.p.mayHelp(g.plugins, occ.Event) {
				return
			}
			for _, e := range g.pods {
				consider(g, e)
			}
		})
	}
	q.scratch = choices
	return choices, named
}

// applyMoves is a move request's second phase: the pods and then the
// groups move as decided (stamp restarts their leftover clock, R6h). It
// runs no caller code.
func (q *PriorityQueue) applyMoves(event spec.ClusterEvent, now time.Time, stamp bool, choices []choice, groups []decision) {
	q.metrics.event = event
	for i := range choices {
		c := &choices[i]
		if stamp {
			c.e.info.hf().FlushTimestamp = now
		}
		q.unschedulablePods.remove(c.g, c.e) // as detach would, knowing the group
		q.put(c.e, c.m, now)
		c.e, c.g = nil, nil
	}
	for _, d := range groups {
		if stamp {
			d.ent.params.FlushTimestamp = now
		}
		q.putGroup(d, now)
	}
	q.scratchPeak = max(q.scratchPeak, len(choices))
	if cap(choices) > maxKeptChoices {
		q.scratch = nil // a burst's room goes back at once; smaller room, by shrink
	}
}

// FlushBackoffQCompleted is R5 of spec.Queue. The pods enter activeQ in
// expiry order, which decides how they tie there. Run calls it every
// BackoffQFlushPeriod.
func (q *PriorityQueue) FlushBackoffQCompleted() {
	q.mu.Lock()
	defer q.unlock()
	now := q.clock.Now()
	// backoffQ is ordered by expiry and being past one's expiry is
	// monotone in it, so the completed pods are exactly a prefix.
	for q.backoffQ.len() > 0 && !q.backingOff(q.backoffQ.min(), now) {
		e := q.backoffQ.popMin()
		q.put(e, q.p.fromBackoffQ(e, backoffComplete), now)
	}
	for _, d := range q.p.backedOffGroups(now) { // R5h for groups
		q.putGroup(d, now)
	}
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
	// A move request's room (40 bytes a choice) goes once it has been
	// more than four times what the requests used for shrinkAfter.
	if q.scratchLow.due(now, cap(q.scratch) > minHeapCap && cap(q.scratch) > 4*q.scratchPeak) {
		q.scratchLow = slackTimer{}
		q.scratch = nil
	}
	q.scratchPeak = 0
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
	defer q.unlock()
	now := q.clock.Now()
	old, stamp := q.p.leftover(view{q, now})
	// Only if some pod is a leftover: the request is then a move request
	// in full (moveRequestCycle, the in-flight list).
	if q.unschedulablePods.any(old) || q.p.anyOldGroup(now) {
		q.moveRequest(spec.Occurrence{Event: spec.EventUnschedulableTimeout}, now, old, stamp)
	}
}

// Activate is R8 of spec.Queue.
func (q *PriorityQueue) Activate(pods []*spec.Pod) error {
	for _, p := range pods {
		if err := p.Validate(); err != nil {
			return err
		}
	}
	q.mu.Lock()
	defer q.unlock()
	now := q.clock.Now()
	for _, p := range pods {
		e := q.pods.findKey(keyHash(p.Namespace, p.Name), p.Namespace, p.Name)
		if q.p.member(p, e) {
			q.putGroup(q.p.activateMember(p, e), now) // G7
			continue
		}
		parked := e != nil && (e.loc == inUnschedulablePods || e.loc == inBackoffQ)
		switch {
		case !parked:
		case e.loc == inUnschedulablePods:
			q.put(e, q.p.activated(e), now)
		default:
			q.put(e, q.p.fromBackoffQ(e, forceActivate), now)
		}
		if !parked || e.loc != inActiveQ {
			// Not parked, or PreEnqueue kept it out (R17): the
			// activation is recorded all the same (R8, R8h).
			if q.p.activatedOther(e, p) {
				q.moveRequestCycle = q.schedulingCycle
			}
		}
	}
	return nil
}

// Update is R9 of spec.Queue. A pod in activeQ whose priority changed is
// re-sorted there; in backoffQ the heap key, its expiry, does not depend on
// the pod object.
func (q *PriorityQueue) Update(oldPod, newPod *spec.Pod) error {
	return q.UpdateWithChange(oldPod, newPod, nil)
}

// UpdateWithChange is R9 of spec.ObjectQueue: Update with the caller's
// verdict on the update (nil: derived from the pods, as Update does).
// spec.ErrInvalidEvent if an event of change is invalid, and nothing
// changes.
func (q *PriorityQueue) UpdateWithChange(oldPod, newPod *spec.Pod, change *spec.PodChange) error {
	if err := oldPod.Validate(); err != nil {
		return err
	}
	if err := newPod.Validate(); err != nil {
		return err
	}
	if err := change.Validate(); err != nil {
		return err
	}
	if oldPod.Namespace != newPod.Namespace || oldPod.Name != newPod.Name {
		return fmt.Errorf("%w: Update from %s to %s changes the key", spec.ErrInvalidPod, oldPod.Key(), newPod.Key())
	}
	h := hashesOf(newPod)
	q.mu.Lock()
	defer q.unlock()
	e := q.pods.findKey(h.key, newPod.Namespace, newPod.Name)
	if err := q.p.checkUpdate(e, oldPod, newPod); err != nil { // G9
		return err
	}
	if err := q.uidHeldElsewhere(newPod, h, e); err != nil {
		return err
	}
	if e == nil {
		// Cannot fail: the pod is unknown and its UID is free.
		return q.addLocked(newPod, h, true)
	}
	if e.loc == inFlight && e.info.Pod.UID != newPod.UID {
		// R9: another object under the key; the attempt in flight was on
		// the old one, which ends as by Delete.
		// The nominations change once, at the end (nominator.drop).
		q.nom.drop(e.info.Pod.UID)
		q.drop(e)
		err := q.addLocked(newPod, h, true)
		q.nom.publish()
		return err
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
			q.resortBackoffQ(e)
		}
	case inUnschedulablePods:
		now := q.clock.Now()
		m, ev := q.p.updatedUnschedulable(view{q, now}, e, oldPod, newPod, change)
		if m.to != nowhere {
			q.metrics.event = ev
			q.put(e, m, now)
		}
	case inFlight:
		q.p.updatedInFlight(e, oldPod, newPod, change)
	default: // a member at one of the group places (podgroups.go)
		now := q.clock.Now()
		q.putGroup(q.p.updatedMember(e, oldPod, newPod, change, now), now) // G9
	}
	return nil
}

// Delete is R10 of spec.Queue. The entry is recycled.
func (q *PriorityQueue) Delete(pod *spec.Pod) error {
	if err := pod.Validate(); err != nil {
		return err
	}
	q.mu.Lock()
	defer q.unlock()
	nominated := q.nom.remove(pod.UID) // R18
	e := q.pods.findKey(keyHash(pod.Namespace, pod.Name), pod.Namespace, pod.Name)
	if e == nil {
		if nominated {
			return nil
		}
		return fmt.Errorf("%w: Delete of %s", spec.ErrPodNotFound, pod.Key())
	}
	if e.loc.grouped() {
		now := q.clock.Now()
		q.putGroup(q.p.leaveGroup(e, now), now) // G8
	}
	q.drop(e)
	return nil
}

// drop takes e out of the queue wherever it is, in flight included, and
// recycles it (R10).
func (q *PriorityQueue) drop(e *entry) {
	if e.loc == inFlight {
		q.p.leftFlight(e)
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
	defer q.unlock()
	q.assigned(nil, pod, spec.EventAssignedPodAdd)
	return nil
}

// AssignedPodUpdated is R11 of spec.Queue for an update of an assigned
// pod.
func (q *PriorityQueue) AssignedPodUpdated(oldPod, newPod *spec.Pod, event spec.ClusterEvent) error {
	if err := newPod.Validate(); err != nil {
		return err
	}
	if err := event.Validate(); err != nil {
		return err
	}
	if oldPod != nil {
		if err := oldPod.Validate(); err != nil {
			return err
		}
	}
	q.mu.Lock()
	defer q.unlock()
	q.assigned(oldPod, newPod, event)
	return nil
}

// assigned is R11: a move request over the unschedulable pods the profile
// selects for the assigned pod's event.
func (q *PriorityQueue) assigned(oldPod, newPod *spec.Pod, event spec.ClusterEvent) {
	q.moveRequest(spec.Occurrence{Event: event, Old: oldPod, New: newPod}, q.clock.Now(), q.p.assigned(newPod, event), false)
}

// Done is R12 of spec.Queue. The pod is found by UID in its own index,
// and its entry is recycled. The pod popped last is found without the
// index: the UID the scheduler passes is usually that pod's own string, so
// comparing it costs no read of its bytes, where hashing it would read
// them (a cache miss per Done in a large queue). The entry leaves both
// indexes by the slots it records, without a probe.
func (q *PriorityQueue) Done(uid spec.UID) error {
	q.mu.Lock()
	defer q.unlock()
	e := q.lastPopped
	if e == nil || e.loc != inFlight || e.info.Pod.UID != uid {
		// The UID index holds at most one entry per UID (I1), so the
		// entry found either way is the same.
		e = q.byUID.findUID(uidHash(uid), uid)
	}
	if e == nil || e.loc != inFlight {
		return fmt.Errorf("%w: Done of UID %q", spec.ErrNotInFlight, uid)
	}
	e.out = nil // Done lets go of the copy (entry.go: handedBack)
	q.drop(e)
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
	q.pods.all(func(e *entry) { snapshotAt(&s, e.loc, e) })
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

// snapshotAt adds e's pod to s's list of place p (none for a group
// place: the podgroups profile adds its members by their entity's place).
func snapshotAt(s *spec.Snapshot, p place, e *entry) {
	switch p {
	case inActiveQ:
		s.ActiveQ = append(s.ActiveQ, e.info.full())
	case inBackoffQ:
		s.BackoffQ = append(s.BackoffQ, e.info.full())
	case inUnschedulablePods:
		s.UnschedulablePods = append(s.UnschedulablePods, e.info.full())
	case inFlight:
		s.InFlight = append(s.InFlight, e.info.full())
	}
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

// eventLabel is event.EventLabel(), which formats a label unless the event
// has one, remembered for the last event: move requests come in runs of the
// same event.
func (q *PriorityQueue) eventLabel(event spec.ClusterEvent) string {
	if event != q.lastEvent || q.lastLabel == "" {
		q.lastEvent, q.lastLabel = event, event.EventLabel()
	}
	return q.lastLabel
}

// --- applying the profile's decisions; all under mu ---

// put is the one place a pod moves: e goes from wherever it is to m.to
// (activeQ, backoffQ, unschedulablePods, or in flight from Pop; a member
// of a pod group to its group, inEntity, or to pendingPodGroupPods or
// incompletePodGroupPods), gated by
// m.gate if a PreEnqueue plugin refused it; its arrival is counted under
// m.why (a cluster event's under q.metrics.event); and if Pop may now take
// it, unlock will wake one blocked Pop for it.
func (q *PriorityQueue) put(e *entry, m move, now time.Time) {
	if e.loc != nowhere {
		q.detach(e)
	}
	switch m.to {
	case inActiveQ:
		// Entering activeQ (spec.Queue): admitted, so no longer gated.
		if e.info.hints != nil {
			e.info.hints.GatingPlugin = ""
		}
		if e.info.InitialAttemptTimestamp.IsZero() {
			e.info.InitialAttemptTimestamp = now
		}
		q.pushActiveQ(e)
	case inBackoffQ:
		if e.info.hints != nil && !m.unexamined {
			e.info.hints.GatingPlugin = ""
		}
		q.pushBackoffQ(e)
	case inUnschedulablePods:
		if m.gate != "" {
			q.gate(e, m.gate)
		}
		e.out = nil // a parked pod holds no copy (entry.go: handedBack)
		q.unschedulablePods.add(e)
	case inFlight:
		e.loc = inFlight
	case inEntity:
		q.putGroup(q.p.join(e, now), now) // G2: a member joins its group
	case inPending, inIncomplete:
		q.p.wait(e, m.to)
	}
	q.metrics.count(m.why, m.to)
	if q.poppable(e, m.to) {
		q.ready++
	}
}

// putGroup is put for a pod group's entity (podgroups profile): d.ent
// goes to d.to with its members. The members PreEnqueue refused (if it
// ran: d.refused) are gated, and then the entity waits in
// unschedulablePods gated by the first of them (G2). Entering activeQ
// stamps the first attempt of the entity and its members, and readies a
// Pop as put does for a pod. The zero decision moves nothing.
func (q *PriorityQueue) putGroup(d decision, now time.Time) {
	ent, to := d.ent, d.to
	if ent == nil {
		return
	}
	if d.refused != nil {
		gate := ""
		for i, m := range ent.members {
			if d.unasked != nil && d.unasked[i] {
				continue // G12: PreEnqueue stopped before it
			}
			if name := refusedAt(d.refused, i); name != "" {
				q.gate(m, name)
				gate = cmp.Or(gate, name)
			} else if m.info.hints != nil {
				m.info.hints.GatingPlugin = ""
			}
		}
		ent.params.GatingPlugin = gate
		if gate != "" {
			to = inUnschedulablePods
		}
	}
	q.p.settle(ent, to)
	if to != inActiveQ {
		return
	}
	if ent.params.InitialAttemptTimestamp.IsZero() {
		ent.params.InitialAttemptTimestamp = now
	}
	for _, m := range ent.members {
		if m.info.InitialAttemptTimestamp.IsZero() {
			m.info.InitialAttemptTimestamp = now
		}
	}
	q.ready++
}

// refusedAt is the verdict of decision.refused for member i: the set is
// empty when every member was admitted.
func refusedAt(refused []string, i int) string {
	if i < len(refused) {
		return refused[i]
	}
	return ""
}

// unlock ends an operation: it commits the counts of a cluster event's
// moves, wakes one blocked Pop per pod the operation made poppable
// (Signal for one, Broadcast for more), and lets go of mu.
func (q *PriorityQueue) unlock() {
	if q.metrics.batched {
		q.metrics.commit(q.eventLabel(q.metrics.event))
	}
	switch {
	case q.ready == 1:
		q.cond.Signal()
	case q.ready > 1:
		q.cond.Broadcast()
	}
	q.ready = 0
	q.mu.Unlock()
}
