package codec

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"

	"github.com/ckpt-dev/ckpt/trace"
)

// WriteOptions choose the encoding of a written trace or run.
type WriteOptions struct {
	// JSONL writes JSON Lines: the header object alone on the first line,
	// then one event per line. Otherwise a JSON document is written, one
	// event per line inside "events".
	JSONL bool
	// Gzip compresses the output.
	Gzip bool
	// Compact writes a run as ckpt/run@2 (docs/formats.md): each vector
	// time as the entries that differ from the one the reader rebuilds,
	// a control body sent again, and a token's receipt list, by reference
	// to what the file said before. Traces ignore it.
	Compact bool
}

// output is what the writers share: the buffered, optionally
// compressed sink, and the container they write into it — the header,
// then one event a line, inside "events" or as JSON Lines.
type output struct {
	bw    *bufio.Writer
	gz    *gzip.Writer
	buf   []byte
	err   error
	jsonl bool
	// n is the number of events written.
	n int
}

func newOutput(w io.Writer, opts WriteOptions) *output {
	o := &output{buf: make([]byte, 0, 512), jsonl: opts.JSONL}
	if opts.Gzip {
		// BestSpeed: Go's level 1 is several times faster than the default
		// level for about a third more bytes; a run of 10^6 events spent
		// most of `replay -o run.json.gz` compressing (23 s against 4.8 s
		// uncompressed).
		o.gz, _ = gzip.NewWriterLevel(w, gzip.BestSpeed)
		w = o.gz
	}
	o.bw = bufio.NewWriterSize(w, 1<<16)
	return o
}

// header ends the header in buf and writes it.
func (o *output) header() error {
	if o.jsonl {
		o.buf = append(o.buf, "}\n"...)
	} else {
		o.buf = append(o.buf, `,"events":[`...)
	}
	return o.flushBuf()
}

// event returns buf ready for the text of the next event, which done
// takes back.
func (o *output) event() []byte {
	b := o.buf
	if !o.jsonl {
		if o.n > 0 {
			b = append(b, ',')
		}
		b = append(b, '\n')
	}
	o.n++
	return b
}

func (o *output) done(b []byte) error {
	if o.jsonl {
		b = append(b, '\n')
	}
	if o.buf = b; len(b) < 32<<10 {
		return o.err
	}
	return o.flushBuf()
}

// flushBuf writes the pending bytes of buf.
func (o *output) flushBuf() error {
	if o.err == nil {
		_, o.err = o.bw.Write(o.buf)
	}
	o.buf = o.buf[:0]
	return o.err
}

// Close finishes the document and flushes; it does not close the
// underlying writer.
func (o *output) Close() error {
	if !o.jsonl {
		o.buf = append(o.buf, "\n]}\n"...)
	}
	if err := o.flushBuf(); err != nil {
		return err
	}
	if err := o.bw.Flush(); err != nil {
		o.err = err
		return err
	}
	if o.gz != nil {
		if err := o.gz.Close(); err != nil {
			o.err = err
			return err
		}
	}
	o.err = errors.New("trace: writer closed")
	return nil
}

// TraceHeader is what a trace says before its events.
type TraceHeader struct {
	Processes []string
	Params    trace.Params
}

// TraceWriter writes a trace one event at a time, so a generator can
// produce traces of any length in constant memory. It checks nothing:
// write events that Validate would accept.
type TraceWriter struct {
	*output
	procs []string
}

// NewTraceWriter writes the header to w and returns a writer for the
// events. Close must be called to finish the document.
func NewTraceWriter(w io.Writer, h TraceHeader, opts WriteOptions) (*TraceWriter, error) {
	tw := &TraceWriter{output: newOutput(w, opts), procs: h.Processes}
	b := append(tw.buf, `{"format":"`+TraceFormat+`"`...)
	b = appendNames(b, "processes", h.Processes)
	if h.Params != (trace.Params{}) {
		b = appendObject(b, "params", func(b []byte) []byte { return appendDelays(b, h.Params) })
	}
	tw.buf = b
	return tw, tw.header()
}

// WriteEvent writes ev. msg is the id of the message of a send or recv
// and label its label, "" for none (ev.Msg and ev.Label are not looked
// up: a streaming writer has no message or label table).
func (tw *TraceWriter) WriteEvent(ev *trace.Event, msg, label string) error {
	b := appendHead(tw.event(), `{"t":`, ev.T, nameOf(tw.procs, ev.P), ev.Kind)
	if ev.Kind == trace.Send {
		b = appendStr(b, "to", nameOf(tw.procs, ev.To))
	}
	if ev.Kind == trace.Send || ev.Kind == trace.Recv {
		b = appendStr(b, "msg", msg)
	}
	if ev.Kind == trace.Fail && ev.Down > 0 {
		b = ev.Down.AppendJSON(appendKey(b, "down"))
	}
	return tw.done(append(appendOptStr(b, "label", label), '}'))
}

// WriteTrace writes tr in the format opts chooses. Output is
// deterministic: fixed key order, exact decimal times.
func WriteTrace(w io.Writer, tr *trace.Trace, opts WriteOptions) error {
	tw, err := NewTraceWriter(w, TraceHeader{Processes: tr.Processes, Params: tr.Params}, opts)
	if err != nil {
		return err
	}
	for i := range tr.Events {
		ev := &tr.Events[i]
		msg := ""
		if ev.Msg >= 0 {
			if int(ev.Msg) >= len(tr.Msgs) {
				return fmt.Errorf("trace: event %d: message index %d out of range", i, ev.Msg)
			}
			msg = tr.Msgs[ev.Msg]
		}
		if err := tw.WriteEvent(ev, msg, tr.Label(ev)); err != nil {
			return err
		}
	}
	return tw.Close()
}
