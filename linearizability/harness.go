package linearizability

import (
	"fmt"
	"html"
	"maps"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/anishathalye/porcupine"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/schedq/schedq/internal/boundary"
	"github.com/schedq/schedq/internal/parked"
	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// Namespace is the namespace of every pod a workload creates.
const Namespace = "ns"

// Start is the time the fake clock of every recorded history starts at.
var Start = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// NewQueue makes the queue under test. It must read time only from clk and
// must not run its periodic flushes: a flush nobody recorded would be an
// operation missing from the history. The harness steps clk and calls both
// flushes itself, as recorded operations.
type NewQueue func(cfg spec.Config, clk *testingclock.FakeClock) (spec.Queue, error)

// Stepper is a queue with a clock of its own that the harness can step:
// the shape of a conformance.Target, whose clock the adapter owns.
type Stepper interface {
	spec.Queue
	// Advance moves the queue's clock forward by d, atomically.
	Advance(d time.Duration)
}

// NewTarget makes a queue under test with its own steppable clock reading
// start. As with NewQueue, it must not run its periodic flushes.
type NewTarget func(cfg spec.Config, start time.Time) (Stepper, error)

// fakeClocked is a queue on a fake clock the harness owns; nom is the
// queue's nominator, if it has one (Workload.Nominations).
type fakeClocked struct {
	spec.Queue
	clk *testingclock.FakeClock
	nom spec.Nominator
}

// AddNominatedPod and NominatedPodsForNode pass on to the queue's
// nominator: the workload calls them only if it has one (nominator).
func (f fakeClocked) AddNominatedPod(pod *spec.Pod, mode spec.NominatingMode, nodeName string) error {
	return f.nom.AddNominatedPod(pod, mode, nodeName)
}

func (f fakeClocked) NominatedPodsForNode(nodeName string) []*spec.Pod {
	return f.nom.NominatedPodsForNode(nodeName)
}

func (f fakeClocked) nominator() spec.Nominator { return f.nom }

// objectClocked is a fakeClocked queue that takes caller objects
// (spec.ObjectQueue): the workload draws them only for such a queue.
type objectClocked struct {
	fakeClocked
	oq spec.ObjectQueue
}

func (o objectClocked) MoveAllToActiveOrBackoffQueueWithObjects(occ spec.Occurrence, preCheck spec.PreEnqueueCheck) error {
	return o.oq.MoveAllToActiveOrBackoffQueueWithObjects(occ, preCheck)
}

func (o objectClocked) UpdateWithChange(oldPod, newPod *spec.Pod, change *spec.PodChange) error {
	return o.oq.UpdateWithChange(oldPod, newPod, change)
}

func (f fakeClocked) Advance(d time.Duration) { f.clk.Step(d) }

// CheckConsistency passes on the queue's own internal consistency check,
// if it has one (impl's does), so the recorder can run it at quiescence.
func (f fakeClocked) CheckConsistency() error {
	if c, ok := f.Queue.(interface{ CheckConsistency() error }); ok {
		return c.CheckConsistency()
	}
	return nil
}

// events are the events of the workload's move requests: the standard
// events of the scenario language (schedqtest), two of which interest no
// plugin of schedqtest.Registry (move requests that are no-ops).
var events = []spec.ClusterEvent{
	schedqtest.NodeAdd, schedqtest.NodeTaint, schedqtest.AssignedPodDelete,
	schedqtest.PVAdd, {Resource: spec.ResourceStorageClass, ActionType: spec.Add},
	spec.WildCardEvent,
}

// Config is the queue config every workload uses: the upstream backoff
// (1s, 10s) and a short unschedulable limit, so the leftover flush matters
// within the few minutes of fake time a history spans.
func Config() spec.Config { return ConfigFor(spec.ProfileClassic) }

// ConfigFor is Config in profile p, on the registry every suite uses
// (schedqtest.Registry). In the hints profile one registration has a
// queueing hint, which reads the caller's objects (R19):
// NodeResourcesFit's for NodeAdd is schedqtest.NodeZoneHint, Queue for a
// pod whose zone label the event's node has (or that has none), QueueSkip
// for a pod of another zone, an error (Queue) for an event without a node.
// Every other registered event has no hint (Queue), and there is no
// PreEnqueue plugin (a workload with Gates adds them: gates.go). A
// history saved as JSON keeps the config without its hints and
// PreEnqueue plugins, functions of the workload (ReadHistory). The podgroups
// profile is the hints profile with pod groups: the same hint.
func ConfigFor(p spec.Profile) spec.Config { return configChange(p, false).Build() }

// configChange is the recording's config in the scenario language:
// ConfigFor builds it, and a failing history's witness prints it
// (Witness.Scenario), so that the printed scenario replays under the
// registry, hints and PreEnqueue plugins the history ran with. The hints
// profiles declare schedqtest.Registry (register=, the ":zone" hint on
// NodeResourcesFit's NodeAdd), which their standard registry is not;
// gates adds Gates' PreEnqueue plugins (gatePlugins).
func configChange(p spec.Profile, gates bool) schedqtest.ConfigChange {
	c := schedqtest.ConfigChange{Profile: p, Leftover: 15 * time.Second}
	if !p.HasHints() {
		c.Gates = gates
		return c
	}
	var regs []string
	for _, pl := range slices.Sorted(maps.Keys(schedqtest.Registry)) {
		for _, ev := range schedqtest.Registry[pl] {
			r := pl + ":" + schedqtest.EventName(ev)
			if pl == pluginFit && ev == schedqtest.NodeAdd {
				r += ":zone"
			}
			regs = append(regs, r)
		}
	}
	c.Register = strings.Join(regs, ",")
	if gates {
		c.PreEnqueue = schedqtest.PluginHold + ":hold=yes" // schedqtest.HoldAdmits
	}
	return c
}

// pluginFit is schedqtest.Registry's plugin that registered NodeAdd.
const pluginFit = "NodeResourcesFit"

// clockSteps are the round durations clients step the fake clock by,
// when a step is not steered onto a boundary (Workload.BoundarySteps):
// around the backoff durations (1s, 2s, 4s, 8s, 10s) and past the
// unschedulable limit.
var clockSteps = []time.Duration{
	100 * time.Millisecond, 500 * time.Millisecond, time.Second, time.Second,
	2 * time.Second, 4 * time.Second, 10 * time.Second, 16 * time.Second,
}

// Workload sizes one recorded history.
type Workload struct {
	// Clients is the number of goroutines issuing operations (2..8 is the
	// range the package's tests use).
	Clients int
	// OpsPerClient is how many operations each client issues.
	OpsPerClient int
	// PodsPerClient is how many pods each client owns (Adds, Updates and
	// Deletes); any client may Pop any pod.
	PodsPerClient int
	// Seed seeds the clients' choices. The interleaving is the scheduler's,
	// so a seed does not reproduce a history; it makes the choices vary.
	Seed uint64
	// ConcurrentSteps is the fraction of clock steps that may overlap
	// operations that read the clock. The rest wait for those to finish
	// and hold them off: a step concurrent with an operation that reads the
	// clock leaves two possible times for it, and every such ambiguity
	// multiplies the states the checker must consider, so a few of them
	// test that each operation reads the clock once, and more only slow
	// the check down.
	ConcurrentSteps float64
	// MaxRescues bounds the pods the coordinator adds when every client is
	// blocked in Pop; after that it closes the queue early.
	MaxRescues int
	// Yields is the probability of a runtime.Gosched at each operation
	// boundary of a client (before the call and after the return, never
	// inside the queue): it varies which client runs next. Default 0.3;
	// negative disables.
	Yields float64
	// Bursts is the probability that a client, before an operation,
	// waits briefly for another client to do the same, so that both call
	// at once: contention on the queue's lock where a race lives.
	// Default 0.25; negative disables.
	Bursts float64
	// BoundarySteps is the fraction of clock steps steered onto a
	// boundary instant of the queue's pods (internal/boundary: a
	// backoff expiry or the leftover limit, exactly or 1ns either side).
	// Default 0.5; negative disables.
	BoundarySteps float64
	// OnlyFreeAdds restricts the workload to what a queue that resets a
	// pod on a duplicate Add and queues a second copy on an Update in
	// flight (upstream v1.33 classic) agrees with the model on: a client
	// adds (or updates, as an add) only a pod no one holds, updates no
	// held pod, and only the client that popped a pod deletes it.
	OnlyFreeAdds bool
	// NoSnapshots leaves Snapshot out of the operations: for an adapter
	// whose snapshot cannot be taken atomically with a Pop (upstream's
	// adapter records the pods in flight after upstream's Pop returns).
	NoSnapshots bool
	// SilentNoOps makes the model accept a nil error where it returns
	// one for an operation that changes nothing (a target whose Delete,
	// Done and Activate report nothing: conformance.TargetInfo.SilentNoOps).
	SilentNoOps bool
	// Deadline bounds the recording (default 30s): past it the
	// coordinator closes the queue, and a recording still stuck after
	// that fails with a diagnosis (which client waits in which
	// operation, what the queue holds) instead of hanging the test.
	Deadline time.Duration
	// Profile is the queue's profile (spec.Config.Profile): the config
	// of the recording is ConfigFor(Profile), with Gates' PreEnqueue
	// plugins.
	Profile spec.Profile
	// Gates gives the config PreEnqueue plugins and the clients' pods
	// the labels they refuse (gates.go; R17, R4h): for a queue with
	// PreEnqueue plugins of the contract's, the implementation's tests.
	// The podgroups profile draws none.
	Gates bool
	// Nominations adds the nominator's operations (R18; nominations.go):
	// clients nominate their own pods and ask which pods a node has, on
	// a queue with a nominator (spec.Nominator). For the
	// implementation's tests: the upstream nominators list pods
	// otherwise in ways no declaration covers yet.
	Nominations bool
	// QuiescentEvery is how many operations each client issues between
	// quiescent points (default 4; negative: none). At a quiescent point
	// every live client has returned from its last operation and waits;
	// the last to arrive takes a Snapshot with no operation pending, and
	// all go on. Nothing spans the point, so every linearization puts
	// what came before it first, and the Snapshot (unless NoSnapshots)
	// pins the model state there to one: the checker's search is then
	// bounded by the widest stretch between two points rather than by
	// the whole history, whatever the machine's load does to the
	// operations' windows.
	QuiescentEvery int
}

func (w Workload) withDefaults() Workload {
	if w.Clients <= 0 {
		w.Clients = 4
	}
	if w.OpsPerClient <= 0 {
		w.OpsPerClient = 30
	}
	if w.PodsPerClient <= 0 {
		w.PodsPerClient = 3
	}
	if w.MaxRescues <= 0 {
		w.MaxRescues = w.Clients * w.OpsPerClient / 4
		if w.MaxRescues < 4 {
			w.MaxRescues = 4
		}
	}
	if w.Deadline <= 0 {
		w.Deadline = 30 * time.Second
	}
	if w.Yields == 0 {
		w.Yields = 0.3
	}
	if w.Bursts == 0 {
		w.Bursts = 0.25
	}
	if w.BoundarySteps == 0 {
		w.BoundarySteps = 0.5
	}
	if w.QuiescentEvery == 0 {
		w.QuiescentEvery = 4
	}
	return w
}

// History is one recorded run.
type History struct {
	Workload   Workload
	Config     spec.Config
	Operations []porcupine.Operation
	// Rescues is how many pods the coordinator added to unblock Pops;
	// BlockedPops how many Pops waited (returned after a later operation
	// was called); ClosedEarly whether rescues ran out before the clients
	// finished.
	Rescues     int
	BlockedPops int
	ClosedEarly bool
	// Overlapping is how many operations overlap an operation of another
	// client: a history where it is low barely tested concurrency.
	Overlapping int
	// QuiescentPoints is how many quiescent points the history has
	// (Workload.QuiescentEvery).
	QuiescentPoints int
	// LostWakeups describes each moment every live client slept in Pop,
	// by the runtime's account, while activeQ held a pod: a liveness
	// failure that linearizability cannot see (a Pop that sleeps forever
	// and returns ErrClosed at Close is linearizable). The coordinator
	// closes the queue after the first.
	LostWakeups []string
	// BoundarySteps is how many clock steps landed on a boundary.
	BoundarySteps int
	// HoldSequences is how many times a client played R4h's sequence to
	// its last event (Workload.Gates, holdParked).
	HoldSequences int
}

// Model returns the porcupine model for this history.
func (h *History) Model() porcupine.Model {
	return ModelWith(h.Config, Start, ModelOptions{SilentNoOps: h.Workload.SilentNoOps})
}

// universe is the pods of a workload: each client owns PodsPerClient pods
// with distinct names, priorities mostly distinct (ties on priority make
// Timestamp decide, and equal Timestamps make Pop nondeterministic, which
// the model allows but which widens the search), some with an affinity term
// for AssignedPodAdded to match.
//
// Half the pods carry a zone label, which NodeZoneHint reads in the hints
// profile. With objects (a queue that takes them, spec.ObjectQueue) every
// client's pod carries a caller object (PodObject), which every version
// of it keeps.
type universe struct {
	owned   [][]*spec.Pod // per client
	rescue  []*spec.Pod
	all     []*spec.Pod
	appVals []string
	objects bool
	// groups are the pod groups of the podgroups profile (podGroups):
	// about half of the clients' pods are members of one of them.
	groups []string
}

func newUniverse(w Workload, rng *rand.Rand, objects bool) *universe {
	u := &universe{owned: make([][]*spec.Pod, w.Clients), appVals: []string{"web", "db"}, objects: objects}
	if w.Profile == spec.ProfilePodGroups {
		u.groups = podGroups
	}
	n := w.Clients * w.PodsPerClient
	prios := rng.Perm(n)
	for c := range w.Clients {
		for i := range w.PodsPerClient {
			name := fmt.Sprintf("c%d-p%d", c, i)
			prio := int32(prios[c*w.PodsPerClient+i]) * 10
			if rng.IntN(6) == 0 {
				prio = int32(rng.IntN(n)) * 10 // may tie with another pod
			}
			p := &spec.Pod{Namespace: Namespace, Name: name, UID: spec.UID("uid-" + name), Priority: prio,
				Labels: map[string]string{"app": u.appVals[rng.IntN(2)]}}
			if rng.IntN(2) == 0 {
				p.Labels["zone"] = zones[rng.IntN(len(zones))]
			}
			// With Gates one pod in six is added gated (R17).
			if gl := w.gateLabels(); len(gl) > 0 && rng.IntN(6) == 0 {
				maps.Copy(p.Labels, gl[rng.IntN(len(gl))])
			}
			if objects {
				p.Object = PodObject{Pod: name}
			}
			if len(u.groups) > 0 && rng.IntN(2) == 0 {
				p.Group = u.groups[rng.IntN(len(u.groups))]
			}
			if rng.IntN(4) == 0 {
				p.RequiredAffinityTerms = []spec.AffinityTerm{{MatchLabels: map[string]string{"app": u.appVals[rng.IntN(2)]}}}
			}
			u.owned[c] = append(u.owned[c], p)
			u.all = append(u.all, p)
		}
	}
	for j := range w.MaxRescues {
		name := fmt.Sprintf("rescue-%d", j)
		p := &spec.Pod{Namespace: Namespace, Name: name, UID: spec.UID("uid-" + name), Priority: int32(-10 - j)}
		u.rescue = append(u.rescue, p)
		u.all = append(u.all, p)
	}
	return u
}

// recorder hands out call and return timestamps from one counter, so that
// the order of timestamps is the real-time order of the calls and returns.
type recorder struct {
	clock atomic.Int64
	gate  sync.RWMutex
	// panicked is the target's first panic in an operation: the
	// recording stops there and reports it (TargetPanic) instead of the
	// panic ending the test binary.
	panicked atomic.Pointer[TargetPanic]
}

// TargetPanic is RecordTarget's error when the queue under test panicked
// in an operation: a violation like a history that is not linearizable,
// reported with the operation, the panic and its stack, and the history
// up to it (History, also returned beside the error).
type TargetPanic struct {
	Client  int    // the client (the coordinator is Workload.Clients)
	Op      string // the operation, as a history line shows it
	Value   any    // what the target panicked with
	Stack   string
	History *History
}

// panicTail is how many of the last operations before a panic its
// report lists.
const panicTail = 30

func (p *TargetPanic) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "linearizability: the target panicked in c%d's %s: %v\n", p.Client, p.Op, p.Value)
	if h := p.History; h != nil {
		w := h.Workload
		ops := h.Operations[max(0, len(h.Operations)-panicTail):]
		fmt.Fprintf(&b, "history (%d clients, seed %d): the last %d of the %d operations that returned before it:\n",
			w.Clients, w.Seed, len(ops), len(h.Operations))
		d := describer{start: Start}
		for _, op := range ops {
			fmt.Fprintf(&b, "  [%5d,%5d] c%d  %s\n", op.Call, op.Return, op.ClientId, d.long(op.Input.(Input), op.Output.(Output)))
		}
	}
	fmt.Fprintf(&b, "stack of the panic:\n%s", p.Stack)
	return b.String()
}

