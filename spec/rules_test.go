package spec_test

import (
	"errors"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/schedq/schedq/spec"
)

func TestR1Add(t *testing.T) {
	runCases(t, spec.R1Add, []ruleCase{
		{"new pod enters activeQ with Timestamp=now and Attempts=0", nil, func(s *subject) {
			s.tick(3 * time.Second)
			s.must(s.add(pod("a", 0)))
			s.expect(places{ActiveQ: []spec.PodKey{key("a")}})
			got := s.info(key("a"))
			if !got.Timestamp.Equal(t0.Add(3*time.Second)) || got.Attempts != 0 || !got.InitialAttemptTimestamp.Equal(got.Timestamp) {
				s.t.Fatalf("got %+v, want Timestamp=InitialAttemptTimestamp=t0+3s, Attempts=0", got)
			}
		}},
		{"re-Add of an unschedulable pod moves a fresh entry to activeQ", nil, func(s *subject) {
			s.park(pod("a", 0), "NodeResourcesFit")
			s.tick(time.Second)
			s.must(s.add(pod("a", 0)))
			s.expect(places{ActiveQ: []spec.PodKey{key("a")}})
			if got := s.info(key("a")); got.Attempts != 0 || !got.Timestamp.Equal(t0.Add(time.Second)) {
				s.t.Fatalf("got %+v, want a fresh entry", got)
			}
		}},
		{"re-Add of a backing-off pod moves it to activeQ", nil, func(s *subject) {
			s.must(s.add(pod("a", 0)))
			p, c := s.pop()
			s.must(s.fail(p, c)) // no plugin: backoffQ
			s.expectIn(spec.InBackoffQ, key("a"))
			s.must(s.add(pod("a", 0)))
			s.expect(places{ActiveQ: []spec.PodKey{key("a")}})
		}},
		{"Add wakes a blocked Pop", nil, func(s *subject) {
			if !s.canBlock {
				s.t.Skip("the sequential model cannot block")
			}
			got := make(chan *spec.QueuedPodInfo)
			go func() {
				p, _, _ := s.q.Pop()
				got <- p
			}()
			s.must(s.q.Add(pod("a", 0)))
			if p := <-got; p == nil || p.Key() != key("a") {
				s.t.Fatalf("blocked Pop returned %v", p)
			}
		}},
	})
}

func TestR2Pop(t *testing.T) {
	runCases(t, spec.R2Pop, []ruleCase{
		{"higher priority first, then earlier Timestamp", nil, func(s *subject) {
			s.must(s.add(pod("low", 1)))
			s.tick(time.Millisecond)
			s.must(s.add(pod("high-late", 10)))
			s.must(s.add(pod("mid", 5)))
			s.tick(time.Millisecond)
			s.must(s.add(pod("high-later", 10)))
			for _, want := range []string{"high-late", "high-later", "mid", "low"} {
				s.popKey(want)
			}
		}},
		{"Pop increments Attempts and schedulingCycle and puts the pod in flight", nil, func(s *subject) {
			s.must(s.add(pod("a", 0)))
			s.must(s.add(pod("b", 0)))
			p, cycle := s.pop()
			if p.Attempts != 1 || cycle != 1 {
				s.t.Fatalf("Attempts=%d cycle=%d, want 1 and 1", p.Attempts, cycle)
			}
			_, cycle = s.pop()
			if cycle != 2 {
				s.t.Fatalf("second Pop: cycle %d, want 2", cycle)
			}
			s.expect(places{InFlight: []spec.PodKey{key("a"), key("b")}})
		}},
		{"Pop clears UnschedulablePlugins of the previous attempt", nil, func(s *subject) {
			s.park(pod("a", 0), "NodeResourcesFit")
			s.moveAll(nodeAdd, nil)
			s.tick(2 * time.Second)
			s.flushBackoffQ()
			p, _ := s.pop()
			if p.Attempts != 2 || len(p.UnschedulablePlugins) != 0 {
				s.t.Fatalf("got %+v, want Attempts=2 and no plugins", p)
			}
		}},
		{"equal pods: any maximal pod is allowed", nil, func(s *subject) {
			s.must(s.add(pod("a", 0)))
			s.must(s.add(pod("b", 0)))
			if got := spec.MaximalPods(s.q.Snapshot().ActiveQ); len(got) != 2 {
				s.t.Fatalf("maximal pods %v, want both", got)
			}
			s.pop() // the invariant I5 checks the choice
			s.pop()
		}},
	})
}

