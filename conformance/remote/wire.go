package remote

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/schedq/schedq/conformance"
	"github.com/schedq/schedq/schedqtest"
	"github.com/schedq/schedq/spec"
)

// The wire types below are the JSON of the protocol, one to one with the
// spec types; the package documentation describes each field. They are
// exported so that a peer written in Go can reuse them (cmd/schedq-peer does,
// through Serve).

// Request is one line from the driver to the peer.
type Request struct {
	// ID is chosen by the driver, unique among the requests of one peer, and
	// copied into the response.
	ID int64 `json:"id"`
	// Op names the operation; see the package documentation.
	Op string `json:"op"`

	Config *Config `json:"config,omitempty"` // init
	Now    string  `json:"now,omitempty"`    // init: the clock's start

	Pod    *Pod   `json:"pod,omitempty"`    // add, delete, assignedPodAdded
	OldPod *Pod   `json:"oldPod,omitempty"` // update, assignedPodUpdated
	NewPod *Pod   `json:"newPod,omitempty"` // update, assignedPodUpdated
	Pods   []*Pod `json:"pods,omitempty"`   // activate (a null element is a nil pod)

	Info  *QueuedPodInfo `json:"info,omitempty"`  // addUnschedulable
	Cycle int64          `json:"cycle,omitempty"` // addUnschedulable: podSchedulingCycle

	Event *Event `json:"event,omitempty"` // moveAll, assignedPodUpdated
	// PreCheckRejects (moveAll) lists the keys of the pods the pre-enqueue
	// check turns away; null or absent means every pod passes.
	PreCheckRejects []string `json:"preCheckRejects,omitempty"`

	UID string `json:"uid,omitempty"` // done

	// Mode (addNominatedPod) is "noop" (the pod's own nominatedNodeName)
	// or "override" (NodeName); NodeName is the node of addNominatedPod
	// and nominatedPodsForNode.
	Mode     string `json:"mode,omitempty"`
	NodeName string `json:"nodeName,omitempty"`

	Nanoseconds int64 `json:"nanoseconds,omitempty"` // step

	// Version (init) is the protocol version the driver speaks
	// (Version); the peer answers with its own.
	Version int `json:"version,omitempty"`

	// OldObject and NewObject (moveAllWithObjects) are the event's
	// objects other than pods (R19).
	OldObject *Object `json:"oldObject,omitempty"`
	NewObject *Object `json:"newObject,omitempty"`
	// Change (update) is the caller's verdict on the update
	// (spec.PodChange); absent: the queue derives it.
	Change *PodChange `json:"change,omitempty"`

	// The podgroups profile's: PodGroup (addPodGroup, deletePodGroup),
	// OldPodGroup and NewPodGroup (updatePodGroup), GroupInfo and Status
	// (addAttemptedPodGroup, with Cycle).
	PodGroup    *PodGroup           `json:"podGroup,omitempty"`
	OldPodGroup *PodGroup           `json:"oldPodGroup,omitempty"`
	NewPodGroup *PodGroup           `json:"newPodGroup,omitempty"`
	GroupInfo   *QueuedPodGroupInfo `json:"groupInfo,omitempty"`
	Status      string              `json:"status,omitempty"`
}

// Response is one line from the peer to the driver.
type Response struct {
	ID       int64          `json:"id"`
	Error    *Error         `json:"error,omitempty"`
	Profile  *Profile       `json:"profile,omitempty"`  // init
	Info     *QueuedPodInfo `json:"info,omitempty"`     // pop
	Cycle    int64          `json:"cycle,omitempty"`    // pop, schedulingCycle
	Snapshot *Snapshot      `json:"snapshot,omitempty"` // snapshot
	// Pods is nominatedPodsForNode's answer, in nomination order.
	Pods []*Pod `json:"pods,omitempty"`
	// Version (init) is the protocol version the peer speaks.
	Version int `json:"version,omitempty"`
	// Entity is popEntity's answer.
	Entity *Entity `json:"entity,omitempty"`
}

// Error is an operation's error: Code is one of the codes of the package
// documentation, Message is free text shown in failures.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message,omitempty"`
}

