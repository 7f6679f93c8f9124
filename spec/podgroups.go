package spec

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// The rule ids of the podgroups profile (ProfilePodGroups): the hints
// profile plus pod groups, as kube-scheduler v1.37.2 queues them with the
// GenericWorkload gate on. Their text is on PodGroupQueue and its methods
// and, for the operations Queue already has, in the section "Members in
// the classic operations" of PodGroupQueue. A rule of the hints profile
// that G1-G11 do not replace holds unchanged, for members too.
const (
	G1Membership    Rule = "G1 pod group membership"
	G2AddMember     Rule = "G2 Add of a member"
	G3PopGroup      Rule = "G3 Pop of a group"
	G4MemberFailure Rule = "G4 failure of a member"
	G5GroupAttempt  Rule = "G5 AddAttemptedPodGroupIfNeeded"
	G6GroupBackoff  Rule = "G6 group backoff"
	G7Activate      Rule = "G7 Activate of a member"
	G8Delete        Rule = "G8 Delete of a member"
	G9Update        Rule = "G9 Update of a member"
	G10GroupMove    Rule = "G10 move requests over groups"
	G11PodGroupObj  Rule = "G11 pod-group objects"
	// G12 and G13 are v1.38's (Config.PodGroupsV138); they replace G2's
	// PreEnqueue of an entity and refine G10's strategy of a gated one.
	G12FirstGated Rule = "G12 PreEnqueue over a group stops at its first refused member"
	G13GatedSkips Rule = "G13 a gated group's strategy skips its members without rejectors"
	// G14 is v1.38's with Config.PreQueueing too: R20-R22 over groups.
	G14GroupNarrowing Rule = "G14 pre-queueing hints over groups"
)

// MemberOrder is the order in which v1.38 asks a group's members (G12):
// higher Priority first, then more Attempts, then the earlier Timestamp,
// then the name. Upstream keeps each group's members sorted so
// (PodGroupMemberPodsOrderingFunc) when they join the entity; schedq
// sorts when it asks, which is the same order unless a member's priority
// changed in place while queued.
func MemberOrder(a, b *QueuedPodInfo) int {
	switch {
	case a.Pod.Priority != b.Pod.Priority:
		return cmp.Compare(b.Pod.Priority, a.Pod.Priority)
	case a.Attempts != b.Attempts:
		return cmp.Compare(b.Attempts, a.Attempts)
	case !a.Timestamp.Equal(b.Timestamp):
		return a.Timestamp.Compare(b.Timestamp)
	}
	return cmp.Compare(a.Pod.Name, b.Pod.Name)
}

// GatedEntityStrategy is G10's strategy of an entity with G13: strategy
// is a member's strategy for the event (PodStrategy or MoveStrategy).
// Without PodGroupsV138, or for an entity not gated, it is the most
// urgent strategy of the members (G10). With it, for a gated entity, a
// member with no rejecting and no pending plugin (one PreEnqueue did not
// reach, G12, or one that joined the entity while it was parked) is
// skipped, so that R16's answer for a pod without rejectors (after
// backoff) does not requeue a group still gated by another member; but
// when no member is gated any more (the gated one was deleted, G8) and a
// member was skipped, the strategy is at least after backoff.
func (c Config) GatedEntityStrategy(gated bool, members []*QueuedPodInfo, strategy func(*QueuedPodInfo) Strategy) Strategy {
	skipping := c.PodGroupsV138 && gated
	best := StrategySkip
	var sawGated, skipped bool
	for _, m := range members {
		if m.GatingPlugin != "" {
			sawGated = true
		}
		if skipping && len(m.UnschedulablePlugins) == 0 && len(m.PendingPlugins) == 0 {
			skipped = true
			continue
		}
		best = max(best, strategy(m))
	}
	if skipping && !sawGated && skipped {
		best = max(best, StrategyAfterBackoff)
	}
	return best
}

