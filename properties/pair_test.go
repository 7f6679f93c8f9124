package properties

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	testingclock "k8s.io/utils/clock/testing"
	"pgregory.net/rapid"

	"github.com/schedq/schedq/impl"
	"github.com/schedq/schedq/model"
	"github.com/schedq/schedq/spec"
)

// The differential harness. A pair is one implementation queue on a fake
// clock and one model, driven by the same operations. Every operation
// snapshots both queues before and after, and then checks, in this order:
//
//  1. the results agree: errors by errors.Is against every spec error
//     ("error mismatch"); for Pop, the pod is one of model.PopCandidates
//     and the returned info and cycle equal the model's ("Pop outcome");
//  2. spec.CheckStep holds on the model's step ("model I1".."model I6":
//     a bug in the oracle itself);
//  3. spec.CheckStep holds on the implementation's step ("I1".."I6");
//  4. the snapshots are equal ("snapshot diff", printed as
//     cmp.Diff(modelSnap, implSnap)).
//
// A failure message starts with CHECK[<name>], which TestMutantsAreCaught
// reads back to say which check caught a mutant.
//
// Choices come from a chooser, so the same operations serve the rapid state
// machine (choices drawn by rapid, which shrinks them towards 0: choice 0
// is always the plainest option) and the fuzz target (choices decoded from
// bytes). The periodic flushes are not started: both flushes are
// operations, so runs are reproducible.

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// registry is the spec harness's: NodeResourcesFit wakes on node adds and
// pod deletes or scale-downs, InterPodAffinity on pod adds and label
// updates, PodTopologySpread on any pod event, TaintToleration on node
// taint updates.
var registry = spec.PluginEvents{
	"NodeResourcesFit":  {{Resource: spec.ResourceNode, ActionType: spec.Add}, {Resource: spec.ResourcePod, ActionType: spec.Delete | spec.UpdatePodScaleDown}},
	"InterPodAffinity":  {{Resource: spec.ResourcePod, ActionType: spec.Add | spec.UpdatePodLabel}},
	"PodTopologySpread": {{Resource: spec.ResourcePod, ActionType: spec.All}},
	"TaintToleration":   {{Resource: spec.ResourceNode, ActionType: spec.UpdateNodeTaint}},
}

// rejectors are the plugins a failure may name. VolumeBinding registered no
// event: only a wildcard event requeues a pod it alone rejected.
var rejectors = []string{"NodeResourcesFit", "InterPodAffinity", spec.PluginPodTopologySpread, "TaintToleration", "VolumeBinding"}

// The pod universe: six keys, so that collisions, re-adds and pods
// deleted and recreated under the same name are common.
var (
	namespaces = []string{"ns-a", "ns-b"}
	podNames   = []string{"p0", "p1", "p2"}
	universe   = func() []spec.PodKey {
		var ks []spec.PodKey
		for _, ns := range namespaces {
			for _, n := range podNames {
				ks = append(ks, spec.PodKey(ns+"/"+n))
			}
		}
		return ks
	}()
	priorities = []int32{0, 10, 1}
	labelSets  = []map[string]string{nil, {"app": "web"}, {"app": "db"}}
	// affinitySets: none; app=web in the pod's own namespace; app=db in
	// ns-b; the empty selector (every pod of the own namespace).
	affinitySets = [][]spec.AffinityTerm{
		nil,
		{{MatchLabels: map[string]string{"app": "web"}}},
		{{Namespaces: []string{"ns-b"}, MatchLabels: map[string]string{"app": "db"}}},
		{{}},
	}
)

// events for MoveAllToActiveOrBackoffQueue: registered ones, ones no plugin
// registered for (no-ops), and the wildcards.
var events = []spec.ClusterEvent{
	{Resource: spec.ResourceNode, ActionType: spec.Add},
	{Resource: spec.ResourcePersistentVolume, ActionType: spec.Add}, // of no interest
	spec.WildCardEvent,
	{Resource: spec.ResourceNode, ActionType: spec.UpdateNodeTaint},
	{Resource: spec.ResourceNode, ActionType: spec.UpdateNodeLabel}, // of no interest
	{Resource: spec.ResourceAssignedPod, ActionType: spec.Delete},
	{Resource: spec.ResourceAssignedPod, ActionType: spec.Add},
	{Resource: spec.ResourceUnschedulablePod, ActionType: spec.UpdatePodLabel},
	{Resource: spec.ResourceStorageClass, ActionType: spec.Add}, // of no interest
	spec.EventUnschedulableTimeout,
	spec.EventForceActivate,
}

