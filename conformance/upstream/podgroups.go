package upstream

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/schedq/schedq/conformance"
	"github.com/schedq/schedq/spec"
)

// podGroupsOn reports whether a queue built for cfg runs with the
// GenericWorkload gate on, so that pods naming a pod group are queued as
// one entity per group: the podgroups profile.
func podGroupsOn(cfg spec.Config) bool { return cfg.Profile == spec.ProfilePodGroups }

// refusePodGroups is the answer of a release without pod-group entities
// (before v1.37) to a config of the podgroups profile: the runner reports
// its scenarios n/a with the reason.
func refusePodGroups(cfg spec.Config) error {
	if cfg.Profile == spec.ProfilePodGroups && !hasPodGroups() {
		return fmt.Errorf("%w: %s queues no pod groups as entities (GenericWorkload's entity queue is v1.37's): no podgroups profile",
			spec.ErrInvalidConfig, Release().Version)
	}
	if cfg.PodGroupsV138 && !groupRulesV138() {
		return fmt.Errorf("%w: %s queues groups by v1.37.2's rules, not v1.38's (G12, G13): no groups=v1.38",
			spec.ErrInvalidConfig, Release().Version)
	}
	return nil
}

// groupRulesV138 reports whether the release queues groups by v1.38's
// rules (spec.Config.PodGroupsV138): v1.38 and later.
func groupRulesV138() bool {
	minor, err := strconv.Atoi(strings.TrimPrefix(Release().Minor(), "1."))
	return err == nil && minor >= 38
}

// withPodGroupDifferences adds to m the podgroups scenarios that a
// release with pod-group entities (v1.37.2) fails on purpose, each with
// what upstream does instead and where. Neither is reachable from the API
// server: it never sends a PodGroup update before the add, and refuses an
// update that changes a pod's scheduling group (ValidatePodUpdate: the
// pod spec is immutable but for a few fields, and schedulingGroup is not
// one of them).
func withPodGroupDifferences(m map[string]conformance.KnownDifference) map[string]conformance.KnownDifference {
	if !hasPodGroups() {
		return m
	}
	m["podgroups/G11-pod-group-objects"] = conformance.KnownDifference{
		Kind:   conformance.KindDeparture,
		Reason: "upstream's UpdatePodGroup of a group it does not know stores it (the workload forest's update is a map assignment), so the group becomes known; the contract says ErrPodGroupNotFound and nothing changes",
		Source: "v1.37.2 pkg/scheduler/backend/queue/scheduling_queue.go:1601-1606 (UpdatePodGroup), workload_forest.go:75-77 (updatePodGroup)",
	}
	m["podgroups/G9-update-of-a-member"] = conformance.KnownDifference{
		Kind:   conformance.KindDeparture,
		Reason: "an update that moves a queued member to another group is not refused upstream: the member's old entity keeps the old pod, and the new pod is added again under its new group (here to incompletePodGroupPods), so the pod is held twice; the contract says ErrInvalidPod and nothing changes",
		Source: "v1.37.2 pkg/scheduler/backend/queue/scheduling_queue.go:1353-1456 (Update: no entity of the new group holds the pod, so it falls through to addPod)",
	}
	// Three findings of the podgroups random runs (conformance/
	// differential_podgroups.go), each a scenario of its own.
	m["podgroups/G11-an-update-of-a-queued-group-reorders-activeQ"] = conformance.KnownDifference{
		Kind:   conformance.KindDeparture,
		Reason: "upstream's UpdatePodGroup of a group whose entity waits in activeQ changes the entity's PodGroup, and so its priority, in place without fixing the heap: the group whose priority rose stays behind the pod alone it now precedes, and Pop takes that pod; the contract ranks the entity by its group's priority at once. Not a bug upstream: the API server refuses a change of a PodGroup's spec.priority (+k8s:immutable), so no informer update reaches this; the contract re-ranks whatever it is given",
		Source: "v1.37.2 pkg/scheduler/backend/queue/scheduling_queue.go:1611-1618 (UpdatePodGroup: rootInfo.UpdatePodGroup under the activeQ lock, no heap update)",
	}
	m["podgroups/G7-activate-of-a-member-in-flight-records-no-event"] = conformance.KnownDifference{
		Kind:   conformance.KindDeparture,
		Reason: "upstream's Activate of a member in flight whose group's entity does not move (it is in activeQ already) falls through to the in-flight bookkeeping and records a ForceActivate for the member; the contract records nothing when nothing moves. A member's failure replays nothing (G4), so only the in-flight list differs",
		Source: "v1.37.2 pkg/scheduler/backend/queue/scheduling_queue.go:986-994 (Activate: addEventsIfPodInFlight with EventForceActivate when activate reports no move)",
	}
	m["podgroups/G9-an-update-of-a-member-in-flight-is-recorded-after-its-group-is-deleted"] = conformance.KnownDifference{
		Kind:   conformance.KindDeparture,
		Reason: "upstream's Update of a member whose PodGroup object is gone finds no root and only looks in incompletePodGroupPods, so an update of a member in flight records no event; the contract records it as for any pod in flight (R9h). The same early return drops an Update of a member the queue does not hold, its group unknown, which the contract adds (R9) to incompletePodGroupPods",
		Source: "v1.37.2 pkg/scheduler/backend/queue/scheduling_queue.go:1362-1370 (Update: no root, incompletePodGroupPods.update, return)",
	}
	return m
}