// Errors of the podgroups profile. Like every error of the contract, each
// comes with nothing changed (I4).
var (
	// ErrInvalidPodGroup: a nil PodGroup or QueuedPodGroupInfo, one with an
	// empty name or a "/" in its namespace or name, or an AttemptStatus
	// outside the three.
	ErrInvalidPodGroup = errors.New("schedq: invalid pod group")
	// ErrPodGroupNotFound: UpdatePodGroup or DeletePodGroup of a pod group
	// the queue does not know.
	ErrPodGroupNotFound = errors.New("schedq: pod group not found")
	// ErrPodGroupExists: AddPodGroup of a pod group the queue already knows.
	ErrPodGroupExists = errors.New("schedq: pod group already known")
	// ErrGroupEntity: Pop in the podgroups profile when the next entity is
	// a pod group, which a single QueuedPodInfo cannot carry: the caller
	// uses PopEntity. Pop changes nothing and does not block.
	ErrGroupEntity = errors.New("schedq: the next entity is a pod group; use PopEntity")
)

// PodGroupKey identifies a pod group: "namespace/name", as PodKey does a
// pod. A pod group and a pod may share a key: they are different entities.
type PodGroupKey string

// PodGroup is the part of a scheduling PodGroup object (upstream
// scheduling/v1beta1) the queue looks at. Treat it as immutable, as Pod.
type PodGroup struct {
	Namespace string
	Name      string
	// Priority orders the group's entity among the entities of activeQ
	// and backoffQ (upstream: the priority of the PodGroup object, not of
	// its members).
	Priority int32
	// Object is the caller's own object (a *PodGroup of the API): opaque,
	// kept and returned untouched, as Pod.Object (R19).
	Object any
}

// Key returns the group's key.
func (g *PodGroup) Key() PodGroupKey { return PodGroupKey(g.Namespace + "/" + g.Name) }

// String names the group for errors and states.
func (g *PodGroup) String() string {
	if g == nil {
		return "<nil pod group>"
	}
	return string(g.Key())
}

// Validate reports why a PodGroup cannot enter a queue: nil, no name, or a
// "/" in its namespace or name.
func (g *PodGroup) Validate() error {
	switch {
	case g == nil:
		return fmt.Errorf("%w: nil", ErrInvalidPodGroup)
	case g.Name == "":
		return fmt.Errorf("%w: pod group %q has an empty name", ErrInvalidPodGroup, g.Key())
	case strings.Contains(g.Namespace, "/") || strings.Contains(g.Name, "/"):
		return fmt.Errorf("%w: pod group %q has a \"/\" in its namespace or name", ErrInvalidPodGroup, g.Key())
	}
	return nil
}

// PodGroupsEqual reports whether two pod-group objects are the same in
// every field, their caller objects included.
func PodGroupsEqual(a, b *PodGroup) bool {
	return a == b || a != nil && b != nil && a.Namespace == b.Namespace && a.Name == b.Name &&
		a.Priority == b.Priority && SameObject(a.Object, b.Object)
}

// GroupKey returns the key of the pod's group, "" if the pod names none
// (G1). Only the podgroups profile asks.
func (p *Pod) GroupKey() PodGroupKey {
	if p.Group == "" {
		return ""
	}
	return PodGroupKey(p.Namespace + "/" + p.Group)
}

// AttemptStatus is how a group's scheduling cycle ended, as the scheduler
// hands it to AddAttemptedPodGroupIfNeeded (upstream: a *fwk.Status that
// is success, rejected (unschedulable), or an error).
type AttemptStatus int

const (
	// AttemptSuccess: the group was scheduled (enough members placed);
	// members that failed come back to activeQ without backoff (G5).
	AttemptSuccess AttemptStatus = iota
	// AttemptRejected: plugins rejected the group; UnschedulableCount
	// grows (G5).
	AttemptRejected
	// AttemptError: something other than a plugin failed;
	// ConsecutiveErrorsCount grows (G5).
	AttemptError
)

func (s AttemptStatus) String() string {
	switch s {
	case AttemptSuccess:
		return "success"
	case AttemptRejected:
		return "rejected"
	case AttemptError:
		return "error"
	}
	return fmt.Sprintf("AttemptStatus(%d)", int(s))
}

// ParseAttemptStatus is the inverse of String.
func ParseAttemptStatus(s string) (AttemptStatus, error) {
	for _, a := range []AttemptStatus{AttemptSuccess, AttemptRejected, AttemptError} {
		if a.String() == s {
			return a, nil
		}
	}
	return 0, fmt.Errorf("%w: unknown attempt status %q (want success, rejected or error)", ErrInvalidPodGroup, s)
}

