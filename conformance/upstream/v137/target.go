// Package v137 adapts the kube-scheduler v1.37.2 scheduling queue
// (k8s.io/kubernetes/pkg/scheduler/backend/queue.PriorityQueue) to the
// schedq conformance suite, with the release's default feature gates.
//
// v1.37.2 is not the classic queue: queueing hints are the only mode (the
// SchedulerQueueingHints gate is gone), moveRequestCycle no longer exists,
// and SchedulerPopFromBackoffQ is still a gate, beta and on by default
// (pkg/features/kube_features.go:2119), so backoff expiries are aligned to
// 1s windows. The classic scenarios where this shows are declared as known
// differences of conformance.TargetUpstream137. It is the reference of
// schedq's hints profile (spec.ProfileHints): built with a config of that
// profile, the target plugs in the config's queueing hints and PreEnqueue
// plugins (hints.go), reports the hint fields and the in-flight list
// (inflight.go), and passes the hints scenarios and random runs except the
// differences they declare.
//
// What the adapter adds or maps, and why:
//   - API changes since v1.33: Add and Update take a context, Delete a
//     logger; Pop returns a framework.QueuedEntityInfo (a pod or a pod
//     group; pod groups are off: GenericWorkload is off by default and no
//     pod names one); AddUnschedulableIfNotPresent is now
//     AddUnschedulablePodIfNotPresent; GetPod takes a scheduling group (nil);
//     the less function takes fwk.QueuedEntityInfo; WithMetricsRecorder a
//     pointer; event types live in k8s.io/kube-scheduler/framework.
//   - Events. v1.37 added action bits (UpdateNodeDeclaredFeature,
//     UpdateNodePreemptionPolicy, UpdatePodScaleUp) in the middle of the
//     set, so spec events are mapped bit by bit, not cast.
//   - AssignedPodAdded and AssignedPodUpdated no longer exist. The adapter
//     does what v1.37.2's event handlers do (eventhandlers.go:411 and :439):
//     MoveAllToActiveOrBackoffQueue with the assigned-pod event and the pod
//     as the event's object. Which pods that moves is now up to the
//     plugins' queueing hints; the queue's own affinity pre-filter is gone.
//   - Queueing hints. Every registered event gets a hint that says Queue,
//     which is what kube-scheduler gives a plugin that registers an event
//     without a hint (defaultQueueingHintFn) and what classic mode assumed.
//   - In-flight pods. Upstream tracks them itself, but only as *v1.Pod; the
//     adapter keeps the QueuedPodInfo each Pop returned until it is handed
//     back, Done, or deleted, to report its fields and to hand it back.
//   - Rejecting plugins. Pop no longer clears them (the scheduler does, in
//     handleSchedulingFailure); the adapter's AddUnschedulableIfNotPresent
//     replaces them with the suite's, as handleSchedulingFailure does.
//   - The two flushes are unexported and run on timers; the adapter calls
//     them directly (linkname, flush.go), so scenarios decide when they
//     happen.
//   - moveRequestCycle does not exist: the hints profile reports -1, as the
//     model does; Closed is what the adapter's Close recorded.
//   - Metrics (R14h, hints profile only) are read from the process's
//     registry as what changed since the target was made (metrics.go).
//   - Bad input the upstream API cannot express (a nil pod panics there) is
//     rejected by the adapter with the spec errors before reaching the
//     queue; everything else upstream ignores silently (SilentNoOps).
package v137

import (
	"context"
	"fmt"
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
	fwk "k8s.io/kube-scheduler/framework"
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
	// hints: built with a config of the hints profile (hints.go).
	hints    bool
	q        *queue.PriorityQueue
	clock    *testingclock.FakeClock
	logger   klog.Logger
	ctx      context.Context
	inFlight map[spec.PodKey]*framework.QueuedPodInfo
	closed   bool // so that cleanup does not close twice: upstream Close panics then
	// base is the registry's metrics when the target was made (metrics.go).
	base conformance.Metrics
}

var (
	_ conformance.Target = (*Target)(nil)
	_ spec.Nominator     = (*Target)(nil)
)

// Profile is what the target claims.
func Profile() conformance.TargetInfo {
	return conformance.TargetInfo{
		Name:        conformance.TargetUpstream137,
		Description: "kube-scheduler v1.37.2 (queueing hints locked on; moveRequestCycle removed)",
		Blocking:    true,
		SilentNoOps: true,
		Observes:    conformance.Observes{MoveRequestCycle: false, PodInfo: true},
	}
}

