package schedqtest

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/schedq/schedq/spec"
)

// The standard pre-queueing hints (R20) of a hints scenario with
// "config profile=hints prequeue=on" (Config.PreQueueing, v1.38's
// default). A pre-queueing hint sees the event's objects and nothing else,
// so the standard ones read the pods to wake from an object, as DRA's reads
// them from a claim: the label "wakes" of the event's new object lists pod
// names in its namespace joined by "_" (WakesLabel), e.g.
//
//	move NodeAdd new=node(name=n1,labels=(wakes=a_b))
//	assigned-add web-0 labels=(wakes=a)
//
// names ns/a and ns/b. One hint per registration of HintsRegistry:
//
//   - Fit's NodeAdd and NodeLabel: WakesPreHint, which answers AllPods for
//     an object without the label and an error for an object that is
//     neither a node nor a pod.
//   - Affinity's Pod/Add (the assigned-pod requests, R11h): WakesPreHint.
//   - Gate's PodLabel: GatePreHint, which names the pod the event is
//     about: sound for GateHint, which requeues only that pod.
//   - Flaky's NodeTaint: FlakyPreHint, always an error, which narrows
//     nothing.
//
// WakesPreHint is unsound on purpose wherever the label leaves out a pod
// the plugin's queueing hint would requeue: the scenarios show such a pod
// staying parked (R21, I8).

// WakesLabel is the label whose value lists, joined by "_", the names of
// the pods WakesPreHint names ("_" cannot occur in a pod name).
const WakesLabel = "wakes"

// ErrPreQueueingFlaky is the error FlakyPreHint returns.
var ErrPreQueueingFlaky = errors.New("schedqtest: the Flaky pre-queueing hint cannot tell")

// WakesPreHint names the pods listed in the WakesLabel of the event's new
// object (a *Node, or a *spec.Pod for a pod event), in the object's
// namespace for a pod and Namespace for a node. No new object, or no such
// label: AllPods. Another kind of object: an error.
func WakesPreHint(occ spec.Occurrence) (spec.PreQueueingResult, error) {
	var labels map[string]string
	ns := Namespace
	switch {
	case occ.New != nil:
		labels, ns = occ.New.Labels, occ.New.Namespace
	case occ.NewObject != nil:
		n, err := spec.ObjectAs[*Node](occ.NewObject)
		if err != nil {
			return spec.PreQueueingResult{}, err
		}
		labels = n.Labels
	}
	v, ok := labels[WakesLabel]
	if !ok {
		return spec.AllPods, nil
	}
	var keys []spec.PodKey
	for _, name := range strings.Split(v, "_") {
		if name != "" {
			keys = append(keys, spec.PodKey(ns+"/"+name))
		}
	}
	return spec.PodsNamed(keys...), nil
}

// GatePreHint is Gate's pre-queueing hint for PodLabel: the pod the event
// is about (its new version), the only pod GateHint may requeue; no pod
// at all for an event without one.
func GatePreHint(occ spec.Occurrence) (spec.PreQueueingResult, error) {
	if occ.New == nil {
		return spec.PodsNamed(), nil
	}
	return spec.PodsNamed(occ.New.Key()), nil
}

// FlakyPreHint is Flaky's pre-queueing hint for NodeTaint: always an
// error, which narrows nothing (R20).
func FlakyPreHint(spec.Occurrence) (spec.PreQueueingResult, error) {
	return spec.PreQueueingResult{}, ErrPreQueueingFlaky
}

// StandardPreQueueingHints are the pre-queueing hints "prequeue=on" gives
// HintsRegistry's registrations. A fresh map each call.
func StandardPreQueueingHints() spec.PreQueueingHints {
	return spec.PreQueueingHints{
		{Plugin: PluginFit, Event: NodeAdd}:   WakesPreHint,
		{Plugin: PluginFit, Event: NodeLabel}: WakesPreHint,
		{Plugin: PluginAffinity, Event: spec.ClusterEvent{Resource: spec.ResourcePod, ActionType: spec.Add}}: WakesPreHint,
		{Plugin: PluginGate, Event: PodLabel}:   GatePreHint,
		{Plugin: PluginFlaky, Event: NodeTaint}: FlakyPreHint,
	}
}

// PodName is a pod's namespace and name: the shape of upstream's
// types.NamespacedName, without importing Kubernetes.
type PodName struct{ Namespace, Name string }

// UpstreamPreQueueingHint returns h in the shape of upstream's
// framework.PreQueueingHintFn, for an adapter that runs a scenario's
// pre-queueing hints in kube-scheduler's queue (v1.38 and later): a
// function of the event's old and new objects, converted by the adapter
// to schedq's (a pod as *spec.Pod, a node as *Node; anything else passed
// as it is), that answers AllPods or the pods by namespace and name, as
// framework.PreQueueingHintResult does. A pod goes to the occurrence's Old
// or New, any other object to OldObject or NewObject; the event is the
// registration's (upstream hints do not see the event, and the standard
// ones do not read it). Landed first, before the rest of the
// pre-queueing hints, so that the v1.38 target could use it.
func UpstreamPreQueueingHint(h spec.PreQueueingHintFn, registered spec.ClusterEvent) func(oldObj, newObj any) (allPods bool, pods []PodName, err error) {
	return func(oldObj, newObj any) (bool, []PodName, error) {
		occ := spec.Occurrence{Event: registered}
		if p, ok := oldObj.(*spec.Pod); ok {
			occ.Old = p
		} else if oldObj != nil {
			occ.OldObject = oldObj
		}
		if p, ok := newObj.(*spec.Pod); ok {
			occ.New = p
		} else if newObj != nil {
			occ.NewObject = newObj
		}
		r, err := h(occ)
		if err != nil || r.AllPods {
			return r.AllPods, nil, err
		}
		pods := make([]PodName, 0, len(r.Pods))
		for _, k := range r.Pods {
			ns, name, ok := strings.Cut(string(k), "/")
			if !ok {
				return false, nil, fmt.Errorf("schedqtest: pre-queueing hint named %q, which is not namespace/name", k)
			}
			pods = append(pods, PodName{Namespace: ns, Name: name})
		}
		return false, pods, nil
	}
}

// withPreQueueing is cfg with the pre-queueing setting on and the standard
// pre-queueing hints of its registrations (those of HintsRegistry it
// still has).
func withPreQueueing(cfg spec.Config) spec.Config {
	cfg.PreQueueing = true
	cfg.PreQueueingHints = spec.PreQueueingHints{}
	for k, fn := range StandardPreQueueingHints() {
		if slices.Contains(cfg.PluginEvents[k.Plugin], k.Event) {
			cfg.PreQueueingHints[k] = fn
		}
	}
	if len(cfg.PreQueueingHints) == 0 {
		cfg.PreQueueingHints = nil
	}
	return cfg
}
