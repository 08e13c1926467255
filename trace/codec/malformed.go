package codec

import (
	"errors"
	"regexp"
	"strconv"
	"strings"

	"github.com/ckpt-dev/ckpt/trace"

	"github.com/goccy/go-json/jsontext"
)

// malformed turns err, a failure of goccy/go-json reading from f.at, into
// an *InputError: a failure of the reader if the tap saw one, else the
// first syntax error the walker finds from f.at, at its line outside
// events and in JSON Lines.
func (f *frame) malformed(err error) error {
	if f.lined {
		return f.malformedLine(err)
	}
	at := f.at
	w, ok := f.walkerAt(at.off)
	werr := errTruncated
	if ok {
		werr = w.walk(at.stack, at.first)
	}
	if msg := readError(f.tap.rerr); msg != "" && werr == errTruncated {
		return &trace.InputError{File: f.name, Event: at.event, Msg: msg}
	}
	switch {
	case werr == nil || (werr == errTruncated && !f.tap.drained()):
		// The walker finds no fault, or the text was not kept (a value
		// past maxKeep): the library words it.
		werr = libraryError(err)
	}
	line := 0
	switch {
	case f.jsonl:
		line = f.line
	case at.event < 0:
		line = f.tap.lineAt(at.off + int64(w.pos))
	}
	return &trace.InputError{File: f.name, Event: at.event, Line: line, Msg: jsonProblem(werr)}
}

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

// walkerAt returns a walker over the text kept from offset off on; ok is
// false if it was not kept.
func (f *frame) walkerAt(off int64) (w walker, ok bool) {
	b, ok := f.tap.from(off)
	return walker{b: b, refill: func() ([]byte, bool) {
		if !f.tap.more() {
			return nil, false
		}
		return f.tap.from(off)
	}}, ok
}

// malformedLine words the syntax error of a JSON Lines event: its line
// holds exactly one value.
func (f *frame) malformedLine(err error) error {
	w := walker{b: f.text}
	werr := w.value(0)
	if werr == nil {
		if _, more := w.next(); more {
			werr = errors.New("unexpected data after the event (JSON Lines: one event per line)")
		}
	}
	switch {
	case werr == errTruncated && !f.last:
		werr = errCutLine
	case werr == nil:
		werr = libraryError(err)
	}
	return f.eventErr("%s", jsonProblem(werr))
}

var errCutLine = errors.New("unexpected end of line (JSON Lines: one event per line)")

// libraryError words a fault the walker does not find (nil: none known)
// in the library's terms.
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

// walker re-reads text that goccy/go-json rejected and words its first
// syntax error as ckpt's messages always have: by what was expected and
// what was found ("expected ':', found '"'", `invalid number "01"`),
// where the library says where in the grammar it was, in words that
// differ between its versions and Go's. It checks syntax only, keeps
// nothing and runs only on the error path; pos locates the error for
// its line.
type walker struct {
	b   []byte
	pos int
	// refill returns the text again, from the same start, with more of
	// the input after it; false when there is no more.
	refill func() ([]byte, bool)
}

// errTruncated is the end of the text in the middle of a value; the
// caller words it (a cut file, or a JSON Lines event cut at its line).
var errTruncated = errors.New("unexpected end of input (truncated JSON?)")

// maxDepth bounds nesting as goccy/go-json does at ten times the depth:
// every depth the library accepts is accepted, and the walker, which
// recurses, stops well before.
const maxDepth = 1000

// fill reads more text; false at its end.
func (w *walker) fill() bool {
	if w.refill == nil {
		return false
	}
	b, ok := w.refill()
	if ok {
		w.b = b
	}
	return ok && len(b) > 0
}

// need makes n bytes after pos available if the text has them.
func (w *walker) need(n int) {
	for len(w.b)-w.pos < n && w.fill() {
	}
}

// next skips white space and returns the next byte without consuming it;
// ok is false at the end of the text.
func (w *walker) next() (c byte, ok bool) {
	for {
		for w.pos < len(w.b) {
			switch c = w.b[w.pos]; c {
			case ' ', '\t', '\r', '\n':
				w.pos++
			default:
				return c, true
			}
		}
		if !w.fill() {
			return 0, false
		}
	}
}

