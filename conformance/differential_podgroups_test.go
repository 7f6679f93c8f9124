package conformance

import (
	"flag"
	"strings"
	"testing"
	"time"

	"github.com/schedq/schedq/spec"
)

// Broken pod-group targets, each wrong one call at a time, on the model:
// the podgroups random runs must catch every one with a scenario of the
// profile (they are not vacuous).

// attemptAlwaysSucceeds ends every group cycle as a success (G5): a
// rejected group is retried at once instead of backing off.
type attemptAlwaysSucceeds struct{ modelT }

func (q attemptAlwaysSucceeds) AddAttemptedPodGroupIfNeeded(g *spec.QueuedPodGroupInfo, cycle int64, _ spec.AttemptStatus) error {
	return q.modelT.AddAttemptedPodGroupIfNeeded(g, cycle, spec.AttemptSuccess)
}

// popDropsMember hands a group of two or more members out without its
// last one (G3, IG2).
type popDropsMember struct{ modelT }

func (q popDropsMember) PopEntity() (spec.QueuedEntity, int64, error) {
	e, c, err := q.modelT.PopEntity()
	if err == nil && e.Group != nil && len(e.Group.Members) > 1 {
		g := *e.Group
		g.Members = g.Members[:len(g.Members)-1]
		e.Group = &g
	}
	return e, c, err
}

// deleteGroupForgetsMembers forgets a PodGroup object without sending its
// queued members back to incompletePodGroupPods (G11): it reports success
// and changes nothing.
type deleteGroupForgetsMembers struct{ modelT }

func (deleteGroupForgetsMembers) DeletePodGroup(*spec.PodGroup) error { return nil }

func TestPodGroupsDifferentialCatchesBrokenTargets(t *testing.T) {
	skipShort(t)
	if err := flag.Set("rapid.nofailfile", "true"); err != nil {
		t.Fatal(err)
	}
	defer flag.Set("rapid.nofailfile", "false")
	setFlag(t, "rapid.checks", "2000") // a budget: rapid stops at the first failure
	// Shrinking (30 s per failure by default) is not what this test checks:
	// a scenario is printed however far it got.
	setFlag(t, "rapid.shrinktime", "2s")
	for name, nt := range map[string]NewTarget{
		"the end of a cycle always succeeds": func(t testing.TB, cfg spec.Config, start time.Time) Target {
			return attemptAlwaysSucceeds{newModelT(t, cfg, start)}
		},
		"PopEntity drops a member": func(t testing.TB, cfg spec.Config, start time.Time) Target {
			return popDropsMember{newModelT(t, cfg, start)}
		},
		"DeletePodGroup does nothing": func(t testing.TB, cfg spec.Config, start time.Time) Target {
			return deleteGroupForgetsMembers{newModelT(t, cfg, start)}
		},
	} {
		rec := &recordTB{TB: t}
		func() {
			done := make(chan struct{})
			go func() { defer close(done); checkDifferential(rec, t, nt, nil, spec.ProfilePodGroups) }()
			<-done
		}()
		out := rec.String()
		if !rec.Failed() {
			t.Errorf("%s: the podgroups random runs did not catch it:\n%s", name, out)
			continue
		}
		if !strings.Contains(out, "config profile=podgroups") || !strings.Contains(out, scenarioMarker) {
			t.Errorf("%s: the failure prints no podgroups scenario:\n%s", name, out)
		}
		t.Logf("%s: caught", name)
	}
}

// A target without pod groups is n/a for the podgroups random runs.
func TestPodGroupsDifferentialNotApplicable(t *testing.T) {
	res := differentialResult(t, classicOnly, Options{}, spec.ProfilePodGroups, false, nil)
	if res.Outcome != NotApplicable {
		t.Errorf("a classic-only target: %s (%s), want n/a", res.Outcome, res.Detail)
	}
}
