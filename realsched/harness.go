package realsched

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"runtime/pprof"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	pprofile "github.com/google/pprof/profile"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/scheduler"
	"k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/utils/clock"
	testingclock "k8s.io/utils/clock/testing"
)

// QueueKind selects the queue the scheduler runs on.
type QueueKind string

const (
	// Upstream is the queue scheduler.New builds (v1.33.13 with queueing
	// hints off; v1.37.2 with its default gates).
	Upstream QueueKind = "upstream"
	// Schedq is schedq's impl through Adapter (classic profile on v1.33,
	// hints on v1.37).
	Schedq QueueKind = "schedq"
)

// Options is one run.
type Options struct {
	Queue    QueueKind
	Workload Workload
	// Breakage makes the schedq adapter wrong on purpose.
	Breakage Breakage
	// Trace records every queue call and checks it against the model.
	Trace bool
	// Profile measures the queue's share of CPU with pprof.
	Profile bool
	// Timeout bounds the run (default 2 minutes).
	Timeout time.Duration
	// StopOnViolation ends the run at the trace check's first violation
	// (the broken-adapter test needs nothing more).
	StopOnViolation bool
	// NoBackoff switches backoff off on either queue (a max backoff of 0:
	// R7h; the hints profile only, the classic contract has no such
	// setting).
	NoBackoff bool
	// Porcupine records the queue calls without serialising them (with
	// Trace) and checks the history with porcupine after the run
	// (Result.Conc), bounded by PorcupineTimeout (default 1 minute).
	Porcupine        bool
	PorcupineTimeout time.Duration
	// LiveVerdicts: the model asks the PreEnqueue plugins itself at its
	// step instead of taking the queue's verdicts of the call (Verdicts);
	// the flips are still counted. For the experiment only.
	LiveVerdicts bool
	// Settle bounds the wait for the bindable pods (default: until the
	// timeout): a run that may lose pods ends sooner.
	Settle time.Duration
	// SchedulerOptions are added to scheduler.New's (a profile with a
	// plugin of the run's own, say).
	SchedulerOptions []scheduler.Option
}

// Result is what one run proved and measured.
type Result struct {
	Workload string
	Queue    QueueKind
	Nodes    int
	Pods     int // pods that must be bound
	Bound    int // of those, bound
	// DoubleBinds counts binds of a pod already bound (must be 0).
	DoubleBinds int
	// Lost are the pods unbound at quiescence and absent from the queue.
	Lost []string
	// Waiting are unbound pods the queue still holds (the unbindable
	// ones of the workload).
	Waiting int
	// Stranded are the waiting pods that must be bound (the run ended
	// before they were); Describe says where each waits and why.
	Stranded []string
	rec      *Recorder
	// GatedBound counts pods with scheduling gates that were bound (must
	// be 0: the SchedulingWhileGated-style check).
	GatedBound, Gated int
	// InjectedBindFailures is how many binds the API refused on purpose.
	InjectedBindFailures int
	Attempts             int
	Duration             time.Duration
	Throughput           float64 // scheduler_perf's SchedulingThroughput average, pods/s
	CPUSeconds           float64 // process CPU (user+system) over the measured phase
	QueueShare           float64 // share of CPU samples under the queue's packages; -1 if not measured
	P50, P99             time.Duration
	AdapterErrors        int64
	// ModelBadInput counts the model's PreEnqueue calls on a pod without
	// its *v1.Pod (must be 0: the recorder always passes it).
	ModelBadInput int64
	// Trace results.
	TraceOps, TraceEmptyReads int
	// Verdicts are the PreEnqueue verdicts the model took from the queue
	// (under Trace), with the flips that made it necessary.
	Verdicts *Verdicts
	// Conc is porcupine's verdict on the unserialised history (Porcupine).
	Conc      *ConcResult
	Violation *Violation
	History   []TraceOp // the calls recorded, under Trace
	Err       error
}

// Describe is the recorder's account of pod key (Recorder.Describe), or
// nothing without the trace.
func (r *Result) Describe(key string, last int) string {
	if r.rec == nil {
		return key + " (no trace)"
	}
	return r.rec.Describe(key, last)
}

// OK reports whether every check held.
func (r *Result) OK() bool {
	return len(r.Problems()) == 0
}