// preChecks for MoveAllToActiveOrBackoffQueue; each is a pure function of
// the pod, as the contract requires.
var preChecks = []struct {
	name string
	f    spec.PreEnqueueCheck
}{
	{"nil", nil},
	{"none", func(*spec.Pod) bool { return false }},
	{"ns-a only", func(p *spec.Pod) bool { return p.Namespace == "ns-a" }},
	{"priority>0", func(p *spec.Pod) bool { return p.Priority > 0 }},
	{"not p1", func(p *spec.Pod) bool { return p.Name != "p1" }},
	{"all", func(*spec.Pod) bool { return true }},
}

// attemptOverrides replace the Attempts a failed pod is handed back with:
// the scheduler owns the QueuedPodInfo, and large counts are where a
// backoff computed by shifting would overflow.
var attemptOverrides = []int{0, 2, 7, 33, 34, 35, 40, 62, 63, 64, 65, 100, 1 << 30}

// configs the runs draw from: the defaults first.
var configs = []struct {
	initial, max, leftover time.Duration
}{
	{time.Second, 10 * time.Second, 5 * time.Minute},
	{time.Millisecond, 8 * time.Millisecond, 5 * time.Minute},
	{time.Second, time.Second, 2 * time.Second},
	{3 * time.Nanosecond, time.Hour, 5 * time.Minute},
}

// chooser makes the harness's choices: choose returns a value in [0, n).
type chooser interface {
	choose(n int, label string) int
}

// rapidChooser draws choices with rapid, which logs them and shrinks them.
type rapidChooser struct{ t *rapid.T }

func (c rapidChooser) choose(n int, label string) int {
	if n <= 1 {
		return 0
	}
	return rapid.IntRange(0, n-1).Draw(c.t, label)
}

// byteChooser decodes choices from fuzz input, one byte each; once the
// input is used up every choice is 0.
type byteChooser struct {
	data []byte
	pos  int
}

func (c *byteChooser) choose(n int, _ string) int {
	if c.pos >= len(c.data) {
		return 0
	}
	b := c.data[c.pos]
	c.pos++
	if n <= 1 {
		return 0
	}
	return int(b) % n
}

func (c *byteChooser) exhausted() bool { return c.pos >= len(c.data) }

func pick[T any](c chooser, label string, xs []T) T { return xs[c.choose(len(xs), label)] }

// reporter is what the harness needs of *testing.T and *rapid.T.
type reporter interface {
	Helper()
	Fatalf(format string, args ...any)
	Logf(format string, args ...any)
}

func drawConfig(c chooser) spec.Config {
	cfg := spec.DefaultConfig(registry)
	k := pick(c, "config", configs)
	cfg.PodInitialBackoffDuration, cfg.PodMaxBackoffDuration = k.initial, k.max
	cfg.PodMaxInUnschedulablePodsDuration = k.leftover
	return cfg
}

type pair struct {
	r   reporter
	cfg spec.Config
	clk *testingclock.FakeClock
	q   *impl.PriorityQueue
	m   *model.Model
	// popped is what Pop returned for each key, latest first: the
	// QueuedPodInfo and cycle a scheduler would hand back on failure. It
	// outlives the pod's time in flight, so stale hand-backs can be made.
	popped map[spec.PodKey]poppedPod
	// steps counts operations; desc describes the current one.
	steps int
	desc  string
}

type poppedPod struct {
	info  spec.QueuedPodInfo
	cycle int64
}

func newPair(r reporter, cfg spec.Config) *pair {
	r.Helper()
	clk := testingclock.NewFakeClock(t0)
	q, err := impl.New(cfg, impl.WithClock(clk))
	if err != nil {
		r.Fatalf("impl.New: %v", err)
	}
	m, err := model.New(cfg, t0)
	if err != nil {
		r.Fatalf("model.New: %v", err)
	}
	return &pair{r: r, cfg: cfg, clk: clk, q: q, m: m, popped: make(map[spec.PodKey]poppedPod)}
}

func (p *pair) close() { p.q.Close() }

