// Package v133 adapts the kube-scheduler v1.33.13 scheduling queue
// (k8s.io/kubernetes/pkg/scheduler/backend/queue.PriorityQueue) to the
// schedq conformance suite, in two profiles: classic (SchedulerQueueingHints
// and SchedulerPopFromBackoffQ off, the semantics schedq implements) and the
// release's default gates (both on).
//
// What the adapter adds, and why:
//   - In-flight pods. Classic mode does not track them (InFlightPods is nil
//     and Done is a no-op), so the adapter records every pod Pop returned
//     until it is handed back, Done, or deleted. Snapshot reports them.
//   - The two flushes. They are unexported and run on timers; the adapter
//     calls them directly (linkname, flush.go), so scenarios decide when
//     they happen, as with every other target.
//   - moveRequestCycle is read by reflection, for observation only; with
//     queueing hints on, so is the in-flight list (inflight.go).
//   - The nominator (R18) is upstream's own (AddNominatedPod,
//     NominatedPodsForNode).
//   - Metrics (R14) are read from the process's registry, which every
//     queue of the process shares, as what changed since the target was
//     made (the suite makes one queue at a time). Moves by a wildcard
//     event other than upstream's two are raised under upstream's
//     ForceActivate (its other wildcard labels are unexported), so the
//     adapter counts them under their own label again.
//   - Bad input the upstream API cannot express (a nil pod panics there) is
//     rejected by the adapter with the spec errors before reaching the
//     queue; everything else upstream ignores silently (SilentNoOps).
package v133

import (
	"fmt"
	"reflect"
	"sort"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/wait"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/schedq/schedq/conformance"
	"github.com/schedq/schedq/spec"
)

// SchedulerName is the profile every pod and hint map uses.
const SchedulerName = "default-scheduler"

// Target is the upstream queue behind the conformance.Target interface.
type Target struct {
	q        *queue.PriorityQueue
	clock    *testingclock.FakeClock
	logger   klog.Logger
	profile  conformance.TargetInfo
	cfg      spec.Config
	inFlight map[spec.PodKey]*framework.QueuedPodInfo
	closed   bool // so that cleanup does not close twice: upstream Close panics then
	// base is the registry's metrics when the target was made; relabel
	// corrects the series of wildcard moves (see the package doc).
	base    conformance.Metrics
	relabel map[conformance.IncomingSeries]int64
}

var (
	_ conformance.Target = (*Target)(nil)
	_ spec.Nominator     = (*Target)(nil)
)

// Classic returns a NewTarget for v1.33.13 with the classic gates.
func Classic() conformance.NewTarget {
	return newTarget(false, conformance.TargetInfo{
		Name:        conformance.TargetUpstream133Classic,
		Description: "kube-scheduler v1.33.13, SchedulerQueueingHints=false, SchedulerPopFromBackoffQ=false",
	})
}

// QueueingHints returns a NewTarget for v1.33.13 with its default gates
// (queueing hints and pop-from-backoffQ on).
func QueueingHints() conformance.NewTarget {
	return newTarget(true, conformance.TargetInfo{
		Name:        conformance.TargetUpstream133Hints,
		Description: "kube-scheduler v1.33.13, default gates (SchedulerQueueingHints=true, SchedulerPopFromBackoffQ=true)",
	})
}

func newTarget(hints bool, prof conformance.TargetInfo) conformance.NewTarget {
	prof.Blocking = true
	prof.SilentNoOps = true
	// Classic mode counts as R14 says; with queueing hints the counts
	// follow other rules, not compared.
	prof.Observes = conformance.Observes{MoveRequestCycle: true, PodInfo: true, Metrics: !hints}
	return func(t testing.TB, cfg spec.Config, start time.Time) conformance.Target {
		if !hints && refuseHints(t, cfg) {
			return nil
		}
		prof := prof
		if cfg.Profile == spec.ProfileHints {
			// v1.33 still updates moveRequestCycle but never reads it
			// with hints on; the profile has none (hints.go).
			prof.Observes.MoveRequestCycle = false
			prof.Observes.InFlightEvents = hints
		}
		q, clk, err := newQueue(cfg, start, hints)
		if err != nil {
			t.Fatal(err)
		}
		tg := &Target{q: q, clock: clk, logger: klog.Background(), profile: prof, cfg: cfg,
			inFlight: make(map[spec.PodKey]*framework.QueuedPodInfo),
			base:     gatherMetrics(), relabel: make(map[conformance.IncomingSeries]int64)}
		t.Cleanup(func() {
			if !tg.closed {
				q.Close()
			}
		})
		return tg
	}
}

