package codec

import (
	"hash/maphash"
	"unsafe"

	"github.com/ckpt-dev/ckpt/trace"
)

// msgTable interns message ids during decoding: an open-addressing hash
// table of indexes into Trace.Msgs. Its slots hold no pointers, so the
// garbage collector never scans it and growing it copies no pointers,
// unlike a map[string]int32 of millions of entries: with such a map,
// `validate` of a 10^6-event trace took 5–14% more CPU and 9 MB more
// memory (interleaved rounds, December 2026). The zero msgTable is
// ready.
type msgTable struct {
	seed maphash.Seed
	// slots[i] is 0 when empty, else the hash's high 32 bits << 32 |
	// (index into Msgs + 1). len(slots) is a power of two, at most half
	// full.
	slots []uint64
	n     int
	// arena is the current chunk that new ids are copied into; each id
	// is a string pointing into a chunk, so interning a million ids
	// allocates a few hundred chunks instead of a million strings.
	arena []byte
}

const (
	minSlots   = 1 << 10
	arenaChunk = 1 << 16
)

// intern returns the index of id in *msgs, appended if new.
func (t *msgTable) intern(msgs *[]string, id []byte) (idx int32, isNew bool) {
	idx, slot := t.find(*msgs, id)
	if idx != trace.None {
		return idx, false
	}
	idx = int32(len(*msgs))
	*msgs = append(trace.Grow(*msgs), t.str(id))
	t.insert(*msgs, id, idx, slot)
	return idx, true
}

// find returns the index in msgs of id, or None, and the slot where id
// belongs when absent.
func (t *msgTable) find(msgs []string, id []byte) (int32, int) {
	if len(t.slots) == 0 {
		return trace.None, -1
	}
	h := maphash.Bytes(t.seed, id)
	tag := h >> 32 << 32
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			return trace.None, int(i)
		}
		if s&^0xffffffff == tag {
			idx := int32(s&0xffffffff) - 1
			if msgs[idx] == string(id) {
				return idx, int(i)
			}
		}
	}
}

// insert records that msgs[idx] is id, at the slot find returned.
func (t *msgTable) insert(msgs []string, id []byte, idx int32, slot int) {
	if slot < 0 || 2*(t.n+1) > len(t.slots) {
		t.rehash(msgs)
		_, slot = t.find(msgs, id)
	}
	h := maphash.Bytes(t.seed, id)
	t.slots[slot] = h>>32<<32 | uint64(idx+1)
	t.n++
}

// reserve sizes the empty table for about n ids without rehashing. The
// table's pages are touched only as ids arrive, so an overestimate costs
// address space, not memory.
func (t *msgTable) reserve(n int) {
	size := minSlots
	for size < 2*n {
		size *= 2
	}
	t.seed = maphash.MakeSeed()
	t.slots = make([]uint64, size)
}

// rehash doubles the table (or creates it) and reinserts every index.
func (t *msgTable) rehash(msgs []string) {
	n := 2 * len(t.slots)
	if n < minSlots {
		n = minSlots
	}
	old := t.slots
	if old == nil {
		t.seed = maphash.MakeSeed()
	}
	t.slots = make([]uint64, n)
	mask := uint64(n - 1)
	for _, s := range old {
		if s == 0 {
			continue
		}
		idx := int32(s&0xffffffff) - 1
		h := maphash.String(t.seed, msgs[idx])
		i := h & mask
		for t.slots[i] != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = s
	}
}

// str returns a string holding a copy of id, carved from the arena.
func (t *msgTable) str(id []byte) string {
	if len(id) == 0 {
		return ""
	}
	if len(id) > arenaChunk/8 {
		return string(id)
	}
	if len(id) > cap(t.arena)-len(t.arena) {
		t.arena = make([]byte, 0, arenaChunk)
	}
	off := len(t.arena)
	t.arena = append(t.arena, id...)
	return unsafe.String(&t.arena[off], len(id))
}
