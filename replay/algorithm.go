package replay

import "github.com/ckpt-dev/ckpt/trace"

// Algorithm is the recovery algorithm the engine drives: a pure state
// machine (etcd-io/raft style). The engine hands it one Input at a time and
// applies the Effects it returns, in order. An algorithm does no I/O, reads
// no clock and never looks at the engine's internals: everything it knows
// comes from its constructor (the trace, i.e. every process's program) and
// from inputs.
//
// One Algorithm value simulates every process of the trace, but each
// input concerns exactly one process (Input.P) and every effect it returns
// applies to that process; other processes are reached only through
// control messages (EffControl) and data messages.
type Algorithm interface {
	// Name is the run header's "algorithm": "ms", "ms-textbook", "pk".
	Name() string
	// Step handles in and appends its effects to fx, returning the result.
	// The engine passes a reused fx[:0]; an algorithm must not keep fx, nor
	// the pointers inside in (PB, Body, Pending) beyond the call, except
	// that piggybacks and bodies are immutable and may be kept by value.
	Step(in *Input, fx []Effect) []Effect
}

// CopyID names one transmitted copy of a data message, engine-wide. The
// engine assigns it when a send (or resend) transmits; algorithms use it to
// name copies in their logs (EffLog, LogCopy) and in EffResend/Requeue.
type CopyID int32

// NoCopy is an absent CopyID.
const NoCopy CopyID = -1

// InputKind says what an Input reports.
type InputKind uint8

// Input kinds.
const (
	_ InputKind = iota
	// InTick: a basic-checkpoint timer tick (trace `checkpoint`). If Down
	// is set the engine has already recorded `checkpoint_skipped` with
	// reason "down" and ignores every effect; the algorithm is told so it
	// can count the tick (MS `next`). Held is set for a process the
	// algorithm holds (EffHoldProcess); its ticks are taken normally.
	InTick
	// InFlush: the volatile message log is written to stable storage
	// (trace `flush`). Never sent for a down process. PK answers with one
	// EffLog per entry made stable.
	InFlush
	// InSend: op Op of P is about to send message Msg to Peer as copy
	// Copy. The algorithm must return exactly one EffPiggyback.
	InSend
	// InRecv: receive op Op of P takes candidate copy Copy of Msg, sent
	// by Peer with piggyback PB, from the mailbox (Via = ViaNet) or from
	// the replay log (Via = ViaLog). The algorithm returns at most one
	// judgement — EffDeliver, EffDiscard or EffHold — preceded by whatever
	// must happen first (EffCheckpoint for MS forced checkpoints, EffLog).
	// A missing judgement is an error. Instead of a judgement the
	// algorithm may roll P back (EffRollback, e.g. MS textbook adopting a
	// newer incarnation); the receive is then undone and re-executed later.
	InRecv
	// InFail: P crashes now; Failure is the seq of the `fail` run event.
	// The algorithm drops its volatile state. Effects are not allowed.
	InFail
	// InRestart: P restarts after the failure Failure. Pending lists the
	// control messages that arrived while P was down, in arrival order
	// (their `control_recv` events are already recorded). The first effect
	// must be EffRestart; later ones may be anything (EffControl, further
	// EffRollback for the pending requests, EffHoldProcess, ...).
	InRestart
	// InControl: a control message from Peer arrives at P (which is up).
	// After the effects are applied the engine re-tries P's held receive,
	// if any.
	InControl
)

// Input is one input to the algorithm. Fields a kind does not use are
// zero/None/nil.
type Input struct {
	Kind InputKind
	// T is the simulated time of the input.
	T trace.Time
	// P is the process concerned.
	P int32
	// Pos is the number of P's live ops completed before this input.
	Pos int32
	// Down and Held qualify InTick.
	Down, Held bool
	// Op is the op index (in P's program) of InSend and InRecv.
	Op int32
	// Msg is the message of InSend and InRecv.
	Msg int32
	// Peer is the receiver of InSend, the sender of InRecv's copy and the
	// sender of InControl.
	Peer int32
	// Copy is the new copy of InSend or the candidate of InRecv.
	Copy CopyID
	// CopyNo is Copy's number among the transmissions of Msg (1, 2, ...).
	CopyNo int32
	// Via is where InRecv's candidate comes from.
	Via trace.Via
	// PB is InRecv's candidate piggyback.
	PB *trace.Piggyback
	// Failure is the seq of the fail event: InFail, InRestart, and the
	// failure InControl's message answers (as given in EffControl).
	Failure int32
	// Control and Body describe InControl's message.
	Control trace.Control
	Body    *trace.ControlBody
	// Pending lists InRestart's control messages received while down.
	Pending []ControlMsg
}

