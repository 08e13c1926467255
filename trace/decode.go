package trace

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
)

// openInput returns r decompressed when it starts with the gzip magic
// bytes; compression is detected from content, never from the name.
func openInput(r io.Reader) (io.Reader, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	magic, _ := br.Peek(2)
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("gzip: %w", err)
		}
		return zr, nil
	}
	return br, nil
}

// traceDecoder reads one trace through a scanner into an assembler.
type traceDecoder struct {
	s         *scanner
	a         *assembler
	key       []byte
	val       []byte
	ev        rawEvent
	format    []byte
	hasFormat bool
	hasEvents bool
}

// ReadTrace decodes and validates an execution trace (SPEC §2) from r: a
// JSON document or JSON Lines, either optionally gzip-compressed, told
// apart by content. name is used in messages ("-" for stdin). The input
// is read as a stream, one event at a time. Errors are *InputError.
func ReadTrace(name string, r io.Reader) (*Trace, error) {
	in, err := openInput(r)
	if err != nil {
		return nil, &InputError{File: name, Event: -1, Msg: err.Error()}
	}
	d := &traceDecoder{s: newScanner(in), a: newAssembler(name)}
	if n := eventsHint(r, in); n > 0 {
		d.a.reserve(n)
	}
	return d.decode()
}

