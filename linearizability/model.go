package linearizability

import (
	"errors"
	"fmt"
	"html"
	"slices"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/schedq/schedq/model"
	"github.com/schedq/schedq/spec"
)

// Kind names a queue operation as it appears in a history.
type Kind int

// The operations a history holds. Step is a clock step: the fake clock the
// queue reads moves forward by Input.D.
const (
	Add Kind = iota
	Pop
	AddUnschedulable
	MoveAll
	FlushBackoffQ
	FlushLeftover
	Activate
	Update
	Delete
	AssignedPodAdded
	AssignedPodUpdated
	Done
	Step
	Snapshot
	SchedulingCycle
	Close
)

var kindNames = [...]string{
	Add: "Add", Pop: "Pop", AddUnschedulable: "AddUnschedulable", MoveAll: "MoveAll",
	FlushBackoffQ: "FlushBackoffQ", FlushLeftover: "FlushLeftover", Activate: "Activate",
	Update: "Update", Delete: "Delete", AssignedPodAdded: "AssignedPodAdded",
	AssignedPodUpdated: "AssignedPodUpdated", Done: "Done", Step: "Step",
	Snapshot: "Snapshot", SchedulingCycle: "SchedulingCycle", Close: "Close",
}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// PreCheck is a named spec.PreEnqueueCheck, so a history can say which one a
// move request used. Fn must be a pure function of the pod.
type PreCheck struct {
	Name string
	Fn   spec.PreEnqueueCheck
}

// Input is one operation's call: the kind and its arguments. Fields an
// operation does not take are zero.
type Input struct {
	Kind Kind
	// Pod is the pod of Add, Delete, AssignedPodAdded, and the new pod of
	// Update and AssignedPodUpdated.
	Pod *spec.Pod
	// OldPod is the old pod of Update and AssignedPodUpdated.
	OldPod *spec.Pod
	// Pods are the pods of Activate.
	Pods []*spec.Pod
	// Info and Cycle are the arguments of AddUnschedulableIfNotPresent.
	Info  *spec.QueuedPodInfo
	Cycle int64
	// Event is the event of MoveAll and AssignedPodUpdated.
	Event spec.ClusterEvent
	// PreCheck is MoveAll's filter; a nil Fn lets every pod through.
	PreCheck PreCheck
	// UID is the argument of Done.
	UID spec.UID
	// D is the clock step of Step.
	D time.Duration
}

// Output is what an operation returned.
type Output struct {
	// Err is the error the operation returned.
	Err error
	// Info and Cycle are what Pop returned (Info is a copy taken at
	// return); Cycle is also SchedulingCycle's result.
	Info  *spec.QueuedPodInfo
	Cycle int64
	// Snapshot is what Snapshot returned.
	Snapshot *spec.Snapshot
}

// sentinels are the errors an operation may return, by errors.Is.
var sentinels = []error{
	spec.ErrNilPod, spec.ErrInvalidPod, spec.ErrAlreadyQueued, spec.ErrPodNotFound,
	spec.ErrNotInFlight, spec.ErrClosed, spec.ErrWouldBlock, spec.ErrInvalidConfig,
}

// sameErr reports whether got is the error the model gave, want: both nil,
// or both matching the same sentinel under errors.Is.
func sameErr(got, want error) bool {
	if got == nil || want == nil {
		return got == nil && want == nil
	}
	for _, s := range sentinels {
		if errors.Is(want, s) {
			return errors.Is(got, s)
		}
	}
	return false
}