// begin logs the operation about to run. Logf is cheap under rapid except
// when the failing case is replayed, which is when the log is wanted.
func (p *pair) begin(format string, args ...any) {
	p.steps++
	p.desc = fmt.Sprintf(format, args...)
	p.r.Logf("#%d %s", p.steps, p.desc)
}

func (p *pair) fail(check, format string, args ...any) {
	p.r.Helper()
	p.r.Fatalf("CHECK[%s] at step #%d %s: %s\nmodel before the failing check:\n%s",
		check, p.steps, p.desc, fmt.Sprintf(format, args...), p.modelString())
}

func (p *pair) modelString() string {
	return strings.TrimRight(p.m.String(), "\n")
}

var specErrors = []error{spec.ErrNilPod, spec.ErrInvalidPod, spec.ErrAlreadyQueued, spec.ErrPodNotFound,
	spec.ErrNotInFlight, spec.ErrClosed, spec.ErrWouldBlock, spec.ErrInvalidConfig}

// sameErr reports whether two errors agree: both nil, or both failing and
// the same under errors.Is for every spec error.
func sameErr(a, b error) bool {
	if (a == nil) != (b == nil) {
		return false
	}
	for _, e := range specErrors {
		if errors.Is(a, e) != errors.Is(b, e) {
			return false
		}
	}
	return true
}

// firstInvariant names the first broken invariant in err (from
// spec.CheckStep, possibly joined).
func firstInvariant(err error) string {
	var ie *spec.InvariantError
	if errors.As(err, &ie) {
		return ie.Invariant
	}
	return "invariant"
}

// do runs one operation on both queues and checks the step.
func (p *pair) do(st spec.Step, onModel, onImpl func() error) {
	p.r.Helper()
	mb, ib := p.m.Snapshot(), p.q.Snapshot()
	me := onModel()
	ie := onImpl()
	p.check(st, &mb, &ib, me, ie)
}

func (p *pair) check(st spec.Step, mb, ib *spec.Snapshot, me, ie error) {
	p.r.Helper()
	ma, ia := p.m.Snapshot(), p.q.Snapshot()
	if !sameErr(me, ie) {
		p.fail("error mismatch", "model returned %v, impl returned %v", me, ie)
	}
	st.Err = me
	if err := spec.CheckStep(p.cfg, mb, &ma, st); err != nil {
		p.fail("model "+firstInvariant(err), "%v\nmodel before -> after:\n%s", err, cmp.Diff(*mb, ma, cmpopts.EquateEmpty()))
	}
	st.Err = ie
	if err := spec.CheckStep(p.cfg, ib, &ia, st); err != nil {
		p.fail(firstInvariant(err), "%v\nimpl before -> after:\n%s", err, cmp.Diff(*ib, ia, cmpopts.EquateEmpty()))
	}
	if d := ma.Diff(&ia); d != "" {
		p.fail("snapshot diff", "%s(-model +impl):\n%s", d, cmp.Diff(ma, ia, cmpopts.EquateEmpty()))
	}
}

// --- choosing pods ---

func splitKey(k spec.PodKey) (ns, name string) {
	ns, name, _ = strings.Cut(string(k), "/")
	return ns, name
}

// genPod makes a pod with this key; its UID is one of two generations, so a
// recreated pod may or may not keep its UID. UIDs embed the key: two keys
// never share one.
func genPod(c chooser, k spec.PodKey) *spec.Pod {
	ns, name := splitKey(k)
	return &spec.Pod{
		Namespace:             ns,
		Name:                  name,
		UID:                   spec.UID(fmt.Sprintf("uid-%s-%s-%d", ns, name, c.choose(2, "uid generation"))),
		Priority:              pick(c, "priority", priorities),
		Labels:                pick(c, "labels", labelSets),
		RequiredAffinityTerms: pick(c, "affinity", affinitySets),
	}
}

func (p *pair) pickKey(c chooser) spec.PodKey { return pick(c, "pod", universe) }

// heldPod returns the pod object the model holds under k, or nil.
func (p *pair) heldPod(k spec.PodKey) *spec.Pod {
	s := p.m.Snapshot()
	if loc, info := s.Find(k); loc != spec.Nowhere {
		return info.Pod
	}
	return nil
}

// podFor returns the held pod object for k (the common case) or a freshly
// generated one with the same key.
func (p *pair) podFor(c chooser, k spec.PodKey) *spec.Pod {
	if held := p.heldPod(k); held != nil && c.choose(2, "fresh object") == 0 {
		return held
	}
	return genPod(c, k)
}

