package impl

import (
	"slices"

	"github.com/schedq/schedq/spec"
)

// nominator is R18, in both profiles: the pods nominated to each node in
// nomination order, and the node of each nominated UID. It is guarded by
// the queue's mutex. A queue whose pods carry no NominatedNodeName and that
// is never asked to nominate keeps both maps empty, and Add, Update and
// Delete pay one length test for it.
type nominator struct {
	byNode map[string][]*spec.Pod
	nodeOf map[spec.UID]string
}

func newNominator() nominator {
	return nominator{byNode: map[string][]*spec.Pod{}, nodeOf: map[spec.UID]string{}}
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
	if len(n.nodeOf) == 0 && newPod.NominatedNodeName == "" {
		return
	}
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
	if len(n.nodeOf) == 0 {
		return false
	}
	node, ok := n.nodeOf[uid]
	if !ok {
		return false
	}
	delete(n.nodeOf, uid)
	pods := slices.DeleteFunc(n.byNode[node], func(p *spec.Pod) bool { return p.UID == uid })
	if len(pods) == 0 {
		delete(n.byNode, node)
	} else {
		n.byNode[node] = pods
	}
	return true
}

var _ spec.Nominator = (*PriorityQueue)(nil)

// AddNominatedPod is R18: preemption nominates pod to a node (Override) or
// to its own NominatedNodeName (Noop). An invalid pod is an error and
// changes nothing. The pod need not be queued.
func (q *PriorityQueue) AddNominatedPod(pod *spec.Pod, mode spec.NominatingMode, nodeName string) error {
	if err := pod.Validate(); err != nil {
		return err
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.nom.add(pod, mode, nodeName)
	return nil
}

// NominatedPodsForNode is R18: the pods nominated to nodeName in
// nomination order, each as the queue holds it now if it holds that pod
// object. The caller owns the slice.
func (q *PriorityQueue) NominatedPodsForNode(nodeName string) []*spec.Pod {
	q.mu.Lock()
	defer q.mu.Unlock()
	var out []*spec.Pod
	for _, p := range q.nom.byNode[nodeName] {
		if e := q.pods.findKey(keyHash(p.Namespace, p.Name), p.Namespace, p.Name); e != nil && e.info.Pod.UID == p.UID {
			p = e.info.Pod
		}
		out = append(out, p)
	}
	return out
}
