package realsched

import (
	"bytes"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/schedq/schedq/model"
	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// Recorder wraps either queue at the SchedulingQueue boundary. It logs
// every call the real scheduler makes (operation, arguments, result, call
// and return times, goroutine) and checks the history against the model
// (package model, classic profile) as it happens: every call is
// serialised by the recorder's lock, so the order in which calls return
// is the order in which they took effect, and the model steps in that
// order. After each call the queue's places (activeQ, backoffQ,
// unschedulablePods, and in flight where the queue shows it) must hold the
// same pods as the model's; Pop must return one of the model's
// PopCandidates with the model's Attempts; AddUnschedulableIfNotPresent's
// error and SchedulingCycle must be the model's; NominatedPodsForNode must
// list the model's pods.
//
// The queue's clock is the recorder's fake clock, stepped under the lock,
// and the recorder runs the two flushes itself (flush), so they are
// operations of the history like any other. The check is of sequential
// semantics under the real client's traffic: serialising the calls
// removes the races a concurrent history would show (conformance/concurrent
// and package linearizability check those).
//
// The first violation stops the check: the recorder then passes calls
// through unchecked, so the scheduler keeps running, and Violation
// reports the history.
type Recorder struct {
	inner upstreamQueue
	clk   *testingclock.FakeClock
	flush func(backoff bool)
	// places returns the pods of each place by key; inFlight nil when the
	// queue does not show its pods in flight (upstream's classic mode).
	places func() (active, backoff, unsched, inFlight []string)
	// verdicts, when set, scopes the queue's PreEnqueue verdicts to the
	// call that got them (Verdicts).
	verdicts *Verdicts
	// conc, when set, records without serialising, for porcupine
	// (conc.go); the online check is then off.
	conc *conc

	mu      sync.RWMutex
	m       *model.Model
	cfg     spec.Config
	start   time.Time
	objs    map[types.UID]*v1.Pod
	ops     []TraceOp
	checked int
	reads   int // NominatedPodsForNode calls where both sides listed nothing
	bad     *Violation
	// diffKeys are the pods the last comparison found out of place.
	diffKeys []string
	closed   bool
	changed  chan struct{}
	stop     chan struct{}
	once     sync.Once
}

// TraceOp is one call of the history.
type TraceOp struct {
	Seq    int
	Op     schedqtest.Op
	Text   string // the call as the scheduler made it
	Result string
	Call   time.Time
	Return time.Time
	G      int64
}

func (o TraceOp) String() string {
	return fmt.Sprintf("#%d g%d %s -> %s [%s]", o.Seq, o.G, o.Text, o.Result, o.Return.Sub(o.Call))
}

// Violation is the first difference between the queue and the model.
type Violation struct {
	Op      TraceOp
	Reason  string
	History []TraceOp // the minimal history: the calls that touch the pods involved, plus every move, flush and tick
	Pods    []spec.PodKey
	Full    int
	// Known names the known difference between upstream and the contract
	// that explains the violation, if one does: R9 on v1.33.13 classic (an
	// update of a pod in flight), R10 from v1.37 (a Delete of a pod in
	// flight).
	Known string
}

func has(l []string, k string) bool {
	for _, x := range l {
		if x == k {
			return true
		}
	}
	return false
}

// known classifies a violation at call o by the known differences of
// the contract with upstream: the declared R9 of v1.33.13 classic, and the
// in-flight list of v1.37 and later after a Delete.
func (r *Recorder) known(o TraceOp) string {
	s := r.m.Snapshot()
	a, _, _, f := r.places()
	switch o.Op.Kind {
	case schedqtest.KindDelete:
		k := string(o.Op.Pod.Key())
		if f != nil && has(f, k) && !has(keysOf(s.InFlight), k) {
			// Seen once in make verify's MixedChurn (a pod deleted in
			// its scheduling cycle): the attempt ends at the scheduler's
			// Done, which the conformance adapter calls at Delete.
			return "R10 (known, until Done): a Delete of a pod in flight; upstream keeps its UID in the in-flight list (InFlightPods) until the scheduler's Done for the attempt, the contract forgets it at Delete"
		}
	case schedqtest.KindUpdate:
		if hintsProfile {
			break // v1.37 tracks pods in flight as the hints profile does
		}
		k := string(o.Op.Pod.Key())
		if has(a, k) && has(keysOf(s.InFlight), k) {
			return "R9 (declared): an Update of a pod in flight; upstream v1.33 classic does not track pods in flight and queues a second copy in activeQ, the contract updates it in place"
		}
	}
	return ""
}

func (v *Violation) Error() string { return v.Report() }

// Report is the violation as a reader needs it: what differed, the
// minimal history, and a scenario file to paste.
func (v *Violation) Report() string {
	var b strings.Builder
	fmt.Fprintf(&b, "trace violation at call %d of %d: %s\n  %s\n", v.Op.Seq, v.Full, v.Reason, v.Op)
	if v.Known != "" {
		fmt.Fprintf(&b, "  known difference: %s\n", v.Known)
	}
	fmt.Fprintf(&b, "minimal history (%d calls touching %v, and every move, flush and tick):\n", len(v.History), v.Pods)
	for _, o := range v.History {
		fmt.Fprintf(&b, "  %s\n", o)
	}
	ops := make([]schedqtest.Op, 0, len(v.History))
	for _, o := range v.History {
		if o.Op.Kind != "" {
			ops = append(ops, o.Op)
		}
	}
	sc := schedqtest.Scenario{Name: "realsched/violation", Comment: []string{
		"Found by the realsched trace check: the real kube-scheduler " + Release + "'s calls, replayed.",
		"The run's registry is the default profile's, not the scenario language's: a",
		"move may select other pods here. " + v.Reason,
	}, Ops: ops}
	if text, err := schedqtest.FormatScenario(sc); err == nil {
		fmt.Fprintf(&b, "scenario (paste under conformance/testdata/scenarios/):\n%s", text)
	} else {
		fmt.Fprintf(&b, "scenario (ops only; the model refuses it as a file: %v):\n%s\n", err, schedqtest.FormatOps(ops))
	}
	return b.String()
}

// NewRecorder wraps inner. cfg is the classic config the model runs with
// (Config: the registry and the PreEnqueue plugins of the scheduler's
// profiles, so the model gates the pods the queue gates); clk is the
// queue's clock.
func NewRecorder(inner upstreamQueue, cfg spec.Config, clk *testingclock.FakeClock, flush func(backoff bool), places func() (a, b, u, f []string)) (*Recorder, error) {
	m, err := model.New(cfg, clk.Now())
	if err != nil {
		return nil, err
	}
	return &Recorder{inner: inner, clk: clk, flush: flush, places: places, m: m, cfg: cfg, start: clk.Now(),
		objs: map[types.UID]*v1.Pod{}, changed: make(chan struct{}), stop: make(chan struct{})}, nil
}

// Checked is the number of calls checked against the model (all calls
// up to the first violation), and the NominatedPodsForNode calls where
// both listed nothing (checked, not kept in the history).
func (r *Recorder) Checked() (ops, emptyReads int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.checked, r.reads
}

// Violation is the first violation, or nil.
func (r *Recorder) Violation() *Violation {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.bad
}

// History is a copy of the calls recorded.
func (r *Recorder) History() []TraceOp {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]TraceOp(nil), r.ops...)
}