// newQueue builds the upstream PriorityQueue with cfg, a fake clock reading
// start, and the gates of the profile (queueing hints and pop-from-backoffQ
// both on, or both off for classic mode). The conformance target and the
// comparison benchmarks build their queues here, so both measure the same
// queue.
func newQueue(cfg spec.Config, start time.Time, hints bool) (*queue.PriorityQueue, *testingclock.FakeClock, error) {
	// The gates are read once, in NewPriorityQueue, so each queue gets the
	// profile's gates whatever the previous one had.
	if err := utilfeature.DefaultMutableFeatureGate.SetFromMap(map[string]bool{
		string(features.SchedulerQueueingHints):   hints,
		string(features.SchedulerPopFromBackoffQ): hints,
	}); err != nil {
		return nil, nil, fmt.Errorf("setting feature gates: %w", err)
	}
	metrics.Register() // NewPriorityQueue needs the metric vectors
	clk := testingclock.NewFakeClock(start)
	rec := metrics.NewMetricsAsyncRecorder(1000, time.Second, wait.NeverStop)
	q := queue.NewPriorityQueue(less, informers.NewSharedInformerFactory(fake.NewSimpleClientset(), 0),
		queue.WithClock(clk),
		queue.WithMetricsRecorder(*rec),
		queue.WithPodInitialBackoffDuration(cfg.PodInitialBackoffDuration),
		queue.WithPodMaxBackoffDuration(cfg.PodMaxBackoffDuration),
		queue.WithPodMaxInUnschedulablePodsDuration(cfg.PodMaxInUnschedulablePodsDuration),
		queue.WithQueueingHintMapPerProfile(queue.QueueingHintMapPerProfile{SchedulerName: hintMapFor(cfg)}),
		queue.WithPreEnqueuePluginMap(map[string][]framework.PreEnqueuePlugin{SchedulerName: preEnqueuePlugins(cfg)}),
	)
	return q, clk, nil
}

// less is the default PrioritySort order: priority, then Timestamp.
func less(a, b *framework.QueuedPodInfo) bool {
	pa, pb := priority(a.Pod), priority(b.Pod)
	return pa > pb || pa == pb && a.Timestamp.Before(b.Timestamp)
}

func priority(p *v1.Pod) int32 {
	if p.Spec.Priority != nil {
		return *p.Spec.Priority
	}
	return 0
}

// queue is the hint every registered event gets in classic mode
// (kube-scheduler's defaultQueueingHintFn): the event may help.
func queueHint(klog.Logger, *v1.Pod, interface{}, interface{}) (framework.QueueingHint, error) {
	return framework.Queue, nil
}

func hintMap(r spec.PluginEvents) queue.QueueingHintMap {
	m := queue.QueueingHintMap{}
	for plugin, evs := range r {
		for _, e := range evs {
			fe := toEvent(e)
			m[fe] = append(m[fe], &queue.QueueingHintFunction{PluginName: plugin, QueueingHintFn: queueHint})
		}
	}
	return m
}

// toEvent maps a spec event to upstream's: resources and action bits are
// the same strings and bits; the wildcard maps to upstream's own wildcard
// events, whose labels are unexported.
func toEvent(e spec.ClusterEvent) framework.ClusterEvent {
	if e.IsWildCard() {
		if e.Label == spec.EventUnschedulableTimeout.Label {
			return framework.EventUnschedulableTimeout
		}
		return framework.EventForceActivate
	}
	return framework.ClusterEvent{Resource: framework.EventResource(e.Resource), ActionType: framework.ActionType(e.ActionType)}
}

