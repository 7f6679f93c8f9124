package spec

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// The rules of pre-queueing hints: the hints profile with
// Config.PreQueueing set, which is kube-scheduler v1.38's default
// (SchedulerPreQueueingHints, beta and on from v1.38.0-beta.0; alpha and
// off in v1.37.2, whose hints profile leaves it unset). Their text is the
// section "Pre-queueing hints" of Queue's comment.
const (
	R20PreQueueingHints Rule = "R20 pre-queueing hints"
	R21NarrowedMove     Rule = "R21 narrowed move request"
	R22PerPluginNarrow  Rule = "R22 per-plugin narrowing"
)

// PreQueueingResult is a pre-queueing hint's answer for one occurrence
// (R20): every parked pod (AllPods), or the keys of the parked pods whose
// queueing hint of the same plugin may answer Queue for it. An empty Pods
// without AllPods names no pod: the plugin's hints are asked about none.
type PreQueueingResult struct {
	AllPods bool
	Pods    []PodKey
}

// AllPods is the pre-queueing answer that narrows nothing.
var AllPods = PreQueueingResult{AllPods: true}

// PodsNamed is the pre-queueing answer that names keys.
func PodsNamed(keys ...PodKey) PreQueueingResult { return PreQueueingResult{Pods: keys} }

func (r PreQueueingResult) String() string {
	if r.AllPods {
		return "all"
	}
	names := make([]string, len(r.Pods))
	for i, k := range r.Pods {
		names[i] = string(k)
	}
	return "(" + strings.Join(names, ",") + ")"
}

// PreQueueingHintFn is a pre-queueing hint: a pure function of the
// occurrence alone (it sees no pod and no queue) that tells which parked
// pods its plugin's queueing hint for the same registration may requeue
// (R20). Upstream: framework.PreQueueingHintFn(logger, oldObj, newObj),
// whose pods are namespaced names; DRA's looks the pods up by the claim of
// the event. An error means "could not tell" and counts as AllPods.
//
// A pre-queueing hint is sound for an occurrence when it names every
// parked pod its plugin's queueing hint would requeue for it. The queue
// cannot check soundness and does not: a pod an unsound pre-queueing hint
// leaves out stays parked (R21), as upstream's does, until another event,
// an Update, Activate or the leftover flush, which pre-queueing hints
// never narrow, takes it (I8).
type PreQueueingHintFn func(occ Occurrence) (PreQueueingResult, error)

// PreQueueingHints maps registrations to their pre-queueing hints (R20). A
// registration (in PluginEvents) without one answers AllPods.
type PreQueueingHints map[HintKey]PreQueueingHintFn

// Narrowing is what the pre-queueing hints answered for one move request
// (R20): the plugins that named pods, each with the keys it named across
// its matching registrations, and whether some plugin asked narrowed
// nothing. A nil *Narrowing is a move request without pre-queueing hints:
// every parked pod is evaluated and every hint asked.
type Narrowing struct {
	// Named are the narrowed plugins and the keys each named.
	Named map[string]map[PodKey]bool
	// AllPods: some plugin asked answered AllPods, failed, or had no
	// pre-queueing hint for a matching registration, so the request
	// evaluates every parked pod (R21); the narrowed plugins are still
	// asked only about the pods they named (R22).
	AllPods bool
}

// PreQueueingNarrowing is R20: what the pre-queueing hints answer for a
// move request for occ, or nil when none are asked: the setting is off,
// the event is a wildcard (UnschedulableTimeout, ForceActivate), or it
// carries no object (Old, New, OldObject and NewObject all nil; upstream's
// oldObj and newObj both nil). Otherwise every registration of every
// plugin that matches the event (HintsMatch) is asked in turn. A plugin
// with a matching registration that answers AllPods, returns an error,
// panics or has no pre-queueing hint is narrowed by none of its
// registrations; a plugin all of whose matching registrations name pods
// is narrowed to the union of their keys.
func (c Config) PreQueueingNarrowing(occ Occurrence) *Narrowing {
	if !c.PreQueueing || occ.Event.IsWildCard() || !occ.HasObjects() {
		return nil
	}
	n := &Narrowing{Named: map[string]map[PodKey]bool{}}
	all := map[string]bool{}
	for _, plugin := range slices.Sorted(maps.Keys(c.PluginEvents)) {
		for _, reg := range c.PluginEvents[plugin] {
			if !HintsMatch(reg, occ.Event) {
				continue
			}
			r, ok := c.preQueueingHint(plugin, reg, occ)
			if !ok || r.AllPods {
				n.AllPods, all[plugin] = true, true
				continue
			}
			if n.Named[plugin] == nil {
				n.Named[plugin] = map[PodKey]bool{}
			}
			for _, k := range r.Pods {
				n.Named[plugin][k] = true
			}
		}
	}
	for plugin := range all {
		delete(n.Named, plugin)
	}
	return n
}

