package conformance

import (
	"errors"
	"time"

	"github.com/schedq/schedq/spec"
)

// Registry is the plugin -> events registration every scenario runs with:
// NodeResourcesFit wakes on node adds and pod deletes or scale-downs,
// InterPodAffinity on pod adds and label updates, PodTopologySpread on any
// pod event, TaintToleration on node taint updates. Adapters of real queues
// register the same (upstream: WithQueueingHintMapPerProfile).
var Registry = spec.PluginEvents{
	"NodeResourcesFit":  {{Resource: spec.ResourceNode, ActionType: spec.Add}, {Resource: spec.ResourcePod, ActionType: spec.Delete | spec.UpdatePodScaleDown}},
	"InterPodAffinity":  {{Resource: spec.ResourcePod, ActionType: spec.Add | spec.UpdatePodLabel}},
	"PodTopologySpread": {{Resource: spec.ResourcePod, ActionType: spec.All}},
	"TaintToleration":   {{Resource: spec.ResourceNode, ActionType: spec.UpdateNodeTaint}},
}

// Events used by the scenarios.
var (
	NodeAdd   = spec.ClusterEvent{Resource: spec.ResourceNode, ActionType: spec.Add}
	NodeTaint = spec.ClusterEvent{Resource: spec.ResourceNode, ActionType: spec.UpdateNodeTaint}
	// PVAdd is an event no plugin of Registry registered for.
	PVAdd = spec.ClusterEvent{Resource: spec.ResourcePersistentVolume, ActionType: spec.Add}
)

// Profile names of the targets this repository runs.
const (
	ProfileModel              = "schedq-model"
	ProfileImpl               = "schedq-impl"
	ProfileUpstream133Classic = "upstream-v1.33.13-classic"
	ProfileUpstream133Hints   = "upstream-v1.33.13-queueinghints"
	ProfileUpstream137        = "upstream-v1.37.2"
)

var (
	s1  = time.Second
	ms  = time.Millisecond
	ns1 = time.Nanosecond
)

func rules(r ...spec.Rule) []spec.Rule { return r }

func relabel(p *spec.Pod, v string) *spec.Pod {
	q := *p
	q.Labels = map[string]string{"v": v}
	return &q
}

func touch(p *spec.Pod) *spec.Pod {
	q := *p
	q.ResourceVersion += "1"
	q.Status = "PodScheduled=False"
	return &q
}

func affine(name string, sel map[string]string) *spec.Pod {
	p := Pod(name, 0)
	p.RequiredAffinityTerms = []spec.AffinityTerm{{MatchLabels: sel}}
	return p
}

var webPod = &spec.Pod{Namespace: "ns", Name: "web-0", UID: "uid-web-0", Labels: map[string]string{"app": "web"}}

// Scenarios returns the catalogue, in rule order.
func Scenarios() []Scenario {
	return append(append(append(scenariosR1R3(), scenariosR4R7()...), scenariosR8R10()...), scenariosR11R13()...)
}

