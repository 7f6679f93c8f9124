package impl

import (
	"encoding/binary"
	"hash/maphash"
	"math/bits"
	"time"

	"github.com/schedq/schedq/spec"
)

// podIndex finds entries by a string key of their pod: the queue key
// (namespace and name) or the UID. It is an open-addressing hash table that
// stores only entry pointers and one control byte per slot: the key is read
// from the entry's pod, which the queue holds anyway, where a Go map from
// the key would store a copy of it (32 bytes for two strings).
//
// Slots come in blocks of seven pointers and eight control bytes, 64 bytes:
// one cache line holds a block's control bytes and pointers, so a lookup in
// a table too large for the cache misses it once, not once for the control
// byte and once more for the pointer. A control byte keeps 7 bits of the
// hash; the block's eight are matched at once as one word, and an entry is
// dereferenced only when its 7 bits match, about one slot in 128 besides
// the one sought. Probing goes block by block (linear probing on blocks)
// and stops at a block with an empty slot.
//
// Deleted slots become tombstones (or empty when their block has an empty
// slot, so no probe passes through it) and are swept by rehashing, which
// also grows the table. At most 3/4 of the slots are in use: blocks of
// seven fill up sooner than single slots, and a full block costs a probe
// one more cache line.
//
// Why not Go's built-in map (a Swiss table since Go 1.24): BenchmarkIndex
// runs what AddPop asks of the two indexes per pod (two lookups that miss,
// two inserts, two removals in random order) against a map from
// (namespace, name) and one from UID, medians of 5 rounds, 2 cores at load
// 11, CPU time per pod and the live heap of both indexes at N pods:
//
//	N        podIndex           Go maps
//	1,000    144 ns,  37 B      390 ns, 153 B
//	10,000   333 ns,  26 B    1,433 ns, 122 B
//	100,000  857 ns,  42 B    2,826 ns,  98 B
//
// The maps store a copy of each key (32 bytes for two strings, 16 for a
// UID) beside the pointer, and removing a pod from them hashes its key
// again, reading the pod's strings (cache misses in a large queue), where
// podIndex removes by the slot the entry records. It is 2.7 to 4.3 times
// faster and holds 2.3 to 4.7 times fewer bytes: it stays.
type podIndex struct {
	blocks []indexBlock
	n      int // live entries
	used   int // live entries and tombstones
	byUID  bool
	// slots: the table records each entry's slot in the entry (keySlot,
	// or uidSlot if byUID), so that removing it needs no hash and no
	// probe. Slots never move but on rehash, which records them again.
	slots bool
	// peak is the most live entries since the last flush, low how long
	// the table has been oversized (see shrink).
	peak int
	low  slackTimer
}

const slotsPerBlock = 7

type indexBlock struct {
	ctrl [slotsPerBlock + 1]uint8 // the last is always ctrlSentinel
	ents [slotsPerBlock]*entry
}

const (
	ctrlEmpty    = 0
	ctrlDeleted  = 1
	ctrlSentinel = 2    // pads a block's control word; neither empty nor a tag
	ctrlFull     = 0x80 // | 7 bits of the hash
)

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

// hashSeed is random per process, so hashes cannot be predicted from pod
// names.
var hashSeed = maphash.MakeSeed()

func keyHash(namespace, name string) uint64 {
	return maphash.String(hashSeed, name) ^ maphash.String(hashSeed, namespace)*0x9e3779b97f4a7c15
}

func uidHash(uid spec.UID) uint64 { return maphash.String(hashSeed, string(uid)) }

func tagOf(h uint64) uint8 { return uint8(h>>57) | ctrlFull }

// slotOf is where e records its slot in this table.
func (x *podIndex) slotOf(e *entry) *slotRef {
	if x.byUID {
		return &e.uidSlot
	}
	return &e.keySlot
}

func (x *podIndex) hashOf(e *entry) uint64 {
	if x.byUID {
		return uidHash(e.info.Pod.UID)
	}
	return keyHash(e.info.Pod.Namespace, e.info.Pod.Name)
}

// matchByte returns the high bit of every byte of w equal to c, exactly.
func matchByte(w uint64, c uint8) uint64 {
	const lo7 = 0x7f7f7f7f7f7f7f7f
	x := w ^ 0x0101010101010101*uint64(c)
	return ^((x&lo7 + lo7) | x | lo7)
}

func (b *indexBlock) word() uint64 { return binary.LittleEndian.Uint64(b.ctrl[:]) }

// findKey returns the entry whose pod has this namespace and name (h is
// their keyHash), or nil.
func (x *podIndex) findKey(h uint64, namespace, name string) *entry {
	if x.n == 0 {
		return nil
	}
	mask := len(x.blocks) - 1
	tag := tagOf(h)
	for bi := int(h) & mask; ; bi = (bi + 1) & mask {
		b := &x.blocks[bi]
		w := b.word()
		for m := matchByte(w, tag); m != 0; m &= m - 1 {
			if e := b.ents[bits.TrailingZeros64(m)>>3]; e.info.Pod.Name == name && e.info.Pod.Namespace == namespace {
				return e
			}
		}
		if matchByte(w, ctrlEmpty) != 0 {
			return nil
		}
	}
}

