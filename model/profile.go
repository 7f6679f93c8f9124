package model

import (
	"fmt"

	"github.com/schedq/schedq/spec"
)

// profile answers, for the model, the decisions that spec.Profile names
// (D1-D7). The shared machine in model.go calls these methods at exactly
// those points and never asks which profile it runs; classic.go and hints.go
// answer them, one file per profile. D3 (backoff) is a pure function and is
// answered in spec (Config.BackoffExpiry, Config.IsBackingOff).
type profile interface {
	// D6 admission: put info in activeQ (to = InActiveQ) or backoffQ, or
	// wherever admission sends it instead.
	admit(m *Model, info spec.QueuedPodInfo, to spec.Location)
	// D6 for a pod leaving backoffQ for activeQ (the backoffQ flush,
	// Activate).
	fromBackoffQ(m *Model, info spec.QueuedPodInfo)
	// D4 Pop: the pods Pop may return now, sorted, and what Pop does to the
	// popped pod beyond Attempts++ and the move to in flight.
	popCandidates(m *Model) []spec.PodKey
	popped(m *Model, info *spec.QueuedPodInfo)
	// D1 failure: place a pod handed back by AddUnschedulableIfNotPresent,
	// already validated, with Timestamp = now.
	failed(m *Model, info spec.QueuedPodInfo, podSchedulingCycle int64)
	// D2 move decision over the listed unschedulable pods, and the memory
	// of the move request.
	move(m *Model, keys []spec.PodKey, occ spec.Occurrence)
	assignedPodAdded(m *Model, pod *spec.Pod)
	assignedPodUpdated(m *Model, oldPod, newPod *spec.Pod, event spec.ClusterEvent)
	// D7 re-examination: the leftover flush's choice (it may mark the pods
	// it takes), and an Update of an unschedulable pod (its record already
	// holds newPod).
	leftover(m *Model) []spec.PodKey
	updateUnschedulable(m *Model, key spec.PodKey, oldPod, newPod *spec.Pod, change spec.PodChange)
	// D5 in-flight bookkeeping: an Update of an in-flight pod (its record
	// already holds newPod), an Activate of a pod not parked or that
	// PreEnqueue kept parked, and a pod
	// leaving flight (failure handed back, Done, Delete).
	updateInFlight(m *Model, oldPod, newPod *spec.Pod, change spec.PodChange)
	activateOther(m *Model, pod *spec.Pod)
	leftFlight(m *Model, uid spec.UID)
	// The profile's own state: copy, compare, snapshot.
	clone() profile
	equal(o profile) bool
	snapshot(s *spec.Snapshot)
}

// newProfile is the one place the model looks at cfg.Profile.
func newProfile(cfg spec.Config) (profile, error) {
	switch cfg.Profile {
	case spec.ProfileClassic:
		return classic{}, nil
	case spec.ProfileHints:
		return &hints{}, nil
	case spec.ProfilePodGroups:
		return newPodGroups(), nil
	}
	return nil, fmt.Errorf("%w: the model has no profile %v", spec.ErrInvalidConfig, cfg.Profile)
}
