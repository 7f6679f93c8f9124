package spec

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Snapshot is a copy of everything a queue holds at one instant: the pods of
// each place (each list sorted by key) and both cycle counters. Heap order is
// not part of it: which pod Pop may return is a function of the activeQ set
// (MaximalPods). Snapshots are what every suite compares and what the
// invariants are stated over, so a queue's snapshot must be canonical: Now
// is the queue's clock at that instant (never zero: backoff expiries are
// read against it), each list is sorted by key (SortPods) whatever order
// the queue keeps, and each UnschedulablePlugins is a normalised plugin
// set (NewPluginSet). The conformance suite checks this first and names a
// snapshot that breaks it as an adapter mistake.
type Snapshot struct {
	Now               time.Time
	ActiveQ           []QueuedPodInfo
	BackoffQ          []QueuedPodInfo
	UnschedulablePods []QueuedPodInfo
	InFlight          []QueuedPodInfo
	SchedulingCycle   int64
	MoveRequestCycle  int64
	Closed            bool
	// InFlightEvents is the hints profile's in-flight list (R15); always
	// empty in the classic profile.
	InFlightEvents []InFlightEntry
	// PodGroups is the podgroups profile's state of pod groups (entities,
	// pending and incomplete members, open cycles); nil in the other
	// profiles. Members waiting in pendingPodGroupPods or
	// incompletePodGroupPods are listed there, not in the four places.
	PodGroups *PodGroupsState
}

// Places returns the four places in Location order, for iteration.
func (s *Snapshot) Places() [4]struct {
	Loc  Location
	Pods []QueuedPodInfo
} {
	type place = struct {
		Loc  Location
		Pods []QueuedPodInfo
	}
	return [4]place{{InActiveQ, s.ActiveQ}, {InBackoffQ, s.BackoffQ},
		{InUnschedulablePods, s.UnschedulablePods}, {InFlight, s.InFlight}}
}

// SortPods sorts pods by key; snapshot producers call it on every list.
func SortPods(pods []QueuedPodInfo) {
	slices.SortFunc(pods, func(a, b QueuedPodInfo) int { return strings.Compare(string(a.Key()), string(b.Key())) })
}

// Find returns where the pod with this key is and its info.
func (s *Snapshot) Find(key PodKey) (Location, QueuedPodInfo) {
	for _, pl := range s.Places() {
		i, ok := slices.BinarySearchFunc(pl.Pods, key, func(p QueuedPodInfo, k PodKey) int {
			return strings.Compare(string(p.Key()), string(k))
		})
		if ok {
			return pl.Loc, pl.Pods[i]
		}
	}
	return Nowhere, QueuedPodInfo{}
}

// Locations maps every key the queue holds to its place. A key held twice
// keeps its last place; I1 catches that.
func (s *Snapshot) Locations() map[PodKey]Location {
	m := make(map[PodKey]Location)
	for _, pl := range s.Places() {
		for i := range pl.Pods {
			m[pl.Pods[i].Key()] = pl.Loc
		}
	}
	return m
}

// Len is the number of pods held.
func (s *Snapshot) Len() int {
	return len(s.ActiveQ) + len(s.BackoffQ) + len(s.UnschedulablePods) + len(s.InFlight)
}

// MaximalPods returns the keys of the pods Pop may return from activeQ: those
// no other pod precedes under Less (I5). Upstream breaks ties by heap
// layout, so every maximal pod is an allowed outcome.
func MaximalPods(activeQ []QueuedPodInfo) []PodKey {
	var out []PodKey
	for i := range activeQ {
		maximal := true
		for j := range activeQ {
			if i != j && Less(&activeQ[j], &activeQ[i]) {
				maximal = false
				break
			}
		}
		if maximal {
			out = append(out, activeQ[i].Key())
		}
	}
	return out
}

// Diff describes how o differs from s, or returns "" if they are equal.
// Now is compared too. It is the stdlib-only counterpart of a go-cmp diff,
// for the invariants; tests print go-cmp diffs.
func (s *Snapshot) Diff(o *Snapshot) string {
	var b strings.Builder
	if !s.Now.Equal(o.Now) {
		fmt.Fprintf(&b, "Now: %v != %v\n", s.Now, o.Now)
	}
	if s.SchedulingCycle != o.SchedulingCycle {
		fmt.Fprintf(&b, "SchedulingCycle: %d != %d\n", s.SchedulingCycle, o.SchedulingCycle)
	}
	if s.MoveRequestCycle != o.MoveRequestCycle {
		fmt.Fprintf(&b, "MoveRequestCycle: %d != %d\n", s.MoveRequestCycle, o.MoveRequestCycle)
	}
	if s.Closed != o.Closed {
		fmt.Fprintf(&b, "Closed: %v != %v\n", s.Closed, o.Closed)
	}
	b.WriteString(s.PodGroups.Diff(o.PodGroups))
	if !InFlightEquivalent(s.InFlightEvents, o.InFlightEvents) {
		fmt.Fprintf(&b, "InFlightEvents: %v != %v\n", s.InFlightEvents, o.InFlightEvents)
	}
	sp, op := s.Places(), o.Places()
	for i := range sp {
		a, c := sp[i].Pods, op[i].Pods
		if len(a) != len(c) {
			fmt.Fprintf(&b, "%s: %d pods %v != %d pods %v\n", sp[i].Loc, len(a), keys(a), len(c), keys(c))
			continue
		}
		for j := range a {
			if d := diffInfo(&a[j], &c[j]); d != "" {
				fmt.Fprintf(&b, "%s[%d]: %s\n", sp[i].Loc, j, d)
			}
		}
	}
	return b.String()
}

func keys(pods []QueuedPodInfo) []PodKey {
	out := make([]PodKey, len(pods))
	for i := range pods {
		out[i] = pods[i].Key()
	}
	return out
}

func diffInfo(a, b *QueuedPodInfo) string {
	switch {
	case a.Key() != b.Key():
		return fmt.Sprintf("pod %s != %s", a.Key(), b.Key())
	case !PodsEqual(a.Pod, b.Pod):
		return fmt.Sprintf("pod %s: spec %+v != %+v", a.Key(), *a.Pod, *b.Pod)
	case !a.Timestamp.Equal(b.Timestamp):
		return fmt.Sprintf("pod %s: Timestamp %v != %v", a.Key(), a.Timestamp, b.Timestamp)
	case a.Attempts != b.Attempts:
		return fmt.Sprintf("pod %s: Attempts %d != %d", a.Key(), a.Attempts, b.Attempts)
	case !slices.Equal(a.UnschedulablePlugins, b.UnschedulablePlugins):
		return fmt.Sprintf("pod %s: UnschedulablePlugins %v != %v", a.Key(), a.UnschedulablePlugins, b.UnschedulablePlugins)
	case !a.InitialAttemptTimestamp.Equal(b.InitialAttemptTimestamp):
		return fmt.Sprintf("pod %s: InitialAttemptTimestamp %v != %v", a.Key(), a.InitialAttemptTimestamp, b.InitialAttemptTimestamp)
	}
	return diffHintFields(a, b)
}
