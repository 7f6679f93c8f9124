package schedqtest

import (
	"errors"

	"github.com/schedq/schedq/spec"
)

// The standard hint set of the hints profile (spec.ProfileHints): the
// plugins, queueing hints and PreEnqueue plugins every hints scenario, the
// model's tests and the hints targets run with ("config profile=hints").
// Hints are Go functions, so a scenario file cannot state them; it names
// them instead, and they are fixed here, small and pure, each showing one
// answer a hint can give:
//
//   - Fit registers NodeAdd without a hint (the degenerate hint: always
//     Queue) and NodeLabel with FitLabelHint (Queue only for pods labelled
//     fit=label, QueueSkip for the rest).
//   - Gate is a PreEnqueue plugin refusing pods labelled gated=yes
//     (GateAdmits); it registers PodLabel with GateHint (Queue when the
//     event's new object is the rejected pod itself and no longer carries
//     gated=yes).
//   - Flaky registers NodeTaint with FlakyHint, which always fails: an
//     error counts as Queue (R16).
//   - Affinity registers Pod/Add without a hint: an assigned pod added
//     (AssignedPodAdd, R11h) requeues every pod it rejected, whatever their
//     affinity terms (the hints profile has no affinity pre-filter).
//   - Hold is a PreEnqueue plugin refusing pods labelled hold=yes
//     (HoldAdmits) that registers no event: no update's event asks it, so
//     a pod it gates stays gated when it loses the label, until a wildcard
//     event, Activate or another rejector's hint on an update re-examines
//     it. Only then does it show whether a move request re-examines a
//     gated pod for an event its gating plugin did not register (R4h).
//
// Any plugin can be a pending plugin ("fail a pending=(Fit)").
const (
	PluginFit      = "Fit"
	PluginGate     = "Gate"
	PluginFlaky    = "Flaky"
	PluginAffinity = "Affinity"
	PluginHold     = "Hold"
)

// The events of the hints registry that Registry has no name for.
var (
	// NodeLabel is a node's labels changing (Fit's FitLabelHint).
	NodeLabel = spec.ClusterEvent{Resource: spec.ResourceNode, ActionType: spec.UpdateNodeLabel}
	// PodLabel is a pod's labels changing (Gate's GateHint); an update of
	// an unscheduled pod raises it as TargetPod/UpdatePodLabel.
	PodLabel = spec.ClusterEvent{Resource: spec.ResourcePod, ActionType: spec.UpdatePodLabel}
)

// HintsRegistry is the plugin -> events registration of the hints profile's
// standard set. Treat it as read-only.
var HintsRegistry = spec.PluginEvents{
	PluginFit:      {NodeAdd, NodeLabel},
	PluginGate:     {PodLabel},
	PluginFlaky:    {NodeTaint},
	PluginAffinity: {{Resource: spec.ResourcePod, ActionType: spec.Add}},
}

// HintsPlugins are the plugins of HintsRegistry, sorted, plus one that
// registered nothing: the rejecting (and pending) plugins random runs draw
// from in the hints profile.
var HintsPlugins = []string{PluginAffinity, PluginFit, PluginFlaky, PluginGate, "UnregisteredPlugin"}

// ErrFlaky is the error FlakyHint returns.
var ErrFlaky = errors.New("schedqtest: the Flaky hint cannot tell")

// FitLabelHint is Fit's hint for NodeLabel: Queue for pods labelled
// fit=label, QueueSkip otherwise.
func FitLabelHint(p *spec.Pod, _ spec.Occurrence) (spec.QueueingHint, error) {
	if p.Labels["fit"] == "label" {
		return spec.HintQueue, nil
	}
	return spec.HintSkip, nil
}

// GateHint is Gate's hint for PodLabel: Queue when the event's new object
// is the pod itself and it no longer carries gated=yes.
func GateHint(p *spec.Pod, ev spec.Occurrence) (spec.QueueingHint, error) {
	if ev.New != nil && ev.New.UID == p.UID && ev.New.Labels["gated"] != "yes" {
		return spec.HintQueue, nil
	}
	return spec.HintSkip, nil
}

// FlakyHint is Flaky's hint for NodeTaint: always an error, which the queue
// treats as Queue.
func FlakyHint(*spec.Pod, spec.Occurrence) (spec.QueueingHint, error) {
	return spec.HintSkip, ErrFlaky
}

// NodeZoneHint is Fit's hint for NodeAdd in a scenario with "config
// profile=hints zone-hint=on": it reads the event's node object (R19).
// Queue when the pod has no zone label or the node's zone label equals
// it, QueueSkip otherwise. Without a node object (a move with none, or an
// object of another type) it cannot tell and returns an error, which
// counts as Queue (R16).
func NodeZoneHint(p *spec.Pod, ev spec.Occurrence) (spec.QueueingHint, error) {
	n, err := spec.ObjectAs[*Node](ev.NewObject)
	if err != nil {
		return spec.HintQueue, err
	}
	if z, ok := p.Labels["zone"]; !ok || n.Labels["zone"] == z {
		return spec.HintQueue, nil
	}
	return spec.HintSkip, nil
}

// GateAdmits is the Gate PreEnqueue plugin: it refuses pods labelled
// gated=yes.
func GateAdmits(p *spec.Pod) bool { return p.Labels["gated"] != "yes" }

// HoldAdmits is the Hold PreEnqueue plugin: it refuses pods labelled
// hold=yes.
func HoldAdmits(p *spec.Pod) bool { return p.Labels["hold"] != "yes" }

// HintsConfig returns spec.DefaultHintsConfig(HintsRegistry) with the
// standard hints and PreEnqueue plugins: the config "config profile=hints"
// starts from.
func HintsConfig() spec.Config {
	cfg := spec.DefaultHintsConfig(HintsRegistry)
	cfg.QueueingHints = spec.QueueingHints{
		{Plugin: PluginFit, Event: NodeLabel}:   FitLabelHint,
		{Plugin: PluginGate, Event: PodLabel}:   GateHint,
		{Plugin: PluginFlaky, Event: NodeTaint}: FlakyHint,
	}
	cfg.PreEnqueuePlugins = spec.PreEnqueuePlugins{PluginGate: GateAdmits, PluginHold: HoldAdmits}
	return cfg
}

// ClassicGates are the PreEnqueue plugins of a classic scenario with
// "config gates=on" (R17): SchedulingGates, which refuses pods labelled
// gated=yes (GateAdmits) and, as v1.33's plugin with queueing hints off,
// registers no event, so that only an update of the pod or Activate lifts
// its gate and no move request examines the pods it gates; and Hold, which
// refuses pods labelled hold=yes (HoldAdmits), registers no event either,
// and is an ordinary PreEnqueue plugin: move requests do examine the pods
// it gates (a wildcard requeues them, and PreEnqueue runs again).
func ClassicGates() spec.PreEnqueuePlugins {
	return spec.PreEnqueuePlugins{spec.PluginSchedulingGates: GateAdmits, PluginHold: HoldAdmits}
}

// ConfigFor returns the config a scenario of profile p starts from:
// Config() for the classic profile, HintsConfig() for the hints profile.
func ConfigFor(p spec.Profile) spec.Config {
	if p.HasHints() {
		c := HintsConfig()
		c.Profile = p
		return c
	}
	return Config()
}
