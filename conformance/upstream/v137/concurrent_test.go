package v137

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"
	"k8s.io/klog/v2"

	"k8s.io/kubernetes/pkg/scheduler/framework"

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
}

func concurrentSafe(newTarget conformance.NewTarget, exactCycle bool) conformance.NewTarget {
	return func(t testing.TB, cfg spec.Config, start time.Time) conformance.Target {
		return &concurrentTarget{Target: newTarget(t, cfg, start).(*Target), exactCycle: exactCycle, popSem: make(chan struct{}, 1)}
	}
}

func (c *concurrentTarget) Pop() (*spec.QueuedPodInfo, int64, error) {
	if c.exactCycle {
		c.popSem <- struct{}{}
		defer func() { <-c.popSem }()
	}
	e, err := c.q.Pop(c.logger)
	if err != nil {
		return nil, 0, err
	}
	if e == nil {
		return nil, 0, spec.ErrClosed
	}
	pi, ok := e.(*framework.QueuedPodInfo)
	if !ok {
		return nil, 0, fmt.Errorf("Pop returned a %T; the adapter queues no pod groups", e)
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
	return c.mu.Unlock
}

func (c *concurrentTarget) Add(p *spec.Pod) error { defer c.locked()(); return c.Target.Add(p) }
func (c *concurrentTarget) AddUnschedulableIfNotPresent(info *spec.QueuedPodInfo, cycle int64) error {
	defer c.locked()()
	return c.Target.AddUnschedulableIfNotPresent(info, cycle)
}
func (c *concurrentTarget) MoveAllToActiveOrBackoffQueue(e spec.ClusterEvent, pre spec.PreEnqueueCheck) {
	defer c.locked()()
	c.Target.MoveAllToActiveOrBackoffQueue(e, pre)
}
func (c *concurrentTarget) FlushBackoffQCompleted() {
	defer c.locked()()
	c.Target.FlushBackoffQCompleted()
}
func (c *concurrentTarget) FlushUnschedulablePodsLeftover() {
	defer c.locked()()
	c.Target.FlushUnschedulablePodsLeftover()
}
func (c *concurrentTarget) Activate(pods []*spec.Pod) error {
	defer c.locked()()
	return c.Target.Activate(pods)
}
func (c *concurrentTarget) Update(o, n *spec.Pod) error {
	defer c.locked()()
	return c.Target.Update(o, n)
}
func (c *concurrentTarget) Delete(p *spec.Pod) error { defer c.locked()(); return c.Target.Delete(p) }
func (c *concurrentTarget) AssignedPodAdded(p *spec.Pod) error {
	defer c.locked()()
	return c.Target.AssignedPodAdded(p)
}
func (c *concurrentTarget) AssignedPodUpdated(o, n *spec.Pod, e spec.ClusterEvent) error {
	defer c.locked()()
	return c.Target.AssignedPodUpdated(o, n, e)
}
func (c *concurrentTarget) Done(uid spec.UID) error { defer c.locked()(); return c.Target.Done(uid) }
func (c *concurrentTarget) Close()                  { defer c.locked()(); c.Target.Close() }
func (c *concurrentTarget) SchedulingCycle() int64  { return c.q.SchedulingCycle() }
func (c *concurrentTarget) Snapshot() spec.Snapshot { defer c.locked()(); return c.Target.Snapshot() }

// TestConcurrent runs wake-ups and conservation against v1.37.2 with its
// default gates; its semantics are not the model's, so linearizability
// against the model does not apply. The requeue race (requeueRace) is
// measured first and declared known.
func TestConcurrent(t *testing.T) {
	captureUpstreamLog()
	f := requeueRace
	t.Run("reproduction of the requeue race", func(t *testing.T) {
		f.Rate = reproduceRequeueRace(t, concurrentSafe(New(), false), 400)
	})
	f.Evidence = upstreamLogged("tracked in multiple places")
	concurrent.Run(t, concurrentSafe(New(), false), concurrent.Options{Known: []concurrent.Finding{f}})
}

// requeueRace is a lost pod in v1.37.2 with its default gates.
var requeueRace = concurrent.Finding{
	Title: "a pod handed back while a Pop waits is lost (requeue race between AddUnschedulableIfNotPresent and Pop from backoffQ)",
	Match: "is held 0 times",
	Reproduction: `Two goroutines, queue with the default gates (queueing hints, SchedulerPopFromBackoffQ on):
    G1: add a; pop -> a (a in flight, upstream's inFlightPods holds its UID)
    G2: pop                      (activeQ and backoffQ empty: G2 parks in activeQueue.pop's cond.Wait)
    G1: move NodeAdd             (an event while a is in flight, registered by NodeResourcesFit)
    G1: fail a plugins=(NodeResourcesFit)   (AddUnschedulableIfNotPresent(a, cycle 1): the in-flight event's
                                 hint is Queue, a is backing off, so a goes to backoffQ)
  AddUnschedulablePodIfNotPresent holds PriorityQueue.lock, puts a in backoffQ (backoffQ.add takes only the
  backoffQ lock) and broadcasts to the waiting Pops; it calls p.Done(a.UID), which clears a's in-flight record,
  only in a deferred call as it returns. Pop takes only activeQueue.lock: if G2 runs between the two, it pops a
  from backoffQ (pop-from-backoffQ), finds a's UID still in inFlightPods (unlockedMoveEntityToInFlight fails:
  "the same pod is tracked in multiple places in the scheduler"), logs "Discarding the popped entity" and pops
  again. G1's deferred Done then clears the record. a is in no queue and not in flight: it is never
  scheduled until an update event re-adds it.
  (In the scheduler G1 is a binding goroutine failing a pod, G2 the scheduling loop.)`,
	Source: "v1.37.2 pkg/scheduler/backend/queue/scheduling_queue.go:1079-1083 (deferred p.Done), :1136 (requeue to backoffQ), :1140 (broadcast); active_queue.go:327 (Pop breaks to pop from backoffQ), :274-286 and :351-357 (discards a pod whose UID is in flight); the pod-group path calls Done first (:1116-1120) for exactly this race",
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
		t.Errorf("the requeue race did not show in %d trials: upstream fixed it, or the reproduction no longer reaches it", n)
	}
	return rate
}
