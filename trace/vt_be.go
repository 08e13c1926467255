//go:build mips || mips64 || ppc64 || s390x

package trace

// incRot is the rotation that puts an entry's inc in the high half of its
// word (vtKey): on a big-endian machine the first field, count, is there.
const incRot = 32
