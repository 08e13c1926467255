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
	b := append(rw.buf, `{"format":"`+format+`","algorithm":`...)
	b = appendString(b, run.Algorithm)
	b = append(b, `,"processes":`...)
	b = appendNames(b, run.Processes)
	b = append(b, `,"options":{`...)
	b = appendDelays(b, run.Options.Params)
	sep := run.Options.Params != (trace.Params{})
	for _, f := range [...]struct{ key, v string }{{"variant", run.Options.Variant}, {"timing", run.Options.Timing}} {
		if f.v == "" {
			continue
		}
		if sep {
			b = append(b, ',')
		}
		b = append(b, `"`+f.key+`":`...)
		b = appendString(b, f.v)
		sep = true
	}
	b = append(b, '}')
	if run.Source != "" {
		b = append(b, `,"source":`...)
		b = appendString(b, run.Source)
	}
	rw.buf = b
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

// runEncoder writes events; c is the state of ckpt/run@2, nil for @1.
type runEncoder struct {
	run *trace.Run
	c   *compact
}

func appendInt(b []byte, key string, v int32) []byte {
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	return strconv.AppendInt(b, int64(v), 10)
}

func appendOptInt(b []byte, key string, v int32) []byte {
	if v == trace.None {
		return b
	}
	return appendInt(b, key, v)
}

func appendKey(b []byte, key string) []byte {
	b = append(b, ',', '"')
	b = append(b, key...)
	return append(b, '"', ':')
}

func appendEnum(b []byte, key, name string) []byte {
	b = appendKey(b, key)
	b = append(b, '"')
	b = append(b, name...)
	return append(b, '"')
}