// Problems lists the checks that failed.
func (r *Result) Problems() []string {
	var p []string
	if r.Err != nil {
		p = append(p, r.Err.Error())
	}
	if r.Bound != r.Pods {
		p = append(p, fmt.Sprintf("%d of %d bindable pods bound", r.Bound, r.Pods))
	}
	if r.DoubleBinds > 0 {
		p = append(p, fmt.Sprintf("%d double binds", r.DoubleBinds))
	}
	if len(r.Lost) > 0 {
		p = append(p, fmt.Sprintf("%d pods lost (unbound, not in the queue): %v", len(r.Lost), head(r.Lost, 10)))
	}
	if r.GatedBound > 0 {
		p = append(p, fmt.Sprintf("SchedulingWhileGated: %d of %d gated pods bound", r.GatedBound, r.Gated))
	}
	if r.ModelBadInput > 0 {
		p = append(p, fmt.Sprintf("the model's PreEnqueue plugins were asked about %d pods without their *v1.Pod", r.ModelBadInput))
	}
	if r.Violation != nil {
		p = append(p, "trace: "+r.Violation.Reason)
	}
	return p
}

func head(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// BenchLine is the run in Go benchmark format (benchstat reads it).
func (r *Result) BenchLine() string {
	return fmt.Sprintf("BenchmarkRealsched/%s/queue=%s \t%8d\t%12.0f ns/op\t%10.1f pods/s\t%10.4f cpu-ms/pod\t%8.2f queue-cpu-%%\t%10.3f p50-attempt-ms\t%10.3f p99-attempt-ms",
		r.Workload, r.Queue, 1, float64(r.Duration.Nanoseconds()), r.Throughput, 1000*r.CPUSeconds/float64(max(r.Pods, 1)),
		100*r.QueueShare, ms(r.P50), ms(r.P99))
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// Namespace is where workload pods live: the scenario language's default,
// so that a violation's scenario names them as the run did.
const Namespace = "ns"

// cluster is the fake API server: the fake clientset with resource
// versions on every write, binding that writes spec.nodeName, a count of
// the watch events written and seen (the fake watch panics past 100
// unread events, so writers wait for the informers), and bind faults.
type cluster struct {
	cs      *fake.Clientset
	tracker clienttesting.ObjectTracker
	rv      atomic.Int64
	updates sync.Mutex // one Update's check and write at a time
	written atomic.Int64
	seen    atomic.Int64

	mu       sync.Mutex
	binds    map[types.UID]int
	bound    map[types.UID]string
	double   int
	failBind func(pod *v1.Pod, attempt int) bool
	attempts map[types.UID]int
	injected int
	onBind   func()
	done     <-chan struct{}
}

// rvTracker sets a fresh resource version on every write: the scheduler
// ignores a pod update whose resource version did not change.
type rvTracker struct {
	clienttesting.ObjectTracker
	c *cluster
}

func (t rvTracker) stamp(obj runtime.Object) {
	t.c.room(80)
	if m, err := meta.Accessor(obj); err == nil {
		m.SetResourceVersion(fmt.Sprint(t.c.rv.Add(1)))
	}
}

func (t rvTracker) Create(gvr schema.GroupVersionResource, obj runtime.Object, ns string, opts ...metav1.CreateOptions) error {
	t.stamp(obj)
	return t.ObjectTracker.Create(gvr, obj, ns, opts...)
}

// Update refuses a write whose resource version is not the stored one,
// as the API server does (a Conflict): the workload and the bind reactor
// both read a pod and write it back, and without the check the later
// write silently undid the earlier (a relabel written over a bind took
// the pod off its node, and the scheduler's cache, which cannot see a
// pod change nodes, exits the process).
func (t rvTracker) Update(gvr schema.GroupVersionResource, obj runtime.Object, ns string, opts ...metav1.UpdateOptions) error {
	t.c.updates.Lock()
	defer t.c.updates.Unlock()
	if m, err := meta.Accessor(obj); err == nil && m.GetResourceVersion() != "" {
		if cur, err := t.ObjectTracker.Get(gvr, ns, m.GetName()); err == nil {
			if cm, err := meta.Accessor(cur); err == nil && cm.GetResourceVersion() != m.GetResourceVersion() {
				return apierrors.NewConflict(gvr.GroupResource(), m.GetName(), fmt.Errorf("resource version %s, stored %s", m.GetResourceVersion(), cm.GetResourceVersion()))
			}
		}
	}
	t.stamp(obj)
	return t.ObjectTracker.Update(gvr, obj, ns, opts...)
}

func (t rvTracker) Patch(gvr schema.GroupVersionResource, obj runtime.Object, ns string, opts ...metav1.PatchOptions) error {
	t.stamp(obj)
	return t.ObjectTracker.Patch(gvr, obj, ns, opts...)
}

func (t rvTracker) Delete(gvr schema.GroupVersionResource, ns, name string, opts ...metav1.DeleteOptions) error {
	t.c.room(80)
	return t.ObjectTracker.Delete(gvr, ns, name, opts...)
}

var podsGVR = v1.SchemeGroupVersion.WithResource("pods")
var nodesGVR = v1.SchemeGroupVersion.WithResource("nodes")

func newCluster() *cluster {
	c := &cluster{cs: fake.NewSimpleClientset(), binds: map[types.UID]int{}, bound: map[types.UID]string{}, attempts: map[types.UID]int{}}
	c.tracker = rvTracker{ObjectTracker: c.cs.Tracker(), c: c}
	c.cs.PrependReactor("*", "*", clienttesting.ObjectReaction(c.tracker))
	c.cs.PrependReactor("create", "pods", c.bind)
	return c
}

// bind is the pods/binding subresource: spec.nodeName written through the
// tracker, a conflict for a pod already bound (as the API server), and
// the injected failures.
func (c *cluster) bind(action clienttesting.Action) (bool, runtime.Object, error) {
	if action.GetSubresource() != "binding" {
		return false, nil, nil
	}
	b := action.(clienttesting.CreateAction).GetObject().(*v1.Binding)
	for {
		handled, out, err := c.bindOnce(b)
		if !apierrors.IsConflict(err) || !strings.Contains(err.Error(), "resource version") {
			return handled, out, err
		}
		// The workload wrote the pod between the read and the write:
		// read it again.
	}
}

func (c *cluster) bindOnce(b *v1.Binding) (bool, runtime.Object, error) {
	obj, err := c.tracker.Get(podsGVR, b.Namespace, b.Name)
	if err != nil {
		return true, nil, err
	}
	pod := obj.(*v1.Pod).DeepCopy()
	c.mu.Lock()
	c.attempts[pod.UID]++
	if pod.Spec.NodeName != "" {
		c.double++
		c.mu.Unlock()
		return true, nil, apierrors.NewConflict(podsGVR.GroupResource(), pod.Name, fmt.Errorf("pod is already assigned to node %q", pod.Spec.NodeName))
	}
	if c.failBind != nil && c.failBind(pod, c.attempts[pod.UID]) {
		c.injected++
		c.mu.Unlock()
		// 429, not 500: from v1.37 the default binder retries an internal
		// error in place (util.BindPod, retry.OnError with Retriable), so
		// the failure would never reach the queue.
		return true, nil, apierrors.NewTooManyRequests("injected bind failure", 1)
	}
	c.binds[pod.UID]++
	c.bound[pod.UID] = b.Target.Name
	onBind := c.onBind
	c.mu.Unlock()
	pod.Spec.NodeName = b.Target.Name
	if err := c.tracker.Update(podsGVR, pod, pod.Namespace); err != nil {
		if apierrors.IsConflict(err) {
			c.mu.Lock()
			c.attempts[pod.UID]--
			c.binds[pod.UID]--
			delete(c.bound, pod.UID)
			c.mu.Unlock()
		}
		return true, nil, err
	}
	if onBind != nil {
		onBind()
	}
	return true, b, nil
}

// wait holds the workload's writers back while more than 30 watch events
// are unread; room holds every write (the scheduler's binds, status
// patches and preemption deletes too) while n are, for at most 10 s.
// Events are counted as the informers' handlers see them, which is later
// than the watch channel is drained: the bound is conservative. Once the
// run is over (ctx done: its end, or a trace violation that stops it) no
// informer reads the watch any more, so wait returns ctx's error and the
// writer must not write: the fake watch would fill and panic.
func (c *cluster) wait(ctx context.Context) error {
	for c.written.Load()-c.seen.Load() > 30 && ctx.Err() == nil {
		time.Sleep(100 * time.Microsecond)
	}
	return ctx.Err()
}

// ended reports whether the run is over (its informers are gone, so no
// write will ever be seen).
func (c *cluster) ended() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

func (c *cluster) room(n int64) {
	end := time.Now().Add(10 * time.Second)
	for {
		w := c.written.Load()
		if w-c.seen.Load() < n || time.Now().After(end) || c.ended() {
			if c.written.CompareAndSwap(w, w+1) {
				return
			}
			continue
		}
		time.Sleep(100 * time.Microsecond)
	}
}

func (c *cluster) createPod(ctx context.Context, p *v1.Pod) error {
	if err := c.wait(ctx); err != nil {
		return err
	}
	_, err := c.cs.CoreV1().Pods(p.Namespace).Create(ctx, p, metav1.CreateOptions{})
	return err
}

func (c *cluster) createNode(ctx context.Context, n *v1.Node) error {
	if err := c.wait(ctx); err != nil {
		return err
	}
	_, err := c.cs.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{})
	return err
}

func (c *cluster) boundCount(uids map[types.UID]bool) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for u := range uids {
		if c.binds[u] > 0 {
			n++
		}
	}
	return n
}

