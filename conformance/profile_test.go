package conformance

import (
	"errors"
	"flag"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/schedq/schedq/spec"
)

// The runner and the profiles: a target that refuses a profile's config is
// n/a for that profile's scenarios, never a failure and never a pass; any
// other constructor failure still fails; the hints random runs catch a
// target that breaks a hints rule.

const hintsScenario = "hints/failure/replay-of-a-queued-event-goes-to-backoffQ"

// classicOnly refuses every config but the classic one, as impl.New does.
func classicOnly(t testing.TB, cfg spec.Config, start time.Time) Target {
	if cfg.Profile != spec.ProfileClassic {
		t.Fatal(fmt.Errorf("%w: classic profile only, not %v", spec.ErrInvalidConfig, cfg.Profile))
	}
	return newModelT(t, cfg, start)
}

func TestRefusedProfileIsNotApplicable(t *testing.T) {
	d, rec := play(t, hintsScenario, catalogueText(t, hintsScenario), classicOnly)
	if rec.Failed() || d.failed {
		t.Fatalf("a refused profile failed the scenario:\n%s%s", rec, d.failure)
	}
	if !strings.Contains(d.na, "refuses the hints profile's config") || !strings.Contains(d.na, "classic profile only") {
		t.Errorf("n/a reason %q does not say the target refused the hints config and why", d.na)
	}
	// The same target runs classic scenarios.
	d, rec = play(t, "done/ends-the-time-in-flight", catalogueText(t, "done/ends-the-time-in-flight"), classicOnly)
	if rec.Failed() || d.failed || d.na != "" {
		t.Errorf("the classic scenario did not run and pass on the classic target: na=%q\n%s%s", d.na, rec, d.failure)
	}
}

// A constructor failing for another reason than the profile is a failure,
// not n/a.
func TestConstructorFailureStillFails(t *testing.T) {
	broken := func(t testing.TB, cfg spec.Config, start time.Time) Target {
		t.Fatal(errors.New("cannot connect"))
		return nil
	}
	d, rec := play(t, hintsScenario, catalogueText(t, hintsScenario), broken)
	if !rec.Failed() || d.na != "" {
		t.Fatalf("a constructor failure was not a failure (na=%q):\n%s", d.na, rec)
	}
	if !strings.Contains(rec.String(), "cannot connect") {
		t.Errorf("the failure does not carry the constructor's error:\n%s", rec)
	}
}

// noNominator hides the model's nominator.
type noNominator struct{ Target }

func TestNominatorOpsNeedANominator(t *testing.T) {
	const name = "hints/nominator/add-update-delete"
	d, rec := play(t, name, catalogueText(t, name), func(t testing.TB, cfg spec.Config, start time.Time) Target {
		return noNominator{newModelT(t, cfg, start)}
	})
	if rec.Failed() || d.failed || !strings.Contains(d.na, "no nominator") {
		t.Fatalf("want n/a for a target without a nominator, got na=%q\n%s%s", d.na, rec, d.failure)
	}
	d, rec = play(t, name, catalogueText(t, name), func(t testing.TB, cfg spec.Config, start time.Time) Target {
		return newModelT(t, cfg, start)
	})
	if rec.Failed() || d.failed || d.na != "" {
		t.Fatalf("the nominator scenario does not pass on the model: na=%q\n%s%s", d.na, rec, d.failure)
	}
}

// dropPending forgets the pending plugins it is handed back (R3h, R16): a
// pending plugin's Queue no longer skips backoff.
type dropPending struct{ modelT }

func (q dropPending) AddUnschedulableIfNotPresent(info *spec.QueuedPodInfo, cycle int64) error {
	cp := *info
	cp.PendingPlugins = nil
	return q.modelT.AddUnschedulableIfNotPresent(&cp, cycle)
}

// The hints random runs catch broken hints targets, each with a scenario
// of the hints profile.
func TestHintsDifferentialCatchesBrokenTargets(t *testing.T) {
	skipShort(t)
	if err := flag.Set("rapid.nofailfile", "true"); err != nil {
		t.Fatal(err)
	}
	defer flag.Set("rapid.nofailfile", "false")
	// A broken target is found within rapid's default 100 checks most of
	// the time, not always: "pending plugins dropped" survived them in 1 of
	// 30 runs. rapid stops at the first failure, so a larger budget costs
	// nothing when it is caught and keeps the verdict independent of luck.
	setFlag(t, "rapid.checks", "2000")
	// Shrinking (30 s per failure by default) is not what this test checks:
	// a scenario is printed however far it got.
	setFlag(t, "rapid.shrinktime", "2s")
	for name, nt := range map[string]NewTarget{
		"done does nothing": newBrokenDone,
		"pending plugins dropped": func(t testing.TB, cfg spec.Config, start time.Time) Target {
			return dropPending{newModelT(t, cfg, start)}
		},
	} {
		rec := &recordTB{TB: t}
		func() {
			done := make(chan struct{})
			go func() { defer close(done); checkDifferential(rec, t, nt, nil, spec.ProfileHints) }()
			<-done
		}()
		out := rec.String()
		if !rec.Failed() {
			t.Errorf("%s: the hints differential runs did not catch it:\n%s", name, out)
			continue
		}
		if !strings.Contains(out, "config profile=hints") || !strings.Contains(out, scenarioMarker) {
			t.Errorf("%s: the failure prints no hints scenario:\n%s", name, out)
		}
	}
}

// The model passes the hints random runs (they are not vacuous: the
// broken targets above fail them).
func TestHintsDifferentialOnTheModel(t *testing.T) {
	ok, na := RunHintsDifferential(t, func(t testing.TB, cfg spec.Config, start time.Time) Target { return newModelT(t, cfg, start) })
	if !ok || na != "" {
		t.Fatalf("ok=%v na=%q", ok, na)
	}
	if _, na := RunHintsDifferential(t, classicOnly); !strings.Contains(na, "refuses") {
		t.Errorf("a classic-only target is not n/a for the hints runs: %q", na)
	}
}
