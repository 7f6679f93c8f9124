package realsched

import (
	"context"
	"fmt"
	"reflect"
	"sort"

	v1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"

	"github.com/schedq/schedq/spec"
)

// specPod is the part of pod that schedq's queue looks at (spec.Pod), with
// pod itself as the opaque Object (R19) that the PreEnqueue plugins read
// (preEnqueuePlugins). What the fields leave out (tolerations, resources,
// label expressions of affinity terms, namespace selectors) the queue
// cannot act on by itself; Update's relevance is therefore the caller's
// verdict (podChange).
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
		Object:            pod,
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

// specEvent is e in schedq's terms: the resource and the action bits
// through the release's translation (specResource, specAction), except for
// upstream's All: schedq's All has every release's bits, and only that All
// makes a wildcard (spec.ClusterEvent.IsWildCard). The label is upstream's,
// for the metrics.
func specEvent(e clusterEvent) spec.ClusterEvent {
	a := specAction(e.ActionType)
	if e.ActionType == actionAll {
		a = spec.All
	}
	return spec.ClusterEvent{Resource: specResource(e.Resource), ActionType: a, Label: labelOf(e)}
}

// specOccurrence is an event with the objects the scheduler passes with it
// (R19): pods as spec pods (their *v1.Pod inside), anything else (a node)
// as it is.
func specOccurrence(e clusterEvent, oldObj, newObj interface{}) spec.Occurrence {
	occ := spec.Occurrence{Event: specEvent(e)}
	if p, ok := oldObj.(*v1.Pod); ok {
		occ.Old = specPod(p)
	} else {
		occ.OldObject = oldObj
	}
	if p, ok := newObj.(*v1.Pod); ok {
		occ.New = specPod(p)
	} else {
		occ.NewObject = newObj
	}
	return occ
}

// objectOf is what a queueing hint sees of one side of an occurrence: the
// *v1.Pod of a pod event, else the caller's object; a plain nil when there
// is none, never a nil pointer in an interface.
func objectOf(p *spec.Pod, obj any) any {
	if p != nil {
		if pod, ok := p.Object.(*v1.Pod); ok && pod != nil {
			return pod
		}
		return nil
	}
	return obj
}

// Registry builds the plugin -> events registry and the queueing hints from
// the profiles' exported API (EnqueueExtensions -> EventsToRegister), as
// scheduler.New builds its queueing-hint map: every event a plugin lists,
// with its hint in the hints profile (a registration without one answers
// Queue, R16). In the classic profile (hints off) there are no hints, and a
// plugin that registered a node Add but no node taint update gets the taint
// update too (v1.33's workaround for preCheck hiding node adds). Where the
// release runs pre-queueing hints (v1.38), each registration's
// PreQueueingHintFn is its pre-queueing hint (R20).
func Registry(ctx context.Context, profiles map[string]upstreamProfile, bad func(error)) (spec.PluginEvents, spec.QueueingHints, spec.PreQueueingHints, error) {
	reg := spec.PluginEvents{}
	var hints spec.QueueingHints
	if hintsProfile {
		hints = spec.QueueingHints{}
	}
	var pre spec.PreQueueingHints
	if preQueueing {
		pre = spec.PreQueueingHints{}
	}
	names := make([]string, 0, len(profiles))
	for n := range profiles {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		for _, ext := range profiles[n].EnqueueExtensions() {
			evs, err := ext.EventsToRegister(ctx)
			if err != nil {
				return nil, nil, nil, fmt.Errorf("profile %s, plugin %s: %w", n, ext.Name(), err)
			}
			var add, taint bool
			for _, ev := range evs {
				e := ev.Event
				if e.Resource == nodeResource {
					add = add || e.ActionType&actionAdd != 0
					taint = taint || e.ActionType&actionTaint != 0
				}
				se := specEvent(e)
				reg[ext.Name()] = append(reg[ext.Name()], se)
				if fn := hintOf(ev); hints != nil && fn != nil {
					hints[spec.HintKey{Plugin: ext.Name(), Event: se}] = specHint(ext.Name(), fn, bad)
				}
				if fn := preHintOf(ev); pre != nil && fn != nil {
					pre[spec.HintKey{Plugin: ext.Name(), Event: se}] = specPreHint(ext.Name(), fn, bad)
				}
			}
			if add && !taint && !hintsProfile {
				reg[ext.Name()] = append(reg[ext.Name()], spec.ClusterEvent{Resource: spec.ResourceNode, ActionType: spec.UpdateNodeTaint})
			}
		}
	}
	return reg, hints, pre, nil
}

// specHint is an upstream queueing hint as R16's function: the pod's
// *v1.Pod and the occurrence's objects (objectOf), the answer translated.
// An upstream hint dereferences what it casts, so a pod without its
// *v1.Pod is not asked (an error: Queue, R16) and is reported to bad, as
// is a hint that panics (the queue runs hints under its lock).
func specHint(plugin string, fn upstreamHintFn, bad func(error)) spec.QueueingHintFn {
	return func(p *spec.Pod, occ spec.Occurrence) (h spec.QueueingHint, err error) {
		pod, ok := p.Object.(*v1.Pod)
		if !ok || pod == nil {
			err = fmt.Errorf("hint of %s: %s carries %T, not a *v1.Pod", plugin, p.Key(), p.Object)
			bad(err)
			return spec.HintQueue, err
		}
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("hint of %s panicked on %s: %v", plugin, p.Key(), r)
				bad(err)
				h = spec.HintQueue
			}
		}()
		return callHint(fn, pod, objectOf(occ.Old, occ.OldObject), objectOf(occ.New, occ.NewObject))
	}
}

