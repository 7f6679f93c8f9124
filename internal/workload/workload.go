// Package workload defines the benchmark workloads that compare schedq's
// implementation with the upstream kube-scheduler queue. Each workload is
// written once, generic over the queue's pod type and the handle its Pop
// returns, so that both queues run exactly the same sequence of operations
// through the same driver, in the same `go test -bench` invocation.
//
// Pods are built before the timed regions: neither side pays for building or
// converting them. The upstream modules (conformance/upstream/v*) hold the
// comparison benchmarks, because only they can import Kubernetes; they call
// the functions of this package with Schedq() and their own Subject.
//
// Every workload reports ns/pod (the timed cost divided by the pods it
// handled) next to the usual ns/op, and allocs/pod and B/pod from the
// allocations of the timed regions. `make bench-compare` turns the output of
// both modules into one table (cmd/benchtable).
package workload

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/schedq/schedq/internal/cputime"
)

// Queue is what the workloads need of a scheduling queue, with pods of type
// P and the handle of a popped pod of type I (what the scheduler gets from
// Pop and hands back when the pod fails). Implementations panic on errors:
// every workload is valid, so an error is a bug in the driver or the queue.
type Queue[P, I any] interface {
	// Add is R1.
	Add(pod P)
	// Pop is R2; it blocks while activeQ is empty.
	Pop() (info I, cycle int64)
	// Fail is R3: the popped pod comes back with
	// AddUnschedulableIfNotPresent, rejected by Plugin if rejected is true,
	// by no plugin otherwise.
	Fail(info I, cycle int64, rejected bool)
	// Done is R12.
	Done(info I)
	// MoveAll is R4 with the event NodeAdd, which Plugin registered for.
	// preCheck may be nil.
	MoveAll(preCheck func(P) bool)
	// FlushBackoffQ is R5: upstream's own flushBackoffQCompleted.
	FlushBackoffQ()
	// Step advances the queue's fake clock.
	Step(d time.Duration)
	Close()
}

// Plugin is the plugin that rejects pods in every workload. It registered
// interest in NodeAdd, the event of every move request.
const Plugin = "NodeFit"

// Start is where every queue's fake clock starts.
var Start = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// MaxBackoff is the default maximum backoff (10 s), and PastMaxBackoff a
// clock step after which every pod's backoff has completed.
const (
	MaxBackoff     = 10 * time.Second
	PastMaxBackoff = MaxBackoff + time.Second
)

// Target describes one queue implementation to the workloads.
type Target[P, I any] struct {
	// New returns an empty queue with the default config (backoff 1 s to
	// 10 s, Plugin registered for NodeAdd) on a fake clock at Start. It
	// runs outside the timed regions.
	New func(tb testing.TB) Queue[P, I]
	// Pod builds pod i (namespace "bench", name "pod-<i>", UID "uid-<i>")
	// with the given priority. It runs outside the timed regions.
	Pod func(i int, priority int32) P
	// Priority reads a pod's priority, for the preCheck of move requests.
	Priority func(pod P) int32
	// PodOf returns the pod of a popped handle.
	PodOf func(info I) P
	// GatedPod, if set, builds pod i as Pod does but refused by the
	// queue's PreEnqueue plugin Gate (a scheduling gate, R17), which
	// registered only Pod/UpdatePodLabel: the queue is in a profile with
	// PreEnqueue plugins. GatedMoves runs only the targets that have it.
	GatedPod func(i int, priority int32) P
	// Narrowed, if set, is New with pre-queueing hints on (R20) and a
	// pre-queueing hint on Plugin's NodeAdd registration whose i-th call
	// names the pods of Pod's indexes named[i % len(named)], its answers
	// built once, so that a request pays for the queue's work alone. The
	// queue's MoveAll passes a node object: a request without one asks no
	// pre-queueing hint. NarrowedMoves runs only the targets that have it.
	Narrowed func(tb testing.TB, named [][]int) NarrowedQueue[P, I]
}

// NarrowedQueue is a Queue whose activeQ can be counted, for
// NarrowedMoves' untimed check that a request moved exactly the named
// pods (too few would leave a later Pop blocked, too many would measure
// a scan of unschedulablePods).
type NarrowedQueue[P, I any] interface {
	Queue[P, I]
	ActiveLen() int
}

