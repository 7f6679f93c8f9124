package remote

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/schedq/schedq/conformance"
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

	Nanoseconds int64 `json:"nanoseconds,omitempty"` // step
}

// Response is one line from the peer to the driver.
type Response struct {
	ID       int64          `json:"id"`
	Error    *Error         `json:"error,omitempty"`
	Profile  *Profile       `json:"profile,omitempty"`  // init
	Info     *QueuedPodInfo `json:"info,omitempty"`     // pop
	Cycle    int64          `json:"cycle,omitempty"`    // pop, schedulingCycle
	Snapshot *Snapshot      `json:"snapshot,omitempty"` // snapshot
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
}

// AffinityTerm is spec.AffinityTerm on the wire.
type AffinityTerm struct {
	Namespaces  []string          `json:"namespaces,omitempty"`
	MatchLabels map[string]string `json:"matchLabels,omitempty"`
}

// QueuedPodInfo is spec.QueuedPodInfo on the wire.
type QueuedPodInfo struct {
	Pod                     *Pod     `json:"pod"`
	Timestamp               string   `json:"timestamp,omitempty"`
	Attempts                int      `json:"attempts,omitempty"`
	UnschedulablePlugins    []string `json:"unschedulablePlugins,omitempty"`
	InitialAttemptTimestamp string   `json:"initialAttemptTimestamp,omitempty"`
}

// Event is spec.ClusterEvent on the wire; ActionType is the bit set of the
// package documentation.
type Event struct {
	Resource   string `json:"resource"`
	ActionType uint64 `json:"actionType"`
	Label      string `json:"label,omitempty"`
}

// Config is spec.Config on the wire; durations are in nanoseconds.
type Config struct {
	PodInitialBackoffNanoseconds         int64              `json:"podInitialBackoffNanoseconds"`
	PodMaxBackoffNanoseconds             int64              `json:"podMaxBackoffNanoseconds"`
	PodMaxInUnschedulablePodsNanoseconds int64              `json:"podMaxInUnschedulablePodsNanoseconds"`
	BackoffQFlushPeriodNanoseconds       int64              `json:"backoffQFlushPeriodNanoseconds"`
	UnschedulablePodsFlushPeriodNanos    int64              `json:"unschedulablePodsFlushPeriodNanoseconds"`
	PluginEvents                         map[string][]Event `json:"pluginEvents,omitempty"`
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
}

// Profile is conformance.Profile on the wire: what the peer claims.
type Profile struct {
	Name        string   `json:"name"`
	Description string   `json:"description,omitempty"`
	Blocking    bool     `json:"blocking,omitempty"`
	Observes    Observes `json:"observes"`
	SilentNoOps bool     `json:"silentNoOps,omitempty"`
}