// findUID returns the entry whose pod has this UID (h is its uidHash), or
// nil.
func (x *podIndex) findUID(h uint64, uid spec.UID) *entry {
	if x.n == 0 {
		return nil
	}
	mask := len(x.blocks) - 1
	tag := tagOf(h)
	for bi := int(h) & mask; ; bi = (bi + 1) & mask {
		b := &x.blocks[bi]
		w := b.word()
		for m := matchByte(w, tag); m != 0; m &= m - 1 {
			if e := b.ents[bits.TrailingZeros64(m)>>3]; e.info.Pod.UID == uid {
				return e
			}
		}
		if matchByte(w, ctrlEmpty) != 0 {
			return nil
		}
	}
}

// insert adds e, whose key is not in the table; h is its hash.
func (x *podIndex) insert(h uint64, e *entry) {
	if (x.used+1)*4 > len(x.blocks)*slotsPerBlock*3 {
		x.rehash()
	}
	mask := len(x.blocks) - 1
	for bi := int(h) & mask; ; bi = (bi + 1) & mask {
		b := &x.blocks[bi]
		for j, c := range b.ctrl[:slotsPerBlock] {
			if c >= ctrlFull {
				continue
			}
			if c == ctrlEmpty {
				x.used++
			}
			b.ctrl[j], b.ents[j] = tagOf(h), e
			x.n++
			x.peak = max(x.peak, x.n)
			if x.slots {
				x.slotOf(e).set(bi*slotsPerBlock + j)
			}
			return
		}
	}
}

// remove deletes e, which is in the table.
func (x *podIndex) remove(e *entry) {
	if x.slots {
		if i := x.slotOf(e).get(); i < len(x.blocks)*slotsPerBlock && x.blocks[i/slotsPerBlock].ents[i%slotsPerBlock] == e {
			x.removeAt(i)
			return
		}
	}
	mask := len(x.blocks) - 1
	for bi := int(x.hashOf(e)) & mask; ; bi = (bi + 1) & mask {
		b := &x.blocks[bi]
		for j, o := range b.ents {
			if o == e {
				x.removeAt(bi*slotsPerBlock + j)
				return
			}
		}
	}
}

// removeAt deletes the entry in slot i.
func (x *podIndex) removeAt(i int) {
	b := &x.blocks[i/slotsPerBlock]
	j := i % slotsPerBlock
	b.ents[j] = nil
	x.n--
	if matchByte(b.word(), ctrlEmpty) != 0 {
		// Probes stop at this block anyway: the slot can be empty again.
		b.ctrl[j] = ctrlEmpty
		x.used--
	} else {
		b.ctrl[j] = ctrlDeleted
	}
}

// rehash makes room for one more entry: it doubles the table when live
// entries would fill more than half of the allowed load, else sweeps the
// tombstones at the same size.
func (x *podIndex) rehash() {
	nb := len(x.blocks)
	switch {
	case nb == 0:
		nb = minBlocks
	case (x.n+1)*8 > nb*slotsPerBlock*3:
		nb *= 2
	}
	x.resize(nb)
}

// minBlocks is the smallest table: two blocks, 128 bytes.
const minBlocks = 2

// shrink is the index's part of shrinking (see slack.go), at a flush at
// now: a table whose live entries have filled less than 1/16 of it since
// the previous flush, for shrinkAfter, is rehashed to the smallest size
// they fill to at most 1/4 (at least minBlocks). So a table keeps at most
// 16 slots (8 bytes and a control byte each) per live entry, or minBlocks,
// once it has been this empty for shrinkAfter; from 1/4 it grows again only
// past 3/8.
func (x *podIndex) shrink(now time.Time) {
	used := x.peak
	x.peak = x.n
	if !x.low.due(now, len(x.blocks) > minBlocks && used*16 < len(x.blocks)*slotsPerBlock) {
		return
	}
	x.low = slackTimer{}
	nb := minBlocks
	for x.n*4 > nb*slotsPerBlock {
		nb *= 2
	}
	x.resize(nb)
}

// resize rehashes every live entry into a new table of nb blocks, a power
// of two large enough for them; tombstones are swept.
func (x *podIndex) resize(nb int) {
	old := x.blocks
	x.blocks = make([]indexBlock, nb)
	for i := range x.blocks {
		x.blocks[i].ctrl[slotsPerBlock] = ctrlSentinel
	}
	x.n, x.used = 0, 0
	for i := range old {
		for _, e := range old[i].ents {
			if e != nil {
				x.insert(x.hashOf(e), e)
			}
		}
	}
}

// all calls f for every entry, in table order.
func (x *podIndex) all(f func(*entry)) {
	for i := range x.blocks {
		for _, e := range x.blocks[i].ents {
			if e != nil {
				f(e)
			}
		}
	}
}
