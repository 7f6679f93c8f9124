package upstream

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/component-base/featuregate"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/schedq/schedq/conformance"
	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// SchedulerName is the profile every pod and hint map uses.
const SchedulerName = "default-scheduler"

// Target is the upstream queue behind the conformance.Target interface.
type Target struct {
	q       *queue.PriorityQueue
	clock   *testingclock.FakeClock
	logger  klog.Logger
	ctx     context.Context // carries logger
	profile conformance.TargetInfo
	cfg     spec.Config
	// classic: the queue runs with queueing hints off (v1.33 only).
	classic  bool
	inFlight map[spec.PodKey]*framework.QueuedPodInfo
	// flightMu guards inFlight and popped: a Pop the runner left blocked
	// records what it popped from its own goroutine, woken by an
	// operation that may still be returning (a failure, an update, a move
	// request, a group's attempt handed back).
	flightMu sync.Mutex
	// popped: the podgroups profile's popped groups, until the end of
	// their cycle (podgroups_v137.go).
	popped map[spec.PodGroupKey]poppedGroup
	pods   *podLister
	closed bool // so that cleanup does not close twice: upstream Close panics then
	// stopRecorder ends the metrics recorder's goroutine (newQueue).
	stopRecorder func()
	// base is the registry's metrics when the target was made; relabel
	// corrects the series of wildcard moves (metrics.go).
	base    conformance.Metrics
	relabel map[conformance.IncomingSeries]int64
	// nodes: the caller's node behind each node the adapter converted for
	// a move (objectTarget), so the in-flight list shows the caller's own.
	nodes map[*v1.Node]*schedqtest.Node
}

var (
	_ conformance.Target = (*Target)(nil)
	_ spec.Nominator     = (*Target)(nil)
)

// Classic returns a NewTarget for the release with queueing hints and
// pop-from-backoffQ off: the classic profile. Only v1.33 can switch them
// off (from v1.34 the SchedulerQueueingHints gate is locked on, and v1.37
// removed it); on a later release every config is refused, so the runner
// reports every scenario n/a with the reason.
func Classic() conformance.NewTarget {
	r := Release()
	return newTarget(true, conformance.TargetInfo{
		Name:        r.ClassicName(),
		Description: fmt.Sprintf("kube-scheduler %s, SchedulerQueueingHints=false, SchedulerPopFromBackoffQ=false%s", r.Version, r.Note()),
	})
}

// QueueingHints returns a NewTarget for the release with its default
// gates: queueing hints and pop-from-backoffQ on, pod groups off. It runs
// the scenarios of both profiles; with a config of the hints profile it
// plugs in the config's hints and PreEnqueue plugins (hints.go).
func QueueingHints() conformance.NewTarget {
	r := Release()
	gates := "queueing hints, SchedulerPopFromBackoffQ on"
	if r.PreQueueingHints {
		gates += ", SchedulerPreQueueingHints on: the config's pre-queueing hints with prequeue=on; without it no plugin registers one, so a move request evaluates every parked pod"
	}
	return newTarget(false, conformance.TargetInfo{
		Name:        r.HintsName(),
		Description: fmt.Sprintf("kube-scheduler %s, default gates (%s)%s", r.Version, gates, r.Note()),
	})
}

func newTarget(classic bool, prof conformance.TargetInfo) conformance.NewTarget {
	prof.Blocking = true
	prof.SilentNoOps = true
	return func(t testing.TB, cfg spec.Config, start time.Time) conformance.Target {
		if classic {
			if err := refuseClassic(cfg); err != nil {
				t.Fatal(err)
				return nil
			}
		}
		if err := refusePodGroups(cfg); err != nil {
			t.Fatal(err)
			return nil
		}
		if err := refusePreQueueing(cfg); err != nil {
			t.Fatal(err)
			return nil
		}
		q, clk, pods, stop, err := newQueue(cfg, start, classic)
		if err != nil {
			t.Fatal(err)
		}
		logger := klog.Background()
		tg := &Target{q: q, clock: clk, logger: logger, ctx: klog.NewContext(context.Background(), logger), profile: observes(prof, cfg, classic), cfg: cfg, classic: classic,
			inFlight: make(map[spec.PodKey]*framework.QueuedPodInfo), popped: make(map[spec.PodGroupKey]poppedGroup), pods: pods, stopRecorder: stop,
			base: gatherMetrics(), relabel: make(map[conformance.IncomingSeries]int64), nodes: make(map[*v1.Node]*schedqtest.Node)}
		t.Cleanup(func() {
			if !tg.closed {
				q.Close()
			}
			stop()
		})
		return wrapProfile(tg)
	}
}