// Observes is conformance.Observes on the wire.
type Observes struct {
	MoveRequestCycle bool `json:"moveRequestCycle,omitempty"`
	PodInfo          bool `json:"podInfo,omitempty"`
	Closed           bool `json:"closed,omitempty"`
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
func EncodePod(p *spec.Pod) *Pod {
	if p == nil {
		return nil
	}
	w := &Pod{Namespace: p.Namespace, Name: p.Name, UID: string(p.UID), Priority: p.Priority,
		Labels: p.Labels, ResourceVersion: p.ResourceVersion, Status: p.Status}
	for _, t := range p.RequiredAffinityTerms {
		w.RequiredAffinityTerms = append(w.RequiredAffinityTerms, AffinityTerm(t))
	}
	return w
}

// DecodePod returns the spec form of p; nil stays nil.
func DecodePod(p *Pod) *spec.Pod {
	if p == nil {
		return nil
	}
	s := &spec.Pod{Namespace: p.Namespace, Name: p.Name, UID: spec.UID(p.UID), Priority: p.Priority,
		Labels: p.Labels, ResourceVersion: p.ResourceVersion, Status: p.Status}
	for _, t := range p.RequiredAffinityTerms {
		s.RequiredAffinityTerms = append(s.RequiredAffinityTerms, spec.AffinityTerm(t))
	}
	return s
}

// EncodeInfo returns the wire form of q; nil stays nil.
func EncodeInfo(q *spec.QueuedPodInfo) *QueuedPodInfo {
	if q == nil {
		return nil
	}
	return &QueuedPodInfo{Pod: EncodePod(q.Pod), Timestamp: encodeTime(q.Timestamp), Attempts: q.Attempts,
		UnschedulablePlugins: q.UnschedulablePlugins, InitialAttemptTimestamp: encodeTime(q.InitialAttemptTimestamp)}
}

// DecodeInfo returns the spec form of q; nil stays nil. The plugin names
// are kept in the order they came in: normalising them is the queue's job,
// and a snapshot that does not is a finding.
func DecodeInfo(q *QueuedPodInfo) (*spec.QueuedPodInfo, error) {
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
	var plugins spec.PluginSet
	if len(q.UnschedulablePlugins) > 0 {
		plugins = spec.PluginSet(q.UnschedulablePlugins)
	}
	return &spec.QueuedPodInfo{Pod: DecodePod(q.Pod), Timestamp: ts, Attempts: q.Attempts,
		UnschedulablePlugins: plugins, InitialAttemptTimestamp: initial}, nil
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

// EncodeConfig returns the wire form of c.
func EncodeConfig(c spec.Config) *Config {
	w := &Config{
		PodInitialBackoffNanoseconds:         int64(c.PodInitialBackoffDuration),
		PodMaxBackoffNanoseconds:             int64(c.PodMaxBackoffDuration),
		PodMaxInUnschedulablePodsNanoseconds: int64(c.PodMaxInUnschedulablePodsDuration),
		BackoffQFlushPeriodNanoseconds:       int64(c.BackoffQFlushPeriod),
		UnschedulablePodsFlushPeriodNanos:    int64(c.UnschedulablePodsFlushPeriod),
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
	return w
}

// DecodeConfig returns the spec form of c.
func DecodeConfig(c *Config) spec.Config {
	if c == nil {
		return spec.Config{}
	}
	s := spec.Config{
		PodInitialBackoffDuration:         time.Duration(c.PodInitialBackoffNanoseconds),
		PodMaxBackoffDuration:             time.Duration(c.PodMaxBackoffNanoseconds),
		PodMaxInUnschedulablePodsDuration: time.Duration(c.PodMaxInUnschedulablePodsNanoseconds),
		BackoffQFlushPeriod:               time.Duration(c.BackoffQFlushPeriodNanoseconds),
		UnschedulablePodsFlushPeriod:      time.Duration(c.UnschedulablePodsFlushPeriodNanos),
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
	return s
}

func encodeInfos(in []spec.QueuedPodInfo) []QueuedPodInfo {
	out := make([]QueuedPodInfo, 0, len(in))
	for i := range in {
		out = append(out, *EncodeInfo(&in[i]))
	}
	return out
}

func decodeInfos(in []QueuedPodInfo) ([]spec.QueuedPodInfo, error) {
	if len(in) == 0 {
		return nil, nil
	}
	out := make([]spec.QueuedPodInfo, 0, len(in))
	for i := range in {
		q, err := DecodeInfo(&in[i])
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

// EncodeSnapshot returns the wire form of s.
func EncodeSnapshot(s spec.Snapshot) *Snapshot {
	return &Snapshot{Now: encodeTime(s.Now), ActiveQ: encodeInfos(s.ActiveQ), BackoffQ: encodeInfos(s.BackoffQ),
		UnschedulablePods: encodeInfos(s.UnschedulablePods), InFlight: encodeInfos(s.InFlight),
		SchedulingCycle: s.SchedulingCycle, MoveRequestCycle: s.MoveRequestCycle, Closed: s.Closed}
}

// DecodeSnapshot returns the spec form of s, lists in the order they came
// (sorting them is the queue's job).
func DecodeSnapshot(s *Snapshot) (spec.Snapshot, error) {
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
		if *p.dst, err = decodeInfos(p.src); err != nil {
			return spec.Snapshot{}, err
		}
	}
	out.SchedulingCycle, out.MoveRequestCycle, out.Closed = s.SchedulingCycle, s.MoveRequestCycle, s.Closed
	return out, nil
}

// EncodeProfile returns the wire form of p.
func EncodeProfile(p conformance.Profile) *Profile {
	return &Profile{Name: p.Name, Description: p.Description, Blocking: p.Blocking,
		Observes:    Observes{MoveRequestCycle: p.Observes.MoveRequestCycle, PodInfo: p.Observes.PodInfo, Closed: p.Observes.Closed},
		SilentNoOps: p.SilentNoOps}
}

// DecodeProfile returns the conformance form of p.
func DecodeProfile(p *Profile) conformance.Profile {
	return conformance.Profile{Name: p.Name, Description: p.Description, Blocking: p.Blocking,
		Observes:    conformance.Observes{MoveRequestCycle: p.Observes.MoveRequestCycle, PodInfo: p.Observes.PodInfo, Closed: p.Observes.Closed},
		SilentNoOps: p.SilentNoOps}
}

// marshalLine encodes v as one line of JSON.
func marshalLine(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