func toV1(p *spec.Pod) *v1.Pod {
	prio := p.Priority
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: p.Namespace, Name: p.Name, UID: types.UID(p.UID),
			Labels: p.Labels, ResourceVersion: p.ResourceVersion},
		Spec:   v1.PodSpec{SchedulerName: SchedulerName, Priority: &prio},
		Status: v1.PodStatus{Message: p.Status, NominatedNodeName: p.NominatedNodeName},
	}
	if len(p.RequiredAffinityTerms) > 0 {
		var terms []v1.PodAffinityTerm
		for _, t := range p.RequiredAffinityTerms {
			terms = append(terms, v1.PodAffinityTerm{
				LabelSelector: &metav1.LabelSelector{MatchLabels: t.MatchLabels},
				Namespaces:    t.Namespaces,
				TopologyKey:   "kubernetes.io/hostname",
			})
		}
		pod.Spec.Affinity = &v1.Affinity{PodAffinity: &v1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: terms}}
	}
	return pod
}

func toSpec(p *v1.Pod) *spec.Pod {
	out := &spec.Pod{Namespace: p.Namespace, Name: p.Name, UID: spec.UID(p.UID), Priority: priority(p),
		Labels: p.Labels, ResourceVersion: p.ResourceVersion, Status: p.Status.Message,
		NominatedNodeName: p.Status.NominatedNodeName}
	if a := p.Spec.Affinity; a != nil && a.PodAffinity != nil {
		for _, t := range a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
			term := spec.AffinityTerm{Namespaces: t.Namespaces}
			if t.LabelSelector != nil {
				term.MatchLabels = t.LabelSelector.MatchLabels
			}
			out.RequiredAffinityTerms = append(out.RequiredAffinityTerms, term)
		}
	}
	return out
}

func toInfo(pi *framework.QueuedPodInfo) spec.QueuedPodInfo {
	out := spec.QueuedPodInfo{Pod: toSpec(pi.Pod), Timestamp: pi.Timestamp, Attempts: pi.Attempts,
		UnschedulablePlugins: spec.NewPluginSet(sets.List(pi.UnschedulablePlugins.Union(pi.PendingPlugins))...)}
	if pi.InitialAttemptTimestamp != nil {
		out.InitialAttemptTimestamp = *pi.InitialAttemptTimestamp
	}
	return out
}

// Info implements conformance.Target.
func (t *Target) Info() conformance.TargetInfo { return t.profile }

// Advance implements conformance.Target.
func (t *Target) Advance(d time.Duration) { t.clock.Step(d) }

// Add is R1.
func (t *Target) Add(p *spec.Pod) error {
	if err := p.Validate(); err != nil {
		return err
	}
	t.q.Add(t.logger, toV1(p))
	return nil
}

// Pop is R2. Upstream returns (nil, nil) once closed.
func (t *Target) Pop() (*spec.QueuedPodInfo, int64, error) {
	pi, err := t.q.Pop(t.logger)
	if err != nil {
		return nil, 0, err
	}
	if pi == nil {
		return nil, 0, spec.ErrClosed
	}
	t.inFlight[spec.PodKey(pi.Pod.Namespace+"/"+pi.Pod.Name)] = pi
	out := t.info(pi)
	return &out, t.q.SchedulingCycle(), nil
}

// AddUnschedulableIfNotPresent is R3. The scheduler hands back the very
// QueuedPodInfo Pop returned; the adapter does the same when it has it.
func (t *Target) AddUnschedulableIfNotPresent(info *spec.QueuedPodInfo, cycle int64) error {
	if err := info.Validate(); err != nil {
		return err
	}
	key := info.Key()
	pi, ok := t.inFlight[key]
	if !ok {
		podInfo, _ := framework.NewPodInfo(toV1(info.Pod))
		pi = &framework.QueuedPodInfo{PodInfo: podInfo, Timestamp: info.Timestamp}
		if !info.InitialAttemptTimestamp.IsZero() {
			ts := info.InitialAttemptTimestamp
			pi.InitialAttemptTimestamp = &ts
		}
	} else if spec.IsPodUpdated(toSpec(pi.Pod), info.Pod) {
		_ = pi.Update(toV1(info.Pod))
	}
	pi.Attempts = info.Attempts
	pi.UnschedulablePlugins = sets.New[string](info.UnschedulablePlugins...)
	pi.PendingPlugins = sets.New[string](info.PendingPlugins...)
	if err := t.q.AddUnschedulableIfNotPresent(t.logger, pi, cycle); err != nil {
		return fmt.Errorf("%w: %v", spec.ErrAlreadyQueued, err)
	}
	delete(t.inFlight, key)
	return nil
}

