package zgraph

// CheckRDT checks rollback-dependency trackability (RDT, Wang 1997) of
// a checkpoint and communication pattern: every Z-path between two
// checkpoints is causally doubled — there is also a causal path between
// them — so that every rollback dependency is visible to transitive
// dependency vectors at the moment it is created. It is the promise of
// Wang's FDAS protocol (algorithms/fdas). RDT implies that no checkpoint
// is useless (a Z-cycle is a Z-path no causal path can double).
//
// Model. It is the Z-graph's, with program positions instead of
// bare interval numbers, because whether a Z-path is causal depends on
// the order of a receipt and a send inside one interval. Process p
// executes ops 0, 1, …; ckpts[p] lists the positions (ops completed when
// taken, non-decreasing) of its checkpoints 1, 2, …; checkpoint 0 is the
// initial one, at position 0, and counts like any other. Interval x of p
// holds the ops after checkpoint x and before checkpoint x+1. Messages
// are sent by one op and received by another; messages never received
// take no part in Z-paths and are left out.
//
// Final states. Each process's final state counts as one more checkpoint,
// numbered after its last one — the volatile checkpoint of Wang's
// rollback-dependency graph, which recovery lines may contain. Without
// it a Z-path could pass through a last interval and reach a real
// checkpoint elsewhere while the CM-path that starts it ends nowhere, and
// no characterization by short paths would hold (docs/protocols.md keeps
// the counterexample). RDT of a run is a property of its current states
// as much as of its checkpoints.
//
// Method (proved in docs/protocols.md). For a message m sent by q in
// interval s and received by b in interval r, RDT holds iff for every m
// everything q causally knows when interval s closes (the dependency
// vector of C(q,s+1)) is known at C(b,r+1), and q knows no interval of b
// beyond r. What q knew when it sent m, m carries; only what q learnt
// after the send and before its next checkpoint needs testing, and each
// such piece of knowledge came with a receipt m1 that makes [m1, m] a
// CM-path (Baldoni, Hélary, Raynal, "Rollback-dependency trackability:
// visible characterizations", PODC 1999). A first pass over the pattern
// in causal order records the dependency vector each checkpoint closes
// (as changes only, with the receipt behind each); a second pass tests
// every send against the changes of its interval made after it. Cost:
// O(ops · n) time at worst (one vector merge per receipt), memory linear
// in the pattern plus O(n²) and one vector per distinct in-flight
// dependency vector.

// OpMsg is one message: sent by op Send of process From and received by op
// Recv of process To.
type OpMsg struct {
	From, Send int32
	To, Recv   int32
}

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
func CheckRDT(ckpts [][]int32, msgs []OpMsg) ([]RDTViolation, error) {
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