func keyOf(pod *spec.Pod) spec.PodKey {
	if pod == nil {
		return ""
	}
	return pod.Key()
}

// --- the operations; each returns false, before making any choice, when
// it does not apply to the current state ---

type action struct {
	name string
	run  func(p *pair, c chooser) bool
}

// actions is the operation alphabet, shared by the rapid state machine and
// the fuzz target (which indexes it, so append only).
var actions = []action{
	{"Add", (*pair).opAdd},
	{"Pop", (*pair).opPop},
	{"PopAndFail", (*pair).opPopAndFail},
	{"AddUnschedulable", (*pair).opAddUnschedulable},
	{"MoveAll", (*pair).opMoveAll},
	{"Activate", (*pair).opActivate},
	{"Update", (*pair).opUpdate},
	{"Delete", (*pair).opDelete},
	{"Done", (*pair).opDone},
	{"AssignedPod", (*pair).opAssignedPod},
	{"Tick", (*pair).opTick},
	{"Flush", (*pair).opFlush},
	{"Misuse", (*pair).opMisuse},
}

// rapidActions binds the alphabet to one pair for t.Repeat.
func (p *pair) rapidActions(t *rapid.T) map[string]func(*rapid.T) {
	m := make(map[string]func(*rapid.T), len(actions))
	for _, a := range actions {
		m[a.name] = func(t *rapid.T) {
			if !a.run(p, rapidChooser{t}) {
				t.Skip("does not apply")
			}
		}
	}
	return m
}

func (p *pair) opAdd(c chooser) bool {
	k := p.pickKey(c)
	pod := p.podFor(c, k)
	p.begin("Add(%s uid=%s prio=%d)", k, pod.UID, pod.Priority)
	p.do(spec.Step{Rule: spec.R1Add, Pod: k}, func() error { return p.m.Add(pod) }, func() error { return p.q.Add(pod) })
	return true
}

// popTimeout bounds a Pop the model says cannot block. Only a broken
// implementation (an activeQ heap out of step with its index) waits that
// long; the goroutine is released by Close.
const popTimeout = 10 * time.Second

type popResult struct {
	info  *spec.QueuedPodInfo
	cycle int64
	err   error
}

func (p *pair) canPop() bool { return p.m.Closed() || len(p.m.PopCandidates()) > 0 }

func (p *pair) opPop(chooser) bool {
	if !p.canPop() {
		return false
	}
	p.pop()
	return true
}

// pop pops from both queues; the implementation may return any pod the
// model allows, and the model then pops that one.
func (p *pair) pop() (key spec.PodKey, ok bool) {
	p.r.Helper()
	p.begin("Pop() candidates=%v", p.m.PopCandidates())
	mb, ib := p.m.Snapshot(), p.q.Snapshot()
	ch := make(chan popResult, 1)
	go func() {
		info, cycle, err := p.q.Pop()
		ch <- popResult{info, cycle, err}
	}()
	timer := time.NewTimer(popTimeout)
	var got popResult
	select {
	case got = <-ch:
		timer.Stop()
	case <-timer.C:
		p.fail("Pop blocked", "impl Pop blocked for %v although the model's activeQ holds %v", popTimeout, p.m.PopCandidates())
	}
	if p.m.Closed() {
		_, _, me := p.m.Pop()
		p.check(spec.Step{Rule: spec.R2Pop}, &mb, &ib, me, got.err)
		return "", false
	}
	if got.err != nil {
		p.fail("error mismatch", "impl Pop returned %v; the model would pop one of %v", got.err, p.m.PopCandidates())
	}
	key = got.info.Key()
	st := spec.Step{Rule: spec.R2Pop, Pod: key}
	if !slices.Contains(p.m.PopCandidates(), key) {
		// A more specific name if the implementation's own step breaks an
		// invariant (I5: not maximal, I4: not from activeQ).
		ia := p.q.Snapshot()
		if err := spec.CheckStep(p.cfg, &ib, &ia, st); err != nil {
			p.fail(firstInvariant(err), "impl Pop returned %s; the model allows %v: %v", key, p.m.PopCandidates(), err)
		}
		p.fail("Pop outcome", "impl Pop returned %s; the model allows %v", key, p.m.PopCandidates())
	}
	mi, mc, me := p.m.PopPod(key)
	if me != nil {
		p.fail("model", "PopPod(%s): %v", key, me)
	}
	p.check(st, &mb, &ib, nil, nil)
	if mc != got.cycle || !infoEqual(mi, got.info) {
		p.fail("Pop outcome", "impl Pop returned %+v cycle %d; the model returns %+v cycle %d", *got.info, got.cycle, *mi, mc)
	}
	p.popped[key] = poppedPod{info: *got.info, cycle: got.cycle}
	return key, true
}

