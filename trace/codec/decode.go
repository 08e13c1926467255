package codec

import (
	"bufio"
	"io"
	"os"

	"github.com/ckpt-dev/ckpt/trace"

	"github.com/goccy/go-json/jsontext"
)

// traceWire is an event as goccy/go-json splits it: the raw text of each
// field, empty when absent.
type traceWire struct {
	T     jsontext.Value `json:"t"`
	P     jsontext.Value `json:"p"`
	Kind  jsontext.Value `json:"kind"`
	To    jsontext.Value `json:"to"`
	Msg   jsontext.Value `json:"msg"`
	Down  jsontext.Value `json:"down"`
	Label jsontext.Value `json:"label"`
}

// ReadTrace decodes and validates an execution trace (SPEC §2) from r: a
// JSON document or JSON Lines, either optionally gzip-compressed, told
// apart by content. name is used in messages ("-" for stdin). The input
// is read as a stream, one event at a time. Errors are *InputError.
func ReadTrace(name string, r io.Reader) (*trace.Trace, error) {
	in, err := OpenInput(r)
	if err != nil {
		return nil, &trace.InputError{File: name, Event: -1, Msg: err.Error()}
	}
	a := newAssembler(name)
	if n := eventsHint(r, in, minEventBytes); n > 0 {
		a.reserve(n)
	}
	f := newFrame(name, TraceFormat, in)
	if err := f.read(a, &a.procs); err != nil {
		return nil, err
	}
	return a.finish()
}

// minEventBytes and minRunEventBytes are about the shortest event line
// ckpt writes in a trace ({"t":1,"p":"P0","kind":"flush"} plus a
// separator) and in a run ({"seq":1,"t":1,"p":"P0","kind":"resume"}).
const (
	minEventBytes    = 36
	minRunEventBytes = 44
)

// maxHint bounds the events reserved up front (3 GiB of Events); beyond,
// the slices grow as usual.
const maxHint = 1 << 26

// maxDeflateRatio bounds how much a deflate stream can expand (RFC 1951
// streams expand at most 1032:1).
const maxDeflateRatio = 1032

// eventsHint estimates an upper bound on the number of events from the
// input's size when it is known (files, and in-memory readers of plain
// text), so that the big slices are allocated once instead of growing
// through a dozen copies. For a gzip file the uncompressed size is read
// from the ISIZE trailer (the size mod 2^32, completed to at least the
// compressed size). The bound is at most the (uncompressed) input size
// divided by minBytes, so memory stays linear in the input; 0 means no
// estimate. The pages reserved beyond the events read are never
// touched: an overestimate costs address space, not memory. (Without
// it, `validate` of a 10^6-event trace took 40% more CPU and twice the
// memory: interleaved rounds, December 2026.)
func eventsHint(r, in io.Reader, minBytes int64) int {
	_, plain := in.(*bufio.Reader)
	var size int64
	switch v := r.(type) {
	case *os.File:
		st, err := v.Stat()
		if err != nil || !st.Mode().IsRegular() {
			return 0
		}
		size = st.Size()
		if !plain {
			size = gzipSize(v, size)
		} else if off, err := v.Seek(0, io.SeekCurrent); err == nil {
			size -= off
		}
	case interface{ Len() int }:
		if plain {
			size = int64(v.Len())
		}
	}
	return int(min(size/minBytes, maxHint))
}

// gzipSize returns the uncompressed size of a gzip stream of csize bytes
// read through ra from offset 0, from its ISIZE trailer, or 0 if unknown.
// ISIZE is the size mod 2^32; the estimate is the smallest size with that
// residue not below csize (text never shrinks under compression). For a
// multi-member file only the last member's size is known: the estimate is
// then low, and the slices grow as usual.
func gzipSize(ra io.ReaderAt, csize int64) int64 {
	if ra == nil || csize < 18 {
		return 0
	}
	var b [4]byte
	if _, err := ra.ReadAt(b[:], csize-4); err != nil {
		return 0
	}
	u := int64(b[0]) | int64(b[1])<<8 | int64(b[2])<<16 | int64(b[3])<<24
	for u < csize {
		u += 1 << 32
	}
	if u/maxDeflateRatio > csize {
		return 0
	}
	return u
}

// ReadTraceFile reads the trace in the named file.
func ReadTraceFile(path string) (*trace.Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadTrace(path, f)
}

// field reads a header field: "processes" and "params"; other keys are
// ignored.
func (a *assembler) field(f *frame, key string) error {
	switch key {
	case "processes":
		var err error
		a.tr.Processes, err = a.procs.read(f)
		return err
	case "params":
		_, err := f.delays("params", &a.tr.Params, func(field string, v float64) string { return badSeconds(field, v, true) })
		return err
	}
	return f.skip()
}

// event reads one event: first the JSON type of each field, in a fixed
// order, then what the fields say.
func (a *assembler) event(f *frame) error {
	w := &a.w
	clearFields(w)
	if err := f.next(w); err != nil {
		return err
	}
	for _, c := range [...]struct {
		key  string
		v    []byte
		kind byte
	}{{"t", w.T, '0'}, {"down", w.Down, '0'}, {"kind", w.Kind, '"'}, {"p", w.P, '"'}, {"to", w.To, '"'}, {"msg", w.Msg, '"'}, {"label", w.Label, '"'}} {
		if err := want(f, c.key, c.v, c.kind); err != nil {
			return err
		}
	}
	a.jsonl = f.jsonl
	return a.add(f)
}