// refuseClassic is the classic target's answer to a config it cannot run:
// a config of the hints profile (classic mode has no queueing hints,
// in-flight events or PreEnqueue-gated backoffQ), or any config on a
// release where queueing hints cannot be switched off.
func refuseClassic(cfg spec.Config) error {
	if !Release().CanSwitchHintsOff {
		return fmt.Errorf("%w: %s cannot switch queueing hints off (the SchedulerQueueingHints gate is locked on or gone): no classic mode",
			spec.ErrInvalidConfig, Release().Version)
	}
	if cfg.Profile != spec.ProfileClassic {
		return fmt.Errorf("%w: %s with SchedulerQueueingHints=false implements the classic profile only, not %v",
			spec.ErrInvalidConfig, Release().Version, cfg.Profile)
	}
	return nil
}

// observes is what a target claims for cfg.
//   - Classic mode observes moveRequestCycle and counts metrics as R14
//     says.
//   - With the default gates and a classic config, the queue follows its
//     own rules for both (not compared), except that v1.33 still keeps
//     moveRequestCycle as the classic queue does.
//   - With a hints config, the target reports what the profile's
//     invariants are stated over, as far as the release has it: the
//     in-flight list, the hint counts (from v1.34), moveRequestCycle as the
//     profile has it (none: -1), Closed, and the metrics (R14h, from v1.37:
//     see ReleaseInfo.LabelsAsTheProfile).
func observes(p conformance.TargetInfo, cfg spec.Config, classic bool) conformance.TargetInfo {
	r := Release()
	p.Observes = conformance.Observes{PodInfo: true, MoveRequestCycle: r.HasMoveRequestCycle, Metrics: classic}
	// Declared differences: pop/after-close-returns-ErrClosed,
	// hints/close/* (F05).
	p.CloseDiffers = "upstream's Close empties the in-flight list, its Pop keeps handing out queued pods after Close, and a second Close panics (F05)"
	if cfg.Profile.HasHints() && !classic {
		p.Observes.InFlightEvents = true
		p.Observes.HintCounts = r.HasHintCounts
		p.Observes.MoveRequestCycle = r.HasHintCounts
		p.Observes.Closed = r.HasHintCounts
		p.Observes.Metrics = r.HasHintCounts && r.LabelsAsTheProfile
		if r.HasHintCounts && !r.LabelsAsTheProfile {
			p.Description += "; hints-profile metrics not compared (this release labels unscheduled-pod events UnschedulablePod, renamed UnscheduledPod in v1.37)"
		}
	}
	if cfg.Profile == spec.ProfilePodGroups {
		// The podgroups contract leaves the metrics of groups out; upstream
		// has gauges of its own for pending and incomplete members.
		p.Observes.Metrics = false
		p.Description += "; podgroups-profile metrics not compared (the contract leaves them out)"
	}
	return p
}

// newQueue builds the upstream PriorityQueue with cfg, a fake clock reading
// start, the classic gates or the release's defaults, and a pod lister the
// caller fills (lister.go). The conformance target and the comparison
// benchmarks build their queues here, so both measure the same queue.
//
// stop ends the queue's metrics recorder, whose goroutine upstream's
// Close leaves running: a check that makes thousands of queues (the
// requeue race's reproduction) otherwise keeps thousands of goroutines
// waking every second, and a goroutine scan per trial (internal/parked)
// grows with them. stop may be called more than once.
func newQueue(cfg spec.Config, start time.Time, classic bool, opts ...queue.Option) (q *queue.PriorityQueue, clk *testingclock.FakeClock, pods *podLister, stop func(), err error) {
	return newQueueGated(cfg, start, classic, podGroupsOn(cfg), opts...)
}

