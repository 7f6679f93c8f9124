//go:build realapi

package realsched

// The real API server: kube-apiserver (upstream's own test server, the
// release's cmd/kube-apiserver/app/testing) against an etcd embedded in the
// test process, both on loopback and started and stopped by the test. A
// build of its own (the realapi tag) because linking the API server costs
// a cold build of about 12 minutes and 3 GB, which make test must not pay.

import (
	"flag"
	"fmt"
	"net"
	neturl "net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.etcd.io/etcd/server/v3/embed"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/client-go/rest"
	kubeapiservertesting "k8s.io/kubernetes/cmd/kube-apiserver/app/testing"
)

// freePort returns a loopback port free at the time of the call.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// startEtcd starts an embedded etcd of its own for one API server, in a
// new data directory; stop closes it and removes the directory (each run
// writes over 100 MB there).
//
// One etcd and one kube-apiserver per server, not one per process: a
// server that outlives a run keeps that run in memory. Its pods watch
// cache is a ring of up to 102,400 events that drops old ones only when
// it is full, and etcd keeps its raft log in memory up to 100,000
// entries; a run at scheduler_perf's size adds some 21,000 of each. Eight
// SchedulingBasic runs (5,000 pods) on one server grew the live heap from
// 272 to 632 MB and process CPU per pod with it, the collector marking
// the retained events; with the watch cache off it stayed at 100-136 MB
// and flat (docs/realsched.md, "Run order"). scheduler_perf likewise
// starts an API server per test case.
func startEtcd() (url string, stop func(), err error) {
	dir, err := os.MkdirTemp("", "realsched-etcd")
	if err != nil {
		return "", nil, err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(dir)
		}
	}()
	cp, err := freePort()
	if err != nil {
		return "", nil, err
	}
	pp, err := freePort()
	if err != nil {
		return "", nil, err
	}
	cfg := embed.NewConfig()
	cfg.Dir = dir
	cfg.Logger = "zap"
	// etcd logs its own Close at error level (its listeners' serve loops
	// ending), twice per run; a real failure still reaches the test as an
	// error of StartEtcd or of the API server's requests.
	cfg.LogLevel = "panic"
	cu, _ := neturl.Parse(fmt.Sprintf("http://127.0.0.1:%d", cp))
	pu, _ := neturl.Parse(fmt.Sprintf("http://127.0.0.1:%d", pp))
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []neturl.URL{*cu}, []neturl.URL{*cu}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []neturl.URL{*pu}, []neturl.URL{*pu}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.QuotaBackendBytes = 8 << 30
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return "", nil, err
	}
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(time.Minute):
		e.Close()
		return "", nil, fmt.Errorf("etcd not ready within a minute")
	}
	return cu.String(), func() { e.Close(); os.RemoveAll(dir) }, nil
}

// startAPIServer starts a kube-apiserver on an etcd of its own (startEtcd);
// stop tears both down.
func startAPIServer(tb testing.TB) (*rest.Config, func(), error) {
	u, stopEtcd, err := startEtcd()
	if err != nil {
		return nil, nil, fmt.Errorf("etcd: %w", err)
	}
	storage := storagebackend.NewDefaultConfig(path.Join(uuid.New().String(), "registry"), nil)
	storage.Transport.ServerList = []string{u}
	// scheduler_perf's own flags: no endpoint reconciler, and no
	// admission that a cluster without controllers would trip on
	// (ServiceAccount: no token controller; TaintNodesByCondition: every
	// new node tainted not-ready until a node controller lifts it;
	// Priority: a pod's spec.priority without a PriorityClass refused).
	srv, err := kubeapiservertesting.StartTestServer(tb, kubeapiservertesting.NewDefaultTestServerOptions(),
		[]string{"--endpoint-reconciler-type=none", "--disable-admission-plugins=ServiceAccount,TaintNodesByCondition,Priority"}, storage)
	if err != nil {
		stopEtcd()
		return nil, nil, fmt.Errorf("kube-apiserver: %w", err)
	}
	return srv.ClientConfig, func() { srv.TearDownFn(); stopEtcd() }, nil
}

func init() { startServer = startAPIServer }

var (
	roundsFlag = flag.Int("realsched.rounds", 1, "TestPreemptionCurve: rounds (upstream first in odd ones, schedq first in even ones)")
	curveOut   = flag.String("realsched.curve.out", "", "TestPreemptionCurve: a directory for the bound-over-time CSVs (plotted by TestPlotCurves)")
)

