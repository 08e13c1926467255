package codec

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"

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

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string. It escapes what JSON requires
// plus U+2028/U+2029, and replaces invalid UTF-8 with U+FFFD, so every
// string decodes back to itself. Unlike encoding/json it leaves <, > and &
// alone: traces and runs are read by people and tools, not embedded in
// HTML (the diagram escapes for itself), and a message id such as
// "a:1->b" should read as written.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
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
	b := append(tw.buf, `{"format":"`+TraceFormat+`","processes":`...)
	b = appendNames(b, h.Processes)
	if h.Params != (trace.Params{}) {
		b = append(b, `,"params":{`...)
		b = append(appendDelays(b, h.Params), '}')
	}
	tw.buf = b
	return tw, tw.header()
}

// appendNames appends names as an array of strings.
func appendNames(b []byte, names []string) []byte {
	b = append(b, '[')
	for i, p := range names {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, p)
	}
	return append(b, ']')
}

// appendDelays appends the members of the params that are set.
func appendDelays(b []byte, p trace.Params) []byte {
	sep := false
	for _, f := range []struct {
		key string
		v   trace.Time
	}{{"restart_delay", p.RestartDelay}, {"control_delay", p.ControlDelay}, {"default_delay", p.DefaultDelay}} {
		if f.v == 0 {
			continue
		}
		if sep {
			b = append(b, ',')
		}
		sep = true
		b = append(b, '"')
		b = append(b, f.key...)
		b = append(b, `":`...)
		b = f.v.AppendJSON(b)
	}
	return b
}

// WriteEvent writes ev. msg is the id of the message of a send or recv
// and label its label, "" for none (ev.Msg and ev.Label are not looked
// up: a streaming writer has no message or label table).
func (tw *TraceWriter) WriteEvent(ev *trace.Event, msg, label string) error {
	b := append(tw.event(), `{"t":`...)
	b = ev.T.AppendJSON(b)
	b = append(b, `,"p":`...)
	b = appendString(b, nameOf(tw.procs, ev.P))
	b = append(b, `,"kind":"`...)
	b = append(b, ev.Kind.String()...)
	b = append(b, '"')
	if ev.Kind == trace.Send {
		b = append(b, `,"to":`...)
		b = appendString(b, nameOf(tw.procs, ev.To))
	}
	if ev.Kind == trace.Send || ev.Kind == trace.Recv {
		b = append(b, `,"msg":`...)
		b = appendString(b, msg)
	}
	if ev.Kind == trace.Fail && ev.Down > 0 {
		b = append(b, `,"down":`...)
		b = ev.Down.AppendJSON(b)
	}
	if label != "" {
		b = append(b, `,"label":`...)
		b = appendString(b, label)
	}
	return tw.done(append(b, '}'))
}

// nameOf returns names[i], or a stand-in that says it is out of range.
func nameOf(names []string, i int32) string {
	if i >= 0 && int(i) < len(names) {
		return names[i]
	}
	return "?" + strconv.Itoa(int(i))
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