// decoded returns obj as the API would hand it back: through JSON, so that
// its quantities compare equal (reflect.DeepEqual, as upstream's
// isPodUpdated does) with every later version the fake decodes.
func decoded[T any](obj *T) *T {
	b, err := json.Marshal(obj)
	if err != nil {
		panic(err)
	}
	out := new(T)
	if err := json.Unmarshal(b, out); err != nil {
		panic(err)
	}
	return out
}

// Node returns a node with the given CPU (cores) and room for 110 pods.
func Node(name string, cpu int64) *v1.Node {
	return decoded(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name}},
		Status: v1.NodeStatus{
			Capacity:    v1.ResourceList{v1.ResourceCPU: *resource.NewQuantity(cpu, resource.DecimalSI), v1.ResourceMemory: resource.MustParse("64Gi"), v1.ResourcePods: resource.MustParse("110")},
			Allocatable: v1.ResourceList{v1.ResourceCPU: *resource.NewQuantity(cpu, resource.DecimalSI), v1.ResourceMemory: resource.MustParse("64Gi"), v1.ResourcePods: resource.MustParse("110")},
			Conditions:  []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}},
		}})
}

// Pod returns a pending pod of namespace "ns", UID "uid-<name>", asking
// for milliCPU.
func Pod(name string, milliCPU int64, priority int32) *v1.Pod {
	return decoded(&v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: Namespace, Name: name, UID: types.UID("uid-" + name), Labels: map[string]string{"app": "w"}},
		Spec: v1.PodSpec{SchedulerName: v1.DefaultSchedulerName, Priority: &priority, Containers: []v1.Container{{Name: "c", Image: "i",
			Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: *resource.NewMilliQuantity(milliCPU, resource.DecimalSI), v1.ResourceMemory: resource.MustParse("100Mi")}}}}}})
}

