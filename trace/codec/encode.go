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

// output is the buffered, optionally compressed sink the writers share.
type output struct {
	bw  *bufio.Writer
	gz  *gzip.Writer
	buf []byte
	err error
}

func newOutput(w io.Writer, gz bool) *output {
	o := &output{buf: make([]byte, 0, 512)}
	if gz {
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

// flushBuf writes the pending bytes of buf.
func (o *output) flushBuf() error {
	if o.err == nil {
		_, o.err = o.bw.Write(o.buf)
	}
	o.buf = o.buf[:0]
	return o.err
}

func (o *output) close() error {
	if o.err != nil {
		return o.err
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
	out   *output
	procs []string
	jsonl bool
	n     int
}

// NewTraceWriter writes the header to w and returns a writer for the
// events. Close must be called to finish the document.
func NewTraceWriter(w io.Writer, h TraceHeader, opts WriteOptions) (*TraceWriter, error) {
	tw := &TraceWriter{out: newOutput(w, opts.Gzip), procs: h.Processes, jsonl: opts.JSONL}
	b := append(tw.out.buf, `{"format":"`+TraceFormat+`","processes":[`...)
	for i, p := range h.Processes {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, p)
	}
	b = append(b, ']')
	b = appendParams(b, `,"params":{`, h.Params)
	if opts.JSONL {
		b = append(b, "}\n"...)
	} else {
		b = append(b, `,"events":[`...)
	}
	tw.out.buf = b
	return tw, tw.out.flushBuf()
}

// appendParams appends the set params as an object introduced by prefix,
// or nothing when none is set.
func appendParams(b []byte, prefix string, p trace.Params) []byte {
	if p == (trace.Params{}) {
		return b
	}
	b = append(b, prefix...)
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
		b = appendString(b, f.key)
		b = append(b, ':')
		b = f.v.AppendJSON(b)
	}
	return append(b, '}')
}

// WriteEvent writes ev. msg is the id of the message of a send or recv
// and label its label, "" for none (ev.Msg and ev.Label are not looked
// up: a streaming writer has no message or label table).
func (tw *TraceWriter) WriteEvent(ev *trace.Event, msg, label string) error {
	b := tw.out.buf
	if !tw.jsonl {
		if tw.n > 0 {
			b = append(b, ',')
		}
		b = append(b, '\n')
	}
	tw.n++
	b = append(b, `{"t":`...)
	b = ev.T.AppendJSON(b)
	b = append(b, `,"p":`...)
	b = appendString(b, tw.proc(ev.P))
	b = append(b, `,"kind":"`...)
	b = append(b, ev.Kind.String()...)
	b = append(b, '"')
	if ev.Kind == trace.Send {
		b = append(b, `,"to":`...)
		b = appendString(b, tw.proc(ev.To))
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
	b = append(b, '}')
	if tw.jsonl {
		b = append(b, '\n')
	}
	tw.out.buf = b
	if len(b) < 32<<10 {
		return tw.out.err
	}
	return tw.out.flushBuf()
}

func (tw *TraceWriter) proc(p int32) string {
	if p >= 0 && int(p) < len(tw.procs) {
		return tw.procs[p]
	}
	return "?" + strconv.Itoa(int(p))
}

// Close finishes the document and flushes; it does not close the
// underlying writer.
func (tw *TraceWriter) Close() error {
	if !tw.jsonl {
		tw.out.buf = append(tw.out.buf, "\n]}\n"...)
	}
	if err := tw.out.flushBuf(); err != nil {
		return err
	}
	return tw.out.close()
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
