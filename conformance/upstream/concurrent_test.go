package upstream

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"
	"k8s.io/klog/v2"

	"github.com/schedq/schedq/conformance"
	"github.com/schedq/schedq/conformance/concurrent"
	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// concurrentTarget makes the adapter safe for concurrent use without
// changing what the upstream queue sees. The adapter keeps bookkeeping of
// its own (the in-flight pods, since classic mode does not track them)
// that is not synchronised; mu guards it. Every operation but Pop holds mu
// around its upstream call, which costs no concurrency upstream has:
// PriorityQueue takes its own lock for each of them. Pop calls upstream
// without mu, so that it blocks as the scheduler's Pop does, and takes mu
// only to record what it returned.
//
// exactCycle serialises Pops among themselves (a semaphore, so that a Pop
// waiting for another is parked, not spinning): upstream's Pop does not
// return the schedulingCycle it ran in, the adapter reads it after, and
// another Pop in between would make the adapter report the wrong cycle (an
// adapter artefact the linearizability check would blame on upstream).
type concurrentTarget struct {
	*Target
	mu         sync.Mutex
	exactCycle bool
	popSem     chan struct{}

	// atomicMoves: see atomicMoves. moves is held exclusively by the
	// operations that move several pods or take one out of activeQ, and
	// shared by a Pop while it takes a pod; changed is closed (and
	// replaced) after every operation, for a Pop waiting in the adapter.
	atomicMoves bool
	moves       sync.RWMutex
	changed     chan struct{}
}

func concurrentSafe(newTarget conformance.NewTarget, exactCycle bool) conformance.NewTarget {
	return func(t testing.TB, cfg spec.Config, start time.Time) conformance.Target {
		return &concurrentTarget{Target: newTarget(t, cfg, start).(*Target), exactCycle: exactCycle, popSem: make(chan struct{}, 1),
			changed: make(chan struct{})}
	}
}

// atomicMoves is concurrentSafe with Pop serialised against the operations
// that move several pods (MoveAllToActiveOrBackoffQueue, both flushes,
// Activate, AssignedPodAdded/Updated) and Delete, for the linearizability
// check only. Upstream's moves are not atomic to a concurrent Pop
// (moveAtomicity, a finding): Pop takes only activeQueue's lock, a move
// holds PriorityQueue.lock and takes activeQueue's lock once per pod, so
// a Pop can return a lower-priority pod the move already placed while a
// higher-priority one of the same move is still on its way. The model
// moves atomically, so without this the check fails on that finding in
// about one run in six (2 of 12 runs of TestConcurrentClassic here), and
// would say nothing else. Here a Pop waits in the adapter until activeQ
// holds a pod (or the queue is closed), then takes it while no move runs:
// upstream's Pop then never blocks. Every other operation still runs
// concurrently with Pop; the wake-up and conservation checks run on the
// plain adapter.
func atomicMoves(newTarget conformance.NewTarget) conformance.NewTarget {
	safe := concurrentSafe(newTarget, true)
	return func(t testing.TB, cfg spec.Config, start time.Time) conformance.Target {
		c := safe(t, cfg, start).(*concurrentTarget)
		c.atomicMoves = true
		return c
	}
}

func (c *concurrentTarget) Pop() (*spec.QueuedPodInfo, int64, error) {
	if c.exactCycle {
		c.popSem <- struct{}{}
		defer func() { <-c.popSem }()
	}
	if c.atomicMoves {
		for {
			c.moves.RLock()
			c.mu.Lock()
			closed, ready, changed := c.closed, len(c.q.PodsInActiveQ()) > 0, c.changed
			c.mu.Unlock()
			if closed {
				// R13, which the model checks. (A Pop woken by an Add
				// that Close then overtook would take the pod after
				// Close from upstream.)
				c.moves.RUnlock()
				return nil, 0, spec.ErrClosed
			}
			if ready {
				break // RUnlock once upstream's Pop has returned
			}
			c.moves.RUnlock()
			<-changed
		}
		defer c.moves.RUnlock()
	}
	pi, err := pop(c.q, c.logger)
	if err != nil {
		return nil, 0, err
	}
	if pi == nil {
		return nil, 0, spec.ErrClosed
	}
	cycle := c.q.SchedulingCycle()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.inFlight[spec.PodKey(pi.Pod.Namespace+"/"+pi.Pod.Name)] = pi
	out := toInfo(pi)
	return &out, cycle, nil
}

