package realsched

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"runtime/pprof"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	pprofile "github.com/google/pprof/profile"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/rest"
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
	// hints off; v1.37.2 and v1.38.0-beta.0 with their default gates).
	Upstream QueueKind = "upstream"
	// Schedq is schedq's impl through Adapter (classic profile on v1.33,
	// hints on v1.37, hints with pre-queueing hints on v1.38).
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
	// Server is a real kube-apiserver to run on (the realapi build's tests
	// start one per test and empty it between runs); nil: the fake
	// clientset.
	Server *rest.Config
	// Faults are injected on the real server's side of the scheduler.
	Faults FaultPlan
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
	// Backend is the API the run used: "fake clientset" or
	// "kube-apiserver".
	Backend string
	// Throughput is scheduler_perf's SchedulingThroughput (pods/s): the
	// average of the per-second samples, and their percentiles.
	Throughput, ThroughputP50, ThroughputP90, ThroughputP99 float64
	CPUSeconds                                              float64 // process CPU (user+system) over the measured phase
	// SchedulerCPU is the scheduler's part of CPUSeconds, from the
	// profile's labels (Options.Profile; -1 if not measured): on a real
	// server the process also runs the API server and etcd.
	SchedulerCPU float64
	// QueueShare is the share of the scheduler's CPU samples under the
	// queue's packages; -1 if not measured.
	QueueShare    float64
	CPUProfile    []byte // the measured phase's pprof profile (Options.Profile)
	P50, P90, P99 time.Duration
	// BoundAt is when each bind succeeded, from the measured phase's
	// start, in order; Pops every attempt in Pop order.
	BoundAt []time.Duration
	Pops    []Attempt
	// APICalls counts the scheduler's requests to a real server in the
	// measured phase by verb and resource ("POST pods/binding"); empty on
	// the fake clientset.
	APICalls map[string]int
	// VictimsGone counts the victims FaultPlan.VictimGone deleted first.
	VictimsGone   int
	AdapterErrors int64
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

// quiescence: the outcome is read once no bind happened for this long.
const quiet = 1500 * time.Millisecond

// run is one Run's state, step by step: newRun (the API and the
// workload's preload), newScheduler, swapQueue, record, startInformers,
// measure, outcome, checkConcurrent.
type run struct {
	o        Options
	res      *Result
	ctx      context.Context
	cancel   context.CancelFunc
	logger   klog.Logger
	c        *cluster
	env      *Env
	runDone  chan error
	clk      *testingclock.FakeClock
	maxBack  time.Duration
	sched    *scheduler.Scheduler
	factory  informers.SharedInformerFactory
	q        upstreamQueue // the queue the scheduler calls, wrappers included
	adapter  *Adapter
	places   func() (a, b, u, f []string)
	flush    func(backoff bool)
	verdicts *Verdicts
	rec      *Recorder
	modelBad atomic.Int64
	tq       *timed
	schedCtx context.Context
	stop     context.CancelFunc
}

// Run starts the real scheduler on the chosen queue and runs one workload.
func Run(o Options) *Result {
	if o.Timeout == 0 {
		o.Timeout = 2 * time.Minute
	}
	r := &run{o: o, res: &Result{Workload: o.Workload.Name, Queue: o.Queue, Nodes: o.Workload.Nodes, QueueShare: -1, SchedulerCPU: -1, Backend: "fake clientset"}}
	r.ctx, r.cancel = context.WithTimeout(context.Background(), o.Timeout)
	defer r.cancel()
	r.logger = klog.FromContext(r.ctx)
	for _, step := range []func() error{r.newCluster, r.preload, r.newScheduler, r.swapQueue, r.record, r.startInformers} {
		if err := step(); err != nil {
			r.res.Err = err
			return r.res
		}
	}
	defer r.stop()
	r.measure()
	if err := r.outcome(); err != nil {
		r.res.Err = err
		return r.res
	}
	r.stop()
	r.checkConcurrent()
	return r.res
}

// newCluster: the fake clientset, or the real server of Options.Server.
func (r *run) newCluster() error {
	if r.o.Server == nil {
		r.c = newFakeCluster()
	} else {
		c, err := newRealCluster(r.o.Server, r.o.Faults)
		if err != nil {
			return err
		}
		r.c = c
		r.res.Backend = "kube-apiserver"
	}
	r.c.done = r.ctx.Done()
	r.env = newEnv(r.ctx, r.c)
	return nil
}

// preload runs the workload until it calls Start and puts its preloaded
// objects in place.
func (r *run) preload() error {
	r.runDone = make(chan error, 1)
	go func() { r.runDone <- r.o.Workload.Run(r.env) }()
	select {
	case <-r.env.preloaded():
	case err := <-r.runDone:
		return fmt.Errorf("workload ended before starting the scheduler: %v", err)
	}
	return r.c.preload(r.ctx, r.env.pre)
}

