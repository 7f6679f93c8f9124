package concurrent

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/schedq/schedq/conformance"
	"github.com/schedq/schedq/internal/parked"
	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// ConservationResult is what the conservation runs did and found.
type ConservationResult struct {
	Rounds     int `json:"rounds"`
	Workers    int `json:"workers"`
	Operations int `json:"operations"`
	Pops       int `json:"pops"`
	// Stuck is how many times every worker slept in Pop at once; each
	// time the coordinator drained backoffQ and unschedulablePods (a
	// clock step past every backoff and the leftover limit, then both
	// flushes), which must wake them, or added a rescue pod.
	Stuck    int   `json:"stuck"`
	Rescues  int   `json:"rescues"`
	MaxProcs []int `json:"gomaxprocs"`
	// Violations are the conservation failures (the first few of the
	// first round with any).
	Violations []string `json:"violations,omitempty"`
	// KnownViolations are violations that a known finding explains
	// (Options.Known): reported, not failed.
	KnownViolations []string `json:"known_violations,omitempty"`
}

// podState is the harness's account of one pod. The account is updated
// before the operation that changes it is called whenever the queue may
// act on the change at once (a pod added can be popped before Add
// returns), so that the account never lags the queue.
type podState int

const (
	free      podState = iota // not held: never added, Done or deleted
	queued                    // in activeQ, backoffQ or unschedulablePods (or being popped)
	held                      // popped by holder, not yet handed back
	returning                 // being handed back by holder (AddUnschedulableIfNotPresent)
	finishing                 // being ended by holder (Done or Delete)
)

var stateNames = [...]string{"free", "queued", "held", "returning", "finishing"}

func (s podState) String() string { return stateNames[s] }

type account struct {
	state  podState
	holder int // worker, for held, returning, finishing
	cycle  int64
	pod    *spec.Pod
	// deleted: the pod object is gone; the next Add re-creates it with a
	// fresh UID, as the API server does (a queue may remember a UID).
	deleted bool
	version int
}

// ledger is the harness's account of every pod, behind a mutex.
type ledger struct {
	mu         sync.Mutex
	pods       map[spec.PodKey]*account
	violations []string
	trace      trace
}

// trace is a round's interleaving: each worker operation as it starts and
// as it returns, in the order the log's lock saw them. A violation prints
// the last of them, so that a race the check catches is told as the
// operations that made it, not only as the state it left.
type trace struct {
	mu    sync.Mutex
	lines []string
}

func (t *trace) add(format string, args ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lines = append(t.lines, fmt.Sprintf("%5d ", len(t.lines)+1)+fmt.Sprintf(format, args...))
}

// traceTail is how many of the last operations a violation prints.
const traceTail = 40

func (t *trace) tail() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := t.lines[max(0, len(t.lines)-traceTail):]
	return fmt.Sprintf("  interleaving (the last %d of the round's %d operation starts and returns):\n    %s\n",
		len(lines), len(t.lines), strings.Join(lines, "\n    "))
}

func (l *ledger) violate(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.violatef(format, args...)
}

func (l *ledger) violatef(format string, args ...any) {
	if len(l.violations) < 5 {
		msg := fmt.Sprintf(format, args...)
		if !strings.HasSuffix(msg, "\n") {
			msg += "\n"
		}
		l.violations = append(l.violations, msg+l.trace.tail())
	}
}

// RunConservation runs opts.Rounds rounds of opts.Workers concurrent
// workers against fresh targets and checks conservation during and after
// each.
func RunConservation(t *testing.T, newTarget conformance.NewTarget, opts Options) ConservationResult {
	res := Conservation(t, newTarget, opts)
	for _, v := range res.Violations {
		t.Errorf("%s", v)
	}
	for _, v := range res.KnownViolations {
		t.Logf("known: %s", v)
	}
	t.Logf("%d rounds x %d workers: %d operations, %d Pops, %d times every worker slept in Pop, %d rescue Adds; GOMAXPROCS %v",
		res.Rounds, res.Workers, res.Operations, res.Pops, res.Stuck, res.Rescues, res.MaxProcs)
	return res
}

