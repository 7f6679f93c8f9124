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
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.etcd.io/etcd/server/v3/embed"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/client-go/rest"
	kubeapiservertesting "k8s.io/kubernetes/cmd/kube-apiserver/app/testing"
)

// etcdServer is one etcd for the test process: each run's API server
// stores under a prefix of its own, so runs never see each other's
// objects (scheduler_perf shares its etcd the same way).
var etcdServer struct {
	once sync.Once
	url  string
	err  error
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// startEtcd starts the embedded etcd once; it lives until the tests end,
// when TestMain stops it and removes its data directory (each run writes
// over 100 MB there, which would pile up in the temporary directory).
func startEtcd() (string, error) {
	etcdServer.once.Do(func() {
		dir, err := os.MkdirTemp("", "realsched-etcd")
		if err != nil {
			etcdServer.err = err
			return
		}
		afterTests = append(afterTests, func() { os.RemoveAll(dir) })
		cp, err := freePort()
		if err != nil {
			etcdServer.err = err
			return
		}
		pp, err := freePort()
		if err != nil {
			etcdServer.err = err
			return
		}
		cfg := embed.NewConfig()
		cfg.Dir = dir
		cfg.Logger = "zap"
		cfg.LogLevel = "error"
		cu, _ := url.Parse(fmt.Sprintf("http://127.0.0.1:%d", cp))
		pu, _ := url.Parse(fmt.Sprintf("http://127.0.0.1:%d", pp))
		cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{*cu}, []url.URL{*cu}
		cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{*pu}, []url.URL{*pu}
		cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
		cfg.QuotaBackendBytes = 8 << 30
		e, err := embed.StartEtcd(cfg)
		if err != nil {
			etcdServer.err = err
			return
		}
		afterTests = append(afterTests, e.Close)
		select {
		case <-e.Server.ReadyNotify():
		case <-time.After(time.Minute):
			e.Close()
			etcdServer.err = fmt.Errorf("etcd not ready within a minute")
			return
		}
		etcdServer.url = cu.String()
	})
	return etcdServer.url, etcdServer.err
}

// startAPIServer starts a kube-apiserver on the process's etcd under a
// fresh prefix; stop tears it down.
func startAPIServer(tb testing.TB) (*rest.Config, func(), error) {
	u, err := startEtcd()
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
		return nil, nil, fmt.Errorf("kube-apiserver: %w", err)
	}
	return srv.ClientConfig, srv.TearDownFn, nil
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
// Order is handled as BenchmarkRealsched handles it: one unreported
// warm-up run (SchedulingBasic at the same size) leaves no measured run a
// pristine server, and the queue that runs first alternates by round, so
// an even count of rounds favours neither.
func TestPreemptionCurve(t *testing.T) {
	if *onlyFlag != "" && *onlyFlag != "Preemption" {
		t.Skip("another workload selected")
	}
	w := Preemption(*nodesFlag, *podsFlag)
	srv := serverFor(t)
	if r := runOn(t, Options{Queue: Schedq, Workload: SchedulingBasic(*nodesFlag, *podsFlag), Timeout: *timeoutFlag, Server: srv}); r.Err != nil {
		t.Fatalf("warm-up run: %v", r.Err)
	}
	for round := 1; round <= *roundsFlag; round++ {
		order := []QueueKind{Upstream, Schedq}
		if round%2 == 0 {
			order = []QueueKind{Schedq, Upstream}
		}
		for _, k := range order {
			t.Run(fmt.Sprintf("%s/round=%d", k, round), func(t *testing.T) {
				r := runOn(t, Options{Queue: k, Workload: w, Profile: true, Timeout: *timeoutFlag, Server: srv})
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