// newScheduler: the release's gates, the run's options, scheduler.New.
func (r *run) newScheduler() error {
	if err := setGates(); err != nil {
		return err
	}
	opts := append([]scheduler.Option(nil), r.o.SchedulerOptions...)
	r.maxBack = 10 * time.Second
	if r.o.NoBackoff {
		r.maxBack = 0
		opts = append(opts, scheduler.WithPodMaxBackoffSeconds(0))
	}
	if r.o.Trace {
		r.clk = testingclock.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
		opts = append(opts, scheduler.WithClock(r.clk))
	}
	r.factory = newInformerFactory(r.c.sched)
	sched, err := scheduler.New(r.ctx, r.c.sched, r.factory, nil, recorderFactory(), opts...)
	r.sched = sched
	return err
}

// swapQueue picks the queue the scheduler runs on: the one New built
// (upstream) or schedq's behind the adapter; either way, how to read its
// places and run its flushes for the trace check. Under the trace check,
// both queues' PreEnqueue plugins keep their verdicts for the model's
// step (Verdicts).
func (r *run) swapQueue() error {
	r.q = r.sched.SchedulingQueue
	if r.o.Trace {
		r.verdicts = NewVerdicts()
		r.verdicts.live = r.o.LiveVerdicts
	}
	if r.o.Queue == Schedq {
		profiles := r.sched.Profiles
		if r.verdicts != nil {
			profiles = r.verdicts.profiles(profiles)
		}
		adapter, err := NewAdapter(r.ctx, profiles, clockOrNil(r.clk), time.Second, r.maxBack, r.o.Breakage)
		if err != nil {
			return err
		}
		r.adapter, r.q = adapter, adapter
		r.places = func() (a, b, u, f []string) {
			s := adapter.q.Snapshot()
			return keysOf(s.ActiveQ), keysOf(s.BackoffQ), keysOf(s.UnschedulablePods), keysOf(s.InFlight)
		}
		r.flush = func(backoff bool) {
			if backoff {
				adapter.q.FlushBackoffQCompleted()
			} else {
				adapter.q.FlushUnschedulablePodsLeftover()
			}
		}
		return nil
	}
	pq, ok := r.q.(*queue.PriorityQueue)
	if !ok {
		return fmt.Errorf("scheduler.New built a %T", r.q)
	}
	if r.verdicts != nil {
		if err := r.verdicts.wrapUpstream(pq); err != nil {
			return err
		}
	}
	r.places = func() (a, b, u, f []string) {
		return podKeys(pq.PodsInActiveQ()), podKeys(pq.PodsInBackoffQ()), podKeys(pq.UnschedulablePods()), upstreamInFlight(pq)
	}
	r.flush = func(backoff bool) {
		if backoff {
			upstreamFlushBackoff(pq, r.logger)
		} else {
			upstreamFlushLeftover(pq, r.logger)
		}
	}
	return nil
}

// record wraps the queue in the trace check's recorder (Options.Trace),
// then in the attempt timer, and hands the result to the scheduler: its
// SchedulingQueue, its next-pod function, every profile's nominator and
// activator (the swap; the queue New built is never run).
func (r *run) record() error {
	if r.o.Trace {
		cfg, err := Config(r.ctx, r.sched.Profiles, func(error) { r.modelBad.Add(1) })
		if err != nil {
			return err
		}
		cfg.PodInitialBackoffDuration, cfg.PodMaxBackoffDuration = time.Second, r.maxBack
		cfg.PreEnqueuePlugins = r.verdicts.replay(cfg.PreEnqueuePlugins)
		rec, err := NewRecorder(r.q, cfg, r.clk, r.flush, r.places)
		if err != nil {
			return err
		}
		rec.verdicts = r.verdicts
		if r.o.Porcupine {
			rec.conc = &conc{}
		}
		r.res.Verdicts = r.verdicts
		r.rec, r.q = rec, rec
		if r.o.StopOnViolation {
			go func() {
				for r.ctx.Err() == nil {
					if rec.Violation() != nil {
						r.cancel()
						return
					}
					time.Sleep(20 * time.Millisecond)
				}
			}()
		}
	}
	r.tq = newTimed(r.q)
	r.sched.SchedulingQueue = r.tq
	setNextPod(r.sched, r.tq)
	for _, fwk := range r.sched.Profiles {
		fwk.SetPodNominator(r.tq)
		fwk.SetPodActivator(r.tq)
	}
	return nil
}

