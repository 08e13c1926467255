package trace

import (
	"bytes"
	"math/bits"
	"unsafe"
)

// Merge sets v to the entry-wise lexicographic maximum of v and o (whose
// entries are never negative, vtKey): the
// vector time of a receipt (SPEC §5), O(processes) and the most of a PK
// replay's vector work. Each entry is read and compared as one machine
// word (vtKey) and the maximum taken without a branch (a conditional
// move: entries rise at random, so a branch mispredicts often): 8% less
// CPU for verify --algo pk at 4,096 processes than comparing its fields.
func (v VT) Merge(o VT) {
	vw, ow := v.words(), o.words()
	ow = ow[:min(len(vw), len(ow))]
	vw = vw[:len(ow)]
	for i, y := range ow {
		x := vw[i]
		if vtKey(y) > vtKey(x) {
			x = y
		}
		vw[i] = x
	}
}

// words is v's entries, each read as one machine word.
func (v VT) words() []uint64 {
	return unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(v))), len(v))
}

// vtKey orders entries read as words (VT.words) as unsigned integers the
// way Less does, (inc, count), for entries that are never negative — as
// no vector is: the run decoders refuse a negative inc or count and the
// algorithms count from zero. On a little-endian machine the word
// already holds inc in its high half (VTEntry's field order) and incRot
// is 0, so the key is the word itself: Merge and IsMaxOf cost half the
// CPU they did with a rotation and sign flips (verify --algo pk at 4,096
// processes, docs/performance.md).
func vtKey(w uint64) uint64 {
	return bits.RotateLeft64(w, incRot)
}

// Equal reports whether v and o are equal, compared as bytes: at
// thousands of processes the memory comparison is a third of an
// entry-wise loop's cost.
func (v VT) Equal(o VT) bool {
	if len(v) != len(o) || len(v) == 0 {
		return len(v) == len(o)
	}
	return bytes.Equal(v.bytes(), o.bytes())
}

func (v VT) bytes() []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), len(v)*int(unsafe.Sizeof(VTEntry{})))
}

// IsMaxOf reports whether v is base merged with each of vs (base cut to
// v's length or padded with zero entries, as a fresh vector merged with
// it would be), but for entry skip, which it does not compare. It reads
// each vector once and writes none: judging a vector costs no copy of
// it.
func (v VT) IsMaxOf(base VT, vs []VT, skip int) bool {
	if skip < 0 || skip >= len(v) {
		return v.isMaxOf(base, vs, 0)
	}
	return v[:skip].isMaxOf(base, vs, 0) && v[skip+1:].isMaxOf(base, vs, skip+1)
}

// vtBlock is how many entries isMaxOf holds at a time: their keys fill
// 4 KB, which stay in the L1 cache while each vector is read.
const vtBlock = 512

// isMaxOf is IsMaxOf for v at entries [off, off+len(v)) of the others,
// with no entry skipped. Each vector is read in one pass fused with the
// next (a pass per vector and one to compare took 2.5 times as long).
func (v VT) isMaxOf(base VT, vs []VT, off int) bool {
	n := len(v)
	full := len(base) >= off+n
	for _, o := range vs {
		full = full && len(o) >= off+n
	}
	switch {
	case !full: // a base still nil (all zero), or a vector of another length
		want := make(VT, n)
		copy(want, window(base, off, n))
		for _, o := range vs {
			want.Merge(window(o, off, n))
		}
		return v.Equal(want)
	case len(vs) == 0:
		return v.Equal(base[off : off+n])
	case len(vs) == 1:
		return v.isMaxOf2(base[off:off+n], vs[0][off:off+n])
	}
	var keys [vtBlock]uint64
	for lo := 0; lo < n; lo += vtBlock {
		k := keys[:min(vtBlock, n-lo)]
		bw, fw := base[off+lo:].words(), vs[0][off+lo:].words()
		for i := range k {
			k[i] = max(vtKey(bw[i]), vtKey(fw[i]))
		}
		for _, o := range vs[1 : len(vs)-1] {
			ow := o[off+lo:].words()
			for i := range k {
				k[i] = max(k[i], vtKey(ow[i]))
			}
		}
		lw, vw := vs[len(vs)-1][off+lo:].words(), v[lo:].words()
		var diff uint64
		for i := range k {
			diff |= vtKey(vw[i]) ^ max(k[i], vtKey(lw[i]))
		}
		if diff != 0 {
			return false
		}
	}
	return true
}

// isMaxOf2 is isMaxOf for two vectors of v's length, in one pass.
func (v VT) isMaxOf2(a, b VT) bool {
	vw, aw, bw := v.words(), a.words(), b.words()
	aw, bw = aw[:len(vw)], bw[:len(vw)]
	var diff uint64
	for i, w := range vw {
		diff |= vtKey(w) ^ max(vtKey(aw[i]), vtKey(bw[i]))
	}
	return diff == 0
}

// window returns entries [off, off+n) of v, cut where v ends.
func window(v VT, off, n int) VT {
	return v[min(off, len(v)):min(off+n, len(v))]
}
