package schedqtest

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/schedq/schedq/spec"
)

// Kind is the operation of an Op: the first word of its line.
type Kind string

// The operations of the language, grouped by the rules they perform:
// R1-R3 (a pod enters, is handed out, comes back), R4-R6 (moves and the
// two flushes), the clock, R8-R10 and R11-R13.
const (
	KindAdd, KindPop, KindFail                    Kind = "add", "pop", "fail"
	KindMove, KindFlushBackoff, KindFlushLeftover Kind = "move", "flush-backoff", "flush-leftover"
	KindTick                                      Kind = "tick"
	KindActivate, KindUpdate, KindDelete          Kind = "activate", "update", "delete"
	KindAssignedAdd, KindAssignedUpdate           Kind = "assigned-add", "assigned-update"
	KindDone, KindClose                           Kind = "done", "close"
	KindNominate, KindNominated                   Kind = "nominate", "nominated"
	// The podgroups profile's (G5, G11; podgroups.go).
	KindPodGroupAdd, KindPodGroupUpdate, KindPodGroupDelete Kind = "podgroup-add", "podgroup-update", "podgroup-delete"
	KindAttempted                                           Kind = "attempted"
)

// Kinds lists every operation of the language, in rule order.
var Kinds = []Kind{KindAdd, KindPop, KindFail, KindMove, KindFlushBackoff, KindFlushLeftover, KindTick,
	KindActivate, KindUpdate, KindDelete, KindAssignedAdd, KindAssignedUpdate, KindDone, KindClose,
	KindNominate, KindNominated, KindPodGroupAdd, KindPodGroupUpdate, KindPodGroupDelete, KindAttempted}

var kindRules = map[Kind]spec.Rule{
	KindAdd: spec.R1Add, KindPop: spec.R2Pop, KindFail: spec.R3AddUnschedulable,
	KindMove: spec.R4MoveAll, KindFlushBackoff: spec.R5FlushBackoffQ, KindFlushLeftover: spec.R6FlushUnschedulable,
	KindTick: spec.RTick, KindActivate: spec.R8Activate, KindUpdate: spec.R9Update, KindDelete: spec.R10Delete,
	KindAssignedAdd: spec.R11AssignedPod, KindAssignedUpdate: spec.R11AssignedPod,
	KindDone: spec.R12Done, KindClose: spec.R13Close,
	KindNominate: spec.R18Nominator, KindNominated: spec.R18Nominator,
	KindPodGroupAdd: spec.G11PodGroupObj, KindPodGroupUpdate: spec.G11PodGroupObj, KindPodGroupDelete: spec.G11PodGroupObj,
	KindAttempted: spec.G5GroupAttempt,
}

// Rule is the rule the operation performs ("clock tick" for tick).
func (k Kind) Rule() spec.Rule {
	if r, ok := kindRules[k]; ok {
		return r
	}
	return spec.Rule(k)
}

// PodRef names a pod in an operation: by name (namespace "ns", UID
// "uid-<name>" unless overridden), or nil.
type PodRef struct {
	// Nil stands for a nil *spec.Pod (bad input); the other fields are
	// then empty.
	Nil bool
	// Name is the pod's name; it may be empty (bad input: "name=").
	Name string
	// Namespace, if set, replaces "ns".
	Namespace *string
	// UID, if set, replaces "uid-<name>" (it may be empty: bad input).
	UID *string
	// Priority: for add, the pod's priority (0 if unset); for update, a
	// new priority (unchanged if unset).
	Priority *int32
	// Labels: the pod's labels; for update, new labels (unchanged if
	// nil). An empty non-nil map is "labels=()".
	Labels map[string]string
	// Affinity, if not nil, gives the pod one required pod-affinity term
	// matching these labels in its own namespace (R11).
	Affinity map[string]string
	// Group, if set, is the pod group the pod names (Pod.Group, G1):
	// "group=g1" on add; on update, a new group (bad input, G9).
	Group *string
}