// specPreHint is an upstream pre-queueing hint as R20's function: the
// occurrence's objects (objectOf) in, the named pods as keys out. A hint
// that panics is reported to bad and narrows nothing (the queue runs
// hints under its lock).
func specPreHint(plugin string, fn upstreamPreHintFn, bad func(error)) spec.PreQueueingHintFn {
	return func(occ spec.Occurrence) (r spec.PreQueueingResult, err error) {
		defer func() {
			if x := recover(); x != nil {
				err = fmt.Errorf("pre-queueing hint of %s panicked: %v", plugin, x)
				bad(err)
				r = spec.AllPods
			}
		}()
		return callPreHint(fn, objectOf(occ.Old, occ.OldObject), objectOf(occ.New, occ.NewObject))
	}
}

// Config is the spec.Config of the release's profile (classic on v1.33,
// hints on v1.37, hints with pre-queueing hints on v1.38) for the
// scheduler's profiles: the registry and the queueing hints (Registry) and
// their PreEnqueue plugins
// (preEnqueuePlugins). bad is told of every pod a PreEnqueue plugin or a
// hint could not be asked about. The adapter's queue and the trace check's
// model run with the same.
func Config(ctx context.Context, profiles map[string]upstreamProfile, bad func(error)) (spec.Config, error) {
	reg, hints, pre, err := Registry(ctx, profiles, bad)
	if err != nil {
		return spec.Config{}, err
	}
	cfg := spec.DefaultConfig(reg)
	if hintsProfile {
		cfg.Profile = spec.ProfileHints
		cfg.QueueingHints = hints
	}
	if preQueueing {
		cfg.PreQueueing, cfg.PreQueueingHints = true, pre
	}
	cfg.PreEnqueuePlugins = preEnqueuePlugins(profiles, bad)
	return cfg, nil
}

// preEnqueuePlugins are the profiles' PreEnqueue plugins (SchedulingGates
// by default) as R17's functions: one per plugin name, which runs the
// plugin of that name of the pod's own profile (spec.schedulerName) on the
// *v1.Pod the spec.Pod carries as its Object, as upstream keys its plugins
// by profile. A pod whose profile has no such plugin, or no profile at
// all, is admitted, as upstream admits a pod of an unknown profile.
//
// The queue runs these under its lock, so they never panic: a pod whose
// Object is missing or not a *v1.Pod (the caller's bug: specPod always
// sets it), or a plugin that panics, is admitted and reported to bad. A
// pod admitted wrongly is scheduled too early, which the caller sees; a
// panic would take the queue down with it.
//
// R17 runs a pod's gating plugin first, then the others by name; upstream
// runs a profile's plugins in its configured order. The first refusal
// decides either way, so the two differ only in which plugin a pod refused
// by two is gated on (the default profile has one).
func preEnqueuePlugins(profiles map[string]upstreamProfile, bad func(error)) spec.PreEnqueuePlugins {
	byName := map[string]map[string]preEnqueuePlugin{} // plugin -> profile -> plugin
	for prof, fwk := range profiles {
		for _, pl := range fwk.PreEnqueuePlugins() {
			if byName[pl.Name()] == nil {
				byName[pl.Name()] = map[string]preEnqueuePlugin{}
			}
			byName[pl.Name()][prof] = pl
		}
	}
	out := spec.PreEnqueuePlugins{}
	for name, perProfile := range byName {
		out[name] = func(p *spec.Pod) (ok bool) {
			pod, isPod := p.Object.(*v1.Pod)
			if !isPod || pod == nil {
				bad(fmt.Errorf("PreEnqueue %s: %s carries %T, not a *v1.Pod: admitted", name, p.Key(), p.Object))
				return true
			}
			pl := perProfile[pod.Spec.SchedulerName]
			if pl == nil {
				return true
			}
			defer func() {
				if r := recover(); r != nil {
					bad(fmt.Errorf("PreEnqueue %s panicked on %s: %v: admitted", name, p.Key(), r))
					ok = true
				}
			}()
			return preEnqueueAdmits(pl, pod)
		}
	}
	return out
}

// podChange is the classic verdict on an update (spec.PodChange.Relevant,
// R9), decided on the whole objects as v1.33 decides it: the update may
// make the pod schedulable unless the two versions differ only in the
// fields the API server or the kubelet write as a matter of course
// (resourceVersion, generation, managedFields, finalizers) and in the
// status, claim statuses aside (a claim allocated to the pod may make it
// schedulable). Shallow copies suffice: only top-level fields are cleared.
//
// Events are the hints profile's verdict (R9h): the events the release
// derives from the two objects for the pod itself (none in v1.33).
func podChange(oldPod, newPod *v1.Pod) *spec.PodChange {
	return &spec.PodChange{Relevant: !reflect.DeepEqual(schedulingView(oldPod), schedulingView(newPod)), Events: updateEvents(oldPod, newPod)}
}

func schedulingView(pod *v1.Pod) v1.Pod {
	v := *pod
	v.ResourceVersion, v.Generation, v.ManagedFields, v.Finalizers = "", 0, nil, nil
	v.Status = v1.PodStatus{ResourceClaimStatuses: pod.Status.ResourceClaimStatuses}
	return v
}
