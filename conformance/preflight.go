package conformance

import (
	"fmt"
	"strings"
	"time"

	"testing"

	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// preflightOps is what Preflight does to a fresh target: enough to show
// each requirement of Target on each list, without depending on any rule
// beyond "the pods are somewhere". Pods are added out of key order and
// rejected with plugins out of order and repeated.
var preflightOps = []string{
	"add c prio=3",
	"add a prio=1",
	"add b prio=2",
	"add e",
	"add d",
	"pop",
	"pop",
	"tick 1s",
}

// Preflight checks the requirements of Target on a fresh target, before
// any rule is consulted: the profile names itself, Snapshot().Now is the
// start time and follows Advance, lists are sorted by key, plugin sets are
// normalised, and a target claiming metrics reports them. Each failure is
// named as an adapter mistake ("adapter mistake: ..."), with the fix. Run
// calls it first, as the subtest "preflight", and runs nothing else if it
// fails; it returns the target's profile.
func Preflight(t testing.TB, newTarget NewTarget) TargetInfo {
	t.Helper()
	target := preflightTarget(t, newTarget)
	defer target.Close()
	info := target.Info()
	if info.Name == "" {
		t.Errorf("adapter mistake: Info().Name is empty; name the profile (reports and known differences use it)")
	}
	o := info.Observes
	if !checkFresh(t, target, o) {
		return info
	}
	exec := schedqtest.NewExecutor(target, func(d time.Duration) error { target.Advance(d); return nil })
	popped, ok := playPreflightOps(t, target, exec, o)
	if !ok || !handBackOutOfOrder(t, target, exec, o, popped) {
		return info
	}
	if o.Metrics {
		m := target.(MetricsReporter).Metrics()
		if m.PendingPods == nil {
			t.Errorf("adapter mistake: Metrics().PendingPods is nil after %d pods were added; report scheduler_pending_pods by queue label", len(preflightOps)-3)
		}
	}
	if testing.Verbose() {
		t.Logf("preflight: %s reports sorted lists, Now following Advance%s", info.Name, map[bool]string{true: ", normalised plugin sets", false: ""}[o.PodInfo])
	}
	return info
}

// preflightTarget makes the target of the preflight in the first profile
// it accepts, so that a queue of the hints or podgroups profile only (a
// gang scheduler's) is checked too rather than stopped at its refusal of
// the classic config.
func preflightTarget(t testing.TB, newTarget NewTarget) Target {
	t.Helper()
	var refusals []string
	for _, p := range []spec.Profile{spec.ProfileClassic, spec.ProfileHints, spec.ProfilePodGroups} {
		tg, na := constructTarget(t, newTarget, schedqtest.ConfigFor(p), schedqtest.Start)
		if tg != nil {
			return tg
		}
		refusals = append(refusals, na)
	}
	t.Fatalf("adapter mistake: the target refuses the config of every profile:\n%s", strings.Join(refusals, "\n"))
	return nil
}

// snapshotOK reports whether s, taken after the operation named after,
// shows what o claims as Target requires, and says what it does not.
func snapshotOK(t testing.TB, o Observes, after string, s spec.Snapshot) bool {
	t.Helper()
	if m := AdapterMistake(o, s); m != "" {
		t.Errorf("%s (after %s)", m, after)
		return false
	}
	return true
}

// checkFresh checks a fresh target: its snapshot, its clock at the start
// time, and the metrics it claims.
func checkFresh(t testing.TB, target Target, o Observes) bool {
	t.Helper()
	s := target.Snapshot()
	if !snapshotOK(t, o, "NewTarget", s) {
		return false
	}
	if !s.Now.Equal(schedqtest.Start) {
		t.Errorf("adapter mistake: Snapshot().Now is %s on a fresh target, not the start time given to NewTarget (%s); start the target's clock there",
			s.Now.Format(time.RFC3339Nano), schedqtest.Start.Format(time.RFC3339Nano))
		return false
	}
	if o.Metrics {
		if _, ok := target.(MetricsReporter); !ok {
			t.Errorf("%s", mistakeNoMetrics)
			return false
		}
	}
	return true
}

// playPreflightOps runs preflightOps, checking the snapshot after each
// and that Now follows each Advance, and returns the names of the pods
// it popped.
func playPreflightOps(t testing.TB, target Target, exec *schedqtest.Executor, o Observes) (popped []string, ok bool) {
	t.Helper()
	for _, line := range preflightOps {
		op, err := schedqtest.ParseOp(line)
		if err != nil {
			panic(err)
		}
		before := target.Snapshot().Now
		if op.Kind == schedqtest.KindPop {
			if n := len(target.Snapshot().ActiveQ); n == 0 {
				// A queue that lost the pods: the rules' business, not the
				// adapter's; the scenarios say which.
				break
			}
			to := exec.ApplyPop(target.Pop)
			if to.Popped != nil {
				popped = append(popped, schedqtest.NameOf(to.Popped.Key()))
			}
		} else if _, err := exec.Apply(op); err != nil {
			t.Fatalf("preflight: %s: %v", line, err)
		}
		s := target.Snapshot()
		if !snapshotOK(t, o, line, s) {
			return popped, false
		}
		if op.Kind == schedqtest.KindTick && !s.Now.Equal(before.Add(op.Duration)) {
			t.Errorf("adapter mistake: Snapshot().Now does not follow Advance: Advance(%v) moved it from %s to %s; Snapshot().Now must read the clock Advance moves",
				op.Duration, before.Format(time.RFC3339Nano), s.Now.Format(time.RFC3339Nano))
			return popped, false
		}
	}
	return popped, true
}

// handBackOutOfOrder hands the popped pods back rejected by plugins given
// out of order and repeated: a queue keeps them as a plugin set (R3), and
// its snapshot must show that set normalised, whatever the adapter
// converts it through (a map, say: three plugins, two pods and a few
// snapshots make a lucky order unlikely).
func handBackOutOfOrder(t testing.TB, target Target, exec *schedqtest.Executor, o Observes, popped []string) bool {
	t.Helper()
	for _, name := range popped {
		rec, _ := exec.Popped(schedqtest.Key(name))
		info := rec.Info
		info.UnschedulablePlugins = []string{"TaintToleration", "NodeResourcesFit", "InterPodAffinity", "TaintToleration"}
		// A refusal is the rules' business: the scenarios will say.
		_ = target.AddUnschedulableIfNotPresent(&info, rec.Cycle)
	}
	for i := range 3 {
		if !snapshotOK(t, o, fmt.Sprintf("handing back %v rejected by TaintToleration, NodeResourcesFit, InterPodAffinity, TaintToleration (snapshot %d)", popped, i+1), target.Snapshot()) {
			return false
		}
	}
	return true
}
