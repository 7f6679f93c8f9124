// Package lockedq is the executable model behind one mutex: a concurrent
// queue that is linearizable by construction (one critical section per
// operation, a condition variable for the blocking Pop), and, with a Flaw,
// the same queue with one classic concurrency bug added on purpose.
//
// The concurrency suites (linearizability/, conformance/concurrent) must
// pass the queue without a flaw and catch every flaw: that is the evidence
// that they can fail. None of the flaws inserts a runtime.Gosched into the
// queue unless Yield is among the flaws: a bug that shows only with an
// artificial yield inside the queue is one the suites cannot be trusted to
// find in a real queue.
package lockedq

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/utils/clock"

	"github.com/schedq/schedq/internal/parked"
	"github.com/schedq/schedq/model"
	"github.com/schedq/schedq/spec"
)

// Flaw is a set of deliberate bugs.
type Flaw uint

const (
	// PeekThenPop decides which pod to pop in one critical section and
	// takes it in another, returning what it saw: two Pops can return
	// the same pod.
	PeekThenPop Flaw = 1 << iota
	// LateMoveRequestCycle moves the pods of a move request in one
	// critical section and publishes moveRequestCycle in the next.
	LateMoveRequestCycle
	// StaleBackoffFlush reads which backoffQ pods have completed their
	// backoff in one critical section and moves them in another without
	// looking again.
	StaleBackoffFlush
	// AddNoWake is a lost wake-up: Add puts the pod in activeQ and does
	// not wake a blocked Pop (every other operation still does).
	AddNoWake
	// RequeueRace forgets a failed pod's attempt lazily: its in-flight
	// bookkeeping is cleared when a flush or a move request requeues it
	// to activeQ, in a second critical section after recording metrics
	// outside the lock. The pod is poppable (and Pops are woken) a moment
	// before the clearing, which then drops the bookkeeping of the new
	// attempt if a Pop took it in between: Done of that attempt fails.
	RequeueRace
	// Yield adds a runtime.Gosched between the two critical sections of
	// the flaws above: the artificial widening of a race.
	Yield
	// BackoffBoundary is R7 off by one: the backoffQ flush also releases
	// a pod whose expiry is exactly now (expiry <= now instead of <).
	BackoffBoundary
	// LeftoverBoundary is R6 off by one: the leftover flush also moves a
	// pod that has been unschedulable for exactly the limit (>= instead
	// of >).
	LeftoverBoundary
	// NoWake: no operation but Close wakes a blocked Pop.
	NoWake
	// Interleave forces the race window of the two-critical-section
	// flaws (PeekThenPop, LateMoveRequestCycle, StaleBackoffFlush,
	// RequeueRace) open: between the two, the operation waits until
	// another operation has entered the queue's lock, or until no other
	// goroutine can (each is asleep by the runtime's account,
	// internal/parked). The interleaving that exposes the flaw then
	// happens whenever another client is active, on a quiet machine or a
	// loaded one, instead of when the scheduler happens to preempt there.
	Interleave
)

var flawNames = []string{"PeekThenPop", "LateMoveRequestCycle", "StaleBackoffFlush", "AddNoWake", "RequeueRace", "Yield",
	"BackoffBoundary", "LeftoverBoundary", "NoWake", "Interleave"}

