package codec

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/ckpt-dev/ckpt/trace"

	"github.com/goccy/go-json/jsontext"
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
	if o.err = o.bw.Flush(); o.err == nil && o.gz != nil {
		o.err = o.gz.Close()
	}
	if o.err != nil {
		return o.err
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

// The appenders both writers build their text with. A member is written
// with the comma before it; appendObject drops the one after its brace.

// appendString appends s as a JSON string, by goccy/go-json's rules:
// what JSON requires is escaped, invalid UTF-8 becomes U+FFFD (so every
// string decodes back to what a decoder read), and <, > and & are left
// alone: traces and runs are read by people and tools, not embedded in
// HTML (the diagram escapes for itself), and a message id such as
// "a:1->b" should read as written.
func appendString(b []byte, s string) []byte {
	b, _ = jsontext.AppendQuote(b, s) // the error only says that U+FFFD replaced something
	return b
}

// appendKey appends `,"key":`.
func appendKey(b []byte, key string) []byte {
	b = append(b, ',', '"')
	b = append(b, key...)
	return append(b, '"', ':')
}

func appendInt(b []byte, key string, v int32) []byte {
	return strconv.AppendInt(appendKey(b, key), int64(v), 10)
}

// appendOptInt appends the member unless v is None.
func appendOptInt(b []byte, key string, v int32) []byte {
	if v == trace.None {
		return b
	}
	return appendInt(b, key, v)
}

func appendStr(b []byte, key, s string) []byte { return appendString(appendKey(b, key), s) }

// appendOptStr appends the member unless s is "" (an enum's zero value
// is named "").
func appendOptStr(b []byte, key, s string) []byte {
	if s == "" {
		return b
	}
	return appendStr(b, key, s)
}

// appendObject appends the member key, an object whose members fill
// appends.
func appendObject(b []byte, key string, fill func([]byte) []byte) []byte {
	b = append(appendKey(b, key), '{')
	n := len(b)
	if b = fill(b); len(b) > n {
		b = append(b[:n], b[n+1:]...)
	}
	return append(b, '}')
}

// appendArray appends [elem(0), ..., elem(n-1)].
func appendArray(b []byte, n int, elem func(b []byte, i int) []byte) []byte {
	b = append(b, '[')
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		b = elem(b, i)
	}
	return append(b, ']')
}

// appendInts appends [v[0], ...].
func appendInts(b []byte, v ...int32) []byte {
	return appendArray(b, len(v), func(b []byte, i int) []byte { return strconv.AppendInt(b, int64(v[i]), 10) })
}

// appendNames appends the member key, an array of strings.
func appendNames(b []byte, key string, names []string) []byte {
	return appendArray(appendKey(b, key), len(names), func(b []byte, i int) []byte { return appendString(b, names[i]) })
}

// appendDelays appends the members of the params that are set.
func appendDelays(b []byte, p trace.Params) []byte {
	for _, f := range [...]struct {
		key string
		v   trace.Time
	}{{"restart_delay", p.RestartDelay}, {"control_delay", p.ControlDelay}, {"default_delay", p.DefaultDelay}} {
		if f.v != 0 {
			b = f.v.AppendJSON(appendKey(b, f.key))
		}
	}
	return b
}

// appendHead opens an event: start (`{"t":`, or a run's `{"seq":N,"t":`)
// then t, p and kind, the members every event has.
func appendHead(b []byte, start string, t trace.Time, p string, kind trace.Kind) []byte {
	b = t.AppendJSON(append(b, start...))
	return appendStr(appendStr(b, "p", p), "kind", kind.String())
}

// nameOf returns names[i], or a stand-in that says it is out of range.
func nameOf(names []string, i int32) string {
	if i >= 0 && int(i) < len(names) {
		return names[i]
	}
	return "?" + strconv.Itoa(int(i))
}
