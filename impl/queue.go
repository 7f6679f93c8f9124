// Package impl is the production scheduling queue: a queue that satisfies
// the contract of spec.Queue (the classic kube-scheduler queue), built for
// speed and safe for concurrent use. It behaves exactly like package model,
// the contract's executable form, for every operation; the differences are
// the ones a real queue needs: Pop blocks on an empty activeQ instead of
// returning spec.ErrWouldBlock, time comes from an injected clock, the two
// flushes run periodically after Run, and pods that spec.Less leaves tied
// are popped in the order they entered activeQ.
//
// Layout: every pod the queue holds has one entry of 96 bytes, found by key
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
	"fmt"
	"slices"
	"sync"
	"time"

	"k8s.io/utils/clock"

	"github.com/schedq/schedq/spec"
)

// entry is one pod held by the queue. Its key is its pod's: the queue
// key of an entry never changes (Update keeps it).
type entry struct {
	info spec.QueuedPodInfo
	// pos is the entry's place in the structure loc names: the seq of its
	// live slot in activeQ or backoffQ (podHeap), its index in its group of
	// unschedulablePods (podGroup). Unused in flight: an in-flight pod is reached by
	// UID.
	pos uint32
	loc place
	// keySlot is the entry's slot in the key index (podIndex.keySlots),
	// so that Done removes it there without hashing its key again.
	keySlot slotRef
}

// place is a spec.Location in one byte, which keeps an entry at 96 bytes.
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
// anyway, and past maxFree entries through entryPool, which the garbage
// collector empties when they stay unused.
var entryPool = sync.Pool{New: func() any { return new(entry) }}

const maxFree = 4096

// newEntry returns a zero entry.
func (q *PriorityQueue) newEntry() *entry {
	if n := len(q.free); n > 0 {
		e := q.free[n-1]
		q.free[n-1] = nil
		q.free = q.free[:n-1]
		return e
	}
	return entryPool.Get().(*entry)
}

// freeEntry recycles an entry nothing refers to any more: detached,
// untracked, or never tracked.
func (q *PriorityQueue) freeEntry(e *entry) {
	*e = entry{}
	if len(q.free) < maxFree {
		q.free = append(q.free, e)
		return
	}
	entryPool.Put(e)
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
	free              []*entry // recycled entries, see newEntry
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
}

var _ spec.Queue = (*PriorityQueue)(nil)

// Option configures New.
type Option func(*PriorityQueue)

// WithClock makes the queue read time from c instead of the real clock:
// Timestamps, backoff, the leftover age and the periodic flushes all follow
// c. Tests pass a k8s.io/utils/clock/testing.FakeClock.
func WithClock(c clock.WithTicker) Option {
	return func(q *PriorityQueue) { q.clock = c }
}

