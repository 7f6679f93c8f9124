package linearizability

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/anishathalye/porcupine"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/schedq/schedq/spec"
)

// Namespace is the namespace of every pod a workload creates.
const Namespace = "default"

// Start is the time the fake clock of every recorded history starts at.
var Start = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// NewQueue makes the queue under test. It must read time only from clk and
// must not run its periodic flushes: a flush nobody recorded would be an
// operation missing from the history. The harness steps clk and calls both
// flushes itself, as recorded operations.
type NewQueue func(cfg spec.Config, clk *testingclock.FakeClock) (spec.Queue, error)

// The plugins of the workload's registry, and the events clients raise.
const (
	pluginFit      = "NodeResourcesFit"
	pluginTaint    = "TaintToleration"
	pluginAffinity = "InterPodAffinity"
	pluginVolume   = "VolumeBinding"
)

var plugins = []string{pluginFit, pluginTaint, pluginAffinity, spec.PluginPodTopologySpread, pluginVolume}

// Registry is the plugin -> events registry of the workload's config.
var Registry = spec.PluginEvents{
	pluginFit:                    {{Resource: spec.ResourceNode, ActionType: spec.Add}, {Resource: spec.ResourcePod, ActionType: spec.Delete | spec.UpdatePodScaleDown}},
	pluginTaint:                  {{Resource: spec.ResourceNode, ActionType: spec.Add | spec.UpdateNodeTaint}},
	pluginAffinity:               {{Resource: spec.ResourcePod, ActionType: spec.Add | spec.UpdatePodLabel}},
	spec.PluginPodTopologySpread: {{Resource: spec.ResourcePod, ActionType: spec.All}, {Resource: spec.ResourceNode, ActionType: spec.Add | spec.Delete}},
	pluginVolume:                 {{Resource: spec.ResourcePersistentVolume, ActionType: spec.Add}},
}

var events = []spec.ClusterEvent{
	{Resource: spec.ResourceNode, ActionType: spec.Add},
	{Resource: spec.ResourceNode, ActionType: spec.UpdateNodeTaint},
	{Resource: spec.ResourceAssignedPod, ActionType: spec.Delete},
	{Resource: spec.ResourcePersistentVolume, ActionType: spec.Add},
	// No plugin registered for StorageClass: a move request that is a no-op.
	{Resource: spec.ResourceStorageClass, ActionType: spec.Add},
	spec.WildCardEvent,
}

// Config is the queue config every workload uses: the upstream backoff
// (1s, 10s) and a short unschedulable limit, so the leftover flush matters
// within the few minutes of fake time a history spans.
func Config() spec.Config {
	cfg := spec.DefaultConfig(Registry)
	cfg.PodMaxInUnschedulablePodsDuration = 15 * time.Second
	return cfg
}

// clockSteps are the durations clients step the fake clock by: around the
// backoff boundaries (1s, 2s, 4s, 8s, 10s: expiry == now is still backing
// off) and past the unschedulable limit.
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
}

// Model returns the porcupine model for this history.
func (h *History) Model() porcupine.Model { return Model(h.Config, Start) }

// universe is the pods of a workload: each client owns PodsPerClient pods
// with distinct names, priorities mostly distinct (ties on priority make
// Timestamp decide, and equal Timestamps make Pop nondeterministic, which
// the model allows but which widens the search), some with an affinity term
// for AssignedPodAdded to match.
type universe struct {
	owned   [][]*spec.Pod // per client
	rescue  []*spec.Pod
	all     []*spec.Pod
	appVals []string
}

func newUniverse(w Workload, rng *rand.Rand) *universe {
	u := &universe{owned: make([][]*spec.Pod, w.Clients), appVals: []string{"web", "db"}}
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
}

