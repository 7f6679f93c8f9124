package v137

import (
	"context"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/schedq/schedq/spec"
)

// The hints profile (spec.ProfileHints) on v1.37.2: the queue is the same,
// with the config's queueing hints and PreEnqueue plugins plugged in the
// way kube-scheduler plugs in its plugins' (pkg/scheduler/scheduler.go:483,
// buildQueueingHintMap):
//   - each registered event gets the config's hint for it, or, without one,
//     a hint that always says Queue (defaultQueueingHintFn);
//   - a registration of resource Pod is unrolled to AssignedPod,
//     UnscheduledPod and TargetPod (framework.UnrollPodEvent);
//   - upstream hints see the pod and the event's objects, not the event:
//     the adapter passes the registered event as the Occurrence's event
//     (the standard hints do not look at it).
//
// The adapter's own bookkeeping of in-flight pods follows the model's
// choice (R9h): an Update of an in-flight pod replaces the pod it reports;
// upstream keeps no copy of it.

// hintMapFor is the hint map of cfg: classic configs keep the always-Queue
// map of the classic adapter.
func hintMapFor(cfg spec.Config) queue.QueueingHintMap {
	if cfg.Profile != spec.ProfileHints {
		return hintMap(cfg.PluginEvents)
	}
	m := queue.QueueingHintMap{}
	for plugin, evs := range cfg.PluginEvents {
		for _, e := range evs {
			fn := queueHint
			if h := cfg.QueueingHints[spec.HintKey{Plugin: plugin, Event: e}]; h != nil {
				fn = wrapHint(h, e)
			}
			fe := toEvent(e)
			targets := []fwk.ClusterEvent{fe}
			if fe.Resource == fwk.Pod {
				targets = framework.UnrollPodEvent(fe)
			}
			for _, te := range targets {
				m[te] = append(m[te], &queue.QueueingHintFunction{PluginName: plugin, QueueingHintFn: fn})
			}
		}
	}
	return m
}

// wrapHint makes a schedq hint an upstream one.
func wrapHint(h spec.QueueingHintFn, registered spec.ClusterEvent) fwk.QueueingHintFn {
	return func(_ klog.Logger, p *v1.Pod, oldObj, newObj interface{}) (fwk.QueueingHint, error) {
		occ := spec.Occurrence{Event: registered}
		if o, ok := oldObj.(*v1.Pod); ok && o != nil {
			occ.Old = toSpec(o)
		}
		if n, ok := newObj.(*v1.Pod); ok && n != nil {
			occ.New = toSpec(n)
		}
		r, err := h(toSpec(p), occ)
		if err != nil {
			return fwk.Queue, err
		}
		if r == spec.HintQueue {
			return fwk.Queue, nil
		}
		return fwk.QueueSkip, nil
	}
}

// preEnqueue is a schedq PreEnqueue function as an upstream plugin.
type preEnqueue struct {
	name  string
	admit spec.PreEnqueueFn
}

func (p preEnqueue) Name() string { return p.name }

func (p preEnqueue) PreEnqueue(_ context.Context, pod *v1.Pod) *fwk.Status {
	if p.admit(toSpec(pod)) {
		return nil
	}
	return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, "refused by "+p.name)
}

func preEnqueuePlugins(cfg spec.Config) map[string]fwk.PreEnqueuePlugin {
	m := map[string]fwk.PreEnqueuePlugin{}
	for name, fn := range cfg.PreEnqueuePlugins {
		m[name] = preEnqueue{name: name, admit: fn}
	}
	return m
}

// info is the queued-pod info as the target reports it: in the hints
// profile the rejectors apart and the hint fields; in the classic one the
// pending plugins folded into the rejectors, as before.
func (t *Target) info(pi *framework.QueuedPodInfo) spec.QueuedPodInfo {
	out := toInfo(pi)
	if !t.hints {
		out.GatingPlugin = pi.GatingPlugin // R17 in the classic profile
		return out
	}
	out.UnschedulablePlugins = spec.NewPluginSet(sets.List(pi.UnschedulablePlugins)...)
	out.PendingPlugins = spec.NewPluginSet(sets.List(pi.PendingPlugins)...)
	out.UnschedulableCount = pi.UnschedulableCount
	out.ConsecutiveErrorsCount = pi.ConsecutiveErrorsCount
	out.GatingPlugin = pi.GatingPlugin
	out.FlushTimestamp = pi.FlushTimestamp
	if len(out.PendingPlugins) == 0 {
		out.PendingPlugins = nil
	}
	return out
}

// updateInFlight: in the hints profile, the adapter's record of an
// in-flight pod takes the new version (R9h), as the model's does.
func (t *Target) updateInFlight(newPod *spec.Pod) {
	pi, ok := t.inFlight[newPod.Key()]
	if !t.hints || !ok || spec.UID(pi.Pod.UID) != newPod.UID {
		return
	}
	cp := *pi
	podInfo, _ := framework.NewPodInfo(toV1(newPod))
	cp.PodInfo = podInfo
	t.inFlight[newPod.Key()] = &cp
}
