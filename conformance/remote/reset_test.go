package remote_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/schedq/schedq/conformance"
	"github.com/schedq/schedq/conformance/remote"
	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// reset ends the queue, answers the waiting pop closed before itself, and
// leaves the peer waiting for an init, which makes a new, empty queue.
func TestServeReset(t *testing.T) {
	pod := `{"namespace":"ns","name":"a","uid":"uid-a"}`
	podB := `{"namespace":"ns","name":"b","uid":"uid-b"}`
	got := serve(t, initLine(1),
		`{"id":2,"op":"add","pod":`+pod+`}`,
		`{"id":3,"op":"pop"}`,
		`{"id":4,"op":"pop"}`, // waits
		`{"id":5,"op":"reset"}`,
		`{"id":6,"op":"snapshot"}`, // no queue
		initLine(7),
		`{"id":9,"op":"add","pod":`+podB+`}`,
		`{"id":8,"op":"snapshot"}`,
	)
	if r := got[4]; r.Error == nil || r.Error.Code != "closed" {
		t.Errorf("the pop waiting at the reset: %+v, want the closed error", r.Error)
	}
	if r := got[5]; r.Error != nil {
		t.Errorf("reset: %+v", r.Error)
	}
	if r := got[6]; r.Error == nil || r.Error.Code != "protocol" {
		t.Errorf("a snapshot between reset and init: %+v, want a protocol error", r.Error)
	}
	if r := got[7]; r.Error != nil || r.Profile == nil || !r.Profile.Reset {
		t.Errorf("the init after a reset: %+v, want a profile claiming reset", r)
	}
	if s := got[8].Snapshot; s == nil || len(s.InFlight) != 0 || len(s.ActiveQ) != 1 || s.SchedulingCycle != 0 {
		t.Errorf("the queue after reset, init and an add: %+v, want ns/b alone", s)
	}
}

// A peer that claims reset is started once for any number of queues, each
// of which starts empty at its own clock; a peer that does not claim it
// (the broken variant: a script that hides the claim) is started once per
// queue. The count of process starts is the point: shrinking a process
// peer's failure plays hundreds of queues.
func TestDriverReusesAPeerThatResets(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh")
	}
	for _, tc := range []struct {
		name   string
		filter string // between the peer's stdout and the driver
		starts int    // of 4 queues
	}{
		{"claims-reset", "cat", 1},
		{"no-reset-claim", `sed -u 's/,"reset":true//'`, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			starts := filepath.Join(dir, "starts")
			script := filepath.Join(dir, "peer.sh")
			body := fmt.Sprintf("#!/bin/sh\necho start >> '%s'\n'%s' | %s\n", starts, peerBin, tc.filter)
			if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
				t.Fatal(err)
			}
			cmd := []string{"/bin/sh", script, tc.name} // a command of its own: no process of another test is reused
			for i := range 4 {
				start := time.Date(2026, 1, 1, 0, 0, i, 0, time.UTC)
				p, err := remote.Start(cmd, spec.DefaultConfig(schedqtest.Registry), start)
				if err != nil {
					t.Fatal(err)
				}
				if s := p.Snapshot(); !s.Now.Equal(start) || len(s.ActiveQ) != 0 {
					t.Errorf("queue %d: now %v with %d pods in activeQ, want an empty queue at %v", i, s.Now, len(s.ActiveQ), start)
				}
				if err := p.Add(schedqtest.Pod("a", 0)); err != nil {
					t.Fatalf("queue %d: %v", i, err)
				}
				if err := p.Stop(); err != nil {
					t.Fatal(err)
				}
			}
			b, _ := os.ReadFile(starts)
			if n := strings.Count(string(b), "start"); n != tc.starts {
				t.Errorf("the peer process started %d times for 4 queues, want %d", n, tc.starts)
			}
		})
	}
}

// A queue after a reset reads its own caller objects, not the last
// queue's under the same ref: here the last queue's move carried another
// node as ref 1, and the node-object scenario, whose move carries its node
// as ref 1 too, must still see its own node's zone (R19). Serve kept its
// objects across a reset at first, and the scenario failed.
func TestAResetPeerForgetsTheLastQueuesObjects(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh")
	}
	script := filepath.Join(t.TempDir(), "peer.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nexec '"+peerBin+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	newTarget := remote.NewTarget([]string{"/bin/sh", script}) // a command of its own: the process is this test's
	t.Run("last-queue", func(t *testing.T) {
		tg := newTarget(t, schedqtest.HintsConfig(), schedqtest.Start)
		oq := tg.(spec.ObjectQueue)
		other := &schedqtest.Node{Name: "other", Labels: map[string]string{"zone": "b"}}
		if err := oq.MoveAllToActiveOrBackoffQueueWithObjects(spec.Occurrence{Event: spec.ClusterEvent{Resource: spec.ResourceNode, ActionType: spec.Add}, NewObject: other}, nil); err != nil {
			t.Fatal(err)
		}
	})
	res, _ := conformance.RunScenario(t, newTarget, "hints/objects/a-node-object-decides-a-hint")
	if res.Outcome != conformance.Pass {
		t.Errorf("the node-object scenario on a reset peer: %s (%s)", res.Outcome, res.Detail)
	}
}