func infoEqual(a, b *spec.QueuedPodInfo) bool {
	return spec.PodsEqual(a.Pod, b.Pod) && a.Timestamp.Equal(b.Timestamp) && a.Attempts == b.Attempts &&
		slices.Equal(a.UnschedulablePlugins, b.UnschedulablePlugins) &&
		a.InitialAttemptTimestamp.Equal(b.InitialAttemptTimestamp)
}

// opPopAndFail is one scheduling attempt that fails: Pop, then hand the pod
// back with its own cycle. The common path through R3, so it gets its own
// action.
func (p *pair) opPopAndFail(c chooser) bool {
	if !p.canPop() {
		return false
	}
	k, ok := p.pop()
	if !ok {
		return true
	}
	rec := p.popped[k]
	p.addUnschedulable(c, rec.info, rec.cycle)
	return true
}

// opAddUnschedulable hands back a pod in flight, or a stale record of one
// that is queued again (ErrAlreadyQueued) or gone (re-added as upstream
// does), with its own cycle, a stale one or a later one.
func (p *pair) opAddUnschedulable(c chooser) bool {
	inFlight := p.m.Snapshot().InFlight
	stale := slices.Sorted(func(yield func(spec.PodKey) bool) {
		for k := range p.popped {
			if !yield(k) {
				return
			}
		}
	})
	if len(inFlight)+len(stale) == 0 {
		return false
	}
	var rec poppedPod
	if i := c.choose(len(inFlight)+len(stale), "hand back"); i < len(inFlight) {
		rec = p.popped[inFlight[i].Key()]
	} else {
		rec = p.popped[stale[i-len(inFlight)]]
	}
	cycle := rec.cycle
	switch c.choose(6, "cycle") {
	case 1:
		cycle--
	case 2:
		cycle -= 3
	case 3:
		cycle = 0
	case 4:
		cycle = p.m.SchedulingCycle()
	case 5:
		cycle = p.m.SchedulingCycle() + 1
	}
	p.addUnschedulable(c, rec.info, cycle)
	return true
}

// addUnschedulable hands info back as R3 with a random set of rejecting
// plugins (empty included, passed unsorted and with a duplicate so both
// queues must normalise it) and, sometimes, a different Attempts.
func (p *pair) addUnschedulable(c chooser, info spec.QueuedPodInfo, cycle int64) {
	// No rejecting plugin is a case of its own (R3: always backoffQ), so
	// it gets a third of the draws rather than 1 in 32.
	mask := 0
	if c.choose(3, "rejected by plugins") > 0 {
		mask = 1 + c.choose(1<<len(rejectors)-1, "rejecting plugins")
	}
	var plugins []string
	for i := len(rejectors) - 1; i >= 0; i-- {
		if mask&(1<<i) != 0 {
			plugins = append(plugins, rejectors[i])
		}
	}
	if len(plugins) > 0 {
		plugins = append(plugins, plugins[0])
	}
	if c.choose(3, "override attempts") == 2 {
		info.Attempts = pick(c, "attempts", attemptOverrides)
	}
	k := info.Key()
	p.begin("AddUnschedulableIfNotPresent(%s attempts=%d plugins=%v, cycle=%d)", k, info.Attempts, plugins, cycle)
	mi, ii := info, info
	mi.UnschedulablePlugins = slices.Clone(plugins)
	ii.UnschedulablePlugins = slices.Clone(plugins)
	p.do(spec.Step{Rule: spec.R3AddUnschedulable, Pod: k, PodSchedulingCycle: cycle},
		func() error { return p.m.AddUnschedulableIfNotPresent(&mi, cycle) },
		func() error { return p.q.AddUnschedulableIfNotPresent(&ii, cycle) })
}

