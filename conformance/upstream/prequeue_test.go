package upstream

import (
	"testing"
	"time"

	"github.com/schedq/schedq/conformance"
	"github.com/schedq/schedq/spec"
)

// TestPreQueueingHintsReachUpstream shows that the prequeue scenarios pass
// on this release because the adapter hands upstream the config's
// pre-queueing hints, not by chance: the broken variant, the same target
// with the hints left out of its config (the setting still on), lets a
// NodeAdd requeue c, which Fit's pre-queueing hint did not name, and the
// scenario catches it (R21). Releases whose default gates leave
// pre-queueing hints off refuse the scenario (n/a), so the test is skipped
// there with the reason.
func TestPreQueueingHintsReachUpstream(t *testing.T) {
	if err := refusePreQueueing(spec.Config{PreQueueing: true}); err != nil {
		t.Skipf("n/a: %v", err)
	}
	const name = "hints/prequeue/a-narrowed-move-evaluates-only-the-named-pods"
	cat, err := conformance.Catalogue()
	if err != nil {
		t.Fatal(err)
	}
	var text string
	for _, f := range cat {
		if f.Name == name {
			text = f.Text
		}
	}
	if text == "" {
		t.Fatalf("no scenario %q in the catalogue", name)
	}
	for _, tc := range []struct {
		name     string
		dropHint bool
	}{{"adapter", false}, {"broken-hints-left-out", true}} {
		t.Run(tc.name, func(t *testing.T) {
			newTarget := func(cfg spec.Config, start time.Time) (conformance.Target, error) {
				if tc.dropHint {
					cfg.PreQueueingHints = nil
				}
				return QueueingHints()(t, cfg, start), nil
			}
			r, err := conformance.Replay(newTarget, name, text)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case r.NotApplicable != "":
				t.Fatalf("%s: n/a on a release that runs pre-queueing hints: %s", name, r.NotApplicable)
			case tc.dropHint && r.Failure == "":
				t.Fatalf("%s passed with the pre-queueing hints left out: the scenario no longer shows that the adapter plugs them in (R21)", name)
			case !tc.dropHint && r.Failure != "":
				t.Fatalf("%s: %s", name, r.Failure)
			}
			if tc.dropHint {
				t.Logf("caught, as it must be:\n%s", r.Failure)
			}
		})
	}
}
