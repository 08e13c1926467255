package codec

import (
	"io"
	"strconv"

	"github.com/ckpt-dev/ckpt/trace"
)

// WriteRun writes run in the format opts chooses: the header of SPEC §6,
// then every event with the fields it sets, in a fixed key order. Absent
// fields (None numbers, zero enums, nil vectors, empty strings) are
// omitted, and "seq" is always the event's index.
func WriteRun(w io.Writer, run *trace.Run, opts WriteOptions) error {
	rw, err := NewRunWriter(w, run, opts)
	if err != nil {
		return err
	}
	if err := rw.Write(run, len(run.Events)); err != nil {
		return err
	}
	return rw.Close()
}

// RunWriter writes a run while it is made, the run counterpart of
// TraceWriter: the header first, then the events as they become final
// (replay.Options.Stream hands them over), so that a run of any length
// is written without being held whole. It reads each event's piggyback,
// vector and body when it writes the event, and nothing of it later.
type RunWriter struct {
	*output
	e runEncoder
}

// NewRunWriter writes the header of run — algorithm, processes, options,
// source; the events are not looked at — and returns a writer for its
// events. Close must be called to finish the document.
func NewRunWriter(w io.Writer, run *trace.Run, opts WriteOptions) (*RunWriter, error) {
	rw := &RunWriter{output: newOutput(w, opts), e: runEncoder{run: run}}
	format := RunFormat
	if opts.Compact {
		format = RunFormat2
		rw.e.c = newCompact(len(run.Processes))
	}
	b := append(rw.buf, `{"format":"`+format+`"`...)
	b = appendStr(b, "algorithm", run.Algorithm)
	b = appendNames(b, "processes", run.Processes)
	b = appendObject(b, "options", func(b []byte) []byte {
		b = appendDelays(b, run.Options.Params)
		return appendOptStr(appendOptStr(b, "variant", run.Options.Variant), "timing", run.Options.Timing)
	})
	rw.buf = appendOptStr(b, "source", run.Source)
	return rw, rw.header()
}

// Write writes run's events from the first not yet written up to upto
// (run is the run of the header, grown since).
func (rw *RunWriter) Write(run *trace.Run, upto int) error {
	rw.e.run = run
	for rw.n < upto {
		i := rw.n
		if err := rw.done(rw.e.event(rw.event(), i, &run.Events[i])); err != nil {
			return err
		}
	}
	return rw.err
}

// AppendRunEvent appends event i of run as a run file (ckpt/run@1)
// writes it, without the newline: the diagram's hover details show an
// event's fields under their run-format names this way.
func AppendRunEvent(b []byte, run *trace.Run, i int) []byte {
	e := runEncoder{run: run}
	return e.event(b, i, &run.Events[i])
}

// runEncoder writes events; c is the state of ckpt/run@2, nil for @1.
type runEncoder struct {
	run *trace.Run
	c   *compact
}

// event writes event i.
func (e *runEncoder) event(b []byte, i int, ev *trace.RunEvent) []byte {
	b = e.head(b, i, ev)
	b = e.tail(b, i, ev)
	if e.c != nil {
		e.c.chain.event(ev, vectorOf(e.run, ev))
	}
	return append(b, '}')
}

// head writes the fields of event i from seq to via.
func (e *runEncoder) head(b []byte, i int, ev *trace.RunEvent) []byte {
	procs := e.run.Processes
	b = appendHead(strconv.AppendInt(append(b, `{"seq":`...), int64(i), 10), `,"t":`, ev.T, nameOf(procs, ev.P), ev.Kind)
	if ev.Msg != trace.None {
		b = appendStr(b, "msg", nameOf(e.run.Msgs, ev.Msg))
	}
	if ev.Peer != trace.None {
		switch ev.Kind {
		case trace.Send, trace.ControlSend:
			b = appendStr(b, "to", nameOf(procs, ev.Peer))
		case trace.Recv, trace.ControlRecv:
			b = appendStr(b, "from", nameOf(procs, ev.Peer))
		}
	}
	b = appendOptInt(b, "op", ev.Op)
	if ev.Copy != 0 {
		b = appendInt(b, "copy", ev.Copy)
	}
	if ev.Resend {
		b = append(b, `,"resend":true`...)
	}
	if ev.Of != 0 {
		b = appendInt(b, "of", ev.Of)
	}
	return appendOptStr(b, "via", ev.Via.String())
}