func (p *pair) opMoveAll(c chooser) bool {
	e := pick(c, "event", events)
	pre := pick(c, "preCheck", preChecks)
	p.begin("MoveAllToActiveOrBackoffQueue(%s, preCheck=%s)", e, pre.name)
	p.do(spec.Step{Rule: spec.R4MoveAll},
		func() error { p.m.MoveAllToActiveOrBackoffQueue(e, pre.f); return nil },
		func() error { p.q.MoveAllToActiveOrBackoffQueue(e, pre.f); return nil })
	return true
}

func (p *pair) opActivate(c chooser) bool {
	n := c.choose(4, "activate count")
	pods := make([]*spec.Pod, n)
	ks := make([]spec.PodKey, n)
	for i := range pods {
		ks[i] = p.pickKey(c)
		pods[i] = p.podFor(c, ks[i])
	}
	p.begin("Activate(%v)", ks)
	p.do(spec.Step{Rule: spec.R8Activate},
		func() error { return p.m.Activate(pods) }, func() error { return p.q.Activate(pods) })
	return true
}

func (p *pair) opUpdate(c chooser) bool {
	k := p.pickKey(c)
	old := p.podFor(c, k)
	oldDesc := "held object"
	if old != p.heldPod(k) {
		oldDesc = fmt.Sprintf("other object prio=%d", old.Priority)
	}
	np := *old
	change := "none"
	switch c.choose(8, "update") {
	case 1:
		np.ResourceVersion, change = old.ResourceVersion+"1", "resourceVersion (irrelevant)"
	case 2:
		np.Status, change = old.Status+"x", "status (irrelevant)"
	case 3:
		np.Priority, change = pick(c, "new priority", priorities), "priority"
	case 4:
		np.Labels, change = pick(c, "new labels", labelSets), "labels"
	case 5:
		np.RequiredAffinityTerms, change = pick(c, "new affinity", affinitySets), "affinity"
	case 6:
		np.UID, change = old.UID+"-new", "uid"
	case 7:
		np, change = *genPod(c, k), "regenerated"
	}
	p.begin("Update(%s, old=%s, change=%s, relevant=%v, new prio=%d uid=%s)", k, oldDesc, change, spec.IsPodUpdated(old, &np), np.Priority, np.UID)
	p.do(spec.Step{Rule: spec.R9Update, Pod: k},
		func() error { return p.m.Update(old, &np) }, func() error { return p.q.Update(old, &np) })
	return true
}

func (p *pair) opDelete(c chooser) bool {
	k := p.pickKey(c)
	pod := p.podFor(c, k)
	p.begin("Delete(%s)", k)
	p.do(spec.Step{Rule: spec.R10Delete, Pod: k},
		func() error { return p.m.Delete(pod) }, func() error { return p.q.Delete(pod) })
	return true
}

// opDone ends a pod's time in flight, or names a queued pod's UID or an
// unknown UID (both ErrNotInFlight).
func (p *pair) opDone(c chooser) bool {
	s := p.m.Snapshot()
	var uid spec.UID = "uid-ghost"
	var k spec.PodKey
	i := c.choose(len(s.InFlight)+2, "done")
	switch {
	case i < len(s.InFlight):
		uid, k = s.InFlight[i].Pod.UID, s.InFlight[i].Key()
	case i == len(s.InFlight):
		queued := slices.Concat(s.ActiveQ, s.BackoffQ, s.UnschedulablePods)
		if len(queued) > 0 {
			q := pick(c, "queued pod", queued)
			uid, k = q.Pod.UID, q.Key()
		}
	}
	p.begin("Done(%s) of %q", uid, k)
	p.do(spec.Step{Rule: spec.R12Done, Pod: k},
		func() error { return p.m.Done(uid) }, func() error { return p.q.Done(uid) })
	return true
}

var assignedUpdateEvents = []spec.ClusterEvent{
	spec.EventAssignedPodUpdate,
	{Resource: spec.ResourceAssignedPod, ActionType: spec.UpdatePodScaleDown},
	{Resource: spec.ResourceAssignedPod, ActionType: spec.UpdatePodLabel},
	{Resource: spec.ResourcePersistentVolume, ActionType: spec.Add}, // of no interest
}

