// Package history builds the consistency checker's model of a run: one
// pass over the run's events, in seq order, rebuilds what happened — the
// live history of every process (what restarts and rollbacks undid), the
// checkpoints each process held, every transmitted copy with who sent it
// and who took it from which mailbox, every failure with the events that
// answered it, and the happened-before edges between app events — and
// freezes it into a Model that the checker's property rules read and
// never write.
//
// The model records facts, not verdicts: where the run contradicts
// itself (an op number that breaks continuity, a restart of a process
// that never failed) it builds on as robustly as it can, and the run
// spec of package consistency, which reads the builder as the run
// streams, says what is wrong.
//
// A Builder takes events one at a time (Add) and never looks ahead, so a
// run can be fed to it as it is produced; Finish derives the final-state
// facts. Cost: linear in events + copies + checkpoints.
package history

import (
	"cmp"
	"fmt"
	"slices"
	"sync"

	"github.com/ckpt-dev/ckpt/consistency/zgraph"
	"github.com/ckpt-dev/ckpt/rline"
	"github.com/ckpt-dev/ckpt/trace"
)

// None marks an absent seq, index or number (trace.None).
const None int32 = trace.None

// Nowhere is Restore.Want when the rule restores no checkpoint: MS
// applying a recovery numbered above every checkpoint held.
const Nowhere int32 = -3

// ImplicitUndo is UndoneBy's value for an op dropped by a broken op
// continuity rather than by a restart or rollback.
const ImplicitUndo int32 = -2

// Alg is the algorithm whose rules a run claims to follow.
type Alg uint8

// The algorithms the checker knows the rules of; any other is Foreign.
const (
	Foreign  Alg = iota
	MS           // Manivannan–Singhal, the default generalisation (SPEC §4.2)
	Textbook     // MS with the seed's scalar inc and rec_line
	PK           // Peterson–Kearns
	// The checkpoint-placement protocols (docs/protocols.md): no
	// recovery, so the model treats their restarts and rollbacks, which a
	// run of theirs should not have, as a foreign algorithm's.
	BCS         // Briatico–Ciuffoletti–Simoncini
	FDAS        // Wang's Fixed-Dependency-After-Send
	HMNR        // Hélary–Mostefaoui–Netzer–Raynal
	Coordinated // blocking two-phase coordinated checkpointing
)

// AlgOf returns the algorithm a run's header names.
func AlgOf(run *trace.Run) Alg {
	if a := algByName[run.Algorithm]; a != MS || run.Options.Variant != "textbook" {
		return a
	}
	return Textbook
}

// algByName maps the names runs give ckpt's algorithms to them; any
// other name is Foreign's, the zero value.
var algByName = map[string]Alg{"ms": MS, "ms-textbook": Textbook, "pk": PK, "bcs": BCS, "fdas": FDAS, "hmnr": HMNR, "coordinated": Coordinated}

// IsMS reports whether a follows MS's numbering and logging rules.
func (a Alg) IsMS() bool { return a == MS || a == Textbook }

// Recovers reports whether the checker knows a's recovery rules (MS and
// PK): which copies a restore puts back, what a down process may do.
func (a Alg) Recovers() bool { return a.IsMS() || a == PK }

// Places reports whether a is a checkpoint-placement protocol without
// recovery (bcs, fdas, hmnr, coordinated).
func (a Alg) Places() bool { return a >= BCS && a <= Coordinated }

// Ckpt is one checkpoint a process took, or the implicit initial one.
type Ckpt struct {
	ID  int32
	Pos int32
	Sn  int32
	Seq int32 // None for the implicit initial checkpoint
	// Parent is the index in Taken of the checkpoint held just before it
	// was taken (None for the initial one): the checkpoints a process
	// holds at any moment are a chain of parents.
	Parent int32
	// Unstable counts the live receipts no log event had made stable
	// when the checkpoint was taken.
	Unstable int32
	Type     trace.CkptType
	// snBelow is the largest Sn along the chain of parents (None for the
	// initial checkpoint): a walk down the chain for a number stops
	// where nothing below can match.
	snBelow int32
}

