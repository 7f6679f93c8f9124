package linearizability

import (
	"slices"

	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// The workload of the podgroups profile (spec.ProfilePodGroups, rules
// G1-G11): about half of the clients' pods are members of one of two pod
// groups, so that a group gathers members of several clients, and every
// client may add, update and delete the PodGroup objects. "pop" is
// PopEntity: a client that pops a group holds it, then fails or finishes
// (Done) its members one operation at a time and ends the group's cycle
// (AddAttemptedPodGroupIfNeeded) with a random status, sometimes before
// every member is finished, so that a member's failure races the end of
// its group's cycle (G4, G5), and other clients' Adds, Activates, Deletes
// and moves meet a group in flight (G2, G7, G8, G10).
//
// Two groups keep the checker's search where the other profiles' is: the
// groups' state (the objects, the entities, the open cycles, the pending
// and incomplete members) is part of every state key, and a quiescent
// point's Snapshot pins it as it pins the pods.

// podGroups are the groups of the podgroups profile's workload.
var podGroups = []string{"g0", "g1"}

// podGroupWeights are weights with the pod-group objects' operations
// (G11); Add of a member is an Add.
var podGroupWeights = append(slices.Clone(weights), []weight{
	{schedqtest.KindPodGroupAdd, 6}, {schedqtest.KindPodGroupUpdate, 2}, {schedqtest.KindPodGroupDelete, 2},
}...)

var totalPodGroupWeight = sumWeights(podGroupWeights)

// heldGroup is a group PopEntity returned to the client, and the members
// of it the client has not yet failed or finished.
type heldGroup struct {
	popped  schedqtest.PoppedGroup
	members []spec.QueuedPodInfo
}

// podGroupOp draws the group and priority of a PodGroup object's add,
// update or delete. Priorities end in 5, pods' in 0: an entity never ties
// with a pod on priority, which would leave the order to Timestamps and
// widen the search.
func (c *client) podGroupOp(op *schedqtest.Op) {
	op.Group = podGroups[c.rng.IntN(len(podGroups))]
	if op.Kind != schedqtest.KindPodGroupDelete {
		op.GroupPriority = int32(c.rng.IntN(c.w.Clients*c.w.PodsPerClient))*10 + 5
	}
}

// finishGroup goes on with a group the client holds: most often a member
// fails (G4) or is finished (Done: bound), else the group's cycle ends
// (G5) with a random status, and the members not yet finished are then
// held alone, to fail or finish after the end of the cycle.
func (c *client) finishGroup() {
	i := c.rng.IntN(len(c.groups))
	g := &c.groups[i]
	if len(g.members) > 0 && c.rng.IntN(3) > 0 {
		j := c.rng.IntN(len(g.members))
		h := schedqtest.Popped{Info: g.members[j], Cycle: g.popped.Cycle}
		g.members = slices.Delete(g.members, j, j+1)
		p := h.Info.Pod
		if c.rng.IntN(2) == 0 {
			cycle := h.Cycle
			c.call(c.log, Input{Op: schedqtest.Op{Kind: schedqtest.KindFail, Pod: schedqtest.PodRef{Name: p.Name},
				Plugins: c.rejectors(), Cycle: &cycle}, Popped: &h})
			return
		}
		c.call(c.log, Input{Op: schedqtest.Op{Kind: schedqtest.KindDone, UID: string(p.UID)}})
		c.setFree(p.Key())
		return
	}
	held := *g
	c.groups = slices.Delete(c.groups, i, i+1)
	status := []spec.AttemptStatus{spec.AttemptSuccess, spec.AttemptRejected, spec.AttemptError}[c.rng.IntN(3)]
	c.call(c.log, Input{Op: schedqtest.Op{Kind: schedqtest.KindAttempted, Group: held.popped.Info.PodGroup.Name, Status: status},
		PoppedGroup: &held.popped})
	for _, m := range held.members {
		c.held = append(c.held, schedqtest.Popped{Info: m, Cycle: held.popped.Cycle})
	}
}

// groupClocked is a fakeClocked queue with pod groups
// (spec.PodGroupQueue): impl and the model.
type groupClocked struct {
	objectClocked
	pq spec.PodGroupQueue
}

func (g groupClocked) PopEntity() (spec.QueuedEntity, int64, error) { return g.pq.PopEntity() }

func (g groupClocked) AddAttemptedPodGroupIfNeeded(gInfo *spec.QueuedPodGroupInfo, cycle int64, status spec.AttemptStatus) error {
	return g.pq.AddAttemptedPodGroupIfNeeded(gInfo, cycle, status)
}

func (g groupClocked) AddPodGroup(pg *spec.PodGroup) error { return g.pq.AddPodGroup(pg) }

func (g groupClocked) UpdatePodGroup(oldPG, newPG *spec.PodGroup) error {
	return g.pq.UpdatePodGroup(oldPG, newPG)
}

func (g groupClocked) DeletePodGroup(pg *spec.PodGroup) error { return g.pq.DeletePodGroup(pg) }