func TestR3AddUnschedulableIfNotPresent(t *testing.T) {
	runCases(t, spec.R3AddUnschedulable, []ruleCase{
		{"failing before any move request parks the pod in unschedulablePods", nil, func(s *subject) {
			s.must(s.add(pod("a", 0)))
			p, cycle := s.pop()
			s.tick(time.Second)
			s.must(s.fail(p, cycle, "NodeResourcesFit"))
			s.expect(places{UnschedulablePods: []spec.PodKey{key("a")}})
			if got := s.info(key("a")); !got.Timestamp.Equal(t0.Add(time.Second)) || got.Attempts != 1 ||
				!slices.Equal(got.UnschedulablePlugins, spec.PluginSet{"NodeResourcesFit"}) {
				s.t.Fatalf("got %+v", got)
			}
		}},
		{"failing in the cycle of a move request takes the shortcut to backoffQ", nil, func(s *subject) {
			s.must(s.add(pod("a", 0)))
			p, cycle := s.pop() // cycle 1
			s.moveAll(nodeAdd, nil)
			s.expectMoveRequestCycle(1)
			s.must(s.fail(p, cycle, "NodeResourcesFit"))
			s.expect(places{BackoffQ: []spec.PodKey{key("a")}})
		}},
		{"a move request in an earlier cycle does not help", nil, func(s *subject) {
			s.must(s.add(pod("a", 0)))
			s.must(s.add(pod("b", 0)))
			pa, ca := s.pop() // cycle 1
			s.moveAll(nodeAdd, nil)
			pb, cb := s.pop() // cycle 2
			s.must(s.fail(pb, cb, "NodeResourcesFit"))
			s.must(s.fail(pa, ca, "NodeResourcesFit")) // stale cycle 1 <= moveRequestCycle 1
			s.expect(places{BackoffQ: []spec.PodKey{key(pa.Pod.Name)}, UnschedulablePods: []spec.PodKey{key(pb.Pod.Name)}})
		}},
		{"a pod no plugin rejected goes to backoffQ", nil, func(s *subject) {
			s.must(s.add(pod("a", 0)))
			p, cycle := s.pop()
			s.must(s.fail(p, cycle))
			s.expect(places{BackoffQ: []spec.PodKey{key("a")}})
		}},
		{"an unknown pod is accepted, as upstream", nil, func(s *subject) {
			s.must(s.fail(&spec.QueuedPodInfo{Pod: pod("x", 0), Attempts: 1}, 0, "NodeResourcesFit"))
			s.expect(places{UnschedulablePods: []spec.PodKey{key("x")}})
		}},
	})
}