func (c *concurrentTarget) locked() func() {
	c.mu.Lock()
	return func() {
		close(c.changed)
		c.changed = make(chan struct{})
		c.mu.Unlock()
	}
}

// exclusive is locked for an operation that moves several pods or takes
// one out of activeQ: with atomicMoves, no Pop takes a pod meanwhile.
func (c *concurrentTarget) exclusive() func() {
	if !c.atomicMoves {
		return c.locked()
	}
	c.moves.Lock()
	unlock := c.locked()
	return func() {
		unlock()
		c.moves.Unlock()
	}
}

func (c *concurrentTarget) Add(p *spec.Pod) error { defer c.locked()(); return c.Target.Add(p) }
func (c *concurrentTarget) AddUnschedulableIfNotPresent(info *spec.QueuedPodInfo, cycle int64) error {
	defer c.locked()()
	return c.Target.AddUnschedulableIfNotPresent(info, cycle)
}
func (c *concurrentTarget) MoveAllToActiveOrBackoffQueue(e spec.ClusterEvent, pre spec.PreEnqueueCheck) {
	defer c.exclusive()()
	c.Target.MoveAllToActiveOrBackoffQueue(e, pre)
}
func (c *concurrentTarget) FlushBackoffQCompleted() {
	defer c.exclusive()()
	c.Target.FlushBackoffQCompleted()
}
func (c *concurrentTarget) FlushUnschedulablePodsLeftover() {
	defer c.exclusive()()
	c.Target.FlushUnschedulablePodsLeftover()
}
func (c *concurrentTarget) Activate(pods []*spec.Pod) error {
	defer c.exclusive()()
	return c.Target.Activate(pods)
}
func (c *concurrentTarget) Update(o, n *spec.Pod) error {
	defer c.locked()()
	return c.Target.Update(o, n)
}
func (c *concurrentTarget) Delete(p *spec.Pod) error {
	defer c.exclusive()()
	return c.Target.Delete(p)
}
func (c *concurrentTarget) AssignedPodAdded(p *spec.Pod) error {
	defer c.exclusive()()
	return c.Target.AssignedPodAdded(p)
}
func (c *concurrentTarget) AssignedPodUpdated(o, n *spec.Pod, e spec.ClusterEvent) error {
	defer c.exclusive()()
	return c.Target.AssignedPodUpdated(o, n, e)
}
func (c *concurrentTarget) Done(uid spec.UID) error { defer c.locked()(); return c.Target.Done(uid) }
func (c *concurrentTarget) Close()                  { defer c.locked()(); c.Target.Close() }
func (c *concurrentTarget) SchedulingCycle() int64  { return c.q.SchedulingCycle() }

// Snapshot reads under mu but signals no change: a waiting Pop is woken
// only by what may have filled activeQ.
func (c *concurrentTarget) Snapshot() spec.Snapshot {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.Target.Snapshot()
}

// TestConcurrentClassic runs the concurrent checks against the release in
// classic mode: wake-ups, conservation, and linearizability against the
// model, whose semantics classic mode has. The workload avoids the
// sequential known differences (a duplicate Add resets the pod, an Update
// in flight queues a second copy: OnlyFreeAdds), and every clock step
// waits for the operations that read the clock, because upstream reads it
// more than once in some operations (isPodBackingoff per pod). The
// histories have no Snapshot: the adapter records a popped pod as in
// flight after upstream's Pop returns, so a Snapshot in between would miss
// it, an adapter artefact. Linearizability runs on atomicMoves, for the
// finding moveAtomicity. n/a from v1.34, which has no classic mode.
func TestConcurrentClassic(t *testing.T) {
	if err := refuseClassic(spec.DefaultConfig(schedqtest.Registry)); err != nil {
		t.Skipf("n/a: %v", err)
	}
	concurrent.Run(t, concurrentSafe(Classic(), true), concurrent.Options{
		Linearizability: &concurrent.LinOptions{OnlyFreeAdds: true, NoSnapshots: true, Target: atomicMoves(Classic()),
			TargetNote: "Pop serialised with moves by the adapter: see the finding"},
		Known: []concurrent.Finding{moveAtomicity},
	})
}