// Env is what a workload drives.
type Env struct {
	ctx context.Context
	c   *cluster
	// must are the pods that must end bound; gated those that must not.
	// mu guards both: the workload adds while the throughput sampler and
	// WaitBound count.
	mu          sync.RWMutex
	must, gated map[types.UID]bool
	pre         []runtime.Object // preloaded before the informers start
	ready       chan struct{}    // closed by Start: the preload is complete
	startCh     chan struct{}    // closed by the harness: the scheduler runs
}

// Start ends the preload phase and waits until the scheduler runs: a
// workload preloads, calls Start, then drives the API.
func (e *Env) Start() {
	close(e.ready)
	<-e.startCh
}

func (e *Env) preloaded() <-chan struct{} { return e.ready }

// Gate marks pods that must never be bound (scheduling gates).
func (e *Env) Gate(pods ...*v1.Pod) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, p := range pods {
		e.gated[p.UID] = true
	}
}

// Preload adds objects before the scheduler starts (no watch events).
func (e *Env) Preload(objs ...runtime.Object) { e.pre = append(e.pre, objs...) }

// Must marks pods that must end bound.
func (e *Env) Must(pods ...*v1.Pod) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, p := range pods {
		e.must[p.UID] = true
	}
}

// CreatePod creates a pod through the API, with backpressure.
func (e *Env) CreatePod(p *v1.Pod) error { return e.c.createPod(e.ctx, p) }

// PreloadNodes preloads nodes node-from .. node-(to-1), each with cores
// CPUs.
func (e *Env) PreloadNodes(from, to int, cores int64) {
	for i := from; i < to; i++ {
		e.Preload(Node(fmt.Sprintf("node-%d", i), cores))
	}
}