func TestR4MoveAllToActiveOrBackoffQueue(t *testing.T) {
	runCases(t, spec.R4MoveAll, []ruleCase{
		{"pods whose rejecting plugin registered the event move; others stay", nil, func(s *subject) {
			s.park(pod("fit", 0), "NodeResourcesFit")
			s.park(pod("taint", 0), "TaintToleration")
			s.tick(2 * time.Second) // both backoffs (1s) completed
			s.moveAll(nodeAdd, nil)
			s.expect(places{ActiveQ: []spec.PodKey{key("fit")}, UnschedulablePods: []spec.PodKey{key("taint")}})
			s.expectMoveRequestCycle(2)
		}},
		{"a pod still backing off goes to backoffQ", nil, func(s *subject) {
			s.park(pod("a", 0), "NodeResourcesFit")
			s.tick(time.Second) // expiry t0+1s == now: still backing off (R7 boundary)
			s.moveAll(nodeAdd, nil)
			s.expect(places{BackoffQ: []spec.PodKey{key("a")}})
		}},
		{"an event no plugin registered for changes nothing, not even moveRequestCycle", nil, func(s *subject) {
			s.park(pod("a", 0), "NodeResourcesFit")
			s.tick(2 * time.Second)
			s.moveAll(pvAdd, nil)
			s.expect(places{UnschedulablePods: []spec.PodKey{key("a")}})
			s.expectMoveRequestCycle(-1)
		}},
		{"an event of interest updates moveRequestCycle even when no pod moves", nil, func(s *subject) {
			s.park(pod("a", 0), "TaintToleration")
			s.moveAll(nodeAdd, nil)
			s.expect(places{UnschedulablePods: []spec.PodKey{key("a")}})
			s.expectMoveRequestCycle(1)
		}},
		{"the wildcard moves every pod", nil, func(s *subject) {
			s.park(pod("a", 0), "TaintToleration")
			s.park(pod("b", 0), "SomeUnregisteredPlugin")
			s.tick(2 * time.Second)
			s.moveAll(spec.WildCardEvent, nil)
			s.expect(places{ActiveQ: []spec.PodKey{key("a"), key("b")}})
		}},
		{"preCheck filters the pods", nil, func(s *subject) {
			s.park(pod("a", 0), "NodeResourcesFit")
			s.park(pod("b", 0), "NodeResourcesFit")
			s.tick(2 * time.Second)
			s.moveAll(nodeAdd, func(p *spec.Pod) bool { return p.Name == "b" })
			s.expect(places{ActiveQ: []spec.PodKey{key("b")}, UnschedulablePods: []spec.PodKey{key("a")}})
		}},
		{"a registered resource matches narrower incoming actions", nil, func(s *subject) {
			s.park(pod("a", 0), "NodeResourcesFit")
			s.tick(2 * time.Second)
			// NodeResourcesFit registered Pod/Delete: an assigned pod's delete matches.
			s.moveAll(spec.ClusterEvent{Resource: spec.ResourceAssignedPod, ActionType: spec.Delete}, nil)
			s.expect(places{ActiveQ: []spec.PodKey{key("a")}})
		}},
	})
}

func TestR5FlushBackoffQCompleted(t *testing.T) {
	runCases(t, spec.R5FlushBackoffQ, []ruleCase{
		{"a pod leaves backoffQ only once now is past its expiry", nil, func(s *subject) {
			s.must(s.add(pod("a", 0)))
			p, c := s.pop()
			s.must(s.fail(p, c)) // backoffQ, expiry t0+1s
			s.tick(999 * time.Millisecond)
			s.flushBackoffQ()
			s.expectIn(spec.InBackoffQ, key("a"))
			s.tick(time.Millisecond) // now == expiry: still backing off
			s.flushBackoffQ()
			s.expectIn(spec.InBackoffQ, key("a"))
			s.tick(time.Nanosecond)
			s.flushBackoffQ()
			s.expect(places{ActiveQ: []spec.PodKey{key("a")}})
		}},
		{"the flush releases every completed pod and keeps the rest", nil, func(s *subject) {
			for _, n := range []string{"a", "b", "c"} {
				s.must(s.add(pod(n, 0)))
			}
			pa := s.popKey("a")
			pb := s.popKey("b")
			pc := s.popKey("c")
			s.must(s.fail(pa, 1))
			s.tick(500 * time.Millisecond)
			s.must(s.fail(pb, 2))
			pc.Attempts = 3 // a third failure backs off 4s
			s.must(s.fail(pc, 3))
			s.tick(time.Second) // now t0+1.5s: a (expiry t0+1s) is done, b's expiry is now, c's t0+4.5s
			s.flushBackoffQ()
			s.expect(places{ActiveQ: []spec.PodKey{key("a")}, BackoffQ: []spec.PodKey{key("b"), key("c")}})
			s.tick(time.Second)
			s.flushBackoffQ()
			s.expect(places{ActiveQ: []spec.PodKey{key("a"), key("b")}, BackoffQ: []spec.PodKey{key("c")}})
		}},
	})
}

