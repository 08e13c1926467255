package record

import (
	"bytes"
	"errors"

	json "github.com/goccy/go-json"

	"github.com/ckpt-dev/ckpt/trace"
)

// Header is what a recorder's wire bytes carry besides the payload: the
// identity of the transmission and what the protocol piggybacks.
type Header struct {
	From string // the sending process
	Msg  string // the message id ("" for a control message)
	// Tx is the sender's event number of this transmission: one copy,
	// as a receipt, log or discard names it.
	Tx    int64
	Clock uint64           // the sender's Lamport clock
	PB    *trace.Piggyback `json:",omitempty"` // the piggyback, if the send had one
	// Control, Body and Failure describe a control message.
	Control trace.Control      `json:",omitempty"`
	Body    *trace.ControlBody `json:",omitempty"`
	Failure Failure
}

// Failure names one failure: the N-th (1, 2, …) of process P. A live
// process cannot know a merged run's seqs; merging turns the name into
// the seq of P's N-th fail event. The zero Failure names none.
type Failure struct {
	P string
	N int32
}

// ErrWire reports bytes that are not a recorder's wire format.
var ErrWire = errors.New("record: not a recorded message")

// wire encodes h as one JSON line, then payload, into one new slice:
// the JSON every format of ckpt is read with, rather than a binary
// codec of its own.
func wire(h *Header, payload []byte) []byte {
	b, _ := json.Marshal(h) // no value of a Header fails to encode
	return append(append(b, '\n'), payload...)
}

// Parse splits wire bytes made by Send or ControlSend into their header
// and payload. The payload aliases wire.
func Parse(wire []byte) (Header, []byte, error) {
	var h Header
	line, payload, ok := bytes.Cut(wire, []byte{'\n'})
	if !ok || json.Unmarshal(line, &h) != nil || h.From == "" {
		return Header{}, nil, ErrWire
	}
	return h, payload, nil
}
