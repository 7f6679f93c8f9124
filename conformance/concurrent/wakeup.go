package concurrent

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/schedq/schedq/conformance"
	"github.com/schedq/schedq/internal/parked"
	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// start is the time every target's clock starts at.
var start = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func wakeConfig() spec.Config { return spec.DefaultConfig(schedqtest.Registry) }

// PopFrame is the frame a parked Pop goroutine must show: a method named
// Pop (the target's, whatever wraps it).
const PopFrame = ").Pop("

// WakeResult is the outcome of one wake-up check.
type WakeResult struct {
	Check   string              `json:"check"`
	Rules   string              `json:"rules"`
	Outcome conformance.Outcome `json:"outcome"`
	// Detail says what happened: for a pass, what the Pops returned; for
	// n/a, why the check does not apply; for a failure, the diagnosis.
	Detail string `json:"detail,omitempty"`
}

// wakeCheck is one wake-up check: a sequential setup, then Pops parked,
// then the operation that must wake them.
type wakeCheck struct {
	name, rules string
	pops        int
	setup       func(w *waker)
	op          func(w *waker)
	// want are the pods the Pops must return, in any order; none for
	// Close, where every Pop must return spec.ErrClosed.
	want []string
}

// waker runs one check; its helpers end the check on an unexpected error.
type waker struct {
	t      testing.TB
	target conformance.Target
	opName string
	held   map[string]popped
}

type popped struct {
	info  *spec.QueuedPodInfo
	cycle int64
}

type setupFailed struct{ msg string }

func (w *waker) must(err error, what string) {
	if err != nil {
		panic(setupFailed{fmt.Sprintf("setup: %s: %v", what, err)})
	}
}

func (w *waker) add(names ...string) {
	for _, n := range names {
		w.must(w.target.Add(pod(n)), "Add "+n)
	}
}

// pop pops in the setup, where activeQ holds a pod.
func (w *waker) pop(name string) {
	s := w.target.Snapshot()
	if len(s.ActiveQ) == 0 {
		panic(setupFailed{"setup: Pop with an empty activeQ would block"})
	}
	info, cycle, err := w.target.Pop()
	w.must(err, "Pop")
	if info.Pod.Name != name {
		panic(setupFailed{fmt.Sprintf("setup: Pop returned %s, want %s", info.Key(), name)})
	}
	w.held[name] = popped{info, cycle}
}

// fail hands a popped pod back rejected by plugins (R3).
func (w *waker) fail(name string, plugins ...string) {
	p := w.held[name]
	p.info.UnschedulablePlugins = spec.NewPluginSet(plugins...)
	w.must(w.target.AddUnschedulableIfNotPresent(p.info, p.cycle), "AddUnschedulableIfNotPresent "+name)
	delete(w.held, name)
}

// park puts pods in unschedulablePods: added, popped and failed with no
// move request in between.
func (w *waker) park(plugin string, names ...string) {
	for _, n := range names {
		w.add(n)
		w.pop(n)
		w.fail(n, plugin)
	}
}

// pod is the check's pod of that name: priority by name, so Pops are
// deterministic; "aff-*" pods have a required affinity to app=web.
func pod(name string) *spec.Pod {
	p := schedqtest.Pod(name, int32(100-len(name)-int(name[0])))
	if strings.HasPrefix(name, "aff-") {
		p.RequiredAffinityTerms = []spec.AffinityTerm{{MatchLabels: map[string]string{"app": "web"}}}
	}
	return p
}

func relabel(p *spec.Pod) *spec.Pod {
	c := *p
	c.Labels = map[string]string{"v": "2"}
	return &c
}

var webPod = &spec.Pod{Namespace: "ns", Name: "web-0", UID: "uid-web-0", Labels: map[string]string{"app": "web"}}

const (
	fit      = "NodeResourcesFit"
	affinity = "InterPodAffinity"
)

// backoffDone is a clock step after which a pod with a few attempts has
// completed its backoff (max 10s).
const backoffDone = 11 * time.Second

