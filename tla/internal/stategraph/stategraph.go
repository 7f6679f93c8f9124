// Package stategraph is the canonical encoding of a scheduling-queue state
// graph shared by TLC and the Go model: the state of SchedulingQueue.tla
// (and of a model.Model plus the cycles the scheduler holds for its pods in
// flight), or of SchedulingQueueHints.tla (and of a model.Model in the hints
// profile), or of SchedulingQueuePodGroups.tla (GroupsState: a projection
// of a model.Model in the podgroups profile), as one line of text, and a graph of such states as a sorted,
// gzipped text file. tlagraph writes TLC's graph in this form;
// agreement_test.go writes the Go model's and compares the two.
package stategraph

import (
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Places of a pod, spelled as in SchedulingQueue.tla and as
// spec.Location prints them; None is a pod the queue does not hold.
const (
	None              = "none"
	ActiveQ           = "activeQ"
	BackoffQ          = "backoffQ"
	UnschedulablePods = "unschedulablePods"
	InFlight          = "inFlight"
)

// NoTime is the Timestamp of a pod never put in activeQ (Go's zero time).
const NoTime = -1

// Pod is what the queue knows about one pod, in ticks. A pod the queue
// does not hold has Loc None and nothing else.
type Pod struct {
	Loc             string
	Attempts        int
	Timestamp       int
	InitialAttempt  int      // InitialAttemptTimestamp, NoTime if unset
	Plugins         []string // UnschedulablePlugins, sorted
	SchedulingCycle int      // the cycle Pop returned; only in flight, else 0

	// The hints profile's fields (spec.HintFields), encoded only in a
	// hints state.
	Pending                []string // PendingPlugins, sorted
	UnschedulableCount     int
	ConsecutiveErrorsCount int
	GatingPlugin           string // "" if not gated
	FlushTimestamp         int    // NoTime if unset
	SchedulingGate         bool   // the pod object carries a scheduling gate
}

// State is one state of the queue.
type State struct {
	Now              int
	SchedulingCycle  int
	MoveRequestCycle int
	// Pods maps every pod of the bound (held or not) to its state.
	Pods map[string]Pod
	// Closed: Close happened (R13).
	Closed bool
	// Hints marks a state of the hints profile, which has no
	// moveRequestCycle but the in-flight list, InFlightEvents: "pod:<key>"
	// for a marker, the event's name for an event record, followed by
	// ">"<key> for a wildcard aimed at one pod (ForceActivate).
	Hints          bool
	InFlightEvents []string
	// Nominated (hints) lists the nominated pods of each node in
	// nomination order; nodes with none are left out.
	Nominated []NodePods
	// Groups is set for a state of SchedulingQueuePodGroups.tla, which is
	// all of it (the other fields are unset).
	Groups *GroupsState
}

// NodePods is a node and the pods nominated to it, in nomination order.
type NodePods struct {
	Node string
	Pods []string
}

// String is the canonical encoding: one line, pods in key order.
func (s State) String() string {
	if s.Groups != nil {
		return s.Groups.String()
	}
	keys := make([]string, 0, len(s.Pods))
	for k := range s.Pods {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	pods := make([]NamedPod, len(keys))
	for i, k := range keys {
		pods[i] = NamedPod{k, s.Pods[k]}
	}
	if s.Hints {
		return string(AppendHintsEncoding(nil, s.Now, s.SchedulingCycle, s.Closed, pods, s.InFlightEvents, s.Nominated))
	}
	return string(AppendEncoding(nil, s.Now, s.SchedulingCycle, s.MoveRequestCycle, s.Closed, pods))
}

// NamedPod is a pod and its key.
type NamedPod struct {
	Key string
	Pod
}

// AppendEncoding appends the canonical encoding of a state whose pods are
// given in key order, e.g.
//
//	now=1 schedulingCycle=1 moveRequestCycle=-1 a=inFlight(attempts=1,timestamp=0,initial=0,plugins={},cycle=1) b=none
//
// followed by " closed" once the queue is closed (so that the states of a
// configuration without Close keep their encoding). It is State.String
// without the map, for the Go exploration's inner loop.
func AppendEncoding(b []byte, now, schedulingCycle, moveRequestCycle int, closed bool, pods []NamedPod) []byte {
	b = append(b, "now="...)
	b = strconv.AppendInt(b, int64(now), 10)
	b = append(b, " schedulingCycle="...)
	b = strconv.AppendInt(b, int64(schedulingCycle), 10)
	b = append(b, " moveRequestCycle="...)
	b = strconv.AppendInt(b, int64(moveRequestCycle), 10)
	for _, p := range pods {
		b = append(b, ' ')
		b = append(b, p.Key...)
		b = append(b, '=')
		b = append(b, p.Loc...)
		if p.Loc == None {
			continue
		}
		b = append(b, "(attempts="...)
		b = strconv.AppendInt(b, int64(p.Attempts), 10)
		b = append(b, ",timestamp="...)
		b = strconv.AppendInt(b, int64(p.Timestamp), 10)
		b = append(b, ",initial="...)
		b = appendTime(b, p.InitialAttempt)
		b = append(b, ",plugins="...)
		b = appendSet(b, p.Plugins)
		if p.Loc == InFlight {
			b = append(b, ",cycle="...)
			b = strconv.AppendInt(b, int64(p.SchedulingCycle), 10)
		}
		b = append(b, ')')
	}
	if closed {
		b = append(b, " closed"...)
	}
	return b
}

// AppendHintsEncoding appends the canonical encoding of a hints-profile
// state whose pods are given in key order, e.g.
//
//	now=1 schedulingCycle=1 a=inFlight(attempts=1,timestamp=0,initial=0,plugins={},pending={},unschedulableCount=0,consecutiveErrors=0,gating=-,flush=-,gate=0) b=none inFlightEvents=[pod:a,E1]
//
// followed by " nominated=[n1:a,b;n2:c]" (the nodes in order) while some pod is
// nominated, and " closed" once the queue is closed.
func AppendHintsEncoding(b []byte, now, schedulingCycle int, closed bool, pods []NamedPod, inFlightEvents []string, nominated []NodePods) []byte {
	b = append(b, "now="...)
	b = strconv.AppendInt(b, int64(now), 10)
	b = append(b, " schedulingCycle="...)
	b = strconv.AppendInt(b, int64(schedulingCycle), 10)
	for _, p := range pods {
		b = append(b, ' ')
		b = append(b, p.Key...)
		b = append(b, '=')
		b = append(b, p.Loc...)
		if p.Loc == None {
			continue
		}
		b = append(b, "(attempts="...)
		b = strconv.AppendInt(b, int64(p.Attempts), 10)
		b = append(b, ",timestamp="...)
		b = strconv.AppendInt(b, int64(p.Timestamp), 10)
		b = append(b, ",initial="...)
		b = appendTime(b, p.InitialAttempt)
		b = append(b, ",plugins="...)
		b = appendSet(b, p.Plugins)
		b = append(b, ",pending="...)
		b = appendSet(b, p.Pending)
		b = append(b, ",unschedulableCount="...)
		b = strconv.AppendInt(b, int64(p.UnschedulableCount), 10)
		b = append(b, ",consecutiveErrors="...)
		b = strconv.AppendInt(b, int64(p.ConsecutiveErrorsCount), 10)
		b = append(b, ",gating="...)
		if p.GatingPlugin == "" {
			b = append(b, '-')
		} else {
			b = append(b, p.GatingPlugin...)
		}
		b = append(b, ",flush="...)
		b = appendTime(b, p.FlushTimestamp)
		b = append(b, ",gate="...)
		if p.SchedulingGate {
			b = append(b, '1')
		} else {
			b = append(b, '0')
		}
		b = append(b, ')')
	}
	b = append(b, " inFlightEvents=["...)
	for i, e := range inFlightEvents {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, e...)
	}
	b = append(b, ']')
	if len(nominated) > 0 {
		b = append(b, " nominated=["...)
		for i, n := range nominated {
			if i > 0 {
				b = append(b, ';')
			}
			b = append(b, n.Node...)
			b = append(b, ':')
			for j, p := range n.Pods {
				if j > 0 {
					b = append(b, ',')
				}
				b = append(b, p...)
			}
		}
		b = append(b, ']')
	}
	if closed {
		b = append(b, " closed"...)
	}
	return b
}

func appendTime(b []byte, t int) []byte {
	if t == NoTime {
		return append(b, '-')
	}
	return strconv.AppendInt(b, int64(t), 10)
}

func appendSet(b []byte, s []string) []byte {
	b = append(b, '{')
	for i, x := range s {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, x...)
	}
	return append(b, '}')
}

