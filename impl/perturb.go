//go:build schedqperturb

package impl

import (
	"math/rand/v2"
	"runtime"
	"sync"
	"time"
)

// The schedule-perturbing build (-tags schedqperturb): the queue's lock
// is a yield point. Before every acquire and after every release (those
// of cond.Wait included) the goroutine may give up its processor or
// sleep a few microseconds, so that another goroutine gets the lock in
// between. A race that needs another operation to slip in between two
// critical sections of one operation (a lock released too early) then
// shows within a few hundred operations, on an idle machine or a loaded
// one, instead of when the Go scheduler happens to preempt there; the
// concurrent checks (conformance/concurrent, linearizability) run on it
// unchanged. This is the yield-point half of PCT (Burckhardt et al.,
// ASPLOS 2010): random delays at the synchronisation points, not its
// priority schedule, which Go's scheduler does not let a program impose.
//
// The ordinary build (lock.go) is a plain sync.Mutex: no cost, no code.
type queueMutex struct{ m sync.Mutex }

// Perturbed reports whether this is the schedule-perturbing build.
const Perturbed = true

func (l *queueMutex) Lock() {
	perturb()
	l.m.Lock()
}

func (l *queueMutex) Unlock() {
	l.m.Unlock()
	perturb()
}

// perturb is one yield point: nothing half the time, else a yield of the
// processor, and one time in eight a sleep of 1 to 64 microseconds (long
// enough for a goroutine woken on another processor to take the lock).
func perturb() {
	switch r := rand.Uint32N(8); {
	case r < 4:
	case r < 7:
		runtime.Gosched()
	default:
		time.Sleep(time.Duration(1+rand.IntN(64)) * time.Microsecond)
	}
}
