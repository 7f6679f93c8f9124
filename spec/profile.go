package spec

import "fmt"

// Profile selects which semantics of the queue the contract describes. The
// zero value is ProfileClassic, so every Config written before profiles
// existed keeps its meaning.
//
// The podgroups profile is the hints profile plus pod groups: it answers
// D1-D7 as the hints profile does for a pod alone, and its own rules,
// G1-G11 on PodGroupQueue, say what changes for the members of a group.
//
// The profiles share the machine: the four places a pod can be (activeQ,
// backoffQ, unschedulablePods, in flight), the key and UID rules of Add,
// Delete and Done, the two flush loops, Close, and Snapshot. They differ in a
// handful of decisions, named here once; each profile answers all of them,
// in one file of the model (model/classic.go, model/hints.go,
// model/podgroups.go) and one of package impl, and nowhere else does code
// ask which profile it runs. Three profiles answer them: classic, hints,
// and podgroups, whose decisions for a member move its group's entity.
//
//   - D1 failure: where a pod handed back by AddUnschedulableIfNotPresent
//     goes, and what it counts. Classic: the moveRequestCycle shortcut (R3).
//     Hints: the events recorded while it was in flight are replayed through
//     its rejectors' queueing hints (R3h). Podgroups: counted as R3h, before
//     asking whether the pod is a member (as upstream); a member then joins
//     its group without replay (G4).
//   - D2 move decision: for one unschedulable pod and one event (with the
//     objects it carries), skip it, requeue it after its backoff, or send it
//     to activeQ at once; and how a move request is remembered. Classic: a
//     registered event requeues (R4) and sets moveRequestCycle. Hints: the
//     rejectors' hints decide (R16), gated pods are filtered by their gating
//     plugin's events (R4h), and the event is recorded for the pods in
//     flight (R15).
//   - D3 backoff: how long a pod backs off and when it counts as done.
//     Classic: from Attempts, exact instants (R7). Hints: from
//     UnschedulableCount / ConsecutiveErrorsCount, one-second ordering
//     windows, a max backoff of 0 disables it (R7h). D3 is a pure function
//     and is answered here in spec (Config.BackoffExpiry, Config.IsBackingOff).
//   - D4 Pop: where Pop takes from and what it clears. Classic: activeQ only;
//     the rejecting plugins are cleared (R2). Hints: activeQ, else backoffQ
//     by ordering window; nothing is cleared (R2h). Podgroups: over entities,
//     a group popped whole by PopEntity (G3).
//   - D5 in-flight bookkeeping: what the queue records while pods are in
//     flight, and what Done, Delete, Update and Activate of an in-flight pod
//     do to it. Classic: nothing is recorded (Activate sets
//     moveRequestCycle). Hints: the in-flight list (R15, R8h, R9h).
//   - D6 admission: whether a pod entering activeQ or backoffQ must first
//     pass the PreEnqueue plugins; a refused pod is gated and waits in
//     unschedulablePods (R17). Classic: on entering activeQ (from anywhere,
//     the backoffQ flush included), not on entering backoffQ. Hints: on
//     entering either, not again on leaving backoffQ.
//   - D7 re-examination: what the leftover flush measures from, and what an
//     Update of an unschedulable pod evaluates. Classic: Timestamp, and "did
//     anything but status change" (R6, R9). Hints: the later of Timestamp and
//     FlushTimestamp, and the update's derived events through D2 (R6h, R9h).
//   - D8 selection: which parked pods a move request evaluates, and which
//     of a pod's rejectors it asks. Classic: every parked pod, every
//     rejector (R4). Hints: the same with Config.PreQueueing off (v1.37.2);
//     with it on (v1.38) the pre-queueing hints choose (R20-R22). Podgroups:
//     the same, with the named pods choosing entities by their groups
//     (G14); Validate takes PreQueueing there only with PodGroupsV138,
//     because v1.38 changes the group rules in the same release (G12,
//     G13) and a podgroups profile with v1.38's narrowing but v1.37.2's
//     group rules would be no release's queue. D8 is a pure function
//     of the config and the occurrence, answered in spec
//     (Config.PreQueueingNarrowing, Narrowing.Evaluates, Config.MoveStrategy).
type Profile int