// Subject is a named Target with its type parameters erased, so that
// targets with different pod types can be compared in one call.
type Subject struct {
	Name string

	addPop           func(b *testing.B, n int)
	moveAll          func(b *testing.B)
	flushBackoffQ    func(b *testing.B)
	schedulingLoop   func(b *testing.B)
	producerConsumer func(b *testing.B)
	retained         func(b *testing.B, unschedulable bool)
	afterDrain       func(b *testing.B, n int, unschedulable bool)
	hintReplay       func(b *testing.B)
	gatedMoves       func(b *testing.B)           // nil if the target has no gates
	narrowedMoves    func(b *testing.B, n, k int) // nil if the target has no Narrowed
}

// Of names a Target as a Subject; the name is the last element of every
// sub-benchmark it runs (BenchmarkAddPop/N=1000/<name>).
func Of[P, I any](name string, t Target[P, I]) Subject {
	s := Subject{
		Name:             name,
		addPop:           func(b *testing.B, n int) { addPop(b, t, n) },
		moveAll:          func(b *testing.B) { moveAll(b, t) },
		flushBackoffQ:    func(b *testing.B) { flushBackoffQ(b, t) },
		schedulingLoop:   func(b *testing.B) { schedulingLoop(b, t) },
		producerConsumer: func(b *testing.B) { producerConsumer(b, t) },
		retained:         func(b *testing.B, unschedulable bool) { retained(b, t, unschedulable) },
		afterDrain:       func(b *testing.B, n int, unschedulable bool) { retainedAfterDrain(b, t, n, unschedulable) },
		hintReplay:       func(b *testing.B) { hintReplay(b, t) },
		gatedMoves:       func(b *testing.B) { gatedMoves(b, t) },
	}
	if t.GatedPod == nil {
		s.gatedMoves = nil
	}
	if t.Narrowed != nil {
		s.narrowedMoves = func(b *testing.B, n, k int) { narrowedMoves(b, t, n, k) }
	}
	return s
}

// Workload sizes.
var AddPopSizes = []int{1_000, 10_000, 100_000}

const (
	// Pods is the size of every workload but AddPop.
	Pods = 10_000
	// Producers is the number of goroutines that Add in ProducerConsumer.
	Producers = 4
	// mixBatch is how many pods the scheduling loop has in flight at once.
	mixBatch = 10
)

// AddPop adds N pods with random priorities to an empty activeQ, then pops
// them all, each followed by Done, as the scheduler ends every cycle. One op
// is the round of N pods; ns/pod is one Add, one Pop and one Done. The queue
// lives across rounds and one untimed round warms it up, so this is a
// long-running scheduler's steady state, not the growth of its maps. The
// floor (Floor) runs first at every size, beside the subjects.
func AddPop(b *testing.B, subjects ...Subject) {
	for _, n := range AddPopSizes {
		for _, s := range append([]Subject{Floor()}, subjects...) {
			b.Run(fmt.Sprintf("N=%d/%s", n, s.Name), func(b *testing.B) { s.addPop(b, n) })
		}
	}
}

// MoveAll is a move request (R4, event NodeAdd) over 10k unschedulable pods
// whose backoff has completed, of which preCheck lets exactly 10% through:
// those move to activeQ. One op is one request; ns/pod is per unschedulable
// pod examined.
func MoveAll(b *testing.B, subjects ...Subject) {
	each(b, subjects, func(s Subject) func(*testing.B) { return s.moveAll })
}

// FlushBackoffQ is flushBackoffQCompleted (R5) with 10k pods in backoffQ
// whose backoff has completed, at distinct expiries. One op is one flush;
// ns/pod is per pod moved to activeQ.
func FlushBackoffQ(b *testing.B, subjects ...Subject) {
	each(b, subjects, func(s Subject) func(*testing.B) { return s.flushBackoffQ })
}

