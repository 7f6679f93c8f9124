package spec

import (
	"cmp"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"
)

// The rule ids of the hints profile (ProfileHints): the queue
// kube-scheduler v1.37.2 runs with its default feature gates. R1h-R14h
// replace the classic rule of the same number where they differ; a classic
// rule without an "h" twin holds unchanged; R15 (the in-flight list) and
// R16 (queueing hints) are the hints profile's own; R17 (PreEnqueue), R18
// (the nominator) and R19 (caller objects) hold in both. Their text is on
// Queue and its methods, each under the classic text of the same number
// (go doc ./spec Queue). The operations keep their classic ids in
// StepRecord.Rule (it names the operation; Profile.Rule names the text
// that applies).
const (
	R1hAdd                Rule = "R1h Add"
	R2hPop                Rule = "R2h Pop"
	R3hAddUnschedulable   Rule = "R3h AddUnschedulableIfNotPresent"
	R4hMoveAll            Rule = "R4h MoveAllToActiveOrBackoffQueue"
	R5hFlushBackoffQ      Rule = "R5h flushBackoffQCompleted"
	R6hFlushUnschedulable Rule = "R6h flushUnschedulablePodsLeftover"
	R7hBackoff            Rule = "R7h Backoff"
	R8hActivate           Rule = "R8h Activate"
	R9hUpdate             Rule = "R9h Update"
	R10hDelete            Rule = "R10h Delete"
	R11hAssignedPod       Rule = "R11h AssignedPodAdded/Updated"
	R12hDone              Rule = "R12h Done"
	R13hClose             Rule = "R13h Close"
	R14hMetrics           Rule = "R14h Metrics"
	R15InFlight           Rule = "R15 in-flight pods and events"
	R16QueueingHints      Rule = "R16 queueing hints"
	// R17PreEnqueue holds in both profiles, with a classic and a hints
	// text (Queue's PreEnqueue section); its id is the same in both.
	R17PreEnqueue Rule = "R17 PreEnqueue"
)

// hintsTwins maps each classic rule to its hints-profile text.
var hintsTwins = map[Rule]Rule{
	R1Add: R1hAdd, R2Pop: R2hPop, R3AddUnschedulable: R3hAddUnschedulable, R4MoveAll: R4hMoveAll,
	R5FlushBackoffQ: R5hFlushBackoffQ, R6FlushUnschedulable: R6hFlushUnschedulable, R7Backoff: R7hBackoff,
	R8Activate: R8hActivate, R9Update: R9hUpdate, R10Delete: R10hDelete, R11AssignedPod: R11hAssignedPod,
	R12Done: R12hDone, R13Close: R13hClose, R14Metrics: R14hMetrics,
}

// Rule returns the text of rule r that applies in profile p: its hints
// twin (R4 -> R4h) in the hints profile, r itself otherwise. Steps keep
// the classic id (StepRecord.Rule names the operation); a report to a
// reader names the rule of the profile.
func (p Profile) Rule(r Rule) Rule {
	if t, ok := hintsTwins[r]; ok && p.HasHints() {
		return t
	}
	return r
}

// Rule returns the text of rule r as a report under config c names it:
// the profile's (Profile.Rule), and for a move request or an
// assigned-pod event under pre-queueing hints also the rules that narrow
// it (R20-R22, and G14 over groups): a failure there is most often one of
// theirs, and the operation's own rule alone sends the reader elsewhere.
func (c Config) Rule(r Rule) Rule {
	t := c.Profile.Rule(r)
	if c.PreQueueing && (r == R4MoveAll || r == R11AssignedPod) {
		groups := ""
		if c.Profile == ProfilePodGroups {
			groups = ", G14 over groups"
		}
		t += Rule(" narrowed by pre-queueing hints (R20-R22" + groups + ")")
	}
	return t
}

