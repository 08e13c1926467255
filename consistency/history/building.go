package history

import "github.com/ckpt-dev/ckpt/trace"

// What a judge that follows the run as it streams (the protocol specs of
// package consistency) reads of the model while it is being built. The
// Model's own accessors for these read Procs, which Finish fills; the
// builder answers the same questions from its per-process state, which
// holds everything up to the last event added and nothing after it.

// Model returns the model being built: its Run, Copies, Restores and
// tables indexed by seq are filled up to the last event added; Procs and
// everything Finish derives are not. It is the model Finish returns.
func (b *Builder) Model() *Model { return b.m }

// Taken returns the checkpoints p has taken so far, as Proc.Taken will
// list them (append only: an index into it stays valid).
func (b *Builder) Taken(p int32) []Ckpt { return b.procs[p].Taken }

// Held returns the checkpoints p holds now, as indexes into Taken, in the
// order taken.
func (b *Builder) Held(p int32) []int32 { return b.procs[p].Held }

// Live returns the seqs of p's live ops now (None for a gap), by op.
func (b *Builder) Live(p int32) []int32 { return b.procs[p].Live }

// Gaps counts the ops p's live history lacks (a broken continuity).
func (b *Builder) Gaps(p int32) int32 { return b.procs[p].gaps }

// Stable reports, per live op of p, whether a log event made it stable.
func (b *Builder) Stable(p int32) []bool { return b.procs[p].stable }

// ProgOp returns op k of p's program (Model.ProgOp: the source trace's,
// else the run's so far), and whether there is one.
func (b *Builder) ProgOp(p, k int32) (ProgOp, bool) {
	op := b.m.ProgOp(p, k)
	return op, op.Kind != trace.KindInvalid
}

// Shown returns op k of p as the run has shown p executing it so far (the
// first execution of op k), whatever the source trace says; for an op
// not shown, its kind is KindInvalid.
func (b *Builder) Shown(p, k int32) (ProgOp, bool) { return b.m.shown(p, k) }

func (m *Model) shown(p, k int32) (ProgOp, bool) {
	if k < 0 || int(k) >= len(m.shownKind[p]) {
		return ProgOp{Kind: trace.KindInvalid, Msg: None}, false
	}
	op := ProgOp{Kind: m.shownKind[p][k], Msg: m.shownMsg[p][k]}
	return op, op.Kind != trace.KindInvalid
}

// Down reports whether p is down: it failed and has not restarted.
func (b *Builder) Down(p int32) bool { return b.procs[p].down }

// LastFail returns the seq of p's latest effective fail, or None.
func (b *Builder) LastFail(p int32) int32 { return b.procs[p].lastFail }

// LastRestore returns the seq of p's latest restart or rollback, or None.
func (b *Builder) LastRestore(p int32) int32 { return b.procs[p].lastRestore }

// Ended returns the seq of p's end event, or None.
func (b *Builder) Ended(p int32) int32 { return b.procs[p].End }

// OldestUnstable returns the oldest live op of p that is a receipt no log
// event made stable, or its live count when there is none. A cursor
// skips the stable prefix once, so calls cost O(ops) in all.
func (b *Builder) OldestUnstable(p int32) int32 {
	ps := &b.procs[p]
	k := ps.logFrom
	for ; int(k) < len(ps.Live); k++ {
		if s := ps.Live[k]; s != None && b.m.Run.Events[s].Kind == trace.Recv && !ps.stable[k] {
			break
		}
	}
	ps.logFrom = k
	return k
}

// PutBack sets how the model learns which copies a PK rollback puts
// back in the mailbox (SPEC §5: those of undone receipts that are no
// orphan of the announcements the process knows): put reports, for the
// copy an undone receipt of p took, whether it goes back, and sure
// whether that can be told. Without it such copies are unsure.
func (b *Builder) PutBack(put func(p, ci int32) (back, sure bool)) { b.putBack = put }

// EarliestHeld returns the earliest checkpoint on p's chain held from
// latest (an index into Taken) that is numbered ≥ sn, or None: MS's
// rollback target. It walks the chain only as far down as a checkpoint
// numbered ≥ sn can be.
func (b *Builder) EarliestHeld(p, latest, sn int32) int32 {
	t := b.procs[p].Taken
	out := None
	for i := latest; i >= 0 && int(i) < len(t); i = t[i].Parent {
		if t[i].Sn >= sn {
			out = i
		}
		if t[i].snBelow < sn && !b.m.rechain {
			break
		}
	}
	return out
}

// Restarts returns how many times p has restarted.
func (b *Builder) Restarts(p int32) int32 { return b.procs[p].restarts }

// Posless reports whether p's latest restart or rollback named no pos
// and no op has come since: its undo shows only in the op after it.
func (b *Builder) Posless(p int32) bool { return b.procs[p].posless }