// assembler builds a Trace one event at a time, as the frame hands the
// events over: it reads their fields, resolves their names (procNames,
// and msgTable for message ids) and applies the rules of SPEC §2 through
// Trace.CheckEvent, giving the line of a JSON Lines event in its errors.
type assembler struct {
	tr    *trace.Trace
	jsonl bool
	procs procNames
	msgs  msgTable
	w     traceWire
	// buf holds a string's text while it is read, when it has escapes.
	buf []byte
	// pendingLine remembers the line of a receive whose send has not
	// been seen yet, to report it if the send comes later.
	pendingLine map[int32]int
}

func newAssembler(name string) *assembler {
	return &assembler{tr: &trace.Trace{Name: name}, pendingLine: make(map[int32]int)}
}

// message interns a message id.
func (a *assembler) message(id []byte) int32 {
	idx, isNew := a.msgs.intern(&a.tr.Msgs, id)
	if isNew {
		a.tr.Messages = append(trace.Grow(a.tr.Messages), trace.Message{Send: trace.None, Recv: trace.None})
	}
	return idx
}

// reserve allocates room for n events (an upper bound from the input
// size), and for n/4 messages: a message takes a send and a receive,
// and ckpt's traces average about 53 bytes an event against the
// bound's 36, so n/4 leaves a margin. Beyond, the tables double. The
// intern table is sized for n/5 ids, what ckpt's traces have (0.19 n
// at 10^6 and 10^7 events): for n/8 it rehashed once at 10^6 (a
// sixth of the decode's interning), and its slots are touched
// throughout, so n/4 would double its memory at 10^7.
func (a *assembler) reserve(n int) {
	a.tr.Events = make([]trace.Event, 0, n)
	a.tr.Msgs = make([]string, 0, n/4)
	a.tr.Messages = make([]trace.Message, 0, n/4)
	a.msgs.reserve(n / 5)
}

// add appends the event in a.w, which f reads, and checks it.
func (a *assembler) add(f *frame) error {
	i, line := len(a.tr.Events), f.line
	ev, err := a.resolve(f)
	if err != nil {
		return err
	}
	a.tr.Events = append(trace.Grow(a.tr.Events), ev)
	if err := a.tr.CheckEvent(i, a.procs.names); err != nil {
		err.Line = line
		if err.Event != i {
			err.Line = a.pendingLine[ev.Msg] // a receipt before its send
		}
		if !a.jsonl {
			err.Line = 0
		}
		return err
	}
	if ev.Kind == trace.Recv && a.jsonl && a.tr.Messages[ev.Msg].Send == trace.None {
		a.pendingLine[ev.Msg] = line
	}
	return nil
}

// resolve reads the fields of the event f reads, whose JSON types are
// checked, as its kind needs them.
func (a *assembler) resolve(f *frame) (trace.Event, error) {
	w := &a.w
	var ev trace.Event
	if len(w.T) == 0 {
		return ev, f.eventErr(`missing "t"`)
	}
	t, ok, tf := seconds(w.T)
	if !ok {
		return ev, f.eventErr("%s", badSeconds(`"t"`, tf, false))
	}
	if len(w.Kind) == 0 {
		return ev, f.eventErr(`missing "kind"`)
	}
	name := text(w.Kind, &a.buf)
	kind := trace.Parse[trace.Kind](string(name))
	switch {
	case !kind.IsTraceKind() && kind.String() == string(name):
		// A run read as a trace: its "format" comes after its events.
		return ev, f.eventErr("kind %q is a run's event, not a trace's: if this is a ckpt run, check it with ckpt check", name)
	case !kind.IsTraceKind():
		return ev, f.eventErr("unknown kind %q", name)
	case len(w.P) == 0:
		return ev, f.eventErr(`missing "p"`)
	}
	p, err := a.procs.index(f, text(w.P, &a.buf), "")
	if err != nil {
		return ev, err
	}
	ev = trace.Event{T: t, Kind: kind, P: p, To: trace.None, Msg: trace.None}
	switch kind {
	case trace.Send:
		if len(w.To) == 0 {
			return ev, f.eventErr(`send without "to"`)
		}
		if ev.To, err = a.procs.index(f, text(w.To, &a.buf), ""); err != nil {
			return ev, err
		}
		fallthrough
	case trace.Recv:
		if len(w.Msg) == 0 {
			return ev, f.eventErr("%s without \"msg\"", kind)
		}
		ev.Msg = a.message(text(w.Msg, &a.buf))
	case trace.Fail:
		if len(w.Down) > 0 {
			down, ok, df := seconds(w.Down)
			if !ok || down <= 0 {
				return ev, f.eventErr("%s", badSeconds(`"down"`, df, true))
			}
			ev.Down = down
		}
	}
	if len(w.Label) > 0 {
		if b := text(w.Label, &a.buf); len(b) > 0 {
			ev.Label = a.label(b)
		}
	}
	return ev, nil
}

// finish resolves provisional process indexes and reports receives of
// messages that are never sent.
func (a *assembler) finish() (*trace.Trace, error) {
	tr := a.tr
	if !a.procs.known {
		re, err := a.procs.remap(tr.Name, tr.Processes)
		if err != nil {
			return nil, err
		}
		for i := range tr.Events {
			ev := &tr.Events[i]
			ev.P, ev.To = re(ev.P), re(ev.To)
		}
	}
	if err := tr.CheckSent(); err != nil {
		if a.jsonl {
			err.Line = a.pendingLine[tr.Events[err.Event].Msg]
		}
		return nil, err
	}
	if len(tr.Msgs) == 0 {
		// As without reserve: a trace without messages has nil tables.
		tr.Msgs, tr.Messages = nil, nil
	}
	return tr, nil
}

// label interns a decoded label as Trace.AddLabel does, without
// allocating when it repeats the last one.
func (a *assembler) label(b []byte) int32 {
	if n := len(a.tr.Labels); n > 1 && a.tr.Labels[n-1] == string(b) {
		return int32(n - 1)
	}
	return a.tr.AddLabel(string(b))
}
