package realsched

import (
	"context"
	"fmt"
	"sort"

	v1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"

	"github.com/schedq/schedq/spec"
)

// specPod is the part of pod that schedq's queue looks at (spec.Pod). What
// it leaves out (tolerations, resources, label expressions of affinity
// terms, namespace selectors) the queue cannot act on: issue 20's wrong
// answers follow from exactly that, and the trace check sees them.
func specPod(pod *v1.Pod) *spec.Pod {
	if pod == nil {
		return nil
	}
	p := &spec.Pod{
		Namespace:         pod.Namespace,
		Name:              pod.Name,
		UID:               spec.UID(pod.UID),
		Priority:          corev1helpers.PodPriority(pod),
		Labels:            pod.Labels,
		ResourceVersion:   pod.ResourceVersion,
		NominatedNodeName: pod.Status.NominatedNodeName,
	}
	if a := pod.Spec.Affinity; a != nil && a.PodAffinity != nil {
		for _, t := range a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
			term := spec.AffinityTerm{Namespaces: t.Namespaces}
			if t.LabelSelector != nil {
				term.MatchLabels = t.LabelSelector.MatchLabels
			}
			p.RequiredAffinityTerms = append(p.RequiredAffinityTerms, term)
		}
	}
	return p
}

// specEvent is e in schedq's terms. The resource names and the action bits
// are upstream's own (spec/event.go keeps them in upstream's order), so
// the translation is a copy; the label is upstream's, for the metrics.
func specEvent(e clusterEvent) spec.ClusterEvent {
	return spec.ClusterEvent{Resource: spec.EventResource(e.Resource), ActionType: spec.ActionType(e.ActionType), Label: labelOf(e)}
}

// Registry builds the plugin -> events registry from the profiles'
// exported API, as scheduler.New builds its queueing-hint map with hints
// off: every event a plugin's EventsToRegister lists, and for a plugin
// that registered a node Add but no node taint update, the taint update
// too (upstream's workaround for preCheck hiding node adds).
func Registry(ctx context.Context, profiles map[string]upstreamProfile) (spec.PluginEvents, error) {
	reg := spec.PluginEvents{}
	names := make([]string, 0, len(profiles))
	for n := range profiles {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		for _, ext := range profiles[n].EnqueueExtensions() {
			evs, err := ext.EventsToRegister(ctx)
			if err != nil {
				return nil, fmt.Errorf("profile %s, plugin %s: %w", n, ext.Name(), err)
			}
			var add, taint bool
			for _, ev := range evs {
				e := ev.Event
				if e.Resource == nodeResource {
					add = add || e.ActionType&actionAdd != 0
					taint = taint || e.ActionType&actionTaint != 0
				}
				reg[ext.Name()] = append(reg[ext.Name()], specEvent(e))
			}
			if add && !taint {
				reg[ext.Name()] = append(reg[ext.Name()], spec.ClusterEvent{Resource: spec.ResourceNode, ActionType: spec.UpdateNodeTaint})
			}
		}
	}
	return reg, nil
}
