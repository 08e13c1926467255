package record

import (
	"github.com/ckpt-dev/ckpt/trace"
)

// A recovery protocol's actions: what a run (ckpt/run@1, SPEC §6) holds
// beyond the program's operations. Each records one event of the
// process, with the fields the run gives it; merging fills in what one
// process cannot know (seq, copy numbers, undone counts, failure seqs).

// Ckpt describes a checkpoint the protocol took.
type Ckpt struct {
	ID   int32 // unique per process; 0 is the implicit initial one
	Type trace.CkptType
	Sn   int32    // MS: its number
	For  *Failure // a recovery checkpoint: the failure it answers
}

// Restore describes a restart or rollback: the checkpoint restored and
// the number of ops that stay live (Pos).
type Restore struct {
	Ckpt  int32
	Pos   int32
	Inc   int32       // restart: the process's restart count (MS: F[self])
	Cause trace.Cause // rollback: request, message or token
	For   Failure     // the failure it answers
}

// CheckpointTaken records a checkpoint at the current position.
func (r *Recorder) CheckpointTaken(c Ckpt) error {
	return r.event(trace.Checkpoint, 0, func(b []byte) []byte {
		b = num(b, "ckpt", int64(c.ID))
		b = str(b, "type", c.Type.String())
		b = num(b, "pos", int64(r.op))
		b = num(b, "sn", int64(c.Sn))
		if c.For != nil {
			b = failure(b, *c.For)
		}
		return b
	})
}

// Skipped records a timer tick that took no checkpoint (MS: next ≤ sn).
func (r *Recorder) Skipped(next, sn int32) error {
	return r.event(trace.CheckpointSkipped, 0, func(b []byte) []byte {
		return num(num(b, "next", int64(next)), "sn", int64(sn))
	})
}

// Log records that the copy in wire is written to the stable message
// log, for the receive about to take it.
func (r *Recorder) Log(wire []byte) error {
	return r.copyEvent(trace.Log, wire, func(b []byte) []byte { return num(b, "op", int64(r.op)) })
}

// Discard records that the copy in wire is dropped for reason.
func (r *Recorder) Discard(wire []byte, reason trace.Reason, f Failure) error {
	return r.copyEvent(trace.Discard, wire, func(b []byte) []byte {
		return failure(str(b, "reason", reason.String()), f)
	})
}

// Hold records that the receive of msg waits (until says for what).
func (r *Recorder) Hold(msg, until string, f Failure) error {
	return r.event(trace.Hold, 0, func(b []byte) []byte {
		return failure(str(str(b, "msg", msg), "until", until), f)
	})
}

// Unhold records that the held receive of msg goes on.
func (r *Recorder) Unhold(msg string, f Failure) error {
	return r.event(trace.Unhold, 0, func(b []byte) []byte { return failure(str(b, "msg", msg), f) })
}

// Restart records the restart after the process's failure; Pos becomes
// its live op count.
func (r *Recorder) Restart(s Restore) error { return r.restore(trace.Restart, s) }

// Rollback records a rollback of the process while it is up.
func (r *Recorder) Rollback(s Restore) error { return r.restore(trace.Rollback, s) }

func (r *Recorder) restore(kind trace.Kind, s Restore) error {
	return r.event(kind, 0, func(b []byte) []byte {
		r.op = s.Pos
		b = num(num(b, "restore", int64(s.Ckpt)), "pos", int64(s.Pos))
		if kind == trace.Restart {
			b = num(b, "inc", int64(s.Inc))
		} else {
			b = str(b, "cause", s.Cause.String())
		}
		return failure(b, s.For)
	})
}

// ControlSend records a control message to process to and returns its
// wire bytes (written out first, as Send's are). ControlRecv returns
// the body and failure.
func (r *Recorder) ControlSend(to string, c trace.Control, body *trace.ControlBody, f Failure) ([]byte, error) {
	return r.transmit(trace.ControlSend, nil, func(b []byte) ([]byte, Header) {
		b = str(str(b, "to", to), "control", c.String())
		return failure(r.body(b, body), f), Header{From: r.name, Tx: r.n, Control: c, Body: body, Failure: f}
	})
}

// ControlRecv records the arrival of a control message and returns its
// header: kind, body, failure.
func (r *Recorder) ControlRecv(wire []byte) (Header, error) {
	h, _, err := r.receive(trace.ControlRecv, wire, func(b []byte, h Header) []byte {
		b = num(str(b, "from", h.From), "tx", h.Tx)
		b = str(b, "control", h.Control.String())
		return failure(r.body(b, h.Body), h.Failure)
	})
	return h, err
}

// End records how the process ended: done, or stuck (blocked or held)
// at its current op, on the receive of msg.
func (r *Recorder) End(state trace.EndState, msg string) error {
	return r.event(trace.End, 0, func(b []byte) []byte {
		b = str(b, "state", state.String())
		if state != trace.StateDone {
			b = num(b, "op", int64(r.op))
			if msg != "" {
				b = str(b, "msg", msg)
			}
		}
		return b
	})
}

// Unconsumed records a copy still in the process's mailbox at the end.
func (r *Recorder) Unconsumed(wire []byte) error {
	return r.copyEvent(trace.Unconsumed, wire, nil)
}

// copyEvent records an event about the copy in wire.
func (r *Recorder) copyEvent(kind trace.Kind, wire []byte, fill func([]byte) []byte) error {
	_, _, err := r.receive(kind, wire, func(b []byte, h Header) []byte {
		if b = copyKeys(b, h); fill != nil {
			b = fill(b)
		}
		return b
	})
	return err
}