// guard calls f, turning a panic of the target into r.panicked.
func (r *recorder) guard(l *log, in Input, f func() Output) (out Output, ok bool) {
	defer func() {
		if v := recover(); v != nil {
			r.panicked.CompareAndSwap(nil, &TargetPanic{Client: l.id, Op: in.Op.String(), Value: v, Stack: string(debug.Stack())})
			ok = false
		}
	}()
	return f(), true
}

func readsClock(k schedqtest.Kind) bool {
	switch k {
	case schedqtest.KindPop, schedqtest.KindDone, schedqtest.KindDelete, schedqtest.KindClose:
		return false
	}
	return true
}

// log is one client's operations; only that client appends to it.
type log struct {
	id  int
	ops []porcupine.Operation
}

func (r *recorder) do(l *log, in Input, f func() Output) Output {
	return r.doGated(l, in, false, f)
}

// doGated records one operation. A clock step that is not concurrent
// waits until no operation that reads the clock is in progress, and holds
// them off while it runs.
func (r *recorder) doGated(l *log, in Input, concurrent bool, f func() Output) Output {
	switch k := in.Op.Kind; {
	case k == schedqtest.KindTick && !concurrent:
		r.gate.Lock()
		defer r.gate.Unlock()
	case k != schedqtest.KindTick && readsClock(k):
		r.gate.RLock()
		defer r.gate.RUnlock()
	}
	call := r.clock.Add(1)
	out, ok := r.guard(l, in, f)
	if !ok {
		// Not recorded: the operation never returned. Every client
		// stops at its next operation (client.loop) and the
		// coordinator closes the queue.
		return Output{}
	}
	ret := r.clock.Add(1)
	l.ops = append(l.ops, porcupine.Operation{ClientId: l.id, Input: in, Call: call, Output: out, Return: ret,
		Metadata: Metadata{Client: l.id, Seq: len(l.ops), In: in, Out: out}})
	return out
}