// Key is the key of the pod the reference names.
func (r PodRef) Key() spec.PodKey {
	ns := Namespace
	if r.Namespace != nil {
		ns = *r.Namespace
	}
	return spec.PodKey(ns + "/" + r.Name)
}

// Build returns a new pod as the reference describes it.
func (r PodRef) Build() *spec.Pod {
	if r.Nil {
		return nil
	}
	p := &spec.Pod{Namespace: Namespace, Name: r.Name, UID: UIDOf(r.Name)}
	if r.Namespace != nil {
		p.Namespace = *r.Namespace
	}
	if r.UID != nil {
		p.UID = spec.UID(*r.UID)
	}
	if r.Priority != nil {
		p.Priority = *r.Priority
	}
	if r.Labels != nil {
		p.Labels = maps.Clone(r.Labels)
	}
	if r.Affinity != nil {
		p.RequiredAffinityTerms = []spec.AffinityTerm{{MatchLabels: maps.Clone(r.Affinity)}}
	}
	if r.Group != nil {
		p.Group = *r.Group
	}
	return p
}

// Op is one operation of the scenario language. Only the fields of its
// Kind are used; ParseOp(op.String()) returns op again for every Op that
// NormalizeOp leaves unchanged (ParseOp always returns such an Op).
type Op struct {
	Kind Kind
	// Pod: add, update (name and changes), delete, assigned-add,
	// assigned-update (the new version).
	Pod PodRef
	// Pods: activate.
	Pods []PodRef
	// Blocked: "pop blocked", a Pop that must block until a later
	// operation fills activeQ or closes the queue.
	Blocked bool
	// Choose: "pop choose=b", which of the pods Pop may return (I5) the
	// model returns; the model's own choice among equals is the smallest
	// key. A target may return any of them: the runner's shadow model
	// follows it. Printed scenarios use it to pin the choice the target
	// made, so that the file replays the same way.
	Choose string
	// Plugins: fail, the rejecting plugins (nil: none).
	Plugins []string
	// Pending: fail, the plugins that answered Pending (the hints
	// profile's PendingPlugins, R3h; nil: none).
	Pending []string
	// Cycle: fail, the podSchedulingCycle handed back; nil means the one
	// Pop returned (or 0 for never-popped).
	Cycle *int64
	// NeverPopped: fail of a QueuedPodInfo made up from the pod's name
	// and Attempts rather than the one Pop returned.
	NeverPopped bool
	// Attempts: fail never-popped.
	Attempts int
	// Event: move, assigned-update.
	Event spec.ClusterEvent
	// PreCheck: move, the names of the pods preCheck lets through; nil
	// means no preCheck (every pod passes).
	PreCheck []string
	// Duration: tick.
	Duration time.Duration
	// Touch: update, a change of ResourceVersion and Status only.
	Touch bool
	// Rename: update, the new version gets this name (bad input: the
	// key changes).
	Rename string
	// OldLabels: assigned-update, the labels of the old version (nil:
	// the same as the new one).
	OldLabels map[string]string
	// UID: done.
	UID string
	// Node: nominate (the node of NominateOverride) and nominated (the
	// node asked about).
	Node string
	// Noop: nominate mode=noop, spec.NominateNoop (the pod's own
	// NominatedNodeName, empty for scenario pods: the nomination is
	// dropped); otherwise spec.NominateOverride.
	Noop bool
	// OldObject, NewObject: move, the event's caller objects
	// ("old=node(...)", "new=node(...)", R19); nil: none. A move with an
	// object needs a spec.ObjectQueue.
	OldObject, NewObject *Node
	// Change: update, the caller's verdict ("relevant=yes|no",
	// "events=(...)", spec.PodChange); nil: the queue derives it. An
	// update with a verdict needs a spec.ObjectQueue.
	Change *spec.PodChange
	// Group: podgroup-add, podgroup-update, podgroup-delete, attempted:
	// the pod group's name (namespace "ns").
	Group string
	// GroupPriority: podgroup-add and podgroup-update, "prio=N".
	GroupPriority int32
	// Status: attempted, "status=success|rejected|error" (G5).
	Status spec.AttemptStatus
}

