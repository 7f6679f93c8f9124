package impl

import (
	"hash/maphash"
	"slices"

	"github.com/schedq/schedq/spec"
)

// pluginSets interns the UnschedulablePlugins of the pods the queue holds.
// The scheduler names the same few plugins over and over, so a failed pod
// shares one immutable copy of its set with every pod rejected by the same
// plugins instead of the queue cloning it (an allocation per failure, and
// per pod in memory). The queue never writes to a set and never hands one
// out: Pop clears the plugins and Snapshot clones them.
//
// Sharing also lets a move request decide once per set, not once per pod,
// whether the event may help (see worthCache).
//
// The table is bounded: plugin names are arbitrary strings, and past
// maxInternedSets the queue keeps a private copy per pod, as before.
type pluginSets struct {
	byHash map[uint64][]spec.PluginSet
	n      int
}

const maxInternedSets = 1024

func hashPlugins(names spec.PluginSet) uint64 {
	if len(names) == 1 {
		return maphash.String(hashSeed, names[0])
	}
	var h maphash.Hash
	h.SetSeed(hashSeed)
	for _, n := range names {
		h.WriteString(n)
		h.WriteByte(0) // plugin names never hold a NUL in practice; if one does, equal hashes are compared anyway
	}
	return h.Sum64()
}

// normal reports whether names is already a spec.PluginSet: sorted, no
// duplicates.
func normal(names []string) bool {
	for i := 1; i < len(names); i++ {
		if names[i-1] >= names[i] {
			return false
		}
	}
	return true
}

// intern returns the queue's immutable copy of the set of the given names,
// nil for none. It allocates only for a set it has not seen.
func (ps *pluginSets) intern(names spec.PluginSet) spec.PluginSet {
	if len(names) == 0 {
		return nil
	}
	owned := false
	if !normal(names) {
		names, owned = spec.NewPluginSet(names...), true
	}
	h := hashPlugins(names)
	for _, s := range ps.byHash[h] {
		if slices.Equal(s, names) {
			return s
		}
	}
	if !owned {
		names = slices.Clone(names)
	}
	if ps.n < maxInternedSets {
		if ps.byHash == nil {
			ps.byHash = make(map[uint64][]spec.PluginSet)
		}
		ps.byHash[h] = append(ps.byHash[h], names)
		ps.n++
	}
	return names
}

// worthCache answers spec.PluginEvents.IsPodWorthRequeuing for one event
// during one move request, remembering the answer for the last plugin set
// it saw. Interned sets are shared, so consecutive pods rejected by the
// same plugins (the usual case) cost a pointer comparison.
type worthCache struct {
	events spec.PluginEvents
	event  spec.ClusterEvent
	last   *string
	lastN  int
	worth  bool
}

func (c *worthCache) isPodWorthRequeuing(plugins spec.PluginSet) bool {
	if len(plugins) == 0 {
		return c.events.IsPodWorthRequeuing(plugins, c.event)
	}
	if p := &plugins[0]; p != c.last || len(plugins) != c.lastN {
		c.last, c.lastN = p, len(plugins)
		c.worth = c.events.IsPodWorthRequeuing(plugins, c.event)
	}
	return c.worth
}