// SchedulingLoop is the scheduler's loop under pressure over 10k pods: pop
// ten pods (in flight together), every tenth batch a move request while
// they are in flight (preCheck passes 10%), then nine of them fail (R3:
// those in flight during the request take the moveRequestCycle shortcut to
// backoffQ) and one is scheduled (Done) and replaced by a new pod (Add);
// every tenth batch the clock advances 100 ms and backoffQ is flushed. After
// 10k pops the clock passes every backoff and one move request and one flush
// bring every pod back to activeQ. One op is that round; ns/pod is per Pop.
func SchedulingLoop(b *testing.B, subjects ...Subject) {
	each(b, subjects, func(s Subject) func(*testing.B) { return s.schedulingLoop })
}

// ProducerConsumer is Pop under contention: four goroutines Add 2.5k pods
// each while one consumer Pops (and Dones) all 10k. One op is the round;
// ns/pod is the wall time per pod through the queue, and p50-ns and p99-ns
// are percentiles of the consumer's Pop call, waits included.
//
// Only one Pop in latencyStride is timed: two clock reads around every Pop
// were about a tenth of schedq's CPU per pod, a cost of the benchmark that
// would have counted as the queue's.
func ProducerConsumer(b *testing.B, subjects ...Subject) {
	each(b, subjects, func(s Subject) func(*testing.B) { return s.producerConsumer })
}

// Retained measures the heap a queue retains per queued pod, the pod
// objects themselves not included (they are built before the baseline):
// 10k pods in activeQ (state=active) and 10k pods in unschedulablePods
// (state=unschedulable), as live heap after GC in a queue holding them
// minus the same queue empty. Reported as retained-B/pod; ns/op is
// meaningless here.
func Retained(b *testing.B, subjects ...Subject) {
	for _, state := range []string{"active", "unschedulable"} {
		for _, s := range subjects {
			b.Run(fmt.Sprintf("state=%s/%s", state, s.Name), func(b *testing.B) { s.retained(b, state == "unschedulable") })
		}
	}
}

// InFlight is how many pods HintReplay keeps in flight at once.
const InFlight = 100

// HintReplay is failures while events arrive for pods in flight, what the
// queueing-hints profile records and replays (R15, R3h): InFlight pods are
// popped, then each fails after one more move request (NodeAdd, which
// Plugin registered for) has arrived, so the k-th failure finds k events
// recorded after its marker and its rejector's hint decides from them;
// the events are trimmed as the pods leave flight. Then the clock passes
// every backoff and backoffQ is flushed. One op is a round over Pods pods;
// ns/pod is per pod popped and failed (its share of the events included).
// A classic queue runs the same calls (the moveRequestCycle shortcut).
func HintReplay(b *testing.B, subjects ...Subject) {
	each(b, subjects, func(s Subject) func(*testing.B) { return s.hintReplay })
}

// GatedMoves is move requests over unschedulablePods when half of it is
// gated (scheduling gates, R17): Pods/2 pods refused by PreEnqueue wait
// there gated, Pods/2 failed ones wait rejected by Plugin, and a move
// request for NodeAdd (which the gating plugin did not register, so gated
// pods are skipped, R4h) moves the 10% of the rejected ones its preCheck
// passes, which then fail again. One op is one request; ns/pod is per
// unschedulable pod held. Only targets with GatedPod run it.
func GatedMoves(b *testing.B, subjects ...Subject) {
	each(b, subjects, func(s Subject) func(*testing.B) { return s.gatedMoves })
}

// NarrowedSizes are the sizes of unschedulablePods in NarrowedMoves.
var NarrowedSizes = []int{1_000, 10_000}

// NarrowedNamed is how many pods NarrowedMoves' pre-queueing hint names
// at size n: 1, 10 and n/10.
func NarrowedNamed(n int) []int { return []int{1, 10, n / 10} }

// NarrowedBatch is how many requests one timed region of NarrowedMoves
// holds at size n with k pods named per request.
func NarrowedBatch(n, k int) int { return max(1, n/(10*k)) }

