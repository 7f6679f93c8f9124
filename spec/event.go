package spec

import "fmt"

// EventResource is the kind of object a cluster event is about.
type EventResource string

// Resources that events are about. ResourcePod matches both AssignedPod and
// UnschedulablePod when a plugin registers it, as upstream.
const (
	ResourcePod                   EventResource = "Pod"
	ResourceAssignedPod           EventResource = "AssignedPod"
	ResourceUnschedulablePod      EventResource = "UnschedulablePod"
	ResourceNode                  EventResource = "Node"
	ResourcePersistentVolume      EventResource = "PersistentVolume"
	ResourcePersistentVolumeClaim EventResource = "PersistentVolumeClaim"
	ResourceStorageClass          EventResource = "storage.k8s.io/StorageClass"
	// WildCard matches every resource.
	WildCard EventResource = "*"
)

func (r EventResource) match(incoming EventResource) bool {
	return r == WildCard || r == incoming ||
		r == ResourcePod && (incoming == ResourceAssignedPod || incoming == ResourceUnschedulablePod)
}

// ActionType is a bit set of what happened to the resource.
//
// The bits are v1.33's, in v1.33's positions, then the three v1.37 adds.
// Bits 0-12 are kube-scheduler v1.33's ActionType bit for bit, so that a
// v1.33 adapter converts by identity; bit 12, UpdatePodOther, is the one
// v1.33 keeps unexported (updatePodOther: a pod update none of the named
// UpdatePod actions describes), exported here so that a caller can name
// every bit v1.33 raises. v1.37 has no such bit (its general Update covers
// it) and places its three new actions among the others (v1.37's Node
// actions come before its Pod actions); schedq puts them after bit 12
// instead, so that the v1.33 bits keep their values, and a v1.37 adapter
// maps bit by bit. So All has 16 bits: v1.33's 13 and v1.37's 3. Where an
// order of bits matters (HintsMatch, v1.37's "incoming not above the
// registration"), schedq compares in v1.37's order (V137Order).
type ActionType uint64

// The action bits.
const (
	Add ActionType = 1 << iota
	Delete
	UpdateNodeAllocatable
	UpdateNodeLabel
	// UpdateNodeTaint is an update of a node's taints or of
	// node.Spec.Unschedulable.
	UpdateNodeTaint
	UpdateNodeCondition
	UpdateNodeAnnotation
	UpdatePodLabel
	// UpdatePodScaleDown: some resource request of the pod went down.
	UpdatePodScaleDown
	// UpdatePodToleration: a toleration was added (the API allows no
	// other change of tolerations).
	UpdatePodToleration
	// UpdatePodSchedulingGatesEliminated: the pod's last scheduling gate
	// was removed.
	UpdatePodSchedulingGatesEliminated
	// UpdatePodGeneratedResourceClaim: the list of the pod's generated
	// ResourceClaims changed.
	UpdatePodGeneratedResourceClaim
	// UpdatePodOther is v1.33's unexported updatePodOther (bit 12): an
	// update of a pod that none of the actions above names. v1.37 has no
	// such bit.
	UpdatePodOther
	// UpdatePodScaleUp (v1.37): some resource request of the pod went up.
	UpdatePodScaleUp
	// UpdateNodeDeclaredFeature (v1.37): the node's declared features
	// changed.
	UpdateNodeDeclaredFeature
	// UpdateNodePreemptionPolicy (v1.37): the node's preemption policy
	// changed.
	UpdateNodePreemptionPolicy

	// All is every action: 16 bits (see ActionType).
	All ActionType = 1<<iota - 1
	// Update is every kind of update.
	Update = All &^ (Add | Delete)
)