// run is the shared state of one recording.
type run struct {
	w   Workload
	q   Stepper
	u   *universe
	rec recorder
	// free marks, under OnlyFreeAdds, the pods no one holds (by key).
	freeMu sync.Mutex
	free   map[spec.PodKey]bool
	burst  barrier
	// boundarySteps counts the steered steps, holdSequences R4h's.
	boundarySteps, holdSequences atomic.Int64
	// alive counts clients still issuing operations (changed under
	// q8t.mu), progress the operations returned: with each client's
	// inPopNow and atPoint they tell the coordinator when every live
	// client is stuck in Pop.
	alive    atomic.Int32
	progress atomic.Int64
	// stuck is signalled when a client may have made every live client
	// wait: it entered Pop, arrived at a quiescent point, or finished.
	stuck chan struct{}
	q8t   quiescence
	// rescueMu keeps the coordinator's rescue Adds out of the Snapshot of
	// a quiescent point: the Pop a rescue releases can return, and its
	// client arrive, before the Add itself returns.
	rescueMu sync.Mutex
}

// quiescence is the meeting point of the clients (Workload.QuiescentEvery).
type quiescence struct {
	mu      sync.Mutex
	waiting int           // clients waiting at the point
	gen     chan struct{} // closed to let them go
	points  int
}