// Pod is spec.Pod on the wire.
type Pod struct {
	Namespace             string            `json:"namespace"`
	Name                  string            `json:"name"`
	UID                   string            `json:"uid"`
	Priority              int32             `json:"priority,omitempty"`
	Labels                map[string]string `json:"labels,omitempty"`
	RequiredAffinityTerms []AffinityTerm    `json:"requiredAffinityTerms,omitempty"`
	ResourceVersion       string            `json:"resourceVersion,omitempty"`
	Status                string            `json:"status,omitempty"`
	NominatedNodeName     string            `json:"nominatedNodeName,omitempty"`
	// Group names the pod's pod group (podgroups profile, G1).
	Group string `json:"group,omitempty"`
	// Object is the caller's object of the pod (R19).
	Object *Object `json:"object,omitempty"`
}

// AffinityTerm is spec.AffinityTerm on the wire.
type AffinityTerm struct {
	Namespaces  []string          `json:"namespaces,omitempty"`
	MatchLabels map[string]string `json:"matchLabels,omitempty"`
}

// QueuedPodInfo is spec.QueuedPodInfo on the wire. The last five fields
// are the hints profile's (spec.HintFields), zero in the classic profile.
type QueuedPodInfo struct {
	Pod                     *Pod     `json:"pod"`
	Timestamp               string   `json:"timestamp,omitempty"`
	Attempts                int      `json:"attempts,omitempty"`
	UnschedulablePlugins    []string `json:"unschedulablePlugins,omitempty"`
	InitialAttemptTimestamp string   `json:"initialAttemptTimestamp,omitempty"`

	UnschedulableCount     int      `json:"unschedulableCount,omitempty"`
	ConsecutiveErrorsCount int      `json:"consecutiveErrorsCount,omitempty"`
	PendingPlugins         []string `json:"pendingPlugins,omitempty"`
	GatingPlugin           string   `json:"gatingPlugin,omitempty"`
	FlushTimestamp         string   `json:"flushTimestamp,omitempty"`
}

// Event is spec.ClusterEvent on the wire; ActionType is the bit set of the
// package documentation.
type Event struct {
	Resource   string `json:"resource"`
	ActionType uint64 `json:"actionType"`
	Label      string `json:"label,omitempty"`
}

// Config is spec.Config on the wire; durations are in nanoseconds. The
// hints profile's functions travel by name: QueueingHints and
// PreEnqueuePlugins name functions of the standard set (package
// schedqtest, hintnames.go), which a peer implements itself.
type Config struct {
	PodInitialBackoffNanoseconds         int64              `json:"podInitialBackoffNanoseconds"`
	PodMaxBackoffNanoseconds             int64              `json:"podMaxBackoffNanoseconds"`
	PodMaxInUnschedulablePodsNanoseconds int64              `json:"podMaxInUnschedulablePodsNanoseconds"`
	BackoffQFlushPeriodNanoseconds       int64              `json:"backoffQFlushPeriodNanoseconds"`
	UnschedulablePodsFlushPeriodNanos    int64              `json:"unschedulablePodsFlushPeriodNanoseconds"`
	PluginEvents                         map[string][]Event `json:"pluginEvents,omitempty"`

	// Profile is "classic" (or absent) or "hints" (spec.Profile).
	Profile string `json:"profile,omitempty"`
	// QueueingHints are the hints profile's queueing hints, one per
	// registration that has one, sorted by plugin, then resource, action
	// and label of the event.
	QueueingHints []QueueingHint `json:"queueingHints,omitempty"`
	// PreEnqueuePlugins maps each PreEnqueue plugin to the name of its
	// function.
	PreEnqueuePlugins map[string]string `json:"preEnqueuePlugins,omitempty"`
	// GroupRules is "v1.38" for the podgroups profile's v1.38 group rules
	// (spec.Config.PodGroupsV138: G12, G13); absent, v1.37.2's.
	GroupRules string `json:"groupRules,omitempty"`
	// PreQueueing is the pre-queueing setting (spec.Config.PreQueueing,
	// R20-R22, and G14 over groups), and PreQueueingHints its hints, one
	// per registration that has one, by standard name, sorted as
	// QueueingHints are.
	PreQueueing      bool           `json:"preQueueing,omitempty"`
	PreQueueingHints []QueueingHint `json:"preQueueingHints,omitempty"`
}

// groupRulesV138 is GroupRules' word for spec.Config.PodGroupsV138, in
// the config and in the peer's profile that confirms it.
const groupRulesV138 = "v1.38"

