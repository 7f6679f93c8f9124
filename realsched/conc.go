package realsched

import (
	"fmt"
	"hash/fnv"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/anishathalye/porcupine"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/schedq/schedq/model"
	"github.com/schedq/schedq/spec"
)

// stepFn is a recorded call replayed on a model: it makes the model's
// step and says how the queue's answer differs from the model's ("" when
// it does not). The serialised check runs it once, online, on the
// recorder's model; the unserialised one hands it to porcupine, which
// runs it on copies of the model at every place of the history the call
// may have taken effect.
type stepFn func(m *model.Model) string

// concOp is one call of the unserialised history.
type concOp struct {
	text, result string
	g            int64
	call, ret    time.Time
	step         stepFn
	verdicts     map[verdictKey]bool // the queue's PreEnqueue verdicts within the call
	readOnly     bool
	// may, when set, rules the call out at a place of the history
	// before the model is copied: a Pop of a pod that is no candidate
	// there (most of porcupine's tries of a Pop that waited long).
	may func(m *model.Model) bool
}

// conc records calls without serialising them: each call runs on the
// queue as the scheduler made it, with its call and return times and
// goroutine, and the history is checked afterwards by porcupine
// (checkConcurrent). What is checked is what a call returns (the pod and
// attempts of a Pop, the error of the failure path, SchedulingCycle) and
// the places of the queue at one quiescent point at the end (snapshot);
// NominatedPodsForNode is passed through unrecorded: the scheduler's
// parallel Filter calls read it by the thousand at once, and every
// subset of concurrent reads is a state of porcupine's search.
type conc struct {
	mu      sync.Mutex
	ops     []concOp
	pending atomic.Int64
}

func (c *conc) add(op concOp) {
	c.mu.Lock()
	c.ops = append(c.ops, op)
	c.mu.Unlock()
}

// call runs inner on the queue and keeps the call with its model step.
func (c *conc) call(text string, inner func() string, step stepFn) {
	c.run(text, false, inner, step, nil)
}

func (c *conc) run(text string, readOnly bool, inner func() string, step stepFn, v *Verdicts) {
	c.runMay(text, readOnly, inner, step, nil, v)
}

func (c *conc) runMay(text string, readOnly bool, inner func() string, step stepFn, may func(*model.Model) bool, v *Verdicts) {
	c.pending.Add(1)
	defer c.pending.Add(-1)
	start := time.Now()
	v.begin()
	res := inner()
	vs := v.end()
	c.add(concOp{text: text, result: res, g: goid(), call: start, ret: time.Now(), step: step, verdicts: vs, readOnly: readOnly, may: may})
}

// ConcResult is porcupine's verdict on one unserialised history.
type ConcResult struct {
	Ops     int
	Outcome porcupine.CheckResult
	Elapsed time.Duration
	// HTML is porcupine's page of the history, written when the history
	// is not linearizable (or the check ran out of time).
	HTML string
}

func (c ConcResult) String() string {
	s := fmt.Sprintf("porcupine: %d operations, %s in %v", c.Ops, c.Outcome, c.Elapsed.Round(time.Millisecond))
	if c.HTML != "" {
		s += ", page " + c.HTML
	}
	return s
}

// concState is porcupine's state: the model and a hash of its clock and
// cycles (cheap, and equal for equal models; Equal compares the rest).
type concState struct {
	m    *model.Model
	hash uint64
}

func newConcState(m *model.Model) *concState {
	h := fnv.New64a()
	fmt.Fprint(h, m.Now().UnixNano(), m.SchedulingCycle(), m.MoveRequestCycle(), m.Closed())
	return &concState{m: m, hash: h.Sum64()}
}