// schedulerLabel marks the scheduler's goroutines (informers, scheduling
// and binding, its client's connections: labels pass to the goroutines a
// labelled one starts), so that a CPU profile tells its share from the
// API server's and etcd's, which run in the same process on a real
// server.
var schedulerLabel = pprof.Labels("realsched", "scheduler")

// asScheduler runs f on the calling goroutine under schedulerLabel, so
// that the goroutines f starts carry it, and leaves the caller without
// labels afterwards. (pprof.Do restores the labels of the context it is
// given, not the ones the goroutine had: given the scheduler's labelled
// context it left the caller labelled, and with it everything the caller
// started later, the workload's driver and the next run's kube-apiserver
// and etcd, which then counted as the scheduler's CPU.)
func asScheduler(f func()) {
	pprof.Do(context.Background(), schedulerLabel, func(context.Context) { f() })
}

// startInformers starts the scheduler's informers (under its label) and
// waits for their sync; on the fake, from here on the watch events the
// informers see are counted (backpressure). On a real server, the
// scheduler's view of deletions is kept for FaultPlan.VictimGone.
func (r *run) startInformers() error {
	var handlers []cache.ResourceEventHandler
	if f := r.c.fake; f != nil {
		handlers = append(handlers, cache.ResourceEventHandlerFuncs{
			AddFunc:    func(any) { f.seen.Add(1) },
			UpdateFunc: func(any, any) { f.seen.Add(1) },
			DeleteFunc: func(any) { f.seen.Add(1) },
		})
	}
	if r.o.Faults.VictimGone {
		var mu sync.Mutex
		deleted := map[string]bool{}
		handlers = append(handlers, cache.ResourceEventHandlerFuncs{DeleteFunc: func(obj any) {
			if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = tomb.Obj
			}
			if p, ok := obj.(*v1.Pod); ok {
				mu.Lock()
				deleted[p.Name] = true
				mu.Unlock()
			}
		}})
		r.c.mu.Lock()
		r.c.podDeleted = func(name string) bool { mu.Lock(); defer mu.Unlock(); return deleted[name] }
		r.c.mu.Unlock()
	}
	var regs []cache.ResourceEventHandlerRegistration
	for _, h := range handlers {
		for _, inf := range []cache.SharedIndexInformer{r.factory.Core().V1().Pods().Informer(), r.factory.Core().V1().Nodes().Informer()} {
			reg, err := inf.AddEventHandler(h)
			if err != nil {
				return err
			}
			regs = append(regs, reg)
		}
	}
	r.schedCtx, r.stop = context.WithCancel(pprof.WithLabels(r.ctx, schedulerLabel))
	var err error
	asScheduler(func() {
		r.factory.Start(r.schedCtx.Done())
		r.factory.WaitForCacheSync(r.schedCtx.Done())
		err = r.sched.WaitForHandlersSync(r.schedCtx)
	})
	if err != nil {
		return err
	}
	// The preloaded objects reached the handlers as the informers' initial
	// list, not as watch events: count from here.
	for _, reg := range regs {
		for !reg.HasSynced() && r.ctx.Err() == nil {
			time.Sleep(time.Millisecond)
		}
	}
	if f := r.c.fake; f != nil {
		f.seen.Store(f.written.Load())
	}
	return nil
}

// measure runs the scheduler and the workload's driving phase, waits for
// the pods that must be bound (or the settle bound), then for
// quiescence, and takes the measures: CPU (the process's, and the
// scheduler's share from a profile), the throughput samples, the bind
// times and the attempts.
func (r *run) measure() {
	res, o := r.res, r.o
	var prof bytes.Buffer
	profiling := o.Profile && pprof.StartCPUProfile(&prof) == nil
	cpu0 := cpuTime()
	t0 := time.Now()
	r.c.t0.Store(&t0)
	r.tq.t0 = t0
	tc := newThroughput(r.env)
	go pprof.Do(r.schedCtx, schedulerLabel, func(ctx context.Context) { r.sched.Run(ctx) })
	close(r.env.startCh)
	if err := <-r.runDone; err != nil {
		res.Err = err
	}
	res.Pods = len(r.env.must)
	for name := range r.env.must {
		if r.env.gated[name] {
			res.Err = fmt.Errorf("a pod both must be bound and is gated")
		}
	}
	settle := time.Until(deadline(r.ctx))
	if o.Settle > 0 {
		settle = o.Settle
	}
	r.env.WaitBound(res.Pods, settle)
	res.Duration = time.Since(t0)
	last, lastN := time.Now(), r.c.totalBinds()
	for r.ctx.Err() == nil && time.Since(last) < quiet {
		time.Sleep(20 * time.Millisecond)
		if n := r.c.totalBinds(); n != lastN {
			last, lastN = time.Now(), n
		}
	}
	if r.rec != nil {
		r.rec.snapshot()
	}
	res.CPUSeconds = cpuTime() - cpu0
	if profiling {
		pprof.StopCPUProfile()
		res.CPUProfile = prof.Bytes()
		var schedShare float64
		res.QueueShare, schedShare = queueShare(res.CPUProfile, o.Queue)
		if schedShare >= 0 {
			res.SchedulerCPU = schedShare * res.CPUSeconds
		}
	}
	tc.stop()
	res.Throughput, res.ThroughputP50, res.ThroughputP90, res.ThroughputP99 = tc.average(), tc.percentile(0.5), tc.percentile(0.9), tc.percentile(0.99)
	if res.Throughput == 0 && res.Duration > 0 {
		// Under two samples: the run was shorter than scheduler_perf's
		// interval; report pods over the run instead.
		res.Throughput = float64(res.Pods) / res.Duration.Seconds()
	}
}