// opAssignedPod is R11: a pod bound elsewhere appears or changes; its
// namespace and labels match some parked pods' affinity terms or not.
func (p *pair) opAssignedPod(c chooser) bool {
	assigned := &spec.Pod{
		Namespace: pick(c, "assigned namespace", []string{"ns-a", "ns-b", "ns-c"}),
		Name:      "assigned", UID: "uid-assigned",
		Labels: pick(c, "assigned labels", labelSets),
	}
	if c.choose(2, "added or updated") == 0 {
		p.begin("AssignedPodAdded(%s labels=%v)", assigned.Key(), assigned.Labels)
		p.do(spec.Step{Rule: spec.R11AssignedPod},
			func() error { return p.m.AssignedPodAdded(assigned) }, func() error { return p.q.AssignedPodAdded(assigned) })
		return true
	}
	e := pick(c, "assigned event", assignedUpdateEvents)
	var old *spec.Pod
	if c.choose(2, "old assigned") == 1 {
		o := *assigned
		o.Labels = nil
		old = &o
	}
	p.begin("AssignedPodUpdated(%s labels=%v, %s)", assigned.Key(), assigned.Labels, e)
	p.do(spec.Step{Rule: spec.R11AssignedPod},
		func() error { return p.m.AssignedPodUpdated(old, assigned, e) },
		func() error { return p.q.AssignedPodUpdated(old, assigned, e) })
	return true
}

var tickDurations = []time.Duration{0, time.Nanosecond, time.Millisecond, 500 * time.Millisecond,
	time.Second, 2 * time.Second, 10 * time.Second, 30 * time.Second, 5 * time.Minute, 5*time.Minute + 30*time.Second}

// opTick advances both clocks: by a fixed amount, or to just before,
// exactly at or just after a backoffQ pod's expiry, or to the
// unschedulable limit of a parked pod (exactly, just after, or one leftover
// flush period after).
func (p *pair) opTick(c chooser) bool {
	s := p.m.Snapshot()
	now := s.Now
	var d time.Duration
	switch c.choose(3, "tick kind") {
	case 0:
		d = pick(c, "duration", tickDurations)
	case 1:
		if len(s.BackoffQ) > 0 {
			b := pick(c, "backoff pod", s.BackoffQ)
			off := time.Duration(c.choose(3, "around expiry") - 1)
			if exp := p.cfg.BackoffExpiry(&b); exp.After(now) {
				d = exp.Sub(now) + off
			}
		}
	case 2:
		if len(s.UnschedulablePods) > 0 {
			u := pick(c, "unschedulable pod", s.UnschedulablePods)
			off := []time.Duration{0, time.Nanosecond, p.cfg.UnschedulablePodsFlushPeriod}[c.choose(3, "around limit")]
			d = u.Timestamp.Add(p.cfg.PodMaxInUnschedulablePodsDuration + off).Sub(now)
		}
	}
	d = max(d, 0)
	p.begin("Tick(%v)", d)
	p.do(spec.Step{Rule: spec.RTick},
		func() error { return p.m.Step(d) }, func() error { p.clk.Step(d); return nil })
	// Time passing is when the periodic flushes run: often flush right
	// away, at the instant the tick aimed for.
	switch c.choose(3, "flush after tick") {
	case 1:
		p.flushBackoffQ()
	case 2:
		p.flushLeftover()
	}
	return true
}

func (p *pair) opFlush(c chooser) bool {
	if c.choose(2, "flush") == 0 {
		p.flushBackoffQ()
	} else {
		p.flushLeftover()
	}
	return true
}

func (p *pair) flushBackoffQ() {
	p.begin("flushBackoffQCompleted()")
	p.do(spec.Step{Rule: spec.R5FlushBackoffQ},
		func() error { p.m.FlushBackoffQCompleted(); return nil },
		func() error { p.q.FlushBackoffQCompleted(); return nil })
}

func (p *pair) flushLeftover() {
	p.begin("flushUnschedulablePodsLeftover()")
	p.do(spec.Step{Rule: spec.R6FlushUnschedulable},
		func() error { p.m.FlushUnschedulablePodsLeftover(); return nil },
		func() error { p.q.FlushUnschedulablePodsLeftover(); return nil })
}

