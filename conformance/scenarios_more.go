package conformance

import (
	"time"

	"github.com/schedq/schedq/spec"
)

func scenariosR8R10() []Scenario {
	return []Scenario{
		{Name: "activate/moves-unschedulable-and-backoff-pods-to-activeQ", Rules: rules(spec.R8Activate), Run: func(h *H) {
			h.Park(Pod("u", 0), "TaintToleration")
			h.MustAdd(Pod("b", 0))
			p, c := h.Pop()
			h.NoError(h.Fail(p, c)) // backoffQ, still backing off
			h.NoError(h.Activate(Pod("u", 0), Pod("b", 0)))
			h.Expect([]string{"b", "u"}, nil, nil, nil)
		}},
		{Name: "activate/of-an-in-flight-pod-makes-its-failure-take-the-shortcut", Rules: rules(spec.R8Activate, spec.R3AddUnschedulable, "I3"), Run: func(h *H) {
			h.MustAdd(Pod("a", 0))
			p, c := h.Pop()
			h.NoError(h.Activate(Pod("a", 0)))
			h.ExpectMoveRequestCycle(1)
			h.NoError(h.Fail(p, c, "TaintToleration"))
			h.Expect(nil, []string{"a"}, nil, nil)
		}},
		{Name: "activate/of-an-unknown-pod-adds-nothing", Rules: rules(spec.R8Activate), Run: func(h *H) {
			h.MustAdd(Pod("a", 0))
			h.Pop()
			h.NoError(h.Activate(Pod("ghost", 0)))
			h.Expect(nil, nil, nil, []string{"a"})
		}},
		{Name: "activate/of-a-pod-in-activeQ-leaves-it-there", Rules: rules(spec.R8Activate), Run: func(h *H) {
			h.MustAdd(Pod("a", 0))
			h.NoError(h.Activate(Pod("a", 0)))
			h.Expect([]string{"a"}, nil, nil, nil)
		}},
		{Name: "activate/with-a-nil-pod-changes-nothing", Rules: rules(spec.R8Activate), Run: func(h *H) {
			h.Park(Pod("u", 0), "TaintToleration")
			h.Unchanged(spec.ErrNilPod, func() error { return h.Activate(Pod("u", 0), nil) })
		}},
		{Name: "update/in-activeQ-in-place-and-a-new-priority-reorders", Rules: rules(spec.R9Update), Run: func(h *H) {
			h.MustAdd(Pod("a", 0))
			h.Step(ms)
			h.MustAdd(Pod("b", 0))
			h.NoError(h.Update(Pod("b", 0), Pod("b", 100)))
			h.Expect([]string{"a", "b"}, nil, nil, nil)
			h.PopKey("b")
		}},
		{Name: "update/in-backoffQ-in-place", Rules: rules(spec.R9Update), Run: func(h *H) {
			h.MustAdd(Pod("a", 0))
			p, c := h.Pop()
			h.NoError(h.Fail(p, c))
			h.NoError(h.Update(Pod("a", 0), relabel(Pod("a", 0), "x")))
			h.Expect(nil, []string{"a"}, nil, nil)
			h.Check(h.Info("a").Pod.Labels["v"] == "x", "the pod in backoffQ was not updated")
		}},
		{Name: "update/a-relevant-change-moves-an-unschedulable-pod-by-its-backoff", Rules: rules(spec.R9Update, "I2"), Run: func(h *H) {
			h.Park(Pod("a", 0), "TaintToleration")
			h.Park(Pod("b", 0), "TaintToleration")
			h.NoError(h.Update(Pod("a", 0), relabel(Pod("a", 0), "x"))) // still backing off
			h.Step(2 * s1)
			h.NoError(h.Update(Pod("b", 0), relabel(Pod("b", 0), "x")))
			h.Expect([]string{"b"}, []string{"a"}, nil, nil)
			h.ExpectMoveRequestCycle(-1)
		}, KnownDifferences: []KnownDifference{{
			Profiles: []string{ProfileUpstream133Hints, ProfileUpstream137},
			Reason:   "with queueing hints an update of an unschedulable pod requeues it only if a rejecting plugin registered the matching pod-update event and its hint says Queue; classic mode requeues on any relevant change",
			Source:   "v1.33.13 pkg/scheduler/backend/queue/scheduling_queue.go:968 (Update: isPodWorthRequeuing for the pod-update events)",
		}}},
		{Name: "update/an-irrelevant-change-keeps-an-unschedulable-pod-parked", Rules: rules(spec.R9Update), Run: func(h *H) {
			h.Park(Pod("a", 0), "TaintToleration")
			h.Step(2 * s1)
			h.NoError(h.Update(Pod("a", 0), touch(Pod("a", 0))))
			h.Expect(nil, nil, []string{"a"}, nil)
			h.Check(h.Info("a").Pod.Status != "", "the unschedulable pod was not updated in place")
		}},
		{Name: "update/of-an-unknown-pod-adds-it", Rules: rules(spec.R9Update, spec.R1Add), Run: func(h *H) {
			h.NoError(h.Update(Pod("a", 0), touch(Pod("a", 0))))
			h.Expect([]string{"a"}, nil, nil, nil)
		}},
		{Name: "update/of-an-in-flight-pod-does-not-queue-it-twice", Rules: rules(spec.R9Update, "I1"), Run: func(h *H) {
			h.MustAdd(Pod("a", 0))
			h.Pop()
			h.NoError(h.Update(Pod("a", 0), relabel(Pod("a", 0), "x")))
			h.Expect(nil, nil, nil, []string{"a"})
		}, KnownDifferences: []KnownDifference{{
			Profiles: []string{ProfileUpstream133Classic},
			Reason:   "classic mode does not know the pod is in flight: Update finds it in no queue and adds it to activeQ while it is being scheduled (with queueing hints the update is recorded instead)",
			Source:   "v1.33.13 pkg/scheduler/backend/queue/scheduling_queue.go:1004 (Update: a pod in no queue is added to activeQ)",
		}}},
		{Name: "update/changing-the-key-is-rejected", Rules: rules(spec.R9Update), Run: func(h *H) {
			h.MustAdd(Pod("a", 0))
			h.Unchanged(spec.ErrInvalidPod, func() error { return h.Update(Pod("a", 0), Pod("b", 0)) })
		}},
		{Name: "delete/from-every-place", Rules: rules(spec.R10Delete, "I4"), Run: func(h *H) {
			h.Park(Pod("u", 0), "TaintToleration")
			h.MustAdd(Pod("b", 0))
			p, c := h.Pop()
			h.NoError(h.Fail(p, c))
			h.MustAdd(Pod("f", 0))
			h.Pop()
			h.MustAdd(Pod("a", 0))
			h.Expect([]string{"a"}, []string{"b"}, []string{"u"}, []string{"f"})
			for _, n := range []string{"a", "b", "u"} {
				h.NoError(h.Delete(Pod(n, 0)))
			}
			h.Expect(nil, nil, nil, []string{"f"})
		}},
		{Name: "delete/of-an-in-flight-pod-forgets-it", Rules: rules(spec.R10Delete), Run: func(h *H) {
			h.MustAdd(Pod("f", 0))
			h.Pop()
			h.NoError(h.Delete(Pod("f", 0)))
			h.Expect(nil, nil, nil, nil)
		}},
		{Name: "delete/of-an-unknown-pod-is-an-error", Rules: rules(spec.R10Delete), Run: func(h *H) {
			h.MustAdd(Pod("a", 0))
			h.Unchanged(spec.ErrPodNotFound, func() error { return h.Delete(Pod("ghost", 0)) })
		}},
	}
}

