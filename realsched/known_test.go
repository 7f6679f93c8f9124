package realsched

import (
	"strings"
	"testing"
	"time"

	testingclock "k8s.io/utils/clock/testing"

	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// TestKnownDeleteOfAPodInFlight: a Delete after which upstream's in-flight
// list still holds the pod and the model does not is the known R10
// difference (upstream ends the attempt at the scheduler's Done); the same
// places with the model still holding the pod in flight, or a queue that
// does not show its pods in flight (v1.33 classic), are not.
func TestKnownDeleteOfAPodInFlight(t *testing.T) {
	del := TraceOp{Op: schedqtest.Op{Kind: schedqtest.KindDelete, Pod: schedqtest.PodRef{Name: "p"}}}
	for _, c := range []struct {
		name     string
		inFlight []string // the queue's in-flight list (nil: not shown)
		popped   bool     // the model holds p in flight
		want     string
	}{
		{"upstream keeps it until Done", []string{"ns/p"}, false, "R10 (known, until Done)"},
		{"both hold it", []string{"ns/p"}, true, ""},
		{"no in-flight list", nil, false, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			clk := testingclock.NewFakeClock(time.Unix(0, 0))
			places := func() (a, b, u, f []string) { return nil, nil, nil, c.inFlight }
			r, err := NewRecorder(nil, spec.DefaultHintsConfig(schedqtest.Registry), clk, nil, places)
			if err != nil {
				t.Fatal(err)
			}
			if c.popped {
				if err := r.m.Add(schedqtest.Pod("p", 0)); err != nil {
					t.Fatal(err)
				}
				if _, _, err := r.m.Pop(); err != nil {
					t.Fatal(err)
				}
			}
			got := r.known(del)
			if c.want == "" && got != "" || c.want != "" && !strings.HasPrefix(got, c.want) {
				t.Errorf("known(Delete p) = %q, want %q", got, c.want)
			}
		})
	}
}