// Proc is one process's final state.
type Proc struct {
	// Live[k] is the seq of the app event live at op k at the end (None
	// for a gap a broken continuity left).
	Live []int32
	// Agreed counts the ops at the start of Live that are the program's
	// (ProgOp: same kind and, but for an internal op, message; no gap),
	// kept as ops come and go so that equivalence walks no live history.
	Agreed int32
	// Held are the checkpoints held at the end, in the order taken, as
	// indexes into Taken (HeldCkpt).
	Held []int32
	// Taken lists every checkpoint the process took, the initial one
	// first, in seq order.
	Taken []Ckpt
	// End is the seq of the process's end event, or None.
	End int32
}

// HeldCkpt returns the k-th checkpoint held at the end.
func (p *Proc) HeldCkpt(k int) *Ckpt { return &p.Taken[p.Held[k]] }

// ckptIndex returns the index in Taken of the checkpoint with id (the
// latest one with it; 0 is the initial one), or None.
func ckptIndex(taken []Ckpt, byID map[int32]int32, id int32) int32 {
	if byID == nil {
		// Dense: every id given so far is its checkpoint's index.
		if id > 0 && int(id) < len(taken) && taken[id].ID == id {
			return id
		}
	} else if k, ok := byID[id]; ok {
		return k
	}
	if id == 0 {
		return 0
	}
	return None
}

// RestoredCkpt returns the checkpoint restore rs restored, or false when
// it names none its process took.
func (m *Model) RestoredCkpt(rs *Restore) (Ckpt, bool) {
	if rs.Restored == None {
		return Ckpt{}, false
	}
	return m.Procs[m.Event(rs.Seq).P].Taken[rs.Restored], true
}

// Announcement is a PK failure announcement (origin, inc, k): incarnation
// inc of origin ended at position k.
type Announcement struct {
	Origin, Inc, K int32
}

// Failure is one effective fail event and what answered it.
type Failure struct {
	Seq     int32
	P       int32
	Restart int32 // seq of its restart, None if the run shows none
	// Handlers lists the restart, rollback and recovery-checkpoint
	// events of every process attributed to it, in seq order.
	Handlers []int32
	// Controls counts the control messages sent for it.
	Controls int
	// Count is the origin's failure count c of MS's recovery (o, c, r):
	// this is its Count-th attributed restart. None before the restart.
	Count int32
	// R is MS's recovery line number, the number of the checkpoint the
	// restart restored (None when unknown).
	R int32
	// Ann is the PK announcement its restart made, or nil.
	Ann *Announcement
	// Snapshot of the whole system at the fail instant, for the maximum
	// consistent recovery line; nil checkpoint tables when the snapshot
	// budget ran out.
	Snap Snapshot
}

// Snapshot is the system's state at a fail instant: per process its live
// op count and held checkpoints, and every live receipt whose send is
// live too.
type Snapshot struct {
	LiveAt []int32
	// Heads are, per process, the index in Taken of the latest checkpoint
	// held: the held checkpoints are its chain of parents. nil: no
	// snapshot (the budget ran out).
	Heads []int32
	// Recvs are the seqs of the live receipts whose send is live too
	// (SendOf): the messages the maximum recovery line must not orphan.
	Recvs []int32
}

// Handling is a point where a process has handled a failure: the state
// right after event Seq, whose last live op is Top (or None).
type Handling struct {
	F   int32 // index into Model.Failures
	P   int32
	Seq int32
	Top int32
}

// Restore describes one restart or rollback.
type Restore struct {
	Seq int32
	// Latest is the index in Taken of the latest checkpoint the process
	// held just before the restore: the head of its held chain.
	Latest int32
	// Restored is the index in Taken of the checkpoint it restores, its
	// id resolved once, at the restore, as Builder.CkptByID resolves ids
	// (the latest checkpoint taken with it by then; 0 the initial one),
	// so that no rule looks the id up again; None if the process took
	// none with that id (or the restore names none). RestoredCkpt reads it.
	Restored int32
	// Undid lists the live ops it undid, in seq order.
	Undid []int32
	// Replayed counts the live receipts between the restored
	// checkpoint's position and pos: what the process replays silently
	// from its log (PK; MS writes its replays as recv events and
	// restores to pos).
	Replayed int32
	// Want is the checkpoint the algorithm's rule restores (an index in
	// Taken), as the protocol spec found it, or None: the bound
	// domino-free judges against.
	Want int32
	// VT is the rebuilt vector time of the checkpoint restored (PK), as
	// the spec kept it, for the report.
	VT trace.VT
}