// EntityParams are what the queue keeps for a pod group's entity, beside
// the QueuedPodInfo of each member: upstream's QueueingParams of a
// QueuedPodGroupInfo. The members' own fields go on as the hints profile
// says (Attempts grows for each at a Pop of the group, G3; a failing
// member's counts grow, G4), but only the entity's fields order the group
// and back it off.
type EntityParams struct {
	// Timestamp orders the entity in activeQ (Less, with the group's
	// Priority) and is the origin of its backoff: now when the entity is
	// created (G2) and at the end of a failed cycle (G5).
	Timestamp time.Time
	// Attempts counts the Pops of the group (G3).
	Attempts int
	// InitialAttemptTimestamp is when the entity first entered activeQ.
	InitialAttemptTimestamp time.Time
	// BackoffExpiry is when the group's backoff completes, fixed when a
	// failed cycle ends (G5, G6); zero while the counts are zero.
	BackoffExpiry time.Time
	// HintFields are the entity's counts (G5), its gating plugin (a member
	// refused by PreEnqueue gates the whole entity, G2) and its
	// FlushTimestamp (G10). PendingPlugins stays empty: upstream never
	// sets a group's rejectors, which is why a group is never popped from
	// backoffQ early (G3) and why its strategy is its members' (G10).
	HintFields
}

// EntityParamsEqual reports whether two sets of entity fields are the same.
func EntityParamsEqual(a, b *EntityParams) bool {
	return a.Timestamp.Equal(b.Timestamp) && a.Attempts == b.Attempts &&
		a.InitialAttemptTimestamp.Equal(b.InitialAttemptTimestamp) && a.BackoffExpiry.Equal(b.BackoffExpiry) &&
		HintFieldsEqual(&a.HintFields, &b.HintFields)
}

// QueuedPodGroupInfo is a popped pod group (G3): the group's object, the
// members taken with it (sorted by key) and the entity's fields. The
// scheduler hands it back to AddAttemptedPodGroupIfNeeded at the end of
// the group's cycle (G5).
type QueuedPodGroupInfo struct {
	PodGroup *PodGroup
	Members  []QueuedPodInfo
	EntityParams
}

// Key returns the group's key.
func (g *QueuedPodGroupInfo) Key() PodGroupKey { return g.PodGroup.Key() }

// Size is the number of members the entity carries.
func (g *QueuedPodGroupInfo) Size() int { return len(g.Members) }

// Validate reports why a QueuedPodGroupInfo cannot be handed back.
func (g *QueuedPodGroupInfo) Validate() error {
	if g == nil {
		return fmt.Errorf("%w: nil QueuedPodGroupInfo", ErrInvalidPodGroup)
	}
	if err := g.PodGroup.Validate(); err != nil {
		return err
	}
	if g.Attempts < 0 {
		return fmt.Errorf("%w: pod group %q has negative attempts %d", ErrInvalidPodGroup, g.Key(), g.Attempts)
	}
	for i := range g.Members {
		if err := g.Members[i].Validate(); err != nil {
			return err
		}
	}
	return nil
}

// QueuedEntity is what PopEntity returns: exactly one of Pod (a pod queued
// alone, as Pop returns it) and Group (a pod group, G3).
type QueuedEntity struct {
	Pod   *QueuedPodInfo
	Group *QueuedPodGroupInfo
}

// EntityKey names an entity of the queue: a pod alone by its PodKey, a pod
// group by "group:" and its PodGroupKey (a pod key never starts so: it
// has exactly one "/").
type EntityKey string

// PodEntityKey and GroupEntityKey build entity keys.
func PodEntityKey(k PodKey) EntityKey        { return EntityKey(k) }
func GroupEntityKey(k PodGroupKey) EntityKey { return EntityKey("group:" + string(k)) }

// Key returns the entity's key.
func (e QueuedEntity) Key() EntityKey {
	if e.Group != nil {
		return GroupEntityKey(e.Group.Key())
	}
	if e.Pod != nil {
		return PodEntityKey(e.Pod.Key())
	}
	return ""
}

// GroupBackoffDuration is G6: R7h's duration for count, with the maximum
// multiplied by the square root of size when the group has more than one
// member (upstream calculateBackoffDuration), truncated to the nanosecond.
// 0 for count 0 and for a max of 0.
func GroupBackoffDuration(count, size int, initial, max time.Duration) time.Duration {
	if max == 0 || count <= 0 {
		return 0
	}
	if size > 1 {
		max = time.Duration(float64(max) * math.Sqrt(float64(size)))
	}
	return BackoffDuration(count, initial, max)
}