func (t *Target) preCheck(pre spec.PreEnqueueCheck) queue.PreEnqueueCheck {
	if pre == nil {
		return nil
	}
	return func(p *v1.Pod) bool { return pre(toSpec(p)) }
}

// MoveAllToActiveOrBackoffQueue is R4.
func (t *Target) MoveAllToActiveOrBackoffQueue(e spec.ClusterEvent, pre spec.PreEnqueueCheck) {
	fe := toEvent(e)
	var before conformance.Metrics
	relabel := fe.Label() != e.EventLabel()
	if relabel {
		before = gatherMetrics()
	}
	t.q.MoveAllToActiveOrBackoffQueue(t.logger, fe, nil, nil, t.preCheck(pre))
	if relabel {
		after := gatherMetrics()
		for _, q := range []string{conformance.MetricQueueActive, conformance.MetricQueueBackoff} {
			up, own := conformance.IncomingSeries{Queue: q, Event: fe.Label()}, conformance.IncomingSeries{Queue: q, Event: e.EventLabel()}
			d := int64(after.IncomingPods[up] - before.IncomingPods[up])
			t.relabel[up] -= d
			t.relabel[own] += d
		}
	}
}

// Metrics implements conformance.MetricsReporter: what the registry's
// scheduler_pending_pods and scheduler_queue_incoming_pods_total gained
// since the target was made.
func (t *Target) Metrics() conformance.Metrics {
	now := gatherMetrics()
	out := conformance.Metrics{PendingPods: map[string]int{}, IncomingPods: map[conformance.IncomingSeries]uint64{}}
	for l, v := range now.PendingPods {
		out.PendingPods[l] = v - t.base.PendingPods[l]
	}
	for s, v := range now.IncomingPods {
		out.IncomingPods[s] = v - t.base.IncomingPods[s]
	}
	for s, d := range t.relabel {
		out.IncomingPods[s] = uint64(int64(out.IncomingPods[s]) + d)
	}
	for s, v := range out.IncomingPods {
		if v == 0 {
			delete(out.IncomingPods, s)
		}
	}
	return out
}

// gatherMetrics reads the queue metrics of the process's registry.
func gatherMetrics() conformance.Metrics {
	out := conformance.Metrics{PendingPods: map[string]int{}, IncomingPods: map[conformance.IncomingSeries]uint64{}}
	mfs, err := metrics.GetGather().Gather()
	if err != nil {
		panic(fmt.Sprintf("reading the metrics registry: %v", err))
	}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			var queue, event string
			for _, l := range m.GetLabel() {
				switch l.GetName() {
				case "queue":
					queue = l.GetValue()
				case "event":
					event = l.GetValue()
				}
			}
			switch mf.GetName() {
			case "scheduler_pending_pods":
				out.PendingPods[queue] = int(m.GetGauge().GetValue())
			case "scheduler_queue_incoming_pods_total":
				out.IncomingPods[conformance.IncomingSeries{Queue: queue, Event: event}] = uint64(m.GetCounter().GetValue())
			}
		}
	}
	return out
}

// FlushBackoffQCompleted is R5, upstream's own flush.
func (t *Target) FlushBackoffQCompleted() { flushBackoffQCompleted(t.q, t.logger) }

// FlushUnschedulablePodsLeftover is R6, upstream's own flush.
func (t *Target) FlushUnschedulablePodsLeftover() { flushUnschedulablePodsLeftover(t.q, t.logger) }

// Activate is R8.
func (t *Target) Activate(pods []*spec.Pod) error {
	m := make(map[string]*v1.Pod, len(pods))
	for _, p := range pods {
		if err := p.Validate(); err != nil {
			return err
		}
		m[string(p.Key())] = toV1(p)
	}
	t.q.Activate(t.logger, m)
	return nil
}

// Update is R9.
func (t *Target) Update(oldPod, newPod *spec.Pod) error {
	if err := oldPod.Validate(); err != nil {
		return err
	}
	if err := newPod.Validate(); err != nil {
		return err
	}
	if oldPod.Key() != newPod.Key() {
		return fmt.Errorf("%w: the key changes", spec.ErrInvalidPod)
	}
	t.q.Update(t.logger, toV1(oldPod), toV1(newPod))
	t.updateInFlight(newPod)
	return nil
}