const (
	// ProfileClassic is kube-scheduler v1.33.13 with the feature gates
	// SchedulerQueueingHints and SchedulerPopFromBackoffQ off: rules R1-R14
	// and R17-R19.
	ProfileClassic Profile = iota
	// ProfileHints is kube-scheduler v1.37.2 with its default feature gates:
	// queueing hints (the only mode since v1.34), in-flight events,
	// SchedulerPopFromBackoffQ on, PreEnqueue plugins and scheduling gates
	// (PodSchedulingReadiness, GA). Off there and out of scope here: pod
	// groups (GenericWorkload, CompositePodGroup), asynchronous API calls
	// (SchedulerAsyncAPICalls) and pre-queueing hints
	// (SchedulerPreQueueingHints). Its rules are R1h-R14h and R15-R19,
	// stated on Queue under the classic ones; what it leaves unchanged is
	// classic.
	ProfileHints
	// ProfilePodGroups is the hints profile plus pod groups: kube-scheduler
	// v1.37.2 with the GenericWorkload gate on (CompositePodGroup off). A
	// pod that names a group (Pod.Group) is queued, popped and backed off
	// with the other members of its group as one entity. Its own rules are
	// G1-G11 (podgroups.go, PodGroupQueue); a pod that names no group
	// follows the hints profile's rules unchanged, and so does a member
	// wherever G1-G11 say nothing.
	ProfilePodGroups
)

// HasHints reports whether the profile runs queueing hints: the hints
// profile and the podgroups profile, which is the hints profile plus
// entities. Wherever the contract says "hints profile", it means both.
func (p Profile) HasHints() bool { return p == ProfileHints || p == ProfilePodGroups }

// String names the profile as configs and reports spell it.
func (p Profile) String() string {
	switch p {
	case ProfileClassic:
		return "classic"
	case ProfileHints:
		return "hints"
	case ProfilePodGroups:
		return "podgroups"
	}
	return fmt.Sprintf("Profile(%d)", int(p))
}

// ParseProfile is the inverse of String.
func ParseProfile(s string) (Profile, error) {
	switch s {
	case "classic", "":
		return ProfileClassic, nil
	case "hints":
		return ProfileHints, nil
	case "podgroups":
		return ProfilePodGroups, nil
	}
	return 0, fmt.Errorf("%w: unknown profile %q (want classic, hints or podgroups)", ErrInvalidConfig, s)
}

// validateProfile reports what the profile itself makes invalid in c. It
// does not repeat the checks Validate makes for both profiles.
func (c Config) validateProfile() []error {
	var errs []error
	switch c.Profile {
	case ProfileClassic:
		if len(c.QueueingHints) > 0 {
			errs = append(errs, fmt.Errorf("QueueingHints are set but the profile is classic, which has none"))
		}
		errs = append(errs, c.validatePreEnqueue()...)
	case ProfileHints, ProfilePodGroups:
		for k, fn := range c.QueueingHints {
			if fn == nil {
				errs = append(errs, fmt.Errorf("queueing hint of %s for %s is nil", k.Plugin, k.Event))
			}
			if !c.PluginEvents.registers(k.Plugin, k.Event) {
				errs = append(errs, fmt.Errorf("queueing hint of %s for %s: the plugin does not register that event in PluginEvents", k.Plugin, k.Event))
			}
		}
		errs = append(errs, c.validatePreEnqueue()...)
	default:
		errs = append(errs, fmt.Errorf("unknown profile %v", c.Profile))
	}
	return errs
}

// validatePreEnqueue reports unnamed or nil PreEnqueue plugins (R17, both
// profiles).
func (c Config) validatePreEnqueue() []error {
	var errs []error
	for name, fn := range c.PreEnqueuePlugins {
		if name == "" || fn == nil {
			errs = append(errs, fmt.Errorf("PreEnqueue plugin %q is unnamed or nil", name))
		}
	}
	return errs
}

// maxBackoffMayBeZero reports whether the profile gives PodMaxBackoffDuration
// 0 a meaning: in the hints profile it switches backoff off (R7h); in the
// classic profile it would be a different queue and is rejected.
func (c Config) maxBackoffMayBeZero() bool { return c.Profile.HasHints() }

// registers reports whether plugin registered exactly event.
func (r PluginEvents) registers(plugin string, event ClusterEvent) bool {
	for _, e := range r[plugin] {
		if e.Resource == event.Resource && e.ActionType == event.ActionType {
			return true
		}
	}
	return false
}

// DefaultHintsConfig returns the upstream defaults in the hints profile with
// the given registry and no hints (every registered event answers Queue)
// and no PreEnqueue plugins. The defaults are the same in v1.37.2 as in
// v1.33.
func DefaultHintsConfig(events PluginEvents) Config {
	c := DefaultConfig(events)
	c.Profile = ProfileHints
	return c
}
