package stategraph

import (
	"fmt"
	"slices"
	"strconv"
)

// The places only the pod-groups profile has, spelled as in
// SchedulingQueuePodGroups.tla.
const (
	PendingPodGroupPods    = "pendingPodGroupPods"
	IncompletePodGroupPods = "incompletePodGroupPods"
)

// GroupsState is one state of SchedulingQueuePodGroups.tla, and of a
// model.Model of the podgroups profile plus the QueuedPodGroupInfo the
// scheduler holds, under the projection agreement_podgroups_test.go
// states: where each held pod is, what each held entity carries that
// decides a later step, the known PodGroup objects, the open cycles and
// the scheduler's side of the one that runs.
type GroupsState struct {
	Now             int
	SchedulingCycle int
	// Places maps every pod the queue holds to its place: activeQ,
	// backoffQ, unschedulablePods (a member: its entity's), inFlight,
	// pendingPodGroupPods or incompletePodGroupPods.
	Places map[string]string
	// Entities maps every entity the queue holds (a pod outside groups held
	// anywhere, a group whose entity is queued) to its fields.
	Entities  map[string]EntityData
	PodGroups []string // the known PodGroup objects, sorted
	InCycle   []string // the groups whose cycle is open, sorted
	// Cycle is the group cycle the scheduler runs, nil for none.
	Cycle *GroupCycle
}

// EntityData are the fields of a held entity, in ticks.
type EntityData struct {
	Timestamp              int
	UnschedulableCount     int
	ConsecutiveErrorsCount int
	BackoffExpiry          int // NoTime if none
}

// GroupCycle is what the scheduler holds while a group's cycle runs: the
// popped entity's counts and Timestamp and the members popped (sorted).
type GroupCycle struct {
	Group                  string
	Timestamp              int
	UnschedulableCount     int
	ConsecutiveErrorsCount int
	Popped                 []string
}