// arrive waits at the quiescent point until every live client is there;
// the last to arrive takes the Snapshot and lets them all go.
func (c *client) arrive() {
	r := c.run
	r.q8t.mu.Lock()
	r.q8t.waiting++
	if r.q8t.waiting == int(r.alive.Load()) {
		r.releaseLocked(c.log)
		r.q8t.mu.Unlock()
		return
	}
	if r.q8t.gen == nil {
		r.q8t.gen = make(chan struct{})
	}
	g := r.q8t.gen
	c.atPoint.Store(true)
	r.q8t.mu.Unlock()
	r.maybeStuck()
	<-g
	c.atPoint.Store(false)
}

// leave is a client's end: one client fewer to wait for.
func (c *client) leave() {
	r := c.run
	r.q8t.mu.Lock()
	defer r.q8t.mu.Unlock()
	c.finished.Store(true)
	r.alive.Add(-1)
	if r.q8t.waiting > 0 && r.q8t.waiting == int(r.alive.Load()) {
		r.releaseLocked(c.log)
	}
}

// releaseLocked records the quiescent point's Snapshot in l (the log of
// the client running it) and lets the waiting clients go.
func (r *run) releaseLocked(l *log) {
	if !r.w.NoSnapshots {
		r.rescueMu.Lock()
		r.rec.do(l, Input{Op: schedqtest.Op{Kind: KindSnapshot}}, func() Output { s := r.q.Snapshot(); return Output{Snapshot: &s} })
		r.rescueMu.Unlock()
	}
	r.q8t.points++
	r.q8t.waiting = 0
	if r.q8t.gen != nil {
		close(r.q8t.gen)
		r.q8t.gen = nil
	}
}

func (r *run) maybeStuck() {
	select {
	case r.stuck <- struct{}{}:
	default:
	}
}

// Record runs one workload against a fresh queue on a fake clock and
// returns its history. Clients issue random operations; a coordinator (the
// last ClientId) adds a pod whenever every live client is blocked in Pop,
// and closes the queue once the clients are done (or the rescues run out),
// so every Pop returns.
func Record(w Workload, newQueue NewQueue) (*History, error) {
	return RecordTarget(w, func(cfg spec.Config, start time.Time) (Stepper, error) {
		clk := testingclock.NewFakeClock(start)
		q, err := newQueue(cfg, clk)
		if err != nil {
			return nil, err
		}
		nom, _ := q.(spec.Nominator)
		f := fakeClocked{q, clk, nom}
		if pq, ok := q.(spec.PodGroupQueue); ok {
			return groupClocked{objectClocked{f, pq}, pq}, nil
		}
		if oq, ok := q.(spec.ObjectQueue); ok {
			return objectClocked{f, oq}, nil
		}
		return f, nil
	})
}

// RecordTarget is Record for a queue that owns its clock (a
// conformance.Target, say). A panic of the queue in an operation ends the
// recording: the error is a *TargetPanic with the history up to it.
func RecordTarget(w Workload, newTarget NewTarget) (*History, error) {
	w = w.withDefaults()
	cfg := w.config()
	q, err := newTarget(cfg, Start)
	if err != nil {
		return nil, err
	}
	r := newRun(w, q)
	clients, wg := r.startClients()
	coord := &log{id: w.Clients}
	h := &History{Workload: w, Config: cfg}
	var hang string
	h.Rescues, h.ClosedEarly, h.LostWakeups, hang = r.coordinate(coord, clients)
	if err := r.awaitClients(wg, clients, hang); err != nil {
		return nil, err
	}
	h.BoundarySteps = int(r.boundarySteps.Load())
	h.HoldSequences = int(r.holdSequences.Load())
	h.QuiescentPoints = r.q8t.points
	if p := r.rec.panicked.Load(); p != nil {
		h.collect(clients, coord)
		p.History = h
		return h, p
	}
	// At quiescence a queue with an internal consistency check (impl's
	// indexes, heaps and groups against the pods it holds) must pass it:
	// a leak there shows in no history.
	if c, ok := r.q.(interface{ CheckConsistency() error }); ok {
		if err := c.CheckConsistency(); err != nil {
			return nil, fmt.Errorf("linearizability: at quiescence after the history (seed %d): %w", w.Seed, err)
		}
	}
	h.collect(clients, coord)
	h.count()
	return h, nil
}

