package v133

import (
	"context"
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/schedq/schedq/spec"
)

// The hints profile (spec.ProfileHints) on v1.33.13 with its default gates
// (SchedulerQueueingHints and SchedulerPopFromBackoffQ on): the config's
// queueing hints and PreEnqueue plugins are plugged in as kube-scheduler
// v1.33 plugs in its plugins' (pkg/scheduler/scheduler.go,
// buildQueueingHintMap): a registered event without a hint gets one that
// always says Queue; v1.33 does not unroll Pod registrations (its event
// matching covers AssignedPod and UnschedulablePod). Upstream hints see
// the pod and the event's objects; the adapter passes the registered event
// as the Occurrence's event.
//
// What v1.33.13 cannot report in this profile: UnschedulableCount,
// ConsecutiveErrorsCount and FlushTimestamp do not exist there
// (Observes.HintCounts is false), and moveRequestCycle, which v1.33 still
// updates but never reads with hints on, is not compared. Gated is a bool
// there: the adapter reports as the gating plugin the first PreEnqueue
// plugin (by name) that refuses the pod, which is the one v1.33 recorded
// when, as in the standard hint set, one plugin can refuse.

// refuseHints is the classic target's answer to a config of the hints
// profile: v1.33.13 with SchedulerQueueingHints off has no queueing hints,
// in-flight events or PreEnqueue-gated backoffQ; the runner reports the
// scenario n/a.
func refuseHints(t testing.TB, cfg spec.Config) bool {
	if cfg.Profile == spec.ProfileClassic {
		return false
	}
	t.Fatal(fmt.Errorf("%w: v1.33.13 with SchedulerQueueingHints=false implements the classic profile only, not %v",
		spec.ErrInvalidConfig, cfg.Profile))
	return true
}

// hintMapFor is the hint map of cfg: classic configs keep the always-Queue
// map.
func hintMapFor(cfg spec.Config) queue.QueueingHintMap {
	if cfg.Profile != spec.ProfileHints {
		return hintMap(cfg.PluginEvents)
	}
	m := queue.QueueingHintMap{}
	for plugin, evs := range cfg.PluginEvents {
		for _, e := range evs {
			fn := framework.QueueingHintFn(queueHint)
			if h := cfg.QueueingHints[spec.HintKey{Plugin: plugin, Event: e}]; h != nil {
				fn = wrapHint(h, e)
			}
			fe := toEvent(e)
			m[fe] = append(m[fe], &queue.QueueingHintFunction{PluginName: plugin, QueueingHintFn: fn})
		}
	}
	return m
}

// wrapHint makes a schedq hint an upstream one.
func wrapHint(h spec.QueueingHintFn, registered spec.ClusterEvent) framework.QueueingHintFn {
	return func(_ klog.Logger, p *v1.Pod, oldObj, newObj interface{}) (framework.QueueingHint, error) {
		occ := spec.Occurrence{Event: registered}
		if o, ok := oldObj.(*v1.Pod); ok && o != nil {
			occ.Old = toSpec(o)
		}
		if n, ok := newObj.(*v1.Pod); ok && n != nil {
			occ.New = toSpec(n)
		}
		r, err := h(toSpec(p), occ)
		if err != nil {
			return framework.Queue, err
		}
		if r == spec.HintQueue {
			return framework.Queue, nil
		}
		return framework.QueueSkip, nil
	}
}

// preEnqueue is a schedq PreEnqueue function as an upstream plugin.
type preEnqueue struct {
	name  string
	admit spec.PreEnqueueFn
}

func (p preEnqueue) Name() string { return p.name }

func (p preEnqueue) PreEnqueue(_ context.Context, pod *v1.Pod) *framework.Status {
	if p.admit(toSpec(pod)) {
		return nil
	}
	return framework.NewStatus(framework.UnschedulableAndUnresolvable, "refused by "+p.name)
}

func preEnqueuePlugins(cfg spec.Config) []framework.PreEnqueuePlugin {
	var out []framework.PreEnqueuePlugin
	for name, fn := range cfg.PreEnqueuePlugins {
		out = append(out, preEnqueue{name: name, admit: fn})
	}
	return out
}

// info is the queued-pod info as the target reports it: in the hints
// profile the rejectors apart and the gating plugin; in the classic one
// the pending plugins folded into the rejectors, as before.
func (t *Target) info(pi *framework.QueuedPodInfo) spec.QueuedPodInfo {
	out := toInfo(pi)
	if t.cfg.Profile != spec.ProfileHints {
		if pi.Gated { // R17 in the classic profile
			out.GatingPlugin = t.cfg.RunPreEnqueue(out.Pod, "")
		}
		return out
	}
	out.UnschedulablePlugins = spec.NewPluginSet(sets.List(pi.UnschedulablePlugins)...)
	out.PendingPlugins = spec.NewPluginSet(sets.List(pi.PendingPlugins)...)
	if pi.Gated {
		out.GatingPlugin = t.cfg.RunPreEnqueue(out.Pod, "")
	}
	return out
}

// updateInFlight: in the hints profile, the adapter's record of an
// in-flight pod takes the new version (R9h), as the model's does.
func (t *Target) updateInFlight(newPod *spec.Pod) {
	pi, ok := t.inFlight[newPod.Key()]
	if t.cfg.Profile != spec.ProfileHints || !ok || spec.UID(pi.Pod.UID) != newPod.UID {
		return
	}
	cp := *pi
	podInfo, _ := framework.NewPodInfo(toV1(newPod))
	cp.PodInfo = podInfo
	t.inFlight[newPod.Key()] = &cp
}