// Conservation runs the rounds, up to the first with a violation, and
// returns what they found without reporting it on t (which only
// registers cleanups).
func Conservation(t testing.TB, newTarget conformance.NewTarget, opts Options) ConservationResult {
	opts = opts.withDefaults()
	res := ConservationResult{Workers: opts.Workers}
	procs := []int{1, 2, 4, 8}
	for i := range opts.Rounds {
		p := procs[i%len(procs)]
		prev := runtime.GOMAXPROCS(p)
		r := runRound(t, newTarget, opts, opts.Seed+uint64(i))
		runtime.GOMAXPROCS(prev)
		res.Rounds++
		res.MaxProcs = append(res.MaxProcs, p)
		res.Operations += r.ops
		res.Pops += r.pops
		res.Stuck += r.stuck
		res.Rescues += r.rescues
		unknown := false
		for _, v := range r.violations {
			msg := fmt.Sprintf("round %d (seed %d, GOMAXPROCS %d): %s", i, opts.Seed+uint64(i), p, v)
			if f := knownFinding(opts.Known, v); f != "" {
				res.KnownViolations = append(res.KnownViolations, msg+"\n  known: "+f)
				continue
			}
			unknown = true
			res.Violations = append(res.Violations, msg)
		}
		if unknown {
			break
		}
	}
	return res
}

func knownFinding(known []Finding, v string) string {
	for _, f := range known {
		if f.Match != "" && strings.Contains(v, f.Match) && (f.Evidence == nil || f.Evidence(v)) {
			return f.Title
		}
	}
	return ""
}

type roundResult struct {
	ops, pops, stuck, rescues int
	violations                []string
}

type worker struct {
	r     *round
	id    int
	gid   atomic.Int64 // its goroutine, for parked
	rng   *rand.Rand
	owned []*spec.Pod
	held  []heldPod
	// doing is the operation in progress, for a hang's diagnosis.
	doing  atomic.Pointer[string]
	inPop  atomic.Bool
	popped atomic.Int64 // Pops returned
	// heldNames is held, for the coordinator's reports.
	heldNames atomic.Pointer[string]
	closed    bool
	// started: the current step called the target (set); result is what
	// its call returned, for the interleaving.
	started bool
	result  string
	last    string // the operation last started, for a panic's report
}

type heldPod struct {
	info  *spec.QueuedPodInfo
	cycle int64
}

type round struct {
	target conformance.Target
	cfg    spec.Config
	led    *ledger
	ops    atomic.Int64
	pops   atomic.Int64
	// coordOps counts the coordinator's finished calls: progress too.
	coordOps atomic.Int64
	all      []*spec.Pod
}

// events the workers raise; PVAdd is of no interest to any plugin.
var events = []spec.ClusterEvent{schedqtest.NodeAdd, schedqtest.NodeTaint, schedqtest.PVAdd, spec.WildCardEvent,
	{Resource: spec.ResourcePod, ActionType: spec.Delete}}

// steps are the clock steps: onto and around the backoff boundaries and
// the leftover limit.
func steps(cfg spec.Config) []time.Duration {
	b, lim := cfg.PodInitialBackoffDuration, cfg.PodMaxInUnschedulablePodsDuration
	return []time.Duration{b - 1, b, b + 1, 2 * b, cfg.PodMaxBackoffDuration, lim, lim + 1, 100 * time.Millisecond}
}

// runRound runs one round: the workers start together, the coordinator
// watches them until they finish or hang, and once the queue is closed
// and quiet, conservation is checked. A hung round reports its diagnosis
// alone: the final check's Snapshot could wait on the hung queue forever.
func runRound(t testing.TB, newTarget conformance.NewTarget, opts Options, seed uint64) roundResult {
	cfg := wakeConfig()
	r := &round{target: newTarget(t, cfg, start), cfg: cfg, led: &ledger{pods: map[spec.PodKey]*account{}}}
	c := &coordinator{r: r, opts: opts}
	c.workers, c.rescue = r.newWorkers(seed, opts.Workers)
	finished := c.watch(startWorkers(c.workers, opts.OpsPerWorker))
	c.closeQ()
	c.res.ops, c.res.pops = int(r.ops.Load()), int(r.pops.Load())
	if !finished {
		return c.res
	}
	r.final()
	c.res.violations = append(c.res.violations, r.led.violations...)
	return c.res
}

