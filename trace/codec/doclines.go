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
	f.resumeAt(f.n)
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

// rest leaves the stream decoder: it returns the line it is at and the
// input after what it has consumed, of which the tap keeps nothing.
func (f *frame) rest() (line int, r io.Reader) {
	line = f.tap.lineAt(f.dec.InputOffset())
	f.tap.keep, f.tap.win = false, nil
	return line, io.MultiReader(bytes.NewReader(f.dec.UnreadBuffer()), f.tap)
}

// maxLine bounds the lines of a document read whole: PK tokens make
// lines of hundreds of kilobytes, and a longer line is a hostile value
// or a document on one line, which the stream decoder reads without
// holding it twice. (A variable for the tests of that path.)
var maxLine = 8 << 20

// readLine returns the next line, with its newline, valid until the next
// call; io.EOF comes with the last one (maybe empty). long says the line
// outgrew max: text is its start, the rest is still in br.
func (f *frame) readLine(br *bufio.Reader, max int) (text []byte, long bool, err error) {
	b, err := br.ReadSlice('\n')
	if err != bufio.ErrBufferFull {
		return b, false, err
	}
	f.whole = append(f.whole[:0], b...)
	for err == bufio.ErrBufferFull {
		if len(f.whole) >= max {
			return f.whole, true, nil
		}
		b, err = br.ReadSlice('\n')
		f.whole = append(f.whole, b...)
	}
	return f.whole, false, err
}

func blank(b []byte) bool { return len(skipSpace(b)) == 0 }

// skipSpace returns b after JSON's white space.
func skipSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\r' || b[0] == '\n') {
		b = b[1:]
	}
	return b
}

// end checks that only white space follows a document.
func (f *frame) end() error {
	line, rest := f.rest()
	var buf [4096]byte
	for {
		n, err := rest.Read(buf[:])
		for _, c := range buf[:n] {
			switch c {
			case '\n':
				line++
			case ' ', '\t', '\r':
			default:
				return &trace.InputError{File: f.name, Event: -1, Line: line, Msg: "unexpected data after the JSON document"}
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return &trace.InputError{File: f.name, Event: -1, Msg: readError(err)}
		}
	}
}