func readsClock(k Kind) bool {
	switch k {
	case Pop, Done, Delete, SchedulingCycle, Close:
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
	switch {
	case in.Kind == Step && !concurrent:
		r.gate.Lock()
		defer r.gate.Unlock()
	case in.Kind != Step && readsClock(in.Kind):
		r.gate.RLock()
		defer r.gate.RUnlock()
	}
	call := r.clock.Add(1)
	out := f()
	ret := r.clock.Add(1)
	l.ops = append(l.ops, porcupine.Operation{ClientId: l.id, Input: in, Call: call, Output: out, Return: ret,
		Metadata: Metadata{Client: l.id, Seq: len(l.ops), In: in, Out: out}})
	return out
}

// run is the shared state of one recording.
type run struct {
	w   Workload
	q   spec.Queue
	clk *testingclock.FakeClock
	u   *universe
	rec recorder
	// alive counts clients still issuing operations, inPop those inside
	// Pop, progress the operations returned: together they tell the
	// coordinator when every live client is stuck in Pop.
	alive, inPop atomic.Int32
	progress     atomic.Int64
	// stuck is signalled when a client may have made every live client
	// wait: it entered Pop, or it finished.
	stuck chan struct{}
}

func (r *run) maybeStuck() {
	select {
	case r.stuck <- struct{}{}:
	default:
	}
}

// Record runs one workload against a fresh queue and returns its history.
// Clients issue random operations; a coordinator (the last ClientId) adds a
// pod whenever every live client is blocked in Pop, and closes the queue
// once the clients are done (or the rescues run out), so every Pop returns.
func Record(w Workload, newQueue NewQueue) (*History, error) {
	w = w.withDefaults()
	cfg := Config()
	clk := testingclock.NewFakeClock(Start)
	q, err := newQueue(cfg, clk)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(w.Seed, 0x5c4ed))
	r := &run{w: w, q: q, clk: clk, u: newUniverse(w, rng), stuck: make(chan struct{}, 1)}
	r.alive.Store(int32(w.Clients))

	logs := make([]*log, w.Clients+1)
	var wg sync.WaitGroup
	// The clients start together, so that their operations interleave from
	// the first one.
	start := make(chan struct{})
	for c := range w.Clients {
		logs[c] = &log{id: c}
		cl := &client{run: r, log: logs[c], rng: rand.New(rand.NewPCG(w.Seed, uint64(c)+1)),
			pods: append([]*spec.Pod(nil), r.u.owned[c]...)}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer r.maybeStuck()
			defer r.alive.Add(-1)
			<-start
			cl.loop()
		}()
	}
	coord := &log{id: w.Clients}
	logs[w.Clients] = coord
	h := &History{Workload: w, Config: cfg}
	close(start)
	h.Rescues, h.ClosedEarly = r.coordinate(coord)
	wg.Wait()

	for _, l := range logs {
		h.Operations = append(h.Operations, l.ops...)
	}
	sort.Slice(h.Operations, func(i, j int) bool { return h.Operations[i].Call < h.Operations[j].Call })
	h.count()
	return h, nil
}

// coordinate waits for the clients, adding a rescue pod whenever all live
// clients sit in Pop and nothing else happens, then closes the queue as a
// recorded operation. A rescue that was not needed (a Pop was about to
// return anyway) is harmless: it is one more Add in the history.
func (r *run) coordinate(l *log) (rescues int, early bool) {
	poll := time.NewTicker(2 * time.Millisecond)
	defer poll.Stop()
	stuck := func() bool {
		alive := r.alive.Load()
		return alive > 0 && r.inPop.Load() == alive
	}
	for r.alive.Load() > 0 {
		select {
		case <-r.stuck:
		case <-poll.C: // in case a signal raced with the counters
		}
		if !stuck() {
			continue
		}
		// Give a Pop that is about to find a pod the chance to return.
		before := r.progress.Load()
		for range 50 {
			runtime.Gosched()
		}
		if !stuck() || r.progress.Load() != before {
			continue
		}
		if rescues == len(r.u.rescue) {
			early = true
			break
		}
		p := r.u.rescue[rescues]
		rescues++
		r.rec.do(l, Input{Kind: Add, Pod: p}, func() Output { return Output{Err: r.q.Add(p)} })
	}
	r.rec.do(l, Input{Kind: Close}, func() Output { r.q.Close(); return Output{} })
	return rescues, early
}

// held is a pod a client popped and has not finished with.
type held struct {
	info  spec.QueuedPodInfo
	cycle int64
}

type client struct {
	*run
	log  *log
	rng  *rand.Rand
	pods []*spec.Pod // the current version of each pod the client owns
	held []held
}

// weights of the operations a client picks when it is not finishing a
// popped pod.
var weights = []struct {
	kind Kind
	w    int
}{
	{Add, 22}, {Pop, 20}, {FlushBackoffQ, 8}, {Step, 8}, {MoveAll, 6}, {Activate, 5},
	{Delete, 5}, {Update, 5}, {Snapshot, 5}, {FlushLeftover, 3}, {AssignedPodAdded, 2},
	{AssignedPodUpdated, 1}, {Done, 2}, {SchedulingCycle, 2},
}

var totalWeight = func() int {
	t := 0
	for _, w := range weights {
		t += w.w
	}
	return t
}()

func (c *client) pick() Kind {
	n := c.rng.IntN(totalWeight)
	for _, w := range weights {
		if n < w.w {
			return w.kind
		}
		n -= w.w
	}
	panic("unreachable")
}

func (c *client) loop() {
	for range c.w.OpsPerClient {
		if len(c.held) > 0 && c.rng.IntN(2) == 0 {
			c.finish()
		} else {
			c.issue(c.pick())
		}
		c.progress.Add(1)
		if c.rng.IntN(4) == 0 {
			runtime.Gosched()
		}
	}
}

// finish ends the scheduling attempt of a popped pod: it failed (rejected by
// random plugins, or none) or it was bound.
func (c *client) finish() {
	i := c.rng.IntN(len(c.held))
	h := c.held[i]
	c.held = removeHeld(c.held, i)
	if c.rng.IntN(10) < 7 {
		info := h.info
		info.UnschedulablePlugins = nil
		if c.rng.IntN(5) > 0 {
			for _, p := range plugins {
				if c.rng.IntN(3) == 0 {
					info.UnschedulablePlugins = append(info.UnschedulablePlugins, p)
				}
			}
		}
		in := Input{Kind: AddUnschedulable, Info: &info, Cycle: h.cycle}
		c.rec.do(c.log, in, func() Output { return Output{Err: c.q.AddUnschedulableIfNotPresent(in.Info, in.Cycle)} })
		return
	}
	uid := h.info.Pod.UID
	c.rec.do(c.log, Input{Kind: Done, UID: uid}, func() Output { return Output{Err: c.q.Done(uid)} })
}

