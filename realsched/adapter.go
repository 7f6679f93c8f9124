package realsched

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/schedq/schedq/impl"
	"github.com/schedq/schedq/spec"
)

// Adapter is upstream's SchedulingQueue on schedq's queue (package impl):
// the classic profile on v1.33.13, the hints profile on v1.37.2 and
// v1.38.0-beta.0 (the release file's hintsProfile; on v1.38 with the
// plugins' pre-queueing hints). The queue carries spec.Pod only, so the
// adapter keeps, per UID, the *v1.Pod and its parsed PodInfo that upstream
// callers expect back (Pop, NominatedPodsForNode, preCheck): a side table
// under a lock of its own, never held while the queue's lock is taken, so a
// preCheck that impl runs under its lock may read it.
//
// Every spec.Pod the adapter hands the queue carries its *v1.Pod as
// Object (R19): the profiles' PreEnqueue plugins (scheduling gates) run
// on it inside the queue (R17), the hints profile's queueing hints read it
// and the objects of every event (R16), and Update passes the verdict the
// release takes from the whole objects (podChange).
type Adapter struct {
	q        *impl.PriorityQueue
	registry spec.PluginEvents
	// sign computes a pod's scheduling signature with its profile (nil
	// in v1.33, which has none).
	sign func(*v1.Pod) podSignature

	mu   sync.RWMutex
	pods map[types.UID]*sideEntry

	// breakage, if set, makes the adapter wrong on purpose: the trace
	// check must reject it (the checker's own mutant).
	breakage Breakage
	// errs counts calls the queue refused (a wrong-type or unknown
	// object, an error from impl), a PreEnqueue plugin asked about a pod
	// without its *v1.Pod or that panicked (the pod is admitted), and a
	// preCheck that panicked: never a panic, always counted.
	errs atomic.Int64
}

// sideEntry is what the adapter knows of one UID. It lives while the queue
// holds the pod (held) or the nominator names it (nominated).
type sideEntry struct {
	info *podInfo
	pod  *spec.Pod
	held bool
	// inFlight: Pop returned the pod and its attempt has not ended
	// (AddUnschedulableIfNotPresent, Done, Delete).
	inFlight  bool
	nominated bool
	// sig is the pod's scheduling signature (v1.37's opportunistic
	// batching), computed as upstream's queue does when it takes in a new
	// version of the pod; nil in v1.33.
	sig podSignature
}

// Breakage names a deliberately broken adapter.
type Breakage int

const (
	// Correct is the adapter as it should be.
	Correct Breakage = iota
	// DropUnschedulable ends the pod's attempt instead of requeueing it in
	// AddUnschedulableIfNotPresent: the pod is lost.
	DropUnschedulable
	// SkipMoves ignores every cluster event (MoveAllToActiveOrBackoffQueue
	// does nothing): parked pods wait for the leftover flush.
	SkipMoves
	// IgnoreUpdateVerdict updates without the caller's verdict (the
	// queue derives it from spec.Pod's fields): an update that adds a
	// toleration leaves a parked pod parked.
	IgnoreUpdateVerdict
)

func (b Breakage) String() string {
	return [...]string{"correct", "drop-unschedulable", "skip-moves", "ignore-update-verdict"}[b]
}

// NewAdapter builds schedq's classic queue for the scheduler's profiles:
// the registry from their EnqueueExtensions and their PreEnqueue plugins
// (Config), PrioritySort required (schedq orders activeQ by priority then
// timestamp, as PrioritySort does), and the backoff settings given.
func NewAdapter(ctx context.Context, profiles map[string]upstreamProfile, clk clock.WithTicker, initialBackoff, maxBackoff time.Duration, b Breakage) (*Adapter, error) {
	if err := refuseOffByDefault(); err != nil {
		return nil, err
	}
	for name, p := range profiles {
		qs := p.ListPlugins().QueueSort.Enabled
		if len(qs) != 1 || qs[0].Name != "PrioritySort" {
			return nil, fmt.Errorf("profile %s: queue sort %v: schedq orders activeQ as PrioritySort only", name, qs)
		}
	}
	a := &Adapter{pods: map[types.UID]*sideEntry{}, breakage: b, sign: signer(ctx, profiles)}
	cfg, err := Config(ctx, profiles, a.fail)
	if err != nil {
		return nil, err
	}
	cfg.PodInitialBackoffDuration, cfg.PodMaxBackoffDuration = initialBackoff, maxBackoff
	var opts []impl.Option
	if clk != nil {
		opts = append(opts, impl.WithClock(clk))
	}
	q, err := impl.New(cfg, opts...)
	if err != nil {
		return nil, err
	}
	a.q, a.registry = q, cfg.PluginEvents
	return a, nil
}

