package model

import (
	"maps"
	"slices"

	"github.com/schedq/schedq/spec"
)

// nominator is R18, shared by both profiles: the nominated pods of each
// node in nomination order, and the node of each nominated UID. Values are
// copied on Clone; the Pod pointers are immutable by contract.
type nominator struct {
	byNode map[string][]*spec.Pod
	nodeOf map[spec.UID]string
}

func newNominator() nominator {
	return nominator{byNode: map[string][]*spec.Pod{}, nodeOf: map[spec.UID]string{}}
}

func (n nominator) clone() nominator {
	c := nominator{byNode: make(map[string][]*spec.Pod, len(n.byNode)), nodeOf: maps.Clone(n.nodeOf)}
	for node, pods := range n.byNode {
		c.byNode[node] = slices.Clone(pods)
	}
	return c
}

func (n nominator) equal(o nominator) bool {
	return maps.Equal(n.nodeOf, o.nodeOf) && maps.EqualFunc(n.byNode, o.byNode, func(a, b []*spec.Pod) bool {
		return slices.EqualFunc(a, b, spec.PodsEqual)
	})
}

// add nominates pod: any earlier nomination of its UID is dropped, then it
// is appended to its node's list unless the node is empty.
func (n nominator) add(pod *spec.Pod, mode spec.NominatingMode, nodeName string) {
	n.remove(pod.UID)
	if mode == spec.NominateNoop {
		nodeName = pod.NominatedNodeName
	}
	if nodeName == "" {
		return
	}
	n.nodeOf[pod.UID] = nodeName
	n.byNode[nodeName] = append(n.byNode[nodeName], pod)
}

// update re-nominates the new version of a queued pod, keeping the queue's
// own nomination when neither version carries one.
func (n nominator) update(oldPod, newPod *spec.Pod) {
	if oldPod.NominatedNodeName == "" && newPod.NominatedNodeName == "" {
		if node, ok := n.nodeOf[oldPod.UID]; ok {
			n.remove(oldPod.UID)
			n.add(newPod, spec.NominateOverride, node)
			return
		}
	}
	n.remove(oldPod.UID)
	n.add(newPod, spec.NominateNoop, "")
}

// remove drops uid's nomination and reports whether there was one.
func (n nominator) remove(uid spec.UID) bool {
	node, ok := n.nodeOf[uid]
	if !ok {
		return false
	}
	delete(n.nodeOf, uid)
	n.byNode[node] = slices.DeleteFunc(slices.Clone(n.byNode[node]), func(p *spec.Pod) bool { return p.UID == uid })
	if len(n.byNode[node]) == 0 {
		delete(n.byNode, node)
	}
	return true
}

// AddNominatedPod is R18's explicit nomination (preemption).
func (m *Model) AddNominatedPod(pod *spec.Pod, mode spec.NominatingMode, nodeName string) error {
	if err := pod.Validate(); err != nil {
		return err
	}
	m.nom.add(pod, mode, nodeName)
	return nil
}

// NominatedPodsForNode is R18: the pods nominated to nodeName in nomination
// order, each as the queue holds it now if it holds that pod object.
func (m *Model) NominatedPodsForNode(nodeName string) []*spec.Pod {
	var out []*spec.Pod
	for _, p := range m.nom.byNode[nodeName] {
		if r, ok := m.pods[p.Key()]; ok && r.info.Pod.UID == p.UID {
			p = r.info.Pod
		}
		out = append(out, p)
	}
	return out
}

var _ spec.Nominator = (*Model)(nil)

// Nominations are the stored nominations: per node, the pod objects as
// nominated, in nomination order (NominatedPodsForNode lists each as the
// queue holds it now instead). A state key that must tell apart every
// two states Equal does (linearizability's) reads them; the slices are
// copies, the pods shared and read-only.
func (m *Model) Nominations() map[string][]*spec.Pod {
	out := make(map[string][]*spec.Pod, len(m.nom.byNode))
	for node, pods := range m.nom.byNode {
		out[node] = slices.Clone(pods)
	}
	return out
}