// tail writes the fields of event i from pb to label.
func (e *runEncoder) tail(b []byte, i int, ev *trace.RunEvent) []byte {
	if pb := e.run.PB(ev); pb != nil {
		b = e.piggyback(b, ev.P, pb)
	}
	b = appendOptInt(b, "ckpt", ev.Ckpt)
	b = appendOptStr(b, "type", ev.CkptType.String())
	b = appendOptInt(b, "pos", ev.Pos)
	b = appendOptInt(b, "sn", ev.Sn)
	if vt := e.run.VTOf(ev); vt != nil {
		b = e.vt(appendKey(b, "vt"), ev.P, vt)
	}
	b = appendOptInt(b, "next", ev.Next)
	b = appendOptStr(b, "reason", ev.Reason.String())
	b = appendOptInt(b, "restore", ev.Restore)
	b = appendOptInt(b, "undone", ev.Undone)
	b = appendOptInt(b, "inc", ev.Inc)
	b = appendOptStr(b, "cause", ev.Cause.String())
	b = appendOptStr(b, "control", ev.Control.String())
	if body := e.run.Body(ev); body != nil {
		b = e.bodyAt(b, i, ev.Body, body)
	}
	b = appendOptStr(b, "state", ev.State.String())
	b = appendOptStr(b, "until", e.run.Until(ev))
	b = appendOptInt(b, "failure", ev.Failure)
	return appendOptStr(b, "label", e.run.Label(ev))
}

// piggyback writes pb as {sn, f, inc, rec_line, vt, lc, dv, ckpt, taken,
// greater}. "f" is written when the piggyback has one, and also for the
// plain MS shape (sn alone), where an empty vector is {} rather than
// absent.
func (e *runEncoder) piggyback(b []byte, p int32, pb *trace.Piggyback) []byte {
	return appendObject(b, "pb", func(b []byte) []byte {
		b = appendOptInt(b, "sn", pb.Sn)
		if pb.F != nil || (pb.Sn != trace.None && pb.Inc == trace.None && pb.RecLine == trace.None && pb.VT == nil && pb.CIC == nil) {
			b = appendObject(b, "f", func(b []byte) []byte {
				for _, f := range pb.F {
					b = appendString(append(b, ','), nameOf(e.run.Processes, f.P))
					b = strconv.AppendInt(append(b, ':'), int64(f.Count), 10)
				}
				return b
			})
		}
		b = appendOptInt(b, "inc", pb.Inc)
		b = appendOptInt(b, "rec_line", pb.RecLine)
		if pb.VT != nil {
			b = e.vt(appendKey(b, "vt"), p, pb.VT)
		}
		if pb.CIC != nil {
			b = appendCIC(b, pb.CIC)
		}
		return b
	})
}

// body writes a control body as {origin, count, r, inc, k, received}, at
// event seq.
func (e *runEncoder) body(b []byte, seq int, c *trace.ControlBody) []byte {
	return appendObject(b, "body", func(b []byte) []byte {
		if c.Origin != trace.None {
			b = appendStr(b, "origin", nameOf(e.run.Processes, c.Origin))
		}
		b = appendOptInt(b, "count", c.Count)
		b = appendOptInt(b, "r", c.R)
		b = appendOptInt(b, "inc", c.Inc)
		b = appendOptInt(b, "k", c.K)
		if ids := c.ReceivedList(); ids != nil {
			b = e.received(appendKey(b, "received"), seq, c.Origin, ids)
		}
		return b
	})
}

// appendCIC writes the fields of FDAS's and HMNR's vectors: "lc" a
// number, "dv" and "ckpt" arrays of numbers in process order, "taken"
// and "greater" strings of one '0' or '1' per process (docs/formats.md).
// Nil vectors are left out.
func appendCIC(b []byte, c *trace.CIC) []byte {
	b = appendOptInt(b, "lc", c.LC)
	if c.DV != nil {
		b = appendInts(appendKey(b, "dv"), c.DV...)
	}
	if c.Ckpt != nil {
		b = appendInts(appendKey(b, "ckpt"), c.Ckpt...)
	}
	for _, v := range [...]struct {
		key string
		v   []bool
	}{{"taken", c.Taken}, {"greater", c.Greater}} {
		if v.v != nil {
			b = append(appendKey(b, v.key), '"')
			for _, x := range v.v {
				c := byte('0')
				if x {
					c = '1'
				}
				b = append(b, c)
			}
			b = append(b, '"')
		}
	}
	return b
}

// AppendVT writes [[inc, count], ...], as a run file writes a vector
// time (the diagram writes it so too): most of a PK run's text, so
// written without a call per entry.
func AppendVT(b []byte, vt trace.VT) []byte {
	b = append(b, '[')
	for i, x := range vt {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(append(b, '['), int64(x.Inc), 10)
		b = append(strconv.AppendInt(append(b, ','), int64(x.Count), 10), ']')
	}
	return append(b, ']')
}