// String is the canonical encoding, e.g.
//
//	now=1 schedulingCycle=1 a=inFlight b=pendingPodGroupPods c=activeQ podGroups={g} inCycle={g} cycle=g(ts=0,uc=0,ce=0,popped={a}) entity:c(ts=1,uc=0,ce=0,expiry=-)
//
// pods and entities in key order, those the queue does not hold left out.
func (s GroupsState) String() string {
	var b []byte
	b = append(b, "now="...)
	b = strconv.AppendInt(b, int64(s.Now), 10)
	b = append(b, " schedulingCycle="...)
	b = strconv.AppendInt(b, int64(s.SchedulingCycle), 10)
	for _, k := range sortedKeys(s.Places) {
		b = append(b, ' ')
		b = append(b, k...)
		b = append(b, '=')
		b = append(b, s.Places[k]...)
	}
	b = append(b, " podGroups="...)
	b = appendSet(b, s.PodGroups)
	b = append(b, " inCycle="...)
	b = appendSet(b, s.InCycle)
	b = append(b, " cycle="...)
	if c := s.Cycle; c == nil {
		b = append(b, '-')
	} else {
		b = append(b, c.Group...)
		b = append(b, "(ts="...)
		b = strconv.AppendInt(b, int64(c.Timestamp), 10)
		b = append(b, ",uc="...)
		b = strconv.AppendInt(b, int64(c.UnschedulableCount), 10)
		b = append(b, ",ce="...)
		b = strconv.AppendInt(b, int64(c.ConsecutiveErrorsCount), 10)
		b = append(b, ",popped="...)
		b = appendSet(b, c.Popped)
		b = append(b, ')')
	}
	for _, k := range sortedKeys(s.Entities) {
		e := s.Entities[k]
		b = append(b, " entity:"...)
		b = append(b, k...)
		b = append(b, "(ts="...)
		b = strconv.AppendInt(b, int64(e.Timestamp), 10)
		b = append(b, ",uc="...)
		b = strconv.AppendInt(b, int64(e.UnschedulableCount), 10)
		b = append(b, ",ce="...)
		b = strconv.AppendInt(b, int64(e.ConsecutiveErrorsCount), 10)
		b = append(b, ",expiry="...)
		b = appendTime(b, e.BackoffExpiry)
		b = append(b, ')')
	}
	return string(b)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// groupsStateFromVars maps the variables of SchedulingQueuePodGroups.tla
// to a GroupsState. The ghosts are checked, not encoded: live must be the
// pods held (NoLostPod) and skippedBackoff FALSE (NoBackoffSkip), so that
// they tell no two states apart and a graph that breaks either is refused.
// An entity the queue does not hold must carry no data (TypeOK).
func groupsStateFromVars(vars map[string]Value) (GroupsState, error) {
	var err error
	get := getter(vars, &err)
	known := []string{"activeQ", "backoffQ", "unschedulablePods", "inFlight", "members", "pendingPodGroupPods",
		"incompletePodGroupPods", "podGroups", "inCycle", "groupCycle", "unschedulableCount",
		"consecutiveErrorsCount", "backoffExpiry", "timestamp", "now", "schedulingCycle", "live", "skippedBackoff"}
	if err := checkKnown(vars, known, "SchedulingQueuePodGroups.tla"); err != nil {
		return GroupsState{}, err
	}
	if err := ghostsFalse(get, "skippedBackoff"); err != nil {
		return GroupsState{}, err
	}
	s := GroupsState{Places: map[string]string{}, Entities: map[string]EntityData{}}
	s.Now = get("now").Int(&err)
	s.SchedulingCycle = get("schedulingCycle").Int(&err)
	s.PodGroups = get("podGroups").Strings(&err)
	s.InCycle = get("inCycle").Strings(&err)
	members := get("members").Record(&err)
	uc := get("unschedulableCount").Record(&err)
	ce := get("consecutiveErrorsCount").Record(&err)
	expiry := get("backoffExpiry").Record(&err)
	ts := get("timestamp").Record(&err)
	live := get("live").Strings(&err)
	cycle := get("groupCycle").Record(&err)
	if err != nil {
		return GroupsState{}, err
	}
	place := func(pod, loc string) error {
		if prev, ok := s.Places[pod]; ok {
			return fmt.Errorf("pod %s is in %s and %s", pod, prev, loc)
		}
		s.Places[pod] = loc
		return nil
	}
	for _, q := range []string{ActiveQ, BackoffQ, UnschedulablePods} {
		for _, e := range get(q).Strings(&err) {
			pods := []string{e}
			if m, isGroup := members[e]; isGroup {
				pods = m.Strings(&err)
			}
			for _, p := range pods {
				if perr := place(p, q); perr != nil {
					return GroupsState{}, perr
				}
			}
		}
	}
	for _, q := range []string{InFlight, PendingPodGroupPods, IncompletePodGroupPods} {
		for _, p := range get(q).Strings(&err) {
			if perr := place(p, q); perr != nil {
				return GroupsState{}, perr
			}
		}
	}
	if err != nil {
		return GroupsState{}, err
	}
	if held := sortedKeys(s.Places); !slices.Equal(held, live) {
		return GroupsState{}, fmt.Errorf("the pods held %v are not the live ones %v", held, live)
	}
	for e := range ts {
		d := EntityData{Timestamp: ts[e].Int(&err), UnschedulableCount: uc[e].Int(&err),
			ConsecutiveErrorsCount: ce[e].Int(&err), BackoffExpiry: expiry[e].Int(&err)}
		if err != nil {
			return GroupsState{}, fmt.Errorf("entity %s: %w", e, err)
		}
		if d.Timestamp == NoTime {
			if d != (EntityData{Timestamp: NoTime, BackoffExpiry: NoTime}) {
				return GroupsState{}, fmt.Errorf("entity %s is not held yet has data %+v", e, d)
			}
			continue
		}
		s.Entities[e] = d
	}
	if g := cycle["group"].Str(&err); g != "" {
		s.Cycle = &GroupCycle{Group: g, Timestamp: cycle["timestamp"].Int(&err),
			UnschedulableCount: cycle["unschedulableCount"].Int(&err), ConsecutiveErrorsCount: cycle["consecutiveErrorsCount"].Int(&err),
			Popped: cycle["popped"].Strings(&err)}
	}
	if err != nil {
		return GroupsState{}, fmt.Errorf("groupCycle: %w", err)
	}
	return s, nil
}
