package stategraph

import (
	"bytes"
	"strings"
	"testing"
)

// A two-state dump in the form TLC writes with -dump dot,actionlabels
// (newer TLC versions put the arguments into the label).
const dot = `strict digraph DiskGraph {
nodesep=0.35;
subgraph cluster_graph {
color="white";
-1 [label="/\\ activeQ = {}\n/\\ backoffQ = {}\n/\\ unschedulablePods = {}\n/\\ inFlight = {}\n/\\ attempts = [a |-> 0]\n/\\ timestamp = [a |-> 0]\n/\\ initialAttemptTimestamp = [a |-> -1]\n/\\ unschedulablePlugins = [a |-> {}]\n/\\ podSchedulingCycle = [a |-> 0]\n/\\ now = 0\n/\\ schedulingCycle = 0\n/\\ moveRequestCycle = -1\n/\\ lostWakeUp = FALSE\n/\\ closed = FALSE\n/\\ poppedAfterClose = FALSE\n/\\ updateSkippedBackoff = FALSE",style = filled]
-1 -> 7 [label="Add(\"a\")",color="black",fontcolor="black"];
7 [label="/\\ activeQ = {\"a\"}\n/\\ backoffQ = {}\n/\\ unschedulablePods = {}\n/\\ inFlight = {}\n/\\ attempts = [a |-> 0]\n/\\ timestamp = [a |-> 0]\n/\\ initialAttemptTimestamp = [a |-> 0]\n/\\ unschedulablePlugins = [a |-> {\"P2\", \"P1\"}]\n/\\ podSchedulingCycle = [a |-> 0]\n/\\ now = 0\n/\\ schedulingCycle = 0\n/\\ moveRequestCycle = -1\n/\\ closed = FALSE\n/\\ poppedAfterClose = FALSE\n/\\ updateSkippedBackoff = FALSE\n/\\ lostWakeUp = FALSE",tooltip="..."];
7 -> 7 [label="MoveAllToActiveOrBackoffQueue(\"E2\")",color="black",fontcolor="black"];
7 -> 7 [label="MoveAllToActiveOrBackoffQueue(\"E1\")",color="black",fontcolor="black"];
{rank = same; -1;}
}
}
`

func TestFromDot(t *testing.T) {
	g, err := FromDot(strings.NewReader(dot))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"now=0 schedulingCycle=0 moveRequestCycle=-1 a=activeQ(attempts=0,timestamp=0,initial=0,plugins={P1,P2})",
		"now=0 schedulingCycle=0 moveRequestCycle=-1 a=none",
	}
	if strings.Join(g.States, "\n") != strings.Join(want, "\n") {
		t.Fatalf("states:\n%s\nwant:\n%s", strings.Join(g.States, "\n"), strings.Join(want, "\n"))
	}
	if g.Initial != 1 {
		t.Errorf("initial = %d, want 1", g.Initial)
	}
	wantEdges := []Edge{{0, 0, "MoveAllToActiveOrBackoffQueue"}, {1, 0, "Add"}}
	if len(g.Edges) != len(wantEdges) || g.Edges[0] != wantEdges[0] || g.Edges[1] != wantEdges[1] {
		t.Errorf("edges = %v, want %v", g.Edges, wantEdges)
	}

	var buf bytes.Buffer
	g.SourceHash = "abc"
	if err := g.Write(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if d := Diff(g, back, "written", "read", 3); d != "" || back.SourceHash != "abc" || back.Initial != g.Initial {
		t.Errorf("round trip changed the graph:\n%s", d)
	}
}

func TestFromDotRejectsBrokenI3(t *testing.T) {
	broken := strings.Replace(dot, `closed = FALSE\n/\\ poppedAfterClose = FALSE\n/\\ updateSkippedBackoff = FALSE\n/\\ lostWakeUp = FALSE",tooltip`, `lostWakeUp = TRUE",tooltip`, 1)
	if _, err := FromDot(strings.NewReader(broken)); err == nil || !strings.Contains(err.Error(), "I3") {
		t.Fatalf("FromDot of a state with lostWakeUp = TRUE: err = %v", err)
	}
}