// Apply replays one operation on m (which it changes) and reports whether
// out is an output the model allows for it. It is Model's Step without the
// clone.
func Apply(m *model.Model, in Input, out Output) bool {
	switch in.Kind {
	case Add:
		return sameErr(out.Err, m.Add(in.Pod))
	case Pop:
		if out.Err != nil {
			// A Pop fails only by finding the queue closed (R13). The
			// model's own Pop cannot wait, so a Pop that waited and then
			// saw Close linearizes at a point where the model is closed.
			return errors.Is(out.Err, spec.ErrClosed) && m.Closed()
		}
		if out.Info == nil || out.Info.Pod == nil {
			return false
		}
		// PopPod refuses a pod that is not among PopCandidates, which
		// includes every pod when activeQ is empty, and any pod once
		// closed.
		got, cycle, err := m.PopPod(out.Info.Key())
		return err == nil && cycle == out.Cycle && infoEqual(got, out.Info)
	case AddUnschedulable:
		return sameErr(out.Err, m.AddUnschedulableIfNotPresent(in.Info, in.Cycle))
	case MoveAll:
		m.MoveAllToActiveOrBackoffQueue(in.Event, in.PreCheck.Fn)
		return out.Err == nil
	case FlushBackoffQ:
		m.FlushBackoffQCompleted()
		return out.Err == nil
	case FlushLeftover:
		m.FlushUnschedulablePodsLeftover()
		return out.Err == nil
	case Activate:
		return sameErr(out.Err, m.Activate(in.Pods))
	case Update:
		return sameErr(out.Err, m.Update(in.OldPod, in.Pod))
	case Delete:
		return sameErr(out.Err, m.Delete(in.Pod))
	case AssignedPodAdded:
		return sameErr(out.Err, m.AssignedPodAdded(in.Pod))
	case AssignedPodUpdated:
		return sameErr(out.Err, m.AssignedPodUpdated(in.OldPod, in.Pod, in.Event))
	case Done:
		return sameErr(out.Err, m.Done(in.UID))
	case Step:
		return m.Step(in.D) == nil && out.Err == nil
	case Snapshot:
		if out.Snapshot == nil {
			return false
		}
		s := m.Snapshot()
		return s.Diff(out.Snapshot) == ""
	case SchedulingCycle:
		return m.SchedulingCycle() == out.Cycle
	case Close:
		m.Close()
		return out.Err == nil
	}
	return false
}

// Explain says why the model rejects out for in on m (which it changes),
// or returns "" if it accepts it.
func Explain(m *model.Model, in Input, out Output) string {
	before := m.Clone()
	if Apply(m, in, out) {
		return ""
	}
	switch in.Kind {
	case Pop:
		switch {
		case out.Err != nil && !before.Closed():
			return fmt.Sprintf("Pop returned %v but the queue is not closed", errName(out.Err))
		case out.Err != nil:
			return fmt.Sprintf("Pop returned %v", out.Err)
		case before.Closed():
			return "the queue is closed: Pop must return ErrClosed"
		case len(before.PopCandidates()) == 0:
			return "activeQ is empty"
		}
		c := before.PopCandidates()
		if !slices.Contains(c, out.Info.Key()) {
			return fmt.Sprintf("Pop may return only %v", c)
		}
		s := before.Snapshot()
		_, info := s.Find(out.Info.Key())
		info.Attempts++
		info.UnschedulablePlugins = nil
		d := describer{start: Start}
		return fmt.Sprintf("the model pops %s at cycle %d, the queue said %s at cycle %d",
			d.info(&info, spec.InFlight, nil), before.SchedulingCycle()+1, d.info(out.Info, spec.InFlight, nil), out.Cycle)
	case Snapshot:
		s := before.Snapshot()
		if out.Snapshot == nil {
			return "no snapshot"
		}
		return "the snapshot differs from the model's (model vs queue):\n        " + strings.ReplaceAll(strings.TrimSpace(s.Diff(out.Snapshot)), "\n", "\n        ")
	case SchedulingCycle:
		return fmt.Sprintf("schedulingCycle is %d, the queue said %d", before.SchedulingCycle(), out.Cycle)
	}
	var want error
	switch c := before.Clone(); in.Kind {
	case Add:
		want = c.Add(in.Pod)
	case AddUnschedulable:
		want = c.AddUnschedulableIfNotPresent(in.Info, in.Cycle)
	case Activate:
		want = c.Activate(in.Pods)
	case Update:
		want = c.Update(in.OldPod, in.Pod)
	case Delete:
		want = c.Delete(in.Pod)
	case AssignedPodAdded:
		want = c.AssignedPodAdded(in.Pod)
	case AssignedPodUpdated:
		want = c.AssignedPodUpdated(in.OldPod, in.Pod, in.Event)
	case Done:
		want = c.Done(in.UID)
	}
	return fmt.Sprintf("the model returns %s, the queue returned %s", errName(want), errName(out.Err))
}