// newRun makes the run's universe of pods from the workload's seed, every
// pod free.
func newRun(w Workload, q Stepper) *run {
	rng := rand.New(rand.NewPCG(w.Seed, 0x5c4ed))
	_, objects := q.(spec.ObjectQueue)
	r := &run{w: w, q: q, u: newUniverse(w, rng, objects), stuck: make(chan struct{}, 1), free: map[spec.PodKey]bool{}}
	for _, p := range r.u.all {
		r.free[p.Key()] = true
	}
	r.alive.Store(int32(w.Clients))
	return r
}

// startClients starts a goroutine per client, each with its log, its own
// pods and its own generator. Each records its goroutine before any
// starts, for allParked, and they start together, so that their
// operations interleave from the first one.
func (r *run) startClients() ([]*client, *sync.WaitGroup) {
	clients := make([]*client, r.w.Clients)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for c := range r.w.Clients {
		cl := &client{run: r, log: &log{id: c}, rng: rand.New(rand.NewPCG(r.w.Seed, uint64(c)+1)),
			pods: append([]*spec.Pod(nil), r.u.owned[c]...)}
		clients[c] = cl
		wg.Add(1)
		ready := make(chan struct{})
		go func() {
			defer wg.Done()
			defer r.maybeStuck()
			defer cl.leave()
			cl.gid = parked.Current()
			close(ready)
			<-start
			cl.loop()
		}()
		<-ready
	}
	close(start)
	return clients, &wg
}

// awaitClients waits, up to half the deadline, for the clients to return
// once the coordinator is done, and says why they did not: a panic that
// left the queue's lock held (the panic is the finding, the hang its
// consequence), else the hang and where each client is.
func (r *run) awaitClients(wg *sync.WaitGroup, clients []*client, hang string) error {
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	select {
	case <-finished:
		return nil
	case <-time.After(r.w.Deadline / 2):
	}
	if p := r.rec.panicked.Load(); p != nil {
		return p
	}
	return fmt.Errorf("linearizability: the recording did not finish within %v (%s), nor %v after Close:\n%s",
		r.w.Deadline, hang, r.w.Deadline/2, describeClients(clients))
}

// collect gathers the operations of every client's log and the
// coordinator's, in call order.
func (h *History) collect(clients []*client, coord *log) {
	for _, cl := range clients {
		h.Operations = append(h.Operations, cl.log.ops...)
	}
	h.Operations = append(h.Operations, coord.ops...)
	sort.Slice(h.Operations, func(i, j int) bool { return h.Operations[i].Call < h.Operations[j].Call })
}

// coordinate waits for the clients, adding a rescue pod whenever every
// live client sleeps in Pop (by the runtime's account, internal/parked)
// with activeQ empty, then closes the queue as a recorded operation. If
// every live client sleeps in Pop while activeQ holds a pod, that is a
// lost wake-up: it is reported and the queue closed. A rescue that was not
// needed is harmless: it is one more Add in the history.
func (r *run) coordinate(l *log, clients []*client) (rescues int, early bool, lost []string, hang string) {
	poll := time.NewTicker(2 * time.Millisecond)
	defer poll.Stop()
	deadline := time.Now().Add(r.w.Deadline)
	for r.alive.Load() > 0 {
		select {
		case <-r.stuck:
		case <-poll.C: // in case a signal raced with the counters
		}
		if r.rec.panicked.Load() != nil {
			// The clients stop; a Pop of theirs may sleep until Close.
			early = true
			break
		}
		if time.Now().After(deadline) {
			hang = fmt.Sprintf("past its deadline; clients:\n%s", describeClients(clients))
			if s, ok := parked.SnapshotWithin(r.q, time.Second); ok {
				hang += "  queue: " + describeSnapshot(s)
			} else {
				hang += "  queue: Snapshot did not return within 1s (its lock is held)"
			}
			early = true
			break
		}
		before := r.progress.Load()
		if !allParked(clients) {
			continue
		}
		// Read-only and unrecorded: a Snapshot changes nothing, so the
		// history does not need it.
		s := r.q.Snapshot()
		if !allParked(clients) || r.progress.Load() != before {
			continue
		}
		if len(s.ActiveQ) > 0 {
			lost = append(lost, fmt.Sprintf("every live client sleeps in Pop while activeQ holds %s (%d pods); a Pop must be woken when activeQ fills (R2)\n%s",
				s.ActiveQ[0].Pod.Name, len(s.ActiveQ), describeClients(clients)))
			early = true
			break
		}
		if rescues == len(r.u.rescue) {
			early = true
			break
		}
		p := r.u.rescue[rescues]
		rescues++
		r.rescueMu.Lock()
		r.call(l, Input{Op: schedqtest.Op{Kind: schedqtest.KindAdd, Pod: podRef(p)}})
		r.rescueMu.Unlock()
	}
	r.call(l, Input{Op: schedqtest.Op{Kind: schedqtest.KindClose}})
	return rescues, early, lost, hang
}

func describeSnapshot(s spec.Snapshot) string {
	return html.UnescapeString(strings.ReplaceAll(describer{start: Start}.snapshot(&s, nil), "<br>", "; "))
}

// allParked reports whether every live client that is not waiting at a
// quiescent point is inside Pop and asleep there, and at least one is.
func allParked(clients []*client) bool {
	var ids []parked.ID
	for _, c := range clients {
		if c.finished.Load() || c.atPoint.Load() {
			continue
		}
		if !c.inPopNow.Load() {
			return false
		}
		ids = append(ids, c.gid)
	}
	if len(ids) == 0 {
		return false
	}
	all := parked.All()
	for _, id := range ids {
		if s, ok := all[id]; !ok || !s.Parked() || !s.In(").Pop(") && !s.In(").PopEntity(") {
			return false
		}
	}
	return true
}

