package realsched

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/schedq/schedq/spec"
)

var (
	nodesFlag   = flag.Int("realsched.nodes", 20, "nodes per workload")
	podsFlag    = flag.Int("realsched.pods", 200, "pods per workload")
	onlyFlag    = flag.String("realsched.workload", "", "run only this workload")
	liveFlag    = flag.Bool("realsched.liveverdicts", false, "the trace check's model asks PreEnqueue plugins at its own step, not the queue's verdicts of the call (the experiment that shows why it must not)")
	timeoutFlag = flag.Duration("realsched.timeout", 5*time.Minute, "benchmarks: the bound of one run")
	traceFlag   = flag.Bool("realsched.trace", false, "benchmarks: record and check every queue call (slows the run)")
	firstFlag   = flag.String("realsched.first", "upstream", "benchmarks: the queue that runs first of each workload's pair, upstream or schedq (make realsched alternates it by round)")
	profilesDir = flag.String("realsched.profiles", "", "benchmarks: a directory for each run's CPU profile of its measured phase (WORKLOAD-QUEUE-N.pprof, N counting that pair's runs in this process)")
)

// startServer starts a real API server for one run: set by
// realapi_test.go in the realapi build, nil otherwise (the runs then use
// the fake clientset).
var startServer func(testing.TB) (*rest.Config, func(), error)

// backendName is the API the build's runs use.
func backendName() string {
	if startServer != nil {
		return "kube-apiserver and etcd in process (realapi build)"
	}
	return "fake clientset"
}

// serverFor starts the build's real API server for tb and its subtests,
// stopped when tb ends (nil in the default build: the fake clientset).
func serverFor(tb testing.TB) *rest.Config {
	if startServer == nil {
		return nil
	}
	cfg, stop, err := startServer(tb)
	if err != nil {
		tb.Fatalf("real API server: %v", err)
	}
	tb.Cleanup(stop)
	return cfg
}

// sideBySide lets a run go in parallel with its sibling runs where they
// share nothing: on the fake clientset each run has its own clientset,
// scheduler and queue, and spends most of its time waiting on the
// scheduler's timers (backoff, settle), so running them side by side cuts
// make test's wall time without adding CPU. Runs on a real API server share
// it (serverFor empties it between runs) and stay one at a time. The
// process-wide feature gates are the same for every run of a build.
func sideBySide(t *testing.T, srv *rest.Config) {
	if srv == nil && startServer == nil {
		t.Parallel()
	}
}

// runOn runs o on the build's API: the server in o.Server emptied first,
// or a real server started for the run and stopped after it (realapi
// builds), or the fake clientset.
func runOn(tb testing.TB, o Options) *Result {
	if o.Server != nil {
		if err := resetServer(context.Background(), o.Server); err != nil {
			return &Result{Workload: o.Workload.Name, Queue: o.Queue, QueueShare: -1, SchedulerCPU: -1, Err: err}
		}
	}
	if startServer != nil && o.Server == nil {
		cfg, stop, err := startServer(tb)
		if err != nil {
			return &Result{Workload: o.Workload.Name, Queue: o.Queue, QueueShare: -1, SchedulerCPU: -1, Err: fmt.Errorf("real API server: %w", err)}
		}
		defer stop()
		o.Server = cfg
	}
	return Run(o)
}

func workloads() []Workload {
	var out []Workload
	for _, w := range Workloads(*nodesFlag, *podsFlag) {
		if *onlyFlag == "" || *onlyFlag == w.Name {
			out = append(out, w)
		}
	}
	return out
}

// TestRealScheduler runs every workload on both queues, small, with the
// trace check on: every bindable pod bound exactly once, none lost, and
// every queue call as the model allows. On upstream's queue a trace
// violation that a declared difference explains is reported, not failed;
// on schedq's none is allowed.
func TestRealScheduler(t *testing.T) {
	srv := serverFor(t)
	for _, w := range workloads() {
		for _, k := range []QueueKind{Upstream, Schedq} {
			t.Run(w.Name+"/"+string(k), func(t *testing.T) {
				sideBySide(t, srv)
				r := runOn(t, Options{Queue: k, Workload: w, Trace: true, LiveVerdicts: *liveFlag, Timeout: 3 * time.Minute, Server: srv}) // generous: the machine may be loaded
				t.Log(summary(r))
				t.Log(r.Verdicts)
				for _, k := range head(r.Stranded, 3) {
					t.Logf("waiting at the end: %s", r.Describe(k, 12))
				}
				problems := r.Problems()
				if v := r.Violation; v != nil {
					t.Log(v.Report())
					if v.Known != "" && k == Upstream {
						problems = problems[:len(problems)-1] // the violation is the last problem
					}
				}
				for _, p := range problems {
					t.Error(p)
				}
			})
		}
	}
}