func infoEqual(a, b *spec.QueuedPodInfo) bool {
	return spec.PodsEqual(a.Pod, b.Pod) && a.Timestamp.Equal(b.Timestamp) && a.Attempts == b.Attempts &&
		slices.Equal(a.UnschedulablePlugins, b.UnschedulablePlugins) &&
		a.InitialAttemptTimestamp.Equal(b.InitialAttemptTimestamp)
}

// State is the porcupine state: the model, and a hash of everything Equal
// compares, computed once when the state is made. Without it the checker's
// cache of visited states degenerates into long runs of Equal calls on
// states that differ only in a Timestamp.
type State struct {
	Model *model.Model
	hash  uint64
}

func newState(m *model.Model) *State {
	s := m.Snapshot()
	h := uint64(14695981039346656037)
	mix := func(v uint64) { h = (h ^ v) * 1099511628211 }
	mixString := func(str string) {
		for i := 0; i < len(str); i++ {
			mix(uint64(str[i]))
		}
	}
	mix(uint64(s.Now.UnixNano()))
	mix(uint64(s.SchedulingCycle))
	mix(uint64(s.MoveRequestCycle))
	if s.Closed {
		mix(1)
	}
	for _, pl := range s.Places() {
		mix(uint64(pl.Loc) << 56)
		for i := range pl.Pods {
			p := &pl.Pods[i]
			mixString(string(p.Key()))
			mix(uint64(p.Timestamp.UnixNano()))
			mix(uint64(p.InitialAttemptTimestamp.UnixNano()))
			mix(uint64(p.Attempts))
			mix(uint64(len(p.UnschedulablePlugins)))
			mix(uint64(p.Pod.Priority))
			mixString(p.Pod.Status)
		}
	}
	return &State{Model: m, hash: h}
}

// Model returns the porcupine model of a queue with config cfg whose clock
// starts at start. Its states are *State.
func Model(cfg spec.Config, start time.Time) porcupine.Model {
	d := describer{start: start}
	return porcupine.Model{
		Init: func() any {
			m, err := model.New(cfg, start)
			if err != nil {
				panic(fmt.Sprintf("linearizability: model.New: %v", err))
			}
			return newState(m)
		},
		Step: func(state, input, output any) (bool, any) {
			m := state.(*State).Model.Clone()
			if !Apply(m, input.(Input), output.(Output)) {
				return false, state
			}
			return true, newState(m)
		},
		Equal: func(a, b any) bool {
			x, y := a.(*State), b.(*State)
			return x.hash == y.hash && x.Model.Equal(y.Model)
		},
		Hash: func(state any) uint64 { return state.(*State).hash },
		DescribeOperation: func(input, output any) string {
			return d.operation(input.(Input), output.(Output))
		},
		DescribeState: func(state any) string { return d.state(state.(*State).Model) },
		DescribeOperationMetadata: func(info any) string {
			if md, ok := info.(Metadata); ok {
				return d.metadata(md)
			}
			if info == nil {
				return ""
			}
			return html.EscapeString(fmt.Sprint(info))
		},
	}
}

// Metadata rides along with each recorded operation for the visualisation's
// tooltip: who issued it and its full arguments and result.
type Metadata struct {
	Client int
	Seq    int // the operation's index in its client's sequence
	In     Input
	Out    Output
}

// describer renders operations and states in queue terms. Times are shown
// relative to the history's start.
type describer struct{ start time.Time }

func (d describer) at(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return "+" + t.Sub(d.start).String()
}

