package spec_test

import (
	"errors"
	"testing"
	"time"

	"github.com/schedq/schedq/impl"
	"github.com/schedq/schedq/model"
	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// Bad input gets a clear error and changes nothing: each case builds a
// queue holding a pod in every place, then checks that the bad operation
// fails with the expected error and leaves the snapshot identical.
func TestBadInputChangesNothing(t *testing.T) {
	noName := &spec.Pod{Namespace: "ns", UID: "u"}
	noUID := &spec.Pod{Namespace: "ns", Name: "x"}
	cases := []struct {
		name    string
		wantErr error
		op      func(q spec.Queue) error
	}{
		{"Add nil", spec.ErrNilPod, func(q spec.Queue) error { return q.Add(nil) }},
		{"Add empty name", spec.ErrInvalidPod, func(q spec.Queue) error { return q.Add(noName) }},
		{"Add empty UID", spec.ErrInvalidPod, func(q spec.Queue) error { return q.Add(noUID) }},
		{"Add of a pod in activeQ", spec.ErrAlreadyQueued, func(q spec.Queue) error { return q.Add(schedqtest.Pod("active", 0)) }},
		{"Add of a pod in flight", spec.ErrAlreadyQueued, func(q spec.Queue) error { return q.Add(schedqtest.Pod("flight", 0)) }},
		{"Add with a slash in the name", spec.ErrInvalidPod, func(q spec.Queue) error { return q.Add(schedqtest.Pod("a/b", 0)) }},
		{"Add of a UID held by another pod", spec.ErrAlreadyQueued, func(q spec.Queue) error {
			return q.Add(&spec.Pod{Namespace: "ns", Name: "twin", UID: "uid-unsched"})
		}},
		{"Update to a UID held by another pod", spec.ErrAlreadyQueued, func(q spec.Queue) error {
			return q.Update(schedqtest.Pod("active", 0), &spec.Pod{Namespace: "ns", Name: "active", UID: "uid-flight"})
		}},
		{"AddUnschedulable of a UID held by another pod", spec.ErrAlreadyQueued, func(q spec.Queue) error {
			return q.AddUnschedulableIfNotPresent(&spec.QueuedPodInfo{Pod: &spec.Pod{Namespace: "ns", Name: "twin", UID: "uid-flight"}, Attempts: 1}, 1)
		}},
		{"AddUnschedulable nil", spec.ErrNilPod, func(q spec.Queue) error { return q.AddUnschedulableIfNotPresent(nil, 1) }},
		{"AddUnschedulable nil pod", spec.ErrNilPod, func(q spec.Queue) error {
			return q.AddUnschedulableIfNotPresent(&spec.QueuedPodInfo{}, 1)
		}},
		{"AddUnschedulable negative attempts", spec.ErrInvalidPod, func(q spec.Queue) error {
			return q.AddUnschedulableIfNotPresent(&spec.QueuedPodInfo{Pod: schedqtest.Pod("flight", 0), Attempts: -1}, 1)
		}},
		{"AddUnschedulable of a pod in activeQ", spec.ErrAlreadyQueued, func(q spec.Queue) error {
			return q.AddUnschedulableIfNotPresent(&spec.QueuedPodInfo{Pod: schedqtest.Pod("active", 0), Attempts: 1}, 1)
		}},
		{"AddUnschedulable of a pod in backoffQ", spec.ErrAlreadyQueued, func(q spec.Queue) error {
			return q.AddUnschedulableIfNotPresent(&spec.QueuedPodInfo{Pod: schedqtest.Pod("backoff", 0), Attempts: 1}, 1)
		}},
		{"AddUnschedulable of a pod in unschedulablePods", spec.ErrAlreadyQueued, func(q spec.Queue) error {
			return q.AddUnschedulableIfNotPresent(&spec.QueuedPodInfo{Pod: schedqtest.Pod("unsched", 0), Attempts: 1}, 1)
		}},
		{"Activate with a nil pod", spec.ErrNilPod, func(q spec.Queue) error { return q.Activate([]*spec.Pod{schedqtest.Pod("unsched", 0), nil}) }},
		{"Update nil new", spec.ErrNilPod, func(q spec.Queue) error { return q.Update(schedqtest.Pod("active", 0), nil) }},
		{"Update nil old", spec.ErrNilPod, func(q spec.Queue) error { return q.Update(nil, schedqtest.Pod("active", 0)) }},
		{"Update changing the key", spec.ErrInvalidPod, func(q spec.Queue) error { return q.Update(schedqtest.Pod("active", 0), schedqtest.Pod("other", 0)) }},
		{"Delete nil", spec.ErrNilPod, func(q spec.Queue) error { return q.Delete(nil) }},
		{"Delete unknown", spec.ErrPodNotFound, func(q spec.Queue) error { return q.Delete(schedqtest.Pod("ghost", 0)) }},
		{"Done unknown UID", spec.ErrNotInFlight, func(q spec.Queue) error { return q.Done("uid-ghost") }},
		{"Done of a queued pod", spec.ErrNotInFlight, func(q spec.Queue) error { return q.Done("uid-active") }},
		{"AssignedPodAdded nil", spec.ErrNilPod, func(q spec.Queue) error { return q.AssignedPodAdded(nil) }},
		{"AssignedPodUpdated nil", spec.ErrNilPod, func(q spec.Queue) error {
			return q.AssignedPodUpdated(nil, nil, spec.EventAssignedPodUpdate)
		}},
	}
	for _, c := range cases {
		for _, q := range queues {
			t.Run(c.name+"/"+q.name, func(t *testing.T) {
				s := q.new(t, schedqtest.Config())
				s.run(t, "add unsched", "pop", "fail unsched plugins=(TaintToleration)",
					"add backoff", "pop", "fail backoff", "add flight", "pop", "add active")
				s.expect(t, "activeQ: active(", "backoffQ: backoff(", "unschedulablePods: unsched(", "inFlight: flight(")
				s.unchanged(t, c.wantErr, func() error { return c.op(s.q) })
			})
		}
	}
}

func TestInvalidConfig(t *testing.T) {
	good := schedqtest.Config()
	cases := map[string]func(*spec.Config){
		"max backoff below initial": func(c *spec.Config) { c.PodMaxBackoffDuration = c.PodInitialBackoffDuration - 1 },
		"negative initial backoff":  func(c *spec.Config) { c.PodInitialBackoffDuration = -time.Second },
		"zero initial backoff":      func(c *spec.Config) { c.PodInitialBackoffDuration = 0 },
		"negative max backoff":      func(c *spec.Config) { c.PodMaxBackoffDuration = -1 },
		"zero unschedulable limit":  func(c *spec.Config) { c.PodMaxInUnschedulablePodsDuration = 0 },
		"zero backoffQ flush":       func(c *spec.Config) { c.BackoffQFlushPeriod = 0 },
		"negative leftover flush":   func(c *spec.Config) { c.UnschedulablePodsFlushPeriod = -time.Second },
		"event with no resource": func(c *spec.Config) {
			c.PluginEvents = spec.PluginEvents{"P": {{ActionType: spec.Add}}}
		},
		"empty plugin name": func(c *spec.Config) {
			c.PluginEvents = spec.PluginEvents{"": {{Resource: spec.ResourceNode, ActionType: spec.Add}}}
		},
	}
	for name, mutate := range cases {
		t.Run(name, func(t *testing.T) {
			cfg := good
			mutate(&cfg)
			if err := cfg.Validate(); !errors.Is(err, spec.ErrInvalidConfig) {
				t.Errorf("Validate: %v, want ErrInvalidConfig", err)
			}
			if m, err := model.New(cfg, schedqtest.Start); !errors.Is(err, spec.ErrInvalidConfig) || m != nil {
				t.Errorf("model.New: %v, want ErrInvalidConfig", err)
			}
			if q, err := impl.New(cfg); !errors.Is(err, spec.ErrInvalidConfig) || q != nil {
				t.Errorf("impl.New: %v, want ErrInvalidConfig", err)
			}
		})
	}
	if err := good.Validate(); err != nil {
		t.Errorf("default config: %v", err)
	}
}