func describeClients(clients []*client) string {
	var ids []parked.ID
	for _, c := range clients {
		if !c.finished.Load() {
			ids = append(ids, c.gid)
		}
	}
	return parked.Describe(ids...)
}

// barrier lets clients call at the same moment: the first to arrive waits
// (yielding, briefly) for a second, and both go.
type barrier struct {
	mu  sync.Mutex
	gen chan struct{}
}

func (b *barrier) arrive() {
	b.mu.Lock()
	if b.gen != nil {
		close(b.gen)
		b.gen = nil
		b.mu.Unlock()
		return
	}
	g := make(chan struct{})
	b.gen = g
	b.mu.Unlock()
	for range 100 {
		select {
		case <-g:
			return
		default:
			runtime.Gosched()
		}
	}
	b.mu.Lock()
	if b.gen == g {
		b.gen = nil
	}
	b.mu.Unlock()
}

type client struct {
	*run
	log  *log
	rng  *rand.Rand
	pods []*spec.Pod         // the current version of each pod the client owns
	held []schedqtest.Popped // popped and not finished with
	// groups are the pod groups PopEntity returned that the client has
	// not yet ended the cycle of (podgroups profile, podgroups.go).
	groups []heldGroup
	// gid is the client's goroutine; inPopNow and finished tell the
	// coordinator where it is.
	gid      parked.ID
	inPopNow atomic.Bool
	finished atomic.Bool
	// atPoint: waiting at a quiescent point.
	atPoint atomic.Bool
}

type weight struct {
	kind schedqtest.Kind
	w    int
}

// otherNamespace is the namespace of half the assigned pods.
var otherNamespace = "other"

// weights of the operations a client picks when it is not finishing a
// popped pod.
var weights = []weight{
	{schedqtest.KindAdd, 22}, {schedqtest.KindPop, 20}, {schedqtest.KindFlushBackoff, 8}, {schedqtest.KindTick, 8},
	{schedqtest.KindMove, 6}, {schedqtest.KindActivate, 5}, {schedqtest.KindDelete, 5}, {schedqtest.KindUpdate, 5},
	{KindSnapshot, 7}, {schedqtest.KindFlushLeftover, 3}, {schedqtest.KindAssignedAdd, 2},
	{schedqtest.KindAssignedUpdate, 1}, {schedqtest.KindDone, 2},
	{schedqtest.KindNominate, 4}, {schedqtest.KindNominated, 3},
}

var totalWeight = sumWeights(weights)

func sumWeights(ws []weight) int {
	t := 0
	for _, w := range ws {
		t += w.w
	}
	return t
}

func (c *client) pick() schedqtest.Kind {
	ws, total := weights, totalWeight
	if c.w.Profile == spec.ProfilePodGroups {
		ws, total = podGroupWeights, totalPodGroupWeight
	}
	for {
		n := c.rng.IntN(total)
		for _, w := range ws {
			if n < w.w {
				if w.kind == KindSnapshot && c.w.NoSnapshots || isNomination(w.kind) && !c.nominations() {
					break
				}
				return w.kind
			}
			n -= w.w
		}
	}
}

func (c *client) loop() {
	for i := range c.w.OpsPerClient {
		if c.rec.panicked.Load() != nil {
			return
		}
		if c.w.QuiescentEvery > 0 && i > 0 && i%c.w.QuiescentEvery == 0 {
			c.arrive()
		}
		if c.rng.Float64() < c.w.Bursts {
			c.burst.arrive()
		}
		c.yield()
		if len(c.groups) > 0 && c.rng.IntN(2) == 0 {
			c.finishGroup()
		} else if len(c.held) > 0 && c.rng.IntN(2) == 0 {
			c.finish()
		} else {
			c.issue(c.pick())
		}
		c.progress.Add(1)
		c.yield()
	}
}

// yield is a randomised runtime.Gosched at an operation boundary.
func (c *client) yield() {
	if c.rng.Float64() < c.w.Yields {
		runtime.Gosched()
	}
}

// setFree marks a pod held by no one (OnlyFreeAdds) or takes it, and
// reports whether it was free.
func (r *run) takeFree(k spec.PodKey) bool {
	r.freeMu.Lock()
	defer r.freeMu.Unlock()
	if !r.free[k] {
		return false
	}
	r.free[k] = false
	return true
}

func (r *run) setFree(k spec.PodKey) {
	r.freeMu.Lock()
	r.free[k] = true
	r.freeMu.Unlock()
}

// finish ends the scheduling attempt of a popped pod: it failed (rejected by
// random plugins, or none) or it was bound.
func (c *client) finish() {
	i := c.rng.IntN(len(c.held))
	h := c.held[i]
	c.held = removeHeld(c.held, i)
	p := h.Info.Pod
	if n := c.rng.IntN(20); n < 11 {
		cycle := h.Cycle
		c.call(c.log, Input{Op: schedqtest.Op{Kind: schedqtest.KindFail, Pod: schedqtest.PodRef{Name: p.Name},
			Plugins: c.rejectors(), Cycle: &cycle}, Popped: &h})
		if c.nodesDecide() && c.rng.IntN(2) == 0 {
			// A node comes: NodeZoneHint decides by its zone whether the
			// pods NodeResourcesFit rejected move, and other clients'
			// pods in flight record it for their replay.
			c.issue(schedqtest.KindMove)
		}
		return
	} else if n < 13 && c.w.OnlyFreeAdds {
		// Under OnlyFreeAdds only the client holding a pod deletes it.
		c.call(c.log, Input{Op: schedqtest.Op{Kind: schedqtest.KindDelete, Pod: schedqtest.PodRef{Name: p.Name}}, Pods: []*spec.Pod{p}})
		c.setFree(p.Key())
		return
	}
	c.call(c.log, Input{Op: schedqtest.Op{Kind: schedqtest.KindDone, UID: string(p.UID)}})
	c.setFree(p.Key())
}