func podName(p *spec.Pod) string {
	if p == nil {
		return "<nil>"
	}
	if p.Namespace == Namespace {
		return p.Name
	}
	return string(p.Key())
}

func errName(err error) string {
	if err == nil {
		return "ok"
	}
	for _, s := range sentinels {
		if errors.Is(err, s) {
			return strings.TrimPrefix(s.Error(), "schedq: ")
		}
	}
	return err.Error()
}

// operation is the short label on the timeline bar (plain text).
func (d describer) operation(in Input, out Output) string {
	switch in.Kind {
	case Pop:
		if out.Err != nil {
			return "Pop → " + errName(out.Err)
		}
		if out.Info == nil {
			return "Pop → <nil>"
		}
		return fmt.Sprintf("Pop → %s #%d", podName(out.Info.Pod), out.Cycle)
	case Add, Delete, AssignedPodAdded:
		return fmt.Sprintf("%s(%s) → %s", in.Kind, podName(in.Pod), errName(out.Err))
	case Update:
		return fmt.Sprintf("Update(%s %s) → %s", podName(in.Pod), updateWhat(in.OldPod, in.Pod), errName(out.Err))
	case AssignedPodUpdated:
		return fmt.Sprintf("AssignedPodUpdated(%s, %s) → %s", podName(in.Pod), in.Event, errName(out.Err))
	case AddUnschedulable:
		rej := "none"
		if len(in.Info.UnschedulablePlugins) > 0 {
			rej = strings.Join(in.Info.UnschedulablePlugins, ",")
		}
		return fmt.Sprintf("Unschedulable(%s #%d by %s) → %s", podName(in.Info.Pod), in.Cycle, rej, errName(out.Err))
	case MoveAll:
		s := "MoveAll(" + in.Event.String()
		if in.PreCheck.Fn != nil {
			s += ", " + in.PreCheck.Name
		}
		return s + ")"
	case Activate:
		names := make([]string, len(in.Pods))
		for i, p := range in.Pods {
			names[i] = podName(p)
		}
		return fmt.Sprintf("Activate(%s) → %s", strings.Join(names, ","), errName(out.Err))
	case Done:
		return fmt.Sprintf("Done(%s) → %s", in.UID, errName(out.Err))
	case Step:
		return "clock +" + in.D.String()
	case Snapshot:
		if out.Snapshot == nil {
			return "Snapshot → <nil>"
		}
		s := out.Snapshot
		return fmt.Sprintf("Snapshot → a%d b%d u%d f%d #%d", len(s.ActiveQ), len(s.BackoffQ), len(s.UnschedulablePods), len(s.InFlight), s.SchedulingCycle)
	case SchedulingCycle:
		return fmt.Sprintf("SchedulingCycle → %d", out.Cycle)
	}
	return in.Kind.String()
}

// long is operation with the details a plain-text listing needs: the
// attempts and Timestamp of a pod handed over, what a Snapshot saw.
func (d describer) long(in Input, out Output) string {
	s := d.operation(in, out)
	switch {
	case in.Kind == Pop && out.Info != nil:
		s += fmt.Sprintf("  [attempts %d, ts %s, first %s]", out.Info.Attempts, d.at(out.Info.Timestamp), d.at(out.Info.InitialAttemptTimestamp))
	case in.Kind == AddUnschedulable && in.Info != nil:
		s += fmt.Sprintf("  [attempts %d]", in.Info.Attempts)
	case in.Kind == Snapshot && out.Snapshot != nil:
		s += "\n              " + strings.ReplaceAll(html.UnescapeString(d.snapshot(out.Snapshot, nil)), "<br>", "\n              ")
	}
	return s
}

func updateWhat(old, new *spec.Pod) string {
	switch {
	case old == nil || new == nil:
		return ""
	case old.Priority != new.Priority:
		return fmt.Sprintf("prio %d→%d", old.Priority, new.Priority)
	case spec.IsPodUpdated(old, new):
		return "labels"
	}
	return "status only"
}