// NarrowedMoves is a move request narrowed by a pre-queueing hint (R20,
// R21; SchedulerPreQueueingHints, on by default from v1.38): N pods wait
// in unschedulablePods rejected by Plugin, and Plugin's pre-queueing hint
// for NodeAdd names k of them, spread over the queue (pod j, j+N/k,
// j+2N/k, ...). The request carries a node object and moves the named
// pods, whose backoff has completed, to activeQ (Plugin's queueing hint
// is the default, Queue). One timed region holds NarrowedBatch(N, k)
// requests, the j-th naming its own k pods, so that the region's fixed
// cost (two CPU-clock reads, about half a microsecond) is shared by
// enough requests not to hide a request that costs a microsecond or two;
// untimed, the moved pods fail again before the next region, and a check
// after every region finds exactly the named pods in activeQ. One op is
// one region; ns/pod is per named pod: a queue whose request costs in
// proportion to the named pods shows the same ns/pod at N = 1k and 10k
// for the same k, one that visits unschedulablePods ten times more. Only
// targets with Narrowed run it.
//
// NarrowedBatch(N, k) keeps unschedulablePods within a tenth of N over a
// region (N/(10k) requests, at least one), so every request sees about
// the N parked pods it is named for; activeQ grows from 0 to N/10 over the
// region, alike for every queue.
func NarrowedMoves(b *testing.B, subjects ...Subject) {
	for _, n := range NarrowedSizes {
		for _, k := range NarrowedNamed(n) {
			for _, s := range subjects {
				if s.narrowedMoves != nil {
					b.Run(fmt.Sprintf("N=%d/k=%d/%s", n, k, s.Name), func(b *testing.B) { s.narrowedMoves(b, n, k) })
				}
			}
		}
	}
}

// each runs, for every subject that has it, the workload that run selects,
// as the sub-benchmark named for the subject.
func each(b *testing.B, subjects []Subject, run func(Subject) func(*testing.B)) {
	for _, s := range subjects {
		if f := run(s); f != nil {
			b.Run(s.Name, f)
		}
	}
}

// Burst sizes of RetainedAfterDrain: a million pods through activeQ, half
// a million parked in unschedulablePods.
const (
	BurstActive        = 1_000_000
	BurstUnschedulable = 500_000
	// IdleAfterDrain is how long the drained queue idles before
	// retained-B is measured.
	IdleAfterDrain = 2 * time.Minute
)

// RetainedAfterDrain measures what a queue keeps after a burst has come and
// gone: BurstActive pods are added and drained (Pop and Done each,
// state=active), or BurstUnschedulable pods are parked in
// unschedulablePods, moved back by one move request and drained
// (state=unschedulable). Reported as drained-B, the live heap after GC of
// the drained queue minus the same queue before the burst (pods excluded,
// they are built before), retained-B, the same once the drained queue has
// idled for IdleAfterDrain with its backoffQ flush every second (as a
// running queue does), and peak-B, the same difference at the burst's
// peak. A queue whose structures never shrink keeps their peak size for the
// rest of its life. It is not part of All: a million pods through the
// upstream queue costs minutes per run.
func RetainedAfterDrain(b *testing.B, subjects ...Subject) {
	for _, state := range []string{"active", "unschedulable"} {
		for _, s := range subjects {
			n := BurstActive
			if state == "unschedulable" {
				n = BurstUnschedulable
			}
			b.Run(fmt.Sprintf("state=%s/%s", state, s.Name), func(b *testing.B) { s.afterDrain(b, n, state == "unschedulable") })
		}
	}
}

// Priorities returns n random priorities in [0, 1000) (a fixed seed, so
// every run and both queues see the same ones) of which exactly every tenth
// (i%10 == 0) is a multiple of ten: Selected passes exactly those.
func Priorities(n int) []int32 {
	r := rand.New(rand.NewPCG(uint64(n), 42))
	out := make([]int32, n)
	for i := range out {
		p := r.Int32N(100) * 10
		if i%10 != 0 {
			p += 1 + r.Int32N(9)
		}
		out[i] = p
	}
	return out
}

// Selected is the preCheck rule of the workloads: 10% of the pods of
// Priorities pass.
func Selected(priority int32) bool { return priority%10 == 0 }

func pods[P, I any](t Target[P, I], n int) []P {
	out := make([]P, n)
	for i, pr := range Priorities(n) {
		out[i] = t.Pod(i, pr)
	}
	return out
}

func preCheck[P, I any](t Target[P, I]) func(P) bool {
	return func(p P) bool { return Selected(t.Priority(p)) }
}