// newWorkers makes n workers owning three pods each, and 2n rescue pods
// of the lowest priority, all free in the ledger. One generator seeded
// by seed draws the pods' priorities, labels and affinities; each worker
// draws its operations from a generator of its own.
func (r *round) newWorkers(seed uint64, n int) (workers []*worker, rescue []*spec.Pod) {
	rng := rand.New(rand.NewPCG(seed, 0xc0))
	for i := range n {
		w := &worker{r: r, id: i, rng: rand.New(rand.NewPCG(seed, uint64(i)+1))}
		for j := range 3 {
			name := fmt.Sprintf("w%d-p%d", i, j)
			p := &spec.Pod{Namespace: "ns", Name: name, UID: spec.UID("uid-" + name), Priority: int32(rng.IntN(5)) * 10,
				Labels: map[string]string{"app": []string{"web", "db"}[rng.IntN(2)]}}
			if rng.IntN(3) == 0 {
				p.RequiredAffinityTerms = []spec.AffinityTerm{{MatchLabels: map[string]string{"app": "web"}}}
			}
			w.owned = append(w.owned, p)
			r.all = append(r.all, p)
			r.led.pods[p.Key()] = &account{pod: p}
		}
		workers = append(workers, w)
	}
	for j := range 2 * n {
		name := fmt.Sprintf("rescue-%d", j)
		p := &spec.Pod{Namespace: "ns", Name: name, UID: spec.UID("uid-" + name), Priority: -1}
		rescue = append(rescue, p)
		r.led.pods[p.Key()] = &account{pod: p}
	}
	return workers, rescue
}

// startWorkers runs each worker's ops operations in a goroutine of its
// own. Each records its goroutine before any starts, so that allParked
// can find it, and they are released at once, so that the first
// operations race. The channel closes when every worker has returned.
func startWorkers(ws []*worker, ops int) <-chan struct{} {
	var wg sync.WaitGroup
	begin := make(chan struct{})
	for _, w := range ws {
		wg.Add(1)
		ready := make(chan struct{})
		go func() {
			defer wg.Done()
			w.gid.Store(int64(parked.Current()))
			close(ready)
			<-begin
			defer w.recoverPanic()
			w.loop(ops)
		}()
		<-ready
	}
	close(begin)
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	return done
}

// coordinator watches a round's workers from the test's goroutine, and
// only that goroutine touches it. When every worker sleeps in Pop it
// tells a lost wake-up or lost pods from a quiet queue, and keeps the
// round going by draining backoffQ and unschedulablePods or adding a
// rescue pod, until it has nothing left to give and closes the queue.
type coordinator struct {
	r       *round
	opts    Options
	workers []*worker
	rescue  []*spec.Pod
	res     roundResult
	// waitsIn is the coordinator's call that did not return in time, for
	// the hang's diagnosis.
	waitsIn string
	closed  bool
	// drained: the coordinator has drained, when the workers had
	// returned from drainPops Pops.
	drained   bool
	drainPops []int64
}

// watch polls the round until the workers finish, and reports whether
// they did. The deadline counts from the last progress, not from the
// start: a round hangs when no operation has returned for opts.Deadline,
// so a loaded machine that only runs it slowly does not fail it, and a
// hang is diagnosed once everything left is stuck.
func (c *coordinator) watch(done <-chan struct{}) bool {
	deadline := time.Now().Add(c.opts.Deadline)
	lastOps := int64(-1)
	poll := time.NewTicker(time.Millisecond)
	defer poll.Stop()
	for {
		select {
		case <-done:
			return true
		case <-poll.C:
		}
		if n := c.r.ops.Load() + c.r.coordOps.Load(); n != lastOps {
			lastOps, deadline = n, time.Now().Add(c.opts.Deadline)
		}
		if time.Now().After(deadline) {
			c.reportHang(done)
			return false
		}
		if !c.closed && allParked(c.workers) {
			c.unpark()
		}
	}
}