// CreateBasicPods creates pods p-0 .. p-(n-1), each asking for 100m CPU,
// every one of which must be bound.
func (e *Env) CreateBasicPods(n int) error {
	for i := 0; i < n; i++ {
		p := Pod(fmt.Sprintf("p-%d", i), 100, 0)
		e.Must(p)
		if err := e.CreatePod(p); err != nil {
			return err
		}
	}
	return nil
}

// CreateNode creates a node through the API, with backpressure.
func (e *Env) CreateNode(n *v1.Node) error { return e.c.createNode(e.ctx, n) }

// UpdateNode rewrites a node.
func (e *Env) UpdateNode(n *v1.Node) error {
	if err := e.c.wait(e.ctx); err != nil {
		return err
	}
	_, err := e.c.cs.CoreV1().Nodes().Update(e.ctx, n, metav1.UpdateOptions{})
	return err
}

// DeleteNode deletes a node.
func (e *Env) DeleteNode(name string) error {
	if err := e.c.wait(e.ctx); err != nil {
		return err
	}
	return e.c.cs.CoreV1().Nodes().Delete(e.ctx, name, metav1.DeleteOptions{})
}

// DeletePod deletes a pod.
func (e *Env) DeletePod(name string) error {
	if err := e.c.wait(e.ctx); err != nil {
		return err
	}
	return e.c.cs.CoreV1().Pods(Namespace).Delete(e.ctx, name, metav1.DeleteOptions{})
}

// UpdatePodLabels sets a label on a pod (a pod update the queue sees).
func (e *Env) UpdatePodLabels(name, k, v string) error {
	return e.UpdatePod(name, func(p *v1.Pod) { p.Labels[k] = v })
}

// UpdatePod rewrites a pending pod with change (nothing if the pod is not
// created yet or already bound).
func (e *Env) UpdatePod(name string, change func(*v1.Pod)) error {
	if err := e.c.wait(e.ctx); err != nil {
		return err
	}
	obj, err := e.c.tracker.Get(podsGVR, Namespace, name)
	if apierrors.IsNotFound(err) {
		return nil // not created yet
	}
	if err != nil {
		return err
	}
	p := obj.(*v1.Pod).DeepCopy()
	if p.Spec.NodeName != "" {
		return nil
	}
	change(p)
	_, err = e.c.cs.CoreV1().Pods(Namespace).Update(e.ctx, p, metav1.UpdateOptions{})
	if apierrors.IsConflict(err) {
		return e.UpdatePod(name, change) // bound or written meanwhile: read it again
	}
	return err
}

// Bound is how many of the pods that must be bound are.
func (e *Env) Bound() int {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.c.boundCount(e.must)
}

// WaitBound waits until n pods that must be bound are, or d passes.
func (e *Env) WaitBound(n int, d time.Duration) bool {
	end := time.Now().Add(d)
	for time.Now().Before(end) && e.ctx.Err() == nil {
		if e.Bound() >= n {
			return true
		}
		time.Sleep(5 * time.Millisecond)
	}
	return e.Bound() >= n
}

// WaitQuiet waits until no bind happened for d (the scheduler has tried
// what it can and parked the rest), or a minute passes.
func (e *Env) WaitQuiet(d time.Duration) {
	end := time.Now().Add(time.Minute)
	last, lastN := time.Now(), e.c.totalBinds()
	for time.Since(last) < d && time.Now().Before(end) && e.ctx.Err() == nil {
		time.Sleep(10 * time.Millisecond)
		if n := e.c.totalBinds(); n != lastN {
			last, lastN = time.Now(), n
		}
	}
}

// FailBinds makes the API refuse binds for which f says so.
func (e *Env) FailBinds(f func(pod *v1.Pod, attempt int) bool) { e.c.failBind = f }

// Ctx is the run's context.
func (e *Env) Ctx() context.Context { return e.ctx }

// Workload is a scheduler_perf-style workload.
type Workload struct {
	Name  string
	Nodes int
	Pods  int
	// Run drives the cluster while the scheduler runs; it returns when
	// everything it created is created (the harness then waits for the
	// pods that must be bound).
	Run func(e *Env) error
}

// quiescence: the outcome is read once no bind happened for this long.
const quiet = 1500 * time.Millisecond