// NeedsObjectQueue reports whether the operation carries what only a
// spec.ObjectQueue takes: event objects or an update verdict.
func (o Op) NeedsObjectQueue() bool {
	return o.OldObject != nil || o.NewObject != nil || o.Change != nil
}

// Node is the caller object of the scenario language (R19): a node with a
// name and labels, written node(name=n1,labels=(zone=a,disk=ssd)). Queues
// hand it to the queueing hints untouched; NodeZoneHint reads it.
type Node struct {
	Name   string
	Labels map[string]string
}

// String is the node as the language writes it; states print the objects
// of recorded events this way.
func (n *Node) String() string {
	s := "node(name=" + n.Name
	if len(n.Labels) > 0 {
		s += ",labels=(" + labelList(n.Labels) + ")"
	}
	return s + ")"
}

// ParseNode is the inverse of Node.String.
func ParseNode(s string) (*Node, error) {
	inner, ok := strings.CutPrefix(s, "node(name=")
	if !ok || !strings.HasSuffix(inner, ")") {
		return nil, fmt.Errorf("object %q: want node(name=N) or node(name=N,labels=(k=v,...))", s)
	}
	inner = strings.TrimSuffix(inner, ")")
	n := &Node{Name: inner}
	if name, labels, ok := strings.Cut(inner, ",labels=("); ok {
		n.Name = name
		if !strings.HasSuffix(labels, ")") {
			return nil, fmt.Errorf("object %q: labels=(...) is not closed", s)
		}
		n.Labels = map[string]string{}
		for _, kv := range strings.Split(strings.TrimSuffix(labels, ")"), ",") {
			k, v, ok := strings.Cut(kv, "=")
			if !ok || k == "" {
				return nil, fmt.Errorf("object %q: label %q is not key=value", s, kv)
			}
			n.Labels[k] = v
		}
	}
	if n.Name == "" || strings.ContainsAny(n.Name, "(),= ") {
		return nil, fmt.Errorf("object %q: the node needs a plain name", s)
	}
	return n, nil
}

// Rule is the rule the operation performs.
func (o Op) Rule() spec.Rule { return o.Kind.Rule() }

// ParseOp parses one operation line. Errors say what is wrong and which
// spelling is expected.
func ParseOp(line string) (Op, error) {
	cmd, args, err := datadriven.ParseLine(line)
	if err != nil {
		return Op{}, err
	}
	if cmd == "" {
		return Op{}, fmt.Errorf("empty operation")
	}
	op, err := OpFromArgs(cmd, args)
	if err != nil {
		return Op{}, fmt.Errorf("%q: %w", strings.TrimSpace(line), err)
	}
	return op, nil
}

// ParseOps parses operation lines, one an argument; the error names the
// first bad line.
func ParseOps(lines ...string) ([]Op, error) {
	ops := make([]Op, 0, len(lines))
	for _, l := range lines {
		op, err := ParseOp(l)
		if err != nil {
			return nil, err
		}
		ops = append(ops, op)
	}
	return ops, nil
}

// MustParseOps is ParseOps for tests: a bad line fails tb.
func MustParseOps(tb testing.TB, lines ...string) []Op {
	tb.Helper()
	ops, err := ParseOps(lines...)
	if err != nil {
		tb.Fatal(err)
	}
	return ops
}