// HintFields are what the hints profile tracks per pod beyond the classic
// QueuedPodInfo. In the classic profile they stay zero, GatingPlugin
// aside (R17).
type HintFields struct {
	// UnschedulableCount counts the failures with at least one rejector
	// (R3h); it drives the backoff (R7h).
	UnschedulableCount int
	// ConsecutiveErrorsCount counts the failures in a row with no rejector
	// (an error, not a verdict); reset by a failure with rejectors (R3h).
	// When positive it drives the backoff instead (R7h).
	ConsecutiveErrorsCount int
	// PendingPlugins rejected the pod with Pending: a Queue from one of them
	// sends the pod to activeQ without backoff (R16).
	PendingPlugins PluginSet
	// GatingPlugin is the PreEnqueue plugin that refused the pod last; a pod
	// with one is gated and waits in unschedulablePods (R17). The one hint
	// field the classic profile sets too.
	GatingPlugin string
	// FlushTimestamp is when the leftover flush last took the pod (R6h);
	// zero if never since its last failure.
	FlushTimestamp time.Time
}

// Gated reports whether a PreEnqueue plugin refuses the pod (R17).
func (h *HintFields) Gated() bool { return h.GatingPlugin != "" }

// HintFieldsEqual reports whether two sets of hint fields are the same.
// (A function, not a method: HintFields is embedded in QueuedPodInfo, and a
// method would be promoted to it.)
func HintFieldsEqual(h, o *HintFields) bool {
	return h.UnschedulableCount == o.UnschedulableCount && h.ConsecutiveErrorsCount == o.ConsecutiveErrorsCount &&
		slices.Equal(h.PendingPlugins, o.PendingPlugins) && h.GatingPlugin == o.GatingPlugin &&
		h.FlushTimestamp.Equal(o.FlushTimestamp)
}

// diffHintFields describes how the hint fields of a and b differ, or "".
func diffHintFields(a, b *QueuedPodInfo) string {
	if HintFieldsEqual(&a.HintFields, &b.HintFields) {
		return ""
	}
	return fmt.Sprintf("pod %s: hint fields %s != %s", a.Key(), FormatHintFields(&a.HintFields), FormatHintFields(&b.HintFields))
}

// FormatHintFields renders the non-zero hint fields, for diffs; "" when
// all are zero (always, in the classic profile). A function, not a String
// method, which would make every *QueuedPodInfo print as its hint fields.
func FormatHintFields(h *HintFields) string {
	return strings.Join(h.fields(func(t time.Time) string { return t.Format(time.RFC3339Nano) }), ",")
}

// fields are the non-zero hint fields as name=value, times written by
// at: the one spelling of them, shared by FormatHintFields and
// Snapshot.Format.
func (h *HintFields) fields(at func(time.Time) string) []string {
	var parts []string
	if h.UnschedulableCount != 0 {
		parts = append(parts, fmt.Sprintf("unschedulableCount=%d", h.UnschedulableCount))
	}
	if h.ConsecutiveErrorsCount != 0 {
		parts = append(parts, fmt.Sprintf("consecutiveErrors=%d", h.ConsecutiveErrorsCount))
	}
	if len(h.PendingPlugins) > 0 {
		parts = append(parts, "pending="+strings.Join(h.PendingPlugins, ","))
	}
	if h.GatingPlugin != "" {
		parts = append(parts, "gatedBy="+h.GatingPlugin)
	}
	if !h.FlushTimestamp.IsZero() {
		parts = append(parts, "flushed="+at(h.FlushTimestamp))
	}
	return parts
}

// Rejectors returns the pod's UnschedulablePlugins and PendingPlugins
// together: the plugins whose hints decide for it (R16).
func (q *QueuedPodInfo) Rejectors() PluginSet {
	return NewPluginSet(append(slices.Clone(q.UnschedulablePlugins), q.PendingPlugins...)...)
}

// ResourceTargetPod is the resource of the events an update of a pod raises
// for the pod itself (R9h); a registration for ResourcePod covers it in the
// hints profile.
const ResourceTargetPod EventResource = "TargetPod"

