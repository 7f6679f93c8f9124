package schedqtest_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// Every spelling of the language parses and prints back to itself.
func TestParseOpRoundTrip(t *testing.T) {
	for _, line := range []string{
		"add a",
		"add a prio=10",
		"add a ns=other uid=u prio=-3 labels=(app=web,v=1) affinity=(app=web)",
		"add nil",
		"add name= uid=u",
		"add x uid=",
		"add a labels=()",
		"pop",
		"pop blocked",
		"pop choose=b",
		"fail a",
		"fail a cycle=3 plugins=(NodeResourcesFit,TaintToleration)",
		"fail x never-popped attempts=1",
		"fail x never-popped attempts=1 cycle=1 plugins=(NodeResourcesFit)",
		"move NodeAdd",
		"move NodeAdd precheck=(a,b)",
		"move NodeAdd precheck=()",
		"move WildCard",
		"move AssignedPod/UpdatePodScaleDown",
		"move Pod/Delete|UpdatePodScaleDown",
		"move storage.k8s.io/StorageClass/Add",
		"move NodeAdd new=node(name=n1)",
		"move NodeAdd old=node(name=n1) new=node(name=n1,labels=(disk=ssd,zone=a))",
		"move Node/UpdateNodeDeclaredFeature|UpdateNodePreemptionPolicy",
		"move AssignedPod/UpdatePodOther|UpdatePodScaleUp",
		"flush-backoff",
		"flush-leftover",
		"tick 1s",
		"tick 1ns",
		"tick 5m0.000000001s",
		"tick 0s",
		"activate a b",
		"activate nil",
		"activate u nil",
		"activate",
		"update a prio=100",
		"update a labels=(v=x)",
		"update a touch",
		"update a rename=b",
		"update a relevant=yes events=()",
		"update a labels=(v=x) relevant=no events=(TargetPod/UpdatePodLabel,TargetPod/UpdatePodToleration)",
		"delete a",
		"delete nil",
		"assigned-add web-0 labels=(app=web)",
		"assigned-add x ns=other",
		"assigned-update web-0 labels=(app=web) event=AssignedPod/UpdatePodScaleDown",
		"assigned-update web-0 labels=(app=web) old-labels=() event=AssignedPod/UpdatePodLabel",
		"done a",
		"done uid=uid-",
		"done uid=ghost",
		"close",
		"fail a plugins=(Fit) pending=(Gate)",
		"fail a pending=(Fit)",
		"fail x never-popped attempts=2 pending=(Fit)",
		"move NodeLabel",
		"move PodLabel",
		"nominate a node=n1",
		"nominate a mode=noop",
		"nominated n1",
	} {
		op, err := schedqtest.ParseOp(line)
		if err != nil {
			t.Errorf("ParseOp(%q): %v", line, err)
			continue
		}
		if got := op.String(); got != line {
			t.Errorf("ParseOp(%q).String() = %q", line, got)
		}
		again, err := schedqtest.ParseOp(op.String())
		if err != nil || !reflect.DeepEqual(again, op) {
			t.Errorf("ParseOp(%q) = %+v, %v; want %+v", op.String(), again, err, op)
		}
	}
}

// Other spellings parse to the canonical Op: "line => canonical line".
const synonyms = `
fail x never-popped                       => fail x never-popped attempts=1
done uid=uid-a                            => done a
add a labels=(app=web, v=1)               => add a labels=(app=web,v=1)
fail a plugins=()                         => fail a
add name=a                                => add a
move Node/Add                             => move NodeAdd
move Node/UpdateNodeTaint                 => move NodeTaint
move AssignedPod/Delete                   => move AssignedPodDelete
tick 1500ms                               => tick 1.5s
  add   a   prio=2                        => add a prio=2
update a touch labels=(v=x)               => update a labels=(v=x) touch
assigned-update w event=AssignedPodUpdate => assigned-update w event=AssignedPodUpdate
fail a pending=()                         => fail a
move Node/UpdateNodeLabel                 => move NodeLabel
nominate a mode=override node=n1          => nominate a node=n1
`

func TestParseOpSynonyms(t *testing.T) {
	for _, row := range strings.Split(strings.TrimSpace(synonyms), "\n") {
		line, canon, _ := strings.Cut(row, "=>")
		op, err := schedqtest.ParseOp(line)
		if err != nil {
			t.Errorf("ParseOp(%q): %v", line, err)
			continue
		}
		if got, want := op.String(), strings.TrimSpace(canon); got != want {
			t.Errorf("ParseOp(%q).String() = %q, want %q", line, got, want)
		}
	}
}

