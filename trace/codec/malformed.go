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
