//go:build !k8s133 && !k8s134 && !k8s135 && !k8s136

package upstream

import (
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/schedq/schedq/conformance"
	"github.com/schedq/schedq/conformance/concurrent"
	"github.com/schedq/schedq/spec"
)

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
