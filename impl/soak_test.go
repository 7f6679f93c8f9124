package impl_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/schedq/schedq/impl"
	"github.com/schedq/schedq/spec"
)

// soakDuration bounds TestSoak: a few seconds in `make test`, as long as
// wanted in `make soak` (DURATION).
var soakDuration = flag.Duration("soak.duration", 2*time.Second, "how long TestSoak runs")

// soakErrors are the errors a valid operation may return under
// concurrency: another goroutine got there first.
var soakErrors = []error{spec.ErrAlreadyQueued, spec.ErrPodNotFound, spec.ErrNotInFlight, spec.ErrClosed, context.DeadlineExceeded, context.Canceled}

// TestSoak runs every operation of the queue from many goroutines at once
// on the real clock, its flushes running every millisecond: pods re-added
// under new UIDs, deleted while in flight, failed by interned and by
// one-off plugin sets, moved by events with minted labels and by preChecks
// that panic. A checker verifies the implementation's internal consistency
// (CheckConsistency) and the state invariants I1-I6 (spec.CheckState) of
// snapshots all along; at the end every pod is deleted and the queue must
// hold and index nothing. The scenario of a failure is the seed and the
// operation counts it prints; rerun with -soak.duration to go longer.
func TestSoak(t *testing.T) {
	cfg := spec.Config{
		PodInitialBackoffDuration:         time.Millisecond,
		PodMaxBackoffDuration:             4 * time.Millisecond,
		PodMaxInUnschedulablePodsDuration: 5 * time.Millisecond,
		BackoffQFlushPeriod:               spec.MinFlushPeriod,
		UnschedulablePodsFlushPeriod:      2 * spec.MinFlushPeriod,
		PluginEvents: spec.PluginEvents{
			"NodeFit":     {{Resource: spec.ResourceNode, ActionType: spec.All}},
			"PodAffinity": {{Resource: spec.ResourcePod, ActionType: spec.Add | spec.UpdatePodLabel}},
			"Spread":      {{Resource: spec.ResourcePod, ActionType: spec.All}},
		},
	}
	q, err := impl.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	ctx, stopRun := context.WithCancel(context.Background())
	defer stopRun()
	q.RunContext(ctx)

	const names, workers = 300, 6
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d, %v", seed, *soakDuration)
	var generation [names]atomic.Int64
	mkPod := func(r *rand.Rand, i int) *spec.Pod {
		g := generation[i].Add(1)
		p := &spec.Pod{
			Namespace: fmt.Sprint("ns-", i%7),
			Name:      fmt.Sprint("p-", i),
			UID:       spec.UID(fmt.Sprintf("u-%d-%d", i, g)),
			Priority:  r.Int32N(5),
		}
		if r.IntN(4) == 0 {
			p.Labels = map[string]string{"app": fmt.Sprint(r.IntN(3))}
		}
		if r.IntN(8) == 0 {
			p.RequiredAffinityTerms = []spec.AffinityTerm{{MatchLabels: map[string]string{"app": "0"}}}
		}
		return p
	}
	var (
		wg      sync.WaitGroup
		ops     atomic.Int64
		checks  atomic.Int64
		failed  atomic.Bool
		stop    = make(chan struct{})
		timeout = time.After(*soakDuration)
	)
	fail := func(format string, args ...any) {
		if failed.CompareAndSwap(false, true) {
			t.Errorf("seed %d after %d operations: "+format, append([]any{seed, ops.Load()}, args...)...)
			close(stop)
		}
	}
	allowed := func(op string, err error) {
		if err == nil {
			return
		}
		for _, ok := range soakErrors {
			if errors.Is(err, ok) {
				return
			}
		}
		fail("%s of a valid pod: unexpected error %v", op, err)
	}
	events := []spec.ClusterEvent{
		{Resource: spec.ResourceNode, ActionType: spec.Add},
		{Resource: spec.ResourcePod, ActionType: spec.Add},
		{Resource: spec.ResourcePod, ActionType: spec.UpdatePodLabel},
		spec.WildCardEvent,
	}
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, uint64(w)))
			for {
				select {
				case <-stop:
					return
				default:
				}
				ops.Add(1)
				i := r.IntN(names)
				switch op := r.IntN(100); {
				case op < 25:
					allowed("Add", q.Add(mkPod(r, i)))
				case op < 55:
					pctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
					p, cycle, err := q.PopContext(pctx)
					cancel()
					allowed("PopContext", err)
					if err != nil {
						continue
					}
					switch r.IntN(5) {
					case 0:
						allowed("Done", q.Done(p.Pod.UID))
					case 1:
						allowed("Delete in flight", q.Delete(p.Pod))
					default:
						switch r.IntN(4) {
						case 0:
							p.UnschedulablePlugins = spec.NewPluginSet("NodeFit")
						case 1:
							p.UnschedulablePlugins = spec.NewPluginSet("PodAffinity", "Spread")
						case 2:
							// A set of its own: interned up to the bound, then private.
							p.UnschedulablePlugins = spec.NewPluginSet("NodeFit", fmt.Sprint("x-", r.IntN(2000)))
						}
						allowed("AddUnschedulableIfNotPresent", q.AddUnschedulableIfNotPresent(p, cycle))
					}
				case op < 63:
					old := mkPod(r, i)
					nw := *old
					nw.Priority = r.Int32N(5)
					nw.Labels = map[string]string{"app": fmt.Sprint(r.IntN(3))}
					allowed("Update", q.Update(old, &nw))
				case op < 70:
					allowed("Delete", q.Delete(mkPod(r, i)))
				case op < 75:
					allowed("Activate", q.Activate([]*spec.Pod{mkPod(r, i), mkPod(r, r.IntN(names))}))
				case op < 85:
					ev := events[r.IntN(len(events))]
					if r.IntN(4) == 0 {
						ev.Label = fmt.Sprint("minted-", r.IntN(400)) // past MaxEventLabels
					}
					panicAt := -1
					if r.IntN(10) == 0 {
						panicAt = r.IntN(3)
					}
					calls := 0
					func() {
						defer func() {
							if rec := recover(); rec != nil && rec != "soak preCheck" {
								fail("MoveAllToActiveOrBackoffQueue panicked with %v", rec)
							}
						}()
						q.MoveAllToActiveOrBackoffQueue(ev, func(p *spec.Pod) bool {
							if calls == panicAt {
								panic("soak preCheck")
							}
							calls++
							return p.Priority%2 == 0 || r.IntN(2) == 0
						})
					}()
				case op < 90:
					allowed("AssignedPodAdded", q.AssignedPodAdded(&spec.Pod{Namespace: fmt.Sprint("ns-", r.IntN(7)), Name: "node-pod", UID: "assigned", Labels: map[string]string{"app": "0"}}))
				case op < 93:
					allowed("AssignedPodUpdated", q.AssignedPodUpdated(nil, &spec.Pod{Namespace: "ns-0", Name: "node-pod", UID: "assigned"}, spec.ClusterEvent{Resource: spec.ResourcePod, ActionType: spec.UpdatePodScaleDown}))
				default:
					_ = q.Metrics()
				}
			}
		}()
	}
	wg.Add(1)
	go func() { // the checker
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			case <-timeout:
				close(stop)
				return
			case <-time.After(5 * time.Millisecond):
			}
			checks.Add(1)
			if err := q.CheckConsistency(); err != nil {
				fail("the implementation's structures disagree:\n%v", err)
				return
			}
			s := q.Snapshot()
			if err := spec.CheckState(&s); err != nil {
				fail("invariant broken in a snapshot: %v", err)
				return
			}
		}
	}()
	wg.Wait()
	if t.Failed() {
		return
	}
	stopRun()
	// Quiescence: everything consistent, then every pod deleted, and a
	// queue that holds nothing indexes nothing.
	if err := q.CheckConsistency(); err != nil {
		t.Fatalf("at quiescence: %v", err)
	}
	held, heldMetrics := q.Snapshot(), q.Metrics().PendingPods
	for _, pl := range held.Places() {
		for _, p := range pl.Pods {
			if err := q.Delete(p.Pod); err != nil {
				t.Fatalf("Delete of %s, held in %s: %v", p.Key(), pl.Loc, err)
			}
		}
	}
	if s := q.Snapshot(); s.Len() != 0 {
		t.Fatalf("%d pods held after deleting every pod", s.Len())
	}
	if err := q.CheckConsistency(); err != nil {
		t.Fatalf("after deleting every pod: %v", err)
	}
	t.Logf("%d operations, %d consistency checks, %d pods held at the end, metrics %v", ops.Load(), checks.Load(), held.Len(), heldMetrics)
	if checks.Load() == 0 || ops.Load() < 1000 {
		t.Fatalf("the soak did too little to mean anything: %d operations, %d checks", ops.Load(), checks.Load())
	}
}
