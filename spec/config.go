package spec

import (
	"errors"
	"fmt"
	"time"
)

// Config holds the queue's tunables. Start from DefaultConfig: a zero
// duration is rejected rather than silently defaulted, because a zero flush
// period would be a busy loop and a zero backoff a different queue.
type Config struct {
	// PodInitialBackoffDuration is the backoff after the first failed
	// attempt (R7). Upstream default 1s.
	PodInitialBackoffDuration time.Duration
	// PodMaxBackoffDuration caps the backoff (R7). Upstream default 10s.
	PodMaxBackoffDuration time.Duration
	// PodMaxInUnschedulablePodsDuration is how long a pod may stay in
	// unschedulablePods before the leftover flush moves it (R6). Upstream
	// default 5m.
	PodMaxInUnschedulablePodsDuration time.Duration
	// BackoffQFlushPeriod is the period of flushBackoffQCompleted (R5), 1s
	// upstream.
	BackoffQFlushPeriod time.Duration
	// UnschedulablePodsFlushPeriod is the period of
	// flushUnschedulablePodsLeftover (R6), 30s upstream.
	UnschedulablePodsFlushPeriod time.Duration
	// PluginEvents is the plugin -> events-of-interest registry (R4).
	PluginEvents PluginEvents
	// Profile selects the semantics (see Profile); the zero value is the
	// classic queue.
	Profile Profile
	// QueueingHints are the hints profile's queueing hints (R16); a
	// registered event without one always answers Queue. Classic: empty.
	// Functions do not serialize: a config saved as JSON (a recorded
	// history) loses them, and whoever reads it must supply them again.
	QueueingHints QueueingHints `json:"-"`
	// PreEnqueuePlugins are the PreEnqueue plugins of either profile
	// (R17): scheduling gates and their like. Not serialized, like
	// QueueingHints.
	PreEnqueuePlugins PreEnqueuePlugins `json:"-"`
	// PreQueueing is the hints profile's pre-queueing setting (R20-R22,
	// upstream's SchedulerPreQueueingHints gate): on in kube-scheduler
	// v1.38's defaults, off (the zero value) in v1.37.2's, so every
	// hints config written before it keeps its meaning. The classic
	// profile has no queueing hints and rejects it.
	PreQueueing bool `json:",omitempty"`
	// PreQueueingHints are the pre-queueing hints (R20) with PreQueueing
	// set; a registered event without one answers AllPods. Not
	// serialized, like QueueingHints.
	PreQueueingHints PreQueueingHints `json:"-"`
	// PodGroupsV138 is the podgroups profile's v1.38 setting: G12 and G13
	// in place of v1.37.2's PreEnqueue of an entity and strategy of a
	// gated one (PodGroupQueue). Not a feature gate upstream: v1.38 has
	// them whatever its gates say. Off (the zero value) is v1.37.2, so
	// every podgroups config written before it keeps its meaning; only the
	// podgroups profile takes it.
	PodGroupsV138 bool `json:",omitempty"`
}

// Upstream defaults (kube-scheduler v1.33).
const (
	DefaultPodInitialBackoffDuration         = 1 * time.Second
	DefaultPodMaxBackoffDuration             = 10 * time.Second
	DefaultPodMaxInUnschedulablePodsDuration = 5 * time.Minute
	DefaultBackoffQFlushPeriod               = 1 * time.Second
	DefaultUnschedulablePodsFlushPeriod      = 30 * time.Second
)

// MinFlushPeriod is the shortest flush period Validate accepts: below it a
// running queue's flushes are a busy loop in all but name (a 1ns period
// kept an idle queue at a third of a core).
const MinFlushPeriod = time.Millisecond

// DefaultConfig returns the upstream defaults with the given registry.
func DefaultConfig(events PluginEvents) Config {
	return Config{
		PodInitialBackoffDuration:         DefaultPodInitialBackoffDuration,
		PodMaxBackoffDuration:             DefaultPodMaxBackoffDuration,
		PodMaxInUnschedulablePodsDuration: DefaultPodMaxInUnschedulablePodsDuration,
		BackoffQFlushPeriod:               DefaultBackoffQFlushPeriod,
		UnschedulablePodsFlushPeriod:      DefaultUnschedulablePodsFlushPeriod,
		PluginEvents:                      events,
	}
}

// Validate reports every reason the config is unusable, wrapped in
// ErrInvalidConfig.
func (c Config) Validate() error {
	var errs []error
	positive := func(name string, d time.Duration) {
		if d <= 0 {
			errs = append(errs, fmt.Errorf("%s must be positive, got %v", name, d))
		}
	}
	positive("PodInitialBackoffDuration", c.PodInitialBackoffDuration)
	backoffOff := c.PodMaxBackoffDuration == 0 && c.maxBackoffMayBeZero() // R7h
	if !backoffOff {
		positive("PodMaxBackoffDuration", c.PodMaxBackoffDuration)
	}
	positive("PodMaxInUnschedulablePodsDuration", c.PodMaxInUnschedulablePodsDuration)
	period := func(name string, d time.Duration) {
		if d < MinFlushPeriod {
			errs = append(errs, fmt.Errorf("%s must be at least %v, got %v", name, MinFlushPeriod, d))
		}
	}
	period("BackoffQFlushPeriod", c.BackoffQFlushPeriod)
	period("UnschedulablePodsFlushPeriod", c.UnschedulablePodsFlushPeriod)
	if c.PodMaxBackoffDuration < c.PodInitialBackoffDuration && !backoffOff {
		errs = append(errs, fmt.Errorf("PodMaxBackoffDuration %v is below PodInitialBackoffDuration %v",
			c.PodMaxBackoffDuration, c.PodInitialBackoffDuration))
	}
	for plugin, evs := range c.PluginEvents {
		if plugin == "" {
			errs = append(errs, errors.New("PluginEvents has an empty plugin name"))
		}
		for _, e := range evs {
			if e.Resource == "" || e.ActionType == 0 {
				errs = append(errs, fmt.Errorf("plugin %q registers an event with no resource or action: %+v", plugin, e))
			} else if err := e.ActionType.Validate(); err != nil {
				errs = append(errs, fmt.Errorf("plugin %q registers %s: %w", plugin, e.Resource, err))
			}
		}
	}
	errs = append(errs, c.validateProfile()...)
	errs = append(errs, c.validatePreQueueing()...)
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %w", ErrInvalidConfig, errors.Join(errs...))
}