var actionNames = map[ActionType]string{
	Add: "Add", Delete: "Delete", Update: "Update", All: "All",
	UpdateNodeAllocatable: "UpdateNodeAllocatable", UpdateNodeLabel: "UpdateNodeLabel",
	UpdateNodeTaint: "UpdateNodeTaint", UpdateNodeCondition: "UpdateNodeCondition",
	UpdateNodeAnnotation: "UpdateNodeAnnotation", UpdatePodLabel: "UpdatePodLabel",
	UpdatePodScaleDown: "UpdatePodScaleDown", UpdatePodToleration: "UpdatePodToleration",
	UpdatePodSchedulingGatesEliminated: "UpdatePodSchedulingGatesEliminated",
	UpdatePodGeneratedResourceClaim:    "UpdatePodGeneratedResourceClaim",
	// v1.33 labels its other-update bit as the general Update.
	UpdatePodOther:             "Update",
	UpdatePodScaleUp:           "UpdatePodScaleUp",
	UpdateNodeDeclaredFeature:  "UpdateNodeDeclaredFeature",
	UpdateNodePreemptionPolicy: "UpdateNodePreemptionPolicy",
}

// v137Order gives each bit its position in v1.37's ActionType; UpdatePodOther,
// which v1.37 lacks, ranks as v1.37's general Update (every update bit).
var v137Order = []struct{ bit, v137 ActionType }{
	{Add, 1 << 0}, {Delete, 1 << 1}, {UpdateNodeAllocatable, 1 << 2}, {UpdateNodeLabel, 1 << 3},
	{UpdateNodeTaint, 1 << 4}, {UpdateNodeCondition, 1 << 5}, {UpdateNodeAnnotation, 1 << 6},
	{UpdateNodeDeclaredFeature, 1 << 7}, {UpdateNodePreemptionPolicy, 1 << 8},
	{UpdatePodLabel, 1 << 9}, {UpdatePodScaleDown, 1 << 10}, {UpdatePodScaleUp, 1 << 11},
	{UpdatePodToleration, 1 << 12}, {UpdatePodSchedulingGatesEliminated, 1 << 13},
	{UpdatePodGeneratedResourceClaim, 1 << 14}, {UpdatePodOther, (1<<15 - 1) &^ 3},
}

// V137Order is a's bits in v1.37's positions, for comparisons that depend
// on the order of the bits (HintsMatch). UpdatePodOther maps to v1.37's
// general Update.
func V137Order(a ActionType) uint64 {
	var out ActionType
	for _, b := range v137Order {
		if a&b.bit != 0 {
			out |= b.v137
		}
	}
	return uint64(out)
}

// Validate reports an action with no bit or with a bit outside All.
func (a ActionType) Validate() error {
	if a == 0 {
		return fmt.Errorf("%w: an event with no action", ErrInvalidEvent)
	}
	if a&^All != 0 {
		return fmt.Errorf("%w: unknown action bits %#x (schedq knows %#x)", ErrInvalidEvent, uint64(a&^All), uint64(All))
	}
	return nil
}

func (a ActionType) String() string {
	if s, ok := actionNames[a]; ok {
		return s
	}
	return fmt.Sprintf("ActionType(%#x)", uint64(a))
}

// ClusterEvent is something that happened in the cluster and may make
// unschedulable pods schedulable (R4).
type ClusterEvent struct {
	Resource   EventResource
	ActionType ActionType
	// Label names the event in metrics; when empty it is Resource followed
	// by ActionType, e.g. "NodeAdd".
	Label string
}

// Validate reports an event the queue cannot take: no resource, no action,
// or an action bit outside All (ErrInvalidEvent).
func (e ClusterEvent) Validate() error {
	if e.Resource == "" {
		return fmt.Errorf("%w: event %+v has no resource", ErrInvalidEvent, e)
	}
	if err := e.ActionType.Validate(); err != nil {
		return fmt.Errorf("event %s/%#x: %w", e.Resource, uint64(e.ActionType), err)
	}
	return nil
}

// EventLabel is the label used for queue_incoming_pods_total (R14).
func (e ClusterEvent) EventLabel() string {
	if e.Label != "" {
		return e.Label
	}
	return fmt.Sprintf("%s%s", e.Resource, e.ActionType)
}

