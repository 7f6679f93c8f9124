package conformance

import (
	"fmt"
	"slices"
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
	if !o.InFlightEvents {
		s.InFlightEvents = nil
	}
	if !o.HintCounts {
		for _, l := range [][]spec.QueuedPodInfo{s.ActiveQ, s.BackoffQ, s.UnschedulablePods, s.InFlight} {
			for i := range l {
				l[i].UnschedulableCount, l[i].ConsecutiveErrorsCount, l[i].FlushTimestamp = 0, 0, time.Time{}
			}
		}
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

// mistakeNoMetrics is the adapter mistake of a profile that claims metrics
// without the method to read them.
const mistakeNoMetrics = "adapter mistake: Info().Observes.Metrics is set but the target does not implement conformance.MetricsReporter (Metrics() conformance.Metrics)"