// Delete is R10. A deleted pod in flight is forgotten by the adapter and
// ended with Done upstream, as the scheduler does for a pod that no longer
// exists; with queueing hints that takes its marker off the in-flight list.
func (t *Target) Delete(p *spec.Pod) error {
	if err := p.Validate(); err != nil {
		return err
	}
	t.q.Delete(toV1(p))
	if pi, ok := t.inFlight[p.Key()]; ok {
		// The scheduler ends the attempt of a pod deleted in flight; with
		// queueing hints that is what takes its marker off the list.
		delete(t.inFlight, p.Key())
		t.q.Done(pi.Pod.UID)
	}
	return nil
}

// AssignedPodAdded is R11.
func (t *Target) AssignedPodAdded(p *spec.Pod) error {
	if err := p.Validate(); err != nil {
		return err
	}
	t.q.AssignedPodAdded(t.logger, toV1(p))
	return nil
}

// AssignedPodUpdated is R11 for an update.
func (t *Target) AssignedPodUpdated(oldPod, newPod *spec.Pod, e spec.ClusterEvent) error {
	if err := newPod.Validate(); err != nil {
		return err
	}
	var old *v1.Pod
	if oldPod != nil {
		old = toV1(oldPod)
	}
	t.q.AssignedPodUpdated(t.logger, old, toV1(newPod), toEvent(e))
	return nil
}

// Done is R12.
func (t *Target) Done(uid spec.UID) error {
	for k, pi := range t.inFlight {
		if spec.UID(pi.Pod.UID) == uid {
			delete(t.inFlight, k)
		}
	}
	t.q.Done(types.UID(uid))
	return nil
}

// AddNominatedPod is R18, through upstream's own nominator (no pod lister:
// the informer check R18 leaves out of scope is off).
func (t *Target) AddNominatedPod(p *spec.Pod, mode spec.NominatingMode, nodeName string) error {
	if err := p.Validate(); err != nil {
		return err
	}
	pi, err := framework.NewPodInfo(toV1(p))
	if err != nil {
		return err
	}
	m := framework.ModeNoop
	if mode == spec.NominateOverride {
		m = framework.ModeOverride
	}
	t.q.AddNominatedPod(t.logger, pi, &framework.NominatingInfo{NominatingMode: m, NominatedNodeName: nodeName})
	return nil
}

// NominatedPodsForNode is R18.
func (t *Target) NominatedPodsForNode(nodeName string) []*spec.Pod {
	var out []*spec.Pod
	for _, pi := range t.q.NominatedPodsForNode(nodeName) {
		out = append(out, toSpec(pi.Pod))
	}
	return out
}

// Close is R13. It passes every call through: a second Close panics
// upstream (close of a closed channel), which the suite reports.
func (t *Target) Close() {
	t.closed = true
	t.q.Close()
}

// SchedulingCycle implements spec.Queue.
func (t *Target) SchedulingCycle() int64 { return t.q.SchedulingCycle() }

// Snapshot reads each queue through the exported accessors and GetPod, the
// in-flight pods from the adapter, and moveRequestCycle by reflection.
func (t *Target) Snapshot() spec.Snapshot {
	s := spec.Snapshot{Now: t.clock.Now(), SchedulingCycle: t.q.SchedulingCycle(),
		MoveRequestCycle: reflect.ValueOf(t.q).Elem().FieldByName("moveRequestCycle").Int()}
	infos := func(pods []*v1.Pod) []spec.QueuedPodInfo {
		var out []spec.QueuedPodInfo
		for _, p := range pods {
			if pi, ok := t.q.GetPod(p.Name, p.Namespace); ok {
				out = append(out, t.info(pi))
			}
		}
		spec.SortPods(out)
		return out
	}
	s.ActiveQ = infos(t.q.PodsInActiveQ())
	s.BackoffQ = infos(t.q.PodsInBackoffQ())
	s.UnschedulablePods = infos(t.q.UnschedulablePods())
	for _, pi := range t.inFlight {
		s.InFlight = append(s.InFlight, t.info(pi))
	}
	sort.Slice(s.InFlight, func(i, j int) bool { return s.InFlight[i].Key() < s.InFlight[j].Key() })
	if t.profile.Observes.InFlightEvents {
		l, ok := t.inFlightEvents()
		if !ok {
			panic("v133 adapter: cannot read the in-flight list (activeQueue.inFlightEvents): upstream's layout changed")
		}
		s.InFlightEvents = l
	}
	return s
}