// QueueingHint is one entry of spec.QueueingHints on the wire: the
// registration (a plugin and one event it registered in pluginEvents) and
// the name of its hint function.
type QueueingHint struct {
	Plugin string `json:"plugin"`
	Event  Event  `json:"event"`
	Hint   string `json:"hint"`
}

// InFlightEntry is spec.InFlightEntry on the wire: a marker (UID and Key
// set) or an event record (Event set, with the pod objects it carried).
type InFlightEntry struct {
	UID    string `json:"uid,omitempty"`
	Key    string `json:"key,omitempty"`
	Event  *Event `json:"event,omitempty"`
	OldPod *Pod   `json:"oldPod,omitempty"`
	NewPod *Pod   `json:"newPod,omitempty"`
	// OldObject and NewObject are the other objects the event carried
	// (R19), as moveAllWithObjects sent them.
	OldObject *Object `json:"oldObject,omitempty"`
	NewObject *Object `json:"newObject,omitempty"`
}

// Snapshot is spec.Snapshot on the wire; each list sorted by key.
type Snapshot struct {
	Now               string          `json:"now"`
	ActiveQ           []QueuedPodInfo `json:"activeQ"`
	BackoffQ          []QueuedPodInfo `json:"backoffQ"`
	UnschedulablePods []QueuedPodInfo `json:"unschedulablePods"`
	InFlight          []QueuedPodInfo `json:"inFlight"`
	SchedulingCycle   int64           `json:"schedulingCycle"`
	MoveRequestCycle  int64           `json:"moveRequestCycle"`
	Closed            bool            `json:"closed"`
	// InFlightEvents is the hints profile's in-flight list, in order.
	InFlightEvents []InFlightEntry `json:"inFlightEvents,omitempty"`
	// PodGroups is the podgroups profile's state of pod groups; absent
	// in the other profiles.
	PodGroups *PodGroupsState `json:"podGroups,omitempty"`
}

// Profile is conformance.TargetInfo on the wire: what the peer claims.
type Profile struct {
	Name        string   `json:"name"`
	Description string   `json:"description,omitempty"`
	Blocking    bool     `json:"blocking,omitempty"`
	Observes    Observes `json:"observes"`
	SilentNoOps bool     `json:"silentNoOps,omitempty"`
	// Nominator says the peer serves addNominatedPod and
	// nominatedPodsForNode (spec.Nominator, R18); without it the suite
	// reports the nominator scenarios n/a.
	Nominator bool `json:"nominator,omitempty"`
	// GroupRules confirms the config's groupRules: the peer applies them.
	// A peer written before the setting never names it, so the driver
	// refuses the setting on it (spec.ErrInvalidConfig, n/a) instead of
	// checking v1.38's rules on a queue that ignored them.
	GroupRules string `json:"groupRules,omitempty"`
	// PreQueueing confirms the config's preQueueing, as GroupRules does
	// groupRules: a peer that never names it is refused the setting.
	PreQueueing bool `json:"preQueueing,omitempty"`
	// Reset says the peer serves reset: the driver then keeps its process
	// for the next queue instead of starting one per queue.
	Reset bool `json:"reset,omitempty"`
}

// Observes is conformance.Observes on the wire.
type Observes struct {
	MoveRequestCycle bool `json:"moveRequestCycle,omitempty"`
	PodInfo          bool `json:"podInfo,omitempty"`
	Closed           bool `json:"closed,omitempty"`
	InFlightEvents   bool `json:"inFlightEvents,omitempty"`
	HintCounts       bool `json:"hintCounts,omitempty"`
}

// The error codes and the spec errors they stand for.
var errorCodes = []struct {
	code string
	err  error
}{
	{"nilPod", spec.ErrNilPod},
	{"invalidPod", spec.ErrInvalidPod},
	{"alreadyQueued", spec.ErrAlreadyQueued},
	{"podNotFound", spec.ErrPodNotFound},
	{"notInFlight", spec.ErrNotInFlight},
	{"closed", spec.ErrClosed},
	{"wouldBlock", spec.ErrWouldBlock},
	{"invalidConfig", spec.ErrInvalidConfig},
	{"invalidEvent", spec.ErrInvalidEvent},
	{"invalidPodGroup", spec.ErrInvalidPodGroup},
	{"podGroupNotFound", spec.ErrPodGroupNotFound},
	{"podGroupExists", spec.ErrPodGroupExists},
	{"groupEntity", spec.ErrGroupEntity},
}