// Run starts the real scheduler on the chosen queue and runs one workload.
func Run(o Options) *Result {
	res := &Result{Workload: o.Workload.Name, Queue: o.Queue, Nodes: o.Workload.Nodes, QueueShare: -1}
	if o.Timeout == 0 {
		o.Timeout = 2 * time.Minute
	}
	ctx, cancel := context.WithTimeout(context.Background(), o.Timeout)
	defer cancel()
	logger := klog.FromContext(ctx)
	c := newCluster()
	c.done = ctx.Done()
	startCh := make(chan struct{})
	env := &Env{ctx: ctx, c: c, must: map[types.UID]bool{}, gated: map[types.UID]bool{}, ready: make(chan struct{}), startCh: startCh}

	// The workload preloads, calls Start, and drives the API once the
	// scheduler runs.
	runDone := make(chan error, 1)
	go func() { runDone <- o.Workload.Run(env) }()
	select {
	case <-env.preloaded():
	case err := <-runDone:
		res.Err = fmt.Errorf("workload ended before starting the scheduler: %v", err)
		return res
	}
	for _, obj := range env.pre {
		if err := c.cs.Tracker().Add(obj); err != nil {
			res.Err = err
			return res
		}
	}

	if err := setGates(); err != nil {
		res.Err = err
		return res
	}
	var clk *testingclock.FakeClock
	opts := append([]scheduler.Option(nil), o.SchedulerOptions...)
	maxBackoff := 10 * time.Second
	if o.NoBackoff {
		maxBackoff = 0
		opts = append(opts, scheduler.WithPodMaxBackoffSeconds(0))
	}
	if o.Trace {
		clk = testingclock.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
		opts = append(opts, scheduler.WithClock(clk))
	}
	informerFactory := newInformerFactory(c.cs)
	sched, err := scheduler.New(ctx, c.cs, informerFactory, nil, recorderFactory(), opts...)
	if err != nil {
		res.Err = err
		return res
	}
	// The queue swap: after New, before the informers start.
	var q upstreamQueue = sched.SchedulingQueue
	var adapter *Adapter
	var places func() (a, b, u, f []string)
	var flush func(bool)
	// Under the trace check, both queues' PreEnqueue plugins keep their
	// verdicts for the model's step (Verdicts).
	var verdicts *Verdicts
	if o.Trace {
		verdicts = NewVerdicts()
		verdicts.live = o.LiveVerdicts
	}
	if o.Queue == Schedq {
		var qclk = clockOrNil(clk)
		profiles := sched.Profiles
		if verdicts != nil {
			profiles = verdicts.profiles(profiles)
		}
		adapter, err = NewAdapter(ctx, profiles, qclk, time.Second, maxBackoff, o.Breakage)
		if err != nil {
			res.Err = err
			return res
		}
		q = adapter
		places = func() (a, b, u, f []string) {
			s := adapter.q.Snapshot()
			return keysOf(s.ActiveQ), keysOf(s.BackoffQ), keysOf(s.UnschedulablePods), keysOf(s.InFlight)
		}
		flush = func(backoff bool) {
			if backoff {
				adapter.q.FlushBackoffQCompleted()
			} else {
				adapter.q.FlushUnschedulablePodsLeftover()
			}
		}
	} else {
		pq, ok := q.(*queue.PriorityQueue)
		if !ok {
			res.Err = fmt.Errorf("scheduler.New built a %T", q)
			return res
		}
		if verdicts != nil {
			if err := verdicts.wrapUpstream(pq); err != nil {
				res.Err = err
				return res
			}
		}
		places = func() (a, b, u, f []string) {
			return podKeys(pq.PodsInActiveQ()), podKeys(pq.PodsInBackoffQ()), podKeys(pq.UnschedulablePods()), upstreamInFlight(pq)
		}
		flush = func(backoff bool) {
			if backoff {
				upstreamFlushBackoff(pq, logger)
			} else {
				upstreamFlushLeftover(pq, logger)
			}
		}
	}
	var rec *Recorder
	var modelBad atomic.Int64
	if o.Trace {
		cfg, err := Config(ctx, sched.Profiles, func(error) { modelBad.Add(1) })
		if err != nil {
			res.Err = err
			return res
		}
		cfg.PodInitialBackoffDuration, cfg.PodMaxBackoffDuration = time.Second, maxBackoff
		cfg.PreEnqueuePlugins = verdicts.replay(cfg.PreEnqueuePlugins)
		rec, err = NewRecorder(q, cfg, clk, flush, places)
		if err != nil {
			res.Err = err
			return res
		}
		rec.verdicts = verdicts
		if o.Porcupine {
			rec.conc = &conc{}
		}
		res.Verdicts = verdicts
		q = rec
	}
	if rec != nil && o.StopOnViolation {
		go func() {
			for ctx.Err() == nil {
				if rec.Violation() != nil {
					cancel()
					return
				}
				time.Sleep(20 * time.Millisecond)
			}
		}()
	}
	tq := newTimed(q)
	sched.SchedulingQueue = tq
	setNextPod(sched, tq)
	for _, fwk := range sched.Profiles {
		fwk.SetPodNominator(tq)
		fwk.SetPodActivator(tq)
	}

	// Count the watch events the informers have seen (backpressure).
	count := cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { c.seen.Add(1) },
		UpdateFunc: func(any, any) { c.seen.Add(1) },
		DeleteFunc: func(any) { c.seen.Add(1) },
	}
	var regs []cache.ResourceEventHandlerRegistration
	for _, inf := range []cache.SharedIndexInformer{informerFactory.Core().V1().Pods().Informer(), informerFactory.Core().V1().Nodes().Informer()} {
		reg, err := inf.AddEventHandler(count)
		if err != nil {
			res.Err = err
			return res
		}
		regs = append(regs, reg)
	}
	schedCtx, stopSched := context.WithCancel(ctx)
	defer stopSched()
	informerFactory.Start(schedCtx.Done())
	informerFactory.WaitForCacheSync(schedCtx.Done())
	if err := sched.WaitForHandlersSync(schedCtx); err != nil {
		res.Err = err
		return res
	}
	// The preloaded objects reached the handlers as the informers' initial
	// list, not as watch events: start counting from here.
	for _, reg := range regs {
		for !reg.HasSynced() && ctx.Err() == nil {
			time.Sleep(time.Millisecond)
		}
	}
	c.seen.Store(c.written.Load())

	// Measured phase.
	var prof bytes.Buffer
	if o.Profile {
		if err := pprof.StartCPUProfile(&prof); err != nil {
			o.Profile = false
		}
	}
	cpu0 := cpuTime()
	t0 := time.Now()
	tc := newThroughput(env)
	go sched.Run(schedCtx)
	close(startCh)
	if err := <-runDone; err != nil {
		res.Err = err
	}
	res.Pods = len(env.must)
	for u := range env.must {
		if env.gated[u] {
			res.Err = fmt.Errorf("a pod both must be bound and is gated")
		}
	}
	settle := time.Until(deadline(ctx))
	if o.Settle > 0 {
		settle = o.Settle
	}
	env.WaitBound(res.Pods, settle)
	res.Duration = time.Since(t0)
	// Quiescence: no bind for a while.
	last, lastN := time.Now(), c.totalBinds()
	for ctx.Err() == nil && time.Since(last) < quiet {
		time.Sleep(20 * time.Millisecond)
		if n := c.totalBinds(); n != lastN {
			last, lastN = time.Now(), n
		}
	}
	if rec != nil {
		rec.snapshot()
	}
	res.CPUSeconds = cpuTime() - cpu0
	if o.Profile {
		pprof.StopCPUProfile()
		res.QueueShare = queueShare(prof.Bytes(), o.Queue)
	}
	tc.stop()
	res.Throughput = tc.average()
	if res.Throughput == 0 && res.Duration > 0 {
		// Under two samples: the run was shorter than scheduler_perf's
		// interval; report pods over the run instead.
		res.Throughput = float64(res.Pods) / res.Duration.Seconds()
	}

	// The outcome, from the API objects.
	objs, err := c.tracker.List(podsGVR, v1.SchemeGroupVersion.WithKind("Pod"), Namespace)
	if err != nil {
		res.Err = err
		return res
	}
	queued := map[string]bool{}
	pending, _ := q.PendingPods()
	for _, p := range pending {
		queued[p.Namespace+"/"+p.Name] = true
	}
	for _, p := range q.InFlightPods() {
		queued[p.Namespace+"/"+p.Name] = true
	}
	inflight := tq.inFlight()
	for _, item := range objs.(*v1.PodList).Items {
		p := item
		key := p.Namespace + "/" + p.Name
		switch {
		case p.Spec.NodeName != "":
			if env.must[p.UID] {
				res.Bound++
			}
			if env.gated[p.UID] {
				res.GatedBound++
			}
		case queued[key] || inflight[p.UID]:
			res.Waiting++
			if env.must[p.UID] {
				res.Stranded = append(res.Stranded, key)
			}
		default:
			res.Lost = append(res.Lost, key)
		}
	}
	sort.Strings(res.Lost)
	res.Gated = len(env.gated)
	c.mu.Lock()
	res.DoubleBinds = c.double
	res.InjectedBindFailures = c.injected
	c.mu.Unlock()
	res.P50, res.P99, res.Attempts = tq.quantiles()
	if adapter != nil {
		res.AdapterErrors = adapter.Errors()
	}
	if rec != nil {
		res.ModelBadInput = modelBad.Load()
		res.rec = rec
		res.TraceOps, res.TraceEmptyReads = rec.Checked()
		res.Violation = rec.Violation()
		res.History = rec.History()
	}
	stopSched()
	if rec != nil && rec.conc != nil {
		rec.waitIdle(10 * time.Second)
		timeout := o.PorcupineTimeout
		if timeout == 0 {
			timeout = time.Minute
		}
		c := rec.checkConcurrent(o.Workload.Name+"-"+string(o.Queue), timeout)
		res.Conc = &c
	}
	return res
}

