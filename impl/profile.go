package impl

import (
	"maps"
	"slices"
	"time"

	"github.com/schedq/schedq/spec"
)

// profile answers, for the concurrent queue, the decisions that
// spec.Profile names (D1-D7), as package model's profiles do for the
// model: classic.go answers for spec.ProfileClassic, hints.go for
// spec.ProfileHints, podgroups.go for spec.ProfilePodGroups (the hints
// profile's answers for a pod alone, its own for a member), and queue.go
// asks at exactly those points without asking which profile it runs (but
// for a move request's group decisions, asked by type: moveRequest). D3
// (backoff) is a pure function answered in spec (Config.BackoffExpiry,
// IsBackingOff).
//
// A profile decides; the queue applies. Its answers are values (a move, a
// place, a selection of pods) and queue.go carries out every move, counts
// every metric and wakes every Pop (put, moveRequest, unlock). A profile
// reads the queue through a view, reads entries, and keeps state of its
// own (the hints profile's in-flight list, the podgroups profile's groups
// and their members); it never moves a pod or a group, counts a metric or
// wakes a Pop. The podgroups profile's group decisions (decision, in
// podgroups.go) are applied by putGroup as moves are by put; the group
// places are its state, which put and putGroup change only through it
// (groupRules). The one entry a profile writes is a failed pod handed
// back (D1: "what it counts"), before deciding where it goes. All methods
// run under the queue's mutex.
type profile interface {
	// D6 admission of a fresh pod (Add, or Update of an unknown pod when
	// update is set): e holds its fresh info; from is where its key was
	// before (an entry replaced, or nowhere).
	added(e *entry, from place, update bool) move
	// D4 Pop: where Pop takes its pod now: inActiveQ, inBackoffQ (the
	// first pod of backoffQ by ordering window, R2h), or nowhere (Pop
	// waits). windowed reports, once, whether it ever answers inBackoffQ:
	// only then does the queue keep backoffQ's window order.
	popFrom(v view) place
	windowed() bool
	// popped (D4, D5): e, taken by Pop, is in flight. It returns the
	// token the queue keeps in e while it is in flight (the hints
	// profile's marker index) and whether Pop clears e's rejectors (R2).
	popped(e *entry) (token uint32, clearRejectors bool)
	// D1 failure: e, detached, holds what the scheduler handed back with
	// Timestamp now; flightUID is the UID of the pod that was in flight
	// under this key ("" if none): its time in flight ends. The profile
	// may update e's counts (R3h).
	failed(v view, e *entry, flightUID spec.UID, podSchedulingCycle int64) move
	// D2 move request. ofInterest: whether the event changes anything at
	// all. mayHelp: whether it may move a pod rejected by exactly plugins
	// (a group of unschedulablePods; the queue skips the group if not).
	// moveTo: where it sends e, an unschedulable pod (nowhere: it stays);
	// grouped says mayHelp already answered yes for e's plugins.
	// requested: the request is over; the profile records it (R15) and
	// reports whether moveRequestCycle becomes schedulingCycle (R4).
	// narrowing (D8) is what the pre-queueing hints answer for occ
	// (R20): nil when the request evaluates every pod and asks every
	// rejector; moveTo asks only the rejectors it allows (R22).
	ofInterest(ev spec.ClusterEvent) bool
	mayHelp(plugins spec.PluginSet, ev spec.ClusterEvent) bool
	narrowing(occ spec.Occurrence) *narrowed
	moveTo(v view, e *entry, occ spec.Occurrence, n *narrowed, grouped bool) move
	requested(occ spec.Occurrence) (setMoveRequestCycle bool)
	// assigned (D2) selects the unschedulable pods an assigned pod's add
	// or update (event) may help (R11, R11h).
	assigned(newPod *spec.Pod, event spec.ClusterEvent) func(*entry) bool
	// D7 re-examination: which unschedulable pods the leftover flush takes
	// at v's now, and whether it restarts their leftover clock (R6h); and
	// an Update of the unschedulable pod e (its pod already newPod): where
	// it goes, and for a move counted under a cluster event, that event.
	// change is the caller's verdict on the update (nil: derive it from
	// the pods, spec.DerivePodChange; each profile derives only its half).
	leftover(v view) (old func(*entry) bool, stamp bool)
	updatedUnschedulable(v view, e *entry, oldPod, newPod *spec.Pod, change *spec.PodChange) (move, spec.ClusterEvent)
	// D6 Activate of e, parked in unschedulablePods (R8, R8h), and e
	// leaving backoffQ for activeQ (Activate, why forceActivate; the
	// backoffQ flush, why backoffComplete).
	activated(e *entry) move
	fromBackoffQ(e *entry, why reason) move
	// D5 in-flight bookkeeping: an Update of the in-flight pod e (pod
	// already newPod, with the same UID: a new UID ends the attempt, R9),
	// an Activate of a pod not parked (e its entry, nil if not held; it
	// reports whether moveRequestCycle becomes schedulingCycle), and the
	// in-flight pod e leaving flight (Done, Delete).
	updatedInFlight(e *entry, oldPod, newPod *spec.Pod, change *spec.PodChange)
	activatedOther(e *entry, pod *spec.Pod) (setMoveRequestCycle bool)
	leftFlight(e *entry)
	// The profile's own state and gauges: snapshot, metrics, consistency.
	snapshot(s *spec.Snapshot)
	metrics(v view, m *MetricsSnapshot)
	check(keyed map[*entry]bool, bad func(string, ...any))
	// backoffFlushDelay is how long the next periodic backoffQ flush
	// waits: the period (classic), or up to the next window start (hints,
	// R5h); alignedFlushes reports whether each flush is scheduled for the
	// next window start rather than one period after the last.
	backoffFlushDelay(now time.Time, period time.Duration) time.Duration
	alignedFlushes() bool

	// Pod groups (G1-G14), answered by the podgroups profile; the classic
	// and hints profiles answer with noGroups: no pod is a member, so
	// queue.go's group branches are never taken there.
	groupRules
}

