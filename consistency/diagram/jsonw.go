package diagram

import (
	"strconv"
	"unicode/utf8"
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

// raw appends a JSON value written elsewhere.
func (w *jw) raw(v []byte) {
	w.sep()
	w.b = append(w.b, v...)
}

func (w *jw) str(s string) {
	const hex = "0123456789abcdef"
	w.b = append(w.b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				w.b = append(w.b, '\\', c)
			case c == '\n':
				w.b = append(w.b, '\\', 'n')
			case c < 0x20 || c == '<' || c == '>' || c == '&':
				w.b = append(w.b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				w.b = append(w.b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			w.b = append(w.b, "\\ufffd"...)
		case r == '\u2028' || r == '\u2029':
			w.b = append(w.b, "\\u202"...)
			w.b = append(w.b, hex[r&0xf])
		default:
			w.b = append(w.b, s[i:i+size]...)
		}
		i += size
	}
	w.b = append(w.b, '"')
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
