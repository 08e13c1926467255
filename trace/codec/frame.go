package codec

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"unsafe"

	"github.com/ckpt-dev/ckpt/trace"

	"github.com/goccy/go-json/jsontext"
	jsonv2 "github.com/goccy/go-json/v2"
)

// container is what the decoder of one format (trace or run) gives the
// framing both share: the header fields other than "format" and
// "events", and the events.
type container interface {
	// field reads the value of the header field key through f.value or
	// f.skip.
	field(f *frame, key string) error
	// event reads the next event through f.next and keeps it.
	event(f *frame) error
}

// frame reads the container shared by traces and runs (see
// docs/formats.md): gzip or not, a JSON document (the header object with
// its "events" array) or JSON Lines (a header object without "events",
// then one event per line), told apart by content. goccy/go-json reads
// the JSON: its streaming jsontext.Decoder the structure, json/v2's
// Unmarshal each event into a struct of raw fields. frame counts events
// and lines and turns every syntax or read problem into an *InputError
// naming the file, the event and, for JSON Lines and outside events, the
// line.
type frame struct {
	name string
	// format is the "format" wanted (a run's may be RunFormat2 too),
	// seen the one read.
	format, seen string
	c            container
	tap          *tap
	dec          *jsontext.Decoder
	// at is the event a syntax error of the text read next is reported
	// at (-1: the header).
	at int
	// n counts the events read: the index of the one being read.
	n         int
	hasFormat bool
	hasEvents bool
	// jsonl says the input is JSON Lines; lined that the event being
	// read is the text of a line (JSON Lines, or a document's event laid
	// out on a line of its own, see lines); line numbers it for JSON
	// Lines, and last says it ends the input. whole holds a line longer
	// than the line reader's buffer.
	jsonl bool
	lined bool
	text  []byte
	line  int
	last  bool
	whole []byte
	buf   []byte
}

// jsonOpts: a name given twice is an error (duplicateName words it),
// invalid UTF-8 is read as U+FFFD.
var jsonOpts = jsonv2.JoinOptions(jsontext.AllowDuplicateNames(false), jsontext.AllowInvalidUTF8(true))

// unmarshal decodes the raw text of one JSON object into w, a struct of
// jsontext.Value fields: keys match exactly (json/v2's rule, where
// encoding/json's would read "T" as "t"), unknown ones are ignored.
func unmarshal(v []byte, w any) error { return jsonv2.Unmarshal(v, w, jsonOpts) }

// split empties w, a struct of jsontext.Value fields only, and decodes
// the raw text of one JSON object into it (see unmarshal).
func split[W any](v []byte, w *W) error {
	clearFields(w)
	return unmarshal(v, w)
}

// clearFields empties every field of w, a struct of jsontext.Value
// fields only, keeping their buffers: json/v2 leaves a field the text
// does not name as it was, and a field absent from the next object must
// not keep this one's value.
func clearFields[W any](w *W) {
	n := unsafe.Sizeof(*w) / unsafe.Sizeof(jsontext.Value(nil))
	fields := unsafe.Slice((*jsontext.Value)(unsafe.Pointer(w)), n)
	for i := range fields {
		fields[i] = fields[i][:0]
	}
}

// OpenInput returns r decompressed when it starts with the gzip magic
// bytes; compression is detected from content, never from the name.
// Every input ckpt reads goes through it: traces and runs here, and the
// logs and recordings import reads (cmd/import.go, record).
func OpenInput(r io.Reader) (io.Reader, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	magic, _ := br.Peek(2)
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("gzip: %w", err)
		}
		return cutGzip{zr}, nil
	}
	return br, nil
}

// cutGzip is a gzip stream whose end, cut short, reads as ErrTruncated:
// the gzip reader says only "unexpected EOF".
type cutGzip struct{ r io.Reader }

func (c cutGzip) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	if errors.Is(err, io.ErrUnexpectedEOF) {
		err = ErrTruncated
	}
	return n, err
}

// ErrTruncated is the read error of a gzip input cut short (OpenInput),
// in the words every reader reports it with.
var ErrTruncated = errors.New("truncated input (unexpected end of compressed data)")

func newFrame(name, format string, in io.Reader) *frame {
	f := &frame{name: name, format: format}
	f.stream(newTap(in))
	return f
}

// stream makes t the input of a new stream decoder.
func (f *frame) stream(t *tap) {
	f.tap, f.dec = t, jsontext.NewDecoder(t, jsonOpts)
}

// read reads the whole input into c, whose header's processes are
// procs: JSON Lines needs them before its first event.
func (f *frame) read(c container, procs *procNames) error {
	f.c = c
	if err := f.open(); err != nil {
		return err
	}
	if err := f.header(); err != nil {
		return err
	}
	if !f.hasFormat {
		return f.headerErr(`missing "format" (want %q)%s`, f.format, kindHint("", f.format))
	}
	var err error
	if f.hasEvents {
		err = f.end()
	} else if procs.listed {
		f.jsonl = true
		err = f.lines()
	}
	if err == nil && !procs.listed {
		err = f.headerErr(`missing "processes"`)
	}
	return err
}

