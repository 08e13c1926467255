package replay

import (
	"strconv"

	"github.com/ckpt-dev/ckpt/trace"
)

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
// control messages (EffControl) and data messages. The one exception is
// bookkeeping, not behaviour: EffStable tells the engine, for any
// process, what no restore will undo.
//
// Step is never re-entered: the engine applies all the effects of one
// input before it hands the algorithm the next, and never asks the
// algorithm anything while applying them. Whatever applying an effect
// needs from the algorithm is in the effect (the piggybacks of a
// restart's first-time sends are in EffRestart.Sends).
type Algorithm interface {
	// Name is the run header's "algorithm": "ms", "ms-textbook", "pk".
	Name() string
	// Step handles in and appends its effects to fx, returning the result.
	// The engine passes a reused fx[:0]; an algorithm must not keep fx, nor
	// the pointers inside in (PB, Body, Pending) beyond the call, except
	// that piggybacks and bodies are immutable and may be kept by value.
	Step(in *Input, fx []Effect) []Effect
}

// InputKind says what an Input reports.
type InputKind uint8

// Input kinds.
const (
	_ InputKind = iota
	// InTick: a basic-checkpoint timer tick (trace `checkpoint`). If Down
	// is set the engine has already recorded `checkpoint_skipped` with
	// reason "down" and ignores every effect; the algorithm is told so it
	// can count the tick (MS `next`). A process the algorithm holds
	// (EffHoldProcess) takes its ticks normally.
	InTick
	// InFlush: the volatile message log is written to stable storage
	// (trace `flush`). Never sent for a down process. PK answers with one
	// EffLog per entry made stable.
	InFlush
	// InSend: op Op of P is about to send message Msg to Peer as copy
	// Copy. The algorithm must return exactly one EffPiggyback. (The sends
	// a restart runs for the first time are not asked: their piggybacks
	// come with EffRestart.)
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
	// InFail: P crashes now; Failure is the `fail` run event. The
	// algorithm drops its volatile state. Effects are not allowed.
	InFail
	// InRestart: P restarts after the failure Failure; Pos is P's
	// position when it crashed. Pending lists the control messages that
	// arrived while P was down, in arrival order (their `control_recv`
	// events are already recorded). The first effect must be EffRestart;
	// later ones may be anything (EffControl, further EffRollback for the
	// pending requests, EffHoldProcess, EffResend, ...).
	InRestart
	// InControl: a control message from Peer arrives at P (which is up).
	// After the effects are applied, P's held receive, if any, becomes a
	// ready op again: it is re-tried after every arrival at this time
	// (SPEC §3 "Order at equal times").
	InControl
)

var inputNames = [...]string{"Input(0)", "InTick", "InFlush", "InSend", "InRecv", "InFail", "InRestart", "InControl"}

// String returns the kind's Go name ("InRecv"), so test failures read.
func (k InputKind) String() string { return kindName(inputNames[:], int(k), "InputKind") }

// kindName is the name of kind k in names, or type(k) beyond them.
func kindName(names []string, k int, typ string) string {
	if k < len(names) {
		return names[k]
	}
	return typ + "(" + strconv.Itoa(k) + ")"
}

// Input is one input to the algorithm. Fields a kind does not use are
// zero.
type Input struct {
	Kind InputKind
	// P is the process concerned.
	P Proc
	// Pos is the number of P's live ops completed before this input.
	Pos int32
	// Down qualifies InTick.
	Down bool
	// Op is the op index (in P's program) of InSend and InRecv.
	Op int32
	// Msg is the message of InSend and InRecv.
	Msg Msg
	// Peer is the receiver of InSend, the sender of InRecv's copy and the
	// sender of InControl.
	Peer Proc
	// Copy is the new copy of InSend or the candidate of InRecv.
	Copy CopyID
	// Via is where InRecv's candidate comes from.
	Via trace.Via
	// PB is InRecv's candidate piggyback.
	PB *trace.Piggyback
	// Failure is the fail event of InFail and InRestart, and the failure
	// InControl's message answers (as given in EffControl).
	Failure Seq
	// Control and Body describe InControl's message.
	Control trace.Control
	Body    *trace.ControlBody
	// Pending lists InRestart's control messages received while down.
	Pending []ControlMsg
}

// ControlMsg is a control message recorded while its receiver was down.
type ControlMsg struct {
	From    Proc
	Control trace.Control
	Body    *trace.ControlBody
	Failure Seq
}