func wakeChecks() []wakeCheck {
	return []wakeCheck{
		{name: "Add", rules: "R1 R2", pops: 1, want: []string{"a"},
			op: func(w *waker) { w.must(w.target.Add(pod("a")), "Add") }},
		{name: "Add twice, two Pops parked", rules: "R1 R2", pops: 2, want: []string{"a", "b"},
			op: func(w *waker) { w.must(w.target.Add(pod("a")), "Add a"); w.must(w.target.Add(pod("b")), "Add b") }},
		{name: "AddUnschedulableIfNotPresent into activeQ", rules: "R3 R2", pops: 1, want: []string{"a"},
			// A move request while a is in flight, and a's backoff long
			// done: a target that requeues by in-flight events (queueing
			// hints) may put it straight into activeQ; the classic queue
			// puts it in backoffQ and the check does not apply.
			setup: func(w *waker) {
				w.add("a")
				w.pop("a")
				w.target.MoveAllToActiveOrBackoffQueue(schedqtest.NodeAdd, nil)
				w.target.Advance(backoffDone)
			},
			op: func(w *waker) {
				p := w.held["a"]
				p.info.UnschedulablePlugins = spec.NewPluginSet(fit)
				w.must(w.target.AddUnschedulableIfNotPresent(p.info, p.cycle), "AddUnschedulableIfNotPresent")
			}},
		{name: "MoveAllToActiveOrBackoffQueue", rules: "R4 R2", pops: 1, want: []string{"a"},
			setup: func(w *waker) { w.park(fit, "a"); w.target.Advance(backoffDone) },
			op:    func(w *waker) { w.target.MoveAllToActiveOrBackoffQueue(schedqtest.NodeAdd, nil) }},
		{name: "MoveAllToActiveOrBackoffQueue of two pods, two Pops parked", rules: "R4 R2", pops: 2, want: []string{"a", "b"},
			setup: func(w *waker) { w.park(fit, "a", "b"); w.target.Advance(backoffDone) },
			op:    func(w *waker) { w.target.MoveAllToActiveOrBackoffQueue(schedqtest.NodeAdd, nil) }},
		{name: "AssignedPodAdded", rules: "R11 R2", pops: 1, want: []string{"aff-a"},
			setup: func(w *waker) { w.park(affinity, "aff-a"); w.target.Advance(backoffDone) },
			op:    func(w *waker) { w.must(w.target.AssignedPodAdded(webPod), "AssignedPodAdded") }},
		{name: "AssignedPodUpdated", rules: "R11 R2", pops: 1, want: []string{"aff-a"},
			setup: func(w *waker) { w.park(affinity, "aff-a"); w.target.Advance(backoffDone) },
			op: func(w *waker) {
				old := *webPod
				old.Labels = map[string]string{"app": "db"}
				w.must(w.target.AssignedPodUpdated(&old, webPod, spec.ClusterEvent{Resource: spec.ResourcePod, ActionType: spec.UpdatePodLabel}), "AssignedPodUpdated")
			}},
		{name: "FlushBackoffQCompleted", rules: "R5 R2", pops: 1, want: []string{"a"},
			setup: func(w *waker) {
				w.add("a")
				w.pop("a")
				w.target.MoveAllToActiveOrBackoffQueue(schedqtest.NodeAdd, nil)
				w.fail("a", fit) // a move request in its cycle: backoffQ
				w.target.Advance(backoffDone)
			},
			op: func(w *waker) { w.target.FlushBackoffQCompleted() }},
		{name: "FlushUnschedulablePodsLeftover", rules: "R6 R2", pops: 1, want: []string{"a"},
			setup: func(w *waker) {
				w.park(fit, "a")
				w.target.Advance(wakeConfig().PodMaxInUnschedulablePodsDuration + time.Nanosecond)
			},
			op: func(w *waker) { w.target.FlushUnschedulablePodsLeftover() }},
		{name: "Activate", rules: "R8 R2", pops: 1, want: []string{"a"},
			setup: func(w *waker) { w.park(fit, "a") },
			op:    func(w *waker) { w.must(w.target.Activate([]*spec.Pod{pod("a")}), "Activate") }},
		{name: "Update of an unschedulable pod", rules: "R9 R2", pops: 1, want: []string{"a"},
			setup: func(w *waker) { w.park(fit, "a"); w.target.Advance(backoffDone) },
			op:    func(w *waker) { w.must(w.target.Update(pod("a"), relabel(pod("a"))), "Update") }},
		{name: "Update of an unknown pod", rules: "R9 R1 R2", pops: 1, want: []string{"a"},
			op: func(w *waker) { w.must(w.target.Update(pod("a"), relabel(pod("a"))), "Update") }},
		{name: "Close", rules: "R13", pops: 2,
			op: func(w *waker) { w.target.Close() }},
	}
}

// RunWakeups runs every wake-up check (or those opts.Wakeups names), each
// as a subtest on a fresh target.
func RunWakeups(t *testing.T, newTarget conformance.NewTarget, opts Options) []WakeResult {
	opts = opts.withDefaults()
	var out []WakeResult
	for _, c := range wakeChecks() {
		if len(opts.Wakeups) > 0 && !slices.Contains(opts.Wakeups, c.name) {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			r := runWake(t, newTarget, c, opts)
			switch r.Outcome {
			case conformance.Fail:
				t.Errorf("%s (%s): %s", c.name, c.rules, r.Detail)
			case conformance.NotApplicable:
				t.Logf("n/a: %s", r.Detail)
			default:
				t.Logf("%s", r.Detail)
			}
			out = append(out, r)
		})
	}
	return out
}