func TestR6FlushUnschedulablePodsLeftover(t *testing.T) {
	runCases(t, spec.R6FlushUnschedulable, []ruleCase{
		{"a parked pod leaves after 5 minutes, strictly", nil, func(s *subject) {
			s.park(pod("a", 0), "TaintToleration")
			s.tick(5 * time.Minute)
			s.flushLeftover()
			s.expect(places{UnschedulablePods: []spec.PodKey{key("a")}})
			s.expectMoveRequestCycle(-1)
			s.tick(time.Nanosecond)
			s.flushLeftover()
			s.expect(places{ActiveQ: []spec.PodKey{key("a")}})
			s.expectMoveRequestCycle(1)
		}},
		{"the leftover flush follows the configured limit and still respects backoff", func(c *spec.Config) {
			c.PodMaxInUnschedulablePodsDuration = time.Second
			c.PodInitialBackoffDuration = 10 * time.Second
			c.PodMaxBackoffDuration = 10 * time.Second
		}, func(s *subject) {
			s.park(pod("a", 0), "TaintToleration")
			s.tick(2 * time.Second)
			s.flushLeftover()
			s.expect(places{BackoffQ: []spec.PodKey{key("a")}})
		}},
		{"with no leftover pod, moveRequestCycle is left alone", nil, func(s *subject) {
			s.park(pod("a", 0), "TaintToleration")
			s.tick(time.Minute)
			s.flushLeftover()
			s.expectMoveRequestCycle(-1)
		}},
	})
}

func TestR7Backoff(t *testing.T) {
	cfg := spec.DefaultConfig(nil)
	want := []time.Duration{0, 1, 2, 4, 8, 10, 10}
	for attempts, w := range want {
		if got := cfg.BackoffDuration(attempts); got != w*time.Second {
			t.Errorf("%s: backoff for %d attempts = %v, want %v", spec.R7Backoff, attempts, got, w*time.Second)
		}
	}
	// Doubling must never overflow, whatever the attempts and bounds.
	for _, c := range []struct {
		attempts     int
		initial, max time.Duration
		want         time.Duration
	}{
		{64, time.Second, 10 * time.Second, 10 * time.Second},
		{math.MaxInt, time.Second, 10 * time.Second, 10 * time.Second},
		{63, 1, math.MaxInt64, 1 << 62},
		{64, 1, math.MaxInt64, math.MaxInt64},
		{2, math.MaxInt64 / 2, math.MaxInt64, math.MaxInt64 - 1},
		{3, math.MaxInt64 / 2, math.MaxInt64, math.MaxInt64},
		{-5, time.Second, 10 * time.Second, 0},
	} {
		if got := spec.BackoffDuration(c.attempts, c.initial, c.max); got != c.want {
			t.Errorf("BackoffDuration(%d, %v, %v) = %v, want %v", c.attempts, c.initial, c.max, got, c.want)
		}
	}
	if err := spec.CheckBackoffMonotonic(cfg, 200); err != nil {
		t.Error(err)
	}
	// The expiry boundary: backing off while expiry >= now.
	p := &spec.QueuedPodInfo{Pod: pod("a", 0), Timestamp: t0, Attempts: 1}
	for _, c := range []struct {
		now  time.Time
		want bool
	}{{t0, true}, {t0.Add(time.Second), true}, {t0.Add(time.Second + 1), false}} {
		if got := cfg.IsBackingOff(p, c.now); got != c.want {
			t.Errorf("IsBackingOff at %v = %v, want %v", c.now.Sub(t0), got, c.want)
		}
	}
	if cfg.IsBackingOff(&spec.QueuedPodInfo{Pod: pod("a", 0), Timestamp: t0}, t0) {
		t.Error("a pod never attempted must not back off")
	}
}

func TestR8Activate(t *testing.T) {
	runCases(t, spec.R8Activate, []ruleCase{
		{"pods in unschedulablePods and backoffQ move to activeQ", nil, func(s *subject) {
			s.park(pod("u", 0), "TaintToleration")
			s.must(s.add(pod("b", 0)))
			p, c := s.pop()
			s.must(s.fail(p, c)) // backoffQ, still backing off
			s.must(s.activate(pod("u", 0), pod("b", 0)))
			s.expect(places{ActiveQ: []spec.PodKey{key("b"), key("u")}})
		}},
		{"an in-flight pod sets moveRequestCycle so its failure takes the shortcut", nil, func(s *subject) {
			s.must(s.add(pod("a", 0)))
			p, c := s.pop()
			s.must(s.activate(pod("a", 0)))
			s.expectMoveRequestCycle(1)
			s.must(s.fail(p, c, "TaintToleration"))
			s.expect(places{BackoffQ: []spec.PodKey{key("a")}})
		}},
		{"an unknown pod is not added, but advances moveRequestCycle as upstream", nil, func(s *subject) {
			s.must(s.add(pod("a", 0)))
			s.pop()
			s.must(s.activate(pod("ghost", 0)))
			s.expect(places{InFlight: []spec.PodKey{key("a")}})
			s.expectMoveRequestCycle(1)
		}},
		{"a pod already in activeQ stays", nil, func(s *subject) {
			s.must(s.add(pod("a", 0)))
			s.must(s.activate(pod("a", 0)))
			s.expect(places{ActiveQ: []spec.PodKey{key("a")}})
		}},
	})
}

