package spec

// R18 The nominator (both profiles). Preemption nominates a pod to a node
// before the API server knows it, so the scheduler must remember the
// nomination itself; the queue keeps that memory, because it is the one
// place that sees every Add, Update and Delete of unscheduled pods:
//
//   - A nomination is set with AddNominatedPod: NominateOverride puts the pod
//     on the given node; NominateNoop takes the pod's own
//     NominatedNodeName. Either way any earlier nomination of the same UID
//     is dropped first, and an empty node means "not nominated". A pod is
//     listed once per node, in the order it was nominated. The pod need not
//     be queued: the pod preemption nominates is normally in flight.
//   - Add (R1, R1h) nominates the new pod by its NominatedNodeName (Noop),
//     before admission, so a gated pod is nominated too.
//   - Update of a pod in activeQ, backoffQ or unschedulablePods (R9, R9h)
//     re-nominates the new version; when neither version carries a
//     NominatedNodeName but the queue had nominated the old one, the queue's
//     nomination is kept (an update racing with the nomination must not
//     erase it). An Update of an in-flight pod leaves the nominator alone,
//     and an Update of an unknown pod is an Add.
//   - Delete (R10) always drops the pod's nomination; it is an error only if
//     the pod was neither queued nor nominated. Done and
//     AddUnschedulableIfNotPresent leave nominations alone.
//   - NominatedPodsForNode lists the pods nominated to a node, in
//     nomination order, each as the queue now holds it (or as it was
//     nominated, if the queue no longer holds it).
//
// Upstream kube-scheduler also refuses to nominate a pod its informer no
// longer has or that is already bound; schedq has no informer, so that
// check is out of scope. kube-scheduler v1.33.13 stored an Override to an
// empty node under the node name ""; v1.37.2, and schedq, treat it as no
// nomination. v1.33.13 nominated on Add only when the pod entered activeQ;
// that differs only for gated pods, which the classic profile has not.
const R18Nominator Rule = "R18 nominator"

// NominatingMode says where AddNominatedPod takes the node from.
type NominatingMode int

const (
	// NominateNoop nominates the pod to its own NominatedNodeName.
	NominateNoop NominatingMode = iota
	// NominateOverride nominates the pod to the node given.
	NominateOverride
)

// Nominator is R18. Both profiles of the model implement it.
type Nominator interface {
	// AddNominatedPod nominates pod (see R18); an invalid pod is an error
	// and changes nothing.
	AddNominatedPod(pod *Pod, mode NominatingMode, nodeName string) error
	// NominatedPodsForNode returns the pods nominated to nodeName, in
	// nomination order; the caller owns the slice.
	NominatedPodsForNode(nodeName string) []*Pod
}
