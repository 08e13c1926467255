package diagram

import (
	"strconv"
	"unicode/utf8"

	"github.com/ckpt-dev/ckpt/trace"
)

// jw builds the page's JSON data in a byte slice. The data goes inside a
// <script> element, so besides JSON's own escapes it escapes <, > and &
// (no "</script>" or "<!--" can appear) and U+2028/U+2029; invalid UTF-8
// becomes U+FFFD.
type jw struct {
	b     []byte
	comma bool
}

func (w *jw) sep() {
	if w.comma {
		w.b = append(w.b, ',')
	}
	w.comma = true
}

func (w *jw) open(c byte)  { w.sep(); w.b = append(w.b, c); w.comma = false }
func (w *jw) close(c byte) { w.b = append(w.b, c); w.comma = true }

// key starts a member of an object.
func (w *jw) key(k string) {
	w.sep()
	w.str(k)
	w.b = append(w.b, ':')
	w.comma = false
}

func (w *jw) int(v int) {
	w.sep()
	w.b = strconv.AppendInt(w.b, int64(v), 10)
}

func (w *jw) bool(v bool) {
	w.sep()
	w.b = strconv.AppendBool(w.b, v)
}

func (w *jw) string(s string) {
	w.sep()
	w.str(s)
}

// bytes writes b as a JSON string, without copying it to a string first.
func (w *jw) bytes(b []byte) {
	w.sep()
	w.b = appendJSONString(w.b, b, utf8.DecodeRune)
}

// time writes a time as seconds, exactly.
func (w *jw) time(t trace.Time) {
	w.sep()
	w.b = t.AppendJSON(w.b)
}

func (w *jw) str(s string) { w.b = appendJSONString(w.b, s, utf8.DecodeRuneInString) }

// appendJSONString appends s quoted; decode is utf8's decoder for T, so
// neither kind of text is copied to the other.
func appendJSONString[T string | []byte](b []byte, s T, decode func(T) (rune, int)) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c < 0x20 || c == '<' || c == '>' || c == '&':
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := decode(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, "\\ufffd"...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, "\\u202"...)
			b = append(b, hex[r&0xf])
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

// ints writes a member holding an array of integers.
func (w *jw) ints(k string, vs []int32) {
	w.key(k)
	w.open('[')
	for _, v := range vs {
		w.int(int(v))
	}
	w.close(']')
}

func (w *jw) strs(k string, vs []string) {
	w.key(k)
	w.open('[')
	for _, v := range vs {
		w.string(v)
	}
	w.close(']')
}