// Occurrence is one event as it happened, with the objects it carries
// (R19). Old and New are the pod objects of a pod event (an assigned pod
// added or updated, an update of the pod itself, the pod ForceActivate
// aims at); OldObject and NewObject are the caller's objects of any other
// event (a Node, a PersistentVolume, a ResourceClaim: whatever the caller
// passed to MoveAllToActiveOrBackoffQueueWithObjects), nil when the caller
// gave none. The queue never reads OldObject and NewObject: it hands them
// to the queueing hints (R16) and records them with the event for replay
// (R15), untouched.
type Occurrence struct {
	Event     ClusterEvent
	Old       *Pod
	New       *Pod
	OldObject any
	NewObject any
}

// Validate reports an occurrence whose event is invalid (ErrInvalidEvent).
// Its objects are the caller's and are not examined.
func (o Occurrence) Validate() error { return o.Event.Validate() }

func (o Occurrence) String() string {
	var objs []string
	if o.Old != nil {
		objs = append(objs, "old="+string(o.Old.Key()))
	}
	if o.New != nil {
		objs = append(objs, "new="+string(o.New.Key()))
	}
	if o.OldObject != nil {
		objs = append(objs, "old="+ObjectString(o.OldObject))
	}
	if o.NewObject != nil {
		objs = append(objs, "new="+ObjectString(o.NewObject))
	}
	if len(objs) == 0 {
		return o.Event.EventLabel()
	}
	return o.Event.EventLabel() + "(" + strings.Join(objs, ",") + ")"
}

// ObjectString renders a caller's object for states and diffs: its String
// method if it has one, else its type.
func ObjectString(obj any) string {
	if s, ok := obj.(fmt.Stringer); ok {
		return s.String()
	}
	return fmt.Sprintf("%T", obj)
}

// ObjectAs returns a caller's object as a T, or an error saying what it is
// instead (nil included): the check a hint makes before it reads an
// event's object, as upstream's hints do with util.As. A hint that returns
// the error answers Queue (R16), so an event with an object of the wrong
// type, or none (a nil interface or a nil pointer), requeues the pod rather
// than strand it.
func ObjectAs[T any](obj any) (T, error) {
	t, ok := obj.(T)
	var zero T
	if !ok {
		return zero, fmt.Errorf("%w: object is %T, want %T", ErrInvalidEvent, obj, zero)
	}
	if v := reflect.ValueOf(obj); v.Kind() == reflect.Pointer && v.IsNil() {
		return zero, fmt.Errorf("%w: object is a nil %T", ErrInvalidEvent, obj)
	}
	return t, nil
}

// SameObject reports whether two caller objects are the same: equal if
// their type is comparable (pointers: the same object), deeply equal
// otherwise. It never panics.
func SameObject(a, b any) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	ta, tb := reflect.TypeOf(a), reflect.TypeOf(b)
	if ta != tb {
		return false
	}
	if ta.Comparable() {
		return a == b
	}
	return reflect.DeepEqual(a, b)
}

// InFlightEntry is one entry of the in-flight list (R15): a marker when UID
// is set (the pod with that UID and key was popped here and is still in
// flight), else an event record.
type InFlightEntry struct {
	UID   UID
	Key   PodKey
	Event Occurrence
}

// IsMarker reports whether the entry marks an in-flight pod.
func (e InFlightEntry) IsMarker() bool { return e.UID != "" }

func (e InFlightEntry) String() string {
	if e.IsMarker() {
		return "pod:" + string(e.Key)
	}
	return e.Event.String()
}

// EventsAfter returns the event records that follow the marker of uid, in
// order: the events a failing pod replays (R3h). A uid without a marker has
// none.
func EventsAfter(list []InFlightEntry, uid UID) []Occurrence {
	i := slices.IndexFunc(list, func(e InFlightEntry) bool { return e.IsMarker() && e.UID == uid })
	if i < 0 {
		return nil
	}
	var out []Occurrence
	for _, e := range list[i+1:] {
		if !e.IsMarker() {
			out = append(out, e.Event)
		}
	}
	return out
}

