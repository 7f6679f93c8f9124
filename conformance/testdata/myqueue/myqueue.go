// Package myqueue stands for a queue author's own scheduling queue. To keep
// the example short it is schedq's implementation with two changes of its
// own, both departures from the contract, declared in myqueue_test.go:
//
//   - Done of a UID that is not in flight returns nil, as upstream's Done
//     does, so that the scheduler's cleanup may call it twice (R12 says
//     ErrNotInFlight).
//   - A pod the informer delivers again while it waits in backoffQ or
//     unschedulablePods keeps its InitialAttemptTimestamp, so that the
//     queue's scheduling-latency figures count from the pod's first
//     attempt (R1 says a re-added pod is a fresh entry).
package myqueue

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"k8s.io/utils/clock"

	"github.com/schedq/schedq/impl"
	"github.com/schedq/schedq/spec"
)

// Queue is the queue.
type Queue struct {
	*impl.PriorityQueue
	mu    sync.Mutex
	first map[spec.PodKey]time.Time // kept InitialAttemptTimestamp of re-added pods in activeQ
}

// New returns an empty queue with cfg whose clock is clk.
func New(cfg spec.Config, clk clock.WithTicker) (*Queue, error) {
	// Refusing a profile is how a queue says it does not implement it: the
	// suite then reports that profile's scenarios as not applicable.
	if cfg.Profile != spec.ProfileClassic {
		return nil, fmt.Errorf("%w: myqueue implements the classic profile only", spec.ErrInvalidConfig)
	}
	if len(cfg.PreEnqueuePlugins) > 0 {
		return nil, fmt.Errorf("%w: myqueue runs no PreEnqueue plugins (R17)", spec.ErrInvalidConfig)
	}
	q, err := impl.New(cfg, impl.WithClock(clk))
	if err != nil {
		return nil, err
	}
	return &Queue{PriorityQueue: q, first: make(map[spec.PodKey]time.Time)}, nil
}

// Add is R1, except that a pod waiting in backoffQ or unschedulablePods
// keeps its InitialAttemptTimestamp. (Not atomic with concurrent calls:
// good enough for an example.)
func (q *Queue) Add(p *spec.Pod) error {
	var loc spec.Location
	var info spec.QueuedPodInfo
	if p != nil {
		s := q.PriorityQueue.Snapshot()
		loc, info = s.Find(p.Key())
	}
	if err := q.PriorityQueue.Add(p); err != nil {
		return err
	}
	if loc == spec.InBackoffQ || loc == spec.InUnschedulablePods {
		q.mu.Lock()
		q.first[p.Key()] = info.InitialAttemptTimestamp
		q.mu.Unlock()
	}
	return nil
}

// Pop is R2; the pod it returns carries its first attempt's time, which
// the scheduler hands back with it.
func (q *Queue) Pop() (*spec.QueuedPodInfo, int64, error) {
	p, cycle, err := q.PriorityQueue.Pop()
	if p != nil {
		q.mu.Lock()
		if t, ok := q.first[p.Key()]; ok {
			p.InitialAttemptTimestamp = t
			delete(q.first, p.Key())
		}
		q.mu.Unlock()
	}
	return p, cycle, err
}

// Delete is R10.
func (q *Queue) Delete(p *spec.Pod) error {
	err := q.PriorityQueue.Delete(p)
	if err == nil {
		q.mu.Lock()
		delete(q.first, p.Key())
		q.mu.Unlock()
	}
	return err
}

// Snapshot is spec.Queue's.
func (q *Queue) Snapshot() spec.Snapshot {
	s := q.PriorityQueue.Snapshot()
	q.mu.Lock()
	defer q.mu.Unlock()
	for i := range s.ActiveQ {
		if t, ok := q.first[s.ActiveQ[i].Key()]; ok {
			s.ActiveQ[i].InitialAttemptTimestamp = t
		}
	}
	return s
}

// Done is R12, except that a UID not in flight is no error.
func (q *Queue) Done(uid spec.UID) error {
	if err := q.PriorityQueue.Done(uid); err != nil && !errors.Is(err, spec.ErrNotInFlight) {
		return err
	}
	return nil
}
