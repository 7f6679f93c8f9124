package stategraph

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// FromDot reads the state graph TLC writes with `-dump dot,actionlabels`
// for SchedulingQueue.tla (or its hints and pod-groups siblings) and
// returns it in canonical form. Edges are
// labelled with the action's name only: some TLC versions append the
// arguments, e.g. Pop("a"), others do not, and the states an edge joins
// already tell most arguments apart. Every state must satisfy the ghost of
// I3 (lostWakeUp = FALSE): a graph that does not is no reference for the Go
// model.
func FromDot(r io.Reader) (*Graph, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<22)
	b := NewBuilder()
	ids := make(map[string]int) // TLC fingerprint -> builder index
	type rawEdge struct{ from, to, action string }
	var edges []rawEdge
	initial := ""
	line := 0
	for sc.Scan() {
		t := strings.TrimSpace(sc.Text())
		line++
		id, rest, ok := strings.Cut(t, " ")
		if !ok || !isInt(id) {
			continue // graph attributes, rank lines, braces
		}
		if after, isEdge := strings.CutPrefix(rest, "-> "); isEdge {
			to, _, _ := strings.Cut(after, " ")
			action, err := attr(after, "label")
			if err != nil {
				return nil, fmt.Errorf("dot line %d: %w", line, err)
			}
			action, _, _ = strings.Cut(action, "(")
			edges = append(edges, rawEdge{id, to, action})
			continue
		}
		label, err := attr(rest, "label")
		if err != nil {
			return nil, fmt.Errorf("dot line %d: %w", line, err)
		}
		st, err := parseTLCState(label)
		if err != nil {
			return nil, fmt.Errorf("dot line %d: %w\n%s", line, err, label)
		}
		enc := st.String()
		i, _ := b.State(enc)
		if prev, dup := ids[id]; dup && prev != i {
			return nil, fmt.Errorf("dot line %d: TLC state %s has two encodings", line, id)
		}
		ids[id] = i
		if strings.Contains(rest, "style = filled") { // TLC fills initial states
			if initial != "" && initial != enc {
				return nil, fmt.Errorf("dot line %d: more than one initial state", line)
			}
			initial = enc
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if initial == "" {
		return nil, fmt.Errorf("no initial state (a filled node) in the dot file")
	}
	b.SetInitial(initial)
	for _, e := range edges {
		from, ok1 := ids[e.from]
		to, ok2 := ids[e.to]
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("edge %s -> %s names a state the dot file does not define", e.from, e.to)
		}
		b.Edge(from, e.action, to)
	}
	return b.Graph(), nil
}

func isInt(s string) bool {
	_, err := strconv.ParseInt(s, 10, 64)
	return err == nil
}