// TrimInFlight is R12h: the list without uid's marker and without the event
// records that precede every remaining marker. It returns a new slice.
func TrimInFlight(list []InFlightEntry, uid UID) []InFlightEntry {
	out := slices.DeleteFunc(slices.Clone(list), func(e InFlightEntry) bool { return e.IsMarker() && e.UID == uid })
	i := slices.IndexFunc(out, InFlightEntry.IsMarker)
	if i < 0 {
		return nil
	}
	return out[i:]
}

// QueueingHint is a plugin's answer to "may this event make the pod I
// rejected schedulable?" (R16).
type QueueingHint int

const (
	// HintSkip (upstream QueueSkip): the event cannot help the pod.
	HintSkip QueueingHint = iota
	// HintQueue (upstream Queue): the event may help; requeue the pod.
	HintQueue
)

func (h QueueingHint) String() string {
	if h == HintQueue {
		return "Queue"
	}
	return "QueueSkip"
}

// QueueingHintFn is a queueing hint: a pure function of the rejected pod
// and the occurrence. An error means "could not tell" and counts as Queue,
// so that a broken hint never strands a pod (R16).
type QueueingHintFn func(pod *Pod, ev Occurrence) (QueueingHint, error)

// HintKey names one registration: a plugin and one event it registered in
// PluginEvents.
type HintKey struct {
	Plugin string
	Event  ClusterEvent
}

// QueueingHints maps registrations to their hints (R16). A registration
// (plugin, event) in PluginEvents without an entry here has the hint that
// always answers Queue: the classic "a registered event requeues" is that
// degenerate hint.
type QueueingHints map[HintKey]QueueingHintFn

// Strategy is how a pod is requeued, ordered by urgency (R16).
type Strategy int

const (
	// StrategySkip: the pod stays where it is (unschedulablePods).
	StrategySkip Strategy = iota
	// StrategyAfterBackoff: backoffQ while the pod is backing off, else
	// activeQ.
	StrategyAfterBackoff
	// StrategyImmediately: activeQ, backoff or not.
	StrategyImmediately
)

func (s Strategy) String() string {
	switch s {
	case StrategyAfterBackoff:
		return "AfterBackoff"
	case StrategyImmediately:
		return "Immediately"
	}
	return "Skip"
}

// HintsMatch is the hints profile's matching of a registered event against
// an incoming one: the registration is the wildcard, or the resources match
// (equal, the registration is "*", or it is Pod and the incoming resource is
// AssignedPod, UnschedulablePod or TargetPod), the action sets intersect,
// and the incoming action is not numerically above the registered one — an
// incoming event broader than the registration does not match (v1.37.2).
// "Numerically" is in v1.37's bit order (V137Order), not schedq's.
func HintsMatch(registered, incoming ClusterEvent) bool {
	if registered.IsWildCard() {
		return true
	}
	r, in := registered.Resource, incoming.Resource
	resOK := r == WildCard || r == in ||
		r == ResourcePod && (in == ResourceAssignedPod || in == ResourceUnschedulablePod || in == ResourceTargetPod)
	return resOK && registered.ActionType&incoming.ActionType != 0 &&
		V137Order(incoming.ActionType) <= V137Order(registered.ActionType)
}

// IsEventOfInterestHints is R4h's first test: a wildcard, or an event some
// registration matches (HintsMatch).
func (c Config) IsEventOfInterestHints(e ClusterEvent) bool {
	if e.IsWildCard() {
		return true
	}
	for _, evs := range c.PluginEvents {
		for _, r := range evs {
			if HintsMatch(r, e) {
				return true
			}
		}
	}
	return false
}