// HintsProfile is what the target claims when built with a config of the
// hints profile: it then also reports each pod's UnschedulableCount,
// ConsecutiveErrorsCount and FlushTimestamp, the in-flight list (read from
// the unexported activeQueue, inflight.go), moveRequestCycle as the
// profile has it (none: -1 always) and whether Close was called. It then
// observes everything the profile's invariants are stated over, so the
// suite checks them (spec.CheckStep: I1, I2h-I5h, I6, I7) on the real
// queue after every step. It also reports the metrics (R14h, metrics.go).
func HintsProfile() conformance.TargetInfo {
	p := Profile()
	p.Observes.Metrics = true
	p.Observes.HintCounts = true
	p.Observes.InFlightEvents = true
	p.Observes.MoveRequestCycle = true
	p.Observes.Closed = true
	return p
}

// newQueue builds the upstream PriorityQueue with cfg, a fake clock reading
// start, and the release's default gates. The conformance target and the
// comparison benchmarks build their queues here, so both measure the same
// queue.
func newQueue(cfg spec.Config, start time.Time, opts ...queue.Option) (*queue.PriorityQueue, *testingclock.FakeClock, error) {
	// Pinned to their v1.37.2 defaults, whatever the process set: the
	// gates are read once, in NewPriorityQueue.
	if err := utilfeature.DefaultMutableFeatureGate.SetFromMap(map[string]bool{
		string(features.SchedulerPopFromBackoffQ):  true,
		string(features.GenericWorkload):           false,
		string(features.SchedulerPreQueueingHints): false,
	}); err != nil {
		return nil, nil, fmt.Errorf("setting feature gates: %w", err)
	}
	metrics.Register() // NewPriorityQueue needs the metric vectors
	clk := testingclock.NewFakeClock(start)
	rec := metrics.NewMetricsAsyncRecorder(1000, time.Second, wait.NeverStop)
	q := queue.NewPriorityQueue(less, informers.NewSharedInformerFactory(fake.NewClientset(), 0), append([]queue.Option{
		queue.WithClock(clk),
		queue.WithMetricsRecorder(rec),
		queue.WithPodInitialBackoffDuration(cfg.PodInitialBackoffDuration),
		queue.WithPodMaxBackoffDuration(cfg.PodMaxBackoffDuration),
		queue.WithPodMaxInUnschedulablePodsDuration(cfg.PodMaxInUnschedulablePodsDuration),
		queue.WithQueueingHintMapPerProfile(queue.QueueingHintMapPerProfile{SchedulerName: hintMapFor(cfg)}),
		queue.WithPreEnqueuePluginMap(map[string]map[string]fwk.PreEnqueuePlugin{SchedulerName: preEnqueuePlugins(cfg)}),
	}, opts...)...,
	)
	return q, clk, nil
}

// New returns a NewTarget for v1.37.2 with its default gates.
func New() conformance.NewTarget {
	return func(t testing.TB, cfg spec.Config, start time.Time) conformance.Target {
		q, clk, err := newQueue(cfg, start)
		if err != nil {
			t.Fatal(err)
		}
		logger := klog.Background()
		tg := &Target{hints: cfg.Profile == spec.ProfileHints, q: q, clock: clk, logger: logger, ctx: klog.NewContext(context.Background(), logger),
			inFlight: make(map[spec.PodKey]*framework.QueuedPodInfo), base: gatherMetrics()}
		t.Cleanup(func() {
			if !tg.closed {
				q.Close()
			}
		})
		return tg
	}
}

// less is the default PrioritySort order: priority, then Timestamp.
func less(a, b fwk.QueuedEntityInfo) bool {
	pa, pb := a.GetPriority(), b.GetPriority()
	return pa > pb || pa == pb && a.GetTimestamp().Before(b.GetTimestamp())
}

func priority(p *v1.Pod) int32 {
	if p.Spec.Priority != nil {
		return *p.Spec.Priority
	}
	return 0
}