// attr returns the unescaped value of a quoted dot attribute.
func attr(s, name string) (string, error) {
	i := strings.Index(s, name+"=\"")
	if i < 0 {
		return "", fmt.Errorf("no %s attribute in %q", name, s)
	}
	s = s[i+len(name)+2:]
	var b strings.Builder
	for j := 0; j < len(s); j++ {
		switch c := s[j]; c {
		case '"':
			return b.String(), nil
		case '\\':
			j++
			if j == len(s) {
				return "", fmt.Errorf("unterminated escape in %s", name)
			}
			switch s[j] {
			case 'n', 'l', 'r':
				b.WriteByte('\n')
			default:
				b.WriteByte(s[j])
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", fmt.Errorf("unterminated %s attribute", name)
}

// parseTLCState turns "/\ var = value" lines into a State.
func parseTLCState(text string) (State, error) {
	vars := make(map[string]Value)
	for _, part := range strings.Split(text, "/\\")[1:] {
		name, val, ok := strings.Cut(part, "=")
		if !ok {
			return State{}, fmt.Errorf("no '=' in %q", part)
		}
		v, err := ParseValue(val)
		if err != nil {
			return State{}, fmt.Errorf("variable %s: %w", strings.TrimSpace(name), err)
		}
		vars[strings.TrimSpace(name)] = v
	}
	return stateFromVars(vars)
}

// stateFromVars maps the variables of SchedulingQueue.tla, of
// SchedulingQueueHints.tla (recognised by its in-flight list) or of
// SchedulingQueuePodGroups.tla (by pendingPodGroupPods) to a State.
func stateFromVars(vars map[string]Value) (State, error) {
	if _, ok := vars["inFlightEvents"]; ok {
		return hintsStateFromVars(vars)
	}
	if _, ok := vars["pendingPodGroupPods"]; ok {
		g, err := groupsStateFromVars(vars)
		return State{Groups: &g}, err
	}
	var err error
	get := getter(vars, &err)
	known := []string{"activeQ", "backoffQ", "unschedulablePods", "inFlight", "attempts", "timestamp",
		"initialAttemptTimestamp", "unschedulablePlugins", "podSchedulingCycle", "now", "schedulingCycle",
		"moveRequestCycle", "lostWakeUp", "closed", "poppedAfterClose", "updateSkippedBackoff"}
	if err := checkKnown(vars, known, "SchedulingQueue.tla"); err != nil {
		return State{}, err
	}
	s := State{Pods: make(map[string]Pod)}
	s.Now = get("now").Int(&err)
	s.SchedulingCycle = get("schedulingCycle").Int(&err)
	s.MoveRequestCycle = get("moveRequestCycle").Int(&err)
	if get("lostWakeUp").Bool(&err) {
		return State{}, fmt.Errorf("lostWakeUp is TRUE: TLC reached a state that breaks I3")
	}
	s.Closed = get("closed").Bool(&err)
	if err := ghostsFalse(get, "poppedAfterClose", "updateSkippedBackoff"); err != nil {
		return State{}, err
	}
	attempts := get("attempts").Record(&err)
	timestamp := get("timestamp").Record(&err)
	initial := get("initialAttemptTimestamp").Record(&err)
	plugins := get("unschedulablePlugins").Record(&err)
	cycle := get("podSchedulingCycle").Record(&err)
	places := placesOf(get, &err)
	if err != nil {
		return State{}, err
	}
	for pod := range attempts {
		p := Pod{}
		if p.Loc, err = locate(pod, places); err != nil {
			return State{}, err
		}
		p.Attempts = attempts[pod].Int(&err)
		p.Timestamp = timestamp[pod].Int(&err)
		p.InitialAttempt = initial[pod].Int(&err)
		p.Plugins = plugins[pod].Strings(&err)
		p.SchedulingCycle = cycle[pod].Int(&err)
		if err != nil {
			return State{}, fmt.Errorf("pod %s: %w", pod, err)
		}
		if p.Loc == None && (p.Attempts != 0 || p.Timestamp != 0 || p.InitialAttempt != NoTime || len(p.Plugins) != 0 || p.SchedulingCycle != 0) {
			return State{}, fmt.Errorf("pod %s is held nowhere yet has data %+v", pod, p)
		}
		if p.Loc != InFlight && p.SchedulingCycle != 0 {
			return State{}, fmt.Errorf("pod %s in %s has podSchedulingCycle %d", pod, p.Loc, p.SchedulingCycle)
		}
		s.Pods[pod] = p
	}
	return s, nil
}

// hintsStateFromVars maps the variables of SchedulingQueueHints.tla to a
// State. The ghost `received` is not part of the queue's state: as the
// invariant NoLostEvent says, it equals what the in-flight list holds after
// each marker, so it never tells two states apart. The ghost of I3h must be
// FALSE.
func hintsStateFromVars(vars map[string]Value) (State, error) {
	var err error
	get := getter(vars, &err)
	known := []string{"activeQ", "backoffQ", "unschedulablePods", "inFlight", "attempts", "timestamp",
		"initialAttemptTimestamp", "unschedulablePlugins", "pendingPlugins", "unschedulableCount",
		"consecutiveErrorsCount", "gatingPlugin", "flushTimestamp", "schedulingGate", "inFlightEvents",
		"now", "schedulingCycle", "received", "lostEvent", "strandedByNarrowing", "closed", "nominated", "poppedAfterClose"}
	if err := checkKnown(vars, known, "SchedulingQueueHints.tla"); err != nil {
		return State{}, err
	}
	s := State{Pods: make(map[string]Pod), Hints: true, MoveRequestCycle: -1}
	s.Now = get("now").Int(&err)
	s.SchedulingCycle = get("schedulingCycle").Int(&err)
	if get("lostEvent").Bool(&err) {
		return State{}, fmt.Errorf("lostEvent is TRUE: TLC reached a state that breaks I3h")
	}
	if err := ghostsFalse(get, "poppedAfterClose"); err != nil {
		return State{}, err
	}
	if _, ok := vars["strandedByNarrowing"]; ok { // I8's ghost, absent from graphs dumped before it
		if err := ghostsFalse(get, "strandedByNarrowing"); err != nil {
			return State{}, err
		}
	}
	s.Closed = get("closed").Bool(&err)
	nominated := get("nominated").Record(&err)
	nodes := make([]string, 0, len(nominated))
	for n := range nominated {
		nodes = append(nodes, n)
	}
	slices.Sort(nodes)
	for _, n := range nodes {
		var pods []string
		for _, p := range nominated[n].Seq(&err) {
			pods = append(pods, p.Str(&err))
		}
		if len(pods) > 0 {
			s.Nominated = append(s.Nominated, NodePods{Node: n, Pods: pods})
		}
	}
	attempts := get("attempts").Record(&err)
	timestamp := get("timestamp").Record(&err)
	initial := get("initialAttemptTimestamp").Record(&err)
	plugins := get("unschedulablePlugins").Record(&err)
	pending := get("pendingPlugins").Record(&err)
	uc := get("unschedulableCount").Record(&err)
	ce := get("consecutiveErrorsCount").Record(&err)
	gating := get("gatingPlugin").Record(&err)
	flush := get("flushTimestamp").Record(&err)
	gate := get("schedulingGate").Record(&err)
	list := get("inFlightEvents").Seq(&err)
	places := placesOf(get, &err)
	if err != nil {
		return State{}, err
	}
	for _, e := range list {
		f := e.Record(&err)
		pod, event, target := f["pod"].Str(&err), f["event"].Str(&err), f["target"].Str(&err)
		if err != nil {
			return State{}, fmt.Errorf("inFlightEvents: %w", err)
		}
		switch {
		case pod != "":
			s.InFlightEvents = append(s.InFlightEvents, "pod:"+pod)
		case target != "":
			s.InFlightEvents = append(s.InFlightEvents, event+">"+target)
		default:
			s.InFlightEvents = append(s.InFlightEvents, event)
		}
	}
	for pod := range attempts {
		p := Pod{}
		if p.Loc, err = locate(pod, places); err != nil {
			return State{}, err
		}
		p.Attempts = attempts[pod].Int(&err)
		p.Timestamp = timestamp[pod].Int(&err)
		p.InitialAttempt = initial[pod].Int(&err)
		p.Plugins = plugins[pod].Strings(&err)
		p.Pending = pending[pod].Strings(&err)
		p.UnschedulableCount = uc[pod].Int(&err)
		p.ConsecutiveErrorsCount = ce[pod].Int(&err)
		p.GatingPlugin = gating[pod].Str(&err)
		p.FlushTimestamp = flush[pod].Int(&err)
		p.SchedulingGate = gate[pod].Bool(&err)
		if err != nil {
			return State{}, fmt.Errorf("pod %s: %w", pod, err)
		}
		if p.Loc == None && (p.Attempts != 0 || p.Timestamp != 0 || p.InitialAttempt != NoTime || len(p.Plugins) != 0 ||
			len(p.Pending) != 0 || p.UnschedulableCount != 0 || p.ConsecutiveErrorsCount != 0 || p.GatingPlugin != "" ||
			p.FlushTimestamp != NoTime || p.SchedulingGate) {
			return State{}, fmt.Errorf("pod %s is held nowhere yet has data %+v", pod, p)
		}
		if p.Loc == None {
			p = Pod{Loc: None}
		}
		s.Pods[pod] = p
	}
	return s, nil
}

// ghostsFalse checks that the ghosts of invariants are FALSE: a graph with
// a state that breaks one is no reference for the Go model.
func ghostsFalse(get func(string) Value, names ...string) error {
	var err error
	for _, name := range names {
		if get(name).Bool(&err) {
			return fmt.Errorf("%s is TRUE: TLC reached a state that breaks an invariant", name)
		}
	}
	return err
}

func getter(vars map[string]Value, err *error) func(string) Value {
	return func(name string) Value {
		v, ok := vars[name]
		if !ok && *err == nil {
			*err = fmt.Errorf("the state has no variable %s", name)
		}
		return v
	}
}

func checkKnown(vars map[string]Value, known []string, module string) error {
	for name := range vars {
		if !slices.Contains(known, name) {
			return fmt.Errorf("unknown variable %s: the converter and %s are out of step", name, module)
		}
	}
	return nil
}

type place struct {
	loc string
	set []string
}

func placesOf(get func(string) Value, err *error) []place {
	return []place{
		{ActiveQ, get("activeQ").Strings(err)},
		{BackoffQ, get("backoffQ").Strings(err)},
		{UnschedulablePods, get("unschedulablePods").Strings(err)},
		{InFlight, get("inFlight").Strings(err)},
	}
}

// locate returns the one place holding pod, or None.
func locate(pod string, places []place) (string, error) {
	loc := None
	for _, pl := range places {
		if slices.Contains(pl.set, pod) {
			if loc != None {
				return "", fmt.Errorf("pod %s is in %s and %s", pod, loc, pl.loc)
			}
			loc = pl.loc
		}
	}
	return loc, nil
}

// Value is a TLC value: an int, a string, a boolean, a set (Set, sorted as
// TLC prints it), a sequence (Set, in order) or a record/function with
// string keys (Rec).
type Value struct {
	Kind byte // 'i', 's', 'b', '{', '<', '['
	I    int
	S    string
	B    bool
	Set  []Value
	Rec  map[string]Value
}

// Int returns an int value or sets *err.
func (v Value) Int(err *error) int {
	if v.Kind != 'i' && *err == nil {
		*err = fmt.Errorf("%v is not an integer", v)
	}
	return v.I
}

// Bool returns a boolean value or sets *err.
func (v Value) Bool(err *error) bool {
	if v.Kind != 'b' && *err == nil {
		*err = fmt.Errorf("%v is not a boolean", v)
	}
	return v.B
}

// Str returns a string value or sets *err.
func (v Value) Str(err *error) string {
	if v.Kind != 's' && *err == nil {
		*err = fmt.Errorf("%v is not a string", v)
	}
	return v.S
}

// Seq returns the elements of a sequence or sets *err.
func (v Value) Seq(err *error) []Value {
	if v.Kind != '<' && *err == nil {
		*err = fmt.Errorf("%v is not a sequence", v)
	}
	return v.Set
}

// Record returns a record's fields or sets *err.
func (v Value) Record(err *error) map[string]Value {
	if v.Kind != '[' && *err == nil {
		*err = fmt.Errorf("%v is not a record", v)
	}
	return v.Rec
}

// Strings returns a set of strings, sorted, or sets *err.
func (v Value) Strings(err *error) []string {
	if v.Kind != '{' {
		if *err == nil {
			*err = fmt.Errorf("%v is not a set", v)
		}
		return nil
	}
	var out []string
	for _, e := range v.Set {
		if e.Kind != 's' {
			if *err == nil {
				*err = fmt.Errorf("%v is not a string", e)
			}
			return nil
		}
		out = append(out, e.S)
	}
	slices.Sort(out)
	return out
}

// ParseValue parses the TLC print form of a value made of integers,
// strings, booleans, sets and records.
func ParseValue(s string) (Value, error) {
	p := &valueParser{s: s}
	v, err := p.value()
	if err != nil {
		return Value{}, err
	}
	p.space()
	if p.i != len(p.s) {
		return Value{}, fmt.Errorf("trailing text %q", p.s[p.i:])
	}
	return v, nil
}

type valueParser struct {
	s string
	i int
}

func (p *valueParser) space() {
	for p.i < len(p.s) && strings.ContainsRune(" \t\n\r", rune(p.s[p.i])) {
		p.i++
	}
}

func (p *valueParser) eat(tok string) bool {
	p.space()
	if strings.HasPrefix(p.s[p.i:], tok) {
		p.i += len(tok)
		return true
	}
	return false
}

// elements reads the comma-separated values of a set or a sequence (kind
// '{' or '<') after its opening bracket, up to and including end.
func (p *valueParser) elements(kind byte, end string) (Value, error) {
	v := Value{Kind: kind}
	if p.eat(end) {
		return v, nil
	}
	for {
		e, err := p.value()
		if err != nil {
			return Value{}, err
		}
		v.Set = append(v.Set, e)
		if p.eat(end) {
			return v, nil
		}
		if !p.eat(",") {
			return Value{}, fmt.Errorf("',' or '%s' expected at %q", end, p.s[p.i:])
		}
	}
}

func (p *valueParser) value() (Value, error) {
	p.space()
	if p.i == len(p.s) {
		return Value{}, fmt.Errorf("value expected at end of %q", p.s)
	}
	switch c := p.s[p.i]; {
	case c == '{':
		p.i++
		return p.elements('{', "}")
	case c == '<':
		if !p.eat("<<") {
			return Value{}, fmt.Errorf("'<<' expected at %q", p.s[p.i:])
		}
		return p.elements('<', ">>")
	case c == '[':
		p.i++
		v := Value{Kind: '[', Rec: make(map[string]Value)}
		for {
			p.space()
			j := p.i
			for p.i < len(p.s) && (isIdent(p.s[p.i])) {
				p.i++
			}
			field := p.s[j:p.i]
			if field == "" || !p.eat("|->") {
				return Value{}, fmt.Errorf("field |-> expected at %q", p.s[j:])
			}
			e, err := p.value()
			if err != nil {
				return Value{}, err
			}
			v.Rec[field] = e
			if p.eat("]") {
				return v, nil
			}
			if !p.eat(",") {
				return Value{}, fmt.Errorf("',' or ']' expected at %q", p.s[p.i:])
			}
		}
	case c == '"':
		j := strings.IndexByte(p.s[p.i+1:], '"')
		if j < 0 {
			return Value{}, fmt.Errorf("unterminated string at %q", p.s[p.i:])
		}
		v := Value{Kind: 's', S: p.s[p.i+1 : p.i+1+j]}
		p.i += j + 2
		return v, nil
	case c == '-' || c >= '0' && c <= '9':
		j := p.i
		p.i++
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
		}
		n, err := strconv.Atoi(p.s[j:p.i])
		if err != nil {
			return Value{}, err
		}
		return Value{Kind: 'i', I: n}, nil
	case p.eat("TRUE"):
		return Value{Kind: 'b', B: true}, nil
	case p.eat("FALSE"):
		return Value{Kind: 'b'}, nil
	}
	return Value{}, fmt.Errorf("unsupported value at %q", p.s[p.i:])
}

func isIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