// preQueueingHint asks one registration's pre-queueing hint; ok is false
// for no hint, an error or a panic: the queue never fails for its caller's
// code, and a hint that could not tell narrows nothing.
func (c Config) preQueueingHint(plugin string, reg ClusterEvent, occ Occurrence) (r PreQueueingResult, ok bool) {
	fn := c.PreQueueingHints[HintKey{Plugin: plugin, Event: reg}]
	if fn == nil {
		return r, false
	}
	defer func() {
		if recover() != nil {
			r, ok = PreQueueingResult{}, false
		}
	}()
	r, err := fn(occ)
	return r, err == nil
}

// HasObjects reports whether the occurrence carries any object: the
// condition for asking pre-queueing hints (R20).
func (o Occurrence) HasObjects() bool {
	return o.Old != nil || o.New != nil || o.OldObject != nil || o.NewObject != nil
}

// Evaluates is R21: whether the move request evaluates the parked pod key
// at all. Without narrowing, or when some plugin narrowed nothing, every
// parked pod; otherwise only the pods some plugin named.
func (n *Narrowing) Evaluates(key PodKey) bool {
	if n == nil || n.AllPods {
		return true
	}
	for _, keys := range n.Named {
		if keys[key] {
			return true
		}
	}
	return false
}

// Candidates are the keys a narrowed request evaluates, sorted; nil when
// it evaluates every parked pod (Evaluates is true for all).
func (n *Narrowing) Candidates() []PodKey {
	if n == nil || n.AllPods {
		return nil
	}
	seen := map[PodKey]bool{}
	for _, keys := range n.Named {
		maps.Copy(seen, keys)
	}
	out := slices.Sorted(maps.Keys(seen))
	if out == nil {
		out = []PodKey{}
	}
	return out
}

// Asks is R22: whether plugin's queueing hints are asked about the pod key
// in this request. A narrowed plugin is asked only about the pods it
// named; any other plugin about every pod.
func (n *Narrowing) Asks(plugin string, key PodKey) bool {
	if n == nil {
		return true
	}
	keys, narrowed := n.Named[plugin]
	return !narrowed || keys[key]
}

func (n *Narrowing) String() string {
	if n == nil {
		return "none"
	}
	var parts []string
	if n.AllPods {
		parts = append(parts, "all")
	}
	for _, p := range slices.Sorted(maps.Keys(n.Named)) {
		parts = append(parts, p+"="+PodsNamed(slices.Sorted(maps.Keys(n.Named[p]))...).String())
	}
	return strings.Join(parts, " ")
}

// MoveStrategy is R16 under R22: PodStrategy for a pod evaluated by a move
// request whose pre-queueing hints answered n. A rejector that n narrowed
// and that did not name the pod answers QueueSkip without being asked;
// a pod with no rejectors and the wildcard rule are as in PodStrategy. A
// nil n is PodStrategy.
func (c Config) MoveStrategy(info *QueuedPodInfo, occ Occurrence, n *Narrowing) Strategy {
	return c.podStrategy(info, occ, func(plugin string) bool { return n.Asks(plugin, info.Key()) })
}

// validatePreQueueing reports what makes the v1.38 settings invalid:
// pre-queueing is a setting of the profiles with queueing hints, and each
// pre-queueing hint needs the setting, a function and a registration;
// PodGroupsV138 is the podgroups profile's.
func (c Config) validatePreQueueing() []error {
	var errs []error
	switch {
	case c.PreQueueing && c.Profile == ProfilePodGroups && !c.PodGroupsV138:
		errs = append(errs, fmt.Errorf("PreQueueing is set in the podgroups profile without PodGroupsV138: pre-queueing hints over groups (G14) are v1.38's, which has v1.38's group rules too (G12, G13); set both or neither"))
	case c.PreQueueing && !c.Profile.HasHints():
		errs = append(errs, fmt.Errorf("PreQueueing is set but the profile is %v, which has no queueing hints", c.Profile))
	}
	if c.PodGroupsV138 && c.Profile != ProfilePodGroups {
		errs = append(errs, fmt.Errorf("PodGroupsV138 is set but the profile is %v: it is the podgroups profile's v1.38 setting (G12, G13)", c.Profile))
	}
	if len(c.PreQueueingHints) > 0 && !c.PreQueueing {
		errs = append(errs, fmt.Errorf("PreQueueingHints are set but PreQueueing is off: set it (SchedulerPreQueueingHints) or drop them"))
	}
	for k, fn := range c.PreQueueingHints {
		if fn == nil {
			errs = append(errs, fmt.Errorf("pre-queueing hint of %s for %s is nil", k.Plugin, k.Event))
		}
		if !c.PluginEvents.registers(k.Plugin, k.Event) {
			errs = append(errs, fmt.Errorf("pre-queueing hint of %s for %s: the plugin does not register that event in PluginEvents", k.Plugin, k.Event))
		}
	}
	return errs
}
