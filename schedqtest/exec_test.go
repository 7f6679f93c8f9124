package schedqtest_test

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// The state shows nanosecond time and each backoffQ pod's expiry, so the
// R7 boundary is visible.
func TestRenderShowsTheBackoffBoundary(t *testing.T) {
	r, err := schedqtest.NewModelRun(schedqtest.Config(), schedqtest.Start)
	if err != nil {
		t.Fatal(err)
	}
	var outs []string
	for _, op := range schedqtest.MustParseOps(t, "add a prio=10", "pop", "fail a", "tick 1s", "flush-backoff", "tick 1ns", "flush-backoff") {
		_, line, err := r.Apply(op)
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, line+"\n"+r.Render())
	}
	for i, want := range []string{
		"ok\nnow=+0s\nactiveQ: a(prio=10 ts=+0s first=+0s attempts=0)\nbackoffQ: -\nunschedulablePods: -\ninFlight: -\nschedulingCycle=0 moveRequestCycle=-1\n",
		"popped a cycle=1 attempts=1\n",
		"backoffQ: a(prio=10 ts=+0s first=+0s attempts=1 expiry=+1s)\n",
		"now=+1s\n",
		"backoffQ: a(prio=10 ts=+0s first=+0s attempts=1 expiry=+1s)\n",
		"now=+1.000000001s\n",
		"activeQ: a(prio=10 ts=+0s first=+0s attempts=1)\nbackoffQ: -\n",
	} {
		if !strings.Contains(outs[i], want) {
			t.Errorf("step %d: output lacks %q:\n%s", i+1, want, outs[i])
		}
	}
}

func TestRenderAbsoluteAndClosed(t *testing.T) {
	s := spec.Snapshot{Now: schedqtest.Start.Add(time.Nanosecond), Closed: true, MoveRequestCycle: -1,
		UnschedulablePods: []spec.QueuedPodInfo{{Pod: &spec.Pod{Namespace: "other", Name: "c", UID: "u"}, Timestamp: schedqtest.Start,
			Attempts: 1, UnschedulablePlugins: spec.NewPluginSet("TaintToleration", "NodeResourcesFit")}}}
	got := schedqtest.Render(s, time.Time{}, schedqtest.Config())
	for _, want := range []string{"now=2026-01-01T00:00:00.000000001Z\n",
		"unschedulablePods: other/c(uid=u ts=2026-01-01T00:00:00Z attempts=1 plugins=NodeResourcesFit,TaintToleration)\n",
		"activeQ: -\n", "schedulingCycle=0 moveRequestCycle=-1 closed\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("Render lacks %q:\n%s", want, got)
		}
	}
}

// "fail a" hands back exactly what Pop returned, with the plugins set, and
// the cycle Pop returned.
func TestExecutorFailHandsBackWhatPopReturned(t *testing.T) {
	r, err := schedqtest.NewModelRun(schedqtest.Config(), schedqtest.Start)
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range schedqtest.MustParseOps(t, "add a", "add b", "pop", "pop", "tick 1s") {
		if _, _, err := r.Apply(op); err != nil {
			t.Fatal(err)
		}
	}
	op := schedqtest.MustParseOps(t, "fail b plugins=(TaintToleration,NodeResourcesFit)")[0]
	info, cycle, err := r.Exec.FailInfo(op)
	if err != nil {
		t.Fatal(err)
	}
	popped, _ := r.Exec.Popped(schedqtest.Key("b"))
	want := popped.Info
	// As written: normalising the set is the queue's job (R3).
	want.UnschedulablePlugins = spec.PluginSet{"TaintToleration", "NodeResourcesFit"}
	if !schedqtest.InfoEqual(info, &want) || cycle != 2 {
		t.Errorf("FailInfo = %+v cycle %d, want %+v cycle 2", info, cycle, want)
	}
	o, line, err := r.Apply(op)
	if err != nil || o.Step != (spec.StepRecord{Rule: spec.R3AddUnschedulable, Pod: schedqtest.Key("b"), PodSchedulingCycle: 2}) || line != "ok" {
		t.Errorf("fail b: %+v %q %v", o.Step, line, err)
	}
	if _, _, err := r.Apply(schedqtest.MustParseOps(t, "fail ghost")[0]); !errors.Is(err, schedqtest.ErrScenario) || !strings.Contains(err.Error(), "never-popped") {
		t.Errorf("fail of a pod never popped: %v, want a scenario error naming never-popped", err)
	}
}

