package trace

import (
	"errors"
	"io"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// scanner is a minimal streaming JSON tokenizer over its own buffer. The
// decoders drive it token by token, so a document is never held in memory
// whole, and it reads strings into caller-owned scratch slices and numbers
// straight from its buffer, so decoding an event allocates nothing. It
// counts lines for messages.
type scanner struct {
	r    io.Reader
	buf  []byte
	pos  int
	end  int
	line int
	// scratch holds the text of skipped strings and keys.
	scratch []byte
	// rerr is the reader's error once it has returned one (io.EOF at the
	// end of the input).
	rerr error
}

// syntaxError is a JSON syntax or read problem; decoders wrap it in an
// InputError with the event or line it happened at.
type syntaxError struct {
	msg  string
	line int
	// read marks a failure of the underlying reader (I/O, corrupt gzip)
	// rather than of the JSON.
	read bool
}

func (e *syntaxError) Error() string { return e.msg }

// describe words the error for an InputError.
func (e *syntaxError) describe() string {
	if e.read {
		return e.msg
	}
	return "malformed JSON: " + e.msg
}

const scanBufSize = 64 << 10

func newScanner(r io.Reader) *scanner {
	return &scanner{r: r, buf: make([]byte, scanBufSize), line: 1}
}

func (s *scanner) errorf(msg string) error {
	return &syntaxError{msg: msg, line: s.line}
}

// fill reads more input, keeping the unread bytes. It reports whether at
// least one new byte arrived.
func (s *scanner) fill() bool {
	if s.rerr != nil {
		return false
	}
	if s.pos > 0 {
		n := copy(s.buf, s.buf[s.pos:s.end])
		s.pos, s.end = 0, n
	}
	if s.end == len(s.buf) {
		s.buf = append(s.buf, make([]byte, len(s.buf))...)
	}
	for {
		n, err := s.r.Read(s.buf[s.end:])
		s.end += n
		if err != nil {
			s.rerr = err
			return n > 0
		}
		if n > 0 {
			return true
		}
	}
}

// eofError describes the end of input in the middle of a value.
func (s *scanner) eofError() error {
	if s.rerr != nil && s.rerr != io.EOF {
		msg := "reading: " + s.rerr.Error()
		if errors.Is(s.rerr, io.ErrUnexpectedEOF) {
			msg = "truncated input (unexpected end of compressed data)"
		}
		return &syntaxError{msg: msg, line: s.line, read: true}
	}
	return s.errorf("unexpected end of input (truncated JSON?)")
}

// next skips white space and returns the next byte without consuming it;
// ok is false at the end of the input.
func (s *scanner) next() (c byte, ok bool) {
	for {
		for s.pos < s.end {
			c = s.buf[s.pos]
			switch c {
			case ' ', '\t', '\r':
				s.pos++
			case '\n':
				s.pos++
				s.line++
			default:
				return c, true
			}
		}
		if !s.fill() {
			return 0, false
		}
	}
}

// atEOF reports whether only white space remains; a read error other than
// io.EOF is returned.
func (s *scanner) atEOF() (bool, error) {
	if _, ok := s.next(); ok {
		return false, nil
	}
	if s.rerr != io.EOF {
		return true, s.eofError()
	}
	return true, nil
}

// expect consumes c, after white space.
func (s *scanner) expect(c byte) error {
	got, ok := s.next()
	if !ok {
		return s.eofError()
	}
	if got != c {
		return s.errorf("expected " + quoteByte(c) + ", found " + quoteByte(got))
	}
	s.pos++
	return nil
}

func quoteByte(c byte) string {
	if c < 0x20 || c >= 0x7f {
		return "byte 0x" + strconv.FormatUint(uint64(c), 16)
	}
	return "'" + string(rune(c)) + "'"
}

// kindOf names the JSON type of a value starting with c, for messages.
func kindOf(c byte) string {
	switch {
	case c == '"':
		return "a string"
	case c == '{':
		return "an object"
	case c == '[':
		return "an array"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == 'n':
		return "null"
	case c == '-' || (c >= '0' && c <= '9'):
		return "a number"
	}
	return "invalid JSON"
}

// more is the Decoder.More of an object or array: after white space, it
// consumes a ',' between members and reports false at the closing
// bracket, which it consumes too. first is true before the first member.
func (s *scanner) more(closing byte, first bool) (bool, error) {
	c, ok := s.next()
	if !ok {
		return false, s.eofError()
	}
	if c == closing {
		s.pos++
		return false, nil
	}
	if first {
		return true, nil
	}
	if c != ',' {
		return false, s.errorf("expected ',' or " + quoteByte(closing) + ", found " + quoteByte(c))
	}
	s.pos++
	return true, nil
}

// member advances to the next member of an object whose '{' has been
// consumed: it reads the member's key into *key and peeks at the type of
// its value. more is false at the closing '}'. Every object the decoders
// read walks its members this way.
func (s *scanner) member(first bool, key *[]byte) (more bool, c byte, err error) {
	if more, err = s.more('}', first); err != nil || !more {
		return false, 0, err
	}
	if *key, err = s.key(*key); err != nil {
		return false, 0, err
	}
	if c, err = s.peekType(); err != nil {
		return false, 0, err
	}
	return true, c, nil
}

// key reads an object key and its colon into dst.
func (s *scanner) key(dst []byte) ([]byte, error) {
	c, ok := s.next()
	if !ok {
		return dst, s.eofError()
	}
	if c != '"' {
		return dst, s.errorf("expected a string key, found " + quoteByte(c))
	}
	dst, err := s.str(dst[:0])
	if err != nil {
		return dst, err
	}
	return dst, s.expect(':')
}

// peekType returns the first byte of the next value, after white space,
// or a syntax error if no JSON value can start there.
func (s *scanner) peekType() (byte, error) {
	c, ok := s.next()
	if !ok {
		return 0, s.eofError()
	}
	switch {
	case c == '{' || c == '[' || c == '"' || c == '-' || (c >= '0' && c <= '9') || c == 't' || c == 'f' || c == 'n':
		return c, nil
	}
	return 0, s.errorf("invalid character " + quoteByte(c) + " (not a JSON value)")
}

// str reads a string value, unescaped, appending it to dst. The next
// byte must be the opening quote. Invalid UTF-8 becomes U+FFFD, as
// encoding/json does, so everything decoded encodes back unchanged.
func (s *scanner) str(dst []byte) ([]byte, error) {
	s.pos++ // opening quote
	for {
		if s.pos >= s.end && !s.fill() {
			return dst, s.eofError()
		}
		// Fast path: a run of plain ASCII.
		start := s.pos
		for s.pos < s.end {
			c := s.buf[s.pos]
			if c == '"' || c == '\\' || c < 0x20 || c >= 0x80 {
				break
			}
			s.pos++
		}
		dst = append(dst, s.buf[start:s.pos]...)
		if s.pos >= s.end {
			continue
		}
		c := s.buf[s.pos]
		switch {
		case c == '"':
			s.pos++
			return dst, nil
		case c < 0x20:
			return dst, s.errorf("control character " + quoteByte(c) + " in string")
		case c >= 0x80:
			if s.end-s.pos < utf8.UTFMax {
				s.fill()
			}
			r, size := utf8.DecodeRune(s.buf[s.pos:s.end])
			if r == utf8.RuneError && size <= 1 {
				dst = utf8.AppendRune(dst, utf8.RuneError)
				s.pos++
			} else {
				dst = append(dst, s.buf[s.pos:s.pos+size]...)
				s.pos += size
			}
		default: // backslash
			var err error
			if dst, err = s.escape(dst); err != nil {
				return dst, err
			}
		}
	}
}

func (s *scanner) escape(dst []byte) ([]byte, error) {
	if s.end-s.pos < 12 {
		s.fill()
	}
	if s.end-s.pos < 2 {
		return dst, s.eofError()
	}
	c := s.buf[s.pos+1]
	s.pos += 2
	switch c {
	case '"', '\\', '/':
		return append(dst, c), nil
	case 'b':
		return append(dst, '\b'), nil
	case 'f':
		return append(dst, '\f'), nil
	case 'n':
		return append(dst, '\n'), nil
	case 'r':
		return append(dst, '\r'), nil
	case 't':
		return append(dst, '\t'), nil
	case 'u':
		r, ok := s.hex4()
		if !ok {
			return dst, s.errorf(`invalid \u escape in string`)
		}
		if utf16.IsSurrogate(r) {
			r2 := utf8.RuneError
			if s.end-s.pos >= 6 && s.buf[s.pos] == '\\' && s.buf[s.pos+1] == 'u' {
				save := s.pos
				s.pos += 2
				if lo, ok := s.hex4(); ok {
					if dec := utf16.DecodeRune(r, lo); dec != utf8.RuneError {
						r2 = dec
					} else {
						s.pos = save
					}
				} else {
					s.pos = save
				}
			}
			r = r2
		}
		return utf8.AppendRune(dst, r), nil
	}
	return dst, s.errorf("invalid escape " + quoteByte(c) + " in string")
}

func (s *scanner) hex4() (rune, bool) {
	if s.end-s.pos < 4 {
		return 0, false
	}
	var r rune
	for _, c := range s.buf[s.pos : s.pos+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	s.pos += 4
	return r, true
}

// numberBytes consumes a JSON number and returns its text, valid until
// the next read. The next byte must start the number.
func (s *scanner) numberBytes() ([]byte, error) {
	for {
		i := s.pos
		for i < s.end && isNumByte(s.buf[i]) {
			i++
		}
		if i < s.end || s.rerr != nil {
			b := s.buf[s.pos:i]
			s.pos = i
			if !validNumber(b) {
				return nil, s.errorf("invalid number " + strconv.Quote(string(b)))
			}
			return b, nil
		}
		s.fill()
	}
}

func isNumByte(c byte) bool {
	return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// validNumber checks the JSON number grammar, which is stricter than
// strconv's (no leading '+', no leading zeros, digits around '.').
func validNumber(b []byte) bool {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	if i >= len(b) {
		return false
	}
	if b[i] == '0' {
		i++
	} else if b[i] >= '1' && b[i] <= '9' {
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	} else {
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		j := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == j {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == j {
			return false
		}
	}
	return i == len(b)
}

// int reads a number value that must be an integer fitting in int32.
// ok is false (with a nil error) when the number is valid JSON but not
// such an integer.
func (s *scanner) int() (v int64, ok bool, err error) {
	b, err := s.numberBytes()
	if err != nil {
		return 0, false, err
	}
	v, perr := strconv.ParseInt(string(b), 10, 32)
	if perr != nil {
		return 0, false, nil
	}
	return v, true, nil
}

// literal consumes true, false or null.
func (s *scanner) literal() (byte, error) {
	for s.end-s.pos < 5 && s.fill() {
	}
	rest := s.buf[s.pos:s.end]
	switch {
	case len(rest) >= 4 && string(rest[:4]) == "true":
		s.pos += 4
		return 't', nil
	case len(rest) >= 5 && string(rest[:5]) == "false":
		s.pos += 5
		return 'f', nil
	case len(rest) >= 4 && string(rest[:4]) == "null":
		s.pos += 4
		return 'n', nil
	}
	if len(rest) < 4 && s.rerr != nil {
		return 0, s.eofError()
	}
	return 0, s.errorf("invalid character " + quoteByte(rest[0]) + " (not a JSON value)")
}

// skip consumes one value of any type, checking its syntax. Depth is
// bounded so hostile input cannot exhaust the stack.
func (s *scanner) skip(depth int) error {
	if depth > 1000 {
		return s.errorf("JSON nested too deeply")
	}
	c, ok := s.next()
	if !ok {
		return s.eofError()
	}
	switch {
	case c == '"':
		var err error
		s.scratch, err = s.str(s.scratch[:0])
		return err
	case c == '{':
		s.pos++
		for first := true; ; first = false {
			more, err := s.more('}', first)
			if err != nil || !more {
				return err
			}
			if s.scratch, err = s.key(s.scratch[:0]); err != nil {
				return err
			}
			if err := s.skip(depth + 1); err != nil {
				return err
			}
		}
	case c == '[':
		s.pos++
		for first := true; ; first = false {
			more, err := s.more(']', first)
			if err != nil || !more {
				return err
			}
			if err := s.skip(depth + 1); err != nil {
				return err
			}
		}
	case c == '-' || (c >= '0' && c <= '9'):
		_, err := s.numberBytes()
		return err
	default:
		_, err := s.literal()
		return err
	}
}

// seconds reads a number of seconds as a Time. A plain decimal with at
// most nine fractional digits converts exactly, digit by digit, so every
// Time written by AppendJSON reads back unchanged whatever its size;
// anything else (exponents, more digits) goes through float64 and is
// rounded once. ok is false for values FromSeconds rejects; f is the
// value for messages.
func (s *scanner) seconds() (t Time, ok bool, f float64, err error) {
	b, err := s.numberBytes()
	if err != nil {
		return 0, false, 0, err
	}
	if t, ok := exactSeconds(b); ok {
		return t, true, 0, nil
	}
	f, perr := strconv.ParseFloat(string(b), 64)
	if perr != nil && !errors.Is(perr, strconv.ErrRange) {
		return 0, false, 0, s.errorf("invalid number " + strconv.Quote(string(b)))
	}
	t, ok = FromSeconds(f)
	return t, ok, f, nil
}

// exactSeconds converts "123" or "123.456" (at most 9 fractional digits,
// no sign or exponent) to nanoseconds without rounding.
func exactSeconds(b []byte) (Time, bool) {
	var whole, frac int64
	i := 0
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		if i >= 11 {
			return 0, false
		}
		whole = whole*10 + int64(b[i]-'0')
	}
	if i == 0 {
		return 0, false
	}
	scale := int64(Second)
	if i < len(b) {
		if b[i] != '.' {
			return 0, false
		}
		i++
		if len(b)-i > 9 || len(b)-i == 0 {
			return 0, false
		}
		for ; i < len(b); i++ {
			c := b[i]
			if c < '0' || c > '9' {
				return 0, false
			}
			scale /= 10
			frac += int64(c-'0') * scale
		}
	}
	t := Time(whole)*Second + Time(frac)
	if t > MaxTime {
		return 0, false
	}
	return t, true
}

// checkValueStart returns a syntax error if the next value does not even
// start like JSON (text that is not JSON at all), so that such input is
// called malformed rather than of the wrong type.
func (s *scanner) checkValueStart() error {
	c, ok := s.next()
	if !ok {
		return s.eofError()
	}
	switch {
	case c == '{' || c == '[' || c == '"' || c == '-' || (c >= '0' && c <= '9'):
		return nil
	}
	_, err := s.literal()
	return err
}