// headerErr reports a problem of the header or of the document as a
// whole.
func (f *frame) headerErr(format string, args ...any) error {
	return &trace.InputError{File: f.name, Event: -1, Msg: fmt.Sprintf(format, args...)}
}

// eventErr reports a problem of the event being read.
func (f *frame) eventErr(format string, args ...any) error {
	line := 0
	if f.jsonl {
		line = f.line
	}
	return &trace.InputError{File: f.name, Event: f.n, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// resumeAt records that the next read starts a member or element of
// event (-1: the header): the tap keeps the text from there.
func (f *frame) resumeAt(event int) {
	f.at, f.tap.mark = event, f.dec.InputOffset()
}

// peek returns the kind of the next value, or the error of reading it.
func (f *frame) peek() (jsontext.Kind, error) {
	if k := f.dec.PeekKind(); k != 0 {
		return k, nil
	}
	_, err := f.dec.ReadToken()
	return 0, err
}

// more starts the next member or element of the innermost container,
// of event (see resumeAt): false, after reading its closing bracket, at
// its end.
func (f *frame) more(event int) (bool, error) {
	f.resumeAt(event)
	k, err := f.peek()
	if err == nil && (k == '}' || k == ']') {
		_, err = f.dec.ReadToken()
		if err == nil {
			return false, nil
		}
	}
	if err != nil {
		return false, f.malformed(err)
	}
	return true, nil
}

// open reads the opening brace of the header.
func (f *frame) open() error {
	f.resumeAt(-1)
	k, err := f.peek()
	switch {
	case err == io.EOF && f.tap.rerr == nil:
		return f.headerErr("empty input: expected a %s JSON object", f.format)
	case err != nil:
		return f.notJSON(err)
	case k == 't' || k == 'f' || k == 'n':
		// Only its first byte has been looked at: text that is not JSON
		// at all is malformed, not of the wrong type.
		if err := f.dec.SkipValue(); err != nil {
			return f.notJSON(err)
		}
	}
	if k != '{' {
		return f.headerErr("expected a JSON object, found %s%s", kindOf(byte(k)), kindHint("", f.format))
	}
	if _, err = f.dec.ReadToken(); err != nil {
		return f.malformed(err)
	}
	return nil
}

// header reads the members of the header object; a document's events
// are read in place, as they come.
func (f *frame) header() error {
	for {
		if more, err := f.more(-1); !more {
			return err
		}
		tok, err := f.dec.ReadToken()
		if err != nil {
			return f.malformed(err)
		}
		switch key := tok.String(); key {
		case "format":
			err = f.formatField()
		case "events":
			err = f.events()
		default:
			err = f.c.field(f, key)
		}
		if err != nil {
			return err
		}
	}
}

// value reads the value of the current header member as raw text, valid
// until the next read.
func (f *frame) value() ([]byte, error) {
	v, err := f.dec.ReadValue()
	if err != nil {
		return nil, f.malformed(err)
	}
	return v, nil
}

// skip reads past the value of the current header member, an array or
// object a token at a time.
func (f *frame) skip() error {
	if err := f.dec.SkipValue(); err != nil {
		return f.malformed(err)
	}
	return nil
}

func (f *frame) formatField() error {
	v, err := f.value()
	if err != nil {
		return err
	}
	if v[0] != '"' {
		return f.headerErr(`"format" must be a string, not %s`, kindOf(v[0]))
	}
	f.hasFormat = true
	s := text(v, &f.buf)
	if string(s) != f.format && (f.format != RunFormat || string(s) != RunFormat2) {
		return f.headerErr(`"format" is %q, want %q%s`, s, f.format, kindHint(string(s), f.format))
	}
	f.seen = string(s)
	return nil
}

// events reads a document's "events" array, one event at a time.
func (f *frame) events() error {
	k, err := f.peek()
	if err != nil {
		return f.malformed(err)
	}
	if k != '[' {
		return f.headerErr(`"events" must be an array, not %s`, kindOf(byte(k)))
	}
	if f.hasEvents {
		return f.headerErr(`"events" given twice`)
	}
	f.hasEvents = true
	if _, err := f.dec.ReadToken(); err != nil {
		return f.malformed(err)
	}
	if err := f.lines(); err != nil {
		return err
	}
	for {
		if more, err := f.more(f.n); !more {
			return err
		}
		if err := f.c.event(f); err != nil {
			return err
		}
		f.n++
	}
}

// next decodes the event being read into w, a struct of jsontext.Value
// fields: from its line, or from the document's stream.
func (f *frame) next(w any) error {
	if !f.lined {
		if k := f.dec.PeekKind(); k != '{' && k != 0 {
			return f.eventErr("an event must be a JSON object, not %s", kindOf(byte(k)))
		}
		if err := jsonv2.UnmarshalDecode(f.dec, w); err != nil {
			return f.malformed(err)
		}
		return nil
	}
	// A document's line starts with '{' (lines hands over no other).
	if t := skipSpace(f.text); len(t) > 0 && t[0] != '{' && kindOf(t[0]) != kindOf(0) {
		return f.eventErr("an event must be a JSON object, not %s", kindOf(t[0]))
	}
	err := unmarshal(f.text, w)
	switch {
	case err == nil:
		return nil
	case !f.jsonl:
		return errRelayout
	}
	return f.malformed(err)
}