// Edge is one step: From --Action--> To, by state index.
type Edge struct {
	From, To int
	Action   string
}

// Graph is a reachable state graph: States sorted, Edges sorted and without
// duplicates, Initial the index of the initial state.
type Graph struct {
	// SourceHash is the hash of the TLA+ files the graph was produced from
	// (SourceHash); empty for a graph built in Go.
	SourceHash string
	Initial    int
	States     []string
	Edges      []Edge
}

// Builder collects states and edges in any order, then sorts them.
type Builder struct {
	index   map[string]int32
	states  []string
	actions []string
	actIdx  map[string]uint8
	edges   []rawEdge
	initial string
}

type rawEdge struct {
	from, to int32
	action   uint8
}

// NewBuilder returns an empty builder.
func NewBuilder() *Builder {
	return &Builder{index: make(map[string]int32), actIdx: make(map[string]uint8)}
}

// State adds a state and returns its provisional index and whether it was new.
func (b *Builder) State(s string) (int, bool) {
	if i, ok := b.index[s]; ok {
		return int(i), false
	}
	i := int32(len(b.states))
	b.index[s] = i
	b.states = append(b.states, s)
	return int(i), true
}

// StateBytes is State for an encoding in a buffer the caller reuses; it
// copies the encoding only when the state is new.
func (b *Builder) StateBytes(s []byte) (int, bool) {
	if i, ok := b.index[string(s)]; ok {
		return int(i), false
	}
	return b.State(string(s))
}