// GroupBackoffExpiry is G6's expiry of an entity of size members whose
// cycle failed at now with these counts: now plus GroupBackoffDuration,
// truncated to its ordering window; zero when the duration is 0.
func (c Config) GroupBackoffExpiry(h *HintFields, size int, now time.Time) time.Time {
	count := h.UnschedulableCount
	if h.ConsecutiveErrorsCount > 0 {
		count = h.ConsecutiveErrorsCount
	}
	d := GroupBackoffDuration(count, size, c.PodInitialBackoffDuration, c.PodMaxBackoffDuration)
	if d == 0 {
		return time.Time{}
	}
	return AlignToWindow(now.Add(d))
}

// GroupIsBackingOff reports whether an entity with this expiry is still
// backing off at now: as R7h, while the expiry is not before the start of
// now's ordering window.
func GroupIsBackingOff(expiry, now time.Time) bool {
	return !expiry.IsZero() && !expiry.Before(AlignToWindow(now))
}

// GroupOrderInfo returns the QueuedPodInfo that orders a group's entity
// among the entities of activeQ under Less: the group's priority and the
// entity's Timestamp. Its Pod is not a pod of the queue; it carries the
// group's namespace and name so that MaximalPods names it by them.
func GroupOrderInfo(g *PodGroup, p *EntityParams) QueuedPodInfo {
	return QueuedPodInfo{Pod: &Pod{Namespace: g.Namespace, Name: g.Name, UID: "group", Priority: g.Priority},
		Timestamp: p.Timestamp}
}

