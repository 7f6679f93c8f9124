package remote

import (
	"fmt"
	"time"

	"github.com/schedq/schedq/spec"
)

// Version is the protocol version this package speaks. Version 2 added
// pod groups, caller objects and update verdicts; a peer of version 1
// answers init without a version, and the driver refuses it with an error
// that says so.
const Version = 2

// PodChange is spec.PodChange on the wire (update's verdict).
type PodChange struct {
	Relevant bool    `json:"relevant,omitempty"`
	Events   []Event `json:"events,omitempty"`
}

// PodGroup is spec.PodGroup on the wire.
type PodGroup struct {
	Namespace string  `json:"namespace"`
	Name      string  `json:"name"`
	Priority  int32   `json:"priority,omitempty"`
	Object    *Object `json:"object,omitempty"`
}

// EntityParams are spec.EntityParams on the wire: a group entity's own
// fields, the hint fields named as in QueuedPodInfo.
type EntityParams struct {
	Timestamp               string   `json:"timestamp,omitempty"`
	Attempts                int      `json:"attempts,omitempty"`
	InitialAttemptTimestamp string   `json:"initialAttemptTimestamp,omitempty"`
	BackoffExpiry           string   `json:"backoffExpiry,omitempty"`
	UnschedulableCount      int      `json:"unschedulableCount,omitempty"`
	ConsecutiveErrorsCount  int      `json:"consecutiveErrorsCount,omitempty"`
	PendingPlugins          []string `json:"pendingPlugins,omitempty"`
	GatingPlugin            string   `json:"gatingPlugin,omitempty"`
	FlushTimestamp          string   `json:"flushTimestamp,omitempty"`
}

// QueuedPodGroupInfo is spec.QueuedPodGroupInfo on the wire: the group,
// its members (sorted by key) and the entity's fields.
type QueuedPodGroupInfo struct {
	PodGroup *PodGroup       `json:"podGroup"`
	Members  []QueuedPodInfo `json:"members,omitempty"`
	EntityParams
}

// Entity is spec.QueuedEntity on the wire: exactly one of Pod and Group.
type Entity struct {
	Pod   *QueuedPodInfo      `json:"pod,omitempty"`
	Group *QueuedPodGroupInfo `json:"group,omitempty"`
}

// PodGroupEntity is spec.PodGroupEntity on the wire; Place is "activeQ",
// "backoffQ" or "unschedulablePods".
type PodGroupEntity struct {
	Group   string   `json:"group"`
	Place   string   `json:"place"`
	Members []string `json:"members,omitempty"`
	EntityParams
}

// PodGroupsState is spec.PodGroupsState on the wire.
type PodGroupsState struct {
	PodGroups              []PodGroup       `json:"podGroups,omitempty"`
	Entities               []PodGroupEntity `json:"entities,omitempty"`
	InCycle                []string         `json:"inCycle,omitempty"`
	PendingPodGroupPods    []QueuedPodInfo  `json:"pendingPodGroupPods,omitempty"`
	IncompletePodGroupPods []QueuedPodInfo  `json:"incompletePodGroupPods,omitempty"`
}

// EncodePodChange and DecodePodChange convert an update's verdict; nil
// stays nil.
func EncodePodChange(ch *spec.PodChange) *PodChange {
	if ch == nil {
		return nil
	}
	w := &PodChange{Relevant: ch.Relevant}
	for _, e := range ch.Events {
		w.Events = append(w.Events, *EncodeEvent(e))
	}
	return w
}

// DecodePodChange is EncodePodChange's inverse.
func DecodePodChange(w *PodChange) *spec.PodChange {
	if w == nil {
		return nil
	}
	ch := &spec.PodChange{Relevant: w.Relevant}
	for i := range w.Events {
		ch.Events = append(ch.Events, DecodeEvent(&w.Events[i]))
	}
	return ch
}

// EncodePodGroup returns the wire form of g; nil stays nil.
func (c *Codec) EncodePodGroup(g *spec.PodGroup) *PodGroup {
	if g == nil {
		return nil
	}
	return &PodGroup{Namespace: g.Namespace, Name: g.Name, Priority: g.Priority, Object: c.EncodeObject(g.Object)}
}

