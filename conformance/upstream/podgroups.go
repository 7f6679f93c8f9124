package upstream

import (
	"fmt"

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
	return nil
}

// podGroupScenarios are the podgroups profile's scenario files, run with
// the catalogue by TestQueueingHints.
const podGroupScenarios = "../testdata/podgroups"

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
	m["G11-pod-group-objects"] = conformance.KnownDifference{
		Reason: "upstream's UpdatePodGroup of a group it does not know stores it (the workload forest's update is a map assignment), so the group becomes known; the contract says ErrPodGroupNotFound and nothing changes",
		Source: "v1.37.2 pkg/scheduler/backend/queue/scheduling_queue.go:1601-1606 (UpdatePodGroup), workload_forest.go:75-77 (updatePodGroup)",
	}
	m["G9-update-of-a-member"] = conformance.KnownDifference{
		Reason: "an update that moves a queued member to another group is not refused upstream: the member's old entity keeps the old pod, and the new pod is added again under its new group (here to incompletePodGroupPods), so the pod is held twice; the contract says ErrInvalidPod and nothing changes",
		Source: "v1.37.2 pkg/scheduler/backend/queue/scheduling_queue.go:1353-1456 (Update: no entity of the new group holds the pod, so it falls through to addPod)",
	}
	return m
}
