package replay

import "github.com/ckpt-dev/ckpt/trace"

// EffectKind says what an Effect does.
type EffectKind uint8

// Effect kinds. Every effect applies to the input's process P, but
// EffStable, which names its process.
const (
	_ EffectKind = iota
	// EffPiggyback answers InSend: PB is what the copy carries.
	EffPiggyback
	// EffCheckpoint takes checkpoint Ckpt (ids unique per process and
	// increasing; 0 is the implicit initial one, so Ckpt ≥ 1) of type
	// CkptType at P's current position, with Sn (MS) or VT (PK). Failure
	// attributes a recovery checkpoint.
	EffCheckpoint
	// EffSkip records `checkpoint_skipped` with Next and Sn (MS).
	EffSkip
	// EffLog records that copy Copy, received by op Op, is written to the
	// stable message log.
	EffLog
	// EffDeliver: InRecv's candidate is delivered; the op completes.
	EffDeliver
	// EffDiscard: InRecv's candidate is dropped for Reason (attributed to
	// Failure); the engine examines the next candidate.
	EffDiscard
	// EffHold: the receive is held (Until says what for, attributed to
	// Failure); it becomes a ready op again after P's next control input,
	// and then examines every candidate again from the first.
	EffHold
	// EffControl sends control message Control with Body to To; it
	// arrives control_delay later. Failure travels with it. To may be P
	// itself (PK's token on a ring of one).
	EffControl
	// EffRestart answers InRestart: restore checkpoint Ckpt, leave P at
	// position Pos (≥ the checkpoint's), set the run's `inc` to Inc (0 to
	// omit). Ops P had executed before Pos stay live; later ones are
	// undone. Ops in [checkpoint's pos, Pos) that P had never executed
	// (those from Input.Pos on) are run now, at the restart time, as
	// ordinary app events written before the `restart` event: their
	// receives take Replay's copies, their sends carry the piggybacks in
	// Sends, one per such send, in op order. If Resend is set, every live
	// send in [checkpoint's pos, Pos) is re-transmitted (a `send` with
	// resend: true, of: the copy it repeats, carrying its piggyback),
	// also before the `restart` event, in program order. Replay lists the
	// replay log: for re-executed receives at ops ≥ Pos, the copy each
	// one is offered first (Via = ViaLog).
	EffRestart
	// EffRollback restores checkpoint Ckpt of a process that is up and
	// leaves it at Pos, silently (nothing is re-transmitted; ops in
	// [checkpoint's pos, Pos) must have been executed and stay live),
	// recording `rollback` with Cause and Failure. Replay is as for
	// EffRestart. Requeue lists copies (of undone receipts) to put back
	// into P's mailbox at their original arrival position.
	EffRollback
	// EffHoldProcess holds P: it executes no op until EffResume. Ticks
	// still reach the algorithm (with Held set). A failure of P ends the
	// hold (and a held receive) silently; hold again at the restart if
	// needed. With Until set the hold is recorded as a `block` run event
	// saying what P waits for (coordinated checkpointing's rounds), so
	// that blocked time can be read from the run; without it nothing is
	// recorded (PK's hold after a restart, implied by the restart).
	EffHoldProcess
	// EffResume ends EffHoldProcess (records `resume`); P's next op
	// becomes ready gap after now.
	EffResume
	// EffResend re-transmits the live send at op Op of P to its receiver
	// as a new copy with resend: true, of: the number of the copy that
	// send transmitted, carrying its piggyback; Failure attributes it.
	EffResend
	// EffStable says that process To — any process, not only P: one
	// algorithm value simulates them all — will never restore a
	// checkpoint before its checkpoint Ckpt (0 is the initial one), so
	// that its ops before Ckpt's position are final: never undone, no
	// receipt there put back or offered again, and no send there
	// re-transmitted by a restart or resent unless its receiver's receipt
	// of it is not final. Ckpt never goes back. The engine then lets go
	// of the piggybacks only such a restore could read (release.go); a later
	// restore below Ckpt, or a resend of a send whose vector it let go, is
	// an error. It may come with any input but InSend and InFail.
	EffStable
)

var effectNames = [...]string{"Effect(0)", "EffPiggyback", "EffCheckpoint", "EffSkip", "EffLog", "EffDeliver",
	"EffDiscard", "EffHold", "EffControl", "EffRestart", "EffRollback", "EffHoldProcess", "EffResume",
	"EffResend", "EffStable"}

// String returns the kind's Go name ("EffRestart"), so test failures read.
func (k EffectKind) String() string { return kindName(effectNames[:], int(k), "EffectKind") }

// LogCopy is one replay-log entry: receive op Op takes copy Copy.
type LogCopy struct {
	Op   int32
	Copy CopyID
}

// SendPB is the piggyback of a send that a restart runs for the first
// time: op Op of the restarting process (EffRestart.Sends).
type SendPB struct {
	Op int32
	PB trace.Piggyback
}

// Effect is one effect of an input. Fields a kind does not use are zero,
// and so are the optional ones a kind leaves out: a zero Failure, Sn,
// Next or Inc is absent (written as no field in the run).
type Effect struct {
	Kind EffectKind
	// PB is EffPiggyback's piggyback (shared slices must be immutable).
	PB trace.Piggyback
	// Ckpt is the checkpoint taken (EffCheckpoint, ≥ 1) or restored
	// (EffRestart, EffRollback; 0 is the initial checkpoint).
	Ckpt     int32
	CkptType trace.CkptType
	// Sn and Next are MS numbers (EffCheckpoint, EffSkip); 0 is absent:
	// every checkpoint an effect takes is numbered ≥ 1 (only the
	// implicit checkpoint 0 is numbered 0), and a skipped tick has
	// next ≥ 1.
	Sn   int32
	Next int32
	VT   trace.VT
	// Copy qualifies EffLog; Op EffLog and EffResend.
	Copy CopyID
	Op   int32
	// Reason qualifies EffDiscard and EffSkip; Until EffHold and
	// EffHoldProcess.
	Reason trace.Reason
	Until  string
	// To, Control and Body describe EffControl.
	To      Proc
	Control trace.Control
	Body    *trace.ControlBody
	// Pos, Inc, Cause, Resend, Sends, Replay and Requeue describe
	// EffRestart and EffRollback. Pos is required (0 is a position).
	Pos     int32
	Inc     int32
	Cause   trace.Cause
	Resend  bool
	Sends   []SendPB
	Replay  []LogCopy
	Requeue []CopyID
	// Failure is the fail event the effect answers, if any.
	Failure Seq
}