// PodStrategy is R16 for one pod and one occurrence:
//   - a pod with no rejectors: StrategyAfterBackoff;
//   - a wildcard event aimed at another pod (its New is a pod with another
//     UID): StrategySkip; any other wildcard: StrategyAfterBackoff;
//   - otherwise the most urgent answer of the hints of the pod's rejectors
//     for registrations matching the event: a Queue (or an error) from a
//     pending plugin is StrategyImmediately, from any other rejector
//     StrategyAfterBackoff; no Queue at all is StrategySkip.
func (c Config) PodStrategy(info *QueuedPodInfo, occ Occurrence) Strategy {
	return c.podStrategy(info, occ, nil)
}

// podStrategy is PodStrategy asking only the rejectors asks allows (R22);
// nil asks every rejector.
func (c Config) podStrategy(info *QueuedPodInfo, occ Occurrence, asks func(plugin string) bool) Strategy {
	rejectors := info.Rejectors()
	if len(rejectors) == 0 {
		return StrategyAfterBackoff
	}
	if occ.Event.IsWildCard() {
		if occ.New != nil && occ.New.UID != info.Pod.UID {
			return StrategySkip
		}
		return StrategyAfterBackoff
	}
	best := StrategySkip
	for _, a := range c.hintAnswers(rejectors, info.Pod, occ, asks) {
		if a.Hint != HintQueue {
			continue
		}
		if info.PendingPlugins.Has(a.Plugin) {
			return StrategyImmediately
		}
		best = StrategyAfterBackoff
	}
	return best
}

// HintAnswer is one hint PodStrategy weighs: a rejector, its registration
// matching the event, and the hint's answer.
type HintAnswer struct {
	Plugin       string
	Registration ClusterEvent
	Hint         QueueingHint
}

// HintAnswers lists the answers behind PodStrategy of a pod with
// rejectors and an event that is not a wildcard (those decide without a
// hint): each rejector's hint for each of its registrations that match
// the event, in rejector order. schedq run --html shows them behind each
// move.
func (c Config) HintAnswers(info *QueuedPodInfo, occ Occurrence) []HintAnswer {
	if occ.Event.IsWildCard() {
		return nil
	}
	return c.hintAnswers(info.Rejectors(), info.Pod, occ, nil)
}

func (c Config) hintAnswers(rejectors PluginSet, pod *Pod, occ Occurrence, asks func(plugin string) bool) []HintAnswer {
	var out []HintAnswer
	for _, plugin := range rejectors {
		if asks != nil && !asks(plugin) {
			continue
		}
		for _, reg := range c.PluginEvents[plugin] {
			if HintsMatch(reg, occ.Event) {
				out = append(out, HintAnswer{plugin, reg, c.hint(plugin, reg, pod, occ)})
			}
		}
	}
	return out
}

// hint asks one registration's hint; no hint means Queue, an error Queue,
// and so does a hint that panics (it could not tell either): caller code
// must not bring the queue down (R16).
func (c Config) hint(plugin string, reg ClusterEvent, pod *Pod, occ Occurrence) (h QueueingHint) {
	fn := c.QueueingHints[HintKey{Plugin: plugin, Event: reg}]
	if fn == nil {
		return HintQueue
	}
	defer func() {
		if recover() != nil {
			h = HintQueue
		}
	}()
	h, err := fn(pod, occ)
	if err != nil {
		return HintQueue
	}
	return h
}

// ReplayStrategy is R3h's decision for a pod handed back after a failure:
// StrategyAfterBackoff when it has no rejectors, otherwise the most urgent
// PodStrategy over the events recorded while it was in flight (StrategySkip
// when there were none).
func (c Config) ReplayStrategy(info *QueuedPodInfo, events []Occurrence) Strategy {
	if len(info.Rejectors()) == 0 {
		return StrategyAfterBackoff
	}
	best := StrategySkip
	for _, occ := range events {
		best = max(best, c.PodStrategy(info, occ))
	}
	return best
}