// A blocked Pop waits on the model and completes on the operation that
// fills activeQ, or with ErrClosed on close.
func TestModelRunBlockedPop(t *testing.T) {
	r, err := schedqtest.NewModelRun(schedqtest.Config(), schedqtest.Start)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, op := range schedqtest.MustParseOps(t, "pop blocked", "pop blocked", "tick 1s", "add a", "close") {
		_, line, err := r.Apply(op)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, line)
	}
	want := []string{"blocked", "blocked", "ok", "ok\nwoke pop: popped a cycle=1 attempts=1", "ok\nwoke pop: error: schedq: queue closed"}
	if !reflect.DeepEqual(lines, want) {
		t.Errorf("lines = %q, want %q", lines, want)
	}
	if _, _, err := r.Apply(schedqtest.MustParseOps(t, "pop blocked")[0]); !errors.Is(err, schedqtest.ErrScenario) {
		t.Errorf("pop blocked on a closed queue: %v, want a scenario error", err)
	}
}

func TestUpdateAndAssignedVersions(t *testing.T) {
	r, err := schedqtest.NewModelRun(schedqtest.Config(), schedqtest.Start)
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range schedqtest.MustParseOps(t, "add a prio=3 labels=(app=web)", "update a labels=(v=x) touch") {
		if _, _, err := r.Apply(op); err != nil {
			t.Fatal(err)
		}
	}
	old, nw := r.Exec.UpdatePods(schedqtest.MustParseOps(t, "update a prio=7")[0])
	if old.Priority != 3 || old.Labels["v"] != "x" || old.ResourceVersion != "1" || nw.Priority != 7 || nw.Labels["v"] != "x" {
		t.Errorf("update builds %+v -> %+v", old, nw)
	}
	old, nw = r.Exec.UpdatePods(schedqtest.MustParseOps(t, "update a rename=b")[0])
	if old.Key() == nw.Key() || nw.UID != "uid-b" {
		t.Errorf("rename builds %+v -> %+v", old, nw)
	}
	ao, an := schedqtest.AssignedPods(schedqtest.MustParseOps(t, "assigned-update web-0 labels=(app=web) old-labels=() event=AssignedPodUpdate")[0])
	if len(ao.Labels) != 0 || an.Labels["app"] != "web" || an.UID != "uid-web-0" {
		t.Errorf("assigned-update builds %+v -> %+v", ao, an)
	}
}

func TestSameError(t *testing.T) {
	wrap := func(e error) error { return fmt.Errorf("detail: %w", e) }
	other := errors.New("boom")
	for _, c := range []struct {
		want, got error
		same      bool
	}{
		{nil, nil, true},
		{spec.ErrNilPod, nil, false},
		{nil, spec.ErrNilPod, false},
		{spec.ErrNilPod, wrap(spec.ErrNilPod), true},
		{wrap(spec.ErrAlreadyQueued), wrap(spec.ErrAlreadyQueued), true},
		{spec.ErrInvalidPod, spec.ErrNilPod, false},
		{spec.ErrClosed, other, false},
		{other, errors.New("bang"), true},
	} {
		if got := schedqtest.SameError(c.want, c.got); got != c.same {
			t.Errorf("SameError(%v, %v) = %v, want %v", c.want, c.got, got, c.same)
		}
	}
}

func TestInfoEqual(t *testing.T) {
	base := spec.QueuedPodInfo{Pod: schedqtest.Pod("a", 1), Timestamp: schedqtest.Start, Attempts: 1,
		UnschedulablePlugins: spec.NewPluginSet("X"), InitialAttemptTimestamp: schedqtest.Start}
	same := base
	same.Pod = schedqtest.Pod("a", 1)
	if !schedqtest.InfoEqual(&base, &same) || !schedqtest.InfoEqual(nil, nil) || schedqtest.InfoEqual(&base, nil) {
		t.Fatal("InfoEqual rejects equal infos")
	}
	for name, change := range map[string]func(*spec.QueuedPodInfo){
		"pod":       func(q *spec.QueuedPodInfo) { q.Pod = schedqtest.Pod("a", 2) },
		"timestamp": func(q *spec.QueuedPodInfo) { q.Timestamp = q.Timestamp.Add(1) },
		"attempts":  func(q *spec.QueuedPodInfo) { q.Attempts++ },
		"plugins":   func(q *spec.QueuedPodInfo) { q.UnschedulablePlugins = nil },
		"initial":   func(q *spec.QueuedPodInfo) { q.InitialAttemptTimestamp = time.Time{} },
	} {
		c := base
		change(&c)
		if schedqtest.InfoEqual(&base, &c) {
			t.Errorf("InfoEqual misses a different %s", name)
		}
	}
}

