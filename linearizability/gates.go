package linearizability

import (
	"maps"

	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// Gates (R17, R4h). With Workload.Gates the config has PreEnqueue
// plugins, and the clients' pods carry the labels they refuse: some pods
// start with one, label updates put one on a third of the time and lift
// it otherwise, and in the hints profile half the updates a client makes
// play, on a pod of its own that waits parked, the sequence that decides
// whether a move request re-examines a gated pod for an event its gating
// plugin did not register (R4h; holdParked). A queue that let a gated pod
// through hands it to a Pop, or shows it out of place at the next
// quiescent point, where the model keeps it gated.
//
// The plugins: in the classic profile schedqtest.ClassicGates
// (SchedulingGates, whose pods no move request examines, and Hold); in
// the hints profile Hold alone, a PreEnqueue plugin that registers no
// event, so that only a wildcard re-examines a pod it gates (the
// registry's other plugins register pod events that an update raises,
// which would re-examine the pod on the update itself).

// gatePlugins are the PreEnqueue plugins of a workload with Gates in
// profile p, and the labels they refuse.
func gatePlugins(p spec.Profile) (spec.PreEnqueuePlugins, []map[string]string) {
	if p == spec.ProfileClassic {
		return schedqtest.ClassicGates(), []map[string]string{{"gated": "yes"}, {"hold": "yes"}}
	}
	return spec.PreEnqueuePlugins{schedqtest.PluginHold: schedqtest.HoldAdmits}, []map[string]string{{"hold": "yes"}}
}

// config is the config of a recording of w: ConfigFor its profile, with
// the PreEnqueue plugins of Gates. A saved history comes back with them
// (ReadHistory), as with the hints, which do not marshal either.
func (w Workload) config() spec.Config {
	return configChange(w.Profile, w.gated()).Build()
}

// gated reports whether the recording has PreEnqueue plugins: Gates, but
// for the podgroups profile, which draws none.
func (w Workload) gated() bool { return w.Gates && w.Profile != spec.ProfilePodGroups }

// gateLabels are the labels the PreEnqueue plugins of the recording
// refuse (nil without them).
func (w Workload) gateLabels() []map[string]string {
	if !w.gated() {
		return nil
	}
	_, labels := gatePlugins(w.Profile)
	return labels
}

// withGate is labels with a gate label of the run's added, one draw in
// three (labels unchanged otherwise, or without Gates).
func (c *client) withGate(labels map[string]string) map[string]string {
	gl := c.w.gateLabels()
	if len(gl) == 0 || c.rng.IntN(3) != 0 {
		return labels
	}
	out := maps.Clone(labels)
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, gl[c.rng.IntN(len(gl))])
	return out
}

// updateLabels updates the client's pod i to labels, as a recorded
// operation.
func (c *client) updateLabels(i int, labels map[string]string) {
	old := c.pods[i]
	in := Input{Op: schedqtest.Op{Kind: schedqtest.KindUpdate, Pod: schedqtest.PodRef{Name: old.Name, Labels: labels}}, Pods: []*spec.Pod{old}}
	_, c.pods[i] = in.executor(nil, nil).UpdatePods(in.Op)
	c.call(c.log, in)
}

// holdEvents are the events a move of holdParked may raise: those of the
// registry's plugins, which the pod's rejectors' hints answer.
var holdEvents = []spec.ClusterEvent{schedqtest.NodeAdd, schedqtest.NodeTaint, schedqtest.AssignedPodDelete}

// holdParked plays, in the hints profile with Gates, on a pod of the
// client's that waits in unschedulablePods rejected by plugins and not
// gated, R4h's sequence: an update puts Hold's label on it; an event its
// rejectors' hints requeue it on moves it, PreEnqueue refuses it and Hold
// gates it; an update lifts the label (Hold registered no event, so the
// pod stays gated); and another such event, which Hold did not register,
// must leave it gated. The client reads where its pods are with an
// unrecorded Snapshot (read-only, as clockStep does) and the config's
// hints; other clients' operations may come between, which only makes the
// sequence land otherwise. It reports whether it found such a pod.
func (c *client) holdParked() bool {
	s := c.q.Snapshot()
	cfg := c.run.w.config()
	var idx []int
	var infos []spec.QueuedPodInfo
	for i, p := range c.pods {
		if loc, u := s.Find(p.Key()); loc == spec.InUnschedulablePods && !u.Gated() && len(u.UnschedulablePlugins) > 0 {
			idx, infos = append(idx, i), append(infos, u)
		}
	}
	if len(idx) == 0 {
		return false
	}
	j := c.rng.IntN(len(idx))
	i, u := idx[j], infos[j]
	moving := func(pastGate bool) []spec.ClusterEvent {
		var out []spec.ClusterEvent
		for _, e := range holdEvents {
			if pastGate && cfg.GatingEventMatches(schedqtest.PluginHold, e) {
				continue
			}
			if cfg.MoveStrategy(&u, spec.Occurrence{Event: e}, nil) != spec.StrategySkip {
				out = append(out, e)
			}
		}
		return out
	}
	evs := moving(false)
	if len(evs) == 0 {
		return false
	}
	held := maps.Clone(c.pods[i].Labels)
	if held == nil {
		held = map[string]string{}
	}
	held["hold"] = "yes"
	c.updateLabels(i, held)
	c.call(c.log, Input{Op: schedqtest.Op{Kind: schedqtest.KindMove, Event: evs[c.rng.IntN(len(evs))]}})
	s = c.q.Snapshot()
	if loc, now := s.Find(c.pods[i].Key()); loc != spec.InUnschedulablePods || now.GatingPlugin != schedqtest.PluginHold {
		return true
	}
	lifted := maps.Clone(held)
	delete(lifted, "hold")
	c.updateLabels(i, lifted)
	if evs := moving(true); len(evs) > 0 {
		c.call(c.log, Input{Op: schedqtest.Op{Kind: schedqtest.KindMove, Event: evs[c.rng.IntN(len(evs))]}})
		c.holdSequences.Add(1)
	}
	return true
}