func TestR9Update(t *testing.T) {
	relabel := func(p *spec.Pod, v string) *spec.Pod {
		q := *p
		q.Labels = map[string]string{"v": v}
		return &q
	}
	touch := func(p *spec.Pod) *spec.Pod {
		q := *p
		q.ResourceVersion += "1"
		q.Status = "PodScheduled=False"
		return &q
	}
	runCases(t, spec.R9Update, []ruleCase{
		{"in activeQ: updated in place, a new priority reorders Pop", nil, func(s *subject) {
			s.must(s.add(pod("a", 0)))
			s.tick(time.Millisecond)
			s.must(s.add(pod("b", 0)))
			s.must(s.update(pod("b", 0), pod("b", 100)))
			if got := s.info(key("b")); got.Pod.Priority != 100 || !got.Timestamp.Equal(t0.Add(time.Millisecond)) {
				s.t.Fatalf("got %+v", got)
			}
			s.popKey("b")
		}},
		{"in backoffQ: updated in place", nil, func(s *subject) {
			s.must(s.add(pod("a", 0)))
			p, c := s.pop()
			s.must(s.fail(p, c))
			s.must(s.update(pod("a", 0), relabel(pod("a", 0), "x")))
			s.expect(places{BackoffQ: []spec.PodKey{key("a")}})
			if s.info(key("a")).Pod.Labels["v"] != "x" {
				s.t.Fatal("backoffQ pod not updated")
			}
		}},
		{"in unschedulablePods: a relevant update moves it, by backoff", nil, func(s *subject) {
			s.park(pod("a", 0), "TaintToleration")
			s.park(pod("b", 0), "TaintToleration")
			s.must(s.update(pod("a", 0), relabel(pod("a", 0), "x"))) // still backing off
			s.tick(2 * time.Second)
			s.must(s.update(pod("b", 0), relabel(pod("b", 0), "x")))
			s.expect(places{ActiveQ: []spec.PodKey{key("b")}, BackoffQ: []spec.PodKey{key("a")}})
			s.expectMoveRequestCycle(-1)
		}},
		{"in unschedulablePods: an irrelevant update keeps it there, updated", nil, func(s *subject) {
			s.park(pod("a", 0), "TaintToleration")
			s.tick(2 * time.Second)
			s.must(s.update(pod("a", 0), touch(pod("a", 0))))
			s.expect(places{UnschedulablePods: []spec.PodKey{key("a")}})
			if s.info(key("a")).Pod.Status == "" {
				s.t.Fatal("unschedulable pod not updated in place")
			}
		}},
		{"an unknown pod is added as by Add", nil, func(s *subject) {
			s.must(s.update(pod("a", 0), touch(pod("a", 0))))
			s.expect(places{ActiveQ: []spec.PodKey{key("a")}})
		}},
		{"an in-flight pod is updated in place and not queued twice", nil, func(s *subject) {
			s.must(s.add(pod("a", 0)))
			s.pop()
			s.must(s.update(pod("a", 0), relabel(pod("a", 0), "x")))
			s.expect(places{InFlight: []spec.PodKey{key("a")}})
		}},
	})
}

func TestR10Delete(t *testing.T) {
	runCases(t, spec.R10Delete, []ruleCase{
		{"from every place", nil, func(s *subject) {
			s.park(pod("u", 0), "TaintToleration")
			s.must(s.add(pod("b", 0)))
			p, c := s.pop()
			s.must(s.fail(p, c))
			s.must(s.add(pod("f", 0)))
			s.pop()
			s.must(s.add(pod("a", 0)))
			s.expect(places{ActiveQ: []spec.PodKey{key("a")}, BackoffQ: []spec.PodKey{key("b")},
				UnschedulablePods: []spec.PodKey{key("u")}, InFlight: []spec.PodKey{key("f")}})
			for _, n := range []string{"a", "b", "u", "f"} {
				s.must(s.delete(pod(n, 0)))
			}
			s.expect(places{})
		}},
	})
}