// reportMetrics reports what scheduler_perf reports (SchedulingThroughput
// average and percentiles, attempt latency percentiles) and CPU per pod:
// the process's, and the scheduler's part of it (on a real server the
// process also runs kube-apiserver and etcd), with the queue's share of
// the scheduler's.
func reportMetrics(b *testing.B, r *Result) {
	pods := float64(max(r.Pods, 1))
	b.ReportMetric(r.Throughput, "pods/s")
	b.ReportMetric(r.ThroughputP50, "p50-pods/s")
	b.ReportMetric(r.ThroughputP90, "p90-pods/s")
	b.ReportMetric(r.ThroughputP99, "p99-pods/s")
	b.ReportMetric(1000*r.CPUSeconds/pods, "cpu-ms/pod")
	b.ReportMetric(1000*r.SchedulerCPU/pods, "sched-cpu-ms/pod")
	b.ReportMetric(100*r.QueueShare, "queue-cpu-%")
	b.ReportMetric(ms(r.P50), "p50-attempt-ms")
	b.ReportMetric(ms(r.P90), "p90-attempt-ms")
	b.ReportMetric(ms(r.P99), "p99-attempt-ms")
	b.ReportMetric(float64(r.Attempts)/pods, "attempts/pod")
	if len(r.APICalls) > 0 {
		n := 0
		for _, c := range r.APICalls {
			n += c
		}
		b.ReportMetric(float64(n)/pods, "sched-api-calls/pod")
		b.Logf("%s/%s: the scheduler's API calls in the measured phase: %v", r.Workload, r.Queue, r.APICalls)
	}
}

// TestBrokenAdapterIsRejected is the trace check's own mutant test: the
// real scheduler on a deliberately broken adapter must produce a history
// the model rejects.
func TestBrokenAdapterIsRejected(t *testing.T) {
	srv := serverFor(t)
	for _, c := range []struct {
		b Breakage
		w Workload
	}{
		{DropUnschedulable, Unschedulable(*nodesFlag, *podsFlag)},
		{SkipMoves, Unschedulable(*nodesFlag, *podsFlag)},
		{IgnoreUpdateVerdict, TolerationUpdate(*nodesFlag, *podsFlag)},
	} {
		t.Run(c.b.String(), func(t *testing.T) {
			sideBySide(t, srv)
			r := runOn(t, Options{Queue: Schedq, Workload: c.w, Breakage: c.b, Trace: true, StopOnViolation: true, Timeout: 2 * time.Minute, Server: srv})
			t.Log(summary(r))
			if r.Violation == nil {
				t.Fatalf("the trace of the %s adapter was accepted", c.b)
			}
			t.Logf("rejected at call %d of %d: %s", r.Violation.Op.Seq, r.Violation.Full, r.Violation.Reason)
			if len(r.Violation.History) == 0 {
				t.Error("the violation has no history")
			}
		})
	}
}

func summary(r *Result) string {
	return fmt.Sprintf("%s on %s: %d/%d bound, %d waiting, %d lost, %d double, gated bound %d/%d, %d injected bind failures, %d attempts, %v, trace %d calls (+%d empty nominator reads), adapter errors %d",
		r.Workload, r.Queue, r.Bound, r.Pods, r.Waiting, len(r.Lost), r.DoubleBinds, r.GatedBound, r.Gated, r.InjectedBindFailures, r.Attempts, r.Duration.Round(time.Millisecond), r.TraceOps, r.TraceEmptyReads, r.AdapterErrors)
}