func (f Flaw) String() string {
	if f == 0 {
		return "none"
	}
	var out []string
	for i, n := range flawNames {
		if f&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return strings.Join(out, "+")
}

// Queue is model.Model behind a mutex. It keeps its own published
// moveRequestCycle (used by AddUnschedulableIfNotPresent and Snapshot) and
// its own in-flight set (used by Done and Snapshot), so that a flaw can
// publish them late; without a flaw they always equal the model's.
type Queue struct {
	mu   sync.Mutex
	cond sync.Cond
	m    *model.Model
	clk  clock.PassiveClock
	flaw Flaw

	moveRequestCycle int64
	inFlight         map[spec.UID]bool
	// metrics is what RequeueRace records between its two critical
	// sections: how many times each pod was requeued.
	metrics sync.Map
	// sections counts the critical sections entered (Interleave).
	sections atomic.Int64
}

var _ spec.Queue = (*Queue)(nil)

// New returns an empty queue with cfg, reading time from clk, with flaw.
func New(cfg spec.Config, clk clock.PassiveClock, flaw Flaw) (*Queue, error) {
	m, err := model.New(cfg, clk.Now())
	if err != nil {
		return nil, err
	}
	q := &Queue{m: m, clk: clk, flaw: flaw, moveRequestCycle: m.MoveRequestCycle(), inFlight: map[spec.UID]bool{}}
	q.cond.L = &q.mu
	return q, nil
}

// lock takes the mutex and brings the model's clock to clk's: the one
// clock read of the operation.
func (q *Queue) lock() {
	q.mu.Lock()
	q.sections.Add(1)
	q.syncClock()
}

func (q *Queue) syncClock() {
	if d := q.clk.Now().Sub(q.m.Now()); d > 0 {
		if err := q.m.Step(d); err != nil {
			panic(err)
		}
	}
}

// relock is the deliberate bug: the lock is dropped between two halves of
// one operation.
func (q *Queue) relock() {
	n := q.sections.Load()
	q.mu.Unlock()
	q.window(n)
	q.lock()
}

// window is the gap between the two critical sections of a flaw, entered
// when the count of sections was n: a yield with Yield, and with
// Interleave a wait until another section began or nobody else can begin
// one.
func (q *Queue) window(n int64) {
	if q.flaw&Yield != 0 {
		runtime.Gosched()
	}
	if q.flaw&Interleave == 0 {
		return
	}
	// The count is cheap to read; the runtime's account of every
	// goroutine stops the world, which a loaded machine makes slow, so
	// it is read only every 64 yields.
	var me parked.ID
	for i := 1; q.sections.Load() == n; i++ {
		if i%64 == 0 {
			if me == 0 {
				me = parked.Current()
			}
			if othersAsleep(me) {
				return
			}
		}
		runtime.Gosched()
	}
}

// othersAsleep reports whether no goroutine but me can enter the queue's
// lock without something waking it first: each is parked, or waits in a
// window of its own, or waits for a mutex outside the queue (a caller's,
// which may be waiting for this very operation to return). One waiting
// for a mutex inside the queue is about to enter.
func othersAsleep(me parked.ID) bool {
	for id, s := range parked.All() {
		switch {
		case id == me || s.Parked() || s.In("lockedq.(*Queue).window"):
		case waitsForMutex(s) && !s.In("lockedq.(*Queue)"):
		default:
			return false
		}
	}
	return true
}

func waitsForMutex(s parked.State) bool {
	for _, w := range []string{"sync.Mutex.Lock", "sync.RWMutex", "semacquire"} {
		if strings.HasPrefix(s.Status, w) {
			return true
		}
	}
	return false
}

func (q *Queue) publish() { q.moveRequestCycle = q.m.MoveRequestCycle() }

func (q *Queue) unlockWake() {
	if q.flaw&NoWake == 0 {
		q.cond.Broadcast()
	}
	q.mu.Unlock()
}

// Add is R1.
func (q *Queue) Add(p *spec.Pod) error {
	q.lock()
	if q.flaw&AddNoWake != 0 {
		defer q.mu.Unlock()
	} else {
		defer q.unlockWake()
	}
	return q.m.Add(p)
}

// Pop is R2.
func (q *Queue) Pop() (*spec.QueuedPodInfo, int64, error) {
	q.lock()
	defer q.mu.Unlock()
	var c []spec.PodKey
	for {
		if q.m.Closed() {
			return nil, 0, spec.ErrClosed
		}
		if c = q.m.PopCandidates(); len(c) > 0 {
			break
		}
		q.cond.Wait()
		q.sections.Add(1)
		q.syncClock()
	}
	if q.flaw&PeekThenPop == 0 {
		info, cycle, err := q.m.PopPod(c[0])
		if err == nil {
			q.inFlight[info.Pod.UID] = true
		}
		return info, cycle, err
	}
	s := q.m.Snapshot()
	_, seen := s.Find(c[0])
	seen.Attempts++
	seen.UnschedulablePlugins = nil
	cycle := q.m.SchedulingCycle() + 1
	q.relock()
	// Take the pod decided on if it is still there to take; report what
	// was seen either way.
	if !q.m.Closed() && slices.Contains(q.m.PopCandidates(), c[0]) {
		if _, _, err := q.m.PopPod(c[0]); err != nil {
			panic(err)
		}
	}
	q.inFlight[seen.Pod.UID] = true
	return &seen, cycle, nil
}

// AddUnschedulableIfNotPresent is R3.
func (q *Queue) AddUnschedulableIfNotPresent(pInfo *spec.QueuedPodInfo, podSchedulingCycle int64) error {
	q.lock()
	// The shortcut decision is made on the published moveRequestCycle; the
	// model is told the outcome through the cycle it is given.
	forced := int64(math.MaxInt64) // moveRequestCycle >= it never holds: unschedulablePods
	if q.moveRequestCycle >= podSchedulingCycle {
		forced = math.MinInt64 // always holds: backoffQ
	}
	err := q.m.AddUnschedulableIfNotPresent(pInfo, forced)
	// RequeueRace forgets the attempt lazily, when the pod is requeued
	// to activeQ (requeued).
	if err == nil && q.flaw&RequeueRace == 0 {
		delete(q.inFlight, pInfo.Pod.UID)
	}
	q.unlockWake()
	return err
}

// requeued runs op, a move towards activeQ, under the lock, and with
// RequeueRace clears the stale in-flight bookkeeping of the pods it moved
// to activeQ in a second critical section, after recording metrics for
// them outside the lock: they are poppable, and Pops are woken, a moment
// before the queue forgets their previous attempt.
func (q *Queue) requeued(op func()) {
	if q.flaw&RequeueRace == 0 {
		op()
		return
	}
	s := q.m.Snapshot()
	before := s.Locations()
	op()
	after := q.m.Snapshot()
	var moved []*spec.Pod
	for _, p := range after.ActiveQ {
		if l := before[p.Key()]; l != spec.InActiveQ && q.inFlight[p.Pod.UID] {
			moved = append(moved, p.Pod)
		}
	}
	if len(moved) == 0 {
		return
	}
	if q.flaw&NoWake == 0 {
		q.cond.Broadcast()
	}
	n := q.sections.Load()
	q.mu.Unlock()
	// Record metrics outside the lock, as real queues do to keep the
	// critical section short.
	for _, p := range moved {
		label := fmt.Sprintf("requeued/%s/%s", p.Namespace, p.Name)
		c, _ := q.metrics.LoadOrStore(label, new(atomic.Int64))
		c.(*atomic.Int64).Add(1)
	}
	q.window(n)
	q.lock()
	for _, p := range moved {
		delete(q.inFlight, p.UID)
	}
}

// MoveAllToActiveOrBackoffQueue is R4.
func (q *Queue) MoveAllToActiveOrBackoffQueue(event spec.ClusterEvent, preCheck spec.PreEnqueueCheck) {
	q.lock()
	defer q.unlockWake()
	q.requeued(func() { q.m.MoveAllToActiveOrBackoffQueue(event, preCheck) })
	if q.flaw&LateMoveRequestCycle == 0 {
		q.publish()
		return
	}
	q.relock()
	if q.m.Config().PluginEvents.IsEventOfInterest(event) {
		q.moveRequestCycle = q.m.SchedulingCycle()
	}
}

// FlushBackoffQCompleted is R5.
func (q *Queue) FlushBackoffQCompleted() {
	q.lock()
	defer q.unlockWake()
	if q.flaw&BackoffBoundary != 0 {
		// Activate moves a backoffQ pod to activeQ as the flush does.
		s := q.m.Snapshot()
		cfg := q.m.Config()
		var due []*spec.Pod
		for i := range s.BackoffQ {
			if cfg.BackoffExpiry(&s.BackoffQ[i]).Equal(s.Now) {
				due = append(due, s.BackoffQ[i].Pod)
			}
		}
		if len(due) > 0 {
			if err := q.m.Activate(due); err != nil {
				panic(err)
			}
		}
	}
	if q.flaw&StaleBackoffFlush == 0 {
		q.requeued(q.m.FlushBackoffQCompleted)
		return
	}
	s := q.m.Snapshot()
	cfg := q.m.Config()
	var completed []*spec.Pod
	for i := range s.BackoffQ {
		if !cfg.IsBackingOff(&s.BackoffQ[i], s.Now) {
			completed = append(completed, s.BackoffQ[i].Pod)
		}
	}
	if len(completed) == 0 {
		return
	}
	q.relock()
	// Activate moves each pod from backoffQ (or unschedulablePods) to
	// activeQ keeping its Timestamp and Attempts, as the flush does; it
	// is the flush exactly when nothing moved in between.
	if err := q.m.Activate(completed); err != nil {
		panic(err)
	}
	q.publish()
}

// FlushUnschedulablePodsLeftover is R6.
func (q *Queue) FlushUnschedulablePodsLeftover() {
	q.lock()
	defer q.unlockWake()
	if q.flaw&LeftoverBoundary != 0 {
		// The leftover move (the wildcard UnschedulableTimeout) of the
		// pods exactly at the limit too.
		s := q.m.Snapshot()
		limit := q.m.Config().PodMaxInUnschedulablePodsDuration
		at := map[spec.PodKey]bool{}
		for _, p := range s.UnschedulablePods {
			if s.Now.Sub(p.Timestamp) == limit {
				at[p.Key()] = true
			}
		}
		if len(at) > 0 {
			q.m.MoveAllToActiveOrBackoffQueue(spec.EventUnschedulableTimeout, func(p *spec.Pod) bool { return at[p.Key()] })
		}
	}
	q.requeued(q.m.FlushUnschedulablePodsLeftover)
	q.publish()
}

// Activate is R8.
func (q *Queue) Activate(pods []*spec.Pod) error {
	q.lock()
	defer q.unlockWake()
	defer q.publish()
	return q.m.Activate(pods)
}

// Update is R9.
func (q *Queue) Update(oldPod, newPod *spec.Pod) error {
	q.lock()
	defer q.unlockWake()
	return q.m.Update(oldPod, newPod)
}

// Delete is R10.
func (q *Queue) Delete(p *spec.Pod) error {
	q.lock()
	defer q.mu.Unlock()
	err := q.m.Delete(p)
	if err == nil {
		delete(q.inFlight, p.UID)
	}
	return err
}

// AssignedPodAdded is R11.
func (q *Queue) AssignedPodAdded(p *spec.Pod) error {
	q.lock()
	defer q.unlockWake()
	defer q.publish()
	return q.m.AssignedPodAdded(p)
}

// AssignedPodUpdated is R11 for an update.
func (q *Queue) AssignedPodUpdated(oldPod, newPod *spec.Pod, event spec.ClusterEvent) error {
	q.lock()
	defer q.unlockWake()
	defer q.publish()
	return q.m.AssignedPodUpdated(oldPod, newPod, event)
}

// Done is R12. It trusts the queue's own in-flight bookkeeping.
func (q *Queue) Done(uid spec.UID) error {
	q.lock()
	defer q.mu.Unlock()
	if !q.inFlight[uid] {
		return fmt.Errorf("%w: Done of UID %q", spec.ErrNotInFlight, uid)
	}
	delete(q.inFlight, uid)
	return q.m.Done(uid)
}

// Close is R13. It always wakes the blocked Pops.
func (q *Queue) Close() {
	q.lock()
	defer q.mu.Unlock()
	q.m.Close()
	q.cond.Broadcast()
}

// SchedulingCycle is the number of Pops so far.
func (q *Queue) SchedulingCycle() int64 {
	q.lock()
	defer q.mu.Unlock()
	return q.m.SchedulingCycle()
}

// Snapshot is the model's, with the published moveRequestCycle and the
// in-flight pods the queue's own bookkeeping knows of.
func (q *Queue) Snapshot() spec.Snapshot {
	q.lock()
	defer q.mu.Unlock()
	s := q.m.Snapshot()
	s.MoveRequestCycle = q.moveRequestCycle
	s.InFlight = slices.DeleteFunc(s.InFlight, func(p spec.QueuedPodInfo) bool { return !q.inFlight[p.Pod.UID] })
	return s
}

// Now is the queue's clock, for adapters.
func (q *Queue) Now() time.Time { return q.clk.Now() }
