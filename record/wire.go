package record

import (
	"encoding/binary"
	"errors"

	"github.com/ckpt-dev/ckpt/trace"
)

// Header is what a recorder's wire bytes carry besides the payload: the
// identity of the transmission and what the protocol piggybacks.
type Header struct {
	From string // the sending process
	Msg  string // the message id ("" for a control message)
	// Tx is the sender's event number of this transmission: one copy,
	// as a receipt, log or discard names it.
	Tx int64
	PB *trace.Piggyback // the piggyback, if the send had one
	// Control, Body and Failure describe a control message.
	Control trace.Control
	Body    *trace.ControlBody
	Failure Failure
}

// Failure names one failure: the N-th (1, 2, …) of process P. A live
// process cannot know a merged run's seqs; merging turns the name into
// the seq of P's N-th fail event. The zero Failure names none. A
// recording writes it as {"p": P, "n": N}.
type Failure struct {
	P string `json:"p"`
	N int32  `json:"n"`
}

const (
	// wireMagic is the layout's version: 0xC5 carried a Lamport clock
	// after Tx, which this layout dropped, so a peer built before reads
	// these bytes as ErrWire rather than as a payload shifted by a clock.
	wireMagic   = 0xC6
	flagPB      = 1
	flagControl = 2
)

// ErrWire reports bytes that are not a recorder's wire format.
var ErrWire = errors.New("record: not a recorded message")

// wire encodes h, then payload, into one new slice.
func wire(h *Header, payload []byte) []byte {
	n := 2 + 2*binary.MaxVarintLen64 + len(h.From) + len(h.Msg) + len(h.Failure.P) + len(payload)
	if h.PB != nil {
		n += (1 + 2*len(h.PB.F)) * binary.MaxVarintLen32
	}
	b := make([]byte, 0, n+4*binary.MaxVarintLen32)
	flags := byte(0)
	if h.PB != nil {
		flags |= flagPB
	}
	if h.Control != trace.ControlNone {
		flags |= flagControl
	}
	b = append(b, wireMagic, flags)
	b = appendBytes(b, h.From)
	b = appendBytes(b, h.Msg)
	b = binary.AppendUvarint(b, uint64(h.Tx))
	if pb := h.PB; pb != nil {
		b = binary.AppendVarint(b, int64(pb.Sn))
		b = binary.AppendUvarint(b, uint64(len(pb.F)))
		for _, e := range pb.F {
			b = binary.AppendVarint(b, int64(e.P))
			b = binary.AppendVarint(b, int64(e.Count))
		}
	}
	if h.Control != trace.ControlNone {
		body := h.Body
		if body == nil {
			nb := trace.NewControlBody()
			body = &nb
		}
		b = append(b, byte(h.Control))
		b = binary.AppendVarint(b, int64(body.Origin))
		b = binary.AppendVarint(b, int64(body.Count))
		b = binary.AppendVarint(b, int64(body.R))
		b = appendBytes(b, h.Failure.P)
		b = binary.AppendVarint(b, int64(h.Failure.N))
	}
	return append(b, payload...)
}

func appendBytes(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// Parse splits wire bytes made by Send or ControlSend into their header
// and payload. The payload aliases wire.
func Parse(wire []byte) (Header, []byte, error) {
	d := decoder{b: wire}
	var h Header
	if len(wire) < 2 || wire[0] != wireMagic {
		return h, nil, ErrWire
	}
	flags := wire[1]
	d.b = wire[2:]
	h.From, h.Msg = d.str(), d.str()
	h.Tx = int64(d.uvarint())
	if flags&flagPB != 0 {
		pb := trace.NewPiggyback()
		pb.Sn = d.int32()
		pb.F = make([]trace.FEntry, min(d.uvarint(), uint64(len(d.b))))
		for i := range pb.F {
			pb.F[i] = trace.FEntry{P: d.int32(), Count: d.int32()}
		}
		h.PB = &pb
	}
	if flags&flagControl != 0 {
		h.Control = trace.Control(d.byte())
		body := trace.NewControlBody()
		body.Origin, body.Count, body.R = d.int32(), d.int32(), d.int32()
		h.Body = &body
		h.Failure = Failure{P: d.str(), N: d.int32()}
	}
	if d.bad {
		return Header{}, nil, ErrWire
	}
	return h, d.b, nil
}

// decoder reads varints, remembering whether any was malformed.
type decoder struct {
	b   []byte
	bad bool
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.bad, d.b = true, nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) int32() int32 {
	v, n := binary.Varint(d.b)
	if n <= 0 || v != int64(int32(v)) {
		d.bad, d.b = true, nil
		return 0
	}
	d.b = d.b[n:]
	return int32(v)
}

func (d *decoder) byte() byte {
	if len(d.b) == 0 {
		d.bad = true
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *decoder) str() string {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.bad, d.b = true, nil
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}
