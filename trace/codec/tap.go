package codec

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/ckpt-dev/ckpt/trace"

	"github.com/goccy/go-json/jsontext"
)

// tap sits between the input and the goccy/go-json Decoder of a JSON
// document. It keeps the text read since the last mark (the start of the
// member or event being read) and counts the lines of what it drops, so
// that the position of a syntax error can be given as a line; and it
// remembers the reader's error, which the decoder passes on without
// saying that it is one of reading rather than of JSON.
type tap struct {
	r io.Reader
	// win is the input from offset winOff to what has been read; nl
	// counts the newlines before winOff.
	win    []byte
	winOff int64
	nl     int
	// mark is the offset of the text a syntax error would be in: win
	// is dropped up to it. keep is false once nothing needs keeping
	// (JSON Lines after the header, which keeps lines of its own).
	mark int64
	keep bool
	rerr error
}

const (
	// maxKeep bounds the window: past it (a hostile value of a gigabyte)
	// only its last tailKeep bytes are kept, so the value costs the
	// decoder's buffer and not a second copy here. The text from the
	// mark is then lost, and the line of a syntax error in it counted
	// from the tail.
	maxKeep = 1 << 20
	// tailKeep covers what the decoder has read but not consumed (it
	// reads 512 bytes at a time), so the line of its position stays known.
	tailKeep = 8 << 10
)

func newTap(r io.Reader) *tap { return &tap{r: r, keep: true} }

func (t *tap) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if n > 0 && t.keep {
		t.add(p[:n])
	}
	if err != nil && err != io.EOF {
		t.rerr = err
	}
	return n, err
}

// add appends b to the window, first dropping what lies before the mark.
func (t *tap) add(b []byte) {
	if t.mark > t.winOff {
		t.drop(int(min(t.mark-t.winOff, int64(len(t.win)))))
	}
	t.win = append(t.win, b...)
	if len(t.win) > maxKeep {
		t.drop(len(t.win) - tailKeep)
	}
}

// drop forgets the first n bytes of the window, counting their lines.
func (t *tap) drop(n int) {
	t.nl += bytes.Count(t.win[:n], newline)
	m := copy(t.win, t.win[n:])
	t.win = t.win[:m]
	t.winOff += int64(n)
}

var newline = []byte{'\n'}

// lineAt returns the line (from 1) of the byte at offset off; an offset
// before the window counts as its start.
func (t *tap) lineAt(off int64) int {
	i := min(max(int(off-t.winOff), 0), len(t.win))
	return 1 + t.nl + bytes.Count(t.win[:i], newline)
}

// readError words a failure of the reader (I/O, corrupt or cut gzip), or
// returns "" for none.
func readError(err error) string {
	if err == nil || err == io.EOF {
		return ""
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, ErrTruncated) {
		return ErrTruncated.Error()
	}
	return "reading: " + err.Error()
}

// malformed turns err, a failure of goccy/go-json reading from f.at, into
// an *InputError: a failure of the reader if the tap saw one, else the
// syntax error in the library's words, at its line outside events and in
// JSON Lines.
func (f *frame) malformed(err error) error {
	if f.lined {
		return f.eventErr("%s", jsonProblem(err, !f.last))
	}
	if msg := readError(f.tap.rerr); msg != "" && !isSyntax(err) {
		return &trace.InputError{File: f.name, Event: f.at, Msg: msg}
	}
	line := 0
	switch {
	case f.jsonl:
		line = f.line
	case f.at < 0:
		off := f.tap.mark
		if se := (*jsontext.SyntacticError)(nil); errors.As(err, &se) {
			off = se.ByteOffset
		}
		line = f.tap.lineAt(off)
	}
	return &trace.InputError{File: f.name, Event: f.at, Line: line, Msg: jsonProblem(err, false)}
}

// isSyntax reports whether err is a fault of the text read, not the end
// of the input.
func isSyntax(err error) bool {
	var se *jsontext.SyntacticError
	return errors.As(err, &se) && !errors.Is(err, io.ErrUnexpectedEOF)
}

// jsonProblem words err, a failure of goccy/go-json, for a message: what
// the library found where ("invalid character '"' after object name
// (expecting ':')"), but for the end of the input, cut short (inLine:
// the end of a JSON Lines line that is not the last, or a second value
// on it) and a name given twice, which is well-formed JSON and worded in
// the file's terms.
func jsonProblem(err error, inLine bool) string {
	if d := duplicateName(err); d != "" {
		return d
	}
	var se *jsontext.SyntacticError
	msg := "invalid JSON"
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) && inLine:
		msg = "unexpected end of line (JSON Lines: one event per line)"
	case errors.Is(err, io.ErrUnexpectedEOF):
		msg = "unexpected end of input (truncated JSON?)"
	case errors.As(err, &se) && strings.Contains(se.Err.Error(), "after top-level value"):
		msg = "unexpected data after the event (JSON Lines: one event per line)"
	case se != nil:
		msg = clearer(se.Err.Error())
	case err != nil:
		msg = strings.TrimPrefix(strings.TrimPrefix(err.Error(), "json: "), "jsontext: ")
	}
	return "malformed JSON: " + msg
}

// clearer adds what the library's words leave out for the one fault
// that is easy to make and hard to see, a comma too many: it reports it
// at the comma, or, before an array's ']', as a ']' after an object's
// value.
func clearer(m string) string {
	switch {
	case strings.HasPrefix(m, "invalid character ']' after object value"):
		return "unexpected ']' (a comma too many before it, or no array open to close)"
	case m == "invalid character ',' at start of value":
		return m + " (a value missing, or a comma too many)"
	}
	return m
}

// duplicateName words the library's duplicate-name error, from its JSON
// pointer, in the file's terms (`"msg" is given twice`, `pb.f names P1
// twice`): a name given twice is refused, since which one counts would
// be a guess (the last, silently, before). It returns "" for any other
// error.
func duplicateName(err error) string {
	var se *jsontext.SyntacticError
	if !errors.As(err, &se) || !errors.Is(se.Err, jsontext.ErrDuplicateName) {
		return ""
	}
	name := se.JSONPointer.LastToken()
	var parts []string
	for tok := range se.JSONPointer.Parent().Tokens() {
		if _, err := strconv.Atoi(tok); tok != "" && err != nil { // array indexes: the event's place
			parts = append(parts, tok)
		}
	}
	if len(parts) == 0 {
		return strconv.Quote(name) + " is given twice"
	}
	return strings.Join(parts, ".") + " names " + name + " twice"
}