type popOutcome struct {
	info *spec.QueuedPodInfo
	err  error
}

// popper is one Pop goroutine of a check.
type popper struct {
	id parked.ID
	// parkedIn is the wait the runtime reported it in.
	parkedIn string
	done     chan popOutcome
	out      *popOutcome
}

func startPop(target spec.Queue) *popper {
	ids := make(chan parked.ID, 1)
	p := &popper{done: make(chan popOutcome, 1)}
	go func() {
		ids <- parked.Current()
		info, _, err := target.Pop()
		p.done <- popOutcome{info, err}
	}()
	p.id = <-ids
	return p
}

func (p *popper) poll() bool {
	if p.out != nil {
		return true
	}
	select {
	case o := <-p.done:
		p.out = &o
		return true
	default:
		return false
	}
}

func (o popOutcome) String() string {
	if o.err != nil {
		return "error " + o.err.Error()
	}
	if o.info == nil {
		return "<nil>"
	}
	return string(o.info.Key())
}

// Wakeup runs the wake-up check of that name once and returns its
// outcome without reporting it on t (which only registers cleanups): for
// tests of the checks themselves.
func Wakeup(t testing.TB, newTarget conformance.NewTarget, name string, opts Options) (WakeResult, error) {
	for _, c := range wakeChecks() {
		if c.name == name {
			return runWake(t, newTarget, c, opts.withDefaults()), nil
		}
	}
	return WakeResult{}, fmt.Errorf("no wake-up check %q", name)
}

// WakeupChecks are the names of the wake-up checks, in the order Run runs
// them.
func WakeupChecks() []string {
	var out []string
	for _, c := range wakeChecks() {
		out = append(out, c.name)
	}
	return out
}

// runWake runs one wake-up check: its setup, its Pops started and seen
// asleep in their wait, then its operation, which must wake them, and
// what they returned against what the check wants.
func runWake(t testing.TB, newTarget conformance.NewTarget, c wakeCheck, opts Options) (res WakeResult) {
	res = WakeResult{Check: c.name, Rules: c.rules}
	target := newTarget(t, wakeConfig(), start)
	prof := target.Info()
	if !prof.Blocking {
		res.Outcome, res.Detail = conformance.NotApplicable, "the target's Pop does not block"
		return res
	}
	w := &waker{t: t, target: target, held: map[string]popped{}}
	closed := false
	var pops []*popper
	// However the check ends, no Pop goroutine outlives it: Close
	// releases them, and one that Close does not release is a failure of
	// its own (R13).
	defer func() {
		if r := recover(); r != nil {
			sf, ok := r.(setupFailed)
			if !ok {
				panic(r)
			}
			res.Outcome, res.Detail = conformance.Fail, sf.msg
		}
		if !closed {
			target.Close()
		}
		if stuck := waitAll(pops, opts.Deadline); len(stuck) > 0 {
			res.Outcome = conformance.Fail
			res.Detail += fmt.Sprintf("; Close did not wake %d parked Pop(s) within %v (R13):\n%s", len(stuck), opts.Deadline, describePops(stuck))
		}
	}()
	if c.setup != nil {
		c.setup(w)
	}
	for range c.pops {
		pops = append(pops, startPop(target))
	}
	if res.Outcome, res.Detail = awaitParked(target, pops, opts.Deadline); res.Outcome != "" {
		return res
	}
	closed = c.want == nil
	c.op(w)
	if !awaitReturns(pops, opts) {
		return lostWakeup(target, c, pops, opts, res)
	}
	res.Outcome, res.Detail = c.judge(pops)
	return res
}

// awaitParked waits, up to d for each, until every Pop sleeps in its
// wait, and records where. A Pop that returned at once makes the check
// n/a (there was a pod to take); one that neither returned nor parked
// fails it. The outcome is "" when every Pop parked.
func awaitParked(target conformance.Target, pops []*popper, d time.Duration) (conformance.Outcome, string) {
	for i, p := range pops {
		st, err := parked.Await(p.id, PopFrame, d)
		p.parkedIn = st.Status
		if err == nil {
			continue
		}
		if p.poll() {
			return conformance.NotApplicable, fmt.Sprintf("Pop %d did not block: it returned %v at once (queue: %s)", i+1, p.out, describe(target.Snapshot()))
		}
		return conformance.Fail, fmt.Sprintf("Pop %d never parked: %v", i+1, err)
	}
	return "", ""
}