// meter counts the CPU time and the allocations of the timed regions, per
// pod.
type meter struct {
	pods           float64
	mallocs, bytes uint64
	ms             runtime.MemStats
	cpu            cputime.Timer
}

// start and stop bracket a timed region. The CPU timer runs inside the
// wall timer, so that neither counts the other's reading of the memory
// statistics (which stops the world).
func (m *meter) start(b *testing.B) {
	runtime.ReadMemStats(&m.ms)
	m.mallocs -= m.ms.Mallocs
	m.bytes -= m.ms.TotalAlloc
	b.StartTimer()
	m.cpu.Start()
}

func (m *meter) stop(b *testing.B, pods int) {
	m.cpu.Stop()
	b.StopTimer()
	runtime.ReadMemStats(&m.ms)
	m.mallocs += m.ms.Mallocs
	m.bytes += m.ms.TotalAlloc
	m.pods += float64(pods)
}

// report reports cpu-ns/pod before ns/pod: the CPU figure is the one to
// compare on a shared machine (cputime.Timer).
func (m *meter) report(b *testing.B) {
	if m.pods == 0 {
		return
	}
	m.cpu.Report(b)
	b.ReportMetric(float64(m.cpu.Total().Nanoseconds())/m.pods, "cpu-ns/pod")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/m.pods, "ns/pod")
	b.ReportMetric(float64(m.mallocs)/m.pods, "allocs/pod")
	b.ReportMetric(float64(m.bytes)/m.pods, "B/pod")
}

// timeRounds runs b.N rounds of op, each handling pods pods, and times op
// alone: before and after, where not nil, run untimed around it.
func timeRounds(b *testing.B, pods int, before, op, after func()) {
	var m meter
	b.ReportAllocs()
	b.StopTimer()
	b.ResetTimer()
	for range b.N {
		if before != nil {
			before()
		}
		m.start(b)
		op()
		m.stop(b, pods)
		if after != nil {
			after()
		}
	}
	m.report(b)
}

func addAll[P, I any](q Queue[P, I], ps []P) {
	for _, p := range ps {
		q.Add(p)
	}
}

// popped is a pod in flight: the handle and the cycle its Pop returned.
type popped[I any] struct {
	info  I
	cycle int64
}

// popInto pops n pods into inFlight, emptied first.
func popInto[P, I any](q Queue[P, I], n int, inFlight []popped[I]) []popped[I] {
	inFlight = inFlight[:0]
	for range n {
		info, cycle := q.Pop()
		inFlight = append(inFlight, popped[I]{info, cycle})
	}
	return inFlight
}

func addPop[P, I any](b *testing.B, t Target[P, I], n int) {
	ps := pods(t, n)
	q := t.New(b)
	defer q.Close()
	round := func() {
		addAll(q, ps)
		for range ps {
			info, _ := q.Pop()
			q.Done(info)
		}
	}
	round() // grow the queue's maps and slices once
	// AddPop times its b.N rounds as one region, not with timeRounds, as it
	// always has: its figures stay comparable with earlier runs.
	var m meter
	b.ReportAllocs()
	b.StopTimer()
	b.ResetTimer()
	m.start(b)
	for range b.N {
		round()
	}
	m.stop(b, n*b.N)
	m.report(b)
}

// failAll pops n pods and fails each, stepping the clock by step after
// each failure.
func failAll[P, I any](q Queue[P, I], n int, rejected bool, step time.Duration) {
	for range n {
		info, cycle := q.Pop()
		q.Fail(info, cycle, rejected)
		if step > 0 {
			q.Step(step)
		}
	}
}

// timeMoves times b.N move requests over q's unschedulablePods, with every
// backoff completed; the passing pods they move to activeQ, alone there,
// are sent back after each.
func timeMoves[P, I any](b *testing.B, t Target[P, I], q Queue[P, I], passing int) {
	check := preCheck(t)
	timeRounds(b, Pods,
		func() { q.Step(PastMaxBackoff) },
		func() { q.MoveAll(check) },
		func() { failAll(q, passing, true, 0) })
}