// TestConcurrentQueueingHints runs wake-ups and conservation against the
// release with its default gates; its semantics are not the model's, so
// linearizability against the model does not apply. The requeue race
// (requeueRace) is measured first and declared known.
//
// From requeueRaceFixedIn on, the release has upstream's fix: the
// reproduction must lose no pod in fixedTrials trials, and the finding is
// reported with that count (RESULTS.md's release matrix then shows where
// it ends) but excuses nothing: a lost pod fails the run there.
func TestConcurrentQueueingHints(t *testing.T) {
	captureUpstreamLog()
	f := requeueRace
	if minorIn(Release().Minor(), requeueRaceFixedIn, "1.99") {
		t.Run("the requeue race is gone", func(t *testing.T) {
			f.Rate = requeueRaceGone(t, concurrentSafe(QueueingHints(), false), fixedTrials)
		})
		f.Evidence = func(string) bool { return false }
	} else {
		t.Run("reproduction of the requeue race", func(t *testing.T) {
			f.Rate = reproduceRequeueRace(t, concurrentSafe(QueueingHints(), false), 400)
		})
		f.Evidence = upstreamLogged("tracked in multiple places")
	}
	concurrent.Run(t, concurrentSafe(QueueingHints(), false), concurrent.Options{Known: []concurrent.Finding{f}})
}

// requeueRaceFixedIn is the first minor with the requeue race's fix:
// AddUnschedulablePodIfNotPresent calls Done before it requeues the pod
// (v1.38.0-beta.0 pkg/scheduler/backend/queue/scheduling_queue.go:1163-1169;
// upstream PR 139450 for issue 139186).
const requeueRaceFixedIn = "1.38"

// fixedTrials is how many trials must lose no pod on a release with the
// fix. The releases without it lost the pod in 2 of 400 trials at the
// lowest rate measured (v1.37.2, RESULTS.md); at that rate a race still
// there would show in 2,000 trials but for odds of 0.995^2000, about
// 4.4e-5, so a pass is not one lucky draw.
const fixedTrials = 2000

// requeueRaceGone runs the reproduction trials times and fails on any lost
// pod; it returns the count for the report.
func requeueRaceGone(t *testing.T, newTarget conformance.NewTarget, trials int) string {
	lost, n := concurrent.RequeueRace(t, newTarget, spec.DefaultConfig(schedqtest.Registry), trials, false)
	rate := fmt.Sprintf("%d of %d trials", lost, n)
	t.Logf("pod lost in %s (the release has the fix)", rate)
	if lost > 0 {
		t.Errorf("the requeue race lost the pod in %s on %s, a release with the fix (Done before the requeue)", rate, Release().Version)
	}
	return rate
}

// moveAtomicity is why TestConcurrentClassic's linearizability check runs
// on atomicMoves: without it the check fails on this, and only this, in
// about one run in six.
//
// A departure, not a bug: upstream promises no atomicity of a move to a
// concurrent Pop, and the scheduler cannot tell the inversion from events
// that arrived a moment apart; the contract's moves are atomic so that
// every concurrent history is explained by the sequential model.
var moveAtomicity = concurrent.Finding{
	Kind:  conformance.KindDeparture,
	Title: "a move is not atomic to a concurrent Pop: Pop can return a lower-priority pod while a higher-priority pod of the same move is still on its way to activeQ",
	Match: "Pop may return only",
	Reproduction: `Classic mode, two goroutines; c1 and c2 in unschedulablePods, c2 of higher priority, both rejected by
  NodeResourcesFit; a Pop parked on an empty activeQ:
    G1: move NodeAdd   (holds PriorityQueue.lock for the whole move; takes activeQueue.lock once per pod)
    G2: pop            (parked in activeQueue.pop: takes only activeQueue.lock)
  If the move places c1 first, G2 wakes between the two placements and returns c1; c2 arrives after. In
  every order of whole operations c2 would be popped first (the model: "Pop may return only [ns/c2]").
  Seen as a history that is not linearizable in 2 of 12 runs of TestConcurrentClassic (30 histories each,
  ~5,000 operations per run) with the plain adapter; 0 of 15 with atomicMoves. Benign for the scheduler (an
  order inversion within one move), but the contract's moves are atomic.`,
	Source: "v1.33.13 pkg/scheduler/backend/queue/scheduling_queue.go:877-879 (Pop: activeQ.pop only), :1081-1085 (MoveAllToActiveOrBackoffQueue holds p.lock), :563-573 (moveToActiveQ takes activeQueue.lock per pod); active_queue.go:248-250 (the classic mode it needs exists in v1.33 only)",
	Rate:   "2 of 12 runs (2026-11-23)",
}