// Take records a copy taken from a mailbox that did not hold it: it had
// been taken before by First and not put back since.
type Take struct {
	Copy   int32
	First  int32 // seq of the earlier receive or discard that took it
	Second int32 // seq of the receive that took it again
}

// Missing says which fields the run omits; properties that need them are
// unknown.
type Missing struct {
	Ops, Copy, Sn, Restore, CkptID bool
	// Failure: a restart or rollback the model cannot attribute to a fail
	// event, so per-failure judgements are incomplete.
	Failure bool
}

// Replay reports whether a run lacks what replaying its recoveries needs
// (op numbers, copy numbers, restored checkpoints): PK's rules then
// judge nothing, saying why once.
func (x Missing) Replay() bool { return x.Ops || x.Copy || x.Restore }

// Model is the frozen history of a run. Every slice and map in it is
// read-only: the property rules share one model.
type Model struct {
	Run *trace.Run
	Src *trace.Trace // the source trace, or nil
	// Mismatched is a source trace whose processes are not the run's
	// (for ckpt's own algorithms, which replay the trace's processes in
	// its order, also another order): set aside, as no source, so that
	// no rule matches programs by a wrong index, and kept for
	// equivalence to fail on. Src is then nil.
	Mismatched *trace.Trace
	Alg        Alg

	// Per event, indexed by seq. Pred is, for an app op, the live op
	// numbered just below it in its process, or None: op 0, or an op
	// whose op below never showed (a gap). Never a lower op across a
	// gap: chain walks take a None predecessor above op 0 for a gap and
	// need no other check.
	Pred     []int32
	SendOf   []int32 // recv: the op-level send of its copy; resend: the live send it repeats; or None
	UndoneBy []int32 // app op: the restart or rollback that undid it, ImplicitUndo, or None

	// answers lists, in seq order, the restarts, rollbacks and recovery
	// checkpoints attributed to a failure (FailOf).
	answers []answer
	// failSeqs are the Failures' seqs, in order: FailureAt searches them,
	// not the Failures themselves, whose ~100-byte elements made every
	// probe a cache miss (8% of verify's CPU with 10^5 failures).
	failSeqs []int32
	// restoreSeqs are the Restores' seqs, in order, for RestoreOf (as
	// failSeqs for FailureAt).
	restoreSeqs []int32

	Procs    []Proc
	Failures []Failure

	Handlings []Handling // sorted by seq
	// Restores lists every restart and rollback, in seq order.
	Restores []Restore

	Copies Copies
	// Takes lists copies taken from a mailbox that no longer held them.
	Takes []Take

	Missing Missing
	// PiggybackBytes sums the sends' piggyback sizes
	// (trace.Piggyback.Bytes), counted as each send was added: a
	// producer may drop vectors after.
	PiggybackBytes int64

	// LiveSend and LiveRecv are, per message, its live send and its first
	// live receive at the end (by process, then op), or None.
	LiveSend, LiveRecv []int32
	// Repeats are the live receipts, at the end, of a message whose
	// LiveRecv is another receipt; Stale the live receipts of a copy
	// whose send was undone. Both in process, then op order.
	Repeats, Stale []int32
	// Final is the checkpoint and message graph of the final live
	// history, or nil when copies are missing.
	Final *FinalGraph

	// rechain: an explicit initial checkpoint came after others and
	// changed its number, so the chains' snBelow summaries are stale.
	rechain bool
	dep     *Dependence // nil without failures, ops or copies
	// toSrc and toRun map message indexes between the run and a
	// comparable source trace (mapMsg): nil without one, or for a run
	// fresh from replay, which shares the trace's table (the identity).
	toSrc, toRun []int32
	// srcOps, srcTicks and srcFails are srcTables'.
	srcOps, srcTicks, srcFails [][]int32
	// shownKind and shownMsg are each process's program as the run shows
	// it: kind and message of each op index in its first execution.
	shownKind [][]trace.Kind
	shownMsg  [][]int32
	// reshown: an op ran again as another op than it first ran as (a
	// forged run), so that a live op's kind and message may not be the
	// shown ones.
	reshown bool
}

// SrcOps returns, per process, the source trace indexes of its ops in
// program order (the table the builder placed internal ops with, or
// built at Finish), or nil without a comparable source trace.
func (m *Model) SrcOps() [][]int32 { return m.srcOps }

// ProgOp is one op of a process's program.
type ProgOp struct {
	Kind trace.Kind
	Msg  int32
}