// PreEnqueueFn is a PreEnqueue plugin: a pure function of the pod that
// admits it (true) or refuses it (false) (R17).
type PreEnqueueFn func(pod *Pod) bool

// PreEnqueuePlugins are the PreEnqueue plugins by name (R17).
type PreEnqueuePlugins map[string]PreEnqueueFn

// RunPreEnqueue is R17: the plugin that refuses the pod, or "" if all admit
// it. The pod's current gating plugin runs first, then the others by name;
// the first refusal decides. (Upstream runs the others in map order; with
// one refusing plugin the order never shows.)
func (c Config) RunPreEnqueue(pod *Pod, gating string) string {
	if fn, ok := c.PreEnqueuePlugins[gating]; ok && !fn(pod) {
		return gating
	}
	for _, name := range slices.Sorted(maps.Keys(c.PreEnqueuePlugins)) {
		if name != gating && !c.PreEnqueuePlugins[name](pod) {
			return name
		}
	}
	return ""
}

// PluginSchedulingGates is the name of kube-scheduler's PreEnqueue plugin
// for spec.schedulingGates. The classic profile treats the pods it gates
// apart (SkippedWhileGated), as v1.33 does.
const PluginSchedulingGates = "SchedulingGates"

// SkippedWhileGated is R17's classic move filter: a gated pod with
// SchedulingGates among its UnschedulablePlugins is not examined by any move
// request, wildcards included; only an Update or Activate re-runs its
// PreEnqueue plugins. v1.33 skips such pods in
// movePodsToActiveOrBackoffQueue because no event but an update of the pod
// itself can lift a scheduling gate (kubernetes issue 124384). Other gated
// pods are examined like any other.
func SkippedWhileGated(info *QueuedPodInfo) bool {
	return info.Gated() && info.UnschedulablePlugins.Has(PluginSchedulingGates)
}

// GatingEventMatches reports whether event may ungate a pod gated by plugin
// (R4h): a wildcard, or an event the plugin registered (HintsMatch).
func (c Config) GatingEventMatches(plugin string, event ClusterEvent) bool {
	if event.IsWildCard() {
		return true
	}
	for _, r := range c.PluginEvents[plugin] {
		if HintsMatch(r, event) {
			return true
		}
	}
	return false
}

// PodUpdateEvents are the events an update of an unscheduled pod raises for
// the pod itself (R9h), resource TargetPod: UpdatePodLabel when its labels
// changed, and the general Update when nothing more specific applies
// (including when nothing changed at all). schedq pods carry no requests,
// tolerations, scheduling gates or claims, so upstream's other specific
// actions never arise.
func PodUpdateEvents(oldPod, newPod *Pod) []ClusterEvent {
	if oldPod != nil && newPod != nil && !maps.Equal(oldPod.Labels, newPod.Labels) {
		return []ClusterEvent{{Resource: ResourceTargetPod, ActionType: UpdatePodLabel}}
	}
	return []ClusterEvent{{Resource: ResourceTargetPod, ActionType: Update}}
}

// BackoffOrderingWindow is the width of the hints profile's backoff
// ordering windows (R7h): expiries are truncated to it, pods expiring in the
// same window are ordered as activeQ orders them, and the backoffQ flush
// runs at window starts.
const BackoffOrderingWindow = time.Second

// AlignToWindow truncates t to the start of its ordering window. The
// truncation is absolute (from the zero time), as upstream's.
func AlignToWindow(t time.Time) time.Time { return t.Truncate(BackoffOrderingWindow) }

// HintsBackoffDuration is R7h's duration for a failure count: 0 for count 0
// or when max is 0 (backoff switched off), else initial * 2^(count-1)
// capped at max.
func HintsBackoffDuration(count int, initial, max time.Duration) time.Duration {
	if max == 0 {
		return 0
	}
	return BackoffDuration(count, initial, max)
}