func scenariosR1R3() []Scenario {
	return []Scenario{
		{Name: "add/new-pod-enters-activeQ", Rules: rules(spec.R1Add), Run: func(h *H) {
			h.MustAdd(Pod("a", 0))
			h.Expect([]string{"a"}, nil, nil, nil)
		}},
		{Name: "add/fields-of-a-new-pod", Rules: rules(spec.R1Add), Run: func(h *H) {
			h.Requires(Observes{PodInfo: true})
			h.Step(3 * s1)
			h.MustAdd(Pod("a", 0))
			got := h.Info("a")
			now := h.Start().Add(3 * s1)
			h.Check(got.Timestamp.Equal(now) && got.Attempts == 0 && got.InitialAttemptTimestamp.Equal(now),
				"got %+v, want Timestamp=InitialAttemptTimestamp=start+3s, Attempts=0", got)
		}},
		{Name: "add/duplicate-of-a-pod-in-activeQ-is-rejected", Rules: rules(spec.R1Add, "I4"), Run: func(h *H) {
			h.MustAdd(Pod("a", 0))
			h.Step(s1)
			h.Unchanged(spec.ErrAlreadyQueued, func() error { return h.Add(Pod("a", 0)) })
		}, KnownDifferences: []KnownDifference{{
			Profiles: []string{ProfileUpstream133Classic, ProfileUpstream133Hints, ProfileUpstream137},
			Reason:   "upstream Add re-inserts the pod into the activeQ heap (AddOrUpdate) with a new Timestamp and zero attempts, and reports nothing",
			Source:   "v1.33.13 pkg/scheduler/backend/queue/scheduling_queue.go:594 (moveToActiveQ adds without looking for the pod in activeQ)",
		}}},
		{Name: "add/of-an-unschedulable-pod-replaces-it-in-activeQ", Rules: rules(spec.R1Add), Run: func(h *H) {
			h.Park(Pod("a", 0), "NodeResourcesFit")
			h.MustAdd(Pod("a", 0))
			h.Expect([]string{"a"}, nil, nil, nil)
		}},
		{Name: "add/of-a-backoff-pod-moves-it-to-activeQ", Rules: rules(spec.R1Add), Run: func(h *H) {
			h.MustAdd(Pod("a", 0))
			p, c := h.Pop()
			h.NoError(h.Fail(p, c))
			h.ExpectIn(spec.InBackoffQ, "a")
			h.MustAdd(Pod("a", 0))
			h.Expect([]string{"a"}, nil, nil, nil)
		}, KnownDifferences: []KnownDifference{{
			Profiles: []string{ProfileUpstream137},
			Reason:   "v1.37 Add no longer takes the pod out of backoffQ: moveToActiveQ now leaves that to its caller and Add assumes a new pod, so an Add of a pod in backoffQ leaves it in both activeQ and backoffQ (I1); v1.33's moveToActiveQ deleted it from backoffQ",
			Source:   "v1.37.2 pkg/scheduler/backend/queue/scheduling_queue.go:894 (addPod -> moveToActiveQ, which deletes the entity from unschedulableEntities only, :834)",
		}}},
		{Name: "add/of-an-in-flight-pod-is-rejected", Rules: rules(spec.R1Add, "I1"), Run: func(h *H) {
			h.MustAdd(Pod("a", 0))
			h.Pop()
			h.Unchanged(spec.ErrAlreadyQueued, func() error { return h.Add(Pod("a", 0)) })
		}, KnownDifferences: []KnownDifference{{
			Profiles: []string{ProfileUpstream133Classic, ProfileUpstream133Hints, ProfileUpstream137},
			Reason:   "Add does not consult the in-flight pods (classic mode does not even track them), so a second Add queues the pod while it is being scheduled (two copies, I1)",
			Source:   "v1.33.13 pkg/scheduler/backend/queue/scheduling_queue.go:594 (moveToActiveQ; in-flight pods are not consulted)",
		}}},
		{Name: "add/nil-or-invalid-pod-is-rejected", Rules: rules(spec.R1Add), Run: func(h *H) {
			h.MustAdd(Pod("a", 0))
			h.Unchanged(spec.ErrNilPod, func() error { return h.Add(nil) })
			h.Unchanged(spec.ErrInvalidPod, func() error { return h.Add(&spec.Pod{Namespace: "ns", UID: "u"}) })
			h.Unchanged(spec.ErrInvalidPod, func() error { return h.Add(&spec.Pod{Namespace: "ns", Name: "x"}) })
		}},
		{Name: "add/wakes-a-blocked-pop", Rules: rules(spec.R1Add, spec.R2Pop), Run: func(h *H) {
			if !h.Profile().Blocking {
				h.NotApplicable("the target's Pop does not block")
			}
			got := make(chan *spec.QueuedPodInfo)
			go func() {
				p, _, _ := h.Target().Pop()
				got <- p
			}()
			// Not h.MustAdd: its invariant check compares snapshots
			// before and after the Add, and the concurrent Pop may
			// complete in between (it does through a process boundary).
			h.logf("Add(ns/a)")
			h.NoError(h.Target().Add(Pod("a", 0)))
			select {
			case p := <-got:
				h.Check(p != nil && p.Key() == Key("a"), "blocked Pop returned %v", p)
			case <-time.After(10 * time.Second):
				h.Check(false, "blocked Pop did not wake within 10s of Add")
			}
		}},
		{Name: "pop/higher-priority-first", Rules: rules(spec.R2Pop, "I5"), Run: func(h *H) {
			h.MustAdd(Pod("low", 1), Pod("high", 10), Pod("mid", 5))
			h.PopKey("high")
			h.PopKey("mid")
			h.PopKey("low")
		}},
		{Name: "pop/earlier-timestamp-first-within-a-priority", Rules: rules(spec.R2Pop, "I5"), Run: func(h *H) {
			h.MustAdd(Pod("b", 0))
			h.Step(ms)
			h.MustAdd(Pod("a", 0))
			h.PopKey("b")
			h.PopKey("a")
		}},
		{Name: "pop/increments-attempts-and-scheduling-cycle", Rules: rules(spec.R2Pop, "I6"), Run: func(h *H) {
			h.MustAdd(Pod("a", 0))
			h.Step(ms)
			h.MustAdd(Pod("b", 0))
			p, c := h.Pop()
			h.Check(p.Attempts == 1 && c == 1, "first Pop: Attempts=%d cycle=%d, want 1, 1", p.Attempts, c)
			_, c = h.Pop()
			h.Check(c == 2, "second Pop: cycle %d, want 2", c)
			h.ExpectSchedulingCycle(2)
			h.Expect(nil, nil, nil, []string{"a", "b"})
		}},
		{Name: "pop/clears-the-previous-rejections", Rules: rules(spec.R2Pop), Run: func(h *H) {
			h.Park(Pod("a", 0), "NodeResourcesFit")
			h.MoveAll(NodeAdd, nil)
			h.Step(2 * s1)
			h.FlushBackoffQ()
			p, _ := h.Pop()
			h.Check(p.Attempts == 2 && len(p.UnschedulablePlugins) == 0, "got %+v, want Attempts=2 and no plugins", p)
		}, KnownDifferences: []KnownDifference{{
			Profiles: []string{ProfileUpstream137},
			Reason:   "v1.37 Pop keeps the rejecting plugins of the previous attempt; the scheduler clears them only when the new attempt fails (handleSchedulingFailure: ClearRejectorPlugins, schedule_one.go:1187), so that a pod that then schedules can still be logged with them",
			Source:   "v1.37.2 pkg/scheduler/backend/queue/active_queue.go:268 (unlockedMoveEntityToInFlight: increments Attempts, leaves UnschedulablePlugins as they were)",
		}}},
		{Name: "pop/ties-may-return-any-maximal-pod", Rules: rules(spec.R2Pop, "I5"), Run: func(h *H) {
			h.MustAdd(Pod("a", 0), Pod("b", 0))
			h.Pop() // Pop checks the result is maximal
			h.Pop()
		}},
		{Name: "pop/after-close-returns-ErrClosed", Rules: rules(spec.R2Pop, spec.R13Close), Run: func(h *H) {
			h.MustAdd(Pod("a", 0))
			h.Target().Close()
			_, _, err := h.Target().Pop()
			h.Check(err != nil && errors.Is(err, spec.ErrClosed), "Pop after Close returned %v, want ErrClosed", err)
		}, KnownDifferences: []KnownDifference{{
			Profiles: []string{ProfileUpstream133Classic, ProfileUpstream133Hints, ProfileUpstream137},
			Reason:   "upstream Pop checks for Close only while activeQ is empty, so it keeps returning pods after Close",
			Source:   "v1.33.13 pkg/scheduler/backend/queue/active_queue.go:257 (unlockedPop: closed is checked only inside the empty-queue loop)",
		}}},
		{Name: "failure/parks-the-pod-without-a-move-request", Rules: rules(spec.R3AddUnschedulable), Run: func(h *H) {
			h.MustAdd(Pod("a", 0))
			p, c := h.Pop()
			h.NoError(h.Fail(p, c, "NodeResourcesFit"))
			h.Expect(nil, nil, []string{"a"}, nil)
		}},
		{Name: "failure/refreshes-the-timestamp", Rules: rules(spec.R3AddUnschedulable), Run: func(h *H) {
			h.Requires(Observes{PodInfo: true})
			h.MustAdd(Pod("a", 0))
			p, c := h.Pop()
			h.Step(s1)
			h.NoError(h.Fail(p, c, "NodeResourcesFit"))
			got := h.Info("a")
			h.Check(got.Timestamp.Equal(h.Start().Add(s1)) && got.Attempts == 1, "got %+v, want Timestamp=start+1s Attempts=1", got)
		}},
		{Name: "failure/in-the-cycle-of-a-move-request-takes-the-shortcut", Rules: rules(spec.R3AddUnschedulable, "I3"), Run: func(h *H) {
			h.MustAdd(Pod("a", 0))
			p, c := h.Pop()
			h.MoveAll(NodeAdd, nil)
			h.ExpectMoveRequestCycle(1)
			h.NoError(h.Fail(p, c, "NodeResourcesFit"))
			h.Expect(nil, []string{"a"}, nil, nil)
		}},
		{Name: "failure/a-move-request-in-an-earlier-cycle-does-not-help", Rules: rules(spec.R3AddUnschedulable, "I3"), Run: func(h *H) {
			h.MustAdd(Pod("a", 0))
			h.Step(ms)
			h.MustAdd(Pod("b", 0))
			pa, ca := h.Pop()
			h.MoveAll(NodeAdd, nil)
			pb, cb := h.Pop()
			h.NoError(h.Fail(pb, cb, "NodeResourcesFit"))
			h.NoError(h.Fail(pa, ca, "NodeResourcesFit"))
			h.Expect(nil, []string{"a"}, []string{"b"}, nil)
		}},
		{Name: "failure/without-rejecting-plugins-goes-to-backoffQ", Rules: rules(spec.R3AddUnschedulable, "I3"), Run: func(h *H) {
			h.MustAdd(Pod("a", 0))
			p, c := h.Pop()
			h.NoError(h.Fail(p, c))
			h.Expect(nil, []string{"a"}, nil, nil)
		}},
		{Name: "failure/of-a-pod-never-popped-is-accepted", Rules: rules(spec.R3AddUnschedulable), Run: func(h *H) {
			h.NoError(h.Fail(&spec.QueuedPodInfo{Pod: Pod("x", 0), Attempts: 1}, 0, "NodeResourcesFit"))
			h.Expect(nil, nil, []string{"x"}, nil)
		}, KnownDifferences: []KnownDifference{{
			Profiles: []string{ProfileUpstream133Hints, ProfileUpstream137},
			Reason:   "with queueing hints a pod that was never popped has no in-flight record, so looking up the events it missed fails and it is requeued after backoff instead of parked",
			Source:   "v1.33.13 pkg/scheduler/backend/queue/scheduling_queue.go:713 (determineSchedulingHintForInFlightPod: clusterEventsForPod error -> queueAfterBackoff)",
		}}},
		{Name: "failure/of-a-pod-already-queued-is-rejected", Rules: rules(spec.R3AddUnschedulable, "I4"), Run: func(h *H) {
			h.Park(Pod("u", 0), "TaintToleration")
			h.MustAdd(Pod("b", 0))
			p, c := h.Pop()
			h.NoError(h.Fail(p, c))
			h.MustAdd(Pod("a", 0))
			for _, n := range []string{"a", "b", "u"} {
				h.Unchanged(spec.ErrAlreadyQueued, func() error {
					return h.Fail(&spec.QueuedPodInfo{Pod: Pod(n, 0), Attempts: 1}, 1, "NodeResourcesFit")
				})
			}
		}},
	}
}