// BenchmarkRealsched runs each workload on both queues, one after the
// other (with -count N the pair repeats N times), and
// reports scheduler_perf's SchedulingThroughput, CPU per pod, the queue's
// share of CPU, the attempt latencies, attempts per pod and, on a real
// server, the scheduler's API calls per pod (by kind with -v). Sizes:
// -realsched.nodes/pods; -realsched.profiles keeps each run's profile.
//
// On a real server every run, the warm-up included, has a kube-apiserver
// and etcd of its own, started before it and torn down after it, as
// scheduler_perf starts one per test case: a server shared by the runs
// keeps each run's events in memory for the runs after it (startEtcd), so
// that a later run pays more for the collector whichever queue it runs.
// One unreported warm-up run first leaves no measured run the process's
// first, and -realsched.first says which queue runs first in each pair,
// so that rounds can alternate it.
func BenchmarkRealsched(b *testing.B) {
	b.Logf("API: %s", backendName())
	if *profilesDir != "" {
		// A directory that cannot be made stops the benchmark before any
		// run, not after the first one.
		if err := os.MkdirAll(*profilesDir, 0o755); err != nil {
			b.Fatalf("-realsched.profiles: %v", err)
		}
	}
	order := []QueueKind{Upstream, Schedq}
	switch *firstFlag {
	case "upstream":
	case "schedq":
		order = []QueueKind{Schedq, Upstream}
	default:
		b.Fatalf("-realsched.first=%q: want upstream or schedq", *firstFlag)
	}
	runs := 0 // the runs of this process, the warm-up first
	if ws := workloads(); startServer != nil && len(ws) > 0 {
		runs++
		if r := runOn(b, Options{Queue: order[1], Workload: ws[0], Timeout: *timeoutFlag}); r.Err != nil {
			b.Fatalf("warm-up run: %v", r.Err)
		}
	}
	for _, w := range workloads() {
		for _, k := range order {
			b.Run(w.Name+"/queue="+string(k), func(b *testing.B) {
				// ns/op is the measured phase (Result.Duration), as in
				// the harness's own lines, not the framework's timing
				// of runOn, which also empties a real server of the
				// previous run's objects (5,000 pods at full size).
				var measured time.Duration
				defer func() { b.ReportMetric(float64(measured.Nanoseconds())/float64(b.N), "ns/op") }()
				for i := 0; i < b.N; i++ {
					r := runOn(b, Options{Queue: k, Workload: w, Profile: !*traceFlag, Trace: *traceFlag, Timeout: *timeoutFlag})
					if ps := r.Problems(); len(ps) > 0 {
						b.Logf("%s: %v", summary(r), ps)
						if r.Violation != nil {
							b.Log(r.Violation.Report())
						}
					}
					reportMetrics(b, r)
					runs++
					b.Logf("run %d of this process: %s/%s %.1f pods/s, process CPU %.2f ms/pod, measured %v",
						runs, r.Workload, r.Queue, r.Throughput, 1000*r.CPUSeconds/float64(max(r.Pods, 1)), r.Duration.Round(time.Millisecond))
					if err := saveProfile(r); err != nil {
						b.Error(err)
					}
					measured += r.Duration
					b.ReportMetric(float64(len(r.Lost)), "lost")
					b.ReportMetric(float64(r.InjectedBindFailures), "bind-failures")
					b.ReportMetric(float64(r.Pods-r.Bound), "unbound")
				}
			})
		}
	}
}

// saved counts the profiles saveProfile wrote per workload and queue, so
// that the framework's repeated calls of a benchmark never overwrite one.
var saved = map[string]int{}

// saveProfile writes r's CPU profile into -realsched.profiles, if set, for
// go tool pprof (e.g. -diff_base of one queue's against the other's).
func saveProfile(r *Result) error {
	if *profilesDir == "" || len(r.CPUProfile) == 0 {
		return nil
	}
	key := r.Workload + "-" + string(r.Queue)
	saved[key]++
	return os.WriteFile(filepath.Join(*profilesDir, fmt.Sprintf("%s-%d.pprof", key, saved[key])), r.CPUProfile, 0o644)
}