func clockOrNil(c *testingclock.FakeClock) clock.WithTicker {
	if c == nil {
		return nil
	}
	return c
}

func deadline(ctx context.Context) time.Time {
	d, ok := ctx.Deadline()
	if !ok {
		return time.Now().Add(time.Minute)
	}
	return d
}

func podKeys(ps []*v1.Pod) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Namespace + "/" + p.Name
	}
	return out
}

func (c *cluster) totalBinds() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.injected + c.double
	for _, b := range c.binds {
		n += b
	}
	return n
}

func cpuTime() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// queuePackages are the code a queue's CPU is counted under.
var queuePackages = map[QueueKind][]string{
	Upstream: {"k8s.io/kubernetes/pkg/scheduler/backend/queue."},
	Schedq:   {"github.com/schedq/schedq/impl.", "github.com/schedq/schedq/realsched.(*Adapter)."},
}

// queueShare is the share of CPU samples with a frame of the queue's
// packages on the stack.
func queueShare(data []byte, k QueueKind) float64 {
	p, err := pprofile.Parse(bytes.NewReader(data))
	if err != nil || len(p.SampleType) == 0 {
		return -1
	}
	var all, in int64
	for _, s := range p.Sample {
		v := s.Value[len(s.Value)-1]
		all += v
	hit:
		for _, l := range s.Location {
			for _, ln := range l.Line {
				if ln.Function == nil {
					continue
				}
				for _, pre := range queuePackages[k] {
					if strings.HasPrefix(ln.Function.Name, pre) {
						in += v
						break hit
					}
				}
			}
		}
	}
	if all == 0 {
		return -1
	}
	return float64(in) / float64(all)
}