// reportHang records the diagnosis of a round that made no progress for
// opts.Deadline and closes the queue, giving the workers a last chance
// to finish; a queue that hangs them leaks them, and the report says so.
func (c *coordinator) reportHang(done <-chan struct{}) {
	v := c.r.hang(c.workers, c.opts.Deadline)
	if c.waitsIn != "" {
		v += fmt.Sprintf("  the coordinator waits in %s\n", c.waitsIn)
	}
	c.res.violations = append(c.res.violations, v)
	c.closeQ()
	select {
	case <-done:
	case <-time.After(c.opts.Deadline / 4):
	}
}

// unpark answers every live worker sleeping in Pop. A pod in activeQ
// that they still sleep beside is a lost wake-up; pods in backoffQ or
// unschedulablePods that a drain released to none of them are lost.
// Otherwise it gives them something to Pop: a drain while the queue
// holds pods, a rescue pod while any is left; then it closes the queue.
func (c *coordinator) unpark() {
	before := popCounts(c.workers)
	s, ok := parked.SnapshotWithin(c.r.target, c.opts.Deadline/4)
	if !ok {
		return // the deadline will diagnose it
	}
	if len(s.ActiveQ) > 0 && allParked(c.workers) && slices.Equal(before, popCounts(c.workers)) {
		c.r.led.violate("lost wake-up: every worker sleeps in Pop while activeQ holds %s\n%s  queue: %s",
			s.ActiveQ[0].Pod.Name, c.r.describeWorkers(c.workers), describe(s))
		c.closeQ()
		return
	}
	c.res.stuck++
	switch {
	case len(s.BackoffQ)+len(s.UnschedulablePods) > 0 && c.drained && slices.Equal(before, c.drainPops):
		// The last drain woke no worker (every one still sleeps in Pop,
		// none returned since) and left pods where it must have
		// released them from: the queue holds them where no flush or
		// Pop will take them. Draining again would only loop.
		c.r.led.violate("lost pods: every worker sleeps in Pop after a drain (a clock step past every backoff and the leftover limit, then both flushes) that released none of %s\n%s  queue: %s",
			strings.Join(waitingPods(s), ", "), c.r.describeWorkers(c.workers), describe(s))
		c.closeQ()
	case len(s.BackoffQ)+len(s.UnschedulablePods) > 0:
		c.drained, c.drainPops = true, before
		c.drain()
	case c.res.rescues < len(c.rescue):
		c.addRescue()
	default:
		c.closeQ()
	}
}

// waitingPods names the pods in backoffQ and unschedulablePods, with
// where each is.
func waitingPods(s spec.Snapshot) []string {
	var names []string
	for _, pl := range s.Places() {
		if pl.Loc == spec.InBackoffQ || pl.Loc == spec.InUnschedulablePods {
			for _, p := range pl.Pods {
				names = append(names, fmt.Sprintf("%s in %v", p.Pod.Name, pl.Loc))
			}
		}
	}
	return names
}

// drain steps the clock past every backoff and the leftover limit, then
// runs both flushes, which must wake the Pops. It says which of its
// calls it is in, so that a hang there is named like a worker's; a
// drain that hangs is diagnosed at the deadline.
func (c *coordinator) drain() {
	q, cfg := c.r.target, c.r.cfg
	var step atomic.Pointer[string]
	in := func(call string) { step.Store(&call) }
	in("Advance")
	if c.within(func() string { return "the drain, in " + *step.Load() }, func() {
		q.Advance(cfg.PodMaxInUnschedulablePodsDuration + cfg.PodMaxBackoffDuration + time.Nanosecond)
		in("FlushUnschedulablePodsLeftover")
		q.FlushUnschedulablePodsLeftover()
		in("FlushBackoffQCompleted")
		q.FlushBackoffQCompleted()
	}) {
		c.r.coordOps.Add(1)
	}
}

