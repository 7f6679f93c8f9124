package spec

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// PodKey identifies a pod inside the queue: "namespace/name". The queue
// indexes by key, as upstream does, so a pod deleted and recreated under the
// same name is the same queue entry.
type PodKey string

// UID is the API server's unique id of a pod object. Done (R12) names pods
// by UID because that is what the scheduler has at the end of a cycle.
type UID string

// Pod is the part of a v1.Pod the queue looks at. The queue keeps the
// pointer it is given and never writes through it: treat a Pod handed to a
// queue as immutable and pass a new value to Update (R9).
type Pod struct {
	Namespace string
	Name      string
	UID       UID
	// Priority orders activeQ: higher first (I5).
	Priority int32
	Labels   map[string]string
	// RequiredAffinityTerms are the pod's required pod-affinity terms; an
	// assigned pod matching one of them may make this pod schedulable (R11).
	RequiredAffinityTerms []AffinityTerm
	// ResourceVersion and Status change on writes that never make a pod
	// schedulable; IsPodUpdated ignores them (R9).
	ResourceVersion string
	Status          string
	// NominatedNodeName is the status field preemption sets: the node the
	// pod is expected to run on once victims are gone (R18). Like Status it
	// never makes a pod schedulable.
	NominatedNodeName string
	// Object is the caller's own object for this pod (a *v1.Pod, say, with
	// everything Pod leaves out): opaque to the queue, which keeps it with
	// the pod and returns it untouched wherever it returns the pod (Pop,
	// Snapshot, the nominator, the objects of events and of the in-flight
	// list) and hands it to the queueing hints with the pod (R19). The
	// queue never reads it: its answers depend on the fields above and, for
	// an update, on the caller's PodChange.
	Object any
	// Group names the pod group (a PodGroup in the pod's namespace) the pod
	// belongs to: upstream's pod.Spec.SchedulingGroup. Empty: the pod is
	// no member. Only the podgroups profile reads it (G1); the other
	// profiles queue every pod alone. A pod's group never changes: an
	// Update that changes it is ErrInvalidPod there.
	Group string
}

// Key returns the pod's queue key.
func (p *Pod) Key() PodKey { return PodKey(p.Namespace + "/" + p.Name) }

// String names the pod for error messages and visualisations.
func (p *Pod) String() string {
	if p == nil {
		return "<nil pod>"
	}
	return string(p.Key())
}

// Validate reports why a pod cannot enter a queue: it is nil, has no name
// or no UID, or has a "/" in its namespace or name. Every operation that takes a pod checks this first and
// changes nothing when it fails.
func (p *Pod) Validate() error {
	switch {
	case p == nil:
		return ErrNilPod
	case p.Name == "":
		return fmt.Errorf("%w: pod %q has an empty name", ErrInvalidPod, p.Key())
	case strings.Contains(p.Namespace, "/") || strings.Contains(p.Name, "/"):
		// Kubernetes names never contain "/"; forbidding it keeps
		// "namespace/name" a one-to-one key.
		return fmt.Errorf("%w: pod %q has a \"/\" in its namespace or name", ErrInvalidPod, p.Key())
	case p.UID == "":
		return fmt.Errorf("%w: pod %q has an empty UID", ErrInvalidPod, p.Key())
	}
	return nil
}

// AffinityTerm is one required pod-affinity term: it matches an assigned pod
// that lives in one of Namespaces (the owning pod's own namespace when empty)
// and carries every label in MatchLabels (an empty selector matches every
// pod, as an empty metav1.LabelSelector does).
type AffinityTerm struct {
	Namespaces  []string
	MatchLabels map[string]string
}

