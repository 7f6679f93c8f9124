package schedqtest

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/schedq/schedq/model"
	"github.com/schedq/schedq/spec"
)

// ModelRun plays a scenario on the model and prints what a scenario file
// expects after each operation: the result line, then the state (Render).
// It is how expectations are written (FormatScenario, the -rewrite of the
// conformance runner) and the shadow that other targets are compared with.
//
// The model cannot wait, so "pop blocked" is simulated: on an empty
// activeQ it is recorded as a waiting Pop, and after each later operation
// that leaves a pod in activeQ (or closes the queue) the waiting Pops
// complete, each printing a "woke pop: ..." line.
type ModelRun struct {
	Model *model.Model
	Exec  *Executor
	start time.Time
	cfg   spec.Config
	// Blocked counts the Pops waiting.
	Blocked int
}

// NewModelRun returns a run on a fresh model with cfg whose clock reads
// start.
func NewModelRun(cfg spec.Config, start time.Time) (*ModelRun, error) {
	m, err := model.New(cfg, start)
	if err != nil {
		return nil, err
	}
	return &ModelRun{Model: m, Exec: NewExecutor(m, m.Step).ForProfile(cfg.Profile), start: start, cfg: cfg}, nil
}

// Render is the model's state as scenarios print it.
func (r *ModelRun) Render() string { return Render(r.Model.Snapshot(), r.start, r.cfg) }

// Apply performs op on the model and returns its outcome and the result
// line (without the state), then completes the waiting Pops that can
// complete, one "woke pop: ..." line each. A Pop returns the model's own
// choice (the smallest key among PopCandidates); a shadow that follows
// another queue uses ApplyOnly, ApplyPopOf and WakeOne instead.
func (r *ModelRun) Apply(op Op) (Outcome, string, error) {
	o, line, err := r.ApplyOnly(op)
	if err != nil {
		return o, "", err
	}
	for r.Wakeable() {
		_, w := r.WakeOne("")
		line += "\n" + w
	}
	return o, line, nil
}

// ApplyOnly is Apply without waking the waiting Pops.
func (r *ModelRun) ApplyOnly(op Op) (Outcome, string, error) {
	if op.Kind == KindPop && r.Exec.entities && (op.Blocked || op.Choose != "") {
		if op.Blocked {
			return Outcome{}, "", fmt.Errorf("%w: pop blocked is not in the podgroups profile's language", ErrScenario)
		}
		k := EntityKeyOf(op.Choose)
		if !slices.Contains(r.Model.EntityCandidates(), k) && !r.Model.Closed() {
			return Outcome{}, "", fmt.Errorf("%w: pop choose=%s: PopEntity may return only %v", ErrScenario, op.Choose, r.Model.EntityCandidates())
		}
		o := r.Exec.ApplyPopEntity(func() (spec.QueuedEntity, int64, error) { return r.Model.PopEntityKey(k) })
		o.Op = op
		return o, o.String(), nil
	}
	if op.Kind == KindPop && op.Blocked {
		if len(r.Model.PopCandidates()) > 0 || r.Model.Closed() {
			return Outcome{}, "", fmt.Errorf("%w: pop blocked: this Pop would not block (activeQ holds %v, closed=%v); write pop",
				ErrScenario, r.Model.PopCandidates(), r.Model.Closed())
		}
		r.Blocked++
		return Outcome{Op: op, Step: spec.StepRecord{Rule: spec.R2Pop}}, "blocked", nil
	}
	if op.Kind == KindPop && op.Choose != "" {
		k := Key(op.Choose)
		if !slices.Contains(r.Model.PopCandidates(), k) && !r.Model.Closed() {
			return Outcome{}, "", fmt.Errorf("%w: pop choose=%s: Pop may return only %v", ErrScenario, op.Choose, r.Model.PopCandidates())
		}
		o := r.Exec.ApplyPop(func() (*spec.QueuedPodInfo, int64, error) { return r.Model.PopPod(k) })
		o.Op = op
		return o, o.String(), nil
	}
	o, err := r.Exec.Apply(op)
	if err != nil {
		return o, "", fmt.Errorf("%w: %w", ErrScenario, err)
	}
	return o, o.String(), nil
}

// ApplyPopOf performs a Pop that returns the pod with key k, which must be
// one of the model's PopCandidates (I5): the model follows another queue's
// choice among equals.
func (r *ModelRun) ApplyPopOf(k spec.PodKey) Outcome {
	return r.Exec.ApplyPop(func() (*spec.QueuedPodInfo, int64, error) { return r.Model.PopPod(k) })
}

// Wakeable reports whether a waiting Pop can complete now: one is waiting
// and activeQ holds a pod or the queue is closed.
func (r *ModelRun) Wakeable() bool {
	return r.Blocked > 0 && (r.Model.Closed() || len(r.Model.PopCandidates()) > 0)
}

// WakeOne completes one waiting Pop, returning the pod with key k (the
// model's own choice if k is empty, and ErrClosed once closed), and its
// "woke pop: ..." line.
func (r *ModelRun) WakeOne(k spec.PodKey) (Outcome, string) {
	r.Blocked--
	var o Outcome
	if k == "" || r.Model.Closed() {
		o = r.Exec.ApplyPop(r.Model.Pop)
	} else {
		o = r.ApplyPopOf(k)
	}
	return o, "woke pop: " + o.String()
}

// ErrScenario marks a mistake in a scenario rather than in a queue.
var ErrScenario = errors.New("scenario error")
