package remote_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/schedq/schedq/conformance/remote"
	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// A podgroups snapshot with caller objects goes driver -> peer -> driver
// and comes back equal, each object the very one the driver sent (R19
// compares pointers).
func TestWireRoundTripPodGroupsAndObjects(t *testing.T) {
	driver, peer := remote.NewCodec(false), remote.NewCodec(true)
	now := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	node := &schedqtest.Node{Name: "n1", Labels: map[string]string{"zone": "a"}}
	type own struct{ Kind string }
	podObj, groupObj := &own{"pod"}, &own{"group"}
	a := &spec.Pod{Namespace: "ns", Name: "a", UID: "ua", Group: "g", Object: podObj}
	b := &spec.Pod{Namespace: "ns", Name: "b", UID: "ub", Group: "g"}
	params := spec.EntityParams{Timestamp: now, Attempts: 2, InitialAttemptTimestamp: now.Add(-time.Second), BackoffExpiry: now.Add(time.Second),
		HintFields: spec.HintFields{UnschedulableCount: 1, GatingPlugin: "Gate"}}
	snap := spec.Snapshot{Now: now, BackoffQ: []spec.QueuedPodInfo{{Pod: a, Timestamp: now}},
		InFlightEvents: []spec.InFlightEntry{{Event: spec.Occurrence{Event: spec.ClusterEvent{Resource: spec.ResourceNode, ActionType: spec.Add}, NewObject: node}}},
		PodGroups: &spec.PodGroupsState{
			PodGroups:           []spec.PodGroup{{Namespace: "ns", Name: "g", Priority: 3, Object: groupObj}},
			Entities:            []spec.PodGroupEntity{{Group: "ns/g", Place: spec.InBackoffQ, Members: []spec.PodKey{"ns/a"}, EntityParams: params}},
			InCycle:             []spec.PodGroupKey{"ns/h"},
			PendingPodGroupPods: []spec.QueuedPodInfo{{Pod: b}},
		}}
	atPeer, err := peer.DecodeSnapshot(roundTrip(t, driver.EncodeSnapshot(snap)))
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := atPeer.InFlightEvents[0].Event.NewObject.(*schedqtest.Node); !ok || n.Labels["zone"] != "a" {
		t.Errorf("the peer reads the node object as %#v, want a *schedqtest.Node with zone a", atPeer.InFlightEvents[0].Event.NewObject)
	}
	back, err := driver.DecodeSnapshot(roundTrip(t, peer.EncodeSnapshot(atPeer)))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(snap, back); d != "" {
		t.Errorf("round trip (-sent +back):\n%s", d)
	}
	if back.BackoffQ[0].Pod.Object != podObj || back.PodGroups.PodGroups[0].Object != groupObj || back.InFlightEvents[0].Event.NewObject != node {
		t.Error("an object came back as another object than the one sent")
	}
	// A peer that changes an object, or invents one, returns something
	// that equals nothing the driver sent.
	w := driver.EncodeSnapshot(snap)
	w.BackoffQ[0].Pod.Object.Value = []byte(`{"Kind":"changed"}`)
	w.PodGroups.PodGroups[0].Object.Ref = 99
	changed, err := driver.DecodeSnapshot(roundTrip(t, w))
	if err != nil {
		t.Fatal(err)
	}
	if spec.SameObject(changed.BackoffQ[0].Pod.Object, podObj) || spec.SameObject(changed.PodGroups.PodGroups[0].Object, groupObj) {
		t.Error("a changed or invented object decoded as the one the driver sent")
	}
	if s := spec.ObjectString(changed.BackoffQ[0].Pod.Object); !strings.Contains(s, "changed") {
		t.Errorf("a changed object prints as %q, want its value", s)
	}
}

// A peer asked for another protocol version says which it speaks.
func TestServeRefusesAnotherVersion(t *testing.T) {
	w, err := remote.EncodeConfig(spec.DefaultConfig(schedqtest.Registry))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []int{0, 1, remote.Version + 1} {
		b, _ := json.Marshal(remote.Request{ID: 1, Op: "init", Config: w, Now: "2026-01-01T00:00:00Z", Version: v})
		got := serve(t, string(b))
		if e := got[1].Error; e == nil || e.Code != "protocol" || !strings.Contains(e.Message, "version") {
			t.Errorf("init asking for version %d: %+v, want a protocol error naming the versions", v, e)
		}
	}
}
