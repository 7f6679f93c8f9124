package upstream

import (
	"fmt"
	"testing"

	"github.com/schedq/schedq/conformance"
	"github.com/schedq/schedq/schedqtest"
)

// The known differences of the releases between v1.33 and v1.37, by
// scenario. The scenario files declare those of v1.33.13 and v1.37.2 by
// target name; a release between them behaves as one or the other, or
// neither, scenario by scenario, so its declarations are here, each with
// the releases it holds for (first and last minor) and the reason read in
// that release's code. A declaration that no longer fails fails as stale,
// so the ranges cannot drift.
type difference struct {
	first, last string // minor versions, e.g. "1.34"
	reason      string
	source      string
	// like is the target whose declaration in the scenario file this one
	// repeats (same step, same observations): the kind and finding are
	// that declaration's. A declaration with a reason of its own gives
	// kind (and finding) itself.
	like    string
	kind    conformance.DifferenceKind
	finding string
}

// differences are built from lists of the failures of v1.34.7, v1.35.6 and
// v1.36.5, each the same failure (step and observations) that the scenario
// file declares for v1.33.13, for v1.37.2, or for both; the reason is the
// declaration's there, which the scenario file and the Known differences
// section of RESULTS.md give in full. The ranges are what the runs showed
// (v1.35 fails exactly where v1.34 does).
var differences = func() map[string][]difference {
	m := map[string][]difference{}
	add := func(first, last, like, reason string, scenarios []string) {
		for _, sc := range scenarios {
			m[sc] = append(m[sc], difference{first: first, last: last, reason: reason, like: like,
				source: "conformance/testdata/scenarios/" + sc + ".txt, its known-difference directive"})
		}
	}
	add("1.34", "1.36", conformance.TargetUpstream137, "the same difference as declared for v1.33.13 and v1.37.2 (same step, same observations)", []string{
		"add/duplicate-of-a-pod-in-activeQ-is-rejected",
		"add/of-an-in-flight-pod-is-rejected",
		"pop/after-close-returns-ErrClosed",
		"failure/of-a-pod-never-popped-is-accepted",
		"move/a-pod-past-its-backoff-goes-to-activeQ",
		"move/an-event-of-interest-is-a-move-request-even-if-no-pod-moves",
		"backoff-flush/releases-a-pod-only-past-its-expiry",
		"backoff-flush/releases-every-completed-pod-and-keeps-the-rest",
		"backoff/doubles-from-1s-and-caps-at-10s",
		"update/a-relevant-change-moves-an-unschedulable-pod-by-its-backoff",
		"update/of-an-in-flight-pod-does-not-queue-it-twice",
		"update/of-an-in-flight-pod-under-a-new-uid-ends-the-attempt",
		"close/is-idempotent-and-observable",
		"hints/add/of-a-pod-in-activeQ-is-rejected",
		"hints/add/of-an-in-flight-pod-is-rejected",
		"hints/update/of-an-in-flight-pod-under-a-new-uid-ends-the-attempt",
		"hints/close/a-second-close-changes-nothing",
		"hints/close/leaves-in-flight-pods-in-flight",
		"hints/close/pop-after-close-is-an-error",
		"close/an-in-flight-pod-updated-after-close-is-updated-in-place",
	})
	add("1.34", "1.36", conformance.TargetUpstream137, "the same difference as declared for v1.33.13 and v1.37.2 with default gates (same step, same observations): the classic contract gates as v1.33.13 does with queueing hints off (R17)", []string{
		"gated/a-gated-pod-is-not-popped-until-an-update-lifts-its-gate",
		"gated/the-backoffQ-flush-runs-PreEnqueue",
		"gated/a-pod-gated-by-another-plugin-is-examined-by-moves",
	})
	add("1.34", "1.36", conformance.TargetUpstream133Hints, "the same difference as declared for v1.33.13 (same step, same observations): the fresh entry PreEnqueue refused is dropped while backoffQ holds the key", []string{
		"hints/gated/add-again-of-a-pod-in-backoffQ-that-is-gated-replaces-its-entry",
	})
	add("1.34", "1.35", conformance.TargetUpstream133Hints, "the same difference as declared for v1.33.13 (same step, same observations): a refused re-Add keeps the old parked entry, as v1.33 does", []string{
		"gated/add-again-of-a-parked-pod-that-is-gated-replaces-its-entry",
		"hints/gated/add-again-later-of-a-gated-pod-replaces-its-entry",
	})
	add("1.34", "1.35", conformance.TargetUpstream133Hints, "the same difference as declared for v1.33.13 (same step, same observations): the release still behaves as v1.33 here", []string{
		"hints/pop/a-blocked-pop-wakes-for-a-rejected-pod-entering-backoffQ",
		"hints/pop/from-backoffQ-by-window-then-priority",
		"hints/pop/takes-from-backoffQ-when-activeQ-is-empty",
		"hints/gated/a-gate-lifted-without-its-plugins-event-waits-for-one",
		"hints/backoff/doubles-with-the-unschedulable-count",
	})
	add("1.34", "1.36", conformance.TargetUpstream133Hints, "the same difference as declared for v1.33.13 (same step, same observations): the release still behaves as v1.33 here", []string{
		"hints/update/of-an-in-flight-pod-is-recorded-not-copied",
		"hints/update/of-a-parked-pod-raises-the-events-of-the-callers-old-object",
		"hints/assigned/an-added-assigned-pod-moves-by-hints-alone",
	})
	add("1.34", "1.35", conformance.TargetUpstream137, "the same difference as declared for v1.37.2 (same step, same observations): the release has no FlushTimestamp (v1.36 added it)", []string{
		"hints/gated/leftover-flush-measures-from-the-flush-timestamp",
	})
	add("1.35", "1.36", conformance.TargetUpstream137, "the same difference as declared for v1.37.2 (same step, same observations): PreEnqueue runs on entering backoffQ, not when Activate takes a pod out of it", []string{
		"gated/a-pod-gated-while-backing-off-is-left-out-of-moves",
	})
	m["hints/gated/the-leftover-flush-stamps-the-pods-it-moves-and-the-gated-ones"] = append(m["hints/gated/the-leftover-flush-stamps-the-pods-it-moves-and-the-gated-ones"],
		difference{first: "1.34", last: "1.35", kind: conformance.KindChange,
			reason: "the release has no FlushTimestamp (v1.36 added it): the flushed pods carry none",
			source: "v1.36.5 pkg/scheduler/framework/types.go:590-591 (QueuedPodInfo.FlushTimestamp, absent before v1.36)"})
	m["hints/pop/keeps-the-pending-plugins-and-counts-of-the-last-failure"] = append(m["hints/pop/keeps-the-pending-plugins-and-counts-of-the-last-failure"],
		difference{first: "1.34", last: "1.35", kind: conformance.KindChange,
			reason: "the release clears the rejecting and pending plugins at Pop, as v1.33.13 does (it keeps the unschedulable count, which it has); v1.36 keeps them",
			source: "v1.34.7 pkg/scheduler/backend/queue/active_queue.go:308, v1.35.6 active_queue.go:331 (unlockedPop: PendingPlugins.Clear())"})
	add("1.34", "1.34", conformance.TargetUpstream133Hints, "the same difference as declared for v1.33.13 (same step, same observations): activate runs PreEnqueue again, from backoffQ too (v1.34.7 scheduling_queue.go:761; v1.35 skips it)", []string{
		"hints/activate/of-a-backoffQ-pod-gated-since-it-entered-skips-PreEnqueue",
	})
	add("1.36", "1.36", conformance.TargetUpstream137, "the same difference as declared for v1.37.2 (same step, same observations): from v1.36 Pop keeps the rejectors for the scheduler's ClearRejectorPlugins", []string{
		"pop/clears-the-previous-rejections",
	})
	return m
}()