// PodGroupQueue is the queue of the podgroups profile: a Queue whose
// activeQ, backoffQ and unschedulablePods hold entities, a pod alone or a
// pod group, and which takes the calls only a gang scheduler makes. It is
// an interface of its own, as ObjectQueue is, so that a queue of the other
// profiles need not change; packages model and impl implement it.
//
// # Entities (G1)
//
// G1: in this profile a pod that names a group (Pod.Group, upstream
// pod.Spec.SchedulingGroup) is a member of the pod group with key
// Pod.GroupKey. A member is held in exactly one of these places (IG1):
//
//   - in its group's entity, which is in activeQ, backoffQ or
//     unschedulablePods and carries every member held there: the members
//     are listed, pod by pod, in that place of the Snapshot, and the
//     entity itself, with its EntityParams, in Snapshot.PodGroups;
//   - in flight, each member on its own (Done, R12h);
//   - in pendingPodGroupPods: it arrived while its group's cycle was open
//     (between the Pop of the group and AddAttemptedPodGroupIfNeeded), and
//     waits for the end of the cycle (G5) to join the entity;
//   - in incompletePodGroupPods: the queue does not know its PodGroup
//     object; AddPodGroup of the group releases it (G11).
//
// A pod that names no group is an entity alone and follows the hints
// profile. Upstream: membership is GenericWorkload on and
// pod.Spec.SchedulingGroup set (a pod whose in-place resize is deferred
// is queued alone there; schedq has no such pods).
//
// A group's cycle is open from the Pop of its entity (G3) to
// AddAttemptedPodGroupIfNeeded for it (G5); Snapshot.PodGroups.InCycle
// lists the groups whose cycle is open. Upstream keeps one key,
// lastPoppedEntity, set by every Pop and cleared by
// AddAttemptedPodGroupIfNeeded and also by the failure of any pod queued
// alone; schedq keeps the open cycle of each group and nothing but the end
// of that group's cycle closes it, so that the failure of an unrelated pod
// cannot split a group in two entities (one pending, one new) nor leave
// members pending for ever.
//
// # Members in the classic operations
//
// G2 Add of a member (upstream addPodGroupMember): the member gets a fresh
// QueuedPodInfo (R1h) and goes, by the first that applies: its group
// unknown, to incompletePodGroupPods; its group's entity queued, into that
// entity, which is then placed again by the place it was in: from
// activeQ towards activeQ, from backoffQ towards backoffQ if still backing
// off (G6) else activeQ, both through PreEnqueue; from unschedulablePods
// it stays, PreEnqueue not asked (as upstream);
// its group's cycle open, to pendingPodGroupPods; else a new entity, with
// Timestamp and InitialAttemptTimestamp now and zero counts, towards
// activeQ through PreEnqueue. PreEnqueue of an entity (R17) runs for each
// member (its gating plugin first, as R17); the first member, by key,
// that a plugin refuses gates the entity with that plugin, and a gated
// entity waits in unschedulablePods. So a member joining a queued entity
// asks PreEnqueue about every member again, the newcomer and the rest, as
// upstream's re-queue of the group runs the plugins over the whole
// entity: a verdict may depend on more than the pod (DefaultPreemption's
// does), so asking only the newcomer would not be the same queue; a
// queue keeps the quadratic count of calls cheap instead (impl allocates
// nothing for it while every member passes). ErrAlreadyQueued if the member's key
// is held anywhere (upstream adds it to its entity a second time; a
// member's new version comes through Update).
//
// G3 Pop of a group (PopEntity): the next entity is a maximal entity of
// activeQ under Less, a group ranking by its PodGroup's Priority and its
// entity's Timestamp (GroupOrderInfo); when activeQ is empty, the first
// pod of backoffQ as R2h, a group being never taken that way (a group has
// no rejectors of its own: upstream keeps it in its error backoff heap).
// A group's entity leaves activeQ whole: the entity's Attempts and every
// member's grow by one, every member is in flight with its marker in the
// in-flight list (R15; the members' markers in no stated order), the
// group's cycle opens, and schedulingCycle grows by one (one cycle for the
// whole group). Pop (not PopEntity) when
// every entity it may take is a group is ErrGroupEntity and changes
// nothing; when a pod alone ties with a group, Pop returns the pod.
//
// G4 failure of a member (AddUnschedulableIfNotPresent of a member): its
// counts, Timestamp and FlushTimestamp change as R3h and it leaves flight
// (its marker goes as by Done, R12h); the events recorded while it was in
// flight are not replayed for it (a group's requeue is decided at the end
// of its cycle, G5); then it goes as by G2: pending while its group's cycle
// is open, else into its queued entity, else a new entity, else (group
// unknown) incomplete. ErrAlreadyQueued as R3h.
//
// G7 Activate of a member activates its group's entity as R8h activates a
// pod: from unschedulablePods through PreEnqueue, from backoffQ without.
// A member in flight gets R8h's ForceActivate record; a pending or
// incomplete member, or one whose group is unknown, changes nothing.
//
// G8 Delete of a member: it leaves its place. Out of an entity, the entity
// is placed again as in G2 (by the place it was in), or leaves the queue
// when it has no member left. In flight: R10h. Pending or incomplete: it
// just leaves.
//
// G9 Update of a member: ErrInvalidPod if newPod names another group than
// oldPod. In flight: R9h. Pending or incomplete: replaced in place. In an
// entity in activeQ or backoffQ: replaced in place. In an entity in
// unschedulablePods: replaced, then each event of the update in turn is
// evaluated for the entity as by G10 until one moves it. Not held: G2.
//
// G10 move requests over entities (MoveAll, R4h; the leftover flush, R6h;
// the assigned-pod requests, R11h; the backoffQ flush, R5h): an entity is
// examined as a pod is, on its entity fields (GatingPlugin,
// FlushTimestamp, BackoffExpiry), and is taken if any member passes the
// preCheck. Its strategy for an event is the most urgent PodStrategy (R16)
// of its members; requeued after backoff it goes to backoffQ while it is
// backing off (G6), else towards activeQ.
//
// # v1.38's group rules (Config.PodGroupsV138)
//
// kube-scheduler v1.38 changes two rules for groups, whatever its feature
// gates say; the podgroups profile has them with Config.PodGroupsV138 and
// v1.37.2's (the ones above) without.
//
// G12 PreEnqueue over a group (replacing G2's "PreEnqueue of an entity"):
// the members are asked in MemberOrder, and the first one a plugin
// refuses gates the entity with that plugin; the members after it are not
// asked, and keep their gating plugin and rejecting plugins as they were.
// (v1.37.2 asks every member.)
//
// G13 the strategy of a gated entity (G10, and the events of G9's update
// in unschedulablePods) skips the members with no rejecting and no
// pending plugin, unless no member is gated any more
// (Config.GatedEntityStrategy).
//
// G14 pre-queueing hints over groups (Config.PreQueueing, which the
// podgroups profile takes only with PodGroupsV138: v1.38 has both by
// default, and either without the other is no release's queue). A move
// request's narrowing (R20) chooses parked entities as R21 chooses parked
// pods: a narrowed request evaluates a parked entity only when some plugin
// named a pod of its group that the queue holds (a member queued, in
// flight or waiting), once however many of its pods were named; every
// other parked entity is left as it is. A request that is not narrowed
// evaluates every parked entity (G10). In an evaluated entity each member
// asks a narrowed plugin only if that plugin named it (R22,
// Config.MoveStrategy), so a member nobody named answers QueueSkip for the
// narrowed plugins; a member without rejectors answers after backoff,
// named or not, unless G13 skips it (Config.GatedEntityStrategy). Upstream finds a
// named pod's group through its pod informer, so there a named pod the
// queue no longer holds (a bound member) selects its group's entity too;
// the contract knows a pod's group only while it holds the pod, and such
// a name selects nothing.
//
// CompositePodGroup is beta in v1.38 but its gate is off by default, even
// with GenericWorkload on: the setting, like v1.37.2's rules, covers
// groups of one level (see below).
//
// # What the contract leaves out
//
// CompositePodGroup (alpha and off in v1.37.2): a tree of groups queued as
// the entity of its root. schedq leaves it out: the alpha API has no stable
// shape, its gate is off even where GenericWorkload is on, and the root
// lookup upstream walks a parent chain that may be cyclic or incomplete
// (it gives up on a cycle), which a contract would have to fix first. A
// one-level group is the root of itself, so every rule here is the
// composite rule restricted to trees of height one. Also out: pods whose
// resize is deferred (queued alone upstream), the
// metrics of groups (R14 counts pods), and the nominator's view of members
// (R18 holds for them as for any pod).
//
// # Invariants (CheckPodGroupsState, CheckPodGroupsStep)
//
//   - IG1 one place per member: every member is in exactly one of its
//     entity, in flight, pendingPodGroupPods and incompletePodGroupPods;
//     the members listed in an entity are exactly the members held in the
//     entity's place; a known group has at most one entity; an incomplete
//     member's group is unknown.
//   - IG2 a group is never partly in flight at its Pop: PopEntity of a
//     group puts every member of its entity in flight and leaves none of
//     them queued.
//   - IG3 no member waits in pendingPodGroupPods unless its group's cycle
//     is open: at the end of a cycle (G5) every pending member of the group
//     joins its entity.
//   - IG4 a group's entity waits in unschedulablePods only while gated.
type PodGroupQueue interface {
	ObjectQueue

	// PopEntity is G3 (and R2h for a pod queued alone): it takes the next
	// entity as Pop takes a pod, blocking (or ErrWouldBlock, for a queue
	// that cannot wait) while nothing may be taken, ErrClosed once
	// closed. The QueuedEntity and, for a group, each member's
	// QueuedPodInfo are copies the caller owns.
	PopEntity() (QueuedEntity, int64, error)

	// AddAttemptedPodGroupIfNeeded is G5: the cycle of the popped group
	// gInfo ended with status. The group's cycle closes and its pending
	// members (those that failed in the cycle, G4, and those added during
	// it, G2) join a new entity; with none the group leaves the queue (its
	// members are bound, or in flight until Done). The entity takes
	// gInfo's Attempts, InitialAttemptTimestamp and GatingPlugin, and:
	//   - success: both counts become 0 and it goes towards activeQ; its
	//     Timestamp stays gInfo's if some pending member was among
	//     gInfo.Members (a member that failed in a successful cycle is
	//     retried first, to preempt at once), else it becomes now;
	//   - rejected: UnschedulableCount = gInfo's + 1 and
	//     ConsecutiveErrorsCount = 0; error: ConsecutiveErrorsCount =
	//     gInfo's + 1 (UnschedulableCount kept); either way Timestamp
	//     becomes now, BackoffExpiry is fixed (G6) and the entity goes to
	//     backoffQ while backing off, else towards activeQ.
	// Either way through PreEnqueue, and FlushTimestamp is cleared. Never
	// to unschedulablePods otherwise: a group's queueing hints are not
	// asked after an attempt (upstream bypasses them), and the events
	// recorded during the cycle are not replayed for it. A group whose
	// object is gone has its pending members moved to
	// incompletePodGroupPods. A group whose cycle is not open: nothing but
	// the checks. ErrAlreadyQueued if the group's entity is queued (it was
	// not popped, or was queued again); ErrInvalidPodGroup for an invalid
	// gInfo or status.
	//
	// G6 group backoff: the count is ConsecutiveErrorsCount if positive,
	// else UnschedulableCount; the duration is R7h's with the maximum
	// multiplied by the square root of the number of members the entity
	// comes back with, when more than one (GroupBackoffDuration); the
	// expiry is now plus it, truncated to its ordering window, fixed until
	// the next end of a cycle (members joining or leaving do not change
	// it: upstream caches it); backing off as R7h (GroupIsBackingOff).
	AddAttemptedPodGroupIfNeeded(gInfo *QueuedPodGroupInfo, schedulingCycle int64, status AttemptStatus) error

	// AddPodGroup is G11: the informer saw a PodGroup object. The queue
	// knows it from now on, and its incomplete members, in key order, go as
	// by G2 (into one new entity, or pending if its cycle is open).
	// ErrPodGroupExists if the group is known.
	AddPodGroup(pg *PodGroup) error

	// UpdatePodGroup is G11: the queue keeps newPG (the entity's rank
	// follows its Priority). oldPG and newPG must have the same key
	// (ErrInvalidPodGroup). ErrPodGroupNotFound if unknown.
	UpdatePodGroup(oldPG, newPG *PodGroup) error

	// DeletePodGroup is G11: the queue forgets the group. Its entity's
	// members and its pending members move to incompletePodGroupPods and
	// the entity leaves the queue; members in flight stay there, and an
	// open cycle stays open until AddAttemptedPodGroupIfNeeded. The members
	// keep their QueuedPodInfo. ErrPodGroupNotFound if unknown.
	DeletePodGroup(pg *PodGroup) error
}

