package realsched

import (
	"flag"
	"fmt"
	"testing"
	"time"
)

var (
	nodesFlag = flag.Int("realsched.nodes", 20, "nodes per workload")
	podsFlag  = flag.Int("realsched.pods", 200, "pods per workload")
	onlyFlag  = flag.String("realsched.workload", "", "run only this workload")
)

func workloads() []Workload {
	var out []Workload
	for _, w := range Workloads(*nodesFlag, *podsFlag) {
		if *onlyFlag == "" || *onlyFlag == w.Name {
			out = append(out, w)
		}
	}
	return out
}

// TestRealScheduler runs every workload on both queues, small, with the
// trace check on: every bindable pod bound exactly once, none lost, the
// queue's calls as the model allows.
func TestRealScheduler(t *testing.T) {
	for _, w := range workloads() {
		for _, k := range []QueueKind{Upstream, Schedq} {
			t.Run(w.Name+"/"+string(k), func(t *testing.T) {
				r := Run(Options{Queue: k, Workload: w, Trace: true, Timeout: time.Minute})
				t.Log(summary(r))
				if r.Violation != nil {
					t.Log(r.Violation.Report())
				}
				for _, p := range r.Problems() {
					t.Error(p)
				}
			})
		}
	}
}

func summary(r *Result) string {
	return fmt.Sprintf("%s on %s: %d/%d bound, %d waiting, %d lost, %d double, gated bound %d/%d, %d injected bind failures, %d attempts, %v, trace %d calls (+%d empty nominator reads), adapter errors %d",
		r.Workload, r.Queue, r.Bound, r.Pods, r.Waiting, len(r.Lost), r.DoubleBinds, r.GatedBound, r.Gated, r.InjectedBindFailures, r.Attempts, r.Duration.Round(time.Millisecond), r.TraceOps, r.TraceEmptyReads, r.AdapterErrors)
}
