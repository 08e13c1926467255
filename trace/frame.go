package trace

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strings"

	json "github.com/goccy/go-json"
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
	// listed reports whether the header listed the processes, which
	// JSON Lines needs before its first event.
	listed() bool
}

// frame reads the container shared by traces and runs (see
// docs/formats.md): gzip or not, a JSON document (the header object with
// its "events" array, read as a stream by goccy/go-json's Decoder) or
// JSON Lines (a header object without "events", then one event per
// line), told apart by content. It counts events and lines and turns
// every syntax or read problem into an *InputError naming the file, the
// event and, for JSON Lines and outside events, the line.
type frame struct {
	name   string
	format string // the wanted "format"
	c      container
	tap    *tap
	dec    *json.Decoder
	// at is where the text read next starts, for the walker if it fails.
	at  position
	raw json.RawMessage
	// n counts the events read: the index of the one being read.
	n         int
	hasFormat bool
	hasEvents bool
	// jsonl says the input is JSON Lines; lined that the event being
	// read is the text of a line (JSON Lines, or a document's event laid
	// out on a line of its own, see eventLines); line numbers it for JSON
	// Lines, and last says it ends the input. long is the line of a JSON
	// Lines event read by a stream decoder (see longLine).
	jsonl bool
	lined bool
	text  []byte
	line  int
	last  bool
	long  *lineReader
	fmt   []byte
}

// position is a place in a document where the walker can resume: the
// containers open there (innermost last: "{" the header, "{[" its
// events), whether the innermost has no member yet, and the event a
// problem there is reported at (-1: the header).
type position struct {
	off   int64
	stack string
	first bool
	event int
}

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

func newFrame(name, format string, in io.Reader) *frame {
	t := newTap(in)
	return &frame{name: name, format: format, tap: t, dec: json.NewDecoder(t)}
}

// read reads the whole input into c.
func (f *frame) read(c container) error {
	f.c = c
	if err := f.open(); err != nil {
		return err
	}
	if err := f.header(); err != nil {
		return err
	}
	if !f.hasFormat {
		return f.headerErr(`missing "format" (want %q)`, f.format)
	}
	if f.hasEvents {
		return f.end()
	}
	return f.lines()
}

func (f *frame) headerErr(format string, args ...any) error {
	return &InputError{File: f.name, Event: -1, Msg: fmt.Sprintf(format, args...)}
}

// eventErr reports a problem of the event being read.
func (f *frame) eventErr(format string, args ...any) error {
	line := 0
	if f.jsonl {
		line = f.line
	}
	return &InputError{File: f.name, Event: f.n, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// resumeAt records that the next read starts a member or element of the
// containers in stack.
func (f *frame) resumeAt(stack string, first bool, event int) {
	off := f.dec.InputOffset()
	f.at = position{off: off, stack: stack, first: first, event: event}
	f.tap.mark = off
}

// open reads the opening brace of the header.
func (f *frame) open() error {
	f.resumeAt("", true, -1)
	tok, err := f.dec.Token()
	if err == io.EOF && f.tap.rerr == nil {
		return f.headerErr("empty input: expected a %s JSON object", f.format)
	}
	if err != nil {
		// Text that starts like a JSON value is of the wrong type, even
		// if it does not go on as one.
		if c := f.firstByte(); strings.IndexByte(`{["-0123456789`, c) >= 0 {
			return f.headerErr("expected a JSON object, found %s", kindOf(c))
		}
		return f.malformed(err)
	}
	if tok != json.Delim('{') {
		return f.headerErr("expected a JSON object, found %s", tokenKind(tok))
	}
	return nil
}

// tokenKind names the JSON type of a token, for messages.
func tokenKind(tok json.Token) string {
	switch tok := tok.(type) {
	case json.Delim:
		return kindOf(byte(tok))
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return "a number"
}

// header reads the members of the header object; a document's events
// are read in place, as they come.
func (f *frame) header() error {
	for first := true; ; first = false {
		f.resumeAt("{", first, -1)
		if !f.dec.More() {
			break
		}
		tok, err := f.dec.Token()
		if err != nil {
			return f.malformed(err)
		}
		switch key, _ := tok.(string); key {
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
	if _, err := f.dec.Token(); err != nil {
		return f.malformed(err)
	}
	return nil
}

// value reads the value of the current header member as raw text, valid
// until the next read.
func (f *frame) value() (json.RawMessage, error) {
	f.raw = f.raw[:0]
	if err := f.dec.Decode(&f.raw); err != nil {
		return nil, f.malformed(err)
	}
	return f.raw, nil
}

// skip reads past the value of the current header member.
func (f *frame) skip() error {
	var none struct{}
	err := f.dec.Decode(&none)
	var te *json.UnmarshalTypeError
	if err != nil && !errors.As(err, &te) {
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
	if s := text(v, &f.fmt); string(s) != f.format {
		return f.headerErr(`"format" is %q, want %q`, s, f.format)
	}
	return nil
}

// events reads a document's "events" array, one event at a time.
func (f *frame) events() error {
	tok, err := f.dec.Token()
	if err != nil {
		return f.malformed(err)
	}
	if tok != json.Delim('[') {
		return f.headerErr(`"events" must be an array, not %s`, tokenKind(tok))
	}
	if f.hasEvents {
		return f.headerErr(`"events" given twice`)
	}
	f.hasEvents = true
	first, err := f.eventLines()
	if err != nil {
		return err
	}
	for ; ; first = false {
		f.resumeAt("{[", first, f.n)
		if !f.dec.More() {
			break
		}
		if err := f.c.event(f); err != nil {
			return err
		}
		f.n++
	}
	if _, err := f.dec.Token(); err != nil {
		return f.malformed(err)
	}
	return nil
}

// next decodes the event being read into w, a struct of json.RawMessage
// fields: from its line, or from the document's stream.
func (f *frame) next(w any) error {
	var err error
	if f.lined {
		err = json.Unmarshal(f.text, w)
	} else {
		err = f.dec.Decode(w)
	}
	switch {
	case err == nil:
		return nil
	case f.lined && !f.jsonl:
		return errRelayout
	}
	if oerr := f.object(); oerr != nil {
		return oerr
	}
	return f.malformed(err)
}

// object returns the error of an event that is not a JSON object: w is
// left empty by null, which is no error for encoding/json, so a decoder
// asks before reporting a missing field.
func (f *frame) object() error {
	if c := f.firstByte(); c != '{' && c != 0 && strings.IndexByte(`["tfn-0123456789`, c) >= 0 {
		return f.eventErr("an event must be a JSON object, not %s", kindOf(c))
	}
	return nil
}

// firstByte returns the first byte of the value being read (0 if none
// is known), after white space and the comma before an element.
func (f *frame) firstByte() byte {
	b := f.text
	if !f.lined {
		b, _ = f.tap.from(f.at.off)
	}
	comma := !f.lined && f.at.stack == "{[" && !f.at.first
	for _, c := range b {
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
		case c == ',' && comma:
			comma = false
		default:
			return c
		}
	}
	return 0
}