func scenariosR11R13() []Scenario {
	return []Scenario{
		{Name: "assigned/a-pod-whose-affinity-matches-moves", Rules: rules(spec.R11AssignedPod), Run: func(h *H) {
			h.Park(affine("wants-web", map[string]string{"app": "web"}), "InterPodAffinity")
			h.Park(affine("wants-db", map[string]string{"app": "db"}), "InterPodAffinity")
			h.Step(2 * s1)
			h.NoError(h.AssignedPodAdded(webPod))
			h.Expect([]string{"wants-web"}, nil, []string{"wants-db"}, nil)
			h.ExpectMoveRequestCycle(2)
		}, KnownDifferences: []KnownDifference{{
			Profiles: []string{ProfileUpstream137},
			Reason:   "v1.37 has no AssignedPodAdded and no affinity pre-filter (getUnschedulablePodsWithCrossTopologyTerm is gone): the scheduler raises AssignedPodAdd through MoveAllToActiveOrBackoffQueue and leaves the matching to InterPodAffinity's queueing hint, so with hints that say Queue (the default for a plugin without one) every pod InterPodAffinity rejected moves",
			Source:   "v1.37.2 pkg/scheduler/backend/queue/scheduling_queue.go:1808 (moveAllToActiveOrBackoffQueue: no pre-filter; called for AssignedPodAdd by eventhandlers.go:411)",
		}}},
		{Name: "assigned/a-match-rejected-by-an-uninterested-plugin-stays", Rules: rules(spec.R11AssignedPod), Run: func(h *H) {
			h.Park(affine("wants-web", map[string]string{"app": "web"}), "TaintToleration")
			h.Step(2 * s1)
			h.NoError(h.AssignedPodAdded(webPod))
			h.Expect(nil, nil, []string{"wants-web"}, nil)
		}},
		{Name: "assigned/topology-spread-rejections-in-the-namespace-move", Rules: rules(spec.R11AssignedPod), Run: func(h *H) {
			h.Park(Pod("spread", 0), spec.PluginPodTopologySpread)
			h.NoError(h.AssignedPodAdded(&spec.Pod{Namespace: "other", Name: "x", UID: "uid-x"}))
			h.Expect(nil, nil, []string{"spread"}, nil)
			h.NoError(h.AssignedPodAdded(webPod))
			h.Expect(nil, []string{"spread"}, nil, nil)
		}, KnownDifferences: []KnownDifference{{
			Profiles: []string{ProfileUpstream137},
			Reason:   "v1.37 has no AssignedPodAdded and no same-namespace pre-filter for PodTopologySpread rejections: an assigned pod in any namespace requeues them, unless the plugin's own queueing hint says QueueSkip (with hints that say Queue, the default for a plugin without one, it moves)",
			Source:   "v1.37.2 pkg/scheduler/backend/queue/scheduling_queue.go:1808 (moveAllToActiveOrBackoffQueue: no pre-filter; called for AssignedPodAdd by eventhandlers.go:411)",
		}}},
		{Name: "assigned/an-update-that-scales-down-moves-every-interested-pod", Rules: rules(spec.R11AssignedPod, spec.R4MoveAll), Run: func(h *H) {
			h.Park(Pod("fit", 0), "NodeResourcesFit")
			h.Step(2 * s1)
			h.NoError(h.AssignedPodUpdated(webPod, webPod, spec.ClusterEvent{Resource: spec.ResourceAssignedPod, ActionType: spec.UpdatePodScaleDown}))
			h.Expect([]string{"fit"}, nil, nil, nil)
		}},
		{Name: "assigned/a-label-update-moves-matching-pods-only", Rules: rules(spec.R11AssignedPod), Run: func(h *H) {
			h.Park(affine("wants-web", map[string]string{"app": "web"}), "InterPodAffinity")
			h.Park(Pod("fit", 0), "NodeResourcesFit")
			h.Step(2 * s1)
			old := &spec.Pod{Namespace: "ns", Name: "web-0", UID: "uid-web-0"}
			h.NoError(h.AssignedPodUpdated(old, webPod, spec.ClusterEvent{Resource: spec.ResourceAssignedPod, ActionType: spec.UpdatePodLabel}))
			h.Expect([]string{"wants-web"}, nil, []string{"fit"}, nil)
		}},
		{Name: "done/ends-the-time-in-flight", Rules: rules(spec.R12Done), Run: func(h *H) {
			h.MustAdd(Pod("a", 0))
			h.Pop()
			h.NoError(h.Done("uid-a"))
			h.Expect(nil, nil, nil, nil)
		}},
		{Name: "done/of-an-unknown-uid-changes-nothing", Rules: rules(spec.R12Done), Run: func(h *H) {
			h.MustAdd(Pod("a", 0))
			h.Pop()
			h.Unchanged(spec.ErrNotInFlight, func() error { return h.Done("uid-ghost") })
		}},
		{Name: "done/after-a-failure-changes-nothing", Rules: rules(spec.R12Done, spec.R3AddUnschedulable), Run: func(h *H) {
			h.MustAdd(Pod("a", 0))
			p, c := h.Pop()
			h.NoError(h.Fail(p, c, "TaintToleration"))
			h.Unchanged(spec.ErrNotInFlight, func() error { return h.Done("uid-a") })
		}},
		{Name: "close/unblocks-every-blocked-pop", Rules: rules(spec.R13Close, spec.R2Pop), Run: func(h *H) {
			if !h.Profile().Blocking {
				h.NotApplicable("the target's Pop does not block")
			}
			errs := make(chan error, 3)
			for range 3 {
				go func() { _, _, err := h.Target().Pop(); errs <- err }()
			}
			time.Sleep(10 * ms) // let them block; the outcome does not depend on it
			h.Target().Close()
			for range 3 {
				select {
				case err := <-errs:
					h.Check(err != nil, "a blocked Pop returned no error after Close")
				case <-time.After(10 * time.Second):
					h.Check(false, "a blocked Pop was still blocked 10s after Close")
				}
			}
		}},
		{Name: "close/is-idempotent-and-observable", Rules: rules(spec.R13Close), Run: func(h *H) {
			h.Target().Close()
			h.Target().Close()
			h.Requires(Observes{Closed: true})
			h.Check(h.Target().Snapshot().Closed, "Snapshot does not say closed")
		}, KnownDifferences: []KnownDifference{{
			Profiles: []string{ProfileUpstream133Classic, ProfileUpstream133Hints, ProfileUpstream137},
			Reason:   "upstream Close closes its stop channel unconditionally, so a second Close panics (close of closed channel)",
			Source:   "v1.33.13 pkg/scheduler/backend/queue/scheduling_queue.go:1292 (Close: close(p.stop))",
		}}},
	}
}
