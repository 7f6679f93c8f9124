package linearizability_test

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"testing"

	"github.com/anishathalye/porcupine"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/schedq/schedq/impl"
	lin "github.com/schedq/schedq/linearizability"
	"github.com/schedq/schedq/model"
	"github.com/schedq/schedq/spec"
)

// Evidence that the check bites: queues that are correct when used by one
// goroutine at a time but split one operation into two critical sections,
// the way real queues go wrong. Each must be caught within -lin.brokenruns
// histories.
//
// Most are built on lockedModel, the executable model behind one mutex: a
// queue that is linearizable by construction (one critical section per
// operation), where a bug is a deliberately added lock release. One wraps
// the real implementation and misuses its public API in two steps.

// flaw selects the critical section lockedModel splits.
type flaw int

const (
	noFlaw flaw = iota
	// peekThenPop decides which pod to pop in one critical section and
	// takes it in another, returning what it saw.
	peekThenPop
	// lateMoveRequestCycle moves the pods of a move request in one
	// critical section and publishes moveRequestCycle in the next.
	lateMoveRequestCycle
	// staleBackoffFlush reads which backoffQ pods have completed their
	// backoff in one critical section and moves them in another without
	// looking again.
	staleBackoffFlush
)

// lockedModel is model.Model behind a mutex, with a condition variable for
// the blocking Pop and the fake clock for time. It keeps its own published
// moveRequestCycle, which AddUnschedulableIfNotPresent and Snapshot use, so
// that a flaw can publish it late; without a flaw it always equals the
// model's.
type lockedModel struct {
	mu   sync.Mutex
	cond sync.Cond
	m    *model.Model
	clk  *testingclock.FakeClock
	flaw flaw

	moveRequestCycle int64
}

func newLockedModel(f flaw) lin.NewQueue {
	return func(cfg spec.Config, clk *testingclock.FakeClock) (spec.Queue, error) {
		m, err := model.New(cfg, clk.Now())
		if err != nil {
			return nil, err
		}
		q := &lockedModel{m: m, clk: clk, flaw: f, moveRequestCycle: m.MoveRequestCycle()}
		q.cond.L = &q.mu
		return q, nil
	}
}

// lock takes the mutex and brings the model's clock to the fake clock's:
// the one clock read of the operation.
func (q *lockedModel) lock() {
	q.mu.Lock()
	q.syncClock()
}

func (q *lockedModel) syncClock() {
	if d := q.clk.Now().Sub(q.m.Now()); d > 0 {
		if err := q.m.Step(d); err != nil {
			panic(err)
		}
	}
}

// relock is the deliberate bug: the lock is dropped between two halves of
// one operation, and other goroutines are invited to run.
func (q *lockedModel) relock() {
	q.mu.Unlock()
	runtime.Gosched()
	q.lock()
}

// publish copies the model's moveRequestCycle after an operation that may
// have set it.
func (q *lockedModel) publish() { q.moveRequestCycle = q.m.MoveRequestCycle() }

func (q *lockedModel) unlockWake() {
	q.cond.Broadcast()
	q.mu.Unlock()
}

func (q *lockedModel) Add(p *spec.Pod) error {
	q.lock()
	defer q.unlockWake()
	return q.m.Add(p)
}

func (q *lockedModel) Pop() (*spec.QueuedPodInfo, int64, error) {
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
		q.syncClock()
	}
	if q.flaw != peekThenPop {
		return q.m.PopPod(c[0])
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
	return &seen, cycle, nil
}

func (q *lockedModel) AddUnschedulableIfNotPresent(pInfo *spec.QueuedPodInfo, podSchedulingCycle int64) error {
	q.lock()
	defer q.unlockWake()
	// The shortcut decision is made on the published moveRequestCycle; the
	// model is told the outcome through the cycle it is given.
	forced := int64(math.MaxInt64) // moveRequestCycle >= it never holds: unschedulablePods
	if q.moveRequestCycle >= podSchedulingCycle {
		forced = math.MinInt64 // always holds: backoffQ
	}
	return q.m.AddUnschedulableIfNotPresent(pInfo, forced)
}

func (q *lockedModel) MoveAllToActiveOrBackoffQueue(event spec.ClusterEvent, preCheck spec.PreEnqueueCheck) {
	q.lock()
	defer q.unlockWake()
	q.m.MoveAllToActiveOrBackoffQueue(event, preCheck)
	if q.flaw != lateMoveRequestCycle {
		q.publish()
		return
	}
	q.relock()
	if q.m.Config().PluginEvents.IsEventOfInterest(event) {
		q.moveRequestCycle = q.m.SchedulingCycle()
	}
}