// newQueueGated is newQueue with the GenericWorkload gate given: on, the
// queue holds pod groups as entities (podgroups.go).
func newQueueGated(cfg spec.Config, start time.Time, classic, podGroups bool, opts ...queue.Option) (q *queue.PriorityQueue, clk *testingclock.FakeClock, pods *podLister, stop func(), err error) {
	if err := pinGates(classic, podGroups); err != nil {
		return nil, nil, nil, nil, err
	}
	done := make(chan struct{})
	var once sync.Once
	stop = func() { once.Do(func() { close(done) }) }
	metrics.Register() // NewPriorityQueue needs the metric vectors
	clk = testingclock.NewFakeClock(start)
	pods = newPodLister()
	q = queue.NewPriorityQueue(less, informers.NewSharedInformerFactory(fake.NewSimpleClientset(), 0), append([]queue.Option{
		queue.WithClock(clk),
		withMetricsRecorder(metrics.NewMetricsAsyncRecorder(1000, time.Second, done)),
		queue.WithPodLister(pods.lister),
		queue.WithPodInitialBackoffDuration(cfg.PodInitialBackoffDuration),
		queue.WithPodMaxBackoffDuration(cfg.PodMaxBackoffDuration),
		queue.WithPodMaxInUnschedulablePodsDuration(cfg.PodMaxInUnschedulablePodsDuration),
		queue.WithQueueingHintMapPerProfile(queue.QueueingHintMapPerProfile{SchedulerName: hintMapFor(cfg, classic)}),
		withPreEnqueuePlugins(preEnqueuePlugins(cfg)...),
	}, opts...)...)
	return q, clk, pods, stop, nil
}

// pinGates sets the gates the queue reads once, in NewPriorityQueue, so
// that each queue gets its profile's gates whatever the previous one had:
// queueing hints and pop-from-backoffQ both off for classic mode, both on
// otherwise; pod groups as asked (GenericWorkload, off by default);
// pre-queueing hints and asynchronous API calls at the release's own
// default (pre-queueing hints: off up to v1.37, on from v1.38; no plugin
// of the adapter registers a pre-queueing hint, so a move request then
// evaluates every parked pod, as without the gate). A gate the release
// does not know is left out, and a gate locked to its default is not set.
func pinGates(classic, podGroups bool) error {
	want := map[featuregate.Feature]bool{
		"SchedulerQueueingHints":   !classic,
		"SchedulerPopFromBackoffQ": !classic,
		"GenericWorkload":          podGroups,
	}
	known := utilfeature.DefaultMutableFeatureGate.GetAll()
	for _, f := range []featuregate.Feature{"SchedulerPreQueueingHints", "SchedulerAsyncAPICalls"} {
		if s, ok := known[f]; ok {
			want[f] = s.Default
		}
	}
	set := map[string]bool{}
	for f, v := range want {
		if s, ok := known[f]; ok && !s.LockToDefault {
			set[string(f)] = v
		}
	}
	if err := utilfeature.DefaultMutableFeatureGate.SetFromMap(set); err != nil {
		return fmt.Errorf("setting feature gates: %w", err)
	}
	return nil
}

func priority(p *v1.Pod) int32 {
	if p.Spec.Priority != nil {
		return *p.Spec.Priority
	}
	return 0
}

func toV1(p *spec.Pod) *v1.Pod {
	prio := p.Priority
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: p.Namespace, Name: p.Name, UID: types.UID(p.UID),
			Labels: p.Labels, ResourceVersion: p.ResourceVersion},
		Spec:   v1.PodSpec{SchedulerName: SchedulerName, Priority: &prio},
		Status: v1.PodStatus{Message: p.Status, NominatedNodeName: p.NominatedNodeName},
	}
	setGroup(pod, p.Group)
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
		NominatedNodeName: p.Status.NominatedNodeName, Group: groupOf(p)}
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

// info is the queued-pod info as the target reports it: in the hints
// profile the rejectors apart and the hint fields the release has; in the
// classic one the pending plugins folded into the rejectors.
func (t *Target) info(pi *framework.QueuedPodInfo) spec.QueuedPodInfo {
	out := toInfo(pi)
	out.GatingPlugin = gatingPlugin(t.cfg, pi, out.Pod)
	if !t.cfg.Profile.HasHints() {
		return out
	}
	out.UnschedulablePlugins = spec.NewPluginSet(sets.List(pi.UnschedulablePlugins)...)
	out.PendingPlugins = spec.NewPluginSet(sets.List(pi.PendingPlugins)...)
	if len(out.PendingPlugins) == 0 {
		out.PendingPlugins = nil
	}
	hintFields(pi, &out)
	return out
}

// Profile implements conformance.Target.
func (t *Target) Info() conformance.TargetInfo { return t.profile }

// Advance implements conformance.Target.
func (t *Target) Advance(d time.Duration) { t.clock.Step(d) }

// Add is R1.
func (t *Target) Add(p *spec.Pod) error {
	if err := p.Validate(); err != nil {
		return err
	}
	pod := toV1(p)
	t.pods.set(pod)
	addPod(t.q, t.ctx, pod)
	return nil
}