// TestPreemptionCurve runs Preemption (-realsched.nodes nodes,
// -realsched.pods victims, half as many preemptors; scheduler_perf's size
// is 500 nodes and 5,000 pods) on the real server, on both queues,
// -realsched.rounds times interleaved, bounded by -realsched.timeout, and
// reports per run: when the preemptors were bound (quartiles), CPU per pod
// (process, scheduler), the queue's share, the order of first attempts and
// retries, and where the scheduler's CPU went.
// It writes each run's bound-over-time curve to -realsched.curve.out.
//
// Runs are set up as BenchmarkRealsched sets them up: each on a
// kube-apiserver and etcd of its own, after one unreported warm-up run
// (SchedulingBasic at the same size), and the queue that runs first
// alternates by round, so an even count of rounds favours neither.
func TestPreemptionCurve(t *testing.T) {
	if *onlyFlag != "" && *onlyFlag != "Preemption" {
		t.Skip("another workload selected")
	}
	w := Preemption(*nodesFlag, *podsFlag)
	if r := runOn(t, Options{Queue: Schedq, Workload: SchedulingBasic(*nodesFlag, *podsFlag), Timeout: *timeoutFlag}); r.Err != nil {
		t.Fatalf("warm-up run: %v", r.Err)
	}
	for round := 1; round <= *roundsFlag; round++ {
		order := []QueueKind{Upstream, Schedq}
		if round%2 == 0 {
			order = []QueueKind{Schedq, Upstream}
		}
		for _, k := range order {
			t.Run(fmt.Sprintf("%s/round=%d", k, round), func(t *testing.T) {
				r := runOn(t, Options{Queue: k, Workload: w, Profile: true, Timeout: *timeoutFlag})
				t.Log(summary(r))
				t.Log(curveReport(r))
				t.Log(attemptOrder(r.Pops))
				for _, f := range topFunctions(r.CPUProfile, 12) {
					t.Log(f)
				}
				for _, p := range r.Problems() {
					t.Error(p)
				}
				if *curveOut != "" {
					name := filepath.Join(*curveOut, fmt.Sprintf("preemption-v%s-%s-%d.csv", strings.TrimPrefix(Release, "v"), k, round))
					if err := writeCurve(name, r); err != nil {
						t.Error(err)
					}
				}
			})
		}
	}
}

// TestFaults runs the fault paths on the real server, both queues, with
// the trace check on: binds refused with 429, 409 and 500; the
// scheduler's watches closed every few seconds (MixedChurn); a
// preemption victim deleted by another client before the scheduler's own
// delete (kubernetes/kubernetes#141694's path). On schedq's queue every
// pod must be bound or accounted for (waiting in the queue, described)
// and none lost; upstream's outcome is reported, per release.
func TestFaults(t *testing.T) {
	nodes, pods := *nodesFlag, *podsFlag
	srv := serverFor(t)
	cases := []struct {
		w      Workload
		faults FaultPlan
		settle time.Duration
	}{
		{bindFailures(nodes, pods, TooManyRequests), FaultPlan{}, 0},
		{bindFailures(nodes, pods, Conflict), FaultPlan{}, 0},
		{bindFailures(nodes, pods, InternalError), FaultPlan{}, 0},
		{MixedChurn(nodes, pods), FaultPlan{WatchRestart: 3 * time.Second}, 0},
		{Unschedulable(nodes, pods), FaultPlan{WatchRestart: 3 * time.Second}, 0},
		// A stranded preemptor waits for the 5-minute leftover flush:
		// 40 s tells a stranding from a slow bind.
		{Preemption(nodes, pods), FaultPlan{VictimGone: true}, 40 * time.Second},
	}
	for _, c := range cases {
		if *onlyFlag != "" && !strings.HasPrefix(c.w.Name, *onlyFlag) {
			continue
		}
		for _, k := range []QueueKind{Upstream, Schedq} {
			t.Run(c.w.Name+"/"+string(k), func(t *testing.T) {
				r := runOn(t, Options{Queue: k, Workload: c.w, Faults: c.faults, Trace: true, Settle: c.settle, Timeout: 3 * time.Minute, Server: srv})
				t.Logf("%s (%s; faults %+v, victims deleted first %d)", summary(r), Release, c.faults, r.VictimsGone)
				for _, key := range head(r.Stranded, 5) {
					t.Logf("waiting at the end: %s", r.Describe(key, 8))
				}
				problems := r.Problems()
				if v := r.Violation; v != nil {
					t.Log(v.Report())
				}
				if k == Upstream {
					for _, p := range problems {
						t.Logf("upstream %s: %s", Release, p)
					}
					return
				}
				if len(r.Lost) > 0 || r.DoubleBinds > 0 || r.Err != nil || r.Violation != nil {
					for _, p := range problems {
						t.Error(p)
					}
				} else if r.Bound != r.Pods {
					t.Logf("schedq: %d of %d bound, the other %d waiting in the queue (accounted for)", r.Bound, r.Pods, len(r.Stranded))
				}
			})
		}
	}
}