// Queue is schedq's queue behind the adapter.
func (a *Adapter) Queue() *impl.PriorityQueue { return a.q }

// Errors is the number of calls the queue refused.
func (a *Adapter) Errors() int64 { return a.errs.Load() }

func (a *Adapter) fail(err error) {
	if err != nil {
		a.errs.Add(1)
	}
}

// remember records pod (and its parsed info, when given) as the current
// version of its UID and returns schedq's view of it.
func (a *Adapter) remember(pod *v1.Pod, pi *podInfo, held, nominated *bool) *spec.Pod {
	sp := specPod(pod)
	if pi == nil || pi.Pod != pod {
		pi, _ = newPodInfo(pod) // as upstream: a bad affinity term is not an error here
	}
	a.mu.RLock()
	e := a.pods[pod.UID]
	resign := a.sign != nil && (e == nil || e.info == nil || e.info.Pod != pod)
	a.mu.RUnlock()
	var sig podSignature
	if resign {
		sig = a.sign(pod) // outside the lock: it runs the profile's plugins
	}
	a.mu.Lock()
	e = a.pods[pod.UID]
	if e == nil {
		e = &sideEntry{}
		a.pods[pod.UID] = e
	}
	if resign {
		e.sig = sig
	}
	e.info, e.pod = pi, sp
	if held != nil {
		e.inFlight = false // a call that hands the pod to the queue ends its attempt
	}
	if held != nil {
		e.held = *held
	}
	if nominated != nil {
		e.nominated = *nominated
	}
	a.mu.Unlock()
	return sp
}

// release marks what no longer holds uid and forgets it once nothing does.
func (a *Adapter) release(uid types.UID, held, nominated bool) {
	a.mu.Lock()
	if e := a.pods[uid]; e != nil {
		if held {
			e.held, e.inFlight = false, false
		}
		if nominated {
			e.nominated = false
		}
		if !e.held && !e.nominated {
			delete(a.pods, uid)
		}
	}
	a.mu.Unlock()
}

func (a *Adapter) lookup(uid spec.UID) *sideEntry {
	a.mu.RLock()
	e := a.pods[types.UID(uid)]
	a.mu.RUnlock()
	return e
}

var yes, no = true, false

// add is R1.
func (a *Adapter) add(pod *v1.Pod) {
	if pod == nil {
		a.fail(spec.ErrNilPod)
		return
	}
	a.fail(a.q.Add(a.remember(pod, nil, &yes, nil)))
}