func TestParseValue(t *testing.T) {
	for _, tc := range []struct {
		in   string
		kind byte
	}{
		{"-1", 'i'}, {`"x"`, 's'}, {"TRUE", 'b'}, {"{}", '{'}, {`{"a", "b"}`, '{'},
		{"[a |-> {}, b |-> {\"P1\"}]", '['}, {"[a |-> -1,\n b |-> 2]", '['},
		{"<<>>", '<'}, {`<<[pod |-> "a", event |-> "", target |-> ""], [pod |-> "", event |-> "E1", target |-> ""]>>`, '<'},
	} {
		v, err := ParseValue(tc.in)
		if err != nil || v.Kind != tc.kind {
			t.Errorf("ParseValue(%q) = %+v, %v; want kind %c", tc.in, v, err, tc.kind)
		}
	}
	for _, in := range []string{"", "{", "[a |-> 1", "<<1", "<<1 2>>", "1 2", `"x`} {
		if _, err := ParseValue(in); err == nil {
			t.Errorf("ParseValue(%q) succeeded", in)
		}
	}
}

// A hints state as TLC prints it: the in-flight list holds a marker, a plain
// event and a ForceActivate aimed at "a"; "b" then "a" are nominated to n1;
// the queue is closed.
const hintsState = `/\ activeQ = {}
/\ backoffQ = {}
/\ unschedulablePods = {"b"}
/\ inFlight = {"a"}
/\ attempts = [a |-> 1, b |-> 0]
/\ timestamp = [a |-> 0, b |-> 1]
/\ initialAttemptTimestamp = [a |-> 0, b |-> -1]
/\ unschedulablePlugins = [a |-> {}, b |-> {"G"}]
/\ pendingPlugins = [a |-> {}, b |-> {}]
/\ unschedulableCount = [a |-> 0, b |-> 0]
/\ consecutiveErrorsCount = [a |-> 0, b |-> 0]
/\ gatingPlugin = [a |-> "", b |-> "G"]
/\ flushTimestamp = [a |-> -1, b |-> -1]
/\ schedulingGate = [a |-> FALSE, b |-> TRUE]
/\ inFlightEvents = <<[pod |-> "a", event |-> "", target |-> ""], [pod |-> "", event |-> "E1", target |-> ""], [pod |-> "", event |-> "ForceActivate", target |-> "a"]>>
/\ now = 1
/\ schedulingCycle = 1
/\ received = [a |-> {[pod |-> "", event |-> "E1", target |-> ""]}, b |-> {}]
/\ lostEvent = FALSE
/\ closed = TRUE
/\ nominated = [n1 |-> <<"b", "a">>, n2 |-> <<>>]
/\ poppedAfterClose = FALSE`

func TestHintsState(t *testing.T) {
	s, err := parseTLCState(hintsState)
	if err != nil {
		t.Fatal(err)
	}
	want := "now=1 schedulingCycle=1 " +
		"a=inFlight(attempts=1,timestamp=0,initial=0,plugins={},pending={},unschedulableCount=0,consecutiveErrors=0,gating=-,flush=-,gate=0) " +
		"b=unschedulablePods(attempts=0,timestamp=1,initial=-,plugins={G},pending={},unschedulableCount=0,consecutiveErrors=0,gating=G,flush=-,gate=1) " +
		"inFlightEvents=[pod:a,E1,ForceActivate>a] nominated=[n1:b,a] closed"
	if got := s.String(); got != want {
		t.Errorf("encoding:\n got %s\nwant %s", got, want)
	}
	broken := strings.Replace(hintsState, "lostEvent = FALSE", "lostEvent = TRUE", 1)
	if _, err := parseTLCState(broken); err == nil || !strings.Contains(err.Error(), "I3h") {
		t.Errorf("a state with lostEvent = TRUE: err = %v", err)
	}
	popped := strings.Replace(hintsState, "poppedAfterClose = FALSE", "poppedAfterClose = TRUE", 1)
	if _, err := parseTLCState(popped); err == nil || !strings.Contains(err.Error(), "poppedAfterClose") {
		t.Errorf("a state with poppedAfterClose = TRUE: err = %v", err)
	}
	unknown := hintsState + "\n/\\ moveRequestCycle = -1"
	if _, err := parseTLCState(unknown); err == nil || !strings.Contains(err.Error(), "moveRequestCycle") {
		t.Errorf("a hints state with a classic variable: err = %v", err)
	}
}
