package impl

import (
	"time"

	"github.com/schedq/schedq/spec"
)

// podInfo is what an entry keeps of its pod's spec.QueuedPodInfo: the
// classic fields inline, under their spec names, and the hints profile's
// (spec.HintFields, 80 bytes) behind a pointer that stays nil until they
// are first set, as they never are in the classic profile. So adding the
// hints profile cost a classic entry one pointer, not 80 bytes per pod.
// Once made, the record stays with the entry, zeroed when its fields are
// all zero, and with the recycled entry too (freeEntry): a queue in steady
// state allocates no record per pod that fails.
// full() rebuilds the spec value for what hands it out (Pop, Snapshot) and
// for spec's pure functions of it.
type podInfo struct {
	Pod                     *spec.Pod
	Timestamp               time.Time
	Attempts                int
	UnschedulablePlugins    spec.PluginSet
	InitialAttemptTimestamp time.Time
	hints                   *spec.HintFields
}

var zeroHints spec.HintFields

func (i *podInfo) Key() spec.PodKey { return i.Pod.Key() }

// full is the spec.QueuedPodInfo the entry stands for.
func (i *podInfo) full() (out spec.QueuedPodInfo) {
	i.fill(&out)
	return out
}

// fill writes full's fields into out one by one: Pop refills its copy in
// place this way, where assigning full() would build the 168 bytes on the
// stack first and copy them again.
func (i *podInfo) fill(out *spec.QueuedPodInfo) {
	out.Pod = i.Pod
	out.Timestamp = i.Timestamp
	out.Attempts = i.Attempts
	out.UnschedulablePlugins = i.UnschedulablePlugins
	out.InitialAttemptTimestamp = i.InitialAttemptTimestamp
	if i.hints != nil {
		out.HintFields = *i.hints
	} else {
		out.HintFields = spec.HintFields{}
	}
}

// set makes the entry stand for q (its hint fields kept in the entry's
// own HintFields, reused if it has one).
func (i *podInfo) set(q *spec.QueuedPodInfo) {
	h := i.hints
	*i = podInfo{
		Pod:                     q.Pod,
		Timestamp:               q.Timestamp,
		Attempts:                q.Attempts,
		UnschedulablePlugins:    q.UnschedulablePlugins,
		InitialAttemptTimestamp: q.InitialAttemptTimestamp,
	}
	if spec.HintFieldsEqual(&q.HintFields, &zeroHints) {
		if h != nil {
			*h = zeroHints
			i.hints = h
		}
		return
	}
	if h == nil {
		h = new(spec.HintFields)
	}
	*h = q.HintFields
	i.hints = h
}

// reset makes the entry stand for a fresh pod, queued at now; the hints
// record, if the entry has one, is kept, zeroed.
func (i *podInfo) reset(pod *spec.Pod, now time.Time) {
	h := i.hints
	*i = podInfo{Pod: pod, Timestamp: now}
	if h != nil {
		*h = zeroHints
		i.hints = h
	}
}

// hf returns the hint fields for writing, making them if need be.
func (i *podInfo) hf() *spec.HintFields {
	if i.hints == nil {
		i.hints = new(spec.HintFields)
	}
	return i.hints
}

// pending is PendingPlugins; gating is GatingPlugin.
func (i *podInfo) pending() spec.PluginSet {
	if i.hints == nil {
		return nil
	}
	return i.hints.PendingPlugins
}

func (i *podInfo) gating() string {
	if i.hints == nil {
		return ""
	}
	return i.hints.GatingPlugin
}

// rejected reports whether some plugin rejected the pod (R16's rejectors).
func (i *podInfo) rejected() bool { return len(i.UnschedulablePlugins) > 0 || len(i.pending()) > 0 }

// expiry is cfg.BackoffExpiry of the pod; backingOff cfg.IsBackingOff.
func (q *PriorityQueue) expiry(e *entry) time.Time {
	f := e.info.full()
	return q.cfg.BackoffExpiry(&f)
}

func (q *PriorityQueue) backingOff(e *entry, now time.Time) bool {
	f := e.info.full()
	return q.cfg.IsBackingOff(&f, now)
}