func TestR11AssignedPodAdded(t *testing.T) {
	affine := func(name string, sel map[string]string) *spec.Pod {
		p := pod(name, 0)
		p.RequiredAffinityTerms = []spec.AffinityTerm{{MatchLabels: sel}}
		return p
	}
	assigned := &spec.Pod{Namespace: "ns", Name: "web-0", UID: "uid-web-0", Labels: map[string]string{"app": "web"}}
	runCases(t, spec.R11AssignedPod, []ruleCase{
		{"pods whose affinity the assigned pod matches move; others stay", nil, func(s *subject) {
			s.park(affine("wants-web", map[string]string{"app": "web"}), "InterPodAffinity")
			s.park(affine("wants-db", map[string]string{"app": "db"}), "InterPodAffinity")
			s.tick(2 * time.Second)
			s.must(s.assignedPodAdded(assigned))
			s.expect(places{ActiveQ: []spec.PodKey{key("wants-web")}, UnschedulablePods: []spec.PodKey{key("wants-db")}})
			s.expectMoveRequestCycle(2)
		}},
		{"PodTopologySpread rejections in the same namespace move", nil, func(s *subject) {
			s.park(pod("spread", 0), spec.PluginPodTopologySpread)
			other := &spec.Pod{Namespace: "other", Name: "x", UID: "uid-x"}
			s.must(s.assignedPodAdded(other))
			s.expect(places{UnschedulablePods: []spec.PodKey{key("spread")}})
			s.must(s.assignedPodAdded(assigned))
			s.expect(places{BackoffQ: []spec.PodKey{key("spread")}})
		}},
		{"a matching pod rejected by a plugin not interested in pod adds stays", nil, func(s *subject) {
			s.park(affine("wants-web", map[string]string{"app": "web"}), "TaintToleration")
			s.must(s.assignedPodAdded(assigned))
			s.expect(places{UnschedulablePods: []spec.PodKey{key("wants-web")}})
		}},
		{"AssignedPodUpdated with a scale-down is a move request over every pod", nil, func(s *subject) {
			s.park(pod("fit", 0), "NodeResourcesFit")
			s.tick(2 * time.Second)
			s.must(s.do(spec.Step{Rule: spec.R11AssignedPod}, func() error {
				return s.q.AssignedPodUpdated(assigned, assigned, spec.ClusterEvent{Resource: spec.ResourceAssignedPod, ActionType: spec.UpdatePodScaleDown})
			}))
			s.expect(places{ActiveQ: []spec.PodKey{key("fit")}})
		}},
	})
}

func TestR12Done(t *testing.T) {
	runCases(t, spec.R12Done, []ruleCase{
		{"ends the time in flight of a bound pod", nil, func(s *subject) {
			s.must(s.add(pod("a", 0)))
			s.pop()
			s.must(s.done("uid-a", key("a")))
			s.expect(places{})
		}},
		{"after a failure the pod is no longer in flight", nil, func(s *subject) {
			s.must(s.add(pod("a", 0)))
			p, c := s.pop()
			s.must(s.fail(p, c, "TaintToleration"))
			s.unchanged(spec.ErrNotInFlight, func() error { return s.q.Done("uid-a") })
		}},
	})
}

func TestR13Close(t *testing.T) {
	runCases(t, spec.R13Close, []ruleCase{
		{"Pop after Close returns ErrClosed even with pods in activeQ", nil, func(s *subject) {
			s.must(s.add(pod("a", 0)))
			s.q.Close()
			s.q.Close() // idempotent
			s.unchanged(spec.ErrClosed, func() error { _, _, err := s.q.Pop(); return err })
			if !s.q.Snapshot().Closed {
				s.t.Fatal("snapshot does not say closed")
			}
		}},
		{"Close unblocks every blocked Pop", nil, func(s *subject) {
			if !s.canBlock {
				s.t.Skip("the sequential model cannot block")
			}
			errs := make(chan error)
			for range 3 {
				go func() { _, _, err := s.q.Pop(); errs <- err }()
			}
			s.q.Close()
			for range 3 {
				if err := <-errs; !errors.Is(err, spec.ErrClosed) {
					s.t.Fatalf("blocked Pop returned %v, want ErrClosed", err)
				}
			}
		}},
	})
}