// addRescue adds the next rescue pod, queued in the ledger before the
// call since a worker may pop it before Add returns.
func (c *coordinator) addRescue() {
	p := c.rescue[c.res.rescues]
	c.res.rescues++
	led := c.r.led
	led.mu.Lock()
	led.pods[p.Key()].state = queued
	led.mu.Unlock()
	var err error
	if c.within(func() string { return "a rescue Add" }, func() { err = c.r.target.Add(p) }) {
		c.r.coordOps.Add(1)
		if err != nil {
			led.violate("rescue Add(%s): %v", p.Name, err)
		}
	}
}

// closeQ closes the queue once.
func (c *coordinator) closeQ() {
	if !c.closed {
		c.closed = true
		c.within(func() string { return "Close" }, c.r.target.Close)
	}
}

// within runs one of the coordinator's calls and reports whether it
// returned within opts.Deadline. The coordinator's calls go to the same
// queue as the workers' and may hang as theirs do, so each runs in a
// goroutine of its own; what a late one was doing (what, asked only
// then) is kept for the hang's diagnosis, and a panic is a violation.
func (c *coordinator) within(what func() string, op func()) bool {
	ret := make(chan struct{})
	go func() {
		defer close(ret)
		defer func() {
			if p := recover(); p != nil {
				c.r.led.panicked("the coordinator", what(), p)
			}
		}()
		op()
	}()
	select {
	case <-ret:
		return true
	case <-time.After(c.opts.Deadline):
		c.waitsIn = what()
		return false
	}
}

func popCounts(ws []*worker) []int64 {
	out := make([]int64, len(ws))
	for i, w := range ws {
		out[i] = w.popped.Load()
	}
	return out
}

// allParked reports whether every worker still running sleeps in Pop, by
// the runtime's account, and at least one does.
func allParked(ws []*worker) bool {
	any := false
	for _, w := range ws {
		if w.doing.Load() == nil {
			continue // finished
		}
		if !w.inPop.Load() {
			return false
		}
		any = true
	}
	if !any {
		return false
	}
	all := parked.All()
	for _, w := range ws {
		if w.doing.Load() == nil {
			continue
		}
		s, ok := all[parked.ID(w.gid.Load())]
		if !ok || !s.Parked() || !s.In(PopFrame) {
			return false
		}
	}
	return true
}

// set records the operation the worker starts, for a hang's diagnosis
// and the interleaving.
func (w *worker) set(op string) {
	w.started, w.last = true, op
	w.doing.Store(&op)
	w.r.led.trace.add("worker %d: %s", w.id, op)
}

// returned records that the worker's operation returned, with what it
// returned if that matters to the interleaving (a pod popped, an error).
func (w *worker) returned(what string) {
	op := "?"
	if p := w.doing.Load(); p != nil {
		op = *p
	}
	w.r.led.trace.add("worker %d:   %s returned%s", w.id, op, what)
}

// recoverPanic turns a panic of the target in one of the worker's calls
// into a violation: the operation, the panic, where it was raised, and
// the interleaving that led there. The worker stops; the round goes on
// (a queue whose lock the panic left held then hangs the others, which
// the deadline diagnoses).
func (w *worker) recoverPanic() {
	if p := recover(); p != nil {
		w.r.led.panicked(fmt.Sprintf("worker %d", w.id), w.last, p)
		w.r.checkConsistency(fmt.Sprintf("after worker %d's panic", w.id))
	}
}

// checkConsistency asks a target that checks its own structures (impl's
// CheckConsistency) to, and reports what it finds: a race that corrupts
// them is then named where it shows (the pod whose entry disagrees), not
// only by a later panic. A check that panics on the corruption says so.
func (r *round) checkConsistency(when string) {
	c, ok := r.target.(interface{ CheckConsistency() error })
	if !ok {
		return
	}
	defer func() {
		if p := recover(); p != nil {
			r.led.violate("%s, the target's own consistency check panicked: %v", when, p)
		}
	}()
	if err := c.CheckConsistency(); err != nil {
		r.led.violate("%s, the target's own consistency check fails: %v", when, err)
	}
}