func (d describer) info(p *spec.QueuedPodInfo, loc spec.Location, cfg *spec.Config) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s(prio %d, attempts %d, ts %s", podName(p.Pod), p.Pod.Priority, p.Attempts, d.at(p.Timestamp))
	if loc == spec.InBackoffQ && cfg != nil {
		fmt.Fprintf(&b, ", until %s", d.at(cfg.BackoffExpiry(p)))
	}
	if len(p.UnschedulablePlugins) > 0 {
		fmt.Fprintf(&b, ", rejected by %s", strings.Join(p.UnschedulablePlugins, ","))
	}
	b.WriteString(")")
	return b.String()
}

func (d describer) snapshot(s *spec.Snapshot, cfg *spec.Config) string {
	lines := []string{fmt.Sprintf("now %s · schedulingCycle %d · moveRequestCycle %d", d.at(s.Now), s.SchedulingCycle, s.MoveRequestCycle)}
	if s.Closed {
		lines[0] += " · closed"
	}
	for _, pl := range s.Places() {
		parts := make([]string, len(pl.Pods))
		for i := range pl.Pods {
			parts[i] = d.info(&pl.Pods[i], pl.Loc, cfg)
		}
		if pl.Loc == spec.InActiveQ && len(pl.Pods) > 0 {
			max := spec.MaximalPods(pl.Pods)
			names := make([]string, len(max))
			for i, k := range max {
				names[i] = strings.TrimPrefix(string(k), Namespace+"/")
			}
			parts = append(parts, "⇒ Pop may return "+strings.Join(names, " or "))
		}
		lines = append(lines, fmt.Sprintf("%s: %s", pl.Loc, strings.Join(parts, " ")))
	}
	for i := range lines {
		lines[i] = html.EscapeString(lines[i])
	}
	return strings.Join(lines, "<br>")
}

// state is the tooltip text of a state (HTML).
func (d describer) state(m *model.Model) string {
	s := m.Snapshot()
	cfg := m.Config()
	return d.snapshot(&s, &cfg)
}

// metadata is the tooltip text of an operation (HTML).
func (d describer) metadata(md Metadata) string {
	who := fmt.Sprintf("client %d", md.Client)
	if md.Client < 0 {
		who = "coordinator"
	}
	lines := []string{fmt.Sprintf("%s, operation %d: %s", who, md.Seq, d.operation(md.In, md.Out))}
	switch in := md.In; in.Kind {
	case Add, Delete, AssignedPodAdded, Update, AssignedPodUpdated:
		lines = append(lines, "pod: "+describePod(in.Pod))
		if in.OldPod != nil {
			lines = append(lines, "old pod: "+describePod(in.OldPod))
		}
	case AddUnschedulable:
		lines = append(lines, "handed back: "+d.info(in.Info, spec.Nowhere, nil)+fmt.Sprintf(" from cycle %d", in.Cycle))
	}
	if md.Out.Info != nil {
		lines = append(lines, "returned: "+d.info(md.Out.Info, spec.InFlight, nil))
	}
	if md.Out.Err != nil {
		lines = append(lines, "error: "+md.Out.Err.Error())
	}
	for i := range lines {
		lines[i] = html.EscapeString(lines[i])
	}
	if md.Out.Snapshot != nil {
		lines = append(lines, "<strong>observed:</strong><br>"+d.snapshot(md.Out.Snapshot, nil))
	}
	return strings.Join(lines, "<br>")
}

func describePod(p *spec.Pod) string {
	if p == nil {
		return "<nil>"
	}
	s := fmt.Sprintf("%s uid=%s prio=%d", p.Key(), p.UID, p.Priority)
	if len(p.Labels) > 0 {
		s += fmt.Sprintf(" labels=%v", p.Labels)
	}
	for _, t := range p.RequiredAffinityTerms {
		s += fmt.Sprintf(" affinity=%v", t.MatchLabels)
	}
	if p.Status != "" {
		s += " status=" + p.Status
	}
	return s
}