// rejectors is the plugin set a failed attempt hands back: none at times
// (the shortcut of R3), else random plugins in random order, sometimes one
// twice. The caller's set is deliberately not normalised: the contract
// makes every queue sort and deduplicate it (R3), and conformance checks
// that each does, so handing over raw sets here exercises it.
func (c *client) rejectors() []string {
	if c.rng.IntN(5) == 0 {
		return nil
	}
	if c.nodesDecide() && c.rng.IntN(3) == 0 {
		// NodeResourcesFit alone: its NodeAdd hint reads the event's
		// node, so the node decides this pod's requeue, the replay of
		// what came while it was in flight included.
		return []string{pluginFit}
	}
	var out []string
	for _, p := range schedqtest.Plugins {
		if c.rng.IntN(3) == 0 {
			out = append(out, p)
		}
	}
	c.rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	if len(out) > 0 && c.rng.IntN(4) == 0 {
		out = append(out, out[0])
	}
	return out
}

func removeHeld(s []schedqtest.Popped, i int) []schedqtest.Popped {
	s[i] = s[len(s)-1]
	return s[:len(s)-1]
}

func (c *client) own() (int, *spec.Pod) {
	i := c.rng.IntN(len(c.pods))
	return i, c.pods[i]
}

// call performs in on the queue through an executor, as an operation of
// l's client.
func (r *run) call(l *log, in Input) Output {
	return r.rec.do(l, in, func() Output { return r.exec(in) })
}

// exec performs in on the queue; Info is a copy of what Pop returned,
// taken at once.
func (r *run) exec(in Input) Output {
	o, err := in.exec(r.q, func(d time.Duration) error { r.q.Advance(d); return nil }, r.w.Profile)
	if err != nil {
		panic(fmt.Sprintf("linearizability: the workload made an operation the executor cannot run: %s: %v", in.Op, err))
	}
	out := Output{Err: o.Err(), Cycle: o.Cycle, Nominated: slices.Clone(o.NominatedPods)}
	if o.Popped != nil {
		cp := *o.Popped
		out.Info = &cp
	}
	if o.Entity != nil && o.Entity.Group != nil {
		cp := *o.Entity.Group
		cp.Members = slices.Clone(cp.Members)
		out.Group = &cp
	}
	return out
}

// issue draws the arguments of an operation of kind k and performs it as
// one of the client's recorded operations. A draw the workload forbids
// (under OnlyFreeAdds, an Add or Update of a pod another client holds, a
// Delete by anyone but the holder) issues nothing.
func (c *client) issue(k schedqtest.Kind) {
	in := Input{Op: schedqtest.Op{Kind: k}}
	op := &in.Op
	f := func() Output { return c.exec(in) }
	switch k {
	case schedqtest.KindAdd:
		if !c.addOp(&in) {
			return
		}
	case schedqtest.KindPop:
		f = c.popOp(in)
	case schedqtest.KindTick:
		op.Duration = c.clockStep()
	case schedqtest.KindMove:
		c.moveOp(op)
	case schedqtest.KindActivate:
		in.Pods = []*spec.Pod{c.u.all[c.rng.IntN(len(c.u.all))]}
		if c.rng.IntN(2) == 0 {
			in.Pods = append(in.Pods, c.u.all[c.rng.IntN(len(c.u.all))])
		}
		for _, p := range in.Pods {
			op.Pods = append(op.Pods, schedqtest.PodRef{Name: p.Name})
		}
	case schedqtest.KindDelete:
		if c.w.OnlyFreeAdds {
			return // only the holder deletes (finish)
		}
		_, p := c.own()
		op.Pod, in.Pods = schedqtest.PodRef{Name: p.Name}, []*spec.Pod{p}
	case schedqtest.KindUpdate:
		if !c.updateOp(&in) {
			return
		}
	case schedqtest.KindAssignedAdd, schedqtest.KindAssignedUpdate:
		c.assignedOp(op)
	case schedqtest.KindDone:
		// Usually not in flight: exercises ErrNotInFlight against
		// concurrent Pops of the pod.
		_, p := c.own()
		op.UID = string(p.UID)
	case KindSnapshot:
		f = func() Output { s := c.q.Snapshot(); return Output{Snapshot: &s} }
	case schedqtest.KindPodGroupAdd, schedqtest.KindPodGroupUpdate, schedqtest.KindPodGroupDelete:
		c.podGroupOp(op)
	case schedqtest.KindNominate, schedqtest.KindNominated:
		c.nominationOp(&in)
	}
	c.rec.doGated(c.log, in, k == schedqtest.KindTick && c.rng.Float64() < c.w.ConcurrentSteps, f)
}

// addOp draws an Add of one of the client's pods, and reports false when
// OnlyFreeAdds forbids it (another client holds the pod).
func (c *client) addOp(in *Input) bool {
	_, p := c.own()
	if c.w.OnlyFreeAdds && !c.takeFree(p.Key()) {
		return false
	}
	in.Op.Pod = podRef(p)
	if p.Object != nil {
		// The language cannot write a caller object: the pod goes as it
		// is (Input.exec).
		in.Pods = []*spec.Pod{p}
	}
	return true
}

// popOp is a Pop that tells the coordinator while it may sleep, and keeps
// what it returned, a pod or a pod group, as the client's to finish.
func (c *client) popOp(in Input) func() Output {
	return func() Output {
		c.inPopNow.Store(true)
		c.maybeStuck()
		out := c.exec(in)
		c.inPopNow.Store(false)
		if out.Err == nil && out.Info != nil {
			c.held = append(c.held, schedqtest.Popped{Info: *out.Info, Cycle: out.Cycle})
		}
		if out.Err == nil && out.Group != nil {
			c.groups = append(c.groups, heldGroup{popped: schedqtest.PoppedGroup{Info: *out.Group, Cycle: out.Cycle},
				members: slices.Clone(out.Group.Members)})
		}
		return out
	}
}

// moveOp draws a move request's event, its caller objects, and half the
// time a preCheck.
func (c *client) moveOp(op *schedqtest.Op) {
	op.Event = events[c.rng.IntN(len(events))]
	if c.nodesDecide() && c.rng.IntN(2) == 0 {
		// The event whose hint reads its node (ConfigFor).
		op.Event = schedqtest.NodeAdd
	}
	c.drawObjects(op)
	if c.rng.IntN(2) == 0 {
		// A preCheck must be a pure function of the pod: this one lets a
		// random half of the clients' pods through, by name.
		op.PreCheck = []string{}
		for _, p := range c.u.all[:c.w.Clients*c.w.PodsPerClient] {
			if c.rng.IntN(2) == 0 {
				op.PreCheck = append(op.PreCheck, p.Name)
			}
		}
	}
}

