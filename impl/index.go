package impl

import (
	"hash/maphash"

	"github.com/schedq/schedq/spec"
)

// podIndex finds entries by a string key of their pod: the queue key
// (namespace and name) or the UID. It is an open-addressing hash table with
// linear probing that stores only the entry pointers and one control byte
// per slot, 9 bytes a slot where a Go map from the key would store the key
// too (32 bytes for two strings): the key is read from the entry's pod,
// which the queue holds anyway. The control byte keeps 7 bits of the hash,
// so a probe dereferences an entry only when those match, about one slot in
// 128 besides the one sought.
//
// Deleted slots become tombstones (or empty when nothing probes past them)
// and are swept by rehashing, which also grows the table. Load stays at or
// below 7/8.
type podIndex struct {
	ctrl  []uint8
	ents  []*entry
	n     int // live entries
	used  int // live entries and tombstones
	byUID bool
	// keySlots: the table records each entry's slot in entry.keySlot.
	// Slots never move but on rehash, which records them again.
	keySlots bool
}

// slotRef is a slot index of up to 24 bits, to fit in the spare bytes of an
// entry; tables of 2^24 slots and more (some 14 million pods) leave it
// noSlot and hash.
type slotRef [3]uint8

const noSlot = 1<<24 - 1

func (r *slotRef) set(i int) {
	if i >= noSlot {
		i = noSlot
	}
	r[0], r[1], r[2] = uint8(i), uint8(i>>8), uint8(i>>16)
}

func (r slotRef) get() int { return int(r[0]) | int(r[1])<<8 | int(r[2])<<16 }

const (
	ctrlEmpty   = 0
	ctrlDeleted = 1
	ctrlFull    = 0x80 // | 7 bits of the hash
)

// hashSeed is random per process, so hashes cannot be predicted from pod
// names.
var hashSeed = maphash.MakeSeed()

func keyHash(namespace, name string) uint64 {
	return maphash.String(hashSeed, name) ^ maphash.String(hashSeed, namespace)*0x9e3779b97f4a7c15
}

func uidHash(uid spec.UID) uint64 { return maphash.String(hashSeed, string(uid)) }

func tagOf(h uint64) uint8 { return uint8(h>>57) | ctrlFull }

func (x *podIndex) hashOf(e *entry) uint64 {
	if x.byUID {
		return uidHash(e.info.Pod.UID)
	}
	return keyHash(e.info.Pod.Namespace, e.info.Pod.Name)
}

// findKey returns the entry whose pod has this namespace and name (h is
// their keyHash), or nil.
func (x *podIndex) findKey(h uint64, namespace, name string) *entry {
	if x.n == 0 {
		return nil
	}
	mask := len(x.ctrl) - 1
	tag := tagOf(h)
	for i := int(h) & mask; ; i = (i + 1) & mask {
		switch c := x.ctrl[i]; c {
		case ctrlEmpty:
			return nil
		case tag:
			if e := x.ents[i]; e.info.Pod.Name == name && e.info.Pod.Namespace == namespace {
				return e
			}
		}
	}
}

// findUID returns the entry whose pod has this UID (h is its uidHash), or
// nil.
func (x *podIndex) findUID(h uint64, uid spec.UID) *entry {
	_, e := x.findUIDSlot(h, uid)
	return e
}

// findUIDSlot is findUID that also returns the entry's slot, for removeAt.
func (x *podIndex) findUIDSlot(h uint64, uid spec.UID) (int, *entry) {
	if x.n == 0 {
		return -1, nil
	}
	mask := len(x.ctrl) - 1
	tag := tagOf(h)
	for i := int(h) & mask; ; i = (i + 1) & mask {
		switch c := x.ctrl[i]; c {
		case ctrlEmpty:
			return -1, nil
		case tag:
			if e := x.ents[i]; e.info.Pod.UID == uid {
				return i, e
			}
		}
	}
}

// insert adds e, whose key is not in the table; h is its hash.
func (x *podIndex) insert(h uint64, e *entry) {
	if (x.used+1)*8 > len(x.ctrl)*7 {
		x.rehash()
	}
	mask := len(x.ctrl) - 1
	for i := int(h) & mask; ; i = (i + 1) & mask {
		if c := x.ctrl[i]; c < ctrlFull {
			if c == ctrlEmpty {
				x.used++
			}
			x.ctrl[i], x.ents[i] = tagOf(h), e
			x.n++
			if x.keySlots {
				e.keySlot.set(i)
			}
			return
		}
	}
}

// remove deletes e, which is in the table.
func (x *podIndex) remove(e *entry) {
	if x.keySlots {
		if i := e.keySlot.get(); i < len(x.ents) && x.ents[i] == e {
			x.removeAt(i)
			return
		}
	}
	mask := len(x.ctrl) - 1
	i := int(x.hashOf(e)) & mask
	for x.ents[i] != e {
		i = (i + 1) & mask
	}
	x.removeAt(i)
}

// removeAt deletes the entry in slot i.
func (x *podIndex) removeAt(i int) {
	mask := len(x.ctrl) - 1
	x.ents[i] = nil
	x.n--
	if x.ctrl[(i+1)&mask] == ctrlEmpty {
		// No probe sequence goes past i: it can be empty again.
		x.ctrl[i] = ctrlEmpty
		x.used--
	} else {
		x.ctrl[i] = ctrlDeleted
	}
}

// rehash makes room for one more entry: it doubles the table when live
// entries would fill more than half of the allowed load, else sweeps the
// tombstones at the same size.
func (x *podIndex) rehash() {
	size := len(x.ctrl)
	switch {
	case size == 0:
		size = 16
	case (x.n+1)*16 > size*7:
		size *= 2
	}
	old := x.ents
	x.ctrl = make([]uint8, size)
	x.ents = make([]*entry, size)
	x.n, x.used = 0, 0
	for _, e := range old {
		if e != nil {
			x.insert(x.hashOf(e), e)
		}
	}
}

// all calls f for every entry, in table order.
func (x *podIndex) all(f func(*entry)) {
	for _, e := range x.ents {
		if e != nil {
			f(e)
		}
	}
}