// groupRules is the podgroups profile's half of profile: questions about
// membership, decisions for group entities (applied by putGroup as moves
// are by put), and the group places it keeps (join, wait and settle, which
// put and putGroup call as they call heap.go for activeQ).
type groupRules interface {
	// member is G1: pod names a group, or e (the entry under its key, nil
	// if none) holds a member.
	member(pod *spec.Pod, e *entry) bool
	// checkUpdate is G9's precondition: an Update never changes a pod's
	// group; e is the entry under its key, nil if none.
	checkUpdate(e *entry, oldPod, newPod *spec.Pod) error
	// (G10's decisions in a move request, podgroupsProfile.groupMoves, are
	// asked by type in moveRequest: see there.)
	// backedOffGroups is R5h for entities; anyOldGroup whether the
	// leftover flush at now takes some entity (R6h).
	backedOffGroups(now time.Time) []decision
	anyOldGroup(now time.Time) bool
	// activateMember is G7 for an Activate of member p (e the entry under
	// its key); updatedMember is G9 for e, a member at a group place, its
	// entry already holding newPod; leaveGroup is G8 for e leaving its
	// group place (Delete).
	activateMember(p *spec.Pod, e *entry) decision
	updatedMember(e *entry, oldPod, newPod *spec.Pod, change *spec.PodChange, now time.Time) decision
	leaveGroup(e *entry, now time.Time) decision
	// join, wait and settle keep the group places: e, detached, joins
	// its group (G2; the entity's new place is the decision returned) or
	// waits at loc (inPending, inIncomplete); ent settles at to.
	join(e *entry, now time.Time) decision
	wait(e *entry, loc place)
	settle(ent *gentity, to place)
}

// noGroups is groupRules where no pod is a member: the questions have
// their empty answers, and the rest is never reached (only a member, or
// a profile's decision for one, leads there) and does nothing.
type noGroups struct{}

