//go:build !(mips || mips64 || ppc64 || s390x)

package trace

// incRot is the rotation that puts an entry's inc in the high half of its
// word (vtKey): none where the word's high half is its second field.
const incRot = 0
