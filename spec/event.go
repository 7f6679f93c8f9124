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
type ActionType uint64

// The action bits, in upstream's order.
const (
	Add ActionType = 1 << iota
	Delete
	UpdateNodeAllocatable
	UpdateNodeLabel
	UpdateNodeTaint
	UpdateNodeCondition
	UpdateNodeAnnotation
	UpdatePodLabel
	UpdatePodScaleDown
	UpdatePodToleration
	UpdatePodSchedulingGatesEliminated
	UpdatePodGeneratedResourceClaim
	updatePodOther

	// All is every action.
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
	updatePodOther:                     "Update",
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