// minEventBytes is about the shortest event line ckpt writes
// ({"t":1,"p":"P0","kind":"flush"} plus a separator).
const minEventBytes = 36

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
// minEventBytes, so memory stays linear in the input; 0 means no
// estimate.
func eventsHint(r, in io.Reader) int {
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
	n := size / minEventBytes
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
func ReadTraceFile(path string) (*Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadTrace(path, f)
}

// wrap turns a scanner error into an InputError at event i (-1: the
// header).
func (d *traceDecoder) wrap(err error, i int) error {
	var se *syntaxError
	if !errors.As(err, &se) {
		return err
	}
	line := se.line
	if (i >= 0 && !d.a.jsonl) || se.read {
		line = 0
	}
	return &InputError{File: d.a.tr.Name, Event: i, Line: line, Msg: se.describe()}
}

func (d *traceDecoder) decode() (*Trace, error) {
	s := d.s
	c, ok := s.next()
	if !ok {
		if err := s.eofError(); s.rerr != io.EOF {
			return nil, d.wrap(err, -1)
		}
		return nil, d.a.headerErr("empty input: expected a %s JSON object", TraceFormat)
	}
	if c != '{' {
		if err := s.checkValueStart(); err != nil {
			return nil, d.wrap(err, -1)
		}
		return nil, d.a.headerErr("expected a JSON object, found %s", kindOf(c))
	}
	if err := d.header(); err != nil {
		return nil, err
	}
	if err := d.checkFormat(); err != nil {
		return nil, err
	}
	if d.hasEvents {
		end, err := s.atEOF()
		if err != nil {
			return nil, d.wrap(err, -1)
		}
		if !end {
			return nil, &InputError{File: d.a.tr.Name, Event: -1, Line: s.line, Msg: "unexpected data after the JSON document"}
		}
		return d.a.finish()
	}
	// JSON Lines: the header had no events; every further value is one.
	d.a.jsonl = true
	if !d.a.hasProcs {
		return nil, d.a.headerErr(`missing "processes"`)
	}
	for {
		end, err := s.atEOF()
		if err != nil {
			return nil, d.wrap(err, len(d.a.tr.Events))
		}
		if end {
			return d.a.finish()
		}
		if err := d.event(); err != nil {
			return nil, err
		}
	}
}

func (d *traceDecoder) checkFormat() error {
	if !d.hasFormat {
		return d.a.headerErr(`missing "format" (want %q)`, TraceFormat)
	}
	if string(d.format) != TraceFormat {
		return d.a.headerErr(`"format" is %q, want %q`, d.format, TraceFormat)
	}
	return nil
}

// header reads the top-level object; a JSON document's events are read
// in place, as they come.
func (d *traceDecoder) header() error {
	s := d.s
	s.pos++
	for first := true; ; first = false {
		more, c, err := s.member(first, &d.key)
		if err != nil {
			return d.wrap(err, -1)
		}
		if !more {
			return nil
		}
		switch string(d.key) {
		case "format":
			if c != '"' {
				return d.a.headerErr(`"format" must be a string, not %s`, kindOf(c))
			}
			if d.format, err = s.str(d.format[:0]); err != nil {
				return d.wrap(err, -1)
			}
			d.hasFormat = true
			if string(d.format) != TraceFormat {
				return d.checkFormat()
			}
		case "processes":
			procs, err := d.readNames(c)
			if err != nil {
				return err
			}
			if err := d.a.setProcesses(procs); err != nil {
				return err
			}
		case "params":
			if err := d.params(c); err != nil {
				return err
			}
		case "events":
			if c != '[' {
				return d.a.headerErr(`"events" must be an array, not %s`, kindOf(c))
			}
			if d.hasEvents {
				return d.a.headerErr(`"events" given twice`)
			}
			d.hasEvents = true
			s.pos++
			for first := true; ; first = false {
				more, err := s.more(']', first)
				if err != nil {
					return d.wrap(err, len(d.a.tr.Events))
				}
				if !more {
					break
				}
				if err := d.event(); err != nil {
					return err
				}
			}
		default:
			if err := s.skip(0); err != nil {
				return d.wrap(err, -1)
			}
		}
	}
}

// readNames reads an array of strings.
func (d *traceDecoder) readNames(c byte) ([]string, error) {
	s := d.s
	if c != '[' {
		return nil, d.a.headerErr(`"processes" must be an array of strings, not %s`, kindOf(c))
	}
	s.pos++
	var names []string
	for first := true; ; first = false {
		more, err := s.more(']', first)
		if err != nil {
			return nil, d.wrap(err, -1)
		}
		if !more {
			return names, nil
		}
		c, err := s.peekType()
		if err != nil {
			return nil, d.wrap(err, -1)
		}
		if c != '"' {
			return nil, d.a.headerErr(`"processes" must be an array of strings, found %s`, kindOf(c))
		}
		if d.val, err = s.str(d.val[:0]); err != nil {
			return nil, d.wrap(err, -1)
		}
		names = append(names, string(d.val))
	}
}

func (d *traceDecoder) params(c byte) error {
	s := d.s
	if c != '{' {
		return d.a.headerErr(`"params" must be an object, not %s`, kindOf(c))
	}
	s.pos++
	for first := true; ; first = false {
		more, err := s.more('}', first)
		if err != nil {
			return d.wrap(err, -1)
		}
		if !more {
			return nil
		}
		if d.key, err = s.key(d.key); err != nil {
			return d.wrap(err, -1)
		}
		switch k := string(d.key); k {
		case "restart_delay", "control_delay", "default_delay":
			c, err := s.peekType()
			if err != nil {
				return d.wrap(err, -1)
			}
			if c != '-' && (c < '0' || c > '9') {
				return d.a.headerErr("params.%s must be a finite number > 0, not %s", k, kindOf(c))
			}
			t, ok, v, err := s.seconds()
			if err != nil {
				return d.wrap(err, -1)
			}
			if err := d.a.setParam(k, t, ok, v); err != nil {
				return err
			}
		default:
			if err := s.skip(0); err != nil {
				return d.wrap(err, -1)
			}
		}
	}
}

// event reads one event object and hands it to the assembler.
func (d *traceDecoder) event() error {
	s := d.s
	i := len(d.a.tr.Events)
	r := &d.ev
	r.reset()
	c, err := s.peekType()
	if err != nil {
		return d.wrap(err, i)
	}
	r.line = s.line
	if c != '{' {
		return d.a.errAt(i, r.line, "an event must be a JSON object, not %s", kindOf(c))
	}
	s.pos++
	for first := true; ; first = false {
		more, c, err := s.member(first, &d.key)
		if err != nil {
			return d.wrap(err, i)
		}
		if !more {
			break
		}
		var dst *[]byte
		var has, numOK *bool
		var num *Time
		var numf *float64
		switch string(d.key) {
		case "t":
			num, numf, numOK, has = &r.t, &r.tf, &r.tOK, &r.hasT
		case "down":
			num, numf, numOK, has = &r.down, &r.downf, &r.downOK, &r.hasDown
		case "kind":
			dst, has = &r.kind, &r.hasKind
		case "p":
			dst, has = &r.p, &r.hasP
		case "to":
			dst, has = &r.to, &r.hasTo
		case "msg":
			dst, has = &r.msg, &r.hasMsg
		case "label":
			dst = &r.label
		default:
			if err := s.skip(0); err != nil {
				return d.wrap(err, i)
			}
			continue
		}
		if num != nil {
			if c != '-' && (c < '0' || c > '9') {
				return d.a.errAt(i, r.line, "%q must be a number, not %s", d.key, kindOf(c))
			}
			if *num, *numOK, *numf, err = s.seconds(); err != nil {
				return d.wrap(err, i)
			}
		} else {
			if c != '"' {
				return d.a.errAt(i, r.line, "%q must be a string, not %s", d.key, kindOf(c))
			}
			if *dst, err = s.str((*dst)[:0]); err != nil {
				return d.wrap(err, i)
			}
		}
		if has != nil {
			*has = true
		}
	}
	return d.a.add(r)
}