// requeueRace is a lost pod with the default gates. The reproduction runs
// on every release; the names are those of the release's own code (the
// failure path is AddUnschedulableIfNotPresent up to v1.36,
// AddUnschedulablePodIfNotPresent from v1.37).
var requeueRace = concurrent.Finding{
	Kind:  conformance.KindBug,
	ID:    "F01",
	Title: "a pod handed back while a Pop waits is lost (requeue race between AddUnschedulableIfNotPresent and Pop from backoffQ)",
	Match: "is held 0 times",
	Reproduction: `Two goroutines, queue with the default gates (queueing hints and SchedulerPopFromBackoffQ on):
    G1: add a; pop -> a (a in flight, upstream's inFlightPods holds its UID)
    G2: pop                      (activeQ and backoffQ empty: G2 parks in activeQueue.pop's cond.Wait)
    G1: move NodeAdd             (an event while a is in flight, registered by NodeResourcesFit)
    G1: fail a plugins=(NodeResourcesFit)   (the failure path with cycle 1: the in-flight event's hint is
                                 Queue, a is backing off, so a goes to backoffQ)
  The failure path holds PriorityQueue.lock, puts a in backoffQ (backoffQ.add takes only the backoffQ lock)
  and broadcasts to the waiting Pops; it calls p.Done(a.UID), which clears a's in-flight record, only in a
  deferred call as it returns. Pop takes only activeQueue.lock: if G2 runs between the two, it pops a from
  backoffQ (pop-from-backoffQ), finds a's UID still in inFlightPods, logs that "the same pod is tracked in
  multiple places in the scheduler" and discards a. G1's deferred Done then clears the record. a is in no
  queue and not in flight: it is never scheduled until an update event re-adds it.
  (In the scheduler G1 is a binding goroutine failing a pod, G2 the scheduling loop.)`,
	Source: "pkg/scheduler/backend/queue/scheduling_queue.go: the failure path's deferred p.Done, its move to backoffQ and broadcast; active_queue.go: Pop falls through to backoffQ and discards a pod whose UID is in flight (v1.33.13 scheduling_queue.go:793, :624, :848, active_queue.go:260, :290-295; v1.37.2 scheduling_queue.go:1079-1083, :1136, :1140, active_queue.go:327, :274-286, :351-357; upstream issue 139186, fixed by PR 139450 in v1.38.0-beta.0: requeueRaceFixedIn)",
}

// upstreamLog collects what upstream logs (klog through a logr sink), so
// that a known finding's violation is confirmed by upstream's own message
// for the pod it names.
var upstreamLog struct {
	sync.Mutex
	lines []string
	once  sync.Once
}

func captureUpstreamLog() {
	upstreamLog.once.Do(func() {
		klog.SetLogger(funcr.New(func(prefix, args string) {
			upstreamLog.Lock()
			upstreamLog.lines = append(upstreamLog.lines, args)
			upstreamLog.Unlock()
		}, funcr.Options{}))
	})
}

var podNames = regexp.MustCompile(`ns/([a-z0-9-]+)`)

// upstreamLogged confirms a violation if upstream logged msg mentioning a
// pod the violation names.
func upstreamLogged(msg string) func(string) bool {
	return func(v string) bool {
		upstreamLog.Lock()
		defer upstreamLog.Unlock()
		for _, m := range podNames.FindAllStringSubmatch(v, -1) {
			for _, l := range upstreamLog.lines {
				if strings.Contains(l, msg) && strings.Contains(l, m[1]) {
					return true
				}
			}
		}
		return false
	}
}

// reproduceRequeueRace runs the reproduction of requeueRace
// (concurrent.RequeueRace) trials times on fresh targets, and on until the
// pod is lost once, and returns how often it was lost. It fails if it
// never was: the finding would be stale.
func reproduceRequeueRace(t *testing.T, newTarget conformance.NewTarget, trials int) string {
	lost, n := concurrent.RequeueRace(t, newTarget, spec.DefaultConfig(schedqtest.Registry), trials, true)
	rate := fmt.Sprintf("%d of %d trials", lost, n)
	t.Logf("pod lost in %s", rate)
	if lost == 0 {
		t.Errorf("the requeue race did not show in %d trials (a release that loses the pod once in 5,000 trials shows none with odds about e^-20): upstream fixed it, or the reproduction no longer reaches it", n)
	}
	return rate
}
