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
// wire bytes to transmit: the message id, the transmission and the
// Lamport clock, then payload. The event is written out before Send
// returns, so no process can hold a message whose send a crash of this
// one erased from its recording.
func (r *Recorder) Send(to string, payload []byte) ([]byte, error) {
	return r.SendPB(to, nil, payload)
}

// SendPB is Send for a protocol that piggybacks pb on the message (MS:
// sn and F); the wire bytes carry pb, and Parse returns it.
func (r *Recorder) SendPB(to string, pb *trace.Piggyback, payload []byte) ([]byte, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return nil, r.err
	}
	msg := MsgID(r.name, r.op)
	b := r.begin(trace.Send, 0)
	b = str(b, "msg", msg)
	b = str(b, "to", to)
	b = num(b, "op", int64(r.op))
	b = r.pb(b, pb)
	h := Header{From: r.name, Msg: msg, Tx: r.n, Clock: r.clock, PB: pb}
	r.op++
	r.buf = append(b, "}\n"...)
	if err := r.flush(); err != nil {
		return nil, err
	}
	return wire(&h, payload), nil
}

// Recv records the receipt of wire bytes from the network and returns
// their payload.
func (r *Recorder) Recv(wire []byte) ([]byte, error) { return r.recv(wire, trace.ViaNet) }

// Replay records a receipt replayed from the process's stable message
// log (MS after a restore) of wire bytes it had logged.
func (r *Recorder) Replay(wire []byte) ([]byte, error) { return r.recv(wire, trace.ViaLog) }

func (r *Recorder) recv(wire []byte, via trace.Via) ([]byte, error) {
	h, payload, err := Parse(wire)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return nil, r.err
	}
	r.clock = max(r.clock, h.Clock)
	b := r.copyLine(trace.Recv, &h)
	b = num(b, "op", int64(r.op))
	b = str(b, "via", via.String())
	r.op++
	return payload, r.end(b)
}

// copyLine begins an event about the copy h describes: msg, from, tx.
func (r *Recorder) copyLine(kind trace.Kind, h *Header) []byte {
	b := r.begin(kind, 0)
	b = str(b, "msg", h.Msg)
	b = str(b, "from", h.From)
	return num(b, "tx", h.Tx)
}

// Internal records an operation that neither sends nor receives; label
// may be empty.
func (r *Recorder) Internal(label string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return r.err
	}
	b := r.begin(trace.Internal, 0)
	b = num(b, "op", int64(r.op))
	if label != "" {
		b = str(b, "label", label)
	}
	r.op++
	return r.end(b)
}

// Checkpoint records a tick of the basic checkpoint timer, for a trace.
// A protocol's own checkpoints are CheckpointTaken.
func (r *Recorder) Checkpoint() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return r.err
	}
	return r.end(r.begin(trace.Checkpoint, 0))
}

// Fail records that the process crashed at time at (the zero time means
// now). Whoever saw the crash records it: a supervisor, or the process
// itself when it restarts, told the time by its supervisor. at must not
// precede the process's last recorded event; a later one is kept.
func (r *Recorder) Fail(at time.Time) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return r.err
	}
	ns := int64(0)
	if !at.IsZero() {
		ns = max(at.UnixNano(), r.last)
	}
	return r.end(r.begin(trace.Fail, ns))
}