// TestAdapterBadInput: nil and unknown objects are refused and counted,
// a panicking preCheck is contained, and nothing panics.
func TestAdapterBadInput(t *testing.T) {
	a, err := NewAdapter(context.Background(), nil, nil, time.Second, 10*time.Second, Correct)
	if err != nil {
		t.Fatal(err)
	}
	logger := klog.Background()
	a.add(nil)
	a.update(nil, nil)
	a.delete(nil)
	a.AddNominatedPod(logger, nil, nil)
	a.DeleteNominatedPodIfExists(nil)
	if err := a.addUnschedulable(nil, 0); err == nil {
		t.Error("AddUnschedulableIfNotPresent(nil) accepted")
	}
	a.Activate(logger, map[string]*v1.Pod{"x": nil})
	if a.Errors() == 0 {
		t.Error("bad input not counted")
	}
	// A pod parked, then a move whose preCheck panics: the pod moves.
	p := Pod("a", 100, 0)
	a.add(p)
	info, err := a.pop()
	if err != nil {
		t.Fatal(err)
	}
	info.UnschedulablePlugins.Insert("NodeResourcesFit")
	before := a.Errors()
	if err := a.addUnschedulable(info, a.SchedulingCycle()-1); err != nil {
		t.Fatal(err)
	}
	a.MoveAllToActiveOrBackoffQueue(logger, clusterEvent{Resource: "*", ActionType: actionAll}, nil, nil, preCheckOn(func(*v1.Pod) bool { panic("boom") }))
	if a.Errors() == before {
		t.Error("the preCheck panic was not counted")
	}
	if got := len(a.PodsInActiveQ()) + len(a.PodsInBackoffQ()); got != 1 {
		t.Errorf("after the move: %d pods in activeQ/backoffQ, want 1", got)
	}
	a.Close()
}

// fakeProfile is a profile with the given PreEnqueue plugins and nothing
// else (the other methods are never called).
type fakeProfile struct {
	upstreamProfile
	pre []preEnqueuePlugin
}

func (f fakeProfile) PreEnqueuePlugins() []preEnqueuePlugin { return f.pre }

// fakePreEnqueue admits every pod, or panics.
type fakePreEnqueue struct {
	name  string
	panic bool
}

func (f fakePreEnqueue) Name() string { return f.name }
func (f fakePreEnqueue) PreEnqueue(context.Context, *v1.Pod) *status {
	if f.panic {
		panic("boom")
	}
	return nil // success
}

// TestPreEnqueueBadInput: the PreEnqueue functions the queue runs under
// its lock never panic: a pod without its *v1.Pod, or with another type,
// and a plugin that panics, are admitted and counted; a pod of another
// profile, or one the plugin admits, is admitted and not counted.
func TestPreEnqueueBadInput(t *testing.T) {
	var bad int
	fns := preEnqueuePlugins(map[string]upstreamProfile{
		v1.DefaultSchedulerName: fakeProfile{pre: []preEnqueuePlugin{fakePreEnqueue{name: "Boom", panic: true}, fakePreEnqueue{name: "Fine"}}},
	}, func(error) { bad++ })
	if len(fns) != 2 {
		t.Fatalf("%d PreEnqueue functions, want 2", len(fns))
	}
	pod := Pod("a", 100, 0)
	other := Pod("b", 100, 0)
	other.Spec.SchedulerName = "other-scheduler"
	for _, c := range []struct {
		name   string
		plugin string
		pod    *spec.Pod
		bad    int
	}{
		{"no object", "Fine", &spec.Pod{Namespace: "ns", Name: "a", UID: "uid-a"}, 1},
		{"wrong type", "Fine", &spec.Pod{Namespace: "ns", Name: "a", UID: "uid-a", Object: "a string"}, 1},
		{"nil *v1.Pod", "Fine", &spec.Pod{Namespace: "ns", Name: "a", UID: "uid-a", Object: (*v1.Pod)(nil)}, 1},
		{"plugin panics", "Boom", specPod(pod), 1},
		{"plugin admits", "Fine", specPod(pod), 0},
		{"another profile", "Boom", specPod(other), 0},
	} {
		bad = 0
		if !fns[c.plugin](c.pod) {
			t.Errorf("%s: refused, want admitted", c.name)
		}
		if bad != c.bad {
			t.Errorf("%s: %d bad inputs counted, want %d", c.name, bad, c.bad)
		}
	}
}