// Encoding returns the state with a provisional index.
func (b *Builder) Encoding(i int) string { return b.states[i] }

// SetInitial names the initial state.
func (b *Builder) SetInitial(s string) { b.State(s); b.initial = s }

// Edge adds an edge between provisional indices.
func (b *Builder) Edge(from int, action string, to int) {
	a, ok := b.actIdx[action]
	if !ok {
		if len(b.actions) == 255 {
			panic("stategraph: too many actions")
		}
		a = uint8(len(b.actions))
		b.actIdx[action] = a
		b.actions = append(b.actions, action)
	}
	b.edges = append(b.edges, rawEdge{int32(from), int32(to), a})
}

// Len is the number of states so far.
func (b *Builder) Len() int { return len(b.states) }

// Graph sorts what was collected and drops duplicate edges.
func (b *Builder) Graph() *Graph {
	order := make([]int32, len(b.states))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(x, y int32) int { return strings.Compare(b.states[x], b.states[y]) })
	final := make([]int, len(order))
	g := &Graph{States: make([]string, len(order))}
	for i, o := range order {
		final[o] = i
		g.States[i] = b.states[o]
	}
	g.Initial = final[b.index[b.initial]]
	g.Edges = make([]Edge, 0, len(b.edges))
	for _, e := range b.edges {
		g.Edges = append(g.Edges, Edge{From: final[e.from], To: final[e.to], Action: b.actions[e.action]})
	}
	slices.SortFunc(g.Edges, compareEdges)
	g.Edges = slices.Compact(g.Edges)
	return g
}