func goid() int64 {
	var buf [32]byte
	n := runtime.Stack(buf[:], false)
	f := bytes.Fields(buf[:n])
	if len(f) < 2 {
		return 0
	}
	id, _ := strconv.ParseInt(string(f[1]), 10, 64)
	return id
}

// call runs one state-changing call under the lock: inner calls the queue
// and returns the result text, step steps the model and returns how the
// two differ, if they do; then the places are compared. After a violation
// only inner runs.
func (r *Recorder) call(op *schedqtest.Op, text string, inner func() string, step stepFn) {
	start := time.Now()
	if r.conc != nil {
		r.conc.call(text, inner, step)
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.bad != nil {
		inner()
		return
	}
	r.verdicts.begin()
	res := inner()
	r.verdicts.end()
	diff := step(r.m)
	r.record(*op, text, res, start)
	if diff == "" {
		diff = r.compare()
	}
	if diff != "" {
		r.violate(diff)
		return
	}
	r.checked++
	r.wake()
}

func (r *Recorder) record(op schedqtest.Op, text, res string, start time.Time) {
	r.ops = append(r.ops, TraceOp{Seq: len(r.ops) + 1, Op: op, Text: text, Result: res, Call: start, Return: time.Now(), G: goid()})
}

func (r *Recorder) wake() {
	close(r.changed)
	r.changed = make(chan struct{})
}

func keysOf(l []spec.QueuedPodInfo) []string {
	out := make([]string, len(l))
	for i, p := range l {
		out[i] = string(p.Pod.Key())
	}
	return out
}

func symDiff(a, b []string) []string {
	in := map[string]int{}
	for _, k := range a {
		in[k]++
	}
	for _, k := range b {
		in[k]--
	}
	var out []string
	for k, n := range in {
		if n != 0 {
			out = append(out, k)
		}
	}
	return out
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	a, b = append([]string(nil), a...), append([]string(nil), b...)
	sort.Strings(a)
	sort.Strings(b)
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// compare checks the queue's places against the model's; r.diffKeys
// gets the pods that are in one and not the other.
func (r *Recorder) compare() string {
	s := r.m.Snapshot()
	a, b, u, f := r.places()
	d, keys := placesDiff(&s, a, b, u, f)
	r.diffKeys = keys
	return strings.Join(d, "; ")
}

// placesDiff compares the queue's places (a, b, u, f: the keys in activeQ,
// backoffQ, unschedulablePods and in flight; f nil when the queue cannot
// list its pods in flight) with the model's snapshot s: a line per place
// that differs, and the keys in one and not the other.
func placesDiff(s *spec.Snapshot, a, b, u, f []string) (lines, keys []string) {
	for _, c := range []struct {
		name      string
		got, want []string
	}{{"activeQ", a, keysOf(s.ActiveQ)}, {"backoffQ", b, keysOf(s.BackoffQ)}, {"unschedulablePods", u, keysOf(s.UnschedulablePods)}, {"inFlight", f, keysOf(s.InFlight)}} {
		if c.got == nil && c.name == "inFlight" {
			continue
		}
		if !sameSet(c.got, c.want) {
			got, want := sorted(c.got), sorted(c.want)
			keys = append(keys, symDiff(got, want)...)
			lines = append(lines, fmt.Sprintf("%s: queue %v, model %v", c.name, got, want))
		}
	}
	return lines, keys
}

// violate records the first violation with its minimal history: the
// calls that name the pods where queue and model differ (or the pod of the
// failing call), and every call that names no pod (moves, flushes, ticks).
func (r *Recorder) violate(reason string) {
	last := r.ops[len(r.ops)-1]
	pods := map[spec.PodKey]bool{}
	for _, k := range r.diffKeys {
		pods[spec.PodKey(k)] = true
	}
	for _, k := range opKeys(last.Op) {
		pods[k] = true
	}
	var hist []TraceOp
	for _, o := range r.ops {
		ks := opKeys(o.Op)
		keep := len(ks) == 0
		for _, k := range ks {
			keep = keep || pods[k]
		}
		if keep {
			hist = append(hist, o)
		}
	}
	var names []spec.PodKey
	for k := range pods {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool { return names[i] < names[j] })
	r.bad = &Violation{Op: last, Reason: reason, History: hist, Pods: names, Full: len(r.ops), Known: r.known(last)}
	r.wake()
}

func opKeys(o schedqtest.Op) []spec.PodKey {
	var ks []spec.PodKey
	if o.Pod.Name != "" {
		ks = append(ks, o.Pod.Key())
	}
	for _, p := range o.Pods {
		ks = append(ks, p.Key())
	}
	if o.UID != "" {
		ks = append(ks, spec.PodKey(schedqtest.Namespace+"/"+strings.TrimPrefix(o.UID, "uid-")))
	}
	if o.Kind == schedqtest.KindPop && o.Choose != "" {
		ks = append(ks, schedqtest.Key(o.Choose))
	}
	return ks
}

// ref names pod in the scenario language: workload pods live in
// namespace "ns" with UID "uid-<name>", the language's defaults.
func ref(pod *v1.Pod) schedqtest.PodRef {
	sp := specPod(pod)
	r := schedqtest.PodRef{Name: pod.Name, Labels: sp.Labels}
	if sp.Priority != 0 {
		pr := sp.Priority
		r.Priority = &pr
	}
	if pod.Namespace != schedqtest.Namespace {
		ns := pod.Namespace
		r.Namespace = &ns
	}
	if string(pod.UID) != "uid-"+pod.Name {
		uid := string(pod.UID)
		r.UID = &uid
	}
	if len(sp.RequiredAffinityTerms) > 0 {
		r.Affinity = sp.RequiredAffinityTerms[0].MatchLabels
	}
	return r
}

func errText(err error) string {
	if err == nil {
		return "ok"
	}
	return "error: " + err.Error()
}

func (r *Recorder) remember(p *v1.Pod) {
	if p != nil && r.conc == nil {
		r.objs[p.UID] = p
	}
}

// add is Add, recorded and checked; inner calls the wrapped queue.
func (r *Recorder) add(pod *v1.Pod, inner func()) {
	if pod == nil {
		inner()
		return
	}
	r.call(&schedqtest.Op{Kind: schedqtest.KindAdd, Pod: ref(pod)}, "Add "+pod.Name, func() string {
		inner()
		return ""
	}, func(m *model.Model) string {
		r.remember(pod)
		_ = m.Add(specPod(pod)) // the model's error is the contract's answer; upstream has none to compare
		return ""
	})
}

// Activate is recorded and checked.
func (r *Recorder) Activate(logger klog.Logger, pods map[string]*v1.Pod) {
	var list []*spec.Pod
	var refs []schedqtest.PodRef
	keys := make([]string, 0, len(pods))
	for k := range pods {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if p := pods[k]; p != nil {
			list = append(list, specPod(p))
			refs = append(refs, ref(p))
		}
	}
	r.call(&schedqtest.Op{Kind: schedqtest.KindActivate, Pods: refs}, fmt.Sprintf("Activate %v", keys), func() string {
		r.inner.Activate(logger, pods)
		return ""
	}, func(m *model.Model) string {
		if len(list) > 0 {
			_ = m.Activate(list)
		}
		return ""
	})
}

// addUnschedulable is the failure path (AddUnschedulableIfNotPresent in
// v1.33, AddUnschedulablePodIfNotPresent in v1.37), recorded and checked:
// the error must be the model's.
func (r *Recorder) addUnschedulable(p *queuedPodInfo, cycle int64, inner func() error) error {
	if p == nil || p.PodInfo == nil || p.Pod == nil {
		return inner()
	}
	plugins := sets.List(p.UnschedulablePlugins)
	c := cycle
	op := schedqtest.Op{Kind: schedqtest.KindFail, Pod: schedqtest.PodRef{Name: p.Pod.Name}, Plugins: plugins, Cycle: &c}
	// What the scheduler hands back, read before the queue sees it:
	// upstream v1.37's queue counts the failure into the very pInfo
	// (UnschedulableCount, ConsecutiveErrorsCount), and the model must
	// count from the values before, or it counts twice.
	info := &spec.QueuedPodInfo{Pod: specPod(p.Pod), Timestamp: p.Timestamp, Attempts: p.Attempts,
		UnschedulablePlugins: spec.NewPluginSet(plugins...), InitialAttemptTimestamp: initialAttempt(p), HintFields: hintFieldsOf(p)}
	var err error
	r.call(&op, fmt.Sprintf("AddUnschedulableIfNotPresent %s plugins=%v cycle=%d attempts=%d", p.Pod.Name, plugins, cycle, p.Attempts), func() string {
		err = inner()
		return errText(err)
	}, func(m *model.Model) string {
		r.remember(p.Pod)
		merr := m.AddUnschedulableIfNotPresent(info, cycle)
		if (err == nil) != (merr == nil) {
			return fmt.Sprintf("AddUnschedulableIfNotPresent %s: queue %s, model %s", p.Pod.Namespace+"/"+p.Pod.Name, errText(err), errText(merr))
		}
		return ""
	})
	return err
}

// SchedulingCycle is recorded and checked.
func (r *Recorder) SchedulingCycle() int64 {
	if r.conc != nil {
		var got int64
		r.conc.run("SchedulingCycle", true, func() string {
			got = r.inner.SchedulingCycle()
			return strconv.FormatInt(got, 10)
		}, func(m *model.Model) string {
			if want := m.SchedulingCycle(); got != want {
				return fmt.Sprintf("SchedulingCycle: queue %d, model %d", got, want)
			}
			return ""
		}, r.verdicts)
		return got
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	got := r.inner.SchedulingCycle()
	if r.bad == nil {
		if want := r.m.SchedulingCycle(); got != want {
			r.record(schedqtest.Op{}, "SchedulingCycle", strconv.FormatInt(got, 10), time.Now())
			r.violate(fmt.Sprintf("SchedulingCycle: queue %d, model %d", got, want))
		}
	}
	return got
}

// pop waits, outside the lock, until the model has a pod to pop (or the
// queue is closed), then pops under the lock: a Pop that blocked with the
// lock held would stop every other call.
func (r *Recorder) pop(logger klog.Logger) (*queuedPodInfo, error) {
	if r.conc != nil {
		return r.popUnserialised(logger)
	}
	for {
		start := time.Now()
		r.mu.Lock()
		if r.bad != nil {
			r.mu.Unlock()
			return popUpstream(r.inner, logger)
		}
		if !r.closed && len(r.m.PopCandidates()) == 0 {
			ch := r.changed
			r.mu.Unlock()
			select {
			case <-ch:
			case <-time.After(50 * time.Millisecond):
			}
			continue
		}
		active, backoff, _, _ := r.places()
		if len(active) == 0 && (!hintsProfile || len(backoff) == 0) && !r.closed {
			// (R2h: the hints profile pops from backoffQ too.)
			r.record(schedqtest.Op{Kind: schedqtest.KindPop}, "Pop", "(not called: nothing to pop)", start)
			r.violate(fmt.Sprintf("Pop: the queue has nothing to pop, the model's candidates are %v", r.m.PopCandidates()))
			r.mu.Unlock()
			return popUpstream(r.inner, logger)
		}
		p, err := popUpstream(r.inner, logger)
		if err != nil || p == nil || p.PodInfo == nil || p.Pod == nil {
			r.record(schedqtest.Op{Kind: schedqtest.KindPop}, "Pop", errText(err), start)
			if !r.closed {
				r.violate(fmt.Sprintf("Pop: queue %s, model has %v", errText(err), r.m.PopCandidates()))
			}
			r.mu.Unlock()
			return p, err
		}
		op := schedqtest.Op{Kind: schedqtest.KindPop, Choose: p.Pod.Name}
		r.record(op, "Pop", fmt.Sprintf("popped %s attempts=%d", p.Pod.Name, p.Attempts), start)
		if d := modelPop(r.m, spec.PodKey(p.Pod.Namespace+"/"+p.Pod.Name), p.Attempts); d != "" {
			r.violate(d)
		} else if d := r.compare(); d != "" {
			r.violate(d)
		} else {
			r.checked++
		}
		r.mu.Unlock()
		return p, err
	}
}

// popUnserialised is pop for the unserialised check: the call runs
// outside the recorder's lock and is placed against the model afterwards.
func (r *Recorder) popUnserialised(logger klog.Logger) (*queuedPodInfo, error) {
	var p *queuedPodInfo
	var err error
	var key spec.PodKey
	var attempts int
	r.conc.runMay("Pop", false, func() string {
		p, err = popUpstream(r.inner, logger)
		if err != nil || p == nil || p.PodInfo == nil || p.Pod == nil {
			return errText(err)
		}
		key, attempts = spec.PodKey(p.Pod.Namespace+"/"+p.Pod.Name), p.Attempts
		return fmt.Sprintf("popped %s attempts=%d", p.Pod.Name, attempts)
	}, func(m *model.Model) string {
		if key == "" {
			// Pop fails only on a closed queue (R13).
			if !m.Closed() {
				return "Pop failed on an open queue"
			}
			return ""
		}
		return modelPop(m, key, attempts)
	}, func(m *model.Model) bool {
		if key == "" {
			return m.Closed()
		}
		return slices.Contains(m.PopCandidates(), key)
	}, r.verdicts)
	return p, err
}

// modelPop pops key from m, as the queue did with the pod's attempts
// after it, and returns how the two disagree ("" if they do not). A
// refused pop leaves m as it was, so its candidates are still the ones
// the queue chose among.
func modelPop(m *model.Model, key spec.PodKey, attempts int) string {
	mi, _, err := m.PopPod(key)
	switch {
	case err != nil:
		return fmt.Sprintf("Pop returned %s; the model's candidates are %v (I5)", key, m.PopCandidates())
	case mi.Attempts != attempts:
		return fmt.Sprintf("Pop %s: attempts queue %d, model %d", key, attempts, mi.Attempts)
	}
	return ""
}

// Done is recorded and checked.
func (r *Recorder) Done(uid types.UID) {
	r.call(&schedqtest.Op{Kind: schedqtest.KindDone, UID: string(uid)}, "Done "+string(uid), func() string {
		r.inner.Done(uid)
		return ""
	}, func(m *model.Model) string {
		_ = m.Done(spec.UID(uid)) // upstream ignores Done of a pod not in flight; so does the check
		return ""
	})
}

// update is Update, recorded and checked.
func (r *Recorder) update(oldPod, newPod *v1.Pod, inner func()) {
	if oldPod == nil || newPod == nil {
		inner()
		return
	}
	// The model takes the verdict the adapter gives schedq's queue, which
	// is the release's own (podChange): on upstream's queue too, the check
	// is of the same rule.
	change := podChange(oldPod, newPod)
	op := schedqtest.Op{Kind: schedqtest.KindUpdate, Pod: ref(newPod), Change: change}
	if !spec.IsPodUpdated(specPod(oldPod), specPod(newPod)) {
		op = schedqtest.Op{Kind: schedqtest.KindUpdate, Pod: schedqtest.PodRef{Name: newPod.Name}, Touch: true, Change: change}
	}
	r.call(&op, "Update "+newPod.Name+" rv="+newPod.ResourceVersion, func() string {
		inner()
		return ""
	}, func(m *model.Model) string {
		r.remember(newPod)
		s := m.Snapshot()
		_ = m.UpdateWithChange(specPod(oldPod), specPod(newPod), change)
		if !hintsProfile && change.Relevant && has(keysOf(s.InFlight), string(op.Pod.Key())) && has(keysOf(m.Snapshot().InFlight), string(op.Pod.Key())) {
			// The adapter's step for a relevant update of a pod in
			// flight (Adapter.Update): an Activate of it (R8).
			_ = m.Activate([]*spec.Pod{specPod(newPod)})
		}
		return ""
	})
}

// delete is Delete, recorded and checked.
func (r *Recorder) delete(pod *v1.Pod, inner func()) {
	if pod == nil {
		inner()
		return
	}
	r.call(&schedqtest.Op{Kind: schedqtest.KindDelete, Pod: schedqtest.PodRef{Name: pod.Name}}, "Delete "+pod.Name, func() string {
		inner()
		return ""
	}, func(m *model.Model) string {
		_ = m.Delete(specPod(pod))
		return ""
	})
}

// MoveAllToActiveOrBackoffQueue is recorded and checked, the event with
// its objects (R19: the hints profile's queueing hints read them). preCheck
// is asked about the model's pods with the objects the recorder saw last.
func (r *Recorder) MoveAllToActiveOrBackoffQueue(logger klog.Logger, event clusterEvent, oldObj, newObj interface{}, pc preEnqueueCheck) {
	se := specEvent(event)
	op := schedqtest.Op{Kind: schedqtest.KindMove, Event: spec.ClusterEvent{Resource: se.Resource, ActionType: se.ActionType}}
	r.call(&op, "MoveAllToActiveOrBackoffQueue "+labelOf(event), func() string {
		r.inner.MoveAllToActiveOrBackoffQueue(logger, event, oldObj, newObj, pc)
		return ""
	}, func(m *model.Model) string {
		var mpc spec.PreEnqueueCheck
		if pc != nil {
			// The precheck's verdicts go into the scenario op.
			passed := []string{}
			mpc = func(p *spec.Pod) bool {
				o := r.objOf(p)
				ok := o == nil || askPreCheck(pc, o, nil)
				if ok {
					passed = append(passed, p.Name)
				}
				return ok
			}
			defer func() {
				sort.Strings(passed)
				op.PreCheck = passed
			}()
		}
		if err := m.MoveAllToActiveOrBackoffQueueWithObjects(specOccurrence(event, oldObj, newObj), mpc); err != nil {
			return "model: " + err.Error()
		}
		return ""
	})
}

// assignedPodAdded is v1.33's AssignedPodAdded, recorded and checked.
func (r *Recorder) assignedPodAdded(pod *v1.Pod, inner func()) {
	if pod == nil {
		inner()
		return
	}
	r.call(&schedqtest.Op{Kind: schedqtest.KindAssignedAdd, Pod: ref(pod)}, "AssignedPodAdded "+pod.Name, func() string {
		inner()
		return ""
	}, func(m *model.Model) string {
		_ = m.AssignedPodAdded(specPod(pod))
		return ""
	})
}

// assignedPodUpdated is v1.33's AssignedPodUpdated, recorded and checked.
func (r *Recorder) assignedPodUpdated(oldPod, newPod *v1.Pod, event clusterEvent, inner func()) {
	if newPod == nil {
		inner()
		return
	}
	se := specEvent(event)
	op := schedqtest.Op{Kind: schedqtest.KindAssignedUpdate, Pod: ref(newPod), Event: spec.ClusterEvent{Resource: se.Resource, ActionType: se.ActionType}}
	r.call(&op, "AssignedPodUpdated "+newPod.Name+" "+labelOf(event), func() string {
		inner()
		return ""
	}, func(m *model.Model) string {
		_ = m.AssignedPodUpdated(specPod(oldPod), specPod(newPod), se)
		return ""
	})
}

// Close is recorded; it also stops the recorder's clock and flushes.
func (r *Recorder) Close() {
	r.once.Do(func() { close(r.stop) })
	if r.conc != nil {
		r.conc.call("Close", func() string {
			r.inner.Close()
			return ""
		}, func(m *model.Model) string {
			m.Close()
			return ""
		})
		r.mu.Lock()
		r.closed = true
		r.mu.Unlock()
		return
	}
	r.mu.Lock()
	r.closed = true
	r.inner.Close()
	r.m.Close()
	r.record(schedqtest.Op{Kind: schedqtest.KindClose}, "Close", "", time.Now())
	r.wake()
	r.mu.Unlock()
}

// Run starts the recorder's clock: every 10 ms it steps the queue's clock
// and the model's by 10 ms, runs the backoffQ flush every simulated second
// and the leftover flush every 30, each a call of the history. The
// wrapped queue's own Run is not called: its flushes would be invisible.
func (r *Recorder) Run(logger klog.Logger) {
	go func() {
		const step = 10 * time.Millisecond
		t := time.NewTicker(step)
		defer t.Stop()
		var n int
		for {
			select {
			case <-r.stop:
				return
			case <-t.C:
			}
			n++
			r.tick(step)
			if n%100 == 0 {
				r.own(func() {
					r.call(&schedqtest.Op{Kind: schedqtest.KindFlushBackoff}, "flushBackoffQCompleted", func() string {
						r.flush(true)
						return ""
					}, func(m *model.Model) string {
						m.FlushBackoffQCompleted()
						return ""
					})
				})
			}
			if n%3000 == 0 {
				r.own(func() {
					r.call(&schedqtest.Op{Kind: schedqtest.KindFlushLeftover}, "flushUnschedulablePodsLeftover", func() string {
						r.flush(false)
						return ""
					}, func(m *model.Model) string {
						m.FlushUnschedulablePodsLeftover()
						return ""
					})
				})
			}
		}
	}()
}

// own runs f, a call of the recorder's own (a flush), under the
// recorder's lock when the calls are not serialised: the quiescent
// snapshot then sees no pod move while it reads the places.
func (r *Recorder) own(f func()) {
	if r.conc == nil {
		f()
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	f()
}

// tick steps both clocks; consecutive ticks are one call of the history.
func (r *Recorder) tick(d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	if r.conc != nil {
		// The fake clock steps atomically: the step is one call.
		r.conc.call("tick", func() string {
			r.clk.Step(d)
			return ""
		}, func(m *model.Model) string {
			if err := m.Step(d); err != nil {
				return err.Error()
			}
			return ""
		})
		return
	}
	r.clk.Step(d)
	if r.bad != nil {
		// The check has stopped, the queue's time has not: a queue whose
		// clock stood still would keep its backoffQ forever, and the run
		// would report pods unbound that the violation did not strand.
		return
	}
	if err := r.m.Step(d); err != nil {
		r.record(schedqtest.Op{Kind: schedqtest.KindTick, Duration: d}, "tick", "", time.Now())
		r.violate("model: " + err.Error())
		return
	}
	if l := len(r.ops); l > 0 && r.ops[l-1].Op.Kind == schedqtest.KindTick {
		r.ops[l-1].Op.Duration += d
		r.ops[l-1].Return = time.Now()
		return
	}
	r.record(schedqtest.Op{Kind: schedqtest.KindTick, Duration: d}, "tick", "", time.Now())
	r.checked++
}

// AddNominatedPod is recorded and checked.
func (r *Recorder) AddNominatedPod(logger klog.Logger, pi nominatedInfo, ni *nominatingInfo) {
	pod := podOfInfo(pi)
	if pod == nil {
		r.inner.AddNominatedPod(logger, pi, ni)
		return
	}
	mode, node := spec.NominateNoop, ""
	if ni.Mode() == modeOverride {
		mode, node = spec.NominateOverride, ni.NominatedNodeName
	}
	op := schedqtest.Op{Kind: schedqtest.KindNominate, Pod: schedqtest.PodRef{Name: pod.Name}, Node: node, Noop: mode == spec.NominateNoop}
	r.call(&op, fmt.Sprintf("AddNominatedPod %s mode=%d node=%q", pod.Name, mode, node), func() string {
		r.inner.AddNominatedPod(logger, pi, ni)
		return ""
	}, func(m *model.Model) string {
		r.remember(pod)
		_ = m.AddNominatedPod(specPod(pod), mode, node)
		return ""
	})
}

// DeleteNominatedPodIfExists is recorded and checked, as a nomination to
// no node.
func (r *Recorder) DeleteNominatedPodIfExists(pod *v1.Pod) {
	if pod == nil {
		r.inner.DeleteNominatedPodIfExists(pod)
		return
	}
	op := schedqtest.Op{Kind: schedqtest.KindNominate, Pod: schedqtest.PodRef{Name: pod.Name}}
	r.call(&op, "DeleteNominatedPodIfExists "+pod.Name, func() string {
		r.inner.DeleteNominatedPodIfExists(pod)
		return ""
	}, func(m *model.Model) string {
		_ = m.AddNominatedPod(specPod(pod), spec.NominateOverride, "")
		return ""
	})
}

// UpdateNominatedPod is passed through (the scheduler does not call it
// in v1.33: the queue's Update re-nominates).
func (r *Recorder) UpdateNominatedPod(logger klog.Logger, oldPod *v1.Pod, newPodInfo nominatedInfo) {
	r.inner.UpdateNominatedPod(logger, oldPod, newPodInfo)
}

// nominatedPodsForNode is checked under the read lock (the scheduler's
// parallel Filter calls stay parallel); calls where both sides list
// nothing are counted, not kept. inner is the wrapped queue's
// NominatedPodsForNode (its signature is the release's).
func (r *Recorder) nominatedPodsForNode(node string, inner func(string) []nominatedInfo) []nominatedInfo {
	if r.conc != nil {
		return inner(node)
	}
	start := time.Now()
	r.mu.RLock()
	got := inner(node)
	if r.bad != nil {
		r.mu.RUnlock()
		return got
	}
	want := r.m.NominatedPodsForNode(node)
	r.mu.RUnlock()
	g := make([]string, 0, len(got))
	for _, p := range got {
		if pod := podOfInfo(p); pod != nil {
			g = append(g, pod.Namespace+"/"+pod.Name)
		}
	}
	w := make([]string, 0, len(want))
	for _, p := range want {
		w = append(w, string(p.Key()))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.bad != nil {
		return got
	}
	if len(g) == 0 && len(w) == 0 {
		r.reads++
		return got
	}
	r.record(schedqtest.Op{Kind: schedqtest.KindNominated, Node: node}, "NominatedPodsForNode "+node, fmt.Sprint(g), start)
	if !sameSet(g, w) {
		r.violate(fmt.Sprintf("NominatedPodsForNode %s: queue %v, model %v", node, g, w))
	} else {
		r.checked++
	}
	return got
}

// The debugging getters are the wrapped queue's.

func (r *Recorder) PendingPods() ([]*v1.Pod, string) { return r.inner.PendingPods() }
func (r *Recorder) InFlightPods() []*v1.Pod          { return r.inner.InFlightPods() }
func (r *Recorder) PodsInActiveQ() []*v1.Pod         { return r.inner.PodsInActiveQ() }
func (r *Recorder) PodsInBackoffQ() []*v1.Pod        { return r.inner.PodsInBackoffQ() }
func (r *Recorder) UnschedulablePods() []*v1.Pod     { return r.inner.UnschedulablePods() }

var _ upstreamQueue = (*Recorder)(nil)

// Describe says where the model holds pod key (its place and the fields
// that decide when it moves) and lists the last calls that named it,
// with every move in between: why a pod still waits at the end of a run.
func (r *Recorder) Describe(key string, last int) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	s := r.m.Snapshot()
	for _, pl := range s.Places() {
		for _, p := range pl.Pods {
			if string(p.Pod.Key()) == key {
				fmt.Fprintf(&b, "%s in %s: attempts %d, unschedulable plugins %v, pending %v, gating plugin %q, timestamp %v (model clock %v)\n",
					key, pl.Loc, p.Attempts, p.UnschedulablePlugins, p.PendingPlugins, p.GatingPlugin, p.Timestamp.Format("15:04:05.000"), s.Now.Format("15:04:05.000"))
			}
		}
	}
	var first int
	n := 0
	for i := len(r.ops) - 1; i >= 0; i-- {
		for _, k := range opKeys(r.ops[i].Op) {
			if string(k) == key {
				n++
				first = i
			}
		}
		if n >= last {
			break
		}
	}
	for _, o := range r.ops[first:] {
		ks := opKeys(o.Op)
		keep := o.Op.Kind == schedqtest.KindMove
		for _, k := range ks {
			keep = keep || string(k) == key
		}
		if keep {
			fmt.Fprintf(&b, "  %s\n", o)
		}
	}
	return b.String()
}