func appendVT(b []byte, vt trace.VT) []byte {
	b = append(b, '[')
	for i, x := range vt {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		b = strconv.AppendInt(b, int64(x.Inc), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(x.Count), 10)
		b = append(b, ']')
	}
	return append(b, ']')
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
	b = append(b, `{"seq":`...)
	b = strconv.AppendInt(b, int64(i), 10)
	b = append(b, `,"t":`...)
	b = ev.T.AppendJSON(b)
	b = append(b, `,"p":`...)
	b = appendString(b, nameOf(e.run.Processes, ev.P))
	b = appendEnum(b, "kind", ev.Kind.String())
	if ev.Msg != trace.None {
		b = appendKey(b, "msg")
		b = appendString(b, nameOf(e.run.Msgs, ev.Msg))
	}
	if ev.Peer != trace.None {
		switch ev.Kind {
		case trace.Send, trace.ControlSend:
			b = appendKey(b, "to")
			b = appendString(b, nameOf(e.run.Processes, ev.Peer))
		case trace.Recv, trace.ControlRecv:
			b = appendKey(b, "from")
			b = appendString(b, nameOf(e.run.Processes, ev.Peer))
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
	if ev.Via != trace.ViaNone {
		b = appendEnum(b, "via", ev.Via.String())
	}
	return b
}

// tail writes the fields of event i from pb to label.
func (e *runEncoder) tail(b []byte, i int, ev *trace.RunEvent) []byte {
	if pb := e.run.PB(ev); pb != nil {
		b = e.piggyback(b, ev.P, pb)
	}
	b = appendOptInt(b, "ckpt", ev.Ckpt)
	if ev.CkptType != trace.CkptNone {
		b = appendEnum(b, "type", ev.CkptType.String())
	}
	b = appendOptInt(b, "pos", ev.Pos)
	b = appendOptInt(b, "sn", ev.Sn)
	if vt := e.run.VTOf(ev); vt != nil {
		b = appendKey(b, "vt")
		b = e.vt(b, ev.P, vt)
	}
	b = appendOptInt(b, "next", ev.Next)
	if ev.Reason != trace.ReasonNone {
		b = appendEnum(b, "reason", ev.Reason.String())
	}
	b = appendOptInt(b, "restore", ev.Restore)
	b = appendOptInt(b, "undone", ev.Undone)
	b = appendOptInt(b, "inc", ev.Inc)
	if ev.Cause != trace.CauseNone {
		b = appendEnum(b, "cause", ev.Cause.String())
	}
	if ev.Control != trace.ControlNone {
		b = appendEnum(b, "control", ev.Control.String())
	}
	if body := e.run.Body(ev); body != nil {
		b = e.bodyAt(b, i, ev.Body, body)
	}
	if ev.State != trace.StateNone {
		b = appendEnum(b, "state", ev.State.String())
	}
	if until := e.run.Until(ev); until != "" {
		b = appendKey(b, "until")
		b = appendString(b, until)
	}
	b = appendOptInt(b, "failure", ev.Failure)
	if label := e.run.Label(ev); label != "" {
		b = appendKey(b, "label")
		b = appendString(b, label)
	}
	return b
}

// piggyback writes pb as {sn, f, inc, rec_line, vt, lc, dv, ckpt, taken,
// greater}. "f" is written when the piggyback has one, and also for the
// plain MS shape (sn alone), where an empty vector is {} rather than
// absent.
func (e *runEncoder) piggyback(b []byte, p int32, pb *trace.Piggyback) []byte {
	b = append(b, `,"pb":{`...)
	n := len(b)
	if pb.Sn != trace.None {
		b = appendInt(b, "sn", pb.Sn)
	}
	if pb.F != nil || (pb.Sn != trace.None && pb.Inc == trace.None && pb.RecLine == trace.None && pb.VT == nil && pb.CIC == nil) {
		b = appendKey(b, "f")
		b = append(b, '{')
		for i, f := range pb.F {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, nameOf(e.run.Processes, f.P))
			b = append(b, ':')
			b = strconv.AppendInt(b, int64(f.Count), 10)
		}
		b = append(b, '}')
	}
	b = appendOptInt(b, "inc", pb.Inc)
	b = appendOptInt(b, "rec_line", pb.RecLine)
	if pb.VT != nil {
		b = appendKey(b, "vt")
		b = e.vt(b, p, pb.VT)
	}
	if pb.CIC != nil {
		b = appendCIC(b, pb.CIC)
	}
	if len(b) > n {
		// Drop the comma the first field put after the brace.
		copy(b[n:], b[n+1:])
		b = b[:len(b)-1]
	}
	return append(b, '}')
}

// body writes a control body as {origin, count, r, inc, k, received}, at
// event seq.
func (e *runEncoder) body(b []byte, seq int, c *trace.ControlBody) []byte {
	b = append(b, `,"body":{`...)
	n := len(b)
	if c.Origin != trace.None {
		b = appendKey(b, "origin")
		b = appendString(b, nameOf(e.run.Processes, c.Origin))
	}
	b = appendOptInt(b, "count", c.Count)
	b = appendOptInt(b, "r", c.R)
	b = appendOptInt(b, "inc", c.Inc)
	b = appendOptInt(b, "k", c.K)
	if ids := c.ReceivedList(); ids != nil {
		b = appendKey(b, "received")
		b = e.received(b, seq, c.Origin, ids)
	}
	if len(b) > n {
		copy(b[n:], b[n+1:])
		b = b[:len(b)-1]
	}
	return append(b, '}')
}

// appendCIC writes the fields of FDAS's and HMNR's vectors: "lc" a
// number, "dv" and "ckpt" arrays of numbers in process order, "taken"
// and "greater" strings of one '0' or '1' per process (docs/formats.md).
// Nil vectors are left out.
func appendCIC(b []byte, c *trace.CIC) []byte {
	b = appendOptInt(b, "lc", c.LC)
	for _, v := range [...]struct {
		key string
		v   []int32
	}{{"dv", c.DV}, {"ckpt", c.Ckpt}} {
		if v.v == nil {
			continue
		}
		b = appendKey(b, v.key)
		b = append(b, '[')
		for i, x := range v.v {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(x), 10)
		}
		b = append(b, ']')
	}
	for _, v := range [...]struct {
		key string
		v   []bool
	}{{"taken", c.Taken}, {"greater", c.Greater}} {
		if v.v == nil {
			continue
		}
		b = appendKey(b, v.key)
		b = append(b, '"')
		for _, x := range v.v {
			if x {
				b = append(b, '1')
			} else {
				b = append(b, '0')
			}
		}
		b = append(b, '"')
	}
	return b
}