func removeHeld(s []held, i int) []held {
	s[i] = s[len(s)-1]
	return s[:len(s)-1]
}

func (c *client) own() (int, *spec.Pod) {
	i := c.rng.IntN(len(c.pods))
	return i, c.pods[i]
}

func (c *client) issue(k Kind) {
	in := Input{Kind: k}
	var f func() Output
	switch k {
	case Add:
		_, in.Pod = c.own()
		f = func() Output { return Output{Err: c.q.Add(in.Pod)} }
	case Pop:
		f = func() Output {
			if c.inPop.Add(1) == c.alive.Load() {
				c.maybeStuck()
			}
			info, cycle, err := c.q.Pop()
			c.inPop.Add(-1)
			out := Output{Err: err, Cycle: cycle}
			if info != nil {
				cp := *info
				out.Info = &cp
				if err == nil {
					c.held = append(c.held, held{info: cp, cycle: cycle})
				}
			}
			return out
		}
	case FlushBackoffQ:
		f = func() Output { c.q.FlushBackoffQCompleted(); return Output{} }
	case FlushLeftover:
		f = func() Output { c.q.FlushUnschedulablePodsLeftover(); return Output{} }
	case Step:
		in.D = clockSteps[c.rng.IntN(len(clockSteps))]
		f = func() Output { c.clk.Step(in.D); return Output{} }
	case MoveAll:
		in.Event = events[c.rng.IntN(len(events))]
		switch c.rng.IntN(4) {
		case 0:
			in.PreCheck = preCheck("web only")
		case 1:
			in.PreCheck = preCheck("even priority")
		}
		f = func() Output { c.q.MoveAllToActiveOrBackoffQueue(in.Event, in.PreCheck.Fn); return Output{} }
	case Activate:
		in.Pods = []*spec.Pod{c.u.all[c.rng.IntN(len(c.u.all))]}
		if c.rng.IntN(2) == 0 {
			in.Pods = append(in.Pods, c.u.all[c.rng.IntN(len(c.u.all))])
		}
		f = func() Output { return Output{Err: c.q.Activate(in.Pods)} }
	case Delete:
		_, in.Pod = c.own()
		f = func() Output { return Output{Err: c.q.Delete(in.Pod)} }
	case Update:
		i, old := c.own()
		p := *old
		switch c.rng.IntN(3) {
		case 0:
			p.Priority = old.Priority + int32(c.rng.IntN(3)-1)*5 // may reorder, rarely ties
		case 1:
			p.Labels = map[string]string{"app": c.u.appVals[c.rng.IntN(2)], "v": fmt.Sprint(c.rng.IntN(100))}
		default:
			p.Status = fmt.Sprintf("PodScheduled=False %d", c.rng.IntN(100))
		}
		in.OldPod, in.Pod = old, &p
		c.pods[i] = &p
		f = func() Output { return Output{Err: c.q.Update(in.OldPod, in.Pod)} }
	case AssignedPodAdded, AssignedPodUpdated:
		app := c.u.appVals[c.rng.IntN(2)]
		in.Pod = &spec.Pod{Namespace: Namespace, Name: "assigned-" + app, UID: spec.UID("uid-assigned-" + app),
			Labels: map[string]string{"app": app}}
		if k == AssignedPodAdded {
			f = func() Output { return Output{Err: c.q.AssignedPodAdded(in.Pod)} }
			break
		}
		in.OldPod = in.Pod
		in.Event = spec.EventAssignedPodUpdate
		if c.rng.IntN(2) == 0 {
			in.Event = spec.ClusterEvent{Resource: spec.ResourceAssignedPod, ActionType: spec.UpdatePodScaleDown}
		}
		f = func() Output { return Output{Err: c.q.AssignedPodUpdated(in.OldPod, in.Pod, in.Event)} }
	case Done:
		// Usually not in flight: exercises ErrNotInFlight against
		// concurrent Pops of the pod.
		_, p := c.own()
		in.UID = p.UID
		f = func() Output { return Output{Err: c.q.Done(in.UID)} }
	case Snapshot:
		f = func() Output { s := c.q.Snapshot(); return Output{Snapshot: &s} }
	case SchedulingCycle:
		f = func() Output { return Output{Cycle: c.q.SchedulingCycle()} }
	default:
		panic(fmt.Sprintf("linearizability: client cannot issue %v", k))
	}
	if k == Step {
		c.rec.doGated(c.log, in, c.rng.Float64() < c.w.ConcurrentSteps, f)
		return
	}
	c.rec.do(c.log, in, f)
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
		if op.Input.(Input).Kind == Pop && i+1 < len(ops) && ops[i+1].Call < op.Return {
			h.BlockedPops++
		}
	}
	for _, o := range overlaps {
		if o {
			h.Overlapping++
		}
	}
}
