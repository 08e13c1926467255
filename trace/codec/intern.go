package codec

import (
	"fmt"
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
	if 2*(t.n+1) > len(t.slots) {
		t.resize(*msgs, max(2*len(t.slots), minSlots))
	}
	h := maphash.Bytes(t.seed, id)
	tag := h >> 32 << 32
	mask := uint64(len(t.slots) - 1)
	i := h & mask
	for ; t.slots[i] != 0; i = (i + 1) & mask {
		if s := t.slots[i]; s&^0xffffffff == tag {
			if idx := int32(s&0xffffffff) - 1; (*msgs)[idx] == string(id) {
				return idx, false
			}
		}
	}
	idx = int32(len(*msgs))
	*msgs = append(trace.Grow(*msgs), t.str(id))
	t.slots[i] = tag | uint64(idx+1)
	t.n++
	return idx, true
}

// reserve sizes the empty table for about n ids without resizing. The
// table's pages are touched only as ids arrive, so an overestimate costs
// address space, not memory.
func (t *msgTable) reserve(n int) {
	size := minSlots
	for size < 2*n {
		size *= 2
	}
	t.resize(nil, size)
}

// resize makes the table size slots (a power of two), or creates it,
// and reinserts every index.
func (t *msgTable) resize(msgs []string, size int) {
	old := t.slots
	if old == nil {
		t.seed = maphash.MakeSeed()
	}
	t.slots = make([]uint64, size)
	mask := uint64(size - 1)
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

// procNames numbers the process names of a document as its events name
// them. When the header lists the processes first, a name it does not
// list is an error at once; when events come first, their numbers are
// provisional, and remap gives the final ones once the list is read, so
// that the events are never held twice. The zero procNames is ready.
type procNames struct {
	names []string
	idx   map[string]int32
	// known says the header's list came before any event named a
	// process; firstUse[i] is the event that first named provisional
	// process i.
	known    bool
	firstUse []int32
	// listed says the header's list has been read.
	listed bool
}

// read reads the header's "processes" and takes it as the list.
func (n *procNames) read(f *frame) ([]string, error) {
	if n.listed {
		return nil, f.headerErr(`"processes" given twice`)
	}
	procs, err := f.names()
	if err != nil {
		return nil, err
	}
	if err := trace.CheckProcesses(procs); err != nil {
		err.File = f.name
		return nil, err
	}
	n.listed = true
	if len(n.names) == 0 {
		n.names = append(n.names, procs...)
		n.idx, n.known = numbering(procs), true
	}
	return procs, nil
}

// index returns the number of the process named name in the event f
// reads, or the error of the name, after field if it is not "".
func (n *procNames) index(f *frame, name []byte, field string) (int32, error) {
	if idx, ok := n.idx[string(name)]; ok {
		return idx, nil
	}
	if n.known || len(name) == 0 {
		msg := "process name must not be empty"
		if n.known {
			msg = fmt.Sprintf("unknown process %q", name)
		}
		if field != "" {
			msg = field + ": " + msg
		}
		return trace.None, f.eventErr("%s", msg)
	}
	if n.idx == nil {
		n.idx = map[string]int32{}
	}
	idx := int32(len(n.names))
	s := string(name)
	n.names = append(n.names, s)
	n.idx[s] = idx
	n.firstUse = append(n.firstUse, int32(f.n))
	return idx, nil
}

// remap returns, once the header's list procs is read, the function
// from a provisional number to the final one (None stays None); or, for
// a name procs does not list, the error at the event that first named it
// in the named file.
func (n *procNames) remap(file string, procs []string) (func(int32) int32, error) {
	final := numbering(procs)
	remap := make([]int32, len(n.names))
	for i, name := range n.names {
		idx, ok := final[name]
		if !ok {
			return nil, &trace.InputError{File: file, Event: int(n.firstUse[i]), Msg: fmt.Sprintf("unknown process %q", name)}
		}
		remap[i] = idx
	}
	n.names, n.known = procs, true
	return func(p int32) int32 {
		if p < 0 {
			return p
		}
		return remap[p]
	}, nil
}

// numbering maps each of names to its index.
func numbering(names []string) map[string]int32 {
	idx := make(map[string]int32, len(names))
	for i, p := range names {
		idx[p] = int32(i)
	}
	return idx
}