// walk checks the text as the rest of the containers in stack (the
// innermost last, "{" for the header object, "{[" for its events),
// where first says that the innermost has no member yet; an empty stack
// means one value.
func (w *walker) walk(stack string, first bool) error {
	if stack == "" {
		return w.value(0)
	}
	for d := len(stack); d > 0; d-- {
		if err := w.rest(stack[d-1], first, d); err != nil {
			return err
		}
		first = false
	}
	return nil
}

// rest checks the members or elements of an object or array whose
// opening bracket has been read, up to its closing one.
func (w *walker) rest(open byte, first bool, depth int) error {
	closing := byte(']')
	if open == '{' {
		closing = '}'
	}
	for ; ; first = false {
		c, ok := w.next()
		if !ok {
			return errTruncated
		}
		if c == closing {
			w.pos++
			return nil
		}
		if !first {
			if c != ',' {
				return errors.New("expected ',' or " + quoteByte(closing) + ", found " + quoteByte(c))
			}
			w.pos++
		}
		if open == '{' {
			if err := w.key(); err != nil {
				return err
			}
		}
		if err := w.value(depth); err != nil {
			return err
		}
	}
}

// key checks an object key and its colon.
func (w *walker) key() error {
	c, ok := w.next()
	if !ok {
		return errTruncated
	}
	if c != '"' {
		return errors.New("expected a string key, found " + quoteByte(c))
	}
	if err := w.str(); err != nil {
		return err
	}
	if c, ok = w.next(); !ok {
		return errTruncated
	}
	if c != ':' {
		return errors.New("expected ':', found " + quoteByte(c))
	}
	w.pos++
	return nil
}

// value checks one value of any type.
func (w *walker) value(depth int) error {
	if depth > maxDepth {
		return errors.New("JSON nested too deeply")
	}
	c, ok := w.next()
	if !ok {
		return errTruncated
	}
	switch {
	case c == '"':
		return w.str()
	case c == '{' || c == '[':
		w.pos++
		return w.rest(c, true, depth+1)
	case c == '-' || (c >= '0' && c <= '9'):
		return w.number()
	case c == 't' || c == 'f' || c == 'n':
		return w.literal()
	}
	return errors.New("invalid character " + quoteByte(c) + " (not a JSON value)")
}

// str checks a string; the next byte is its opening quote. Invalid
// UTF-8 is not an error: it is read as U+FFFD.
func (w *walker) str() error {
	w.pos++
	for {
		w.need(1)
		if w.pos >= len(w.b) {
			return errTruncated
		}
		switch c := w.b[w.pos]; {
		case c == '"':
			w.pos++
			return nil
		case c < 0x20:
			return errors.New("control character " + quoteByte(c) + " in string")
		case c == '\\':
			if err := w.escape(); err != nil {
				return err
			}
		default:
			w.pos++
		}
	}
}

func (w *walker) escape() error {
	w.need(6)
	if len(w.b)-w.pos < 2 {
		return errTruncated
	}
	c := w.b[w.pos+1]
	switch c {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		w.pos += 2
		return nil
	case 'u':
		if len(w.b)-w.pos < 6 || !isHex4(w.b[w.pos+2:w.pos+6]) {
			w.pos += 2
			return errors.New(`invalid \u escape in string`)
		}
		w.pos += 6
		return nil
	}
	w.pos += 2
	return errors.New("invalid escape " + quoteByte(c) + " in string")
}

func isHex4(b []byte) bool {
	_, err := strconv.ParseUint(string(b), 16, 16)
	return err == nil
}

// number checks a number: the run of bytes that can be in one must
// follow JSON's grammar.
func (w *walker) number() error {
	i := w.pos
	for {
		for i < len(w.b) && isNumByte(w.b[i]) {
			i++
		}
		if i < len(w.b) || !w.fill() {
			break
		}
	}
	b := w.b[w.pos:i]
	w.pos = i
	if !jsonNumber.Match(b) {
		return errors.New("invalid number " + strconv.Quote(string(b)))
	}
	return nil
}

// literal checks true, false or null.
func (w *walker) literal() error {
	w.need(5)
	rest := w.b[w.pos:]
	for _, lit := range [...]string{"true", "false", "null"} {
		if len(rest) >= len(lit) && string(rest[:len(lit)]) == lit {
			w.pos += len(lit)
			return nil
		}
	}
	if len(rest) < 4 {
		return errTruncated
	}
	return errors.New("invalid character " + quoteByte(rest[0]) + " (not a JSON value)")
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

// jsonNumber is the JSON number grammar, which is stricter than
// strconv's (no leading '+', no leading zeros, digits around '.').
var jsonNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)