// Matches reports whether the assigned pod satisfies this term of a pod in
// namespace ownerNamespace.
func (t AffinityTerm) Matches(ownerNamespace string, assigned *Pod) bool {
	if len(t.Namespaces) == 0 {
		if assigned.Namespace != ownerNamespace {
			return false
		}
	} else if !slices.Contains(t.Namespaces, assigned.Namespace) {
		return false
	}
	for k, v := range t.MatchLabels {
		if got, ok := assigned.Labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// IsPodUpdated is the default relevance of an update (R9) for a caller
// that gives no PodChange: whether a field Pod models changed other than
// ResourceVersion, Status and NominatedNodeName (upstream strips status,
// resourceVersion, generation, managedFields and finalizers before it
// compares the whole pod). It cannot see what Pod leaves out (tolerations,
// requests, node selector, annotations, volumes): a caller that has the
// whole object passes its own verdict (PodChange).
func IsPodUpdated(oldPod, newPod *Pod) bool {
	if oldPod == nil || newPod == nil {
		return oldPod != newPod
	}
	a, b := *oldPod, *newPod
	a.ResourceVersion, b.ResourceVersion = "", ""
	a.Status, b.Status = "", ""
	return !(a.Namespace == b.Namespace && a.Name == b.Name && a.UID == b.UID &&
		a.Priority == b.Priority && a.Group == b.Group && maps.Equal(a.Labels, b.Labels) &&
		slices.EqualFunc(a.RequiredAffinityTerms, b.RequiredAffinityTerms, func(x, y AffinityTerm) bool {
			return slices.Equal(x.Namespaces, y.Namespaces) && maps.Equal(x.MatchLabels, y.MatchLabels)
		}))
}

// PodsEqual reports whether two pods are the same in every field, their
// caller objects included (SameObject).
func PodsEqual(a, b *Pod) bool {
	return a == b || a != nil && b != nil && !IsPodUpdated(a, b) &&
		a.ResourceVersion == b.ResourceVersion && a.Status == b.Status && a.NominatedNodeName == b.NominatedNodeName &&
		SameObject(a.Object, b.Object)
}

// PodChange is a caller's verdict on an update of a pending pod (R9, R9h),
// computed on the whole object it has: what Pod models is not all that
// makes a pod schedulable. Update without one (a nil *PodChange) uses the
// queue's own derivation, DerivePodChange.
type PodChange struct {
	// Relevant is the classic profile's verdict (R9): the update may make
	// the pod schedulable. Upstream v1.33 computes it as isPodUpdated:
	// the whole pod compared, minus status (resourceClaimStatuses kept),
	// resourceVersion, generation, managedFields and finalizers.
	Relevant bool
	// Events are the hints profile's verdict (R9h): the events the update
	// raises for the pod itself, resource ResourceTargetPod or
	// ResourceUnschedulablePod (upstream v1.37: PodSchedulingPropertiesChange
	// of new and old, one event per property that changed, or the general
	// Update). Empty: the update raises no event; the pod is replaced and
	// nothing else happens.
	Events []ClusterEvent
}

// DerivePodChange is the verdict the queue computes when the caller gives
// none: Relevant = IsPodUpdated(oldPod, newPod), Events =
// PodUpdateEvents(oldPod, newPod).
func DerivePodChange(oldPod, newPod *Pod) PodChange {
	return PodChange{Relevant: IsPodUpdated(oldPod, newPod), Events: PodUpdateEvents(oldPod, newPod)}
}

// Validate reports a verdict with an invalid event (ErrInvalidEvent).
func (c *PodChange) Validate() error {
	if c == nil {
		return nil
	}
	for _, e := range c.Events {
		if err := e.Validate(); err != nil {
			return err
		}
	}
	return nil
}

// PluginSet is a sorted set of plugin names without duplicates. A sorted
// slice rather than a map so that queued pods copy and compare cheaply.
type PluginSet []string

// NewPluginSet returns the set of the given names.
func NewPluginSet(names ...string) PluginSet {
	if len(names) == 0 {
		return nil
	}
	s := slices.Clone(names)
	slices.Sort(s)
	return slices.Compact(s)
}

// Has reports whether name is in the set.
func (s PluginSet) Has(name string) bool {
	_, ok := slices.BinarySearch(s, name)
	return ok
}

// QueuedPodInfo is a pod together with what the queue knows about it.
type QueuedPodInfo struct {
	Pod *Pod
	// Timestamp is when the pod was last (re)queued: set by Add (R1) and by
	// AddUnschedulableIfNotPresent (R3), left alone by every other rule. It
	// is the activeQ tie-breaker and the origin of the backoff expiry (R7).
	Timestamp time.Time
	// Attempts counts the Pops of this pod: Pop adds one (R2), Add sets it
	// to 0 (R1), AddUnschedulableIfNotPresent takes it from the pInfo it is
	// given (R3), and nothing else changes it. The backoff follows it (R7).
	Attempts int
	// UnschedulablePlugins are the plugins that rejected the pod in its last
	// scheduling attempt. The scheduler sets them on the QueuedPodInfo that
	// Pop returned before handing it to AddUnschedulableIfNotPresent, which
	// keeps them as a PluginSet (R3); Add and Pop clear them (R1, R2). A pod
	// with none fails straight to backoffQ (R3), and every move request may
	// help it (R4).
	UnschedulablePlugins PluginSet
	// InitialAttemptTimestamp is when the pod first entered activeQ: a pod
	// that enters activeQ with a zero one gets now (a fresh entry from Add
	// always does, R1), and no rule changes it otherwise, except that
	// AddUnschedulableIfNotPresent takes it from the pInfo it is given (R3).
	InitialAttemptTimestamp time.Time
	// HintFields are the hints profile's per-pod fields (hints.go); zero in
	// the classic profile but for GatingPlugin (R17).
	HintFields
}

// Key returns the queue key of the pod.
func (q *QueuedPodInfo) Key() PodKey { return q.Pod.Key() }

// Validate reports why a QueuedPodInfo cannot be handed back to a queue.
func (q *QueuedPodInfo) Validate() error {
	if q == nil {
		return ErrNilPod
	}
	if err := q.Pod.Validate(); err != nil {
		return err
	}
	if q.Attempts < 0 {
		return fmt.Errorf("%w: pod %q has negative attempts %d", ErrInvalidPod, q.Key(), q.Attempts)
	}
	return nil
}

// Less is the activeQ order of the default queue-sort plugin (PrioritySort):
// higher priority first, then earlier Timestamp. Pods equal under Less are
// unordered upstream (heap order); see MaximalPods.
func Less(a, b *QueuedPodInfo) bool {
	if a.Pod.Priority != b.Pod.Priority {
		return a.Pod.Priority > b.Pod.Priority
	}
	return a.Timestamp.Before(b.Timestamp)
}