func compareEdges(x, y Edge) int {
	if x.From != y.From {
		return x.From - y.From
	}
	if x.To != y.To {
		return x.To - y.To
	}
	return strings.Compare(x.Action, y.Action)
}

const magic = "schedq-state-graph v1"

// Write writes the graph as gzipped text: a header; the action names; one
// line per state, "s <state>", its index being its position; then one line
// per edge, "e <from-delta> <to-minus-from> <action-index>", where
// from-delta is the difference to the previous edge's source (edges are
// sorted), which keeps the file small.
func (g *Graph) Write(w io.Writer) error {
	zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	var actions []string
	index := make(map[string]int)
	for _, e := range g.Edges {
		if _, ok := index[e.Action]; !ok {
			index[e.Action] = 0
			actions = append(actions, e.Action)
		}
	}
	slices.Sort(actions)
	for i, a := range actions {
		if strings.ContainsAny(a, " \t\n") {
			return fmt.Errorf("action name %q has white space", a)
		}
		index[a] = i
	}
	bw := bufio.NewWriter(zw)
	fmt.Fprintf(bw, "%s\nsource-sha256 %s\nstates %d\nedges %d\ninitial %d\nactions %s\n",
		magic, g.SourceHash, len(g.States), len(g.Edges), g.Initial, strings.Join(actions, " "))
	for _, s := range g.States {
		fmt.Fprintf(bw, "s %s\n", s)
	}
	prev := 0
	for _, e := range g.Edges {
		fmt.Fprintf(bw, "e %d %d %d\n", e.From-prev, e.To-e.From, index[e.Action])
		prev = e.From
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return zw.Close()
}

// Read reads a graph written by Write.
func Read(r io.Reader) (*Graph, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	g := &Graph{}
	var nStates, nEdges, prev int
	var actions []string
	line := 0
	for sc.Scan() {
		t := sc.Text()
		line++
		var err error
		switch {
		case line == 1:
			if t != magic {
				return nil, fmt.Errorf("line 1: %q is not %q", t, magic)
			}
		case strings.HasPrefix(t, "source-sha256 "):
			g.SourceHash = strings.TrimPrefix(t, "source-sha256 ")
		case strings.HasPrefix(t, "states "):
			nStates, err = strconv.Atoi(strings.TrimPrefix(t, "states "))
		case strings.HasPrefix(t, "edges "):
			nEdges, err = strconv.Atoi(strings.TrimPrefix(t, "edges "))
		case strings.HasPrefix(t, "initial "):
			g.Initial, err = strconv.Atoi(strings.TrimPrefix(t, "initial "))
		case strings.HasPrefix(t, "actions"):
			actions = strings.Fields(strings.TrimPrefix(t, "actions"))
		case strings.HasPrefix(t, "s "):
			g.States = append(g.States, t[2:])
		case strings.HasPrefix(t, "e "):
			f := strings.Fields(t)
			var n [3]int
			if len(f) != 4 {
				err = fmt.Errorf("malformed edge %q", t)
			}
			for i := 0; i < 3 && err == nil; i++ {
				n[i], err = strconv.Atoi(f[i+1])
			}
			if err == nil && (n[2] < 0 || n[2] >= len(actions)) {
				err = fmt.Errorf("edge %q names action %d of %d", t, n[2], len(actions))
			}
			if err == nil {
				from := prev + n[0]
				g.Edges = append(g.Edges, Edge{From: from, To: from + n[1], Action: actions[n[2]]})
				prev = from
			}
		default:
			err = fmt.Errorf("unexpected %q", t)
		}
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(g.States) != nStates || len(g.Edges) != nEdges {
		return nil, fmt.Errorf("header says %d states and %d edges, file has %d and %d", nStates, nEdges, len(g.States), len(g.Edges))
	}
	if g.Initial < 0 || g.Initial >= len(g.States) {
		return nil, fmt.Errorf("initial state %d out of range", g.Initial)
	}
	for _, e := range g.Edges {
		if e.From < 0 || e.From >= len(g.States) || e.To < 0 || e.To >= len(g.States) {
			return nil, fmt.Errorf("edge %+v out of range", e)
		}
	}
	return g, nil
}

// ReadFile reads a graph file.
func ReadFile(path string) (*Graph, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f)
}

// WriteFile writes a graph file.
func (g *Graph) WriteFile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := g.Write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// SourceFiles are the files, relative to tla/, whose content determines the
// agreement graph of a configuration of the model-checking module mc
// (MCSchedulingQueue, MCSchedulingQueueHints): the spec mc extends (its name
// without "MC"), mc itself, and the configuration.
func SourceFiles(mc, cfg string) []string {
	return []string{strings.TrimPrefix(mc, "MC") + ".tla", mc + ".tla", cfg}
}

// SourceHash is the sha256 over SourceFiles(mc, cfg) in dir (each as its name,
// a newline, its length, a newline and its content), so that a graph
// produced from other versions of these files is detected as stale.
// Carriage returns are dropped so that a checkout with CRLF line ends
// hashes the same.
func SourceHash(dir, mc, cfg string) (string, error) {
	h := sha256.New()
	for _, name := range SourceFiles(mc, cfg) {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return "", err
		}
		b = []byte(strings.ReplaceAll(string(b), "\r", ""))
		fmt.Fprintf(h, "%s\n%d\n", name, len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Diff describes how two graphs differ (states and edges each has that the
// other lacks, at most limit of each kind), or returns "" if they are equal.
// Edges are compared by their states' encodings, not indices.
func Diff(a, b *Graph, nameA, nameB string, limit int) string {
	var out strings.Builder
	setA, setB := toSet(a.States), toSet(b.States)
	only := func(x []string, inY map[string]bool, nx, ny string) {
		n := 0
		for _, s := range x {
			if !inY[s] {
				if n < limit {
					fmt.Fprintf(&out, "state only in %s (not in %s):\n    %s\n", nx, ny, s)
				}
				n++
			}
		}
		if n > limit {
			fmt.Fprintf(&out, "... and %d more states only in %s\n", n-limit, nx)
		}
	}
	only(a.States, setB, nameA, nameB)
	only(b.States, setA, nameB, nameA)
	if a.States[a.Initial] != b.States[b.Initial] {
		fmt.Fprintf(&out, "initial states differ:\n    %s: %s\n    %s: %s\n", nameA, a.States[a.Initial], nameB, b.States[b.Initial])
	}
	ea, eb := edgeSet(a), edgeSet(b)
	onlyEdges := func(x *Graph, inY map[string]bool, nx, ny string) {
		n := 0
		for _, e := range x.Edges {
			k := edgeKey(x, e)
			if !inY[k] {
				if n < limit {
					fmt.Fprintf(&out, "step only in %s (not in %s):\n    %s\n  --%s-->\n    %s\n", nx, ny, x.States[e.From], e.Action, x.States[e.To])
				}
				n++
			}
		}
		if n > limit {
			fmt.Fprintf(&out, "... and %d more steps only in %s\n", n-limit, nx)
		}
	}
	onlyEdges(a, eb, nameA, nameB)
	onlyEdges(b, ea, nameB, nameA)
	return out.String()
}

func toSet(ss []string) map[string]bool {
	m := make(map[string]bool, len(ss))
	for _, s := range ss {
		m[s] = true
	}
	return m
}

func edgeKey(g *Graph, e Edge) string {
	return g.States[e.From] + "\x00" + e.Action + "\x00" + g.States[e.To]
}

func edgeSet(g *Graph) map[string]bool {
	m := make(map[string]bool, len(g.Edges))
	for _, e := range g.Edges {
		m[edgeKey(g, e)] = true
	}
	return m
}

// ActionCounts counts the edges of each action, for reports.
func (g *Graph) ActionCounts() map[string]int {
	m := make(map[string]int)
	for _, e := range g.Edges {
		m[e.Action]++
	}
	return m
}