// Pop is R2. Upstream returns (nil, nil) once closed.
func (t *Target) Pop() (*spec.QueuedPodInfo, int64, error) {
	if err := t.popGuard(); err != nil {
		return nil, 0, err
	}
	pi, err := pop(t.q, t.logger)
	if err != nil {
		return nil, 0, err
	}
	if pi == nil {
		return nil, 0, spec.ErrClosed
	}
	t.flightMu.Lock()
	t.inFlight[spec.PodKey(pi.Pod.Namespace+"/"+pi.Pod.Name)] = pi
	t.flightMu.Unlock()
	out := t.info(pi)
	return &out, t.q.SchedulingCycle(), nil
}

// AddUnschedulableIfNotPresent is R3. The scheduler hands back the
// QueuedPodInfo Pop returned, with its rejecting plugins replaced
// (handleSchedulingFailure); the adapter does the same when it has it. A
// pod never popped gets a fresh QueuedPodInfo with no failure history.
func (t *Target) AddUnschedulableIfNotPresent(info *spec.QueuedPodInfo, cycle int64) error {
	if err := info.Validate(); err != nil {
		return err
	}
	key := info.Key()
	// The pod leaves the adapter's records before upstream requeues it:
	// upstream ends its flight on every path of the call (Done, the error
	// ones too), and from v1.38 before the pod is queued, so a blocked Pop
	// may take it again, and record it, before the call returns.
	t.flightMu.Lock()
	pi, ok := t.inFlight[key]
	delete(t.inFlight, key)
	t.flightMu.Unlock()
	if !ok {
		pi = newQueuedPodInfo(toV1(info.Pod), info.Timestamp)
		if !info.InitialAttemptTimestamp.IsZero() {
			ts := info.InitialAttemptTimestamp
			pi.InitialAttemptTimestamp = &ts
		}
	} else if spec.IsPodUpdated(toSpec(pi.Pod), info.Pod) {
		_ = pi.PodInfo.Update(toV1(info.Pod))
	}
	t.pods.set(pi.Pod)
	pi.Attempts = info.Attempts
	clearRejectors(pi)
	pi.UnschedulablePlugins = sets.New[string](info.UnschedulablePlugins...)
	pi.PendingPlugins = sets.New[string](info.PendingPlugins...)
	if err := addUnschedulable(t.q, t.logger, pi, cycle); err != nil {
		return fmt.Errorf("%w: %v", spec.ErrAlreadyQueued, err)
	}
	return nil
}

func (t *Target) preCheck(pre spec.PreEnqueueCheck) queue.PreEnqueueCheck {
	if pre == nil {
		return nil
	}
	return preEnqueueCheck(func(p *v1.Pod) bool { return pre(toSpec(p)) })
}

// MoveAllToActiveOrBackoffQueue is R4.
func (t *Target) MoveAllToActiveOrBackoffQueue(e spec.ClusterEvent, pre spec.PreEnqueueCheck) {
	t.countedMove(e, func() { t.q.MoveAllToActiveOrBackoffQueue(t.logger, toEvent(e), nil, nil, t.preCheck(pre)) })
}

// FlushBackoffQCompleted is R5, upstream's own flush.
func (t *Target) FlushBackoffQCompleted() { flushBackoffQCompleted(t.q, t.logger) }

// FlushUnschedulablePodsLeftover is R6, upstream's own flush.
func (t *Target) FlushUnschedulablePodsLeftover() { flushLeftover(t.q, t.logger) }

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
	pod := toV1(newPod)
	t.pods.set(pod)
	updatePod(t.q, t.ctx, toV1(oldPod), pod)
	t.updateInFlight(newPod)
	return nil
}

// updateInFlight: in the hints profile, the adapter's record of an
// in-flight pod takes the new version (R9h), as the model's does; upstream
// keeps no copy of it.
func (t *Target) updateInFlight(newPod *spec.Pod) {
	t.flightMu.Lock()
	defer t.flightMu.Unlock()
	pi, ok := t.inFlight[newPod.Key()]
	if !t.cfg.Profile.HasHints() || !ok || spec.UID(pi.Pod.UID) != newPod.UID {
		return
	}
	cp := *pi
	podInfo, _ := framework.NewPodInfo(toV1(newPod))
	cp.PodInfo = podInfo
	t.inFlight[newPod.Key()] = &cp
}

// Delete is R10. A deleted pod in flight is forgotten by the adapter and
// ended with Done upstream: the scheduler does not requeue a pod that no
// longer exists, and calls Done for it.
func (t *Target) Delete(p *spec.Pod) error {
	if err := p.Validate(); err != nil {
		return err
	}
	pod := toV1(p)
	t.pods.remove(pod)
	deletePod(t.q, t.logger, pod)
	t.flightMu.Lock()
	pi, ok := t.inFlight[p.Key()]
	delete(t.inFlight, p.Key())
	t.flightMu.Unlock()
	if ok {
		t.q.Done(pi.Pod.UID)
	}
	return nil
}

