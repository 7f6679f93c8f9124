package impl

import (
	"slices"

	"github.com/schedq/schedq/spec"
)

// narrowed (D8) is what the pre-queueing hints answered for one move
// request (R20): spec.Narrowing's sets in the form R21's path reads
// without building anything per request. Each narrowed plugin's keys are
// sorted once and kept without repeats, so R22's question (is this plugin
// asked about this pod?) is a binary search, and the candidates are those
// lists merged, already sorted. One narrowed lives in hints and every
// request refills it under the queue's lock; its slices keep their room
// (up to maxKeptKeys keys), so a request allocates nothing once they have
// grown: a request costs in proportion to the pods it names, not to
// unschedulablePods nor to the maps spec.Narrowing builds.
type narrowed struct {
	// AllPods: some plugin could not narrow; the request evaluates every
	// parked pod (R21), the narrowed plugins still only theirs (R22).
	AllPods bool
	// Named are the narrowed plugins, each with the keys it named.
	Named []namedKeys
	// current is the key moveRequest found the pod being decided by
	// (R21's path), so that its key is not built again; "" otherwise.
	current spec.PodKey
	merged  []spec.PodKey // Candidates' room when several plugins narrowed
}

// namedKeys is one narrowed plugin and the union of the keys its matching
// registrations named, sorted, without repeats.
type namedKeys struct {
	plugin string
	keys   []spec.PodKey
}

// maxKeptKeys is the most keys (16 bytes each, 256 KiB) a narrowed keeps
// room for between requests: a burst's room goes after its request.
const maxKeptKeys = 16384

// reset empties n for a new request, keeping its room.
func (n *narrowed) reset() {
	n.AllPods, n.current = false, ""
	n.Named = n.Named[:0]
}

// add starts plugin's list of keys, reusing the room a previous request
// left in the same slot.
func (n *narrowed) add(plugin string) *namedKeys {
	i := len(n.Named)
	if i < cap(n.Named) {
		n.Named = n.Named[:i+1]
	} else {
		n.Named = append(n.Named, namedKeys{})
	}
	s := &n.Named[i]
	s.plugin, s.keys = plugin, s.keys[:0]
	return s
}

// drop forgets the last plugin added (it turned out unable to narrow).
func (n *narrowed) drop() { n.Named = n.Named[:len(n.Named)-1] }

// settle sorts and de-duplicates the last plugin's keys.
func (n *narrowed) settle() {
	s := &n.Named[len(n.Named)-1]
	slices.Sort(s.keys)
	s.keys = slices.Compact(s.keys)
}

// Candidates are the keys a narrowed request evaluates (R21), sorted,
// without repeats: every narrowed plugin's, whatever AllPods says (the
// caller asks only when it is false). The slice is n's: valid until the
// next request.
func (n *narrowed) Candidates() []spec.PodKey {
	switch len(n.Named) {
	case 0:
		return nil
	case 1:
		return n.Named[0].keys
	}
	n.merged = n.merged[:0]
	for _, s := range n.Named {
		n.merged = append(n.merged, s.keys...)
	}
	slices.Sort(n.merged)
	n.merged = slices.Compact(n.merged)
	return n.merged
}

// Asks is R22: whether plugin's queueing hints are asked about the pod
// key: a narrowed plugin only about the pods it named, any other about
// every pod.
func (n *narrowed) Asks(plugin string, key spec.PodKey) bool {
	for i := range n.Named {
		if n.Named[i].plugin == plugin {
			_, found := slices.BinarySearch(n.Named[i].keys, key)
			return found
		}
	}
	return true
}

// keyOf is info's key: the one its request found it by, else built.
func (n *narrowed) keyOf(info *podInfo) spec.PodKey {
	if n.current != "" {
		return n.current
	}
	return info.Key()
}

// trim gives back the room of a burst once its request is over.
func (n *narrowed) trim() {
	n.current = ""
	slots := n.Named[:cap(n.Named)]
	for i := range slots {
		if cap(slots[i].keys) > maxKeptKeys {
			slots[i].keys = nil
		}
	}
	if cap(n.merged) > maxKeptKeys {
		n.merged = nil
	}
}