// DecodePodGroup returns the spec form of g; nil stays nil.
func (c *Codec) DecodePodGroup(g *PodGroup) *spec.PodGroup {
	if g == nil {
		return nil
	}
	return &spec.PodGroup{Namespace: g.Namespace, Name: g.Name, Priority: g.Priority, Object: c.DecodeObject(g.Object)}
}

func encodeParams(p *spec.EntityParams) EntityParams {
	return EntityParams{Timestamp: encodeTime(p.Timestamp), Attempts: p.Attempts,
		InitialAttemptTimestamp: encodeTime(p.InitialAttemptTimestamp), BackoffExpiry: encodeTime(p.BackoffExpiry),
		UnschedulableCount: p.UnschedulableCount, ConsecutiveErrorsCount: p.ConsecutiveErrorsCount,
		PendingPlugins: p.PendingPlugins, GatingPlugin: p.GatingPlugin, FlushTimestamp: encodeTime(p.FlushTimestamp)}
}

func decodeParams(w *EntityParams) (spec.EntityParams, error) {
	var p spec.EntityParams
	var err error
	for _, t := range []struct {
		dst *time.Time
		src string
	}{{&p.Timestamp, w.Timestamp}, {&p.InitialAttemptTimestamp, w.InitialAttemptTimestamp},
		{&p.BackoffExpiry, w.BackoffExpiry}, {&p.FlushTimestamp, w.FlushTimestamp}} {
		if *t.dst, err = decodeTime(t.src); err != nil {
			return spec.EntityParams{}, err
		}
	}
	p.Attempts, p.UnschedulableCount, p.ConsecutiveErrorsCount = w.Attempts, w.UnschedulableCount, w.ConsecutiveErrorsCount
	p.PendingPlugins, p.GatingPlugin = pluginSet(w.PendingPlugins), w.GatingPlugin
	return p, nil
}

// EncodeGroupInfo returns the wire form of g; nil stays nil.
func (c *Codec) EncodeGroupInfo(g *spec.QueuedPodGroupInfo) *QueuedPodGroupInfo {
	if g == nil {
		return nil
	}
	return &QueuedPodGroupInfo{PodGroup: c.EncodePodGroup(g.PodGroup), Members: c.encodeInfos(g.Members), EntityParams: encodeParams(&g.EntityParams)}
}

// DecodeGroupInfo returns the spec form of g; nil stays nil.
func (c *Codec) DecodeGroupInfo(g *QueuedPodGroupInfo) (*spec.QueuedPodGroupInfo, error) {
	if g == nil {
		return nil, nil
	}
	members, err := c.decodeInfos(g.Members)
	if err != nil {
		return nil, err
	}
	params, err := decodeParams(&g.EntityParams)
	if err != nil {
		return nil, err
	}
	return &spec.QueuedPodGroupInfo{PodGroup: c.DecodePodGroup(g.PodGroup), Members: members, EntityParams: params}, nil
}

// EncodeEntity returns the wire form of e.
func (c *Codec) EncodeEntity(e spec.QueuedEntity) *Entity {
	return &Entity{Pod: c.EncodeInfo(e.Pod), Group: c.EncodeGroupInfo(e.Group)}
}

// DecodeEntity returns the spec form of e; one that is not exactly one
// of a pod and a group is a protocol error.
func (c *Codec) DecodeEntity(e *Entity) (spec.QueuedEntity, error) {
	if e == nil || (e.Pod == nil) == (e.Group == nil) {
		return spec.QueuedEntity{}, fmt.Errorf("%w: a popEntity answer must carry exactly one of pod and group", ErrProtocol)
	}
	if e.Group != nil && e.Group.PodGroup == nil {
		return spec.QueuedEntity{}, fmt.Errorf("%w: a popped group without its podGroup", ErrProtocol)
	}
	var out spec.QueuedEntity
	var err error
	if out.Pod, err = c.DecodeInfo(e.Pod); err != nil {
		return spec.QueuedEntity{}, err
	}
	if e.Pod != nil && out.Pod.Pod == nil {
		return spec.QueuedEntity{}, fmt.Errorf("%w: a popped pod without its pod", ErrProtocol)
	}
	if out.Group, err = c.DecodeGroupInfo(e.Group); err != nil {
		return spec.QueuedEntity{}, err
	}
	return out, nil
}