// codeProtocol is the code of a request the peer could not understand.
const codeProtocol = "protocol"

// ErrProtocol is wrapped by every error that comes from the protocol rather
// than from the queue: a peer that exited, a line that is not a response, a
// response with an unknown error code, a request the peer rejected as
// malformed, or no answer in time.
var ErrProtocol = errors.New("schedq remote: protocol error")

func encodeError(err error) *Error {
	if err == nil {
		return nil
	}
	for _, c := range errorCodes {
		if errors.Is(err, c.err) {
			return &Error{Code: c.code, Message: err.Error()}
		}
	}
	return &Error{Code: "other", Message: err.Error()}
}

// decodeError turns a wire error back into an error that errors.Is matches
// against the spec error of its code.
func decodeError(e *Error) error {
	if e == nil {
		return nil
	}
	for _, c := range errorCodes {
		if e.Code == c.code {
			return &peerError{err: c.err, msg: e.Message}
		}
	}
	if e.Code == codeProtocol {
		return fmt.Errorf("%w: the peer rejected the request: %s", ErrProtocol, e.Message)
	}
	if e.Code == "other" {
		return &peerError{err: errOther, msg: e.Message}
	}
	return fmt.Errorf("%w: unknown error code %q (message %q)", ErrProtocol, e.Code, e.Message)
}

// errOther is an error of the queue that is none of the spec errors.
var errOther = errors.New("schedq remote: the peer's queue returned an error that is no spec error")

// peerError is an error the peer's queue returned: it prints the peer's
// message and matches its spec error.
type peerError struct {
	err error
	msg string
}

func (e *peerError) Error() string {
	if e.msg == "" {
		return e.err.Error() + " (from the peer)"
	}
	return e.msg + " (from the peer)"
}

func (e *peerError) Unwrap() error { return e.err }

func encodeTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

func decodeTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%w: time %q is not RFC 3339: %v", ErrProtocol, s, err)
	}
	return t.UTC(), nil
}

// EncodePod returns the wire form of p; nil stays nil.
func (c *Codec) EncodePod(p *spec.Pod) *Pod {
	if p == nil {
		return nil
	}
	w := &Pod{Namespace: p.Namespace, Name: p.Name, UID: string(p.UID), Priority: p.Priority,
		Labels: p.Labels, ResourceVersion: p.ResourceVersion, Status: p.Status, NominatedNodeName: p.NominatedNodeName,
		Group: p.Group, Object: c.EncodeObject(p.Object)}
	for _, t := range p.RequiredAffinityTerms {
		w.RequiredAffinityTerms = append(w.RequiredAffinityTerms, AffinityTerm(t))
	}
	return w
}

// DecodePod returns the spec form of p; nil stays nil.
func (c *Codec) DecodePod(p *Pod) *spec.Pod {
	if p == nil {
		return nil
	}
	s := &spec.Pod{Namespace: p.Namespace, Name: p.Name, UID: spec.UID(p.UID), Priority: p.Priority,
		Labels: p.Labels, ResourceVersion: p.ResourceVersion, Status: p.Status, NominatedNodeName: p.NominatedNodeName,
		Group: p.Group, Object: c.DecodeObject(p.Object)}
	for _, t := range p.RequiredAffinityTerms {
		s.RequiredAffinityTerms = append(s.RequiredAffinityTerms, spec.AffinityTerm(t))
	}
	return s
}

// EncodeInfo returns the wire form of q; nil stays nil.
func (c *Codec) EncodeInfo(q *spec.QueuedPodInfo) *QueuedPodInfo {
	if q == nil {
		return nil
	}
	return &QueuedPodInfo{Pod: c.EncodePod(q.Pod), Timestamp: encodeTime(q.Timestamp), Attempts: q.Attempts,
		UnschedulablePlugins: q.UnschedulablePlugins, InitialAttemptTimestamp: encodeTime(q.InitialAttemptTimestamp),
		UnschedulableCount: q.UnschedulableCount, ConsecutiveErrorsCount: q.ConsecutiveErrorsCount,
		PendingPlugins: q.PendingPlugins, GatingPlugin: q.GatingPlugin, FlushTimestamp: encodeTime(q.FlushTimestamp)}
}

