package ms

import "github.com/ckpt-dev/ckpt/trace"

// The applied-recovery vector F of SPEC §4.2, sparse: only non-zero
// entries, sorted by process. A vector is replaced, never modified, when
// it changes, so piggybacks share it.

// fget returns F[p].
func fget(f []trace.FEntry, p int32) int32 {
	for _, e := range f {
		if e.P == p {
			return e.Count
		}
		if e.P > p {
			break
		}
	}
	return 0
}

// fset returns a new vector equal to f with entry p set to c.
func fset(f []trace.FEntry, p, c int32) []trace.FEntry {
	i := 0
	for i < len(f) && f[i].P < p {
		i++
	}
	out := append(make([]trace.FEntry, 0, len(f)+1), f[:i]...)
	out = append(out, trace.FEntry{P: p, Count: c})
	if i < len(f) && f[i].P == p {
		i++
	}
	return append(out, f[i:]...)
}