// places are the names of the places a group entity may be in.
var places = map[string]spec.Location{"activeQ": spec.InActiveQ, "backoffQ": spec.InBackoffQ, "unschedulablePods": spec.InUnschedulablePods}

func (c *Codec) encodePodGroupsState(s *spec.PodGroupsState) *PodGroupsState {
	if s == nil {
		return nil
	}
	w := &PodGroupsState{PendingPodGroupPods: c.encodeInfos(s.PendingPodGroupPods), IncompletePodGroupPods: c.encodeInfos(s.IncompletePodGroupPods)}
	for i := range s.PodGroups {
		w.PodGroups = append(w.PodGroups, *c.EncodePodGroup(&s.PodGroups[i]))
	}
	for _, e := range s.Entities {
		we := PodGroupEntity{Group: string(e.Group), Place: e.Place.String(), EntityParams: encodeParams(&e.EntityParams)}
		for _, m := range e.Members {
			we.Members = append(we.Members, string(m))
		}
		w.Entities = append(w.Entities, we)
	}
	for _, k := range s.InCycle {
		w.InCycle = append(w.InCycle, string(k))
	}
	return w
}

func (c *Codec) decodePodGroupsState(w *PodGroupsState) (*spec.PodGroupsState, error) {
	if w == nil {
		return nil, nil
	}
	s := &spec.PodGroupsState{}
	var err error
	if s.PendingPodGroupPods, err = c.decodeInfos(w.PendingPodGroupPods); err != nil {
		return nil, err
	}
	if s.IncompletePodGroupPods, err = c.decodeInfos(w.IncompletePodGroupPods); err != nil {
		return nil, err
	}
	for i := range w.PodGroups {
		s.PodGroups = append(s.PodGroups, *c.DecodePodGroup(&w.PodGroups[i]))
	}
	for _, we := range w.Entities {
		place, ok := places[we.Place]
		if !ok {
			return nil, fmt.Errorf("%w: the entity of group %q is in place %q (want activeQ, backoffQ or unschedulablePods)", ErrProtocol, we.Group, we.Place)
		}
		params, err := decodeParams(&we.EntityParams)
		if err != nil {
			return nil, err
		}
		e := spec.PodGroupEntity{Group: spec.PodGroupKey(we.Group), Place: place, EntityParams: params}
		for _, m := range we.Members {
			e.Members = append(e.Members, spec.PodKey(m))
		}
		s.Entities = append(s.Entities, e)
	}
	for _, k := range w.InCycle {
		s.InCycle = append(s.InCycle, spec.PodGroupKey(k))
	}
	return s, nil
}

// The package-level conversions are a nil Codec's: objects travel
// without a ref and come back as *Opaque. A Go peer uses Serve, whose
// Codec keeps the objects' identity.

// EncodePod returns the wire form of p; nil stays nil.
func EncodePod(p *spec.Pod) *Pod { return (*Codec)(nil).EncodePod(p) }

// DecodePod returns the spec form of p; nil stays nil.
func DecodePod(p *Pod) *spec.Pod { return (*Codec)(nil).DecodePod(p) }

// EncodeInfo returns the wire form of q; nil stays nil.
func EncodeInfo(q *spec.QueuedPodInfo) *QueuedPodInfo { return (*Codec)(nil).EncodeInfo(q) }

// DecodeInfo returns the spec form of q; nil stays nil.
func DecodeInfo(q *QueuedPodInfo) (*spec.QueuedPodInfo, error) { return (*Codec)(nil).DecodeInfo(q) }

// EncodeInFlight returns the wire form of an in-flight list.
func EncodeInFlight(list []spec.InFlightEntry) []InFlightEntry {
	return (*Codec)(nil).EncodeInFlight(list)
}

// DecodeInFlight returns the spec form of an in-flight list.
func DecodeInFlight(list []InFlightEntry) ([]spec.InFlightEntry, error) {
	return (*Codec)(nil).DecodeInFlight(list)
}

// EncodeSnapshot returns the wire form of s.
func EncodeSnapshot(s spec.Snapshot) *Snapshot { return (*Codec)(nil).EncodeSnapshot(s) }

// DecodeSnapshot returns the spec form of s.
func DecodeSnapshot(s *Snapshot) (spec.Snapshot, error) { return (*Codec)(nil).DecodeSnapshot(s) }