// AssignedPodAdded is R11.
func (t *Target) AssignedPodAdded(p *spec.Pod) error {
	if err := p.Validate(); err != nil {
		return err
	}
	assignedPodAdded(t.q, t.logger, toV1(p))
	return nil
}

// AssignedPodUpdated is R11 for an update, with the suite's event.
func (t *Target) AssignedPodUpdated(oldPod, newPod *spec.Pod, e spec.ClusterEvent) error {
	if err := newPod.Validate(); err != nil {
		return err
	}
	var old *v1.Pod
	if oldPod != nil {
		old = toV1(oldPod)
	}
	assignedPodUpdated(t.q, t.logger, old, toV1(newPod), toEvent(e))
	return nil
}

// Done is R12.
func (t *Target) Done(uid spec.UID) error {
	t.flightMu.Lock()
	for k, pi := range t.inFlight {
		if spec.UID(pi.Pod.UID) == uid {
			delete(t.inFlight, k)
		}
	}
	t.flightMu.Unlock()
	t.q.Done(types.UID(uid))
	return nil
}

// AddNominatedPod is R18, through upstream's own nominator. Upstream
// nominates only a pod its lister lists and that is not bound: a pod the
// adapter never saw is listed from here on (the suite's call says it
// exists, as the scheduler's does), a deleted one is not (lister.go).
func (t *Target) AddNominatedPod(p *spec.Pod, mode spec.NominatingMode, nodeName string) error {
	if err := p.Validate(); err != nil {
		return err
	}
	pod := toV1(p)
	t.pods.setIfNew(pod)
	pi, err := framework.NewPodInfo(pod)
	if err != nil {
		return err
	}
	t.q.AddNominatedPod(t.logger, pi, nominatingInfo(mode == spec.NominateOverride, nodeName))
	return nil
}

// NominatedPodsForNode is R18.
func (t *Target) NominatedPodsForNode(nodeName string) []*spec.Pod {
	var out []*spec.Pod
	for _, p := range nominatedPods(t.q, t.logger, nodeName) {
		out = append(out, toSpec(p))
	}
	return out
}

// Close is R13. It passes every call through: a second Close panics
// upstream (close of a closed channel), which the suite reports.
func (t *Target) Close() {
	t.closed = true
	t.q.Close()
	if t.stopRecorder != nil {
		t.stopRecorder()
	}
}

// SchedulingCycle implements spec.Queue.
func (t *Target) SchedulingCycle() int64 { return t.q.SchedulingCycle() }

// Snapshot reads each queue through the exported accessors and GetPod, the
// in-flight pods from the adapter, and moveRequestCycle by reflection
// where the release has it.
func (t *Target) Snapshot() spec.Snapshot {
	s := spec.Snapshot{Now: t.clock.Now(), SchedulingCycle: t.q.SchedulingCycle()}
	if f := reflect.ValueOf(t.q).Elem().FieldByName("moveRequestCycle"); f.IsValid() {
		s.MoveRequestCycle = f.Int()
	}
	infos := func(pods []*v1.Pod) []spec.QueuedPodInfo {
		var out []spec.QueuedPodInfo
		for _, p := range pods {
			if pi, ok := lookupPod(t.q, p); ok {
				out = append(out, t.info(pi))
			}
		}
		spec.SortPods(out)
		return out
	}
	s.ActiveQ = infos(t.q.PodsInActiveQ())
	s.BackoffQ = infos(t.q.PodsInBackoffQ())
	s.UnschedulablePods = infos(t.q.UnschedulablePods())
	t.flightMu.Lock()
	for _, pi := range t.inFlight {
		s.InFlight = append(s.InFlight, t.info(pi))
	}
	t.flightMu.Unlock()
	sort.Slice(s.InFlight, func(i, j int) bool { return s.InFlight[i].Key() < s.InFlight[j].Key() })
	if t.profile.Observes.InFlightEvents {
		l, ok := t.inFlightEvents()
		if !ok {
			panic("upstream adapter: cannot read the in-flight list (activeQueue.inFlightEvents): upstream's layout changed")
		}
		s.InFlightEvents = l
	}
	if t.profile.Observes.Closed {
		s.MoveRequestCycle, s.Closed = -1, t.closed
	}
	if t.cfg.Profile == spec.ProfilePodGroups {
		s.PodGroups = t.podGroupsState(&s)
	}
	return s
}
