package upstream

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/schedq/schedq/conformance"
	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// TestClassic is the reference check of the classic profile: the release
// with queueing hints and pop-from-backoffQ off, against the whole suite.
// From v1.34 the release has no classic mode: the test is skipped with the
// reason, and writes a report with that reason and no results, so that
// RESULTS.md says n/a rather than leaving a gap. (conformance.Run's
// preflight needs a target that accepts some config, so a target that
// refuses every one cannot go through it.)
func TestClassic(t *testing.T) {
	if err := refuseClassic(spec.DefaultConfig(schedqtest.Registry)); err != nil {
		writeNotApplicable(t, Release().ClassicName(), err)
		t.Skipf("n/a: %v", err)
	}
	conformance.Run(t, Classic(), conformance.Options{})
}

// writeNotApplicable writes the report of a target that cannot run at all.
func writeNotApplicable(t *testing.T, name string, why error) {
	dir := os.Getenv("SCHEDQ_CONFORMANCE_RESULTS")
	if dir == "" {
		return
	}
	b, err := json.MarshalIndent(conformance.Report{
		Target:  conformance.TargetInfo{Name: name, Description: "n/a: " + why.Error()},
		Summary: "conformance " + name + ": n/a, nothing ran: " + why.Error(),
		Test:    t.Name(),
	}, "", "  ")
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, name+".json"), b, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// TestQueueingHints runs the release with its default gates against the
// scenarios of both profiles and the hints profile's random runs.
// Scenarios where a release differs by design are known differences:
// declared in the scenario files for v1.33.13 and v1.37.2, and for the
// releases between in releaseDifferences (differences_test.go).
//
// The classic random runs do not apply: queueing hints decide requeueing
// by in-flight events, not by moveRequestCycle. v1.33 has its own reasons
// to skip the hints random runs (below). From v1.34 the hints random runs
// leave the metrics out (IgnoreMetrics; the scenarios compare them): the
// queue counts a gated pod that a move request or the leftover flush
// re-gates as a new entry of unschedulablePods, and its gauges drift when
// Add replaces an entry of unschedulablePods, both declared with their
// sources in hints/gated/a-move-that-leaves-a-gated-pod-gated-counts-no-entry
// and hints/gated/add-again-of-a-parked-pod-replaces-its-entry.
func TestQueueingHints(t *testing.T) {
	opts := conformance.Options{
		SkipDifferentialIn: map[spec.Profile]string{
			spec.ProfileClassic: "queueing hints decide requeueing by in-flight events, not by moveRequestCycle"},
		Ignore: []conformance.Observation{conformance.IgnoreMetrics},
		// The catalogue's podgroups/ scenarios are n/a before v1.37,
		// which queues no pod groups as entities (GenericWorkload).
		KnownDifferences: withPodGroupDifferences(releaseDifferences(Release())),
	}
	if !Release().HasHintCounts {
		// The hints profile is v1.37.2's: v1.33 clears the rejectors at
		// every Pop and backs off by Attempts (declared differences of the
		// hints scenarios), so random runs differ at the first Pop of a
		// pod that failed.
		opts.SkipDifferentialIn[spec.ProfileHints] = "this release clears the rejecting plugins at Pop and backs off by Attempts, not by the counts (v1.33.13 active_queue.go:307-308, backoff_queue.go:240-251)"
	}
	if extra := hintsRandomSkip(Release()); extra != "" {
		opts.SkipDifferentialIn[spec.ProfileHints] = extra
	}
	if why := podGroupsRandomSkip(Release()); why != "" {
		opts.SkipDifferentialIn[spec.ProfilePodGroups] = why
	}
	conformance.Run(t, QueueingHints(), opts)
}
