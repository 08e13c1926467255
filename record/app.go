package record

import (
	"strconv"
	"time"

	"github.com/ckpt-dev/ckpt/trace"
)

// The program's operations and the environment's events: what an
// execution trace (ckpt/trace@1) holds.

// MsgID is the id Send gives the message process p sends as its op-th
// operation (0, 1, …). A re-executed send keeps its id, so a process
// that replays its program deterministically re-sends the same message.
func MsgID(p string, op int32) string { return p + "." + strconv.Itoa(int(op)) }

// Send records the sending of payload to process to and returns the
// wire bytes to transmit: the message id and the transmission, then
// payload. The event is written out before Send
// returns, so no process can hold a message whose send a crash of this
// one erased from its recording.
func (r *Recorder) Send(to string, payload []byte) ([]byte, error) {
	return r.SendPB(to, nil, payload)
}

// SendPB is Send for a protocol that piggybacks pb on the message (MS:
// sn and F); the wire bytes carry pb, and Parse returns it.
func (r *Recorder) SendPB(to string, pb *trace.Piggyback, payload []byte) ([]byte, error) {
	return r.transmit(trace.Send, payload, func(b []byte) ([]byte, Header) {
		msg := MsgID(r.name, r.op)
		b = num(str(str(b, "msg", msg), "to", to), "op", int64(r.op))
		r.op++
		return r.pb(b, pb), Header{From: r.name, Msg: msg, Tx: r.n, PB: pb}
	})
}

// Recv records the receipt of wire bytes from the network and returns
// their payload.
func (r *Recorder) Recv(wire []byte) ([]byte, error) { return r.recv(wire, trace.ViaNet) }

// Replay records a receipt replayed from the process's stable message
// log (MS after a restore) of wire bytes it had logged.
func (r *Recorder) Replay(wire []byte) ([]byte, error) { return r.recv(wire, trace.ViaLog) }

func (r *Recorder) recv(wire []byte, via trace.Via) ([]byte, error) {
	_, payload, err := r.receive(trace.Recv, wire, func(b []byte, h Header) []byte {
		b = num(copyKeys(b, h), "op", int64(r.op))
		r.op++
		return str(b, "via", via.String())
	})
	return payload, err
}

// copyKeys writes what names the copy h describes: msg, from, tx.
func copyKeys(b []byte, h Header) []byte {
	return num(str(str(b, "msg", h.Msg), "from", h.From), "tx", h.Tx)
}

// Internal records an operation that neither sends nor receives; label
// may be empty.
func (r *Recorder) Internal(label string) error {
	return r.event(trace.Internal, 0, func(b []byte) []byte {
		b = num(b, "op", int64(r.op))
		r.op++
		if label != "" {
			b = str(b, "label", label)
		}
		return b
	})
}

// Checkpoint records a tick of the basic checkpoint timer, for a trace.
// A protocol's own checkpoints are CheckpointTaken.
func (r *Recorder) Checkpoint() error { return r.event(trace.Checkpoint, 0, nil) }

// Fail records that the process crashed at time at (the zero time means
// now). Whoever saw the crash records it: a supervisor, or the process
// itself when it restarts, told the time by its supervisor. at must not
// precede the process's last recorded event; a later one is kept.
func (r *Recorder) Fail(at time.Time) error {
	ns := int64(0)
	if !at.IsZero() {
		ns = at.UnixNano()
	}
	return r.event(trace.Fail, ns, nil)
}
