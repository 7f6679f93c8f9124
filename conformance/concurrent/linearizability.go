package concurrent

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/schedq/schedq/conformance"
	lin "github.com/schedq/schedq/linearizability"
	"github.com/schedq/schedq/spec"
)

// LinOptions size the linearizability runs against a target whose
// profile has the model's semantics (conformance.TargetInfo, classic).
type LinOptions struct {
	// Histories per client count (default 10), Clients (default 2, 4, 8),
	// Ops per history (default 200).
	Histories int
	Clients   []int
	Ops       int
	// OnlyFreeAdds and ConcurrentSteps are lin.Workload's: a target with
	// known sequential differences on duplicate Adds and Updates in
	// flight needs the first; a target that reads its clock more than
	// once per operation needs the second at 0.
	OnlyFreeAdds    bool
	ConcurrentSteps float64
	// NoSnapshots is lin.Workload's: for an adapter whose Snapshot is not
	// atomic with its Pop's bookkeeping.
	NoSnapshots bool
	// Timeout is porcupine's per history (default 30s); Unknown fails.
	Timeout time.Duration
	// Target, if set, makes the targets of these runs instead of Run's
	// newTarget: for an adapter that must serialise, for this check only,
	// something the target does not make atomic and that has been
	// declared a finding (the other checks still run on the target as it
	// is). Its doc comment must say what it serialises and why, and
	// TargetNote says it in a few words for the report.
	Target     conformance.NewTarget
	TargetNote string
}

// RunLinearizability records concurrent histories of targets made by
// newTarget and checks each against the model (package linearizability),
// with the profile's SilentNoOps; a lost wake-up (every client asleep in
// Pop while activeQ holds a pod) fails as well.
func RunLinearizability(t *testing.T, newTarget conformance.NewTarget, o LinOptions, seed uint64) *LinearizabilityResult {
	o = o.withDefaults()
	res := &LinearizabilityResult{Clients: fmt.Sprint(o.Clients)}
	silent := false
	nt := func(cfg spec.Config, start time.Time) (lin.Stepper, error) {
		tg := newTarget(t, cfg, start)
		silent = tg.Info().SilentNoOps
		return tg, nil
	}
	// The profile decides SilentNoOps; learn it from a throwaway target.
	if _, err := nt(lin.Config(), lin.Start); err != nil {
		t.Fatal(err)
	}
	procs := []int{1, 2, 4, 8}
	i := 0
	for _, clients := range o.Clients {
		for range o.Histories {
			w := lin.Workload{Clients: clients, OpsPerClient: max(4, o.Ops/clients), Seed: seed + uint64(i),
				ConcurrentSteps: o.ConcurrentSteps, OnlyFreeAdds: o.OnlyFreeAdds, NoSnapshots: o.NoSnapshots, SilentNoOps: silent}
			prev := runtime.GOMAXPROCS(procs[i%len(procs)])
			h, err := lin.RecordTarget(w, nt)
			runtime.GOMAXPROCS(prev)
			i++
			if err != nil {
				res.Failures++
				res.Detail = err.Error()
				t.Errorf("history %d (%d clients, seed %d): %v", i, clients, w.Seed, err)
				return res
			}
			res.check(t, h, i, clients, w.Seed, o.Timeout)
		}
	}
	t.Logf("%d histories (clients %v), %d operations: %d not linearizable, %d undecided", res.Histories, o.Clients, res.Operations, res.Failures, res.Undecided)
	return res
}

// withDefaults fills in the sizes left at zero.
func (o LinOptions) withDefaults() LinOptions {
	if o.Histories <= 0 {
		o.Histories = 10
	}
	if len(o.Clients) == 0 {
		o.Clients = []int{2, 4, 8}
	}
	if o.Ops <= 0 {
		o.Ops = 200
	}
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	return o
}

// check counts a recorded history and fails t for each lost wake-up the
// recording saw, then for porcupine's verdict if it is not linearizable
// or undecided, with the evidence written for it. The messages name the
// history by its number n, its clients and its seed.
func (res *LinearizabilityResult) check(t *testing.T, h *lin.History, n, clients int, seed uint64, timeout time.Duration) {
	res.Histories++
	res.Operations += len(h.Operations)
	for _, l := range h.LostWakeups {
		res.Failures++
		res.Detail = "lost wake-up: " + l
		t.Errorf("history %d (%d clients, seed %d): lost wake-up: %s", n, clients, seed, l)
	}
	c := lin.Check(h, timeout)
	switch c.Outcome {
	case porcupine.Ok:
		return
	case porcupine.Unknown:
		res.Undecided++
	default:
		res.Failures++
	}
	htmlPath, textPath, _ := lin.WriteEvidence(h, c, "concurrent")
	if res.Detail == "" {
		res.Detail = fmt.Sprintf("history %d (%d clients, %d operations, seed %d) is %v; listing %s", n, clients, len(h.Operations), seed, c.Outcome, textPath)
	}
	t.Errorf("history %d (%d clients, %d operations, seed %d) is %v\n  visualisation: %s\n  listing:       %s",
		n, clients, len(h.Operations), seed, c.Outcome, htmlPath, textPath)
}