// Bad lines get an error that says what is wrong: "line => part of the
// error".
const badLines = `
move NodeAdd new=pod(a) => want node(name=N)
move NodeAdd new=node(name=) => plain name
move NodeAdd new=node(name=n1,labels=(zone)) => not key=value
update a relevant=maybe => want yes or no
update a events=(Bogus) => unknown event
                         => empty
frobnicate a             => unknown operation
add                      => missing pod name
add a prio=x             => not an integer
add a colour=red         => unexpected
pop a                    => unexpected
fail                     => missing pod name
fail a cycle=            => not an integer
move                     => missing event
move NoSuchEvent         => unknown event
move Node/Explode        => unknown action
tick                     => missing duration
tick soon                => Go duration
tick -1s                 => non-negative
update a prio=1 prio=2   => unexpected
add a labels=(novalue)   => key=value
assigned-update w        => missing event=
add a labels=(a=b        => cannot parse
done                     => missing pod name
pop blocked=yes          => takes no value
nominate a               => missing node=
nominate a mode=later    => want override or noop
nominate a mode=noop node=n1 => takes no node=
nominated                => missing node name
`

func TestParseOpErrors(t *testing.T) {
	for _, row := range strings.Split(strings.Trim(badLines, "\n"), "\n") {
		line, want, _ := strings.Cut(row, "=>")
		want = strings.TrimSpace(want)
		_, err := schedqtest.ParseOp(line)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseOp(%q) = %v, want an error containing %q", line, err, want)
		}
	}
}

var (
	names   = []string{"a", "b", "web-0", "x1"}
	words   = []string{"app", "v", "zone"}
	values  = []string{"web", "db", "x", "1", ""}
	plugins = schedqtest.Plugins
)

func labelsGen() *rapid.Generator[map[string]string] {
	return rapid.MapOfN(rapid.SampledFrom(words), rapid.SampledFrom(values), 0, 3)
}

func ptr[T any](v T) *T { return &v }

func optional[T any](t *rapid.T, label string, g *rapid.Generator[T]) *T {
	if rapid.Bool().Draw(t, label+"?") {
		return ptr(g.Draw(t, label))
	}
	return nil
}

func podRefGen(allowNil, prio, extra bool) *rapid.Generator[schedqtest.PodRef] {
	return rapid.Custom(func(t *rapid.T) schedqtest.PodRef {
		if allowNil && rapid.IntRange(0, 9).Draw(t, "nil") == 0 {
			return schedqtest.PodRef{Nil: true}
		}
		r := schedqtest.PodRef{Name: rapid.SampledFrom(append(names, "")).Draw(t, "name")}
		if extra {
			r.Namespace = optional(t, "ns", rapid.SampledFrom([]string{"ns", "other"}))
			r.UID = optional(t, "uid", rapid.SampledFrom([]string{"u", "", "uid-a"}))
		}
		if prio {
			r.Priority = optional(t, "prio", rapid.Int32())
		}
		if rapid.Bool().Draw(t, "labels?") {
			r.Labels = labelsGen().Draw(t, "labels")
		}
		if extra && rapid.Bool().Draw(t, "affinity?") {
			r.Affinity = labelsGen().Draw(t, "affinity")
		}
		return r
	})
}

func eventGen() *rapid.Generator[spec.ClusterEvent] {
	return rapid.Custom(func(t *rapid.T) spec.ClusterEvent {
		if rapid.Bool().Draw(t, "standard") {
			names := []string{}
			for n := range schedqtest.Events {
				names = append(names, n)
			}
			return schedqtest.Events[rapid.SampledFrom(names).Draw(t, "event")]
		}
		res := rapid.SampledFrom([]spec.EventResource{spec.ResourcePod, spec.ResourceAssignedPod, spec.ResourceNode,
			spec.ResourceStorageClass, spec.WildCard}).Draw(t, "resource")
		act := spec.ActionType(rapid.Uint64Range(1, uint64(spec.All)).Draw(t, "action"))
		return spec.ClusterEvent{Resource: res, ActionType: act}
	})
}

