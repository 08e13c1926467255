package codec

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"math"
	"strings"

	"github.com/ckpt-dev/ckpt/trace"
)

// errRelayout is what next returns for a document's event line that the
// library rejects: lines then hands it to the stream decoder, which
// reads it as part of the document and words what is wrong.
var errRelayout = errors.New("event not alone on its line")

// lines reads the events laid out one to a line: every event of JSON
// Lines (f.jsonl), whatever its length, blank lines skipped; and a
// document's events as writers lay them out, each by json.Unmarshal,
// which costs the library less than its stream decoder, with the commas
// between events checked here. At the first line of a document laid out
// otherwise — the end of the array, an event spread over lines or
// sharing one, anything the library rejects, a line longer than maxLine
// (a hostile value, which the stream decoder holds once) — it hands the
// rest of the document to a new stream decoder (resume), which reads and
// reports it as if it had read the whole document. (Without it,
// `validate` of a 10^6-event JSON document took 15–25% more CPU:
// interleaved rounds, December 2026.)
func (f *frame) lines() error {
	line, rest := f.rest()
	br := bufio.NewReaderSize(rest, 64<<10)
	first, comma, limit := true, false, maxLine
	if f.jsonl {
		limit = math.MaxInt
	}
	f.lined = true
	defer func() { f.lined = f.jsonl }()
	for ; ; line++ {
		text, long, rerr := f.readLine(br, limit)
		switch {
		case long:
			return f.resume(first, comma, text, br, line)
		case rerr != nil && rerr != io.EOF:
			return &trace.InputError{File: f.name, Event: f.n, Msg: readError(rerr)}
		case f.jsonl && blank(text) && rerr == io.EOF:
			return nil
		case f.jsonl && blank(text):
			continue
		case f.jsonl:
			f.text, f.line, f.last = text, line, rerr == io.EOF
			if err := f.c.event(f); err != nil || rerr == io.EOF {
				return err
			}
			f.n++
			continue
		}
		ev, lead, trail := splitLine(text)
		if len(ev) == 0 && !lead && !trail && rerr == nil {
			continue
		}
		if len(ev) == 0 || ev[0] != '{' || lead == (first || comma) || rerr == io.EOF {
			return f.resume(first, comma, text, br, line)
		}
		f.text = ev
		switch err := f.c.event(f); {
		case err == errRelayout:
			return f.resume(first, comma, text, br, line)
		case err != nil:
			return err
		}
		f.n++
		first, comma = false, trail
	}
}

// splitLine cuts a line of events into the event and the commas before
// and after it.
func splitLine(b []byte) (ev []byte, lead, trail bool) {
	ev = bytes.TrimSpace(b)
	if lead = len(ev) > 0 && ev[0] == ','; lead {
		ev = bytes.TrimSpace(ev[1:])
	}
	if trail = len(ev) > 0 && ev[len(ev)-1] == ','; trail {
		ev = bytes.TrimSpace(ev[:len(ev)-1])
	}
	return ev, lead, trail
}

// resume hands the rest of a document — text, the line being read, then
// br — to a new stream decoder, primed by a prefix that reopens the
// header object and its events array, with a stand-in for the events
// read, so that the grammar goes on as in the document; a comma already
// read is put back before text.
func (f *frame) resume(first, comma bool, text []byte, br io.Reader, line int) error {
	prefix := `{"":[`
	if !first {
		prefix += "0 " // a space: the stand-in is no part of what follows
	}
	if comma {
		prefix += ","
	}
	t := newTap(io.MultiReader(strings.NewReader(prefix), bytes.NewReader(bytes.Clone(text)), br))
	t.nl = line - 1
	f.stream(t)
	f.lined = false
	// The prefix reopens the containers, so a fault found while priming
	// is worded from the start.
	f.resumeAt(f.n, 0)
	for range 3 {
		if _, err := f.dec.ReadToken(); err != nil {
			return f.malformed(err)
		}
	}
	if !first {
		if err := f.dec.SkipValue(); err != nil {
			return f.malformed(err)
		}
	}
	return nil
}
