//go:build v137

package realsched

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler"
	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/latest"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
)

// The re-queue race of upstream v1.37.2 (the one conformance/concurrent
// reproduces): AddUnschedulablePodIfNotPresent puts the pod back in
// activeQ or backoffQ and wakes Pop before its deferred Done; a Pop in that
// window (it holds only the activeQ lock) finds the pod's UID still in
// flight and discards the pod, which is then nowhere: lost. The real
// scheduler calls the failure path from the loop that pops for failures of
// the scheduling cycle, so only a failure of the binding cycle (its own
// goroutine) can meet a Pop, and only if the pod comes back somewhere Pop
// reads: activeQ, or backoffQ's part for pods with rejectors. The runs
// below try each path the issue names, without the trace check (its lock
// serialises the very calls that race), counting the pods lost, the
// attempts of the path, and upstream's own report of a discarded pod.

var (
	raceRuns  = flag.Int("realsched.race.runs", 1, "TestRequeueRace: runs per path and queue")
	racePorc  = flag.Bool("realsched.race.porcupine", false, "TestRequeueRace: record each run unserialised and check it with porcupine")
	racePods  = flag.Int("realsched.race.pods", 400, "TestRequeueRace: pods per run")
	raceNodes = flag.Int("realsched.race.nodes", 20, "TestRequeueRace: nodes per run")
)

// permitReject is a Permit plugin that makes the first attempts of every
// pod labelled permit=reject wait, and rejects it from another goroutine
// after delay: a rejection in the binding cycle with the plugin as the
// rejector. It registers pod adds (no hint: Queue), so a pod bound
// elsewhere while the pod waits is an event recorded for it (R15), and the
// failure requeues it (R3h) instead of parking it.
type permitReject struct {
	h     fwk.Handle
	delay time.Duration
	// times is how many attempts of a pod are rejected (1 if 0): from the
	// second on, the scheduler's status patch says what it said before and
	// is not written, so no update of the pod follows the failure.
	times    int
	mu       sync.Mutex
	seen     map[types.UID]int
	rejected atomic.Int64
}

const permitRejectName = "PermitReject"

func (p *permitReject) Name() string { return permitRejectName }

func (p *permitReject) Permit(_ context.Context, _ fwk.CycleState, pod *v1.Pod, _ string) (*fwk.Status, time.Duration) {
	if pod.Labels["permit"] != "reject" {
		return nil, 0
	}
	p.mu.Lock()
	p.seen[pod.UID]++
	n := p.seen[pod.UID]
	p.mu.Unlock()
	if n > max(p.times, 1) {
		return nil, 0
	}
	uid := pod.UID
	go func() {
		time.Sleep(p.delay)
		if wp := p.h.GetWaitingPod(uid); wp != nil && wp.Reject(permitRejectName, "rejected once by the re-queue race experiment") {
			p.rejected.Add(1)
		}
	}()
	return fwk.NewStatus(fwk.Wait), 30 * time.Second
}

func (p *permitReject) EventsToRegister(context.Context) ([]fwk.ClusterEventWithHint, error) {
	return []fwk.ClusterEventWithHint{{Event: fwk.ClusterEvent{Resource: fwk.Pod, ActionType: fwk.Add}}}, nil
}

// withPermitReject is the default profile plus permitReject at Permit.
func withPermitReject(pl *permitReject) ([]scheduler.Option, error) {
	cfg, err := latest.Default()
	if err != nil {
		return nil, err
	}
	prof := cfg.Profiles[0]
	prof.Plugins.Permit.Enabled = append(prof.Plugins.Permit.Enabled, schedconfig.Plugin{Name: permitRejectName})
	reg := frameworkruntime.Registry{permitRejectName: func(_ context.Context, _ runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
		pl.h = h
		return pl, nil
	}}
	return []scheduler.Option{scheduler.WithProfiles(prof), scheduler.WithFrameworkOutOfTreeRegistry(reg)}, nil
}

// paced creates pods one every pace, so that the scheduling loop is
// mostly parked in Pop when a binding cycle fails; mark labels or fails
// some of them.
func paced(name string, nodes, pods int, pace time.Duration, mark func(i int, p *v1.Pod)) Workload {
	return Workload{Name: name, Nodes: nodes, Pods: pods, Run: func(e *Env) error {
		e.PreloadNodes(0, nodes, int64(max(4, pods/nodes)))
		e.Start()
		for i := 0; i < pods; i++ {
			p := Pod(fmt.Sprintf("p-%d", i), 100, 0)
			if mark != nil {
				mark(i, p)
			}
			e.Must(p)
			if err := e.CreatePod(p); err != nil {
				return err
			}
			time.Sleep(pace)
		}
		return nil
	}}
}

// discards counts upstream's own report of the race ("Discarding the
// popped entity", active_queue.go) through apimachinery's error handlers.
// The entities discarded are kept by name, so that a run can say what
// became of each.
type discardLog struct {
	mu    sync.Mutex
	names []string
}

func (d *discardLog) Load() int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return int64(len(d.names))
}

func (d *discardLog) since(n int64) []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.names[n:]...)
}

