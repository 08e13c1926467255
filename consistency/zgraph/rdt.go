package zgraph

import "github.com/ckpt-dev/ckpt/rline"

// Rollback-dependency trackability (RDT, Wang 1997): every Z-path
// between two checkpoints is causally doubled, so every rollback
// dependency is visible to transitive dependency vectors when it is
// created — FDAS's promise. It implies no useless checkpoint.
//
// The model is New's pattern, whose program positions matter here, since
// whether a Z-path is causal depends on the order of a receipt and a
// send inside one interval; each process's final state counts as one
// more checkpoint after its last (Wang's volatile checkpoint; without it
// no characterization by short paths holds). The method, proved in
// docs/protocols.md after Baldoni, Hélary and Raynal (PODC 1999): only
// what a sender learnt after a send and before its next checkpoint needs
// testing, each such fact coming with a receipt m1 that makes [m1, m] a
// CM-path. A first pass in causal order records the dependency vector
// each checkpoint closes (as changes, with the receipt behind each); a
// second tests every send against the changes of its interval made after
// it. Cost: O(ops · n) time, memory linear in the pattern plus O(n²) and
// one vector per distinct in-flight dependency vector.

// RDTViolation is a Z-path no causal path doubles: a causal path from
// checkpoint From ends with M1 (an index into the messages given to
// CheckRDT), received by the process that sent M2 earlier in the same
// interval, and M2 is received before checkpoint To; no causal path leads
// from From to To. When From and To are the same process the Z-path runs
// backwards or in a cycle: From is useless. To.X one past the process's
// last checkpoint names its final state.
type RDTViolation struct {
	M1, M2   int32
	From, To Checkpoint
}

// CheckRDT returns the violations of RDT in the pattern: for each send, one
// per dependency its sender learnt later in the same interval that its
// receiver's next checkpoint lacks, ordered by sender and position. None
// means the pattern is rollback-dependency trackable. It returns an error, never
// panics, when an index is out of range, two messages claim one op, a
// process's checkpoint positions decrease, or the messages form a causal
// cycle (no execution could produce them).
func CheckRDT(ckpts [][]int32, msgs []rline.Msg) ([]RDTViolation, error) {
	pt, err := newPattern(ckpts, msgs)
	if err != nil {
		return nil, err
	}
	d, err := pt.dependencies()
	if err != nil {
		return nil, err
	}
	return pt.undoubled(d), nil
}