// OpGen generates any Op in its canonical form.
func opGen() *rapid.Generator[schedqtest.Op] {
	return rapid.Custom(func(t *rapid.T) schedqtest.Op {
		op := schedqtest.Op{Kind: rapid.SampledFrom(schedqtest.Kinds).Draw(t, "kind")}
		switch op.Kind {
		case schedqtest.KindAdd:
			op.Pod = podRefGen(true, true, true).Draw(t, "pod")
		case schedqtest.KindDelete:
			op.Pod = podRefGen(true, false, true).Draw(t, "pod")
		case schedqtest.KindAssignedAdd:
			op.Pod = podRefGen(true, false, true).Draw(t, "pod")
		case schedqtest.KindPop:
			op.Blocked = rapid.Bool().Draw(t, "blocked")
			op.Choose = rapid.SampledFrom(append(names, "")).Draw(t, "choose")
		case schedqtest.KindFail:
			op.Pod = schedqtest.PodRef{Name: rapid.SampledFrom(append(names, "")).Draw(t, "name")}
			op.NeverPopped = rapid.Bool().Draw(t, "neverPopped")
			if op.NeverPopped {
				op.Attempts = rapid.IntRange(-1, 20).Draw(t, "attempts")
			}
			op.Cycle = optional(t, "cycle", rapid.Int64())
			if ps := rapid.SliceOfNDistinct(rapid.SampledFrom(plugins), 0, 3, rapid.ID[string]).Draw(t, "plugins"); len(ps) > 0 {
				op.Plugins = ps
			}
			if ps := rapid.SliceOfNDistinct(rapid.SampledFrom(schedqtest.HintsPlugins), 0, 2, rapid.ID[string]).Draw(t, "pending"); len(ps) > 0 {
				op.Pending = ps
			}
		case schedqtest.KindNominate:
			op.Pod = schedqtest.PodRef{Name: rapid.SampledFrom(names).Draw(t, "name")}
			if op.Noop = rapid.Bool().Draw(t, "noop"); !op.Noop {
				op.Node = rapid.SampledFrom([]string{"n1", "node-2"}).Draw(t, "node")
			}
		case schedqtest.KindNominated:
			op.Node = rapid.SampledFrom([]string{"n1", "node-2"}).Draw(t, "node")
		case schedqtest.KindMove:
			op.Event = eventGen().Draw(t, "event")
			if rapid.Bool().Draw(t, "precheck?") {
				op.PreCheck = rapid.SliceOfN(rapid.SampledFrom(names), 0, 3).Draw(t, "precheck")
			}
		case schedqtest.KindTick:
			op.Duration = time.Duration(rapid.Int64Range(0, int64(time.Hour)).Draw(t, "d"))
		case schedqtest.KindActivate:
			op.Pods = rapid.SliceOfN(rapid.Custom(func(t *rapid.T) schedqtest.PodRef {
				if rapid.Bool().Draw(t, "nil") {
					return schedqtest.PodRef{Nil: true}
				}
				return schedqtest.PodRef{Name: rapid.SampledFrom(names).Draw(t, "name")}
			}), 0, 3).Draw(t, "pods")
			if len(op.Pods) == 0 {
				op.Pods = nil
			}
		case schedqtest.KindUpdate:
			op.Pod = podRefGen(false, true, false).Draw(t, "pod")
			op.Touch = rapid.Bool().Draw(t, "touch")
			if rapid.Bool().Draw(t, "rename?") {
				op.Rename = rapid.SampledFrom(names).Draw(t, "rename")
			}
		case schedqtest.KindAssignedUpdate:
			op.Pod = podRefGen(false, false, true).Draw(t, "pod")
			if rapid.Bool().Draw(t, "old?") {
				op.OldLabels = labelsGen().Draw(t, "old")
			}
			op.Event = eventGen().Draw(t, "event")
		case schedqtest.KindDone:
			op.UID = rapid.SampledFrom([]string{"uid-a", "uid-", "ghost", "uid-nil", "u"}).Draw(t, "uid")
		case schedqtest.KindPodGroupAdd, schedqtest.KindPodGroupUpdate, schedqtest.KindPodGroupDelete, schedqtest.KindAttempted:
			op.Group = rapid.SampledFrom([]string{"g1", "g-2"}).Draw(t, "group")
			switch op.Kind {
			case schedqtest.KindAttempted:
				op.Status = rapid.SampledFrom([]spec.AttemptStatus{spec.AttemptSuccess, spec.AttemptRejected, spec.AttemptError}).Draw(t, "status")
			case schedqtest.KindPodGroupAdd, schedqtest.KindPodGroupUpdate:
				op.GroupPriority = rapid.Int32Range(-3, 3).Draw(t, "prio")
			}
		}
		if op.Kind == schedqtest.KindAdd && !op.Pod.Nil && rapid.Bool().Draw(t, "group?") {
			op.Pod.Group = ptr(rapid.SampledFrom([]string{"g1", "g-2"}).Draw(t, "member of"))
		}
		return op
	})
}

// Property: every Op prints to a line that parses back to the same Op.
func TestOpRoundTripProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		op := opGen().Draw(t, "op")
		line := op.String()
		got, err := schedqtest.ParseOp(line)
		if err != nil {
			t.Fatalf("ParseOp(%q): %v", line, err)
		}
		if !reflect.DeepEqual(got, op) {
			t.Fatalf("ParseOp(%q) = %#v\nwant %#v", line, got, op)
		}
	})
}
