package myqueue_test

import (
	"os"
	"slices"
	"testing"
	"time"

	testingclock "k8s.io/utils/clock/testing"

	"github.com/schedq/schedq/conformance"
	"github.com/schedq/schedq/spec"

	"example.com/myqueue"
)

// target adapts the queue to conformance.Target: spec.Queue (embedded),
// a fake clock the suite moves, the profile the queue claims and, since
// it claims metrics, the metrics.
type target struct {
	*myqueue.Queue
	clock *testingclock.FakeClock
}

func (t target) Advance(d time.Duration) { t.clock.Step(d) }

func (t target) Info() conformance.TargetInfo {
	return conformance.TargetInfo{
		Name:        "myqueue",
		Description: "myqueue: schedq's queue keeping a re-added pod's first attempt",
		Blocking:    true, // Pop waits on an empty activeQ
		Observes:    conformance.Observes{MoveRequestCycle: true, PodInfo: true, Closed: true, Metrics: true},
	}
}

// Metrics converts the queue's metrics (R14) for the suite.
func (t target) Metrics() conformance.Metrics {
	m := t.Queue.Metrics()
	out := conformance.Metrics{PendingPods: m.PendingPods, IncomingPods: map[conformance.IncomingSeries]uint64{}}
	for k, v := range m.IncomingPods {
		out.IncomingPods[conformance.IncomingSeries{Queue: k.Queue, Event: k.Event}] = v
	}
	return out
}

func newTarget(t testing.TB, cfg spec.Config, start time.Time) conformance.Target {
	clk := testingclock.NewFakeClock(start)
	q, err := myqueue.New(cfg, clk)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(q.Close)
	return target{q, clk}
}

// Our Done ignores a UID that is not in flight; R12 says ErrNotInFlight.
var silentDone = conformance.KnownDifference{
	Reason: "Done of a UID not in flight returns nil, so that the scheduler's cleanup may call it twice",
	Kind:   conformance.KindDeparture,
	Source: "myqueue.go (Queue.Done)",
}

func TestConformance(t *testing.T) {
	newT := newTarget
	if m := os.Getenv("MYQUEUE_ADAPTER_MISTAKE"); m != "" {
		newT = withMistake(m) // how the suite answers a wrong adapter
	}
	conformance.Run(t, newT, conformance.Options{
		KnownDifferences: map[string]conformance.KnownDifference{
			"done/after-a-failure-changes-nothing":                        silentDone,
			"done/of-an-unknown-uid-changes-nothing":                      silentDone,
			"update/of-an-in-flight-pod-under-a-new-uid-ends-the-attempt": silentDone,
		},
		// Our Add keeps a re-added pod's InitialAttemptTimestamp (R1 makes
		// it a fresh entry). No scenario of the catalogue re-adds a pod
		// after time has passed, but the random runs do: there, compare
		// everything but the timestamps.
		Ignore: []conformance.Observation{conformance.IgnoreTimestamps},
	})
}

// mistaken is the adapter with one of the mistakes the suite names.
type mistaken struct {
	target
	mistake string
	plugins map[spec.PodKey][]string // as the scheduler handed them back
}

func withMistake(m string) conformance.NewTarget {
	return func(t testing.TB, cfg spec.Config, start time.Time) conformance.Target {
		return &mistaken{newTarget(t, cfg, start).(target), m, map[spec.PodKey][]string{}}
	}
}

func (m *mistaken) AddUnschedulableIfNotPresent(p *spec.QueuedPodInfo, cycle int64) error {
	err := m.target.AddUnschedulableIfNotPresent(p, cycle)
	if err == nil {
		m.plugins[p.Key()] = p.UnschedulablePlugins
	}
	return err
}

func (m *mistaken) Snapshot() spec.Snapshot {
	s := m.target.Snapshot()
	switch m.mistake {
	case "unset-now": // Now left zero
		s.Now = time.Time{}
	case "unsorted": // activeQ in Pop order, not sorted by key
		slices.SortStableFunc(s.ActiveQ, func(a, b spec.QueuedPodInfo) int {
			if spec.Less(&a, &b) {
				return -1
			}
			if spec.Less(&b, &a) {
				return 1
			}
			return 0
		})
	case "plugins": // the plugins as handed back, not as a set
		for _, l := range [][]spec.QueuedPodInfo{s.BackoffQ, s.UnschedulablePods} {
			for i := range l {
				if p, ok := m.plugins[l[i].Key()]; ok {
					l[i].UnschedulablePlugins = p
				}
			}
		}
	}
	return s
}