// opMisuse is bad input: each must fail the same way on both queues and
// change nothing (I4 checks the latter). Close is here too: rare, and
// every later Pop must return ErrClosed on both.
func (p *pair) opMisuse(c chooser) bool {
	k := p.pickKey(c)
	held := p.podFor(c, k)
	ns, name := splitKey(k)
	// twin has k's key and the UID of a pod held under another key, if
	// there is one: a UID names one pod, so this is ErrAlreadyQueued.
	twin := &spec.Pod{Namespace: ns, Name: name, UID: "uid-unheld-twin"}
	var others []spec.UID
	s := p.m.Snapshot()
	for _, pl := range s.Places() {
		for _, o := range pl.Pods {
			if o.Key() != k {
				others = append(others, o.Pod.UID)
			}
		}
	}
	if len(others) > 0 {
		slices.Sort(others)
		twin.UID = pick(c, "twin uid", others)
	}
	type misuse struct {
		name string
		rule spec.Rule
		op   func(q spec.Queue) error
	}
	ms := []misuse{
		{"Add(nil)", spec.R1Add, func(q spec.Queue) error { return q.Add(nil) }},
		{"Add(no UID)", spec.R1Add, func(q spec.Queue) error { return q.Add(&spec.Pod{Namespace: ns, Name: name}) }},
		{"Add(no name)", spec.R1Add, func(q spec.Queue) error { return q.Add(&spec.Pod{Namespace: ns, UID: "uid-x"}) }},
		{"Add(name with a slash)", spec.R1Add, func(q spec.Queue) error { return q.Add(&spec.Pod{Namespace: ns, Name: name + "/x", UID: "uid-x"}) }},
		{"Add(UID of another held pod)", spec.R1Add, func(q spec.Queue) error { return q.Add(twin) }},
		{"Update(pod, pod with the UID of another held pod)", spec.R9Update, func(q spec.Queue) error { return q.Update(held, twin) }},
		{"AddUnschedulableIfNotPresent(UID of another held pod)", spec.R3AddUnschedulable, func(q spec.Queue) error {
			return q.AddUnschedulableIfNotPresent(&spec.QueuedPodInfo{Pod: twin, Attempts: 1}, 1)
		}},
		{"AddUnschedulableIfNotPresent(nil)", spec.R3AddUnschedulable, func(q spec.Queue) error { return q.AddUnschedulableIfNotPresent(nil, 1) }},
		{"AddUnschedulableIfNotPresent(nil pod)", spec.R3AddUnschedulable, func(q spec.Queue) error {
			return q.AddUnschedulableIfNotPresent(&spec.QueuedPodInfo{}, 1)
		}},
		{"AddUnschedulableIfNotPresent(attempts -1)", spec.R3AddUnschedulable, func(q spec.Queue) error {
			return q.AddUnschedulableIfNotPresent(&spec.QueuedPodInfo{Pod: held, Attempts: -1}, 1)
		}},
		{"Activate([pod, nil])", spec.R8Activate, func(q spec.Queue) error { return q.Activate([]*spec.Pod{held, nil}) }},
		{"Update(nil, pod)", spec.R9Update, func(q spec.Queue) error { return q.Update(nil, held) }},
		{"Update(pod, nil)", spec.R9Update, func(q spec.Queue) error { return q.Update(held, nil) }},
		{"Update changing the key", spec.R9Update, func(q spec.Queue) error {
			other := *held
			other.Name += "-renamed"
			return q.Update(held, &other)
		}},
		{"Delete(nil)", spec.R10Delete, func(q spec.Queue) error { return q.Delete(nil) }},
		{"Delete(no UID)", spec.R10Delete, func(q spec.Queue) error { return q.Delete(&spec.Pod{Namespace: ns, Name: name}) }},
		{"Done(unknown UID)", spec.R12Done, func(q spec.Queue) error { return q.Done("uid-ghost") }},
		{"Done(\"\")", spec.R12Done, func(q spec.Queue) error { return q.Done("") }},
		{"AssignedPodAdded(nil)", spec.R11AssignedPod, func(q spec.Queue) error { return q.AssignedPodAdded(nil) }},
		{"AssignedPodUpdated(nil, nil)", spec.R11AssignedPod, func(q spec.Queue) error {
			return q.AssignedPodUpdated(nil, nil, spec.EventAssignedPodUpdate)
		}},
		{"Close()", spec.R13Close, func(q spec.Queue) error { q.Close(); return nil }},
	}
	m := pick(c, "misuse", ms)
	p.begin("%s [bad input, key %s, twin uid %s]", m.name, k, twin.UID)
	p.do(spec.Step{Rule: m.rule, Pod: k}, func() error { return m.op(p.m) }, func() error { return m.op(p.q) })
	return true
}