func (q *lockedModel) FlushBackoffQCompleted() {
	q.lock()
	defer q.unlockWake()
	if q.flaw != staleBackoffFlush {
		q.m.FlushBackoffQCompleted()
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

func (q *lockedModel) FlushUnschedulablePodsLeftover() {
	q.lock()
	defer q.unlockWake()
	q.m.FlushUnschedulablePodsLeftover()
	q.publish()
}

func (q *lockedModel) Activate(pods []*spec.Pod) error {
	q.lock()
	defer q.unlockWake()
	defer q.publish()
	return q.m.Activate(pods)
}

func (q *lockedModel) Update(oldPod, newPod *spec.Pod) error {
	q.lock()
	defer q.unlockWake()
	return q.m.Update(oldPod, newPod)
}

func (q *lockedModel) Delete(p *spec.Pod) error {
	q.lock()
	defer q.mu.Unlock()
	return q.m.Delete(p)
}

func (q *lockedModel) AssignedPodAdded(p *spec.Pod) error {
	q.lock()
	defer q.unlockWake()
	defer q.publish()
	return q.m.AssignedPodAdded(p)
}

func (q *lockedModel) AssignedPodUpdated(oldPod, newPod *spec.Pod, event spec.ClusterEvent) error {
	q.lock()
	defer q.unlockWake()
	defer q.publish()
	return q.m.AssignedPodUpdated(oldPod, newPod, event)
}

func (q *lockedModel) Done(uid spec.UID) error {
	q.lock()
	defer q.mu.Unlock()
	return q.m.Done(uid)
}

func (q *lockedModel) Close() {
	q.lock()
	defer q.unlockWake()
	q.m.Close()
}

func (q *lockedModel) SchedulingCycle() int64 {
	q.lock()
	defer q.mu.Unlock()
	return q.m.SchedulingCycle()
}

func (q *lockedModel) Snapshot() spec.Snapshot {
	q.lock()
	defer q.mu.Unlock()
	s := q.m.Snapshot()
	s.MoveRequestCycle = q.moveRequestCycle
	return s
}

// peekingImpl wraps the real implementation with a Pop that looks before it
// leaps: it reads the head of activeQ from a Snapshot, yields, pops, and
// reports the pod it saw. Used by one goroutine it is exact; concurrently
// another Add or Pop can slip in between.
type peekingImpl struct {
	*impl.PriorityQueue
}

func newPeekingImpl(cfg spec.Config, clk *testingclock.FakeClock) (spec.Queue, error) {
	q, err := impl.New(cfg, impl.WithClock(clk))
	if err != nil {
		return nil, err
	}
	return peekingImpl{q}, nil
}

func (q peekingImpl) Pop() (*spec.QueuedPodInfo, int64, error) {
	s := q.PriorityQueue.Snapshot()
	head := spec.MaximalPods(s.ActiveQ)
	if s.Closed || len(head) != 1 {
		// Nothing to peek at, or a tie the snapshot cannot break the
		// way the heap does.
		return q.PriorityQueue.Pop()
	}
	_, seen := s.Find(head[0])
	runtime.Gosched()
	if _, _, err := q.PriorityQueue.Pop(); err != nil {
		return nil, 0, err
	}
	seen.Attempts++
	seen.UnschedulablePlugins = nil
	return &seen, s.SchedulingCycle + 1, nil
}

// TestReferenceQueueIsLinearizable checks the harness on the queue that is
// linearizable by construction, with the same workloads the broken queues
// get. If this fails, the harness or the porcupine model is wrong, not the
// implementation.
func TestReferenceQueueIsLinearizable(t *testing.T) {
	for _, n := range clientCounts(t) {
		t.Run(fmt.Sprintf("clients=%d", n), func(t *testing.T) {
			checkHistories(t, "lockedModel", newLockedModel(noFlaw), n, max(1, *runs/2))
		})
	}
}

// brokenQueues are the deliberately non-linearizable queues.
var brokenQueues = []struct {
	name     string
	newQueue lin.NewQueue
}{
	{"impl with a peek-then-Pop wrapper", newPeekingImpl},
	{"lockedModel, Pop decides and takes in two critical sections", newLockedModel(peekThenPop)},
	{"lockedModel, MoveAll publishes moveRequestCycle late", newLockedModel(lateMoveRequestCycle)},
	{"lockedModel, backoffQ flush moves what it saw before releasing the lock", newLockedModel(staleBackoffFlush)},
}

// catch records and checks histories of newQueue until one is not
// linearizable, for at most limit runs, cycling through the client counts.
// It returns the run that caught it (0 if none did) and that history.
func catch(t *testing.T, newQueue lin.NewQueue, limit int, base uint64, st *stats) (caught, undecided int, h *lin.History, res lin.Result) {
	counts := clientCounts(t)
	for i := range limit {
		n := counts[i%len(counts)]
		h, err := lin.Record(workload(n, i, base), newQueue)
		if err != nil {
			t.Fatal(err)
		}
		res := lin.Check(h, *timeout)
		st.add(h, res)
		switch res.Outcome {
		case porcupine.Illegal:
			return i + 1, undecided, h, res
		case porcupine.Unknown:
			undecided++
		}
	}
	return 0, undecided, nil, lin.Result{}
}

func TestBrokenQueueIsNotLinearizable(t *testing.T) {
	base := baseSeed(t)
	for _, v := range brokenQueues {
		t.Run(v.name, func(t *testing.T) {
			var st stats
			caught, undecided, h, res := catch(t, v.newQueue, *brokenRuns, base, &st)
			if caught == 0 {
				t.Fatalf("not caught in %d runs (%d undecided): %v", *brokenRuns, undecided, &st)
			}
			t.Logf("caught after %d run(s) (%d clients, %d operations; %d undecided before); %v",
				caught, h.Workload.Clients, len(h.Operations), undecided, &st)
			if testing.Verbose() {
				// The picture of a caught bug, to see what one looks like.
				htmlPath, textPath, err := lin.WriteEvidence(h, res, "broken")
				if err != nil {
					t.Errorf("writing the evidence: %v", err)
				}
				t.Logf("visualisation: %s\nlisting:       %s", htmlPath, textPath)
			}
		})
	}
}