func moveAll[P, I any](b *testing.B, t Target[P, I]) {
	ps := pods(t, Pods)
	passing := 0
	for _, p := range ps {
		if Selected(t.Priority(p)) {
			passing++
		}
	}
	q := t.New(b)
	defer q.Close()
	addAll(q, ps)
	failAll(q, Pods, true, 0)
	timeMoves(b, t, q, passing)
}

func flushBackoffQ[P, I any](b *testing.B, t Target[P, I]) {
	q := t.New(b)
	defer q.Close()
	addAll(q, pods(t, Pods))
	timeRounds(b, Pods, func() {
		// No rejecting plugin: every pod goes to backoffQ, and the clock
		// moves while they fail so that their expiries differ.
		failAll(q, Pods, false, time.Microsecond)
		q.Step(PastMaxBackoff)
	}, q.FlushBackoffQ, nil)
}

func schedulingLoop[P, I any](b *testing.B, t Target[P, I]) {
	check := preCheck(t)
	q := t.New(b)
	defer q.Close()
	addAll(q, pods(t, Pods))
	inFlight := make([]popped[I], 0, mixBatch)
	round := func() {
		// activeQ starts with all Pods and every Pop takes one, so it
		// cannot run dry before the Pods-th Pop of the round.
		for i := 0; i < Pods; i += mixBatch {
			batch := i / mixBatch
			inFlight = popInto(q, mixBatch, inFlight)
			if batch%10 == 0 {
				q.MoveAll(check)
			}
			for j, f := range inFlight {
				if j == mixBatch-1 {
					// The pod is read first: Done ends the caller's hold
					// on what Pop returned (spec.Queue's Pop).
					p := t.PodOf(f.info)
					q.Done(f.info)
					q.Add(p)
					continue
				}
				q.Fail(f.info, f.cycle, true)
			}
			if batch%10 == 5 {
				q.Step(100 * time.Millisecond)
				q.FlushBackoffQ()
			}
		}
		// Every backoff completes; every pod goes back to activeQ.
		q.Step(PastMaxBackoff)
		q.MoveAll(nil)
		q.FlushBackoffQ()
	}
	round() // the first round is the only one whose pods start at 0 attempts
	timeRounds(b, Pods, nil, round, nil)
}

// latencyStride is how many of the consumer's Pops make one latency sample
// in ProducerConsumer (the first of every latencyStride).
const latencyStride = 8

func producerConsumer[P, I any](b *testing.B, t Target[P, I]) {
	ps := pods(t, Pods)
	q := t.New(b)
	defer q.Close()
	lat := make([]time.Duration, 0, Pods/latencyStride+1)
	// Room for every round's samples up front, so that growing it between
	// rounds cannot leave the collector work for a timed round.
	all := make([]time.Duration, 0, b.N*cap(lat))
	round := func() {
		var wg sync.WaitGroup
		per := Pods / Producers
		for w := range Producers {
			wg.Add(1)
			go func(mine []P) {
				defer wg.Done()
				addAll(q, mine)
			}(ps[w*per : (w+1)*per])
		}
		lat = lat[:0]
		for i := range per * Producers {
			timed := i%latencyStride == 0
			var t0 time.Time
			if timed {
				t0 = time.Now()
			}
			info, _ := q.Pop()
			if timed {
				lat = append(lat, time.Since(t0))
			}
			q.Done(info)
		}
		wg.Wait()
	}
	round()
	timeRounds(b, Pods, nil, round, func() { all = append(all, lat...) })
	slices.Sort(all)
	if len(all) > 0 {
		b.ReportMetric(float64(all[len(all)/2].Nanoseconds()), "p50-ns")
		b.ReportMetric(float64(all[len(all)*99/100].Nanoseconds()), "p99-ns")
	}
}

// liveHeap returns the live heap after a full collection; twice, so that
// sync.Pools (emptied over two cycles) hold nothing either.
func liveHeap() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// baseline returns a new queue that has done one of everything once with
// pod p, so that the structures it makes lazily are in the baseline, and
// its live heap.
func baseline[P, I any](b *testing.B, t Target[P, I], p P) (Queue[P, I], uint64) {
	q := t.New(b)
	q.Add(p)
	info, cycle := q.Pop()
	q.Fail(info, cycle, true)
	q.Step(PastMaxBackoff)
	q.MoveAll(nil)
	info, _ = q.Pop()
	q.Done(info)
	return q, liveHeap()
}

