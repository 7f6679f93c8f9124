// Package boundary gives random generators the clock steps that land on
// the instants where the queue's decisions change: a backoffQ pod's
// expiry (R7: expiry == now is still backing off), one nanosecond either
// side of it, and an unschedulable pod's leftover limit (R6: only a pod
// parked strictly longer than PodMaxInUnschedulablePodsDuration moves), and
// one nanosecond either side.
//
// A generator that draws clock steps from a fixed list of round durations
// rarely hits these instants exactly, so a queue that gets a boundary
// wrong by one comparison (< for <=) passes it. Steering a fraction of the
// steps onto Steps(...) catches such a mutant at ordinary check counts.
// Every suite's generator (rapid, fuzz, the conformance differential runs,
// the linearizability workload) should use it.
package boundary

import (
	"slices"
	"time"

	"github.com/schedq/schedq/spec"
)

// Instants are the boundary instants of the pods in s, sorted and without
// duplicates: the backoff expiry of every backoffQ pod, the backoff expiry
// an unschedulable pod will have if moved, and the instant each
// unschedulable pod passes the leftover limit (Timestamp + limit).
func Instants(s spec.Snapshot, cfg spec.Config) []time.Time {
	var out []time.Time
	for i := range s.BackoffQ {
		if e := cfg.BackoffExpiry(&s.BackoffQ[i]); !e.IsZero() {
			out = append(out, e)
		}
	}
	for i := range s.UnschedulablePods {
		p := &s.UnschedulablePods[i]
		out = append(out, p.Timestamp.Add(cfg.PodMaxInUnschedulablePodsDuration))
		if e := cfg.BackoffExpiry(p); !e.IsZero() {
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(a, b time.Time) int { return a.Compare(b) })
	return slices.CompactFunc(out, func(a, b time.Time) bool { return a.Equal(b) })
}

// Steps are the clock steps from s.Now onto each boundary instant and one
// nanosecond either side of it, positive only, sorted, without duplicates.
func Steps(s spec.Snapshot, cfg spec.Config) []time.Duration {
	var out []time.Duration
	for _, t := range Instants(s, cfg) {
		d := t.Sub(s.Now)
		for _, x := range []time.Duration{d - 1, d, d + 1} {
			if x > 0 {
				out = append(out, x)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Pick returns one of Steps(s, cfg) chosen by n (any non-negative int, e.g.
// a random draw), and false if there is none.
func Pick(s spec.Snapshot, cfg spec.Config, n int) (time.Duration, bool) {
	st := Steps(s, cfg)
	if len(st) == 0 {
		return 0, false
	}
	return st[n%len(st)], true
}