// snapshot records the queue's places at a quiescent point as a
// read-only call: the model's must be the same. Ticks and flushes (the
// recorder's own calls) wait meanwhile, so nothing moves a pod while the
// places are read one after the other.
func (r *Recorder) snapshot() {
	if r.conc == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var a, b, u, f []string
	r.conc.run("snapshot", true, func() string {
		a, b, u, f = r.places()
		return fmt.Sprintf("activeQ %v backoffQ %v unschedulablePods %v inFlight %v", sorted(a), sorted(b), sorted(u), sorted(f))
	}, func(m *model.Model) string {
		s := m.Snapshot()
		d, _ := placesDiff(&s, a, b, u, f)
		return strings.Join(d, "; ")
	}, r.verdicts)
}

func sorted(l []string) []string {
	l = append([]string(nil), l...)
	sort.Strings(l)
	return l
}

// objOf is the pod object a move's preCheck is asked about: the last the
// recorder saw (serialised), or the model's own version of the pod
// (unserialised: porcupine replays steps long after the run, in orders
// of its own).
func (r *Recorder) objOf(p *spec.Pod) *v1.Pod {
	if r.conc != nil {
		o, _ := p.Object.(*v1.Pod)
		return o
	}
	return r.objs[types.UID(p.UID)]
}

// waitIdle waits until no recorded call is under way (the scheduler's
// last Pop returns at Close), at most d.
func (r *Recorder) waitIdle(d time.Duration) {
	if r.conc == nil {
		return
	}
	end := time.Now().Add(d)
	for r.conc.pending.Load() > 0 && time.Now().Before(end) {
		time.Sleep(10 * time.Millisecond)
	}
}

// checkConcurrent runs porcupine on the unserialised history, the model
// (the run's config, the queue's PreEnqueue verdicts of each call) as
// the sequential specification. A call still under way has no return:
// it is given one after every other call.
func (r *Recorder) checkConcurrent(name string, timeout time.Duration) ConcResult {
	c := r.conc
	c.mu.Lock()
	ops := append([]concOp(nil), c.ops...)
	c.mu.Unlock()
	if r.verdicts != nil {
		r.verdicts.mu.Lock()
		r.verdicts.quiet = true
		r.verdicts.mu.Unlock()
	}
	hist := make([]porcupine.Operation, len(ops))
	for i := range ops {
		o := &ops[i]
		hist[i] = porcupine.Operation{ClientId: int(o.g), Input: o, Output: o.result,
			Call: o.call.UnixNano(), Return: o.ret.UnixNano()}
	}
	cfg, start := r.cfg, r.start
	pm := porcupine.Model{
		Init: func() any {
			m, err := model.New(cfg, start)
			if err != nil {
				panic(fmt.Sprintf("realsched: model.New: %v", err))
			}
			return newConcState(m)
		},
		Step: func(state, input, output any) (bool, any) {
			st, o := state.(*concState), input.(*concOp)
			if o.may != nil && !o.may(st.m) {
				return false, state
			}
			r.verdicts.use(o.verdicts)
			if o.readOnly {
				return o.step(st.m) == "", state
			}
			m := st.m.Clone()
			if d := o.step(m); d != "" {
				return false, state
			}
			return true, newConcState(m)
		},
		Equal: func(a, b any) bool {
			x, y := a.(*concState), b.(*concState)
			return x.hash == y.hash && x.m.Equal(y.m)
		},
		Hash: func(state any) uint64 { return state.(*concState).hash },
		DescribeOperation: func(input, output any) string {
			o := input.(*concOp)
			return fmt.Sprintf("g%d %s -> %s", o.g, o.text, o.result)
		},
		DescribeState: func(state any) string { return state.(*concState).m.String() },
	}
	t0 := time.Now()
	res, info := porcupine.CheckOperationsVerbose(pm, hist, timeout)
	out := ConcResult{Ops: len(hist), Outcome: res, Elapsed: time.Since(t0)}
	if res != porcupine.Ok {
		f, err := os.CreateTemp("", "realsched-porcupine-"+name+"-*.html")
		if err == nil {
			f.Close()
			if porcupine.VisualizePath(pm, info, f.Name()) == nil {
				out.HTML = f.Name()
			}
		}
	}
	return out
}