// FormatScenario writes a file ParseScenario reads back to the same
// scenario, with the model's output after each operation.
func TestFormatScenarioRoundTrip(t *testing.T) {
	sc := schedqtest.Scenario{
		Name:    "regressions/example",
		Comment: []string{"A pod fails and comes back after its backoff."},
		Rules:   []string{"R3", "R5"},
		KnownDifferences: []schedqtest.KnownDifference{{Profiles: []string{"p1", "p2"}, Reason: "it differs",
			Source: "file.go:1 (f)", Kind: schedqtest.KindBug, Finding: "F01"}},
		Config:   schedqtest.ConfigChange{InitialBackoff: 2 * time.Second},
		Requires: []string{schedqtest.RequirePodInfo},
		Ops:      schedqtest.MustParseOps(t, "add a", "pop", "fail a plugins=(NodeResourcesFit)", "move NodeAdd", "tick 2.000000001s", "flush-backoff"),
	}
	roundTrip(t, sc, "rules R3 R5\n----\n", "known-difference profiles=(p1,p2) kind=bug finding=F01\nit differs\nsource: file.go:1 (f)\n----\n",
		"config initial-backoff=2s\n----\n", "fail a plugins=(NodeResourcesFit)\n----\nok\nnow=+0s\n",
		"backoffQ: a(ts=+0s first=+0s attempts=1 expiry=+2s plugins=NodeResourcesFit)")
	if _, err := schedqtest.FormatScenario(schedqtest.Scenario{Ops: schedqtest.MustParseOps(t, "fail a")}); err == nil {
		t.Error("FormatScenario accepted fail of a pod never popped")
	}
	if _, err := schedqtest.ParseScenario("x", "add a\n----\nok\n\nrules R1\n----\n"); err == nil {
		t.Error("ParseScenario accepted a header directive after an operation")
	}
	for _, bad := range []string{"", "kind=feature", "kind=change finding=F01"} {
		if _, err := schedqtest.ParseScenario("x", "known-difference profiles=(p) "+bad+"\nwhy\nsource: f.go:1\n----\n"); err == nil {
			t.Errorf("ParseScenario accepted a known difference with %s", bad)
		}
	}
}

// roundTrip checks that FormatScenario writes sc with every one of wants
// in its text and that ParseScenario reads the text back to sc.
func roundTrip(t *testing.T, sc schedqtest.Scenario, wants ...string) {
	t.Helper()
	text, err := schedqtest.FormatScenario(sc)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range wants {
		if !strings.Contains(text, want) {
			t.Errorf("scenario text lacks %q:\n%s", want, text)
		}
	}
	back, err := schedqtest.ParseScenario(sc.Name, text)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, sc) {
		t.Errorf("ParseScenario(FormatScenario(sc)) = %+v\nwant %+v", back, sc)
	}
}

// A hints scenario: "config profile=hints" selects HintsConfig, the state
// shows the hint fields and the in-flight list, and the file reads back to
// the same scenario.
func TestFormatHintsScenarioRoundTrip(t *testing.T) {
	sc := schedqtest.Scenario{
		Name:   "hints/example",
		Rules:  []string{"R3h", "R15"},
		Config: schedqtest.ConfigChange{Profile: spec.ProfileHints, NoBackoff: true},
		Ops: schedqtest.MustParseOps(t, "add a", "add g labels=(gated=yes)", "pop", "move NodeAdd",
			"fail a plugins=(Fit) pending=(Gate)", "nominate a node=n1", "nominated n1"),
	}
	roundTrip(t, sc, "config profile=hints max-backoff=0s\n----\n",
		"inFlightEvents: pod:ns/a NodeAdd\n",
		"unschedulablePods: g(labels=(gated=yes) ts=+0s attempts=0 plugins=Gate gatedBy=Gate)",
		"activeQ: a(ts=+0s first=+0s attempts=1 plugins=Fit unschedulableCount=1 pending=Gate)",
		"nominated n1\n----\nnominated to n1: a\n")
	if _, err := schedqtest.FormatScenario(schedqtest.Scenario{Config: schedqtest.ConfigChange{NoBackoff: true},
		Ops: schedqtest.MustParseOps(t, "add a")}); err == nil {
		t.Error("FormatScenario accepted max-backoff=0s in the classic profile")
	}
	if _, err := schedqtest.ParseScenario("x", "config profile=fancy\n----\n"); err == nil {
		t.Error("ParseScenario accepted an unknown profile")
	}
}