// panicked records a panic of the target as a violation.
func (l *ledger) panicked(who, op string, p any) {
	stack := strings.Split(string(debug.Stack()), "\n")
	l.violate("%s: %s panicked: %v\n  raised at:\n    %s", who, op, p, strings.Join(stack[min(len(stack), 7):min(len(stack), 15)], "\n    "))
}

func (w *worker) publishHeld() {
	var names []string
	for _, h := range w.held {
		names = append(names, h.info.Pod.Name)
	}
	s := strings.Join(names, ",")
	w.heldNames.Store(&s)
}

func (w *worker) loop(n int) {
	defer w.doing.Store(nil)
	for range n {
		if len(w.held) > 0 && (w.rng.IntN(2) == 0 || w.closed) {
			w.finish(w.rng.IntN(len(w.held)))
		} else {
			w.issue()
		}
		if w.started {
			w.returned(w.result)
			w.started, w.result = false, ""
		}
		w.r.ops.Add(1)
		if w.rng.IntN(4) == 0 {
			runtime.Gosched()
		}
	}
	for len(w.held) > 0 {
		w.finish(0)
		w.returned(w.result)
		w.started, w.result = false, ""
	}
}

// finish ends the attempt of a held pod: handed back (R3), Done (R12) or
// deleted (R10).
func (w *worker) finish(i int) {
	h := w.held[i]
	w.held = append(w.held[:i], w.held[i+1:]...)
	w.publishHeld()
	key := h.info.Key()
	led := w.r.led
	q := w.r.target
	switch n := w.rng.IntN(10); {
	case n < 6:
		info := *h.info
		info.UnschedulablePlugins = nil
		for _, p := range []string{"NodeResourcesFit", "InterPodAffinity", "PodTopologySpread", "TaintToleration"} {
			if w.rng.IntN(3) == 0 {
				info.UnschedulablePlugins = append(info.UnschedulablePlugins, p)
			}
		}
		w.transition(key, held, returning)
		w.set("AddUnschedulableIfNotPresent(" + string(key) + ")")
		if err := q.AddUnschedulableIfNotPresent(&info, h.cycle); err != nil {
			w.result = ": " + err.Error()
			led.violate("worker %d: AddUnschedulableIfNotPresent(%s) of the pod it popped at cycle %d: %v", w.id, key, h.cycle, err)
		}
		led.mu.Lock()
		if a := led.pods[key]; a.state == returning && a.holder == w.id {
			a.state = queued
		}
		led.mu.Unlock()
	default:
		w.transition(key, held, finishing)
		var err error
		deleted := n >= 9
		if !deleted {
			w.set("Done(" + string(key) + ")")
			err = q.Done(h.info.Pod.UID)
		} else {
			w.set("Delete(" + string(key) + ")")
			err = q.Delete(h.info.Pod)
		}
		if err != nil {
			w.result = ": " + err.Error()
			led.violate("worker %d: ending %s, which it popped at cycle %d: %v", w.id, key, h.cycle, err)
		}
		led.mu.Lock()
		led.pods[key].deleted = led.pods[key].deleted || deleted
		led.mu.Unlock()
		w.transition(key, finishing, free)
	}
}

// transition moves a pod this worker holds from one state to the next.
func (w *worker) transition(key spec.PodKey, from, to podState) {
	led := w.r.led
	led.mu.Lock()
	defer led.mu.Unlock()
	a := led.pods[key]
	if a.state != from || a.holder != w.id {
		led.violatef("worker %d: %s is %v (worker %d), want %v by this worker", w.id, key, a.state, a.holder, from)
	}
	a.state, a.holder = to, w.id
}