// queueHint is the hint every registered event gets: the event may help
// (kube-scheduler's defaultQueueingHintFn for plugins without a hint).
func queueHint(klog.Logger, *v1.Pod, interface{}, interface{}) (fwk.QueueingHint, error) {
	return fwk.Queue, nil
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

// actions maps each spec action bit to v1.37's, which has more bits and in
// a different order.
var actions = []struct {
	s spec.ActionType
	u fwk.ActionType
}{
	{spec.Add, fwk.Add}, {spec.Delete, fwk.Delete},
	{spec.UpdateNodeAllocatable, fwk.UpdateNodeAllocatable}, {spec.UpdateNodeLabel, fwk.UpdateNodeLabel},
	{spec.UpdateNodeTaint, fwk.UpdateNodeTaint}, {spec.UpdateNodeCondition, fwk.UpdateNodeCondition},
	{spec.UpdateNodeAnnotation, fwk.UpdateNodeAnnotation}, {spec.UpdatePodLabel, fwk.UpdatePodLabel},
	{spec.UpdatePodScaleDown, fwk.UpdatePodScaleDown}, {spec.UpdatePodToleration, fwk.UpdatePodToleration},
	{spec.UpdatePodSchedulingGatesEliminated, fwk.UpdatePodSchedulingGatesEliminated},
	{spec.UpdatePodGeneratedResourceClaim, fwk.UpdatePodGeneratedResourceClaim},
}

func toAction(a spec.ActionType) fwk.ActionType {
	switch a {
	case spec.All:
		return fwk.All
	case spec.Update:
		return fwk.Update
	}
	var out fwk.ActionType
	for _, m := range actions {
		if a&m.s != 0 {
			out |= m.u
			a &^= m.s
		}
	}
	if a != 0 { // spec's "other pod update" bit: upstream's general Update
		out |= fwk.Update
	}
	return out
}

func toResource(r spec.EventResource) fwk.EventResource {
	if r == spec.ResourceUnschedulablePod {
		return fwk.UnscheduledPod
	}
	return fwk.EventResource(r) // the other names are upstream's
}

// toEvent maps a spec event to upstream's. Wildcards keep their label
// (upstream's EventUnschedulableTimeout and EventForceActivate are such
// wildcards with a CustomLabel).
func toEvent(e spec.ClusterEvent) fwk.ClusterEvent {
	if e.IsWildCard() {
		return fwk.ClusterEvent{Resource: fwk.WildCard, ActionType: fwk.All, CustomLabel: e.EventLabel()}
	}
	return fwk.ClusterEvent{Resource: toResource(e.Resource), ActionType: toAction(e.ActionType)}
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
func (t *Target) Info() conformance.TargetInfo {
	if t.hints {
		return HintsProfile()
	}
	return Profile()
}

// Advance implements conformance.Target.
func (t *Target) Advance(d time.Duration) { t.clock.Step(d) }

// Add is R1.
func (t *Target) Add(p *spec.Pod) error {
	if err := p.Validate(); err != nil {
		return err
	}
	t.q.Add(t.ctx, toV1(p))
	return nil
}

// Pop is R2. Upstream returns (nil, nil) once closed.
func (t *Target) Pop() (*spec.QueuedPodInfo, int64, error) {
	e, err := t.q.Pop(t.logger)
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
	t.inFlight[spec.PodKey(pi.Pod.Namespace+"/"+pi.Pod.Name)] = pi
	out := t.info(pi)
	return &out, t.q.SchedulingCycle(), nil
}

// AddUnschedulableIfNotPresent is R3. The scheduler hands back the
// QueuedPodInfo Pop returned, with its rejecting plugins replaced
// (handleSchedulingFailure: ClearRejectorPlugins, then the fit error's);
// the adapter does the same when it has it. A pod never popped gets a fresh
// QueuedPodInfo with no failure history (UnschedulableCount 0), which
// upstream then counts as one failure.
func (t *Target) AddUnschedulableIfNotPresent(info *spec.QueuedPodInfo, cycle int64) error {
	if err := info.Validate(); err != nil {
		return err
	}
	key := info.Key()
	pi, ok := t.inFlight[key]
	if !ok {
		podInfo, _ := framework.NewPodInfo(toV1(info.Pod))
		pi = &framework.QueuedPodInfo{PodInfo: podInfo, QueueingParams: framework.QueueingParams{Timestamp: info.Timestamp}}
		if !info.InitialAttemptTimestamp.IsZero() {
			ts := info.InitialAttemptTimestamp
			pi.InitialAttemptTimestamp = &ts
		}
	} else if spec.IsPodUpdated(toSpec(pi.Pod), info.Pod) {
		_, _ = pi.Update(toV1(info.Pod))
	}
	pi.Attempts = info.Attempts
	pi.ClearRejectorPlugins()
	pi.UnschedulablePlugins = sets.New[string](info.UnschedulablePlugins...)
	pi.PendingPlugins = sets.New[string](info.PendingPlugins...)
	err := t.q.AddUnschedulablePodIfNotPresent(t.logger, pi, cycle)
	// Upstream calls Done on every path, the error ones too
	// (scheduling_queue.go:1079), so the pod is no longer in flight.
	delete(t.inFlight, key)
	if err != nil {
		return fmt.Errorf("%w: %v", spec.ErrAlreadyQueued, err)
	}
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
	t.q.MoveAllToActiveOrBackoffQueue(t.logger, toEvent(e), nil, nil, t.preCheck(pre))
}

// FlushBackoffQCompleted is R5, upstream's own flush.
func (t *Target) FlushBackoffQCompleted() { flushBackoffQCompleted(t.q, t.logger) }

// FlushUnschedulablePodsLeftover is R6, upstream's own flush
// (flushUnschedulableEntitiesLeftover in v1.37).
func (t *Target) FlushUnschedulablePodsLeftover() { flushUnschedulableEntitiesLeftover(t.q, t.logger) }

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
	t.q.Update(t.ctx, toV1(oldPod), toV1(newPod))
	t.updateInFlight(newPod)
	return nil
}

// Delete is R10. A deleted pod in flight is forgotten by the adapter and
// ended with Done upstream: the scheduler does not requeue a pod that no
// longer exists, and calls Done for it (schedule_one.go:1160).
func (t *Target) Delete(p *spec.Pod) error {
	if err := p.Validate(); err != nil {
		return err
	}
	t.q.Delete(t.logger, toV1(p))
	if pi, ok := t.inFlight[p.Key()]; ok {
		delete(t.inFlight, p.Key())
		t.q.Done(pi.Pod.UID)
	}
	return nil
}

// AssignedPodAdded is R11, as v1.37.2's addAssignedPodToCache raises it
// (eventhandlers.go:411).
func (t *Target) AssignedPodAdded(p *spec.Pod) error {
	if err := p.Validate(); err != nil {
		return err
	}
	t.q.MoveAllToActiveOrBackoffQueue(t.logger, framework.EventAssignedPodAdd, nil, toV1(p), nil)
	return nil
}

// AssignedPodUpdated is R11 for an update, as v1.37.2's
// updateAssignedPodInCache raises it (eventhandlers.go:439), with the
// suite's event.
func (t *Target) AssignedPodUpdated(oldPod, newPod *spec.Pod, e spec.ClusterEvent) error {
	if err := newPod.Validate(); err != nil {
		return err
	}
	var old *v1.Pod
	if oldPod != nil {
		old = toV1(oldPod)
	}
	t.q.MoveAllToActiveOrBackoffQueue(t.logger, toEvent(e), old, toV1(newPod), nil)
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
	m := fwk.ModeNoop
	if mode == spec.NominateOverride {
		m = fwk.ModeOverride
	}
	t.q.AddNominatedPod(t.logger, pi, &fwk.NominatingInfo{NominatingMode: m, NominatedNodeName: nodeName})
	return nil
}

// NominatedPodsForNode is R18.
func (t *Target) NominatedPodsForNode(nodeName string) []*spec.Pod {
	var out []*spec.Pod
	for _, pi := range t.q.NominatedPodsForNode(nodeName) {
		out = append(out, toSpec(pi.GetPod()))
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

// Snapshot reads each queue through the exported accessors and GetPod, and
// the in-flight pods from the adapter. MoveRequestCycle stays 0: v1.37 has
// none.
func (t *Target) Snapshot() spec.Snapshot {
	s := spec.Snapshot{Now: t.clock.Now(), SchedulingCycle: t.q.SchedulingCycle()}
	infos := func(pods []*v1.Pod) []spec.QueuedPodInfo {
		var out []spec.QueuedPodInfo
		for _, p := range pods {
			if pi, ok := t.q.GetPod(p.Name, p.Namespace, nil); ok {
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
	if t.hints {
		s.MoveRequestCycle, s.Closed = -1, t.closed
		if l, ok := t.inFlightEvents(); ok {
			s.InFlightEvents = l
		} else {
			panic("v137 adapter: cannot read the in-flight list (activeQueue.inFlightEvents): upstream's layout changed")
		}
	}
	return s
}