// TestPodChange: v1.33's verdict on the whole objects: status,
// resourceVersion, generation, managedFields and finalizers do not count,
// anything else (a toleration, a gate removed, an annotation) does.
func TestPodChange(t *testing.T) {
	old := Pod("a", 100, 0)
	for _, c := range []struct {
		name string
		edit func(*v1.Pod)
		want bool
	}{
		{"resourceVersion", func(p *v1.Pod) { p.ResourceVersion = "9" }, false},
		{"status", func(p *v1.Pod) {
			p.Status.Conditions = []v1.PodCondition{{Type: v1.PodScheduled, Status: v1.ConditionFalse}}
			p.Status.NominatedNodeName = "n"
		}, false},
		{"generation, finalizers", func(p *v1.Pod) { p.Generation = 3; p.Finalizers = []string{"f"} }, false},
		{"claim status", func(p *v1.Pod) { p.Status.ResourceClaimStatuses = []v1.PodResourceClaimStatus{{Name: "c"}} }, true},
		{"toleration", func(p *v1.Pod) { p.Spec.Tolerations = []v1.Toleration{{Key: "k", Operator: v1.TolerationOpExists}} }, true},
		{"gate removed", func(p *v1.Pod) { p.Spec.SchedulingGates = nil }, true},
		{"annotation", func(p *v1.Pod) { p.Annotations = map[string]string{"a": "b"} }, true},
	} {
		o := old.DeepCopy()
		o.Spec.SchedulingGates = []v1.PodSchedulingGate{{Name: "g"}}
		n := o.DeepCopy()
		c.edit(n)
		if got := podChange(o, n).Relevant; got != c.want {
			t.Errorf("%s: Relevant %v, want %v", c.name, got, c.want)
		}
	}
}

// TestUpdateInFlight: a relevant update of a pod in flight (a toleration
// added while its attempt runs on the old object) sends the pod, when the
// attempt fails, to backoffQ rather than unschedulablePods; an update of
// its status alone does not.
func TestUpdateInFlight(t *testing.T) {
	if hintsProfile {
		t.Skip("the classic profile's workaround: the hints profile records the update for the pod in flight (R9h)")
	}
	for _, c := range []struct {
		name    string
		edit    func(*v1.Pod)
		parked  bool
		breakOn Breakage
	}{
		{"toleration", func(p *v1.Pod) { p.Spec.Tolerations = []v1.Toleration{{Key: "k", Operator: v1.TolerationOpExists}} }, false, Correct},
		{"status only", func(p *v1.Pod) { p.Status.Message = "m" }, true, Correct},
		{"toleration, verdict ignored (mutant)", func(p *v1.Pod) { p.Spec.Tolerations = []v1.Toleration{{Key: "k", Operator: v1.TolerationOpExists}} }, true, IgnoreUpdateVerdict},
	} {
		a, err := NewAdapter(context.Background(), nil, nil, time.Second, 10*time.Second, c.breakOn)
		if err != nil {
			t.Fatal(err)
		}
		p := Pod("a", 100, 0)
		p.ResourceVersion = "1"
		a.add(p)
		info, err := a.pop()
		if err != nil {
			t.Fatal(err)
		}
		cycle := a.SchedulingCycle()
		n := p.DeepCopy()
		n.ResourceVersion = "2"
		c.edit(n)
		a.update(p, n)
		info.PodInfo, _ = newPodInfo(n)
		info.UnschedulablePlugins.Insert("TaintToleration")
		if err := a.addUnschedulable(info, cycle); err != nil {
			t.Fatal(err)
		}
		if parked := len(a.UnschedulablePods()) == 1; parked != c.parked {
			t.Errorf("%s: parked in unschedulablePods %v, want %v (backoffQ %d)", c.name, parked, c.parked, len(a.PodsInBackoffQ()))
		}
		if a.Errors() != 0 {
			t.Errorf("%s: %d adapter errors", c.name, a.Errors())
		}
		a.Close()
	}
}

var (
	porcTimeout = flag.Duration("realsched.porcupine.timeout", time.Minute, "TestPorcupine: porcupine's bound per history (Unknown after it)")
	// Upstream's histories are reported, not judged (R9 makes some of them
	// illegal for the classic model), and a history porcupine cannot decide
	// costs its whole bound in CPU: about a CPU-minute of make test went to
	// upstream's Preemption history ending undecided.
	porcUpstreamTimeout = flag.Duration("realsched.porcupine.upstream-timeout", 10*time.Second, "TestPorcupine: porcupine's bound per history of upstream's queue (at most -realsched.porcupine.timeout)")
	porcAll             = flag.Bool("realsched.porcupine.all", false, "TestPorcupine: every workload (default: Unschedulable and Preemption, unless -realsched.workload names one)")
)

