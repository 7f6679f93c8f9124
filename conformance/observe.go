package conformance

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/schedq/schedq/spec"
)

// Observed reduces a snapshot to what o says is observed, so that two
// snapshots of targets with different powers of observation compare. Now
// is dropped too: the clocks are compared through the pods' times.
func Observed(o Observes, s spec.Snapshot) spec.Snapshot {
	s.Now = time.Time{}
	if !o.MoveRequestCycle {
		s.MoveRequestCycle = 0
	}
	if !o.Closed {
		s.Closed = false
	}
	if !o.PodInfo {
		for _, l := range [][]spec.QueuedPodInfo{s.ActiveQ, s.BackoffQ, s.UnschedulablePods, s.InFlight} {
			for i := range l {
				l[i] = spec.QueuedPodInfo{Pod: l[i].Pod}
			}
		}
	}
	return s
}

// AdapterMistake reports what is wrong with a snapshot as a target's
// adapter produced it, before any rule is consulted: every list sorted by
// key (spec.SortPods), Now set (the target's clock), and, where the target
// observes queued-pod fields, every plugin set normalised (sorted, without
// duplicates: spec.NewPluginSet). These are mistakes of the adapter, not of
// the queue; reporting them as rule violations ("I1: activeQ is not
// sorted") would send its author looking in the wrong place. The check is
// deterministic: places in Location order, pods in list order, the first
// mistake wins.
func AdapterMistake(o Observes, s spec.Snapshot) string {
	if s.Now.IsZero() {
		return "adapter mistake: Snapshot().Now is not set; set it to the target's clock (the time Advance moves)"
	}
	for _, pl := range s.Places() {
		for i := range pl.Pods {
			p := &pl.Pods[i]
			if p.Pod == nil {
				return fmt.Sprintf("adapter mistake: Snapshot() lists a QueuedPodInfo with a nil Pod in %s", pl.Loc)
			}
			if i > 0 && pl.Pods[i-1].Pod != nil && pl.Pods[i-1].Key() > p.Key() {
				return fmt.Sprintf("adapter mistake: Snapshot() lists %s not sorted by key (%s before %s); sort each list with spec.SortPods",
					pl.Loc, pl.Pods[i-1].Key(), p.Key())
			}
			if o.PodInfo && !slices.Equal(p.UnschedulablePlugins, spec.NewPluginSet(p.UnschedulablePlugins...)) {
				return fmt.Sprintf("adapter mistake: pod %s in %s has UnschedulablePlugins %q, not a normalised plugin set (sorted, no duplicates); build it with spec.NewPluginSet",
					p.Key(), pl.Loc, []string(p.UnschedulablePlugins))
			}
		}
	}
	return ""
}

// diffStates describes how the target's observed state differs from the
// model's, one "model: X / target: Y" line per place or counter that
// differs, rendered as scenarios print states. It returns "" if they agree.
func diffStates(model, target spec.Snapshot, start time.Time, cfg spec.Config) string {
	if model.Diff(&target) == "" {
		return ""
	}
	ml := strings.Split(strings.TrimSuffix(model.Format(start, cfg), "\n"), "\n")
	tl := strings.Split(strings.TrimSuffix(target.Format(start, cfg), "\n"), "\n")
	var b strings.Builder
	for i := range ml {
		if i < len(tl) && ml[i] != tl[i] {
			fmt.Fprintf(&b, "  model:  %s\n  target: %s\n", ml[i], tl[i])
		}
	}
	if b.Len() == 0 {
		// A difference the rendering does not show (e.g. a field of the
		// pod it leaves out): fall back to the field-by-field diff.
		for _, l := range strings.Split(strings.TrimSpace(model.Diff(&target)), "\n") {
			fmt.Fprintf(&b, "  %s  (left of !=: model, right: target)\n", l)
		}
	}
	return b.String()
}

// mistakeNoMetrics is the adapter mistake of a profile that claims metrics
// without the method to read them.
const mistakeNoMetrics = "adapter mistake: Profile().Observes.Metrics is set but the target does not implement conformance.MetricsReporter (Metrics() conformance.Metrics)"
