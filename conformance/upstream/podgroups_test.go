//go:build !k8s133 && !k8s134 && !k8s135 && !k8s136

package upstream

import (
	"errors"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/schedq/schedq/conformance"
	"github.com/schedq/schedq/conformance/concurrent"
	"github.com/schedq/schedq/model"
	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// groupQueue is what the differential test below drives: the pod-group
// calls of spec.PodGroupQueue on top of spec.Queue, which the model and
// the upstream target both have (the upstream target lacks
// spec.ObjectQueue, in every profile).
type groupQueue interface {
	spec.Queue
	PopEntity() (spec.QueuedEntity, int64, error)
	AddAttemptedPodGroupIfNeeded(gInfo *spec.QueuedPodGroupInfo, schedulingCycle int64, status spec.AttemptStatus) error
	AddPodGroup(pg *spec.PodGroup) error
	UpdatePodGroup(oldPG, newPG *spec.PodGroup) error
	DeletePodGroup(pg *spec.PodGroup) error
}

var _ groupQueue = (*Target)(nil)

func groupMember(name, group string) *spec.Pod {
	p := schedqtest.Pod(name, 0)
	p.Group = group
	return p
}

func podGroup(name string) *spec.PodGroup { return &spec.PodGroup{Namespace: "ns", Name: name} }

// groupSide is one queue of the differential test and what it popped.
type groupSide struct {
	q       groupQueue
	advance func(time.Duration)
	obs     conformance.Observes
	groups  map[spec.PodGroupKey]*spec.QueuedPodGroupInfo
	pods    map[spec.PodKey]*spec.QueuedPodInfo
	cycle   int64
}

// TestPodGroupsAgreesWithModel drives the model and upstream v1.37.2
// (GenericWorkload on) through the same pod-group histories and compares
// their states after every step, as far as the upstream target observes.
// It checks the adapter (a wrong conversion shows as a difference on the
// plainest history) until the conformance suite has scenarios of the
// profile; a history where upstream departs from the contract on purpose
// is in the probes (podgroups_probe_test.go), not here.
func TestPodGroupsAgreesWithModel(t *testing.T) {
	type step struct {
		name string
		do   func(s *groupSide) error
	}
	add := func(p *spec.Pod) step {
		return step{"Add " + p.Name, func(s *groupSide) error { return s.q.Add(p) }}
	}
	addPG := func(name string) step {
		return step{"AddPodGroup " + name, func(s *groupSide) error { return s.q.AddPodGroup(podGroup(name)) }}
	}
	pop := step{"PopEntity", func(s *groupSide) error {
		e, cycle, err := s.q.PopEntity()
		if err != nil {
			return err
		}
		s.cycle = cycle
		if e.Group != nil {
			s.groups[e.Group.Key()] = e.Group
			for i := range e.Group.Members {
				s.pods[e.Group.Members[i].Key()] = &e.Group.Members[i]
			}
		} else {
			s.pods[e.Pod.Key()] = e.Pod
		}
		return nil
	}}
	fail := func(name string) step {
		return step{"fail " + name, func(s *groupSide) error {
			info := *s.pods["ns/"+spec.PodKey(name)]
			info.UnschedulablePlugins = spec.NewPluginSet(schedqtest.PluginFit)
			return s.q.AddUnschedulableIfNotPresent(&info, s.cycle)
		}}
	}
	done := func(name string) step {
		return step{"Done " + name, func(s *groupSide) error { return s.q.Done(s.pods["ns/"+spec.PodKey(name)].Pod.UID) }}
	}
	end := func(group string, st spec.AttemptStatus) step {
		return step{"AddAttemptedPodGroupIfNeeded " + group + " " + st.String(), func(s *groupSide) error {
			return s.q.AddAttemptedPodGroupIfNeeded(s.groups["ns/"+spec.PodGroupKey(group)], s.cycle, st)
		}}
	}
	advance := func(d time.Duration) step {
		return step{"Advance " + d.String(), func(s *groupSide) error { s.advance(d); return nil }}
	}
	flush := step{"FlushBackoffQCompleted", func(s *groupSide) error { s.q.FlushBackoffQCompleted(); return nil }}
	del := func(p *spec.Pod) step {
		return step{"Delete " + p.Name, func(s *groupSide) error { return s.q.Delete(p) }}
	}
	delPG := func(name string) step {
		return step{"DeletePodGroup " + name, func(s *groupSide) error { return s.q.DeletePodGroup(podGroup(name)) }}
	}
	activate := func(p *spec.Pod) step {
		return step{"Activate " + p.Name, func(s *groupSide) error { return s.q.Activate([]*spec.Pod{p}) }}
	}
	a, b, c := groupMember("a", "g"), groupMember("b", "g"), groupMember("c", "g")
	for _, h := range []struct {
		name  string
		steps []step
	}{
		{"incomplete-then-known", []step{add(a), add(b), addPG("g"), pop, done("a"), done("b"), end("g", spec.AttemptSuccess)}},
		{"rejected-group-backs-off", []step{addPG("g"), add(a), add(b), pop, fail("a"), fail("b"), end("g", spec.AttemptRejected),
			advance(time.Second), flush, advance(2 * time.Second), flush, pop}},
		{"member-added-during-cycle", []step{addPG("g"), add(a), pop, add(b), done("a"), end("g", spec.AttemptSuccess), pop}},
		{"member-joins-queued-entity", []step{addPG("g"), add(a), add(b), add(c), pop}},
		{"error-then-success", []step{addPG("g"), add(a), add(b), pop, fail("a"), done("b"), end("g", spec.AttemptError),
			advance(3 * time.Second), flush, pop, done("a"), end("g", spec.AttemptSuccess)}},
		{"delete-member-and-group", []step{addPG("g"), add(a), add(b), del(a), delPG("g"), addPG("g"), pop}},
		{"activate-member", []step{addPG("g"), add(a), pop, fail("a"), end("g", spec.AttemptRejected), activate(a), pop}},
	} {
		t.Run(h.name, func(t *testing.T) {
			cfg := schedqtest.HintsConfig()
			cfg.Profile = spec.ProfilePodGroups
			start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			m, err := model.New(cfg, start)
			if err != nil {
				t.Fatal(err)
			}
			up := QueueingHints()(t, cfg, start)
			sides := []*groupSide{
				{q: m, advance: func(d time.Duration) {
					if err := m.Step(d); err != nil {
						t.Fatal(err)
					}
				}},
				{q: up.(groupQueue), advance: up.Advance, obs: up.Info().Observes},
			}
			for _, s := range sides {
				s.groups, s.pods = map[spec.PodGroupKey]*spec.QueuedPodGroupInfo{}, map[spec.PodKey]*spec.QueuedPodInfo{}
			}
			for i, st := range h.steps {
				errM, errU := st.do(sides[0]), st.do(sides[1])
				if (errM == nil) != (errU == nil) || errM != nil && !errors.Is(errU, errors.Unwrap(errM)) && errors.Unwrap(errM) != nil {
					t.Fatalf("step %d %s: model %v, upstream %v", i, st.name, errM, errU)
				}
				sm, su := conformance.Observed(sides[1].obs, m.Snapshot()), conformance.Observed(sides[1].obs, sides[1].q.Snapshot())
				if d := sm.Diff(&su); d != "" {
					t.Fatalf("step %d %s: model and upstream differ:\n%s", i, st.name, d)
				}
			}
		})
	}
}

// The pod-group calls of the concurrent adapter (concurrent_test.go): each
// under the adapter's mutex, as its other operations; PopEntity calls
// upstream's Pop outside it, as Pop does, so that it blocks as upstream's.
// Upstream takes its own lock for each call, so the mutex hides no
// interleaving upstream has.

func (c *concurrentTarget) PopEntity() (spec.QueuedEntity, int64, error) {
	e, err := c.q.Pop(c.logger)
	if err != nil {
		return spec.QueuedEntity{}, 0, err
	}
	cycle := c.q.SchedulingCycle()
	defer c.locked()()
	return c.recordEntity(e, cycle)
}

func (c *concurrentTarget) AddAttemptedPodGroupIfNeeded(g *spec.QueuedPodGroupInfo, cycle int64, s spec.AttemptStatus) error {
	defer c.locked()()
	return c.Target.AddAttemptedPodGroupIfNeeded(g, cycle, s)
}

func (c *concurrentTarget) AddPodGroup(pg *spec.PodGroup) error {
	defer c.locked()()
	return c.Target.AddPodGroup(pg)
}

func (c *concurrentTarget) UpdatePodGroup(oldPG, newPG *spec.PodGroup) error {
	defer c.locked()()
	return c.Target.UpdatePodGroup(oldPG, newPG)
}

func (c *concurrentTarget) DeletePodGroup(pg *spec.PodGroup) error {
	defer c.locked()()
	return c.Target.DeletePodGroup(pg)
}

var _ concurrent.PodGroupTarget = (*concurrentTarget)(nil)

// TestConcurrentPodGroups runs the pod-group races (conformance/concurrent,
// podgroups.go) on v1.37.2 with GenericWorkload on. Two are known
// findings, reported with their rates instead of failing: cleared-marker
// and stranded-pending, probes (a) and (b) of docs/podgroups-upstream.md,
// whose sequential reproductions are in podgroups_probe_test.go. The
// third, late-member-failure, must keep the contract.
// SCHEDQ_PROBE_ITERATIONS sets the trials (default 200).
func TestConcurrentPodGroups(t *testing.T) {
	n := 200
	if s := os.Getenv("SCHEDQ_PROBE_ITERATIONS"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 {
			t.Fatalf("SCHEDQ_PROBE_ITERATIONS=%q: want a positive integer", s)
		}
		n = v
	}
	concurrent.ReportPodGroupRaces(t, groupSafe(QueueingHints()), n, map[string]string{"cleared-marker": "F04", "stranded-pending": "F04"})
}

// groupSafe is concurrentSafe for the podgroups profile's target.
func groupSafe(newTarget conformance.NewTarget) conformance.NewTarget {
	return func(t testing.TB, cfg spec.Config, start time.Time) conformance.Target {
		g := newTarget(t, cfg, start).(groupTarget)
		return &concurrentTarget{Target: g.Target, popSem: make(chan struct{}, 1), changed: make(chan struct{})}
	}
}