// throughput is scheduler_perf's collector: every second, the pods bound
// since the last sample over the time since it; the first sample with any
// pod bound only starts the clock; intervals without a bind are merged
// into the next. Its average is SchedulingThroughput.
type throughput struct {
	samples []float64
	done    chan struct{}
	wg      sync.WaitGroup
}

func newThroughput(e *Env) *throughput {
	t := &throughput{done: make(chan struct{})}
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		started := false
		var lastN, skipped int
		var lastT time.Time
		for {
			select {
			case <-t.done:
				return
			case now := <-tick.C:
				n := e.Bound()
				if n == 0 {
					continue
				}
				if !started {
					started, lastN, lastT = true, n, now
					continue
				}
				if n == lastN {
					skipped++
					continue
				}
				v := float64(n-lastN) / now.Sub(lastT).Seconds()
				for i := 0; i <= skipped; i++ {
					t.samples = append(t.samples, v)
				}
				skipped, lastN, lastT = 0, n, now
			}
		}
	}()
	return t
}

func (t *throughput) stop() { close(t.done); t.wg.Wait() }

func (t *throughput) average() float64 {
	if len(t.samples) == 0 {
		return 0
	}
	s := 0.0
	for _, v := range t.samples {
		s += v
	}
	return s / float64(len(t.samples))
}