// OpFromArgs builds an operation from a parsed directive (a datadriven
// command and its arguments).
func OpFromArgs(cmd string, args []datadriven.CmdArg) (Op, error) {
	p := &argParser{args: args}
	op := Op{Kind: Kind(cmd)}
	switch op.Kind {
	case KindAdd, KindDelete, KindAssignedAdd:
		op.Pod = p.podRef(op.Kind == KindAdd, true)
	case KindPop:
		op.Blocked = p.flag("blocked")
		if p.has("choose") {
			op.Choose = p.str("choose")
		}
	case KindFail:
		op.Pod = PodRef{Name: p.name()}
		op.NeverPopped = p.flag("never-popped")
		if op.NeverPopped {
			op.Attempts = 1
			if p.has("attempts") {
				op.Attempts = int(p.int("attempts", 32))
			}
		}
		if p.has("cycle") {
			c := p.int("cycle", 64)
			op.Cycle = &c
		}
		op.Plugins = p.list("plugins")
		if len(op.Plugins) == 0 {
			op.Plugins = nil
		}
		op.Pending = p.list("pending")
		if len(op.Pending) == 0 {
			op.Pending = nil
		}
	case KindNominate:
		op.Pod = PodRef{Name: p.name()}
		if p.has("mode") {
			switch m := p.str("mode"); m {
			case "noop":
				op.Noop = true
			case "override":
			default:
				p.fail("nominate: mode=%s: want override or noop", m)
			}
		}
		if !op.Noop {
			op.Node = p.str("node")
		} else if p.has("node") {
			p.fail("nominate mode=noop takes no node= (the pod's own nominated node is used)")
		}
	case KindNominated:
		op.Node = p.positional("node name")
	case KindMove:
		op.Event = p.event(p.positional("event name"))
		op.PreCheck = p.list("precheck")
		op.OldObject = p.object("old")
		op.NewObject = p.object("new")
	case KindFlushBackoff, KindFlushLeftover, KindClose:
	case KindTick:
		s := p.positional("duration")
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 {
			p.fail("tick: want a non-negative Go duration such as 1s or 1ns, got %q", s)
		}
		op.Duration = d
	case KindActivate:
		for p.err == nil && len(p.args) > 0 && len(p.args[0].Vals) == 0 {
			n := p.positional("pod")
			if n == "nil" {
				op.Pods = append(op.Pods, PodRef{Nil: true})
			} else {
				op.Pods = append(op.Pods, PodRef{Name: n})
			}
		}
	case KindUpdate:
		op.Pod = p.podRef(true, false)
		op.Touch = p.flag("touch")
		if p.has("rename") {
			op.Rename = p.str("rename")
		}
		op.Change = p.change()
	case KindAssignedUpdate:
		op.Pod = p.podRef(false, true)
		if p.has("old-labels") {
			op.OldLabels = p.labels("old-labels")
		}
		op.Event = p.event(p.str("event"))
	case KindDone:
		if p.has("uid") {
			op.UID = p.str("uid")
		} else {
			op.UID = string(UIDOf(p.name()))
		}
	case KindPodGroupAdd, KindPodGroupUpdate, KindPodGroupDelete, KindAttempted:
		p.podGroupArgs(&op)
	default:
		return Op{}, fmt.Errorf("unknown operation %q; the operations are %v", cmd, Kinds)
	}
	if p.err == nil && len(p.args) > 0 {
		p.fail("unexpected %q for %s", p.args[0].String(), cmd)
	}
	if p.err != nil {
		return Op{}, p.err
	}
	return op, nil
}

type argParser struct {
	args []datadriven.CmdArg
	err  error
}

func (p *argParser) fail(format string, a ...any) {
	if p.err == nil {
		p.err = fmt.Errorf(format, a...)
	}
}

// positional takes the next argument without "=".
func (p *argParser) positional(what string) string {
	if len(p.args) == 0 || len(p.args[0].Vals) > 0 {
		p.fail("missing %s", what)
		return ""
	}
	s := p.args[0].Key
	p.args = p.args[1:]
	return s
}

func (p *argParser) find(key string) (datadriven.CmdArg, bool) {
	for i, a := range p.args {
		if a.Key == key {
			p.args = slices.Delete(p.args, i, i+1)
			return a, true
		}
	}
	return datadriven.CmdArg{}, false
}

func (p *argParser) has(key string) bool {
	return slices.ContainsFunc(p.args, func(a datadriven.CmdArg) bool { return a.Key == key })
}

