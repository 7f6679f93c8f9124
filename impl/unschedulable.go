package impl

import (
	"hash/maphash"
	"slices"
	"time"

	"github.com/schedq/schedq/spec"
)

// unschedulablePods holds the pods that plugins rejected, grouped by the set
// of plugins that rejected them, and interns those sets.
//
// Interning: the scheduler names the same few plugins over and over, so a
// failed pod shares one immutable copy of its set with every pod rejected by
// the same plugins instead of the queue cloning it: no allocation per
// failure, no copy per pod in memory. The queue never writes to a set;
// Pop hands the sets out shared, read-only for the caller (spec.Queue's
// Pop), and Snapshot clones them. The
// table is bounded: plugin names are arbitrary strings, and past
// maxInternedSets the queue keeps a private copy per pod, as a Go map would.
//
// Grouping: a move request (R4) asks once per group whether its event may
// help that group's plugins, and skips the groups it cannot help without
// looking at their pods, so it costs time in proportion to the pods it
// examines, not to every unschedulable pod. Pods with a private set share
// one more group, whose pods are asked one by one.
type unschedulablePods struct {
	byHash  map[uint64][]*podGroup
	byData  map[*string]*podGroup // an interned set's first element → its group
	groups  []*podGroup           // every interned set's group, in interning order
	private podGroup
	n       int // pods in all groups
}

// podGroup is the unschedulable pods rejected by one set of plugins. Each
// pod's entry.pos is its index in pods.
type podGroup struct {
	plugins spec.PluginSet // the interned set; nil for the private group
	pods    []*entry
	// peak is the most pods since the last flush, low how long the array
	// has been oversized (see shrink).
	peak int
	low  slackTimer
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
		h.WriteByte(0) // equal hashes are compared anyway
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
func (u *unschedulablePods) intern(names spec.PluginSet) spec.PluginSet {
	if len(names) == 0 {
		return nil
	}
	owned := false
	if !normal(names) {
		names, owned = spec.NewPluginSet(names...), true
	}
	h := hashPlugins(names)
	for _, g := range u.byHash[h] {
		if slices.Equal(g.plugins, names) {
			return g.plugins
		}
	}
	if !owned {
		names = slices.Clone(names)
	}
	if len(u.groups) < maxInternedSets {
		if u.byHash == nil {
			u.byHash = make(map[uint64][]*podGroup)
			u.byData = make(map[*string]*podGroup)
		}
		g := &podGroup{plugins: names}
		u.byHash[h] = append(u.byHash[h], g)
		u.byData[&names[0]] = g
		u.groups = append(u.groups, g)
	}
	return names
}

// groupOf returns the group of pods rejected by plugins, a set intern
// returned.
func (u *unschedulablePods) groupOf(plugins spec.PluginSet) *podGroup {
	if len(plugins) > 0 {
		if g := u.byData[&plugins[0]]; g != nil {
			return g
		}
	}
	return &u.private
}

// groupOfEntry returns the group e belongs in: its plugin set's, or the
// private group if it also has pending plugins (hints profile, R16), whose
// hints a group-wide test cannot answer for.
func (u *unschedulablePods) groupOfEntry(e *entry) *podGroup {
	if len(e.info.pending()) > 0 {
		return &u.private
	}
	return u.groupOf(e.info.UnschedulablePlugins)
}

func (u *unschedulablePods) len() int { return u.n }

// add puts a detached entry in its group.
func (u *unschedulablePods) add(e *entry) {
	g := u.groupOfEntry(e)
	e.loc = inUnschedulablePods
	e.pos = uint32(len(g.pods))
	g.pods = append(g.pods, e)
	g.peak = max(g.peak, len(g.pods))
	u.n++
}

// remove takes e out of g, its group, swapping the group's last pod into
// its place.
func (u *unschedulablePods) remove(g *podGroup, e *entry) {
	last := len(g.pods) - 1
	g.pods[e.pos] = g.pods[last]
	g.pods[e.pos].pos = e.pos
	g.pods[last] = nil
	g.pods = g.pods[:last]
	u.n--
	e.loc = nowhere
}

// minGroupCap is the capacity below which shrink leaves a group's array
// alone.
const minGroupCap = 64

// shrink is unschedulablePods' part of shrinking (see slack.go), at a
// flush at now, group by group. The interned plugin sets and their empty
// groups stay: there are at most maxInternedSets of them.
func (u *unschedulablePods) shrink(now time.Time) {
	u.private.shrink(now)
	for _, g := range u.groups {
		g.shrink(now)
	}
}

// shrink reallocates an array of more than minGroupCap pointers whose peak
// use since the previous flush has stayed under a quarter of it for
// shrinkAfter at twice its length (nil if empty): at most 4 pointers per
// pod, or minGroupCap, once the group has been this small for shrinkAfter.
func (g *podGroup) shrink(now time.Time) {
	used := g.peak
	g.peak = len(g.pods)
	if c := cap(g.pods); !g.low.due(now, c > minGroupCap && c > 4*used) {
		return
	}
	g.low = slackTimer{}
	if len(g.pods) == 0 {
		g.pods = nil
		return
	}
	g.pods = append(make([]*entry, 0, 2*len(g.pods)), g.pods...)
}

// all calls f for each group that has pods, the private one last.
func (u *unschedulablePods) all(f func(*podGroup)) {
	for _, g := range u.groups {
		if len(g.pods) > 0 {
			f(g)
		}
	}
	if len(u.private.pods) > 0 {
		f(&u.private)
	}
}

// any reports whether f holds for some pod.
func (u *unschedulablePods) any(f func(*entry) bool) bool {
	found := false
	u.all(func(g *podGroup) { found = found || slices.ContainsFunc(g.pods, f) })
	return found
}