// PodGroupsState is what Snapshot holds of pod groups, in the podgroups
// profile only (nil in the others).
type PodGroupsState struct {
	// PodGroups are the objects the queue knows, sorted by key.
	PodGroups []PodGroup
	// Entities are the queued group entities, sorted by group key.
	Entities []PodGroupEntity
	// InCycle are the groups whose cycle is open, sorted.
	InCycle []PodGroupKey
	// PendingPodGroupPods and IncompletePodGroupPods are the members
	// waiting there, sorted by key (G2, G4, G11).
	PendingPodGroupPods    []QueuedPodInfo
	IncompletePodGroupPods []QueuedPodInfo
}

// PodGroupEntity is one queued group entity: its place, its members'
// keys (sorted; their QueuedPodInfos are in that place of the Snapshot)
// and its fields.
type PodGroupEntity struct {
	Group   PodGroupKey
	Place   Location
	Members []PodKey
	EntityParams
}

// Entity returns the queued entity of group k, if any.
func (p *PodGroupsState) Entity(k PodGroupKey) (PodGroupEntity, bool) {
	if p != nil {
		for _, e := range p.Entities {
			if e.Group == k {
				return e, true
			}
		}
	}
	return PodGroupEntity{}, false
}

// Known reports whether the queue knows group k's object.
func (p *PodGroupsState) Known(k PodGroupKey) (*PodGroup, bool) {
	if p != nil {
		for i := range p.PodGroups {
			if p.PodGroups[i].Key() == k {
				return &p.PodGroups[i], true
			}
		}
	}
	return nil, false
}