func (p *argParser) flag(key string) bool {
	a, ok := p.find(key)
	if ok && len(a.Vals) > 0 {
		p.fail("%s takes no value", key)
	}
	return ok
}

func (p *argParser) str(key string) string {
	a, ok := p.find(key)
	if !ok {
		p.fail("missing %s=", key)
		return ""
	}
	if len(a.Vals) != 1 {
		p.fail("%s= takes one value", key)
		return ""
	}
	return a.Vals[0]
}

func (p *argParser) int(key string, bits int) int64 {
	s := p.str(key)
	n, err := strconv.ParseInt(s, 10, bits)
	if err != nil && p.err == nil {
		p.fail("%s=%s: not an integer", key, s)
	}
	return n
}

// list parses key=(a,b); nil if absent, empty if "key=()".
func (p *argParser) list(key string) []string {
	a, ok := p.find(key)
	if !ok {
		return nil
	}
	out := []string{}
	for _, v := range a.Vals {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

func (p *argParser) labels(key string) map[string]string {
	l := p.list(key)
	m := make(map[string]string, len(l))
	for _, kv := range l {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			p.fail("%s: want (key=value,...), got %q", key, kv)
		}
		m[k] = v
	}
	return m
}

func (p *argParser) event(name string) spec.ClusterEvent {
	if p.err != nil {
		return spec.ClusterEvent{}
	}
	e, err := ParseEvent(name)
	if err != nil {
		p.fail("%v", err)
	}
	return e
}

// object parses key=node(...), nil if absent.
func (p *argParser) object(key string) *Node {
	if !p.has(key) {
		return nil
	}
	n, err := ParseNode(p.str(key))
	if err != nil {
		p.fail("%s=: %v", key, err)
	}
	return n
}

// change parses "relevant=yes|no events=(E,...)", nil if neither is given.
func (p *argParser) change() *spec.PodChange {
	if !p.has("relevant") && !p.has("events") {
		return nil
	}
	c := &spec.PodChange{}
	if p.has("relevant") {
		switch v := p.str("relevant"); v {
		case "yes":
			c.Relevant = true
		case "no":
		default:
			p.fail("relevant=%s: want yes or no", v)
		}
	}
	for _, name := range p.list("events") {
		c.Events = append(c.Events, p.event(name))
	}
	return c
}

func (p *argParser) name() string {
	if p.has("name") {
		return p.str("name")
	}
	return p.positional("pod name")
}

// podRef parses "NAME|nil|name=X [ns=] [uid=] [prio=] [labels=] [affinity=]".
func (p *argParser) podRef(allowPrio, allowNil bool) PodRef {
	var r PodRef
	if allowNil && len(p.args) > 0 && p.args[0].Key == "nil" && len(p.args[0].Vals) == 0 {
		p.args = p.args[1:]
		return PodRef{Nil: true}
	}
	r.Name = p.name()
	if p.has("ns") {
		s := p.str("ns")
		r.Namespace = &s
	}
	if p.has("uid") {
		s := p.str("uid")
		r.UID = &s
	}
	if allowPrio && p.has("prio") {
		n := int32(p.int("prio", 32))
		r.Priority = &n
	}
	if p.has("labels") {
		r.Labels = p.labels("labels")
	}
	if p.has("affinity") {
		r.Affinity = p.labels("affinity")
	}
	if p.has("group") {
		s := p.str("group")
		r.Group = &s
	}
	return r
}

// String is the operation's line in the language.
func (o Op) String() string {
	w := []string{string(o.Kind)}
	switch o.Kind {
	case KindAdd, KindDelete, KindAssignedAdd, KindUpdate, KindAssignedUpdate:
		w = append(w, o.Pod.words()...)
		if o.Kind == KindUpdate {
			if o.Touch {
				w = append(w, "touch")
			}
			if o.Rename != "" {
				w = append(w, "rename="+o.Rename)
			}
			if c := o.Change; c != nil {
				rel := "no"
				if c.Relevant {
					rel = "yes"
				}
				evs := make([]string, len(c.Events))
				for i, e := range c.Events {
					evs[i] = EventName(e)
				}
				w = append(w, "relevant="+rel, "events=("+strings.Join(evs, ",")+")")
			}
		}
		if o.Kind == KindAssignedUpdate {
			if o.OldLabels != nil {
				w = append(w, "old-labels=("+labelList(o.OldLabels)+")")
			}
			w = append(w, "event="+EventName(o.Event))
		}
	case KindPop:
		if o.Blocked {
			w = append(w, "blocked")
		}
		if o.Choose != "" {
			w = append(w, "choose="+o.Choose)
		}
	case KindFail:
		w = append(w, nameWord(o.Pod.Name))
		if o.NeverPopped {
			w = append(w, "never-popped", fmt.Sprintf("attempts=%d", o.Attempts))
		}
		if o.Cycle != nil {
			w = append(w, fmt.Sprintf("cycle=%d", *o.Cycle))
		}
		if len(o.Plugins) > 0 {
			w = append(w, "plugins=("+strings.Join(o.Plugins, ",")+")")
		}
		if len(o.Pending) > 0 {
			w = append(w, "pending=("+strings.Join(o.Pending, ",")+")")
		}
	case KindNominate:
		w = append(w, nameWord(o.Pod.Name))
		if o.Noop {
			w = append(w, "mode=noop")
		} else {
			w = append(w, "node="+o.Node)
		}
	case KindNominated:
		w = append(w, o.Node)
	case KindMove:
		w = append(w, EventName(o.Event))
		if o.PreCheck != nil {
			w = append(w, "precheck=("+strings.Join(o.PreCheck, ",")+")")
		}
		if o.OldObject != nil {
			w = append(w, "old="+o.OldObject.String())
		}
		if o.NewObject != nil {
			w = append(w, "new="+o.NewObject.String())
		}
	case KindPodGroupAdd, KindPodGroupUpdate, KindPodGroupDelete, KindAttempted:
		w = append(w, o.podGroupWords()...)
	case KindTick:
		w = append(w, o.Duration.String())
	case KindActivate:
		for _, r := range o.Pods {
			if r.Nil {
				w = append(w, "nil")
			} else {
				w = append(w, r.Name)
			}
		}
	case KindDone:
		if n, ok := strings.CutPrefix(o.UID, "uid-"); ok && plainName(n) {
			w = append(w, n)
		} else {
			w = append(w, "uid="+o.UID)
		}
	}
	return strings.Join(w, " ")
}

func (r PodRef) words() []string {
	if r.Nil {
		return []string{"nil"}
	}
	w := []string{nameWord(r.Name)}
	if r.Namespace != nil {
		w = append(w, "ns="+*r.Namespace)
	}
	if r.UID != nil {
		w = append(w, "uid="+*r.UID)
	}
	if r.Priority != nil {
		w = append(w, fmt.Sprintf("prio=%d", *r.Priority))
	}
	if r.Labels != nil {
		w = append(w, "labels=("+labelList(r.Labels)+")")
	}
	if r.Affinity != nil {
		w = append(w, "affinity=("+labelList(r.Affinity)+")")
	}
	if r.Group != nil {
		w = append(w, "group="+*r.Group)
	}
	return w
}

// plainName reports whether a name can be written as a bare word.
func plainName(n string) bool {
	return n != "" && n != "nil" && !strings.ContainsAny(n, " =(),") && !slices.Contains([]string{
		"blocked", "touch", "never-popped"}, n)
}

func nameWord(n string) string {
	if plainName(n) {
		return n
	}
	return "name=" + n
}

func labelList(l map[string]string) string {
	var kv []string
	for _, k := range slices.Sorted(maps.Keys(l)) {
		kv = append(kv, k+"="+l[k])
	}
	return strings.Join(kv, ",")
}