func (noGroups) member(*spec.Pod, *entry) bool                  { return false }
func (noGroups) checkUpdate(*entry, *spec.Pod, *spec.Pod) error { return nil }
func (noGroups) backedOffGroups(time.Time) []decision           { return nil }
func (noGroups) anyOldGroup(time.Time) bool                     { return false }
func (noGroups) activateMember(*spec.Pod, *entry) decision      { return decision{} }
func (noGroups) leaveGroup(*entry, time.Time) decision          { return decision{} }
func (noGroups) join(*entry, time.Time) decision                { return decision{} }
func (noGroups) wait(*entry, place)                             {}
func (noGroups) settle(*gentity, place)                         {}
func (noGroups) updatedMember(*entry, *spec.Pod, *spec.Pod, *spec.PodChange, time.Time) decision {
	return decision{}
}

// move is a profile's decision for one pod: the place it goes to (nowhere:
// it stays where it is), the PreEnqueue plugin that refused it (R17: it
// then waits gated in unschedulablePods), and the reason its arrival is
// counted under in MetricQueueIncomingPods (noCount: not counted).
// unexamined sends a pod to backoffQ without PreEnqueue (classic R17): a
// gated pod stays gated there, where a pod PreEnqueue admitted (hints) is
// no longer gated.
type move struct {
	gate       string // first: the byte fields pack after it
	to         place
	why        reason
	unexamined bool
}

// gates runs the PreEnqueue plugins (R17) as spec.Config.RunPreEnqueue
// does, with their names sorted once: the pod's gating plugin first, then
// the others by name; the first refusal decides.
type gates struct {
	pre   spec.PreEnqueuePlugins
	names []string
}

func newGates(cfg *spec.Config) gates {
	return gates{pre: cfg.PreEnqueuePlugins, names: slices.Sorted(maps.Keys(cfg.PreEnqueuePlugins))}
}

// preEnqueue returns the plugin that refuses pod, or "".
func (g *gates) preEnqueue(pod *spec.Pod, gating string) string {
	if len(g.names) == 0 {
		return ""
	}
	if fn, ok := g.pre[gating]; ok && !fn(pod) {
		return gating
	}
	for _, name := range g.names {
		if name != gating && !g.pre[name](pod) {
			return name
		}
	}
	return ""
}

// admit is R17 for a pod bound for to (activeQ; backoffQ in the hints
// profile): there, or gated in unschedulablePods by the plugin that
// refuses it.
func (g *gates) admit(info *podInfo, to place) move {
	if name := g.preEnqueue(info.Pod, info.gating()); name != "" {
		return move{to: inUnschedulablePods, gate: name}
	}
	return move{to: to}
}

// view is what a profile reads of the queue: the clock reading of the
// operation and a few questions. It changes nothing the queue can observe.
type view struct {
	q   *PriorityQueue
	now time.Time
}

// backingOff is cfg.IsBackingOff of e at now.
func (v view) backingOff(e *entry) bool { return v.q.backingOff(e, v.now) }

func (v view) moveRequestCycle() int64 { return v.q.moveRequestCycle }

func (v view) activeQHasPods() bool { return v.q.activeQ.len() > 0 }

// backoffQHasPoppable reports whether backoffQ's window order has a pod.
// It may discard stale slots at the top of that order, which no operation
// observes.
func (v view) backoffQHasPoppable() bool { return v.q.popQ.hasLive() }

// pods calls f for every pod the queue holds, wherever it is.
func (v view) pods(f func(*entry)) { v.q.pods.all(f) }

// newProfile is the one place the queue looks at cfg.Profile. cfg is the
// queue's own copy.
func newProfile(cfg *spec.Config) profile {
	switch cfg.Profile {
	case spec.ProfileHints:
		return newHints(cfg)
	case spec.ProfilePodGroups:
		return newPodGroups(cfg)
	}
	return &classic{cfg: cfg, gates: newGates(cfg)}
}