// DecodeInfo returns the spec form of q; nil stays nil. The plugin names
// are kept in the order they came in: normalising them is the queue's job,
// and a snapshot that does not is a finding.
func (c *Codec) DecodeInfo(q *QueuedPodInfo) (*spec.QueuedPodInfo, error) {
	if q == nil {
		return nil, nil
	}
	ts, err := decodeTime(q.Timestamp)
	if err != nil {
		return nil, err
	}
	initial, err := decodeTime(q.InitialAttemptTimestamp)
	if err != nil {
		return nil, err
	}
	flush, err := decodeTime(q.FlushTimestamp)
	if err != nil {
		return nil, err
	}
	return &spec.QueuedPodInfo{Pod: c.DecodePod(q.Pod), Timestamp: ts, Attempts: q.Attempts,
		UnschedulablePlugins: pluginSet(q.UnschedulablePlugins), InitialAttemptTimestamp: initial,
		HintFields: spec.HintFields{UnschedulableCount: q.UnschedulableCount, ConsecutiveErrorsCount: q.ConsecutiveErrorsCount,
			PendingPlugins: pluginSet(q.PendingPlugins), GatingPlugin: q.GatingPlugin, FlushTimestamp: flush}}, nil
}

// pluginSet keeps the names as they came, an empty list as nil.
func pluginSet(names []string) spec.PluginSet {
	if len(names) == 0 {
		return nil
	}
	return spec.PluginSet(names)
}

// EncodeEvent returns the wire form of e.
func EncodeEvent(e spec.ClusterEvent) *Event {
	return &Event{Resource: string(e.Resource), ActionType: uint64(e.ActionType), Label: e.Label}
}

// DecodeEvent returns the spec form of e; a missing event is the zero event.
func DecodeEvent(e *Event) spec.ClusterEvent {
	if e == nil {
		return spec.ClusterEvent{}
	}
	return spec.ClusterEvent{Resource: spec.EventResource(e.Resource), ActionType: spec.ActionType(e.ActionType), Label: e.Label}
}

