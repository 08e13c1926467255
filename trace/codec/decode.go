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
	in, err := openInput(r)
	if err != nil {
		return nil, &trace.InputError{File: name, Event: -1, Msg: err.Error()}
	}
	a := newAssembler(name)
	if n := eventsHint(r, in, minEventBytes); n > 0 {
		a.reserve(n)
	}
	f := newFrame(name, TraceFormat, in)
	if err := f.read(a); err != nil {
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
// input's size when it is known (files, in-memory readers), so that the
// big slices are allocated once instead of growing through a dozen
// copies. For gzip input the uncompressed size is read from the ISIZE
// trailer (the size mod 2^32, completed to at least the compressed size).
// The bound is at most the (uncompressed) input size divided by
// minBytes, so memory stays linear in the input; 0 means no estimate.
// The pages reserved beyond the events read are never touched: an
// overestimate costs address space, not memory. (Without it, `validate` of
// a 10^6-event trace took 40% more CPU and twice the memory: interleaved
// rounds, December 2026.)
func eventsHint(r, in io.Reader, minBytes int64) int {
	_, plain := in.(*bufio.Reader)
	var size int64
	var ra io.ReaderAt
	switch v := r.(type) {
	case *os.File:
		st, err := v.Stat()
		if err != nil || !st.Mode().IsRegular() {
			return 0
		}
		size, ra = st.Size(), v
		if plain {
			if off, err := v.Seek(0, io.SeekCurrent); err == nil {
				size -= off
			}
		}
	case interface {
		io.ReaderAt
		Size() int64
	}:
		size, ra = v.Size(), v
		if l, ok := r.(interface{ Len() int }); ok && plain {
			size = int64(l.Len())
		}
	case interface{ Len() int }:
		if !plain {
			return 0
		}
		size = int64(v.Len())
	}
	if !plain {
		size = gzipSize(ra, size)
	}
	n := size / minBytes
	if n > maxHint {
		n = maxHint
	}
	return int(n)
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

func (a *assembler) listed() bool { return a.procs.listed }

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
	w.T, w.P, w.Kind, w.To, w.Msg, w.Down, w.Label = w.T[:0], w.P[:0], w.Kind[:0], w.To[:0], w.Msg[:0], w.Down[:0], w.Label[:0]
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
