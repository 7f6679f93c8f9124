package impl

import (
	"slices"
	"sync/atomic"

	"github.com/schedq/schedq/spec"
)

// nominator is R18, in both profiles: the pods nominated to each node in
// nomination order, and the node of each nominated UID. Its maps are
// guarded by the queue's mutex. A queue whose pods carry no
// NominatedNodeName and that is never asked to nominate keeps both maps
// empty, and Add, Update and Delete pay one length test for it.
//
// Readers do not take the mutex. The scheduler asks NominatedPodsForNode
// once per node in every Filter, from up to 16 goroutines at once, so the
// answers are published for them: count is the number of nominated UIDs,
// and view an immutable map from node to its answer (the pods as the queue
// holds them), built by the first reader after a change and dropped (nil)
// by every writer that may change an answer. When nothing is nominated a
// reader reads count and nothing else; when something is and view is
// current, it reads view and copies one slice. One lock still guards the
// queue: view is a cache of what it guards, rebuilt under it.
//
// Writers drop view before they change the maps and publish count after,
// once per operation, so a reader that sees the new count sees no view
// older than the change, and never the count of a state half-way through
// one operation.
type nominator struct {
	byNode map[string][]*spec.Pod
	nodeOf map[spec.UID]string
	count  atomic.Int64
	view   atomic.Pointer[nomView]
}

// nomView is the published answers: a node's pods by name, and a filter
// that tells most nodes with none without hashing their names (a Filter
// pass asks every node, and most have no nominated pod).
type nomView struct {
	filter [filterBits / 64]uint64
	byNode map[string][]*spec.Pod
}

const filterBits = 1024

// filterBit is a cheap digest of a node name: its length and up to its
// last 8 bytes, where generated names (node-17, ip-10-0-3-4) differ.
func filterBit(node string) uint {
	h := uint(len(node))
	for i := max(0, len(node)-8); i < len(node); i++ {
		h = h*31 + uint(node[i])
	}
	return h % filterBits
}

func (v *nomView) get(node string) []*spec.Pod {
	if b := filterBit(node); v.filter[b/64]&(1<<(b%64)) == 0 {
		return nil
	}
	return v.byNode[node]
}

func newNominator() *nominator {
	return &nominator{byNode: map[string][]*spec.Pod{}, nodeOf: map[spec.UID]string{}}
}

// add nominates pod: any earlier nomination of its UID is dropped, then it
// is appended to its node's list unless the node is empty.
func (n *nominator) add(pod *spec.Pod, mode spec.NominatingMode, nodeName string) {
	dropped := n.drop(pod.UID)
	if mode == spec.NominateNoop {
		nodeName = pod.NominatedNodeName
	}
	if nodeName != "" {
		n.view.Store(nil)
		n.nodeOf[pod.UID] = nodeName
		n.byNode[nodeName] = append(n.byNode[nodeName], pod)
	} else if !dropped {
		// Nothing changed (every Add of a pod without a nomination): the
		// published count stands, and an atomic store per Add is saved.
		return
	}
	n.publish()
}

// update re-nominates the new version of a queued pod, keeping the queue's
// own nomination when neither version carries one.
func (n *nominator) update(oldPod, newPod *spec.Pod) {
	if len(n.nodeOf) == 0 && newPod.NominatedNodeName == "" {
		return
	}
	node, mode := "", spec.NominateNoop
	if oldPod.NominatedNodeName == "" && newPod.NominatedNodeName == "" {
		if nn, ok := n.nodeOf[oldPod.UID]; ok {
			node, mode = nn, spec.NominateOverride
		}
	}
	n.drop(oldPod.UID)
	n.add(newPod, mode, node)
}

// remove drops uid's nomination and reports whether there was one.
func (n *nominator) remove(uid spec.UID) bool {
	if !n.drop(uid) {
		return false
	}
	n.publish()
	return true
}

// drop is remove without publishing the count: a writer that drops a
// nomination and adds one in the same critical section publishes once, at
// its end, so that a reader without the lock never sees the count of an
// intermediate state (a pod's only nomination gone during its update).
func (n *nominator) drop(uid spec.UID) bool {
	if len(n.nodeOf) == 0 {
		return false
	}
	node, ok := n.nodeOf[uid]
	if !ok {
		return false
	}
	n.view.Store(nil)
	delete(n.nodeOf, uid)
	// In place: a published view never shares these arrays.
	pods := slices.DeleteFunc(n.byNode[node], func(p *spec.Pod) bool { return p.UID == uid })
	if len(pods) == 0 {
		delete(n.byNode, node)
	} else {
		n.byNode[node] = pods
	}
	return true
}

// publish makes the count of nominated UIDs what readers see.
func (n *nominator) publish() { n.count.Store(int64(len(n.nodeOf))) }

// touched is called when the queue's pod object of uid changes (a pod
// enters or leaves the queue, or is replaced): the answers show the
// queue's own object of a nominated pod, so a nominated uid's answer
// changes with it.
func (n *nominator) touched(uid spec.UID) {
	if len(n.nodeOf) == 0 {
		return
	}
	if _, ok := n.nodeOf[uid]; ok {
		n.view.Store(nil)
	}
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

// DeleteNominatedPodIfExists drops the nomination of pod's UID, if it has
// one (the scheduler calls it for every pod it assumes). A nil pod, or
// nothing nominated at all, returns at once without taking the queue's
// lock.
func (q *PriorityQueue) DeleteNominatedPodIfExists(pod *spec.Pod) {
	if pod == nil || q.nom.count.Load() == 0 {
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.nom.remove(pod.UID)
}

// NominatedPodsForNode is R18: the pods nominated to nodeName in
// nomination order, each as the queue holds it now if it holds that pod
// object. The caller owns the slice. It takes the queue's lock only to
// rebuild the published answers after a change (see nominator), and not
// at all when nothing is nominated.
func (q *PriorityQueue) NominatedPodsForNode(nodeName string) []*spec.Pod {
	if q.nom.count.Load() == 0 {
		return nil
	}
	v := q.nom.view.Load()
	if v == nil {
		q.mu.Lock()
		if v = q.nom.view.Load(); v == nil {
			v = q.nominatedView()
			q.nom.view.Store(v)
		}
		q.mu.Unlock()
	}
	return slices.Clone(v.get(nodeName))
}

// nominatedView builds the answers of NominatedPodsForNode for every node,
// under mu.
func (q *PriorityQueue) nominatedView() *nomView {
	v := &nomView{byNode: make(map[string][]*spec.Pod, len(q.nom.byNode))}
	for node, pods := range q.nom.byNode {
		b := filterBit(node)
		v.filter[b/64] |= 1 << (b % 64)
		out := make([]*spec.Pod, len(pods))
		for i, p := range pods {
			if e := q.pods.findKey(keyHash(p.Namespace, p.Name), p.Namespace, p.Name); e != nil && e.info.Pod.UID == p.UID {
				p = e.info.Pod
			}
			out[i] = p
		}
		v.byNode[node] = out
	}
	return v
}
