package upstream

import (
	"context"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/scheduler/backend/queue"

	"github.com/schedq/schedq/spec"
)

// Queueing hints and PreEnqueue plugins are plugged in the way
// kube-scheduler plugs in its plugins' (pkg/scheduler/scheduler.go,
// buildQueueingHintMap):
//   - each registered event gets the config's hint for it, or, without one,
//     a hint that always says Queue (defaultQueueingHintFn, which is also
//     what classic mode assumes);
//   - from v1.37 a registration of resource Pod is unrolled to AssignedPod,
//     UnscheduledPod and TargetPod (unrollPodEvent); earlier releases match
//     Pod against both pod resources when an event comes;
//   - with pre-queueing hints on (prequeue=on), each registration's
//     pre-queueing hint goes beside its queueing hint (prequeue.go);
//   - upstream hints see the pod and the event's objects, not the event:
//     the adapter passes the registered event as the Occurrence's event
//     (the standard hints do not look at it).

// queueHint is the hint every registered event gets without one of its
// own: the event may help.
func queueHint(klog.Logger, *v1.Pod, interface{}, interface{}) (queueingHint, error) {
	return hintQueue, nil
}

// hintMapFor is the hint map of cfg: classic configs (and classic mode)
// get the always-Queue map.
func hintMapFor(cfg spec.Config, classic bool) queue.QueueingHintMap {
	m := queue.QueueingHintMap{}
	for plugin, evs := range cfg.PluginEvents {
		for _, e := range evs {
			fn := queueHint
			h := cfg.QueueingHints[spec.HintKey{Plugin: plugin, Event: e}]
			if h != nil && cfg.Profile.HasHints() && !classic {
				fn = wrapHint(h, e)
			}
			var pre preHint
			if ph := cfg.PreQueueingHints[spec.HintKey{Plugin: plugin, Event: e}]; ph != nil && cfg.PreQueueing && !classic {
				pre = preQueueingHintOf(ph, e)
			}
			targets := []clusterEvent{toEvent(e)}
			if cfg.Profile.HasHints() && !classic {
				targets = unrollPodEvent(targets[0])
			}
			for _, te := range targets {
				f := &queue.QueueingHintFunction{PluginName: plugin, QueueingHintFn: fn}
				if pre != nil {
					setPreQueueingHint(f, pre)
				}
				m[te] = append(m[te], f)
			}
		}
	}
	return m
}

// wrapHint makes a schedq hint an upstream one.
func wrapHint(h spec.QueueingHintFn, registered spec.ClusterEvent) func(klog.Logger, *v1.Pod, interface{}, interface{}) (queueingHint, error) {
	return func(_ klog.Logger, p *v1.Pod, oldObj, newObj interface{}) (queueingHint, error) {
		occ := spec.Occurrence{Event: registered}
		if o, ok := fromV1Object(oldObj).(*spec.Pod); ok {
			occ.Old = o
		} else {
			occ.OldObject = fromV1Object(oldObj)
		}
		if n, ok := fromV1Object(newObj).(*spec.Pod); ok {
			occ.New = n
		} else {
			occ.NewObject = fromV1Object(newObj)
		}
		r, err := h(toSpec(p), occ)
		if err != nil {
			return hintQueue, err
		}
		if r == spec.HintQueue {
			return hintQueue, nil
		}
		return hintSkip, nil
	}
}

// preEnqueuePlugin is what every release's PreEnqueue plugin interface
// asks of a plugin.
type preEnqueuePlugin interface {
	Name() string
	PreEnqueue(context.Context, *v1.Pod) *status
}

// preEnqueue is a schedq PreEnqueue function as an upstream plugin.
type preEnqueue struct {
	name  string
	admit spec.PreEnqueueFn
}

func (p preEnqueue) Name() string { return p.name }

func (p preEnqueue) PreEnqueue(_ context.Context, pod *v1.Pod) *status {
	if p.admit(toSpec(pod)) {
		return nil
	}
	return refusedBy(p.name)
}

func preEnqueuePlugins(cfg spec.Config) []preEnqueuePlugin {
	var out []preEnqueuePlugin
	for name, fn := range cfg.PreEnqueuePlugins {
		out = append(out, preEnqueue{name: name, admit: fn})
	}
	return out
}

// byName is the plugins keyed by name under SchedulerName, as the releases
// from v1.34 take them; P is the release's plugin interface.
func byName[P any](plugins []preEnqueuePlugin) map[string]map[string]P {
	m := map[string]P{}
	for _, p := range plugins {
		m[p.Name()] = p.(P)
	}
	return map[string]map[string]P{SchedulerName: m}
}
