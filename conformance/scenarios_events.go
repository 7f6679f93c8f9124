package conformance

import (
	"time"

	"github.com/schedq/schedq/spec"
)

func scenariosR4R7() []Scenario {
	return []Scenario{
		{Name: "move/pods-rejected-by-an-interested-plugin-move-others-stay", Rules: rules(spec.R4MoveAll), Run: func(h *H) {
			h.Park(Pod("fit", 0), "NodeResourcesFit")
			h.Park(Pod("taint", 0), "TaintToleration")
			h.Step(2 * s1)
			h.MoveAll(NodeAdd, nil)
			h.Expect([]string{"fit"}, nil, []string{"taint"}, nil)
			h.ExpectMoveRequestCycle(2)
		}},
		{Name: "move/a-pod-whose-expiry-is-now-goes-to-backoffQ", Rules: rules(spec.R4MoveAll, spec.R7Backoff), Run: func(h *H) {
			h.Park(Pod("a", 0), "NodeResourcesFit")
			h.Step(s1) // expiry start+1s == now: still backing off
			h.MoveAll(NodeAdd, nil)
			h.Expect(nil, []string{"a"}, nil, nil)
		}},
		{Name: "move/a-pod-past-its-backoff-goes-to-activeQ", Rules: rules(spec.R4MoveAll, spec.R7Backoff), Run: func(h *H) {
			h.Park(Pod("a", 0), "NodeResourcesFit")
			h.Step(s1 + ns1)
			h.MoveAll(NodeAdd, nil)
			h.Expect([]string{"a"}, nil, nil, nil)
		}, KnownDifferences: []KnownDifference{{
			Profiles: []string{ProfileUpstream133Hints, ProfileUpstream137},
			Reason:   "with SchedulerPopFromBackoffQ, backoff expiries and now are truncated to 1s windows (alignToWindow), so a pod leaves backoffQ at the first window boundary after its expiry, not 1ns after",
			Source:   "v1.33.13 pkg/scheduler/backend/queue/backoff_queue.go:138 (alignToWindow) and :209 (isPodBackingoff)",
		}}},
		{Name: "move/an-event-no-plugin-registered-changes-nothing", Rules: rules(spec.R4MoveAll, "I3"), Run: func(h *H) {
			h.Park(Pod("a", 0), "NodeResourcesFit")
			h.MustAdd(Pod("b", 0))
			pb, cb := h.Pop()
			h.Step(2 * s1)
			h.MoveAll(PVAdd, nil)
			h.ExpectMoveRequestCycle(-1)
			// Not a move request: b, in flight during it, is parked.
			h.NoError(h.Fail(pb, cb, "NodeResourcesFit"))
			h.Expect(nil, nil, []string{"a", "b"}, nil)
		}},
		{Name: "move/an-event-of-interest-is-a-move-request-even-if-no-pod-moves", Rules: rules(spec.R4MoveAll, "I3"), Run: func(h *H) {
			h.MustAdd(Pod("a", 0))
			p, c := h.Pop()
			h.MoveAll(NodeAdd, nil) // nothing is unschedulable
			h.ExpectMoveRequestCycle(1)
			h.NoError(h.Fail(p, c, "TaintToleration"))
			h.Expect(nil, []string{"a"}, nil, nil)
		}, KnownDifferences: []KnownDifference{{
			Profiles: []string{ProfileUpstream133Hints, ProfileUpstream137},
			Reason:   "with queueing hints a failed pod is requeued only for events that happened while it was in flight and that one of its rejecting plugins registered; moveRequestCycle is not consulted",
			Source:   "v1.33.13 pkg/scheduler/backend/queue/scheduling_queue.go:823 (AddUnschedulableIfNotPresent -> determineSchedulingHintForInFlightPod)",
		}}},
		{Name: "move/the-wildcard-moves-every-pod", Rules: rules(spec.R4MoveAll), Run: func(h *H) {
			h.Park(Pod("a", 0), "TaintToleration")
			h.Park(Pod("b", 0), "UnregisteredPlugin")
			h.Step(2 * s1)
			h.MoveAll(spec.WildCardEvent, nil)
			h.Expect([]string{"a", "b"}, nil, nil, nil)
		}},
		{Name: "move/preCheck-filters-the-pods", Rules: rules(spec.R4MoveAll), Run: func(h *H) {
			h.Park(Pod("a", 0), "NodeResourcesFit")
			h.Park(Pod("b", 0), "NodeResourcesFit")
			h.Step(2 * s1)
			h.MoveAll(NodeAdd, func(p *spec.Pod) bool { return p.Name == "b" })
			h.Expect([]string{"b"}, nil, []string{"a"}, nil)
		}},
		{Name: "move/a-registered-pod-event-matches-assigned-pod-events", Rules: rules(spec.R4MoveAll), Run: func(h *H) {
			h.Park(Pod("a", 0), "NodeResourcesFit")
			h.Step(2 * s1)
			h.MoveAll(spec.ClusterEvent{Resource: spec.ResourceAssignedPod, ActionType: spec.Delete}, nil)
			h.Expect([]string{"a"}, nil, nil, nil)
		}},
		{Name: "move/a-pod-rejected-by-a-plugin-not-interested-stays", Rules: rules(spec.R4MoveAll), Run: func(h *H) {
			h.Park(Pod("a", 0), "TaintToleration")
			h.Step(2 * s1)
			h.MoveAll(NodeAdd, nil)
			h.Expect(nil, nil, []string{"a"}, nil)
		}},
		{Name: "backoff-flush/releases-a-pod-only-past-its-expiry", Rules: rules(spec.R5FlushBackoffQ, spec.R7Backoff, "I2"), Run: func(h *H) {
			h.MustAdd(Pod("a", 0))
			p, c := h.Pop()
			h.NoError(h.Fail(p, c)) // backoffQ, expiry start+1s
			h.Step(999 * ms)
			h.FlushBackoffQ()
			h.ExpectIn(spec.InBackoffQ, "a")
			h.Step(ms) // now == expiry: still backing off
			h.FlushBackoffQ()
			h.ExpectIn(spec.InBackoffQ, "a")
			h.Step(ns1)
			h.FlushBackoffQ()
			h.Expect([]string{"a"}, nil, nil, nil)
		}, KnownDifferences: []KnownDifference{{
			Profiles: []string{ProfileUpstream133Hints, ProfileUpstream137},
			Reason:   "with SchedulerPopFromBackoffQ, backoff expiries and now are truncated to 1s windows (alignToWindow), so a pod leaves backoffQ at the first window boundary after its expiry, not 1ns after",
			Source:   "v1.33.13 pkg/scheduler/backend/queue/backoff_queue.go:138 (alignToWindow) and :209 (isPodBackingoff)",
		}}},
		{Name: "backoff-flush/releases-every-completed-pod-and-keeps-the-rest", Rules: rules(spec.R5FlushBackoffQ, "I2"), Run: func(h *H) {
			h.MustAdd(Pod("a", 0))
			h.Step(ms)
			h.MustAdd(Pod("b", 0))
			pa, ca := h.Pop()
			pb, cb := h.Pop()
			h.NoError(h.Fail(pa, ca))
			h.Step(500 * ms)
			h.NoError(h.Fail(pb, cb))
			h.Step(s1) // a's expiry passed, b's is now
			h.FlushBackoffQ()
			h.Expect([]string{"a"}, []string{"b"}, nil, nil)
			h.Step(s1)
			h.FlushBackoffQ()
			h.Expect([]string{"a", "b"}, nil, nil, nil)
		}, KnownDifferences: []KnownDifference{{
			Profiles: []string{ProfileUpstream133Hints, ProfileUpstream137},
			Reason:   "with SchedulerPopFromBackoffQ, backoff expiries and now are truncated to 1s windows (alignToWindow), so a pod leaves backoffQ at the first window boundary after its expiry, not 1ns after",
			Source:   "v1.33.13 pkg/scheduler/backend/queue/backoff_queue.go:138 (alignToWindow) and :209 (isPodBackingoff)",
		}}},
		{Name: "backoff/doubles-from-1s-and-caps-at-10s", Rules: rules(spec.R7Backoff, spec.R5FlushBackoffQ, "I2"), Run: func(h *H) {
			h.MustAdd(Pod("a", 0))
			for attempt, want := range []time.Duration{1, 2, 4, 8, 10, 10} {
				p, c := h.Pop()
				h.Check(p.Attempts == attempt+1, "attempt %d: Attempts=%d", attempt+1, p.Attempts)
				h.NoError(h.Fail(p, c)) // no plugin: backoffQ
				h.Step(want * s1)
				h.FlushBackoffQ()
				h.Check(len(h.Target().Snapshot().BackoffQ) == 1, "attempt %d: left backoffQ before its %v backoff ended", attempt+1, want*s1)
				h.Step(ns1)
				h.FlushBackoffQ()
				h.Check(len(h.Target().Snapshot().ActiveQ) == 1, "attempt %d: still in backoffQ after its %v backoff", attempt+1, want*s1)
			}
		}, KnownDifferences: []KnownDifference{{
			Profiles: []string{ProfileUpstream133Hints, ProfileUpstream137},
			Reason:   "with SchedulerPopFromBackoffQ, backoff expiries and now are truncated to 1s windows (alignToWindow), so a pod leaves backoffQ at the first window boundary after its expiry, not 1ns after",
			Source:   "v1.33.13 pkg/scheduler/backend/queue/backoff_queue.go:138 (alignToWindow) and :209 (isPodBackingoff)",
		}}},
		{Name: "leftover/a-parked-pod-leaves-after-5-minutes-strictly", Rules: rules(spec.R6FlushUnschedulable), Run: func(h *H) {
			h.Park(Pod("a", 0), "TaintToleration")
			h.Step(5 * time.Minute)
			h.FlushLeftover()
			h.Expect(nil, nil, []string{"a"}, nil)
			h.Step(ns1)
			h.FlushLeftover()
			h.Expect([]string{"a"}, nil, nil, nil)
			h.ExpectMoveRequestCycle(1)
		}},
		{Name: "leftover/a-pod-still-backing-off-goes-to-backoffQ", Rules: rules(spec.R6FlushUnschedulable, spec.R7Backoff), Config: func(c *spec.Config) {
			c.PodMaxInUnschedulablePodsDuration = s1
			c.PodInitialBackoffDuration = 10 * s1
			c.PodMaxBackoffDuration = 10 * s1
		}, Run: func(h *H) {
			h.Park(Pod("a", 0), "TaintToleration")
			h.Step(2 * s1)
			h.FlushLeftover()
			h.Expect(nil, []string{"a"}, nil, nil)
		}},
		{Name: "leftover/with-nothing-to-move-is-not-a-move-request", Rules: rules(spec.R6FlushUnschedulable, "I3"), Run: func(h *H) {
			h.Park(Pod("a", 0), "TaintToleration")
			h.MustAdd(Pod("b", 0))
			pb, cb := h.Pop()
			h.Step(time.Minute)
			h.FlushLeftover()
			h.ExpectMoveRequestCycle(-1)
			h.NoError(h.Fail(pb, cb, "TaintToleration"))
			h.Expect(nil, nil, []string{"a", "b"}, nil)
		}},
		{Name: "leftover/moving-a-pod-is-a-move-request", Rules: rules(spec.R6FlushUnschedulable, "I3"), Run: func(h *H) {
			h.Park(Pod("a", 0), "TaintToleration")
			h.Step(5*time.Minute + s1)
			h.MustAdd(Pod("b", 0))
			pb, cb := h.Pop()
			h.FlushLeftover()
			h.NoError(h.Fail(pb, cb, "TaintToleration"))
			h.Expect([]string{"a"}, []string{"b"}, nil, nil)
		}},
	}
}