// FinalGraph is the final live history as zgraph sees it: per process the
// held checkpoints' numbers and positions, the Z-graph over them and the
// messages with both ends live (Graph.Msgs), and the seq of each one's
// receive. Graph and Err are set by Built.
type FinalGraph struct {
	Numbers, Pos [][]int32
	Recvs        []int32
	Graph        *zgraph.Graph // nil when Err is set
	Err          error
	msgs         []rline.Msg
	once         sync.Once
}

// Built builds the Z-graph on first use and returns g: only the rules of
// the promises an algorithm makes and the useless-checkpoint count read
// it, so a PK run that explore judges (it counts no checkpoints) never
// pays for it. Safe for the rules judging in parallel.
func (g *FinalGraph) Built() *FinalGraph {
	g.once.Do(func() { g.Graph, g.Err = zgraph.New(g.Pos, g.msgs) })
	return g
}

// answer is an event attributed to a failure.
type answer struct{ seq, f int32 }

// FailOf returns the index of the failure the restart, rollback or
// recovery checkpoint at seq answers, or None.
func (m *Model) FailOf(seq int32) int32 {
	i, ok := slices.BinarySearchFunc(m.answers, seq, func(a answer, s int32) int { return cmp.Compare(a.seq, s) })
	if !ok {
		return None
	}
	return m.answers[i].f
}

// FailureAt returns the index in Failures of the effective fail event at
// seq.
func (m *Model) FailureAt(seq int32) (int32, bool) {
	i, ok := slices.BinarySearch(m.failSeqs, seq)
	return int32(i), ok
}

// RestoreOf returns the restart or rollback at seq, or nil.
func (m *Model) RestoreOf(seq int32) *Restore {
	i, ok := slices.BinarySearch(m.restoreSeqs, seq)
	if !ok {
		return nil
	}
	return &m.Restores[i]
}

// Event returns the event at seq.
func (m *Model) Event(seq int32) *trace.RunEvent { return &m.Run.Events[seq] }

// ProcName names process p, also an out-of-range one.
func (m *Model) ProcName(p int32) string {
	if p >= 0 && int(p) < len(m.Run.Processes) {
		return m.Run.Processes[p]
	}
	return fmt.Sprintf("process #%d", p)
}

// MsgName names message index i, also an out-of-range one.
func (m *Model) MsgName(i int32) string {
	if i >= 0 && int(i) < len(m.Run.Msgs) {
		return m.Run.Msgs[i]
	}
	return fmt.Sprintf("message #%d", i)
}

// MsgOpt names message i after a space ("send m1" is written "%s%s"),
// or is "" for None, so an op without a message reads "internal".
func (m *Model) MsgOpt(i int32) string {
	if i == None {
		return ""
	}
	return " " + m.MsgName(i)
}

// FailName describes failure fi for because-chains.
func (m *Model) FailName(fi int32) string {
	f := &m.Failures[fi]
	return fmt.Sprintf("failure seq %d (%s at t=%s)", f.Seq, m.ProcName(f.P), m.Run.Events[f.Seq].T)
}

// Describe names an event for because-chains: "P0's send of m3 (op 2) at
// seq 37".
func (m *Model) Describe(s int32) string {
	e := &m.Run.Events[s]
	if verb := map[trace.Kind]string{trace.Send: "send", trace.Recv: "receive"}[e.Kind]; verb != "" {
		return fmt.Sprintf("%s's %s of %s (op %d) at seq %d", m.ProcName(e.P), verb, m.MsgName(e.Msg), e.Op, s)
	}
	return fmt.Sprintf("%s's %s op %d at seq %d", m.ProcName(e.P), e.Kind, e.Op, s)
}

// PB returns the piggyback of copy ci, taken from the event that
// transmitted it, or nil.
func (m *Model) PB(ci int32) *trace.Piggyback {
	if ci < 0 {
		return nil
	}
	s := m.Copies.Send[ci]
	if s == None {
		return nil
	}
	return m.Run.PB(&m.Run.Events[s])
}

// Top returns the seq of the last live op of a live history, or None.
func Top(live []int32) int32 {
	for k := len(live) - 1; k >= 0; k-- {
		if live[k] != None {
			return live[k]
		}
	}
	return None
}

// isApp reports whether e is a program op other than a resend.
func isApp(e *trace.RunEvent) bool {
	return e.Kind.IsOp() && !(e.Kind == trace.Send && e.Resend)
}