// New returns an empty queue. It returns cfg.Validate()'s error, wrapping
// spec.ErrInvalidConfig, as is. The flushes do not run until Run.
func New(cfg spec.Config, opts ...Option) (*PriorityQueue, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Profile != spec.ProfileClassic {
		// The hints profile has its own issue; never run it as classic.
		return nil, fmt.Errorf("%w: impl implements the classic profile only, not %v", spec.ErrInvalidConfig, cfg.Profile)
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
	q := &PriorityQueue{
		cfg:              cfg,
		clock:            clock.RealClock{},
		pods:             podIndex{keySlots: true},
		byUID:            podIndex{byUID: true},
		moveRequestCycle: -1,
		stop:             make(chan struct{}),
	}
	q.activeQ = podHeap{where: inActiveQ, timeOf: func(e *entry) time.Time { return e.info.Timestamp }}
	q.backoffQ = podHeap{where: inBackoffQ, timeOf: func(e *entry) time.Time { return q.cfg.BackoffExpiry(&e.info) }}
	for _, o := range opts {
		o(q)
	}
	q.cond.L = &q.mu
	q.base = q.clock.Now()
	return q, nil
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
// queue does nothing. Close stops them.
func (q *PriorityQueue) Run() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.running || q.closed {
		return
	}
	q.running = true
	// Added under mu, so a Close that follows waits for both. The tickers
	// are made here, not in the goroutines, so that when Run returns they
	// are armed: a test may step a fake clock right away.
	q.wg.Add(2)
	go q.flushEvery(q.clock.NewTicker(q.cfg.BackoffQFlushPeriod), q.FlushBackoffQCompleted)
	go q.flushEvery(q.clock.NewTicker(q.cfg.UnschedulablePodsFlushPeriod), q.FlushUnschedulablePodsLeftover)
}

func (q *PriorityQueue) flushEvery(t clock.Ticker, flush func()) {
	defer q.wg.Done()
	defer t.Stop()
	for {
		select {
		case <-q.stop:
			return
		case <-t.C():
		}
		// A tick and Close may be ready together; select picks at random,
		// so look again rather than flush a closed queue's state.
		select {
		case <-q.stop:
			return
		default:
		}
		flush()
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
	if err := q.addLocked(pod, h, activeUnschedulablePodAdd); err != nil {
		return err
	}
	q.cond.Signal()
	return nil
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
	if e != nil {
		q.detach(e)
		q.setPod(e, pod, h)
	} else {
		e = q.newEntry()
		e.info.Pod = pod
		q.track(e, h)
	}
	now := q.clock.Now()
	e.info = spec.QueuedPodInfo{Pod: pod, Timestamp: now}
	q.moveToActiveQ(e, now)
	q.metrics.hot[counter]++
	return nil
}

// Pop is R2 of spec.Queue. Among the maximal pods of activeQ it returns
// the one that entered activeQ first. The copy it returns is its one
// allocation.
func (q *PriorityQueue) Pop() (*spec.QueuedPodInfo, int64, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.activeQ.len() == 0 && !q.closed {
		q.waiting++
		q.cond.Wait()
		q.waiting--
	}
	if q.closed {
		return nil, 0, spec.ErrClosed
	}
	e := q.activeQ.popMin()
	e.info.Attempts++
	e.info.UnschedulablePlugins = nil
	e.loc = inFlight
	q.schedulingCycle++
	out := new(spec.QueuedPodInfo)
	*out = e.info
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
	if e != nil {
		q.detach(e)
		q.setPod(e, pod, h)
	} else {
		e = q.newEntry()
		e.info.Pod = pod
		q.track(e, h)
	}
	e.info = *pInfo
	e.info.UnschedulablePlugins = plugins
	e.info.Timestamp = q.clock.Now()
	if q.moveRequestCycle >= podSchedulingCycle || len(plugins) == 0 {
		q.pushBackoffQ(e)
		q.metrics.hot[backoffScheduleAttemptFailure]++
	} else {
		q.unschedulablePods.add(e)
		q.metrics.hot[unschedulableScheduleAttemptFailure]++
	}
	return nil
}

// MoveAllToActiveOrBackoffQueue is R4 of spec.Queue. preCheck runs under
// the queue's lock and must not call the queue.
func (q *PriorityQueue) MoveAllToActiveOrBackoffQueue(event spec.ClusterEvent, preCheck spec.PreEnqueueCheck) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.movePods(event, q.clock.Now(), func(e *entry) bool { return preCheck == nil || preCheck(e.info.Pod) })
}

// movePods is "a move request" of spec.Queue (R4, R6, R11) over the
// unschedulable pods that keep selects, judged at now. It examines a
// group of unschedulablePods only if the event may help its plugin set.
func (q *PriorityQueue) movePods(event spec.ClusterEvent, now time.Time, keep func(*entry) bool) {
	if !q.cfg.PluginEvents.IsEventOfInterest(event) {
		return
	}
	var toActive, toBackoff int
	events := q.cfg.PluginEvents
	q.unschedulablePods.all(func(g *podGroup) {
		// A group shares its plugins: if the event cannot help them, none
		// of its pods is examined.
		perPod := g == &q.unschedulablePods.private
		if !perPod && !events.IsPodWorthRequeuing(g.plugins, event) {
			return
		}
		// Backwards, because removing swaps the last pod into the hole,
		// and the last pod has then already been visited.
		for i := len(g.pods) - 1; i >= 0; i-- {
			e := g.pods[i]
			if !keep(e) || perPod && !events.IsPodWorthRequeuing(e.info.UnschedulablePlugins, event) {
				continue
			}
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
		label := q.eventLabel(event)
		q.metrics.addEvent(QueueActive, label, toActive)
		q.metrics.addEvent(QueueBackoff, label, toBackoff)
	}
	q.wake(toActive)
}

// requeue is "requeueing a pod" of spec.Queue for a detached entry. It
// reports whether the pod went to activeQ; the caller wakes Pop.
func (q *PriorityQueue) requeue(e *entry, now time.Time) bool {
	if q.cfg.IsBackingOff(&e.info, now) {
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
	for q.backoffQ.len() > 0 && !q.cfg.IsBackingOff(&q.backoffQ.min().info, now) {
		q.moveToActiveQ(q.backoffQ.popMin(), now)
		moved++
	}
	q.metrics.hot[activeBackoffComplete] += uint64(moved)
	q.wake(moved)
}

// FlushUnschedulablePodsLeftover is R6 of spec.Queue. Run calls it every
// UnschedulablePodsFlushPeriod.
func (q *PriorityQueue) FlushUnschedulablePodsLeftover() {
	q.mu.Lock()
	defer q.mu.Unlock()
	now := q.clock.Now()
	leftover := func(e *entry) bool {
		return now.Sub(e.info.Timestamp) > q.cfg.PodMaxInUnschedulablePodsDuration
	}
	if q.unschedulablePods.any(leftover) {
		q.movePods(spec.EventUnschedulableTimeout, now, leftover)
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
	defer q.mu.Unlock()
	now := q.clock.Now()
	moved := 0
	for _, p := range pods {
		e := q.pods.findKey(keyHash(p.Namespace, p.Name), p.Namespace, p.Name)
		if e != nil && (e.loc == inUnschedulablePods || e.loc == inBackoffQ) {
			q.detach(e)
			q.moveToActiveQ(e, now)
			moved++
			continue
		}
		q.moveRequestCycle = q.schedulingCycle
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
		_ = q.addLocked(newPod, h, activeUnschedulablePodUpdate)
		q.cond.Signal()
		return nil
	}
	oldPriority := e.info.Pod.Priority
	q.setPod(e, newPod, h)
	switch e.loc {
	case inActiveQ:
		if newPod.Priority != oldPriority {
			q.resortActiveQ(e)
		}
	case inUnschedulablePods:
		if spec.IsPodUpdated(oldPod, newPod) {
			q.unschedulablePods.remove(q.unschedulablePods.groupOf(e.info.UnschedulablePlugins), e)
			if q.requeue(e, q.clock.Now()) {
				q.metrics.hot[activeUnschedulablePodUpdate]++
				q.cond.Signal()
			} else {
				q.metrics.hot[backoffUnschedulablePodUpdate]++
			}
		}
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
	e := q.pods.findKey(keyHash(pod.Namespace, pod.Name), pod.Namespace, pod.Name)
	if e == nil {
		return fmt.Errorf("%w: Delete of %s", spec.ErrPodNotFound, pod.Key())
	}
	q.detach(e)
	q.untrack(e)
	q.freeEntry(e)
	return nil
}

// AssignedPodAdded is R11 of spec.Queue.
func (q *PriorityQueue) AssignedPodAdded(pod *spec.Pod) error {
	if err := pod.Validate(); err != nil {
		return err
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.movePods(spec.EventAssignedPodAdd, q.clock.Now(), crossTopology(pod))
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
	if (spec.ClusterEvent{Resource: spec.ResourcePod, ActionType: spec.UpdatePodScaleDown}).Match(event) {
		q.movePods(event, q.clock.Now(), func(*entry) bool { return true })
		return nil
	}
	q.movePods(event, q.clock.Now(), crossTopology(newPod))
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
// and its entry is recycled.
func (q *PriorityQueue) Done(uid spec.UID) error {
	h := uidHash(uid)
	q.mu.Lock()
	defer q.mu.Unlock()
	if i, e := q.byUID.findUIDSlot(h, uid); e != nil && e.loc == inFlight {
		q.detach(e)
		q.pods.remove(e)
		q.byUID.removeAt(i)
		q.freeEntry(e)
		return nil
	}
	return fmt.Errorf("%w: Done of UID %q", spec.ErrNotInFlight, uid)
}

// Snapshot implements spec.Queue.Snapshot; Now is read from the queue's
// clock.
func (q *PriorityQueue) Snapshot() spec.Snapshot {
	q.mu.Lock()
	defer q.mu.Unlock()
	s := spec.Snapshot{
		Now:              q.clock.Now(),
		SchedulingCycle:  q.schedulingCycle,
		MoveRequestCycle: q.moveRequestCycle,
		Closed:           q.closed,
	}
	q.pods.all(func(e *entry) {
		info := e.info
		info.UnschedulablePlugins = slices.Clone(info.UnschedulablePlugins)
		switch e.loc {
		case inActiveQ:
			s.ActiveQ = append(s.ActiveQ, info)
		case inBackoffQ:
			s.BackoffQ = append(s.BackoffQ, info)
		case inUnschedulablePods:
			s.UnschedulablePods = append(s.UnschedulablePods, info)
		case inFlight:
			s.InFlight = append(s.InFlight, info)
		}
	})
	spec.SortPods(s.ActiveQ)
	spec.SortPods(s.BackoffQ)
	spec.SortPods(s.UnschedulablePods)
	spec.SortPods(s.InFlight)
	return s
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
	if e.info.Attempts <= 0 {
		q.backoffQ.push(e, 0, 0)
		return
	}
	expiry := q.cfg.BackoffExpiry(&e.info)
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
		q.unschedulablePods.remove(q.unschedulablePods.groupOf(e.info.UnschedulablePlugins), e)
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
