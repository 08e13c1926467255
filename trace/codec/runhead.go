package codec

import (
	"bytes"
	"errors"
	"io"

	"github.com/ckpt-dev/ckpt/trace"
)

// Checking a run file in two passes. A checker sizes its tables by the
// run's message table when it starts, but the decoder learns the table
// as it reads the events; and a wide run's vectors fit in memory only if
// each is dropped once the checker has taken its event. So a first pass
// (ScanRun) reads the header and the message ids alone — no vector, no
// body, nothing checked beyond the header — and the second (RunHead.Stream)
// decodes the events with that table already in place, handing them over
// as StreamRun does.

// RunHead is what ScanRun learns of a run without decoding its events.
type RunHead struct {
	// Run is the header and the message table, in the order the decoder
	// interns the ids (first met, an event's msg before the ids of its
	// receipt list); it has no events.
	Run *trace.Run
	// Compact says the run is ckpt/run@2: its vectors are written by
	// difference, and decoded each is dense.
	Compact bool
	// Early says the header lists the processes before the first event,
	// so that the second pass hands the events over as it reads them.
	Early bool
	// Sizes counts the events and their kinds (Procs and Busy are
	// left to the reader of the header); Vectors counts those that
	// carry a vector time (a vt, or a pb with one). InFlight is the most
	// copies sent and not yet received, discarded or left unconsumed at
	// once, counted by kind alone.
	trace.Sizes
	Vectors, InFlight int64
	// Copied counts the receipt identities that decoding copies: a list
	// that extends an earlier one by reference (ckpt/run@2) is decoded
	// as a new list of keep + add identities, unless it adds none and
	// shares the earlier one. A chain of lists, each extending the one
	// before, decodes to a size quadratic in its length.
	Copied      int64
	flight      int64 // in flight now
	compactOnly bool  // ScanCompactRun
}

// ScanRun reads the header and message ids of the run in r (ckpt/run@1
// or @2, JSON document or JSON Lines, gzip or not). It reports the
// errors of the framing and the header that ReadRun reports; an event's
// fields it does not check: the second pass does.
func ScanRun(name string, r io.Reader) (*RunHead, error) {
	return scanRun(name, r, false)
}

// ScanCompactRun is ScanRun for a memory estimate: nil when r holds no
// ckpt/run@2 (which puts its format before its events; its first event
// ends the pass) or cannot be read — the decoder reports why.
func ScanCompactRun(name string, r io.Reader) *RunHead {
	h, err := scanRun(name, r, true)
	if err != nil {
		return nil
	}
	return h
}

// errNotCompact ends ScanCompactRun's pass over a ckpt/run@1.
var errNotCompact = errors.New("not ckpt/run@2")

func scanRun(name string, r io.Reader, compactOnly bool) (*RunHead, error) {
	d, err := newRunDecoder(name, r, nil)
	if err != nil {
		return nil, err
	}
	d.scan = &RunHead{Run: d.run, compactOnly: compactOnly}
	if err := d.f.read(d, &d.procs); err != nil {
		return nil, err
	}
	if d.scan.Events == 0 {
		d.scan.Early = true
	}
	d.scan.Compact = d.f.seen == RunFormat2
	return d.scan, nil
}

// Stream reads the run in r, the file ScanRun read, as StreamRun does,
// but hands take the header with every message id at once: its first
// call (upto 0) comes before the first event when the processes come
// before it (Early), whatever the order of the other header fields. An
// event naming a message the first pass did not meet is an error (the
// file changed in between).
func (h *RunHead) Stream(r io.Reader, take func(run *trace.Run, upto int) int) (*trace.Run, error) {
	d, err := newRunDecoder(h.Run.Name, r, take)
	if err != nil {
		return nil, err
	}
	run := d.run
	run.Algorithm, run.Source, run.Options = h.Run.Algorithm, h.Run.Source, h.Run.Options
	run.Msgs = make([]string, 0, len(h.Run.Msgs))
	for _, id := range h.Run.Msgs {
		d.msgs.intern(&run.Msgs, []byte(id))
	}
	run.Events = make([]trace.RunEvent, 0, h.Events)
	d.hasAlg, d.frozen = true, true
	return d.decode()
}

// scanEvent reads what the first pass keeps of an event, and counts it.
func (d *runDecoder) scanEvent(f *frame) error {
	h := d.scan
	if h.compactOnly && f.seen != RunFormat2 {
		return errNotCompact
	}
	w := &d.w
	clearFields(w)
	if err := f.next(w); err != nil {
		return err // errRelayout too: the event is read again
	}
	if h.Events++; h.Events == 1 {
		h.Early = d.procs.listed
	}
	if b, err := stringField(f, "msg", w.Msg, &d.buf); err == nil && len(w.Msg) > 0 {
		d.message(b)
	}
	kind := trace.KindInvalid
	if b, err := stringField(f, "kind", w.Kind, &d.buf); err == nil {
		kind = trace.Parse[trace.Kind](string(b))
	}
	h.count(kind)
	if (len(w.VT) > 0 && w.VT[0] != 'n') || bytes.Contains(w.PB, []byte(`"vt"`)) {
		h.Vectors++
	}
	if len(w.Body) > 0 && w.Body[0] == '{' {
		b := &d.bd
		if split(w.Body, b) == nil {
			d.scanReceived(f, b.Received)
		}
	}
	return nil
}

// count tallies an event of kind k, and the copies in flight.
func (h *RunHead) count(k trace.Kind) {
	h.Count(k)
	switch k {
	case trace.Send:
		h.flight++
		h.InFlight = max(h.InFlight, h.flight)
	case trace.Recv, trace.Discard, trace.Unconsumed:
		h.flight = max(h.flight-1, 0)
	}
}

// scanReceived interns the message ids of a receipt list as the second
// pass does (received): [["m", inc], …], or ckpt/run@2's {"of": s,
// "keep": k, "add": [...]}, whose list is add, and counts what the
// latter copies.
func (d *runDecoder) scanReceived(f *frame, v []byte) {
	keep := int32(-1) // not by reference
	if len(v) > 0 && v[0] == '{' {
		lw := &d.lw
		if split(v, lw) != nil || len(lw.Keep) == 0 {
			return
		}
		keep, _ = intField(f, "body.received.keep", lw.Keep, 0)
		v = lw.Add
	}
	// An error is the second pass's to report.
	if add, _ := d.received(f, v); keep >= 0 && len(add) > 0 {
		d.scan.Copied += int64(keep) + int64(len(add))
	}
}