// issue calls one operation on the queue, drawn with fixed odds: 22 in
// 100 Adds, 28 Pops, the rest the events, flushes, clock steps,
// activations and snapshots that move pods between the queues.
func (w *worker) issue() {
	q := w.r.target
	switch n := w.rng.IntN(100); {
	case n < 22:
		w.add()
	case n < 50:
		w.pop()
	case n < 58:
		e := events[w.rng.IntN(len(events))]
		w.set("MoveAllToActiveOrBackoffQueue(" + e.String() + ")")
		q.MoveAllToActiveOrBackoffQueue(e, nil)
	case n < 66:
		w.set("FlushBackoffQCompleted")
		q.FlushBackoffQCompleted()
	case n < 70:
		w.set("FlushUnschedulablePodsLeftover")
		q.FlushUnschedulablePodsLeftover()
	case n < 80:
		st := steps(w.r.cfg)
		d := st[w.rng.IntN(len(st))]
		w.set("Step(" + d.String() + ")")
		q.Advance(d)
	case n < 86:
		p := w.r.all[w.rng.IntN(len(w.r.all))]
		w.set("Activate(" + p.Name + ")")
		_ = q.Activate([]*spec.Pod{p})
	case n < 90:
		w.set("AssignedPodAdded(web-0)")
		_ = q.AssignedPodAdded(webPod)
	case n < 94:
		w.set("SchedulingCycle")
		q.SchedulingCycle()
	default:
		w.snapshot()
	}
}

// add adds one of the worker's pods that is free (neither queued nor
// held), one time in five as an Update of a pod the queue does not hold
// (R9). A pod deleted before comes back as a new object with a new UID.
func (w *worker) add() {
	led := w.r.led
	i := w.rng.IntN(len(w.owned))
	p := w.owned[i]
	led.mu.Lock()
	a := led.pods[p.Key()]
	if a.state != free {
		led.mu.Unlock()
		return
	}
	if a.deleted {
		a.version++
		c := *p
		c.UID = spec.UID(fmt.Sprintf("uid-%s-%d", p.Name, a.version))
		p, a.pod, a.deleted = &c, &c, false
		w.owned[i] = p
	}
	a.state = queued
	led.mu.Unlock()
	var err error
	if w.rng.IntN(5) == 0 {
		w.set("Update(" + p.Name + ") of a pod the queue does not hold")
		err = w.r.target.Update(p, p)
	} else {
		w.set("Add(" + p.Name + ")")
		err = w.r.target.Add(p)
	}
	if err != nil {
		led.violate("worker %d: adding %s, which was neither held nor in flight: %v", w.id, p.Name, err)
	}
}

// pop pops a pod unless the worker already holds two or saw the queue
// closed, and checks that the pod was queued: a pod handed out twice
// without being handed back breaks I4.
func (w *worker) pop() {
	if w.closed || len(w.held) >= 2 {
		return
	}
	w.set("Pop")
	w.inPop.Store(true)
	info, cycle, err := w.r.target.Pop()
	w.inPop.Store(false)
	w.popped.Add(1)
	if err != nil || info == nil {
		w.closed = true
		return
	}
	w.r.pops.Add(1)
	key := info.Key()
	w.result = fmt.Sprintf(" %s (cycle %d)", key, cycle)
	led := w.r.led
	led.mu.Lock()
	a, ok := led.pods[key]
	switch {
	case !ok:
		led.violatef("worker %d: Pop returned %s, which nobody added", w.id, key)
	case a.state == queued || a.state == returning:
		a.state, a.holder, a.cycle = held, w.id, cycle
	default:
		led.violatef("worker %d: Pop returned %s at cycle %d, but it is %v (worker %d, popped at cycle %d): handed out twice without being handed back (I4)",
			w.id, key, cycle, a.state, a.holder, a.cycle)
	}
	led.mu.Unlock()
	w.held = append(w.held, heldPod{info, cycle})
	w.publishHeld()
}