// updateOp draws an Update of one of the client's pods: re-created under
// its name, a new priority, new labels (a gate put on or lifted), or its
// status only; the client's pod becomes the new version. It reports false
// when it issues nothing: holdParked took the turn, or OnlyFreeAdds
// forbids it.
func (c *client) updateOp(in *Input) bool {
	if c.w.Gates && c.w.Profile == spec.ProfileHints && c.rng.IntN(2) == 0 && c.holdParked() {
		return false
	}
	i, old := c.own()
	if c.w.OnlyFreeAdds && !c.takeFree(old.Key()) {
		return false // an update in flight would be queued twice upstream
	}
	op := &in.Op
	op.Pod, in.Pods = schedqtest.PodRef{Name: old.Name}, []*spec.Pod{old}
	switch c.rng.IntN(16) {
	case 15:
		// Re-created under the same name (R9: a pod in flight under the
		// old UID ends its attempt). UIDs stay unique: the client owns
		// the name.
		uid := fmt.Sprintf("%s~%d", old.UID, c.rng.IntN(1<<30))
		op.Pod.UID = &uid
	case 0, 1, 2, 3, 4:
		prio := old.Priority + int32(c.rng.IntN(3)-1)*5 // may reorder, rarely ties
		op.Pod.Priority = &prio
	case 5, 6, 7, 8, 9:
		op.Pod.Labels = map[string]string{"app": c.u.appVals[c.rng.IntN(2)], "v": fmt.Sprint(c.rng.IntN(100))}
		if c.rng.IntN(2) == 0 {
			op.Pod.Labels["zone"] = zones[c.rng.IntN(len(zones))]
		}
		// A gate put on, or (new labels without one) lifted.
		op.Pod.Labels = c.withGate(op.Pod.Labels)
	default:
		op.Touch = true // status only
	}
	_, c.pods[i] = in.executor(nil, nil).UpdatePods(*op)
	return true
}

// assignedOp draws the assigned pod of an AssignedPodAdded or
// AssignedPodUpdated, and the update's event.
func (c *client) assignedOp(op *schedqtest.Op) {
	app := c.u.appVals[c.rng.IntN(2)]
	op.Pod = schedqtest.PodRef{Name: "assigned-" + app, Labels: map[string]string{"app": app}}
	if c.rng.IntN(2) == 0 {
		// In another namespace, where the same labels wake no pod
		// PodTopologySpread rejected (R11): in the pods' own, the
		// namespace check cannot show.
		op.Pod.Namespace = &otherNamespace
	}
	if op.Kind == schedqtest.KindAssignedUpdate {
		op.Event = spec.EventAssignedPodUpdate
		if c.rng.IntN(2) == 0 {
			op.Event = spec.ClusterEvent{Resource: spec.ResourceAssignedPod, ActionType: spec.UpdatePodScaleDown}
		}
	}
}

// nodesDecide reports whether node objects decide requeues in this run:
// the hints profile (NodeZoneHint, ConfigFor) against a queue that takes
// objects. Then the workload steers towards what makes them decide: half
// the moves are NodeAdds, a third of the rejections NodeResourcesFit's
// alone, and half the failures are followed by a move, which other
// clients' pods in flight record for their replay. Measured with the
// mutant that drops the objects of the in-flight list (README.md): 29 of
// 30 histories caught with this, 22 of 30 without.
func (c *client) nodesDecide() bool { return c.u.objects && c.w.Profile != spec.ProfileClassic }

// drawObjects gives a move's event caller objects (R19), against a queue
// that takes them: most NodeAdds a new node (which NodeZoneHint reads in
// the hints profile: a node of the pod's zone or not, or one without a
// zone), and some other events an old and a new node, which no hint reads
// but the in-flight list records for the replay (R15) all the same.
func (c *client) drawObjects(op *schedqtest.Op) {
	if !c.u.objects || op.Event == spec.WildCardEvent {
		return
	}
	node := func() *schedqtest.Node { return nodeObjects[c.rng.IntN(len(nodeObjects))] }
	switch {
	case op.Event == schedqtest.NodeAdd:
		if c.rng.IntN(4) > 0 {
			op.NewObject = node()
		}
	case c.rng.IntN(3) == 0:
		op.OldObject, op.NewObject = node(), node()
	}
}

// clockStep is a step onto a boundary instant of the queue's pods (a
// fraction BoundarySteps of the time, when there is one), else a round
// duration. The queue is read with an unrecorded Snapshot (read-only);
// other clients may move the clock or the pods before the step, which
// then lands near the boundary instead: still a step worth taking.
func (c *client) clockStep() time.Duration {
	if c.rng.Float64() < c.w.BoundarySteps {
		if d, ok := boundary.Pick(c.q.Snapshot(), ConfigFor(c.run.w.Profile), c.rng.IntN(1<<30)); ok {
			c.boundarySteps.Add(1)
			return d
		}
	}
	return clockSteps[c.rng.IntN(len(clockSteps))]
}

// count fills in BlockedPops and Overlapping; Operations are in call order.
func (h *History) count() {
	ops := h.Operations
	overlaps := make([]bool, len(ops))
	for i, op := range ops {
		for j := i + 1; j < len(ops) && ops[j].Call < op.Return; j++ {
			if ops[j].ClientId != op.ClientId {
				overlaps[i], overlaps[j] = true, true
			}
		}
		// A Pop is blocked if another client called something while it
		// waited and it then returned what that made possible; counting
		// Pops that outlived a later call is the observable part.
		if op.Input.(Input).Op.Kind == schedqtest.KindPop && i+1 < len(ops) && ops[i+1].Call < op.Return {
			h.BlockedPops++
		}
	}
	for _, o := range overlaps {
		if o {
			h.Overlapping++
		}
	}
}
