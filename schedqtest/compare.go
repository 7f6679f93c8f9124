package schedqtest

import (
	"errors"
	"slices"

	"github.com/schedq/schedq/spec"
)

// Sentinels are the error values of package spec, in the order Sentinel
// tries them.
var Sentinels = []error{spec.ErrNilPod, spec.ErrInvalidPod, spec.ErrAlreadyQueued, spec.ErrPodNotFound,
	spec.ErrNotInFlight, spec.ErrClosed, spec.ErrWouldBlock, spec.ErrInvalidEvent, spec.ErrInvalidConfig,
	spec.ErrInvalidPodGroup, spec.ErrPodGroupNotFound, spec.ErrPodGroupExists, spec.ErrGroupEntity}

// Sentinel returns the spec sentinel err wraps, or nil if it wraps none (or
// is nil).
func Sentinel(err error) error {
	for _, s := range Sentinels {
		if errors.Is(err, s) {
			return s
		}
	}
	return nil
}

// SameError is the one error comparison of the suites: two operations
// returned the same outcome if both returned nil, or both returned an error
// wrapping the same spec sentinel (the wrapped detail is free text and
// differs between queues). Two non-nil errors wrapping no sentinel are the
// same too: neither says more than "failed".
func SameError(want, got error) bool {
	if want == nil || got == nil {
		return want == nil && got == nil
	}
	return Sentinel(want) == Sentinel(got)
}

// ErrorText is how a scenario prints an operation's error: the sentinel's
// text, so that the output does not depend on a queue's wording.
func ErrorText(err error) string {
	if s := Sentinel(err); s != nil {
		return s.Error()
	}
	return err.Error()
}

// InfoEqual is the one queued-pod comparison of the suites: the same pod
// (every field, spec.PodsEqual), Timestamp, Attempts, UnschedulablePlugins,
// InitialAttemptTimestamp and the hints profile's fields (spec.HintFields:
// UnschedulableCount, ConsecutiveErrorsCount, PendingPlugins, GatingPlugin,
// FlushTimestamp; zero in the classic profile), everything the model's own
// state comparison holds a pod to. Two nil infos are equal.
func InfoEqual(a, b *spec.QueuedPodInfo) bool {
	if a == nil || b == nil {
		return a == b
	}
	return spec.PodsEqual(a.Pod, b.Pod) &&
		a.Timestamp.Equal(b.Timestamp) && a.Attempts == b.Attempts &&
		slices.Equal(a.UnschedulablePlugins, b.UnschedulablePlugins) &&
		a.InitialAttemptTimestamp.Equal(b.InitialAttemptTimestamp) &&
		spec.HintFieldsEqual(&a.HintFields, &b.HintFields)
}