// snapshot checks I1 at an arbitrary instant, while the other workers
// run: no pod in two places. It asks a target that checks its own
// structures to do so too.
func (w *worker) snapshot() {
	w.set("Snapshot")
	s := w.r.target.Snapshot()
	w.r.checkConsistency(fmt.Sprintf("worker %d: at a Snapshot", w.id))
	seen := map[spec.PodKey]spec.Location{}
	for _, pl := range s.Places() {
		for _, p := range pl.Pods {
			if l, dup := seen[p.Key()]; dup {
				w.r.led.violate("worker %d: Snapshot shows %s in %v and in %v (I1)\n  queue: %s", w.id, p.Key(), l, pl.Loc, describe(s))
			}
			seen[p.Key()] = pl.Loc
		}
	}
}

// final checks conservation after quiescence: every pod the account says
// is queued is held exactly once, in activeQ, backoffQ or
// unschedulablePods; every other pod is not held at all.
func (r *round) final() {
	s := r.target.Snapshot()
	count := map[spec.PodKey][]spec.Location{}
	for _, pl := range s.Places() {
		for _, p := range pl.Pods {
			count[p.Key()] = append(count[p.Key()], pl.Loc)
		}
	}
	led := r.led
	led.mu.Lock()
	defer led.mu.Unlock()
	var keys []spec.PodKey
	for k := range led.pods {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	for _, k := range keys {
		a, locs := led.pods[k], count[k]
		switch {
		case a.state == queued && (len(locs) != 1 || locs[0] == spec.InFlight):
			led.violatef("after quiescence %s, added and neither Done nor deleted, is held %d times (%v), want once in activeQ, backoffQ or unschedulablePods (I4)\n  queue: %s",
				k, len(locs), locs, describe(s))
		case a.state == free && len(locs) > 0:
			led.violatef("after quiescence %s, Done or deleted (or never added), is still held in %v (I4)\n  queue: %s", k, locs, describe(s))
		case a.state != queued && a.state != free:
			led.violatef("after quiescence %s is %v by worker %d: a worker did not finish", k, a.state, a.holder)
		}
		delete(count, k)
	}
	for k, locs := range count {
		led.violatef("after quiescence the queue holds %s in %v, which nobody added (I4)", k, locs)
	}
}

// hang diagnoses a round that did not finish by its deadline: what each
// worker is doing and where its goroutine waits, what the queue holds,
// and which pods are unaccounted for.
func (r *round) hang(ws []*worker, d time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "the round did not finish within its deadline: no operation returned for %v\n", d)
	b.WriteString(r.describeWorkers(ws))
	s, ok := parked.SnapshotWithin(r.target, d)
	if !ok {
		fmt.Fprintf(&b, "  queue: Snapshot did not return within %v (its lock is held)\n", d)
		return b.String()
	}
	fmt.Fprintf(&b, "  queue: %s\n", describe(s))
	where := map[spec.PodKey]spec.Location{}
	for _, pl := range s.Places() {
		for _, p := range pl.Pods {
			where[p.Key()] = pl.Loc
		}
	}
	r.led.mu.Lock()
	defer r.led.mu.Unlock()
	var lost []string
	for k, a := range r.led.pods {
		if _, in := where[k]; a.state == queued && !in {
			lost = append(lost, string(k))
		}
	}
	sort.Strings(lost)
	if len(lost) > 0 {
		fmt.Fprintf(&b, "  unaccounted for (added, not held by a worker, not Done, not deleted, and not in the queue): %s\n", strings.Join(lost, ", "))
	}
	return b.String()
}

func (r *round) describeWorkers(ws []*worker) string {
	all := parked.All()
	var b strings.Builder
	for _, w := range ws {
		op := "finished"
		if p := w.doing.Load(); p != nil {
			op = *p
		}
		heldNames := ""
		if p := w.heldNames.Load(); p != nil {
			heldNames = *p
		}
		g := "exited"
		if s, ok := all[parked.ID(w.gid.Load())]; ok {
			g = s.String()
		}
		fmt.Fprintf(&b, "  worker %d in %s, holding [%s]: %s\n", w.id, op, heldNames, g)
	}
	return b.String()
}