// Activate is R8, the pods in key order (a map has none).
func (a *Adapter) Activate(logger klog.Logger, pods map[string]*v1.Pod) {
	keys := make([]string, 0, len(pods))
	for k, p := range pods {
		if p != nil {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	list := make([]*spec.Pod, 0, len(keys))
	for _, k := range keys {
		p := pods[k]
		if e := a.lookup(spec.UID(p.UID)); e != nil {
			list = append(list, e.pod)
		} else {
			list = append(list, specPod(p))
		}
	}
	if len(list) > 0 {
		a.fail(a.q.Activate(list))
	}
}

// addUnschedulable is R3 (R3h). The scheduler hands back the
// QueuedPodInfo Pop returned, with the pod refreshed from the informer and
// its rejecting plugins set.
func (a *Adapter) addUnschedulable(pInfo *queuedPodInfo, podSchedulingCycle int64) error {
	if pInfo == nil || pInfo.PodInfo == nil || pInfo.Pod == nil {
		a.fail(spec.ErrNilPod)
		return spec.ErrNilPod
	}
	if a.breakage == DropUnschedulable {
		a.Done(pInfo.Pod.UID)
		return nil
	}
	sp := a.remember(pInfo.Pod, pInfo.PodInfo, &yes, nil)
	info := &spec.QueuedPodInfo{
		Pod:                     sp,
		Timestamp:               pInfo.Timestamp,
		Attempts:                pInfo.Attempts,
		UnschedulablePlugins:    spec.NewPluginSet(sets.List(pInfo.UnschedulablePlugins)...),
		InitialAttemptTimestamp: initialAttempt(pInfo),
		HintFields:              hintFieldsOf(pInfo),
	}
	err := a.q.AddUnschedulableIfNotPresent(info, podSchedulingCycle)
	a.fail(err)
	return err
}

// SchedulingCycle is schedulingCycle.
func (a *Adapter) SchedulingCycle() int64 { return a.q.SchedulingCycle() }

// pop is R2, with the *v1.Pod of the side table.
func (a *Adapter) pop() (*queuedPodInfo, error) {
	for {
		info, _, err := a.q.Pop()
		if err != nil {
			return nil, err
		}
		e := a.lookup(info.Pod.UID)
		if e == nil {
			// A pod the side table does not know cannot be scheduled:
			// end its attempt rather than hand the scheduler nothing.
			a.fail(fmt.Errorf("popped %s: unknown UID", info.Pod.Key()))
			a.fail(a.q.Done(info.Pod.UID))
			continue
		}
		a.mu.Lock()
		e.inFlight = true
		a.mu.Unlock()
		return newQueuedPodInfo(e, info), nil
	}
}

// Done is R12. Done of a pod the queue no longer has in flight is normal
// for the scheduler (upstream ignores it) and not counted.
func (a *Adapter) Done(uid types.UID) {
	_ = a.q.Done(spec.UID(uid))
	a.release(uid, true, false)
}

// update is R9 (R9h), with the release's verdict on the whole objects
// (podChange): an update that adds a toleration, say, requeues a parked
// pod, which the fields of spec.Pod alone would not show.
func (a *Adapter) update(oldPod, newPod *v1.Pod) {
	if oldPod == nil || newPod == nil {
		a.fail(spec.ErrNilPod)
		return
	}
	old, inFlight := specPod(oldPod), false
	a.mu.RLock()
	if e := a.pods[oldPod.UID]; e != nil {
		// Under another UID the attempt in flight ends (R9): no Activate.
		old, inFlight = e.pod, e.inFlight && oldPod.UID == newPod.UID
	}
	a.mu.RUnlock()
	change := podChange(oldPod, newPod)
	if a.breakage == IgnoreUpdateVerdict {
		change = nil
	}
	sp := a.remember(newPod, nil, &yes, nil)
	if inFlight {
		a.mu.Lock()
		if e := a.pods[newPod.UID]; e != nil {
			e.inFlight = true // replaced in place: still in flight
		}
		a.mu.Unlock()
	}
	a.fail(a.q.UpdateWithChange(old, sp, change))
	if inFlight && change != nil && change.Relevant && !hintsProfile {
		// R9 replaces a pod in flight in place, and its attempt runs on
		// the old object: if that attempt fails, the pod would wait in
		// unschedulablePods although this update may make it schedulable
		// (upstream v1.33 queues a second copy instead). Activate of a pod
		// in flight is the contract's way to say so (R8): moveRequestCycle
		// becomes schedulingCycle, and the failing pod takes R3's shortcut
		// to backoffQ. The trace check's model takes the same step
		// (Recorder.update). The hints profile needs none: the update's
		// events are recorded for the pod in flight (R9h, R15).
		a.fail(a.q.Activate([]*spec.Pod{sp}))
	}
}

// delete is R10.
func (a *Adapter) delete(pod *v1.Pod) {
	if pod == nil {
		a.fail(spec.ErrNilPod)
		return
	}
	if err := a.q.Delete(specPod(pod)); err != nil && !errors.Is(err, spec.ErrPodNotFound) {
		a.fail(err)
	}
	a.mu.Lock()
	delete(a.pods, pod.UID)
	a.mu.Unlock()
}

// preCheck turns upstream's preCheck into schedq's: it reads the side
// table (impl may call it under its own lock; the side table's lock is
// never held around a queue call). A pod the table does not know passes:
// moving a pod too many is a wasted attempt, not a loss.
func (a *Adapter) preCheck(pc preEnqueueCheck) spec.PreEnqueueCheck {
	if pc == nil {
		return nil
	}
	return func(p *spec.Pod) (ok bool) {
		e := a.lookup(p.UID)
		if e == nil {
			return true
		}
		// impl runs this under its lock: a preCheck that panics (a
		// plugin's bug, an object it did not expect) moves the pod and
		// is counted, rather than unwinding through the queue's lock.
		defer func() {
			if r := recover(); r != nil {
				a.fail(fmt.Errorf("preCheck panicked on %s: %v", p.Key(), r))
				ok = true
			}
		}()
		return askPreCheck(pc, e.info.Pod, e.info)
	}
}

// MoveAllToActiveOrBackoffQueue is R4 (R4h), with the event's objects
// (R19): the hints profile hands them to the plugins' queueing hints and
// records them for the pods in flight; the classic profile ignores them.
func (a *Adapter) MoveAllToActiveOrBackoffQueue(logger klog.Logger, event clusterEvent, oldObj, newObj interface{}, pc preEnqueueCheck) {
	if a.breakage == SkipMoves {
		return
	}
	a.fail(a.q.MoveAllToActiveOrBackoffQueueWithObjects(specOccurrence(event, oldObj, newObj), a.preCheck(pc)))
}

// Close is R13.
func (a *Adapter) Close() { a.q.Close() }

// Run starts the queue's flushes.
func (a *Adapter) Run(logger klog.Logger) { a.q.Run() }

// AddNominatedPod is R18.
func (a *Adapter) AddNominatedPod(logger klog.Logger, pi nominatedInfo, ni *nominatingInfo) {
	pod := podOfInfo(pi)
	if pod == nil {
		a.fail(spec.ErrNilPod)
		return
	}
	mode, node := spec.NominateNoop, pod.Status.NominatedNodeName
	if ni.Mode() == modeOverride {
		mode, node = spec.NominateOverride, ni.NominatedNodeName
	}
	nominated := node != ""
	sp := a.remember(pod, infoOf(pi), nil, &nominated)
	a.fail(a.q.AddNominatedPod(sp, mode, node))
	if !nominated {
		a.release(pod.UID, false, true)
	}
}

// DeleteNominatedPodIfExists drops pod's nomination (an Override to no
// node, which R18 treats as none).
func (a *Adapter) DeleteNominatedPodIfExists(pod *v1.Pod) {
	if pod == nil {
		return
	}
	e := a.lookup(spec.UID(pod.UID))
	if e == nil || !e.nominated {
		return
	}
	a.fail(a.q.AddNominatedPod(e.pod, spec.NominateOverride, ""))
	a.release(pod.UID, false, true)
}

// UpdateNominatedPod re-nominates the new version to the old one's node.
func (a *Adapter) UpdateNominatedPod(logger klog.Logger, oldPod *v1.Pod, newPodInfo nominatedInfo) {
	newPod := podOfInfo(newPodInfo)
	if oldPod == nil || newPod == nil {
		return
	}
	e := a.lookup(spec.UID(oldPod.UID))
	if e == nil || !e.nominated {
		return
	}
	sp := a.remember(newPod, infoOf(newPodInfo), nil, nil)
	mode, node := spec.NominateNoop, ""
	if oldPod.Status.NominatedNodeName != "" && newPod.Status.NominatedNodeName == "" {
		mode, node = spec.NominateOverride, oldPod.Status.NominatedNodeName
	}
	a.fail(a.q.AddNominatedPod(sp, mode, node))
}

// nominatedPodsForNode is R18, as upstream's PodInfos (NominatedPodsForNode
// in the release file: v1.38 passes a logger).
func (a *Adapter) nominatedPodsForNode(nodeName string) []nominatedInfo {
	pods := a.q.NominatedPodsForNode(nodeName)
	if len(pods) == 0 {
		return nil
	}
	out := make([]nominatedInfo, 0, len(pods))
	a.mu.RLock()
	for _, p := range pods {
		if e := a.pods[types.UID(p.UID)]; e != nil {
			out = append(out, e.info)
		}
	}
	a.mu.RUnlock()
	return out
}

// The debugging getters of the interface, answered from a snapshot.

// getPod finds a queued pod by name.
func (a *Adapter) getPod(name, namespace string) (*queuedPodInfo, bool) {
	s := a.q.Snapshot()
	for _, l := range [][]spec.QueuedPodInfo{s.ActiveQ, s.BackoffQ, s.UnschedulablePods} {
		for _, p := range l {
			if p.Pod.Name == name && p.Pod.Namespace == namespace {
				if e := a.lookup(p.Pod.UID); e != nil {
					return newQueuedPodInfo(e, &p), true
				}
			}
		}
	}
	return nil, false
}

func (a *Adapter) v1Pods(l []spec.QueuedPodInfo) []*v1.Pod {
	out := make([]*v1.Pod, 0, len(l))
	for _, p := range l {
		if e := a.lookup(p.Pod.UID); e != nil {
			out = append(out, e.info.Pod)
		}
	}
	return out
}

// PendingPods lists activeQ, backoffQ and unschedulablePods.
func (a *Adapter) PendingPods() ([]*v1.Pod, string) {
	s := a.q.Snapshot()
	all := append(append(a.v1Pods(s.ActiveQ), a.v1Pods(s.BackoffQ)...), a.v1Pods(s.UnschedulablePods)...)
	return all, fmt.Sprintf("activeQ:%d; backoffQ:%d; unschedulablePods:%d", len(s.ActiveQ), len(s.BackoffQ), len(s.UnschedulablePods))
}

// InFlightPods lists the pods in flight.
func (a *Adapter) InFlightPods() []*v1.Pod { return a.v1Pods(a.q.Snapshot().InFlight) }

// PodsInActiveQ lists activeQ.
func (a *Adapter) PodsInActiveQ() []*v1.Pod { return a.v1Pods(a.q.Snapshot().ActiveQ) }

// PodsInBackoffQ lists backoffQ.
func (a *Adapter) PodsInBackoffQ() []*v1.Pod { return a.v1Pods(a.q.Snapshot().BackoffQ) }

// UnschedulablePods lists unschedulablePods.
func (a *Adapter) UnschedulablePods() []*v1.Pod { return a.v1Pods(a.q.Snapshot().UnschedulablePods) }

var _ upstreamQueue = (*Adapter)(nil)