var discards = sync.OnceValue(func() *discardLog {
	d := &discardLog{}
	utilruntime.ErrorHandlers = append(utilruntime.ErrorHandlers, func(_ context.Context, err error, msg string, kv ...interface{}) {
		if !strings.Contains(msg, "Discarding the popped") {
			return
		}
		name := "?"
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i] == "entity" {
				name = fmt.Sprint(kv[i+1])
			}
		}
		d.mu.Lock()
		d.names = append(d.names, name)
		d.mu.Unlock()
	})
	return d
})

// TestRequeueRace runs each path to the re-queue race on both queues and
// reports, per path and queue: runs, attempts of the path (binding-cycle
// failures), pods lost, and upstream's discards. It fails if schedq's
// queue loses a pod (impl's failure path is one critical section); a loss
// on upstream's queue is the race found, reported with its count.
func TestRequeueRace(t *testing.T) {
	n, nodes := *racePods, *raceNodes
	type path struct {
		name    string
		options func() (Options, func() int64, error)
	}
	paths := []path{
		{"backoff off, bind failures", func() (Options, func() int64, error) {
			w := paced("BindFailuresNoBackoff", nodes, n, 2*time.Millisecond, nil)
			run := w.Run
			var injected atomic.Int64
			w.Run = func(e *Env) error {
				e.FailBinds(func(p *v1.Pod, attempt int) bool {
					if attempt == 1 && strings.HasSuffix(p.Name, "0") {
						injected.Add(1)
						return true
					}
					return false
				})
				return run(e)
			}
			return Options{Workload: w, NoBackoff: true}, injected.Load, nil
		}},
		{"Permit rejection with an event during binding", func() (Options, func() int64, error) {
			pl := &permitReject{delay: 10 * time.Millisecond, seen: map[types.UID]int{}}
			opts, err := withPermitReject(pl)
			w := paced("PermitReject", nodes, n, 2*time.Millisecond, func(i int, p *v1.Pod) {
				if i%4 == 0 {
					p.Labels["permit"] = "reject"
				}
			})
			return Options{Workload: w, SchedulerOptions: opts}, pl.rejected.Load, err
		}},
		{"Permit rejection with an event during binding, backoff off", func() (Options, func() int64, error) {
			pl := &permitReject{delay: 10 * time.Millisecond, seen: map[types.UID]int{}}
			opts, err := withPermitReject(pl)
			w := paced("PermitRejectNoBackoff", nodes, n, 2*time.Millisecond, func(i int, p *v1.Pod) {
				if i%4 == 0 {
					p.Labels["permit"] = "reject"
				}
			})
			return Options{Workload: w, SchedulerOptions: opts, NoBackoff: true}, pl.rejected.Load, err
		}},
		{"Permit rejection twice with an event during binding, backoff off", func() (Options, func() int64, error) {
			pl := &permitReject{delay: 10 * time.Millisecond, times: 2, seen: map[types.UID]int{}}
			opts, err := withPermitReject(pl)
			w := paced("PermitRejectTwiceNoBackoff", nodes, n, 2*time.Millisecond, func(i int, p *v1.Pod) {
				if i%4 == 0 {
					p.Labels["permit"] = "reject"
				}
			})
			return Options{Workload: w, SchedulerOptions: opts, NoBackoff: true}, pl.rejected.Load, err
		}},
		{"a rejecting plugin with pending events (scheduling cycle: MixedChurn)", func() (Options, func() int64, error) {
			return Options{Workload: MixedChurn(nodes, n)}, func() int64 { return -1 }, nil
		}},
	}
	d := discards()
	for _, p := range paths {
		for _, k := range []QueueKind{Upstream, Schedq} {
			t.Run(p.name+"/"+string(k), func(t *testing.T) {
				var runs, lost, attempts, failures int64
				before := d.Load()
				for i := 0; i < *raceRuns; i++ {
					o, tries, err := p.options()
					if err != nil {
						t.Fatal(err)
					}
					o.Queue, o.Timeout, o.Settle = k, 3*time.Minute, 30*time.Second
					o.Trace, o.Porcupine, o.PorcupineTimeout = *racePorc, *racePorc, *porcTimeout
					n0 := d.Load()
					r := runOn(t, o)
					runs++
					for _, name := range d.since(n0) {
						fate := "bound"
						for _, l := range r.Lost {
							if l == name {
								fate = "LOST"
							}
						}
						t.Logf("run %d: upstream discarded %s as in flight; at quiescence it is %s", i, name, fate)
					}
					lost += int64(len(r.Lost))
					failures += int64(r.InjectedBindFailures)
					attempts += tries()
					if r.Err != nil {
						t.Errorf("run %d: %v", i, r.Err)
					}
					if len(r.Lost) > 0 {
						t.Logf("run %d: %d pods lost: %v", i, len(r.Lost), head(r.Lost, 10))
					}
					t.Log(summary(r))
					if r.Conc != nil {
						t.Logf("run %d: %s", i, r.Conc)
					}
				}
				t.Logf("RACE path=%q queue=%s runs=%d binding-cycle-failures=%d lost=%d upstream-discards=%d",
					p.name, k, runs, max(attempts, failures), lost, d.Load()-before)
				if k == Schedq && lost > 0 {
					t.Errorf("schedq's queue lost %d pods", lost)
				}
			})
		}
	}
}