func (e ClusterEvent) String() string { return e.EventLabel() }

// IsWildCard reports whether e is a wildcard event, which every pod in
// unschedulablePods is interested in (R4, R6).
func (e ClusterEvent) IsWildCard() bool { return e.Resource == WildCard && e.ActionType == All }

// Match reports whether a registered event e covers the incoming event.
func (e ClusterEvent) Match(incoming ClusterEvent) bool {
	return e.IsWildCard() || e.Resource.match(incoming.Resource) && e.ActionType&incoming.ActionType != 0
}

// Events the queue raises itself. The metric labels are upstream's.
var (
	// EventUnschedulableTimeout is the wildcard event of the leftover flush (R6).
	EventUnschedulableTimeout = ClusterEvent{Resource: WildCard, ActionType: All, Label: "UnschedulableTimeout"}
	// EventForceActivate is the wildcard event of Activate (R8).
	EventForceActivate = ClusterEvent{Resource: WildCard, ActionType: All, Label: "ForceActivate"}
	// WildCardEvent moves every unschedulable pod.
	WildCardEvent = ClusterEvent{Resource: WildCard, ActionType: All, Label: "WildCardEvent"}
	// EventAssignedPodAdd is raised by AssignedPodAdded (R11).
	EventAssignedPodAdd = ClusterEvent{Resource: ResourceAssignedPod, ActionType: Add}
	// EventAssignedPodUpdate is the usual event of AssignedPodUpdated (R11).
	EventAssignedPodUpdate = ClusterEvent{Resource: ResourceAssignedPod, ActionType: Update}
	// EventUnscheduledPodAdd labels pods entering activeQ by Add (R1).
	EventUnscheduledPodAdd = ClusterEvent{Resource: ResourceUnschedulablePod, ActionType: Add}
	// EventUnscheduledPodUpdate labels pods moved by Update (R9).
	EventUnscheduledPodUpdate = ClusterEvent{Resource: ResourceUnschedulablePod, ActionType: Update}
)

// Labels of queue_incoming_pods_total that are not cluster events.
const (
	ScheduleAttemptFailure = "ScheduleAttemptFailure"
	BackoffComplete        = "BackoffComplete"
	ForceActivate          = "ForceActivate"
)

// PluginPodTopologySpread is the plugin whose rejections AssignedPodAdded
// always reconsiders for pods of the same namespace (R11), as upstream does.
const PluginPodTopologySpread = "PodTopologySpread"

// PluginEvents registers, for each plugin, the cluster events that may make
// a pod it rejected schedulable. In classic mode every registered event
// means "requeue" for the pods that plugin rejected.
type PluginEvents map[string][]ClusterEvent

// IsEventOfInterest reports whether any plugin registered an event that
// matches e. A wildcard is always of interest. An event of no interest is a
// no-op for MoveAllToActiveOrBackoffQueue: no pod moves and
// moveRequestCycle does not change (R4).
func (r PluginEvents) IsEventOfInterest(e ClusterEvent) bool {
	if e.IsWildCard() {
		return true
	}
	for _, evs := range r {
		for _, reg := range evs {
			if reg.Match(e) {
				return true
			}
		}
	}
	return false
}

// IsPodWorthRequeuing reports whether event e may make schedulable a pod
// rejected by plugins: a pod with no rejecting plugins always is (something
// unusual failed, so it is retried after backoff), a wildcard event always
// is, otherwise one of the rejecting plugins must have registered a
// matching event (R4).
func (r PluginEvents) IsPodWorthRequeuing(plugins PluginSet, e ClusterEvent) bool {
	if len(plugins) == 0 || e.IsWildCard() {
		return true
	}
	for _, p := range plugins {
		for _, reg := range r[p] {
			if reg.Match(e) {
				return true
			}
		}
	}
	return false
}
