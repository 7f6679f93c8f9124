package parked

import (
	"time"

	"github.com/schedq/schedq/spec"
)

// SnapshotWithin takes the queue's snapshot unless the queue does not
// answer in d: the check that diagnoses a hung queue (a lock never
// released, a Pop that never returns) must not hang on it too. The
// goroutine left asking a queue that never answers ends with the process.
func SnapshotWithin(q spec.Queue, d time.Duration) (spec.Snapshot, bool) {
	ch := make(chan spec.Snapshot, 1)
	go func() { ch <- q.Snapshot() }()
	select {
	case s := <-ch:
		return s, true
	case <-time.After(d):
		return spec.Snapshot{}, false
	}
}
