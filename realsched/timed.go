package realsched

import (
	"sort"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
)

// timed measures scheduling attempts at the queue boundary, the same way
// for either queue: an attempt runs from the Pop that returned the pod to
// the call that ends it (Done after binding or giving up,
// AddUnschedulableIfNotPresent after a failure). Every other method is the
// wrapped queue's own.
type timed struct {
	upstreamQueue
	t0      time.Time // the measured phase's start
	mu      sync.Mutex
	started map[types.UID]time.Time
	took    []time.Duration
	pops    []Attempt
}

// Attempt is one Pop: when (from the measured phase's start), the pod,
// and the attempt's number as the queue counts it (1: the pod's first).
// The order of the attempts shows how a queue orders first attempts and
// retries.
type Attempt struct {
	At     time.Duration
	Pod    string
	Number int
}

func newTimed(q upstreamQueue) *timed {
	return &timed{upstreamQueue: q, started: map[types.UID]time.Time{}}
}

func (t *timed) pop(logger klog.Logger) (*queuedPodInfo, error) {
	p, err := popUpstream(t.upstreamQueue, logger)
	if err == nil && p != nil && p.PodInfo != nil && p.Pod != nil {
		t.mu.Lock()
		now := time.Now()
		t.started[p.Pod.UID] = now
		t.pops = append(t.pops, Attempt{At: now.Sub(t.t0), Pod: p.Pod.Name, Number: p.Attempts})
		t.mu.Unlock()
	}
	return p, err
}

func (t *timed) end(uid types.UID) {
	now := time.Now()
	t.mu.Lock()
	if s, ok := t.started[uid]; ok {
		t.took = append(t.took, now.Sub(s))
		delete(t.started, uid)
	}
	t.mu.Unlock()
}

func (t *timed) Done(uid types.UID) {
	t.end(uid)
	t.upstreamQueue.Done(uid)
}

// failed ends p's attempt (the failure path, whose name is the release's).
func (t *timed) failed(p *queuedPodInfo) {
	if p != nil && p.PodInfo != nil && p.Pod != nil {
		t.end(p.Pod.UID)
	}
}

// inFlight are the pods popped whose attempt has not ended.
func (t *timed) inFlight() map[types.UID]bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	m := make(map[types.UID]bool, len(t.started))
	for u := range t.started {
		m[u] = true
	}
	return m
}

// quantiles returns the p50, p90 and p99 attempt latencies and the
// attempts ended.
func (t *timed) quantiles() (p50, p90, p99 time.Duration, n int) {
	t.mu.Lock()
	d := append([]time.Duration(nil), t.took...)
	t.mu.Unlock()
	if len(d) == 0 {
		return 0, 0, 0, 0
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	at := func(q float64) time.Duration { return d[int(q*float64(len(d)-1))] }
	return at(0.50), at(0.90), at(0.99), len(d)
}

// popped returns every attempt in Pop order.
func (t *timed) popped() []Attempt {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]Attempt(nil), t.pops...)
}