// releaseDifferences are the declarations that hold for r. A declaration
// that repeats a scenario file's takes its kind from there; one whose kind
// cannot be found is returned without one, and conformance.Run refuses it.
func releaseDifferences(r ReleaseInfo) map[string]conformance.KnownDifference {
	out := map[string]conformance.KnownDifference{}
	for sc, ds := range differences {
		for _, d := range ds {
			if minorIn(r.Minor(), d.first, d.last) {
				out[sc] = d.declaration(sc)
			}
		}
	}
	return out
}

// declaration is d as the suite takes it for scenario sc.
func (d difference) declaration(sc string) conformance.KnownDifference {
	k := conformance.KnownDifference{Reason: d.reason, Source: d.source, Kind: d.kind, Finding: d.finding}
	if d.like != "" {
		if like, err := declaredFor(sc, d.like); err == nil {
			k.Kind, k.Finding = like.Kind, like.Finding
		}
	}
	return k
}

// TestKnownDifferenceKinds: every declaration of the releases between
// v1.33 and v1.37 has a kind, its own or the scenario file's it repeats,
// as conformance.Run requires of whatever it is given; the pod-group
// declarations too. A declaration without one is refused by the suite
// only on the releases it holds for: this checks them all at once.
func TestKnownDifferenceKinds(t *testing.T) {
	for sc, ds := range differences {
		for _, d := range ds {
			if err := d.declaration(sc).CheckKind(); err != nil {
				t.Errorf("%s (v%s-v%s): %v", sc, d.first, d.last, err)
			}
		}
	}
	for sc, k := range withPodGroupDifferences(map[string]conformance.KnownDifference{}) {
		if err := k.CheckKind(); err != nil {
			t.Errorf("%s: %v", sc, err)
		}
	}
	var broken difference
	broken.like = conformance.TargetUpstream137
	if err := broken.declaration("add/new-pod-enters-activeQ").CheckKind(); err == nil {
		t.Error("a declaration repeating a scenario file that declares nothing was given a kind")
	}
}