// ControlMsg is a control message recorded while its receiver was down.
type ControlMsg struct {
	T       trace.Time
	From    int32
	Control trace.Control
	Body    *trace.ControlBody
	Failure int32
}

// EffectKind says what an Effect does.
type EffectKind uint8

// Effect kinds. Every effect applies to the input's process P.
const (
	_ EffectKind = iota
	// EffPiggyback answers InSend: PB is what the copy carries.
	EffPiggyback
	// EffCheckpoint takes checkpoint Ckpt (ids unique per process and
	// increasing; 0 is the implicit initial one) of type CkptType at P's
	// current position, with Sn (MS) or VT (PK). Failure attributes a
	// recovery checkpoint.
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
	// Failure); the engine re-tries it after P's next control input,
	// restart or EffRetry, examining every candidate again from the first.
	EffHold
	// EffControl sends control message Control with Body to To; it
	// arrives control_delay later. Failure travels with it.
	EffControl
	// EffRestart answers InRestart: restore checkpoint Ckpt, leave P at
	// position Pos (≥ the checkpoint's), set the run's `inc` to Inc (None
	// to omit). Ops P had executed before Pos stay live; later ones are
	// undone. Ops in [checkpoint's pos, Pos) that P had never executed are
	// run now, at the restart time, as ordinary app events written before
	// the `restart` event (their receives take Replay's copies; their
	// sends ask InSend for a piggyback). If Resend is set, every live send
	// in [checkpoint's pos, Pos) is re-transmitted (a `send` with
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
	// needed.
	EffHoldProcess
	// EffResume ends EffHoldProcess (records `resume`); P's next op
	// becomes ready gap after now.
	EffResume
	// EffResend re-transmits copy Copy (a send of P) to its receiver as a
	// new copy with resend: true, of: Copy's number, carrying Copy's
	// piggyback; Failure attributes it.
	EffResend
	// EffRetry re-tries P's held receive once the input's effects are
	// applied (ignored in answer to InRecv, which is that try).
	EffRetry
)

// LogCopy is one replay-log entry: receive op Op takes copy Copy.
type LogCopy struct {
	Op   int32
	Copy CopyID
}

// Effect is one effect of an input. Fields a kind does not use are
// zero/None/nil; constructors below fill the None fields.
type Effect struct {
	Kind EffectKind
	// PB is EffPiggyback's piggyback (shared slices must be immutable).
	PB trace.Piggyback
	// Ckpt is the checkpoint taken (EffCheckpoint) or restored.
	Ckpt     int32
	CkptType trace.CkptType
	Sn       int32
	Next     int32
	VT       trace.VT
	// Copy and Op qualify EffLog and EffResend.
	Copy CopyID
	Op   int32
	// Reason qualifies EffDiscard; Until EffHold.
	Reason trace.Reason
	Until  string
	// To, Control and Body describe EffControl.
	To      int32
	Control trace.Control
	Body    *trace.ControlBody
	// Pos, Inc, Cause, Resend, Replay and Requeue describe EffRestart
	// and EffRollback.
	Pos     int32
	Inc     int32
	Cause   trace.Cause
	Resend  bool
	Replay  []LogCopy
	Requeue []CopyID
	// Failure is the seq of the fail event the effect answers, or None.
	Failure int32
}

// NewEffect returns an effect of kind k with every int32 field None.
func NewEffect(k EffectKind) Effect {
	return Effect{Kind: k, Ckpt: trace.None, Sn: trace.None, Next: trace.None,
		Copy: NoCopy, Op: trace.None, To: trace.None, Pos: trace.None,
		Inc: trace.None, Failure: trace.None}
}