// TestPorcupine runs the workloads (two by default, every one with
// -realsched.porcupine.all) on both queues with the recorder not
// serialising the calls, and checks each history with porcupine against
// the model (the run's config). schedq's histories must be
// linearizable; upstream's are reported (a declared difference of the
// classic profile, R9, shows as a history porcupine rejects), and an
// undecided check (the bound ran out) is reported, never a pass.
func TestPorcupine(t *testing.T) {
	srv := serverFor(t)
	for _, w := range workloads() {
		if !*porcAll && *onlyFlag == "" && w.Name != "Unschedulable" && w.Name != "Preemption" {
			continue // make test's budget: the moves and the nominator
		}
		for _, k := range []QueueKind{Upstream, Schedq} {
			t.Run(w.Name+"/"+string(k), func(t *testing.T) {
				sideBySide(t, srv)
				bound := *porcTimeout
				if k == Upstream {
					bound = min(bound, *porcUpstreamTimeout)
				}
				r := runOn(t, Options{Queue: k, Workload: w, Trace: true, Porcupine: true, PorcupineTimeout: bound, Timeout: 3 * time.Minute, Server: srv})
				t.Log(summary(r))
				for _, p := range r.Problems() {
					t.Error(p)
				}
				if r.Conc == nil {
					t.Fatal("no porcupine result")
				}
				t.Log(r.Conc)
				switch r.Conc.Outcome {
				case porcupine.Illegal:
					if k == Schedq {
						t.Errorf("schedq's history is not linearizable: %s", r.Conc)
					} else {
						t.Logf("upstream's history is not linearizable: %s", r.Conc)
					}
				case porcupine.Unknown:
					t.Logf("undecided within %v", bound)
				}
			})
		}
	}
}

// TestPorcupineRejectsBrokenAdapter: porcupine must reject the history
// of a deliberately broken adapter in the real scheduler.
func TestPorcupineRejectsBrokenAdapter(t *testing.T) {
	for _, c := range []struct {
		b Breakage
		w Workload
	}{
		// Small: a history porcupine rejects is one whose every
		// linearization it has tried, and the broken adapters strand pods
		// that only the final snapshot shows.
		{DropUnschedulable, Unschedulable(10, 40)},
		{SkipMoves, Unschedulable(10, 40)},
	} {
		t.Run(c.b.String(), func(t *testing.T) {
			sideBySide(t, nil)
			r := runOn(t, Options{Queue: Schedq, Workload: c.w, Breakage: c.b, Trace: true, Porcupine: true, PorcupineTimeout: *porcTimeout,
				Timeout: 2 * time.Minute, Settle: 5 * time.Second})
			t.Log(summary(r))
			if r.Conc == nil {
				t.Fatal("no porcupine result")
			}
			t.Log(r.Conc)
			if r.Conc.Outcome != porcupine.Illegal {
				t.Errorf("the history of the %s adapter was not rejected: %s", c.b, r.Conc.Outcome)
			}
		})
	}
}

// TestCallKind: the API-call accounting names requests by verb and
// resource alone, so that calls of one kind add up across pods.
func TestCallKind(t *testing.T) {
	for _, c := range []struct{ method, url, want string }{
		{"POST", "/api/v1/namespaces/ns/pods/p-1/binding", "POST pods/binding"},
		{"PATCH", "/api/v1/namespaces/ns/pods/p-1/status", "PATCH pods/status"},
		{"GET", "/api/v1/pods?watch=true&resourceVersion=5", "WATCH pods"},
		{"GET", "/api/v1/nodes", "GET nodes"},
		{"POST", "/apis/events.k8s.io/v1/namespaces/ns/events", "POST events"},
		{"PUT", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/x", "PUT leases"},
		{"GET", "/api/v1/namespaces/ns", "GET namespaces"},
	} {
		req, err := http.NewRequest(c.method, "https://127.0.0.1"+c.url, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := callKind(req); got != c.want {
			t.Errorf("callKind(%s %s) = %q, want %q", c.method, c.url, got, c.want)
		}
	}
}