// declaredFor is the declaration of scenario sc for the target named
// like, or for the other v1.33.13 mode if sc declares none for it.
func declaredFor(sc, like string) (conformance.KnownDifference, error) {
	cat, err := conformance.Catalogue()
	if err != nil {
		return conformance.KnownDifference{}, err
	}
	for _, f := range cat {
		if f.Name != sc {
			continue
		}
		parsed, err := schedqtest.ParseScenario(f.Name, f.Text)
		if err != nil {
			return conformance.KnownDifference{}, err
		}
		for _, name := range []string{like, conformance.TargetUpstream133Hints, conformance.TargetUpstream133Classic} {
			for _, k := range parsed.KnownDifferences {
				if k.AppliesTo(name) {
					return k, nil
				}
			}
		}
	}
	return conformance.KnownDifference{}, fmt.Errorf("%s declares no difference for %s", sc, like)
}

// hintsRandomSkip is why the hints random runs do not apply to r, or "".
func hintsRandomSkip(r ReleaseInfo) string {
	if minorIn(r.Minor(), "1.36", "1.36") {
		return "v1.36 still has AssignedPodAdded, whose affinity pre-filter keeps a parked pod parked before any hint runs (v1.37 removed it; the scenario hints/assigned/an-added-assigned-pod-moves-by-hints-alone declares it), and the random runs reach it within a few sequences"
	}
	if minorIn(r.Minor(), "1.34", "1.35") {
		return "the release differs from the hints profile in how Pop treats a failed pod's rejectors and backoff, as v1.33 does (the declared differences of hints/pop/* and hints/backoff/doubles-with-the-unschedulable-count), so random runs differ at the first Pop of a pod that failed"
	}
	return ""
}

// podGroupsRandomSkip is why the podgroups random runs do not apply to r,
// or "".
func podGroupsRandomSkip(r ReleaseInfo) string {
	if minorIn(r.Minor(), "1.38", "1.99") {
		return "from v1.38 PreEnqueue over a group stops at the first gated member, so the members after it carry no gating plugin until it is ungated (v1.38.0-beta.0 pkg/scheduler/backend/queue/scheduling_queue.go:715-730, runPreEnqueuePlugins); the podgroups profile is v1.37.2's, which gates every member, and the random runs reach it within a few sequences (two gated members, then an activate)"
	}
	return ""
}

// minorIn reports whether minor m lies in [first, last] ("1.34" < "1.35").
func minorIn(m, first, last string) bool {
	n, f, l := minorNumber(m), minorNumber(first), minorNumber(last)
	return n >= f && n <= l
}

func minorNumber(m string) int {
	n := 0
	if i := len(m) - 2; i >= 0 {
		for _, c := range m[i:] {
			n = n*10 + int(c-'0')
		}
	}
	return n
}