// awaitReturns waits until every Pop returned, and reports false when one
// is still asleep in its wait opts.WakeTimeout after the operation
// returned, or one has not returned by opts.Deadline.
func awaitReturns(pops []*popper, opts Options) bool {
	begin := time.Now()
	for {
		all := true
		for _, p := range pops {
			all = p.poll() && all
		}
		if all {
			return true
		}
		if time.Since(begin) > opts.WakeTimeout && stillParked(pops) || time.Since(begin) > opts.Deadline {
			return false
		}
		time.Sleep(100 * time.Microsecond)
	}
}

// judge checks what the woken Pops returned: after Close, ErrClosed each
// (R13); otherwise the pods the check wants, in any order.
func (c wakeCheck) judge(pops []*popper) (conformance.Outcome, string) {
	var got []string
	for _, p := range pops {
		switch {
		case c.want == nil && !errors.Is(p.out.err, spec.ErrClosed):
			return conformance.Fail, fmt.Sprintf("a Pop parked before Close returned %v, want ErrClosed (R13)", p.out)
		case c.want != nil && (p.out.err != nil || p.out.info == nil):
			return conformance.Fail, fmt.Sprintf("a woken Pop returned %v, want one of %v", p.out, c.want)
		case c.want != nil:
			got = append(got, p.out.info.Pod.Name)
		}
	}
	slices.Sort(got)
	if c.want != nil && !slices.Equal(got, c.want) {
		return conformance.Fail, fmt.Sprintf("the woken Pops returned %v, want %v", got, c.want)
	}
	return conformance.Pass, fmt.Sprintf("%d Pop(s) parked in %s, woken; returned %v", len(pops), pops[0].parkedIn, outcomes(pops))
}

func outcomes(pops []*popper) string {
	var s []string
	for _, p := range pops {
		s = append(s, p.out.String())
	}
	return strings.Join(s, ", ")
}

// stillParked reports whether some Pop that has not returned is asleep in
// its wait (not runnable, not waiting for a lock).
func stillParked(pops []*popper) bool {
	all := parked.All()
	for _, p := range pops {
		if p.out == nil {
			if s, ok := all[p.id]; ok && s.Parked() && s.In(PopFrame) {
				return true
			}
		}
	}
	return false
}

// lostWakeup diagnoses Pops that did not return after the operation: a
// lost wake-up if activeQ holds a pod (or the operation was Close), else
// the operation did not make a pod poppable and the check does not apply.
func lostWakeup(target conformance.Target, c wakeCheck, pops []*popper, opts Options, res WakeResult) WakeResult {
	var asleep []*popper
	for _, p := range pops {
		if !p.poll() {
			asleep = append(asleep, p)
		}
	}
	s, ok := parked.SnapshotWithin(target, opts.Deadline)
	state := "the queue's Snapshot did not return (its lock is held)"
	if ok {
		state = describe(s)
	}
	if c.want != nil && ok && len(s.ActiveQ) == 0 {
		res.Outcome = conformance.NotApplicable
		res.Detail = fmt.Sprintf("after %s no pod is in activeQ, so Pop rightly stays blocked (queue: %s)", c.name, state)
		return res
	}
	res.Outcome = conformance.Fail
	res.Detail = fmt.Sprintf("lost wake-up: %d of %d Pop(s), parked before %s, still asleep %v after it returned\n%s  queue: %s",
		len(asleep), len(pops), c.name, opts.WakeTimeout, describePops(asleep), state)
	return res
}

func describePops(pops []*popper) string {
	ids := make([]parked.ID, len(pops))
	for i, p := range pops {
		ids[i] = p.id
	}
	return parked.Describe(ids...)
}

// waitAll waits for every Pop to return, up to d, and returns those that
// did not.
func waitAll(pops []*popper, d time.Duration) []*popper {
	deadline := time.Now().Add(d)
	for {
		var stuck []*popper
		for _, p := range pops {
			if !p.poll() {
				stuck = append(stuck, p)
			}
		}
		if len(stuck) == 0 || time.Now().After(deadline) {
			return stuck
		}
		time.Sleep(time.Millisecond)
	}
}

// describe is the places of a snapshot in one line.
func describe(s spec.Snapshot) string {
	names := func(ps []spec.QueuedPodInfo) string {
		if len(ps) == 0 {
			return "-"
		}
		var out []string
		for _, p := range ps {
			out = append(out, p.Pod.Name)
		}
		return strings.Join(out, ",")
	}
	return fmt.Sprintf("activeQ: %s; backoffQ: %s; unschedulablePods: %s; inFlight: %s; schedulingCycle=%d",
		names(s.ActiveQ), names(s.BackoffQ), names(s.UnschedulablePods), names(s.InFlight), s.SchedulingCycle)
}
