package codec

import (
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/ckpt-dev/ckpt/trace"

	"github.com/goccy/go-json/jsontext"
)

// malformed turns err, a failure of goccy/go-json reading from f.at, into
// an *InputError: a failure of the reader if the tap saw one, else the
// syntax error worded from the text the tap kept, at its line outside
// events and in JSON Lines.
func (f *frame) malformed(err error) error {
	if f.lined {
		return f.malformedLine(err)
	}
	if msg := readError(f.tap.rerr); msg != "" && !isSyntax(err) {
		return &trace.InputError{File: f.name, Event: f.at, Msg: msg}
	}
	off, werr := reword(err, f.tap.win, f.tap.winOff, int(f.tap.mark-f.tap.winOff), f.outer)
	line := 0
	switch {
	case f.jsonl:
		line = f.line
	case f.at < 0:
		line = f.tap.lineAt(off)
	}
	return &trace.InputError{File: f.name, Event: f.at, Line: line, Msg: jsonProblem(werr)}
}

// isSyntax reports whether err is a fault of the text read, not the end
// of the input.
func isSyntax(err error) bool {
	var se *jsontext.SyntacticError
	return errors.As(err, &se) && !errors.Is(err, io.ErrUnexpectedEOF)
}

// malformedLine words the syntax error of a JSON Lines event: its line
// holds exactly one value.
func (f *frame) malformedLine(err error) error {
	_, werr := reword(err, f.text, 0, 0, 0)
	if werr == errTruncated && !f.last {
		werr = errCutLine
	}
	return f.eventErr("%s", jsonProblem(werr))
}

var (
	// errTruncated is the end of the text in the middle of a value.
	errTruncated = errors.New("unexpected end of input (truncated JSON?)")
	errCutLine   = errors.New("unexpected end of line (JSON Lines: one event per line)")
	errTwoOnLine = errors.New("unexpected data after the event (JSON Lines: one event per line)")
)

// wellFormedJSON is a problem of JSON that is well formed but not
// acceptable (a name given twice): its message says so without calling
// the JSON malformed.
type wellFormedJSON string

func (e wellFormedJSON) Error() string { return string(e) }

// jsonProblem words err for a message: "malformed JSON: …" but for a
// wellFormedJSON problem.
func jsonProblem(err error) string {
	if _, ok := err.(wellFormedJSON); ok {
		return err.Error()
	}
	return "malformed JSON: " + err.Error()
}

// reword words err, a failure of goccy/go-json, as ckpt's messages
// always have: by what was expected and what was found ("expected ':',
// found '"'", `invalid number "01"`), where the library says where in its
// grammar it was, in words that differ between its versions. text is
// the input kept from offset base on; the value or member being read
// starts at text[start], inside the container outer ('{', '[' or 0 for
// none). It returns the offset of the byte at fault and the message.
func reword(err error, text []byte, base int64, start int, outer byte) (int64, error) {
	var se *jsontext.SyntacticError
	if !errors.As(err, &se) {
		return base, libraryError(err)
	}
	i := int(se.ByteOffset - base)
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		return se.ByteOffset, errTruncated
	case i < 0 || i >= len(text) || errors.Is(se.Err, jsontext.ErrDuplicateName):
		return se.ByteOffset, libraryError(err)
	}
	msg := se.Err.Error()
	// A fault inside a number or literal is the value's: back to its start.
	for i > start && (isNumByte(text[i-1]) || text[i-1] >= 'a' && text[i-1] <= 'z') &&
		(strings.Contains(msg, "in literal") || strings.Contains(msg, "in number") || isNumByte(text[i])) {
		i--
	}
	c, prev := text[i], lastByte(text[:i])
	if c == ',' && strings.Contains(msg, "start of value") && !strings.ContainsRune(":[{,", rune(prev)) && prev != 0 {
		// The comma ends a member or element: what follows is at fault.
		if i += 1 + len(text[i+1:]) - len(skipSpace(text[i+1:])); i == len(text) {
			return base + int64(i), errTruncated
		}
		c, prev = text[i], ','
	}
	at := base + int64(i)
	open := opener(text[min(start, i):i], outer)
	switch {
	case strings.Contains(msg, "max depth"):
		return at, errors.New("JSON nested too deeply")
	case strings.Contains(msg, "after top-level value"):
		return at, errTwoOnLine
	case strings.HasPrefix(msg, "invalid escape") && i+1 < len(text):
		if text[i+1] == 'u' {
			return at, errors.New(`invalid \u escape in string`)
		}
		return at, errors.New("invalid escape " + quoteByte(text[i+1]) + " in string")
	case strings.Contains(msg, "in string"):
		return at, errors.New("control character " + quoteByte(c) + " in string")
	case open == '{' && (prev == '{' || prev == ','):
		return at, errors.New("expected a string key, found " + quoteByte(c))
	case strings.Contains(msg, "after object name"):
		return at, errors.New("expected ':', found " + quoteByte(c))
	case prev == ':' || prev == '[' || prev == ',' || open == 0:
		if c == '-' || (c >= '0' && c <= '9') {
			return at, errors.New("invalid number " + strconv.Quote(number(text[i:])))
		}
		return at, notValue(c)
	case open == '{':
		return at, errors.New("expected ',' or '}', found " + quoteByte(c))
	}
	return at, errors.New("expected ',' or ']', found " + quoteByte(c))
}

// opener returns the innermost container open at the end of text, which
// starts inside outer.
func opener(text []byte, outer byte) byte {
	stack := []byte{outer}
	for j := 0; j < len(text); j++ {
		switch c := text[j]; c {
		case '"':
			for j++; j < len(text) && text[j] != '"'; j++ {
				if text[j] == '\\' {
					j++
				}
			}
		case '{', '[':
			stack = append(stack, c)
		case '}', ']':
			if len(stack) > 1 {
				stack = stack[:len(stack)-1]
			}
		}
	}
	return stack[len(stack)-1]
}

// notValue says that no JSON value starts with c.
func notValue(c byte) error {
	return errors.New("invalid character " + quoteByte(c) + " (not a JSON value)")
}

// lastByte returns the last byte of b before JSON's white space, or 0.
func lastByte(b []byte) byte {
	for j := len(b) - 1; j >= 0; j-- {
		if c := b[j]; c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return c
		}
	}
	return 0
}

// number returns the run of bytes that can be in a number that text
// starts with.
func number(text []byte) string {
	end := 0
	for end < len(text) && isNumByte(text[end]) {
		end++
	}
	return string(text[:end])
}

// libraryError words a fault in the library's terms (nil: none known).
func libraryError(err error) error {
	if err == nil {
		return errors.New("invalid JSON")
	}
	if d := duplicateName(err); d != "" {
		return wellFormedJSON(d)
	}
	return errors.New(strings.TrimPrefix(strings.TrimPrefix(err.Error(), "json: "), "jsontext: "))
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

func quoteByte(c byte) string {
	if c < 0x20 || c >= 0x7f {
		return "byte 0x" + strconv.FormatUint(uint64(c), 16)
	}
	return "'" + string(rune(c)) + "'"
}

func isNumByte(c byte) bool {
	return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}
