// Package conformance is a reusable suite that tells how a scheduling queue
// departs from the reference semantics of schedq, in either profile of the
// contract: the classic kube-scheduler queue (rules R1..R14 as stated on
// spec.Queue) and the queueing-hints queue of kube-scheduler v1.37.2
// (spec.ProfileHints, rules R1h..R18). Scenarios under hints/ and the
// "differential-hints" random runs are of the hints profile; a target whose
// constructor refuses a profile's config (an error wrapping
// spec.ErrInvalidConfig, as impl.New returns for the hints profile) reports
// them n/a (profile.go).
//
// Wrap your queue in a Target and call Run from a test:
//
//	func TestMyQueue(t *testing.T) {
//		conformance.Run(t, newMyTarget, conformance.Options{})
//	}
//
// Run first checks the adapter ("preflight": the requirements stated on
// Target, each failure named as an adapter mistake), then plays the
// scenario catalogue, then model-differential random runs. A scenario is a
// text file (testdata/scenarios/<group>/<name>.txt, embedded in the
// package) in the language of package schedqtest: one operation a line,
// each followed by the state the model prints after it. Each scenario
// cites the rule ids it checks. The target and a shadow model perform the
// same operations; after each one their errors (schedqtest.SameError), the
// pod each Pop returned (one the model allows, I5), the observed snapshots
// and, for a target that reports them, the metrics (R14, R14h) must agree, and
// on a target that observes everything the invariants I1..I6
// (spec.CheckStep) must hold. A failure names the scenario, the step and
// its operation line, the rule or invariant, each differing field as
// "model: X / target: Y", and the operations as a scenario. The random
// runs fail the same way, with the shrunk operation sequence printed as a
// scenario file.
//
// A scenario may declare that a given profile (an upstream version or mode)
// behaves differently on purpose ("known-difference" in the file); such a
// scenario still runs, and its failure is reported as a known difference
// with the reason and the upstream source line, never skipped silently; a
// declared difference that does not show fails as stale. Your own queue
// declares its differences in Options.KnownDifferences, and
// Options.Ignore leaves named observations out of the random runs.
// Options.Dirs runs your own scenario files the same way, e.g.
// regressions saved from a failing random run. See example_test.go for a
// complete adapter, and testdata/myqueue for a module of its own.
package conformance

import (
	"testing"
	"time"

	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// Target is a queue under test: the operations of spec.Queue, a way to move
// its clock, and what it is (Info).
//
// What the suite requires of a target, beyond the rules of spec.Queue (it
// checks all of it in a "preflight" subtest before any scenario, and
// names a failure as an adapter mistake, AdapterMistake, never as a broken
// rule):
//
//   - Snapshot().Now is set, and is the target's clock: the start time
//     NewTarget was given, moved by exactly what Advance added. (Left
//     zero, every backoff expiry would look wrong.)
//   - Each list of a Snapshot is sorted by key (spec.SortPods), whatever
//     order the queue keeps its pods in.
//   - Where TargetInfo.Observes.PodInfo is set, each pod's
//     UnschedulablePlugins is a normalised plugin set, sorted and without
//     duplicates (spec.NewPluginSet): rebuild it with spec.NewPluginSet if
//     the queue keeps plugins in a map or a set.
//   - Where TargetInfo.Observes.Metrics is set, the target implements
//     MetricsReporter.
//   - Info().Name is not empty (reports and known differences use it).
//
// Snapshot is the target's observation of which place holds which pod and
// of the cycle counters; a target that cannot observe a part says so in
// TargetInfo.Observes, and the suite then does not compare that part.
type Target interface {
	spec.Queue
	// Advance moves the target's clock forward by d (a fake clock: the
	// suite never sleeps).
	Advance(d time.Duration)
	// Info says what the target is and claims to behave like.
	Info() TargetInfo
}

// NewTarget returns a fresh, empty target with the given config whose clock
// reads start. It may call t.Fatal, and should register cleanup (Close)
// with t.Cleanup.
type NewTarget func(t testing.TB, cfg spec.Config, start time.Time) Target

// TargetInfo is a target's identity and what it claims to be and to
// observe (not the contract profile, spec.Profile, it runs).
type TargetInfo struct {
	// Name identifies the target in reports and in known differences,
	// e.g. "upstream-v1.33.13-classic".
	Name string
	// Description is one line for the report.
	Description string
	// Blocking is true if Pop waits on an empty activeQ, as a concurrent
	// queue does. The sequential model returns spec.ErrWouldBlock instead,
	// so scenarios about blocking do not apply to it.
	Blocking bool
	// Observes says which parts of spec.Snapshot the target reports.
	Observes Observes
	// SilentNoOps is true if the target ignores some bad input without
	// reporting it (upstream's Delete, Done and Activate return nothing):
	// the suite then accepts a nil error where it expects one, as long as
	// nothing changed.
	SilentNoOps bool
	// CloseDiffers, if not empty, says how the target's Close departs
	// from R13/R13h in ways its declared known differences cover: the
	// random runs, which cannot leave a declared difference out, then
	// draw no Close.
	CloseDiffers string
}

// Observes lists the optional parts of a snapshot. Which pods are in which
// place, and SchedulingCycle, are always observed.
type Observes struct {
	// MoveRequestCycle: Snapshot.MoveRequestCycle is meaningful.
	MoveRequestCycle bool
	// PodInfo: Timestamp, Attempts, UnschedulablePlugins and
	// InitialAttemptTimestamp of each pod are meaningful.
	PodInfo bool
	// Closed: Snapshot.Closed is meaningful.
	Closed bool
	// InFlightEvents: Snapshot.InFlightEvents, the hints profile's
	// in-flight list (R15), is meaningful. (In the classic profile the
	// list is always empty.)
	InFlightEvents bool
	// HintCounts: the hints profile's UnschedulableCount,
	// ConsecutiveErrorsCount and FlushTimestamp of each pod are meaningful
	// (with PodInfo). kube-scheduler v1.33.13 has none of them.
	HintCounts bool
	// Metrics: the target implements MetricsReporter, and its
	// pending_pods and queue_incoming_pods_total (R14), and in the hints
	// profile also unschedulable_pods by plugin (R14h), are compared with
	// the model's after every step.
	Metrics bool
}

// KnownDifference declares that targets of some profiles behave differently
// in a scenario on purpose or by their design (the "known-difference"
// directive of a scenario file).
type KnownDifference = schedqtest.KnownDifference

// DifferenceKind is a known difference's triage: KindBug, KindDeparture or
// KindChange (schedqtest.DifferenceKind says what each means).
type DifferenceKind = schedqtest.DifferenceKind

// The kinds of a known difference.
const (
	KindBug       = schedqtest.KindBug
	KindDeparture = schedqtest.KindDeparture
	KindChange    = schedqtest.KindChange
)

// The names (TargetInfo.Name) of the targets this repository runs.
const (
	TargetModel              = "schedq-model"
	TargetImpl               = "schedq-impl"
	TargetUpstream133Classic = "upstream-v1.33.13-classic"
	TargetUpstream133Hints   = "upstream-v1.33.13-queueinghints"
	TargetUpstream137        = "upstream-v1.37.2"
)