// Diff describes how o differs from p, or "".
func (p *PodGroupsState) Diff(o *PodGroupsState) string {
	if p == nil || o == nil {
		if p != o {
			return fmt.Sprintf("PodGroups: %v != %v\n", p != nil, o != nil)
		}
		return ""
	}
	var b strings.Builder
	if !slices.EqualFunc(p.PodGroups, o.PodGroups, func(x, y PodGroup) bool { return PodGroupsEqual(&x, &y) }) {
		fmt.Fprintf(&b, "PodGroups: %v != %v\n", p.PodGroups, o.PodGroups)
	}
	if !slices.Equal(p.InCycle, o.InCycle) {
		fmt.Fprintf(&b, "InCycle: %v != %v\n", p.InCycle, o.InCycle)
	}
	if len(p.Entities) != len(o.Entities) {
		fmt.Fprintf(&b, "Entities: %d != %d\n", len(p.Entities), len(o.Entities))
	} else {
		for i := range p.Entities {
			x, y := &p.Entities[i], &o.Entities[i]
			if x.Group != y.Group || x.Place != y.Place || !slices.Equal(x.Members, y.Members) || !EntityParamsEqual(&x.EntityParams, &y.EntityParams) {
				fmt.Fprintf(&b, "Entities[%d]: %s != %s\n", i, x.format(), y.format())
			}
		}
	}
	for _, l := range []struct {
		name string
		a, c []QueuedPodInfo
	}{{"pendingPodGroupPods", p.PendingPodGroupPods, o.PendingPodGroupPods}, {"incompletePodGroupPods", p.IncompletePodGroupPods, o.IncompletePodGroupPods}} {
		if len(l.a) != len(l.c) {
			fmt.Fprintf(&b, "%s: %v != %v\n", l.name, keys(l.a), keys(l.c))
			continue
		}
		for j := range l.a {
			if d := diffInfo(&l.a[j], &l.c[j]); d != "" {
				fmt.Fprintf(&b, "%s[%d]: %s\n", l.name, j, d)
			}
		}
	}
	return b.String()
}