// outcome proves the run's result from the API objects: every pod is
// bound, waiting in the queue (or in flight), or lost.
func (r *run) outcome() error {
	res := r.res
	list, err := r.c.cs.CoreV1().Pods(Namespace).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		return err
	}
	queued := map[string]bool{}
	pending, _ := r.q.PendingPods()
	for _, p := range pending {
		queued[p.Namespace+"/"+p.Name] = true
	}
	for _, p := range r.q.InFlightPods() {
		queued[p.Namespace+"/"+p.Name] = true
	}
	inflight := r.tq.inFlight()
	for _, p := range list.Items {
		key := p.Namespace + "/" + p.Name
		switch {
		case p.Spec.NodeName != "":
			if r.env.must[p.Name] {
				res.Bound++
			}
			if r.env.gated[p.Name] {
				res.GatedBound++
			}
		case queued[key] || inflight[p.UID]:
			res.Waiting++
			if r.env.must[p.Name] {
				res.Stranded = append(res.Stranded, key)
			}
		default:
			res.Lost = append(res.Lost, key)
		}
	}
	sort.Strings(res.Lost)
	res.Gated = len(r.env.gated)
	r.c.mu.Lock()
	res.DoubleBinds = r.c.double
	res.InjectedBindFailures = r.c.injected
	res.VictimsGone = r.c.goneVics
	res.BoundAt = append([]time.Duration(nil), r.c.boundAt...)
	res.APICalls = maps.Clone(r.c.calls)
	r.c.mu.Unlock()
	res.P50, res.P90, res.P99, res.Attempts = r.tq.quantiles()
	res.Pops = r.tq.popped()
	if r.adapter != nil {
		res.AdapterErrors = r.adapter.Errors()
	}
	if r.rec != nil {
		res.ModelBadInput = r.modelBad.Load()
		res.rec = r.rec
		res.TraceOps, res.TraceEmptyReads = r.rec.Checked()
		res.Violation = r.rec.Violation()
		res.History = r.rec.History()
	}
	return nil
}

// checkConcurrent checks the unserialised history with porcupine
// (Options.Porcupine), once the scheduler has stopped.
func (r *run) checkConcurrent() {
	if r.rec == nil || r.rec.conc == nil {
		return
	}
	r.rec.waitIdle(10 * time.Second)
	timeout := r.o.PorcupineTimeout
	if timeout == 0 {
		timeout = time.Minute
	}
	c := r.rec.checkConcurrent(r.o.Workload.Name+"-"+string(r.o.Queue), timeout)
	r.res.Conc = &c
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

// queueShare is the share of the scheduler's CPU samples with a frame of
// the queue's packages on the stack, and the scheduler's share of all
// samples (its goroutines carry schedulerLabel; -1 if none do). On the
// fake clientset the process is the scheduler, bar the workload's driver.
func queueShare(data []byte, k QueueKind) (queue, scheduler float64) {
	p, err := pprofile.Parse(bytes.NewReader(data))
	if err != nil || len(p.SampleType) == 0 {
		return -1, -1
	}
	var all, sched, in int64
	for _, s := range p.Sample {
		v := s.Value[len(s.Value)-1]
		all += v
		if len(s.Label["realsched"]) == 0 {
			continue
		}
		sched += v
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
	if all == 0 || sched == 0 {
		return -1, -1
	}
	return float64(in) / float64(sched), float64(sched) / float64(all)
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

// percentile is scheduler_perf's: the sample at rank q of the sorted
// samples.
func (t *throughput) percentile(q float64) float64 {
	if len(t.samples) == 0 {
		return 0
	}
	s := append([]float64(nil), t.samples...)
	sort.Float64s(s)
	return s[int(q*float64(len(s)-1))]
}

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