// EncodeConfig returns the wire form of c. The hints profile's functions
// go by their standard names (schedqtest.QueueingHintName,
// schedqtest.PreEnqueueName); a function outside the standard set cannot
// cross a process, and EncodeConfig then fails with spec.ErrInvalidConfig
// naming the registration or plugin it belongs to.
func EncodeConfig(c spec.Config) (*Config, error) {
	w := &Config{
		PodInitialBackoffNanoseconds:         int64(c.PodInitialBackoffDuration),
		PodMaxBackoffNanoseconds:             int64(c.PodMaxBackoffDuration),
		PodMaxInUnschedulablePodsNanoseconds: int64(c.PodMaxInUnschedulablePodsDuration),
		BackoffQFlushPeriodNanoseconds:       int64(c.BackoffQFlushPeriod),
		UnschedulablePodsFlushPeriodNanos:    int64(c.UnschedulablePodsFlushPeriod),
	}
	if c.Profile != spec.ProfileClassic {
		w.Profile = c.Profile.String()
	}
	if c.PluginEvents != nil {
		w.PluginEvents = make(map[string][]Event, len(c.PluginEvents))
		for p, evs := range c.PluginEvents {
			out := make([]Event, 0, len(evs))
			for _, e := range evs {
				out = append(out, *EncodeEvent(e))
			}
			w.PluginEvents[p] = out
		}
	}
	if c.PodGroupsV138 {
		w.GroupRules = groupRulesV138
	}
	w.PreQueueing = c.PreQueueing
	var errs, errsPre []error
	w.QueueingHints, errs = encodeHints(c.QueueingHints, "queueing hint", schedqtest.QueueingHintName, schedqtest.QueueingHintNames)
	w.PreQueueingHints, errsPre = encodeHints(c.PreQueueingHints, "pre-queueing hint", schedqtest.PreQueueingHintName, schedqtest.PreQueueingHintNames)
	errs = append(errs, errsPre...)
	for plugin, fn := range c.PreEnqueuePlugins {
		name, ok := schedqtest.PreEnqueueName(fn)
		if !ok {
			errs = append(errs, fmt.Errorf("the PreEnqueue plugin %s is not a function of the standard set (%s), so no peer knows it",
				plugin, strings.Join(schedqtest.PreEnqueueNames(), ", ")))
			continue
		}
		if w.PreEnqueuePlugins == nil {
			w.PreEnqueuePlugins = map[string]string{}
		}
		w.PreEnqueuePlugins[plugin] = name
	}
	if len(errs) > 0 {
		slices.SortFunc(errs, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
		return nil, fmt.Errorf("%w: the config cannot cross to a peer: %w", spec.ErrInvalidConfig, errors.Join(errs...))
	}
	return w, nil
}

// encodeHints is the wire form of a config's hints of one kind (queueing
// or pre-queueing), by standard name, sorted by plugin, then resource,
// action and label; a function outside the standard set is an error
// naming its registration.
func encodeHints[F any](hints map[spec.HintKey]F, kind string, nameOf func(F) (string, bool), known func() []string) ([]QueueingHint, []error) {
	var out []QueueingHint
	var errs []error
	for k, fn := range hints {
		name, ok := nameOf(fn)
		if !ok {
			errs = append(errs, fmt.Errorf("the %s of plugin %s for event %s is not a function of the standard set (%s), so no peer knows it",
				kind, k.Plugin, k.Event, strings.Join(known(), ", ")))
			continue
		}
		out = append(out, QueueingHint{Plugin: k.Plugin, Event: *EncodeEvent(k.Event), Hint: name})
	}
	slices.SortFunc(out, func(a, b QueueingHint) int {
		return cmp.Or(cmp.Compare(a.Plugin, b.Plugin), cmp.Compare(a.Event.Resource, b.Event.Resource),
			cmp.Compare(a.Event.ActionType, b.Event.ActionType), cmp.Compare(a.Event.Label, b.Event.Label))
	})
	return out, errs
}

// decodeHints is encodeHints' inverse: the functions the names name, or
// an error for a name the standard set does not have or a registration
// named twice. No hints is nil.
func decodeHints[F any](hints []QueueingHint, kind string, byName func(string) (F, bool), known func() []string) (map[spec.HintKey]F, []error) {
	var out map[spec.HintKey]F
	var errs []error
	for _, h := range hints {
		fn, ok := byName(h.Hint)
		if !ok {
			errs = append(errs, fmt.Errorf("plugin %s, event %s: no standard %s is named %q (known: %s)",
				h.Plugin, DecodeEvent(&h.Event), kind, h.Hint, strings.Join(known(), ", ")))
			continue
		}
		k := spec.HintKey{Plugin: h.Plugin, Event: DecodeEvent(&h.Event)}
		if _, dup := out[k]; dup {
			errs = append(errs, fmt.Errorf("plugin %s, event %s: two %ss", h.Plugin, k.Event, kind))
			continue
		}
		if out == nil {
			out = map[spec.HintKey]F{}
		}
		out[k] = fn
	}
	return out, errs
}

// DecodeConfig returns the spec form of c, the named functions looked up in
// the standard set. An unknown profile or function name is an error
// wrapping spec.ErrInvalidConfig. The config is not validated otherwise:
// that is the queue's job (an invalid config is its invalidConfig error).
func DecodeConfig(c *Config) (spec.Config, error) {
	if c == nil {
		return spec.Config{}, fmt.Errorf("%w: no config", spec.ErrInvalidConfig)
	}
	s := spec.Config{
		PodInitialBackoffDuration:         time.Duration(c.PodInitialBackoffNanoseconds),
		PodMaxBackoffDuration:             time.Duration(c.PodMaxBackoffNanoseconds),
		PodMaxInUnschedulablePodsDuration: time.Duration(c.PodMaxInUnschedulablePodsNanoseconds),
		BackoffQFlushPeriod:               time.Duration(c.BackoffQFlushPeriodNanoseconds),
		UnschedulablePodsFlushPeriod:      time.Duration(c.UnschedulablePodsFlushPeriodNanos),
	}
	var err error
	if s.Profile, err = spec.ParseProfile(c.Profile); err != nil {
		return spec.Config{}, err
	}
	if c.PluginEvents != nil {
		s.PluginEvents = make(spec.PluginEvents, len(c.PluginEvents))
		for p, evs := range c.PluginEvents {
			out := make([]spec.ClusterEvent, 0, len(evs))
			for i := range evs {
				out = append(out, DecodeEvent(&evs[i]))
			}
			s.PluginEvents[p] = out
		}
	}
	var errs []error
	switch c.GroupRules {
	case "":
	case groupRulesV138:
		s.PodGroupsV138 = true
	default:
		errs = append(errs, fmt.Errorf("groupRules %q: the only group rules besides v1.37.2's (absent) are %q", c.GroupRules, groupRulesV138))
	}
	hints, hintErrs := decodeHints(c.QueueingHints, "queueing hint", schedqtest.QueueingHintByName, schedqtest.QueueingHintNames)
	pre, preErrs := decodeHints(c.PreQueueingHints, "pre-queueing hint", schedqtest.PreQueueingHintByName, schedqtest.PreQueueingHintNames)
	s.QueueingHints, s.PreQueueingHints, s.PreQueueing = hints, pre, c.PreQueueing
	errs = append(append(errs, hintErrs...), preErrs...)
	for plugin, name := range c.PreEnqueuePlugins {
		fn, ok := schedqtest.PreEnqueueByName(name)
		if !ok {
			errs = append(errs, fmt.Errorf("PreEnqueue plugin %s: no standard PreEnqueue function is named %q (known: %s)",
				plugin, name, strings.Join(schedqtest.PreEnqueueNames(), ", ")))
			continue
		}
		if s.PreEnqueuePlugins == nil {
			s.PreEnqueuePlugins = spec.PreEnqueuePlugins{}
		}
		s.PreEnqueuePlugins[plugin] = fn
	}
	if len(errs) > 0 {
		slices.SortFunc(errs, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
		return spec.Config{}, fmt.Errorf("%w: %w", spec.ErrInvalidConfig, errors.Join(errs...))
	}
	return s, nil
}

func (c *Codec) encodeInfos(in []spec.QueuedPodInfo) []QueuedPodInfo {
	out := make([]QueuedPodInfo, 0, len(in))
	for i := range in {
		out = append(out, *c.EncodeInfo(&in[i]))
	}
	return out
}

func (c *Codec) decodeInfos(in []QueuedPodInfo) ([]spec.QueuedPodInfo, error) {
	if len(in) == 0 {
		return nil, nil
	}
	out := make([]spec.QueuedPodInfo, 0, len(in))
	for i := range in {
		q, err := c.DecodeInfo(&in[i])
		if err != nil {
			return nil, err
		}
		if q.Pod == nil {
			return nil, fmt.Errorf("%w: a snapshot entry has no pod", ErrProtocol)
		}
		out = append(out, *q)
	}
	return out, nil
}

// EncodeInFlight returns the wire form of an in-flight list.
func (c *Codec) EncodeInFlight(list []spec.InFlightEntry) []InFlightEntry {
	if len(list) == 0 {
		return nil
	}
	out := make([]InFlightEntry, 0, len(list))
	for _, e := range list {
		if e.IsMarker() {
			out = append(out, InFlightEntry{UID: string(e.UID), Key: string(e.Key)})
			continue
		}
		out = append(out, InFlightEntry{Event: EncodeEvent(e.Event.Event), OldPod: c.EncodePod(e.Event.Old), NewPod: c.EncodePod(e.Event.New),
			OldObject: c.EncodeObject(e.Event.OldObject), NewObject: c.EncodeObject(e.Event.NewObject)})
	}
	return out
}

// DecodeInFlight returns the spec form of an in-flight list. An entry that
// is both a marker and an event record, or neither, is a protocol error.
func (c *Codec) DecodeInFlight(list []InFlightEntry) ([]spec.InFlightEntry, error) {
	if len(list) == 0 {
		return nil, nil
	}
	out := make([]spec.InFlightEntry, 0, len(list))
	for i, e := range list {
		marker, record := e.UID != "" || e.Key != "", e.Event != nil
		switch {
		case marker && (record || e.OldPod != nil || e.NewPod != nil || e.OldObject != nil || e.NewObject != nil):
			return nil, fmt.Errorf("%w: in-flight entry %d is both a marker (uid %q, key %q) and an event record", ErrProtocol, i, e.UID, e.Key)
		case marker && (e.UID == "" || e.Key == ""):
			return nil, fmt.Errorf("%w: in-flight entry %d is a marker without both uid and key (uid %q, key %q)", ErrProtocol, i, e.UID, e.Key)
		case marker:
			out = append(out, spec.InFlightEntry{UID: spec.UID(e.UID), Key: spec.PodKey(e.Key)})
		case record:
			out = append(out, spec.InFlightEntry{Event: spec.Occurrence{Event: DecodeEvent(e.Event), Old: c.DecodePod(e.OldPod), New: c.DecodePod(e.NewPod),
				OldObject: c.DecodeObject(e.OldObject), NewObject: c.DecodeObject(e.NewObject)}})
		default:
			return nil, fmt.Errorf("%w: in-flight entry %d is neither a marker (uid, key) nor an event record (event)", ErrProtocol, i)
		}
	}
	return out, nil
}

// EncodeSnapshot returns the wire form of s.
func (c *Codec) EncodeSnapshot(s spec.Snapshot) *Snapshot {
	return &Snapshot{Now: encodeTime(s.Now), ActiveQ: c.encodeInfos(s.ActiveQ), BackoffQ: c.encodeInfos(s.BackoffQ),
		UnschedulablePods: c.encodeInfos(s.UnschedulablePods), InFlight: c.encodeInfos(s.InFlight),
		SchedulingCycle: s.SchedulingCycle, MoveRequestCycle: s.MoveRequestCycle, Closed: s.Closed,
		InFlightEvents: c.EncodeInFlight(s.InFlightEvents), PodGroups: c.encodePodGroupsState(s.PodGroups)}
}

// DecodeSnapshot returns the spec form of s, lists in the order they came
// (sorting them is the queue's job).
func (c *Codec) DecodeSnapshot(s *Snapshot) (spec.Snapshot, error) {
	if s == nil {
		return spec.Snapshot{}, fmt.Errorf("%w: a snapshot response without a snapshot", ErrProtocol)
	}
	var out spec.Snapshot
	var err error
	if out.Now, err = decodeTime(s.Now); err != nil {
		return spec.Snapshot{}, err
	}
	for _, p := range []struct {
		dst *[]spec.QueuedPodInfo
		src []QueuedPodInfo
	}{{&out.ActiveQ, s.ActiveQ}, {&out.BackoffQ, s.BackoffQ}, {&out.UnschedulablePods, s.UnschedulablePods}, {&out.InFlight, s.InFlight}} {
		if *p.dst, err = c.decodeInfos(p.src); err != nil {
			return spec.Snapshot{}, err
		}
	}
	if out.InFlightEvents, err = c.DecodeInFlight(s.InFlightEvents); err != nil {
		return spec.Snapshot{}, err
	}
	if out.PodGroups, err = c.decodePodGroupsState(s.PodGroups); err != nil {
		return spec.Snapshot{}, err
	}
	out.SchedulingCycle, out.MoveRequestCycle, out.Closed = s.SchedulingCycle, s.MoveRequestCycle, s.Closed
	return out, nil
}

// EncodeProfile returns the wire form of p; nominator says whether the
// queue serves the nominator requests.
func EncodeProfile(p conformance.TargetInfo, nominator bool) *Profile {
	o := p.Observes
	return &Profile{Name: p.Name, Description: p.Description, Blocking: p.Blocking,
		Observes: Observes{MoveRequestCycle: o.MoveRequestCycle, PodInfo: o.PodInfo, Closed: o.Closed,
			InFlightEvents: o.InFlightEvents, HintCounts: o.HintCounts},
		SilentNoOps: p.SilentNoOps, Nominator: nominator}
}

// DecodeProfile returns the conformance form of p. Metrics are not on the
// wire: a peer never claims them.
func DecodeProfile(p *Profile) conformance.TargetInfo {
	o := p.Observes
	return conformance.TargetInfo{Name: p.Name, Description: p.Description, Blocking: p.Blocking,
		Observes: conformance.Observes{MoveRequestCycle: o.MoveRequestCycle, PodInfo: o.PodInfo, Closed: o.Closed,
			InFlightEvents: o.InFlightEvents, HintCounts: o.HintCounts},
		SilentNoOps: p.SilentNoOps}
}

// encodeMode and decodeMode are spec.NominatingMode on the wire.
func encodeMode(m spec.NominatingMode) string {
	if m == spec.NominateOverride {
		return "override"
	}
	return "noop"
}

func decodeMode(s string) (spec.NominatingMode, error) {
	switch s {
	case "noop", "":
		return spec.NominateNoop, nil
	case "override":
		return spec.NominateOverride, nil
	}
	return 0, fmt.Errorf("unknown nominating mode %q (want noop or override)", s)
}

// marshalLine encodes v as one line of JSON.
func marshalLine(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
