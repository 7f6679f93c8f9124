// Package conformance is a reusable suite that tells how a scheduling queue
// departs from the reference semantics of schedq (the classic kube-scheduler
// queue, rules R1..R13 of DESIGN.md).
//
// Wrap your queue in a Target and call Run from a test:
//
//	func TestMyQueue(t *testing.T) {
//		conformance.Run(t, newMyTarget, conformance.Options{})
//	}
//
// Run plays a catalogue of named scenarios, each citing the rule ids it
// checks, and then model-differential random runs that compare every
// observation of the target with package model. A scenario may declare that
// a given profile (an upstream version or mode) behaves differently on
// purpose; such a scenario still runs, and its failure is reported as a
// known difference with the reason and the upstream source line, never
// skipped silently. See example_test.go for a complete adapter.
package conformance

import (
	"testing"
	"time"

	"github.com/schedq/schedq/spec"
)

// Target is a queue under test: the operations of spec.Queue, a way to move
// its clock, and the profile it claims. Snapshot is the target's
// observation of which place holds which pod and of the cycle counters; a
// target that cannot observe a part says so in Profile.Observes, and the
// suite then does not compare that part.
type Target interface {
	spec.Queue
	// Step advances the target's clock by d (a fake clock: the suite never
	// sleeps).
	Step(d time.Duration)
	// Profile says what the target claims to behave like.
	Profile() Profile
}

// NewTarget returns a fresh, empty target with the given config whose clock
// reads start. It may call t.Fatal, and should register cleanup (Close)
// with t.Cleanup.
type NewTarget func(t testing.TB, cfg spec.Config, start time.Time) Target

// Profile describes what a target claims to be.
type Profile struct {
	// Name identifies the profile in reports and in known differences,
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
}

// KnownDifference declares that targets of some profiles behave differently
// in a scenario on purpose or by their design.
type KnownDifference struct {
	// Profiles are the profile names the difference applies to.
	Profiles []string
	// Reason says what differs and why, in one or two sentences.
	Reason string
	// Source points at the code that explains it, e.g.
	// "pkg/scheduler/backend/queue/active_queue.go:259 (unlockedPop)".
	Source string
}

func (k KnownDifference) appliesTo(profile string) bool {
	for _, p := range k.Profiles {
		if p == profile {
			return true
		}
	}
	return false
}
