package properties

import (
	"errors"
	"testing"
	"time"

	"github.com/schedq/schedq/conformance"
	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// The podgroups profile (spec.ProfilePodGroups, G1-G11): its scenarios,
// played on the model and the implementation, and its state machine, the
// implementation and the model stepped together with random operations of
// the profile's language and compared after every step, the podgroups
// invariants (IG1-IG4, spec.CheckPodGroupsStep) checked on both.

// podgroupsMachine is the state machine of the podgroups profile.
const podgroupsMachine = "TestStateMachinePodGroups"

// TestStateMachinePodGroups is TestStateMachine in the podgroups profile:
// pods alone and members of two groups, the groups' objects added,
// updated and deleted, PopEntity, the members' failures, the ends of the
// groups' cycles, and the hints profile's operations over them
// (schedqtest.Drawings[spec.ProfilePodGroups]).
func TestStateMachinePodGroups(t *testing.T) { stateMachine(t, podgroupsMachine, podgroups) }

// TestPodGroupsPopIsNotPopEntity: Pop of a group is ErrGroupEntity on both
// queues and changes nothing (G3).
func TestPodGroupsPopIsNotPopEntity(t *testing.T) {
	cfg := schedqtest.ConfigFor(spec.ProfilePodGroups)
	for _, tg := range []conformance.Target{conformance.ModelTarget(t, cfg, schedqtest.Start), conformance.ImplTarget(t, cfg, schedqtest.Start)} {
		q := tg.(spec.PodGroupQueue)
		if err := q.AddPodGroup(schedqtest.PodGroupOf("g1", 0)); err != nil {
			t.Fatal(err)
		}
		if err := q.Add(&spec.Pod{Namespace: "ns", Name: "a", UID: "uid-a", Group: "g1"}); err != nil {
			t.Fatal(err)
		}
		before := q.Snapshot()
		if _, _, err := q.Pop(); err == nil || !errors.Is(err, spec.ErrGroupEntity) {
			t.Errorf("%s: Pop of a group: %v, want ErrGroupEntity", tg.Info().Name, err)
		}
		after := q.Snapshot()
		before.Now, after.Now = time.Time{}, time.Time{}
		if d := before.Diff(&after); d != "" {
			t.Errorf("%s: the refused Pop changed the queue:\n%s", tg.Info().Name, d)
		}
	}
}