func retained[P, I any](b *testing.B, t Target[P, I], unschedulable bool) {
	ps := pods(t, Pods)
	var total float64
	// The timer runs throughout, only so that b.N stays small.
	b.ResetTimer()
	for range b.N {
		q, before := baseline(b, t, ps[0])
		addAll(q, ps)
		if unschedulable {
			failAll(q, Pods, true, 0)
		}
		after := liveHeap()
		total += float64(int64(after) - int64(before))
		runtime.KeepAlive(ps)
		q.Close()
	}
	b.ReportMetric(total/float64(b.N)/Pods, "retained-B/pod")
}

func hintReplay[P, I any](b *testing.B, t Target[P, I]) {
	q := t.New(b)
	defer q.Close()
	addAll(q, pods(t, Pods))
	inFlight := make([]popped[I], 0, InFlight)
	round := func() {
		for i := 0; i < Pods; i += InFlight {
			inFlight = popInto(q, InFlight, inFlight)
			for _, f := range inFlight {
				q.MoveAll(nil)
				q.Fail(f.info, f.cycle, true)
			}
		}
		q.Step(PastMaxBackoff)
		q.FlushBackoffQ()
	}
	round()
	timeRounds(b, Pods, nil, round, nil)
}

func gatedMoves[P, I any](b *testing.B, t Target[P, I]) {
	q := t.New(b)
	defer q.Close()
	passing := 0
	for i, pr := range Priorities(Pods) {
		if i%2 == 0 {
			q.Add(t.GatedPod(i, pr))
			continue
		}
		q.Add(t.Pod(i, pr))
		if Selected(pr) {
			passing++
		}
	}
	failAll(q, Pods/2, true, 0)
	timeMoves(b, t, q, passing)
}

func retainedAfterDrain[P, I any](b *testing.B, t Target[P, I], n int, unschedulable bool) {
	ps := pods(t, n)
	var drainedSum, retainedSum, peakSum float64
	b.ResetTimer()
	for range b.N {
		q, before := baseline(b, t, ps[0])
		addAll(q, ps)
		if unschedulable {
			failAll(q, n, true, 0)
			q.Step(PastMaxBackoff)
			q.MoveAll(nil)
		}
		peak := liveHeap()
		for range n {
			info, _ := q.Pop()
			q.Done(info)
		}
		drained := liveHeap()
		// The queue then idles, running: a backoffQ flush every second.
		for range IdleAfterDrain / time.Second {
			q.Step(time.Second)
			q.FlushBackoffQ()
		}
		after := liveHeap()
		drainedSum += float64(int64(drained) - int64(before))
		retainedSum += float64(int64(after) - int64(before))
		peakSum += float64(int64(peak) - int64(before))
		runtime.KeepAlive(ps)
		q.Close()
	}
	b.ReportMetric(drainedSum/float64(b.N), "drained-B")
	b.ReportMetric(retainedSum/float64(b.N), "retained-B")
	b.ReportMetric(peakSum/float64(b.N), "peak-B")
}

func narrowedMoves[P, I any](b *testing.B, t Target[P, I], n, k int) {
	batch := NarrowedBatch(n, k)
	named := make([][]int, batch)
	for j := range named {
		named[j] = make([]int, k)
		for i := range named[j] {
			named[j][i] = j + i*(n/k)
		}
	}
	q := t.Narrowed(b, named)
	defer q.Close()
	addAll(q, pods(t, n))
	failAll(q, n, true, 0)
	// Every region is checked, untimed: its requests moved exactly the
	// pods they named (the benchmark measures narrowing, not a scan; too
	// few would leave a later Pop blocked), and the failures after it
	// find them in activeQ.
	check := func() {
		if got := q.ActiveLen(); got != batch*k {
			b.Fatalf("%d move requests whose pre-queueing hint names %d of %d parked pods each moved %d to activeQ, want %d", batch, k, n, got, batch*k)
		}
		failAll(q, batch*k, true, 0)
	}
	timeRounds(b, batch*k,
		func() { q.Step(PastMaxBackoff) },
		func() {
			for range batch {
				q.MoveAll(nil)
			}
		},
		check)
}
