package replay

import (
	"strconv"

	"github.com/ckpt-dev/ckpt/trace"
)

// The engine and the algorithms name things by small integers. Each kind
// of name has its own type, so that a process cannot be passed where a
// message is meant, and every absent name is the zero value, so that a
// zero Input or Effect means "none" and never names something real.

// Proc is a process: its index in the trace's processes (0, 1, ...).
type Proc int32

// Msg is a message id: its index in the trace's message table
// (trace.Trace.Msgs).
type Msg int32

// CopyID names one transmitted copy of a data message, engine-wide. The
// engine assigns it when a send (or resend) transmits, numbering copies 1,
// 2, ... in transmission order; the zero CopyID (NoCopy) names none.
// Algorithms use it to name copies in their logs (EffLog, LogCopy) and in
// EffRollback.Requeue.
type CopyID int32

// NoCopy is the absent CopyID.
const NoCopy CopyID = 0

// Seq names a run event by its seq (SPEC §6), for the `failure`
// attribution. Run seqs start at 0, so a Seq holds seq + 1: the zero Seq
// names no event.
type Seq int32

// SeqOf returns the Seq naming run event seq (trace.None gives the zero
// Seq).
func SeqOf(seq int32) Seq {
	if seq < 0 {
		return 0
	}
	return Seq(seq + 1)
}

// Run returns the run seq s names, or trace.None for the zero Seq.
func (s Seq) Run() int32 {
	if s <= 0 {
		return trace.None
	}
	return int32(s) - 1
}

// String returns the run seq, or "none".
func (s Seq) String() string {
	if s <= 0 {
		return "none"
	}
	return strconv.Itoa(int(s) - 1)
}

// orNone maps the zero of an optional number to trace.None, as the run
// writes an absent number.
func orNone(v int32) int32 {
	if v == 0 {
		return trace.None
	}
	return v
}