func (e *PodGroupEntity) format() string {
	s := fmt.Sprintf("%s@%s%v ts=%s attempts=%d", e.Group, e.Place, e.Members, e.Timestamp.Format(time.RFC3339Nano), e.Attempts)
	if !e.BackoffExpiry.IsZero() {
		s += " expiry=" + e.BackoffExpiry.Format(time.RFC3339Nano)
	}
	if f := FormatHintFields(&e.HintFields); f != "" {
		s += " " + f
	}
	return s
}

// format renders the pod-group part of a state, times relative to start.
func (p *PodGroupsState) format(start time.Time) string {
	var b strings.Builder
	rel := func(t time.Time) string { return t.Sub(start).String() }
	b.WriteString("podGroups:")
	if len(p.PodGroups) == 0 {
		b.WriteString(" -")
	}
	for _, g := range p.PodGroups {
		fmt.Fprintf(&b, " %s(prio=%d)", formatGroupName(g.Key()), g.Priority)
	}
	b.WriteString("\nentities:")
	if len(p.Entities) == 0 {
		b.WriteString(" -")
	}
	for _, e := range p.Entities {
		ms := make([]string, len(e.Members))
		for i, m := range e.Members {
			ms[i] = strings.TrimPrefix(string(m), "ns/")
		}
		fmt.Fprintf(&b, " %s@%s[%s] ts=%s attempts=%d", formatGroupName(e.Group), e.Place, strings.Join(ms, ","), rel(e.Timestamp), e.Attempts)
		if !e.BackoffExpiry.IsZero() {
			fmt.Fprintf(&b, " expiry=%s", rel(e.BackoffExpiry))
		}
		for _, f := range e.HintFields.fields(rel) {
			b.WriteString(" " + f)
		}
	}
	b.WriteString("\ninCycle:")
	if len(p.InCycle) == 0 {
		b.WriteString(" -")
	}
	for _, k := range p.InCycle {
		b.WriteString(" " + formatGroupName(k))
	}
	for _, l := range []struct {
		name string
		pods []QueuedPodInfo
	}{{"pendingPodGroupPods", p.PendingPodGroupPods}, {"incompletePodGroupPods", p.IncompletePodGroupPods}} {
		b.WriteString("\n" + l.name + ":")
		if len(l.pods) == 0 {
			b.WriteString(" -")
		}
		for i := range l.pods {
			b.WriteString(" " + formatPodName(l.pods[i].Pod))
		}
	}
	b.WriteString("\n")
	return b.String()
}

func formatGroupName(k PodGroupKey) string { return strings.TrimPrefix(string(k), "ns/") }

// OrderedEntity is one entity of activeQ for MaximalEntities: its key and
// the QueuedPodInfo that orders it (the pod's own, or GroupOrderInfo).
type OrderedEntity struct {
	Key  EntityKey
	Info QueuedPodInfo
}

// MaximalEntities is G3's I5: the keys, sorted, of the entities of activeQ
// that no other entity precedes under Less. Every one is an allowed
// outcome of PopEntity.
func MaximalEntities(activeQ []OrderedEntity) []EntityKey {
	var out []EntityKey
	for i := range activeQ {
		maximal := true
		for j := range activeQ {
			if i != j && Less(&activeQ[j].Info, &activeQ[i].Info) {
				maximal = false
				break
			}
		}
		if maximal {
			out = append(out, activeQ[i].Key)
		}
	}
	slices.Sort(out)
	return out
}