// BackoffCount is the count R7h backs off by: ConsecutiveErrorsCount when
// positive, else UnschedulableCount.
func (q *QueuedPodInfo) BackoffCount() int {
	if q.ConsecutiveErrorsCount > 0 {
		return q.ConsecutiveErrorsCount
	}
	return q.UnschedulableCount
}

func (c Config) hintsBackoffExpiry(p *QueuedPodInfo) time.Time {
	d := HintsBackoffDuration(p.BackoffCount(), c.PodInitialBackoffDuration, c.PodMaxBackoffDuration)
	if d == 0 {
		return time.Time{}
	}
	return AlignToWindow(p.Timestamp.Add(d))
}

func (c Config) hintsIsBackingOff(p *QueuedPodInfo, now time.Time) bool {
	exp := c.hintsBackoffExpiry(p)
	return !exp.IsZero() && !exp.Before(AlignToWindow(now))
}

// BackoffPopCandidates is R2h's choice when activeQ is empty: the keys,
// sorted, of the backoffQ pods that come first in ordering-window order —
// earliest expiry, then higher priority, then earlier Timestamp — among
// those some plugin rejected (an error retry is never popped early). Pods
// equal in all three are unordered upstream, so all are allowed.
func (c Config) BackoffPopCandidates(backoffQ []QueuedPodInfo) []PodKey {
	var eligible []*QueuedPodInfo
	for i := range backoffQ {
		if len(backoffQ[i].Rejectors()) > 0 {
			eligible = append(eligible, &backoffQ[i])
		}
	}
	before := func(a, b *QueuedPodInfo) bool {
		ea, eb := c.BackoffExpiry(a), c.BackoffExpiry(b)
		if !ea.Equal(eb) {
			return ea.Before(eb)
		}
		return Less(a, b)
	}
	var out []PodKey
	for _, a := range eligible {
		first := true
		for _, b := range eligible {
			if a != b && before(b, a) {
				first = false
				break
			}
		}
		if first {
			out = append(out, a.Key())
		}
	}
	slices.Sort(out)
	return out
}

// InFlightEquivalent reports whether two in-flight lists are the same
// state: entry for entry equal, except that a run of consecutive markers
// may list its pods in any order (the markers of one run get the same
// event records from EventsAfter and are trimmed alike by TrimInFlight, so
// nothing observes their order).
func InFlightEquivalent(a, b []InFlightEntry) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); {
		if !a[i].IsMarker() {
			if !inFlightEntryEqual(a[i], b[i]) {
				return false
			}
			i++
			continue
		}
		j := i
		for j < len(a) && a[j].IsMarker() {
			j++
		}
		if !sameMarkers(a[i:j], b[i:j]) {
			return false
		}
		i = j
	}
	return true
}

// sameMarkers reports whether the marker runs a and b hold the same
// markers, in any order.
func sameMarkers(a, b []InFlightEntry) bool {
	byPod := func(x, y InFlightEntry) int {
		return cmp.Or(cmp.Compare(x.UID, y.UID), cmp.Compare(x.Key, y.Key))
	}
	a, b = slices.Clone(a), slices.Clone(b)
	slices.SortFunc(a, byPod)
	slices.SortFunc(b, byPod)
	return slices.EqualFunc(a, b, func(x, y InFlightEntry) bool { return y.IsMarker() && x.UID == y.UID && x.Key == y.Key })
}

// inFlightEntryEqual compares two in-flight entries, pods by value.
func inFlightEntryEqual(a, b InFlightEntry) bool {
	return a.UID == b.UID && a.Key == b.Key && a.Event.Event == b.Event.Event &&
		PodsEqual(a.Event.Old, b.Event.Old) && PodsEqual(a.Event.New, b.Event.New) &&
		SameObject(a.Event.OldObject, b.Event.OldObject) && SameObject(a.Event.NewObject, b.Event.NewObject)
}
