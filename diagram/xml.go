package diagram

import (
	"strconv"
	"unicode/utf8"
)

// xw builds markup in a byte slice. Escaping is done here, once, for text
// and attributes alike, so free text from a run (labels, message ids,
// process names) can never break the document.
type xw struct{ b []byte }

func (w *xw) raw(s string) { w.b = append(w.b, s...) }

// esc appends s escaped for XML text or a double-quoted attribute.
// Characters XML 1.0 forbids, and invalid UTF-8, become U+FFFD: a label
// with a NUL byte must still give a well-formed SVG.
func (w *xw) esc(s string) {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '&':
			w.b = append(w.b, "&amp;"...)
		case r == '<':
			w.b = append(w.b, "&lt;"...)
		case r == '>':
			w.b = append(w.b, "&gt;"...)
		case r == '"':
			w.b = append(w.b, "&quot;"...)
		case r == '\'':
			w.b = append(w.b, "&#39;"...)
		case r == '\n':
			w.b = append(w.b, "&#10;"...)
		case r == '\t' || r == '\r':
			w.b = append(w.b, ' ')
		case r == utf8.RuneError && size == 1, r < 0x20, r == 0xFFFE, r == 0xFFFF,
			r >= 0xD800 && r <= 0xDFFF:
			w.b = append(w.b, "\uFFFD"...)
		default:
			w.b = append(w.b, s[i:i+size]...)
		}
		i += size
	}
}

func (w *xw) escBytes(b []byte) { w.esc(string(b)) }

// attr appends ` name="value"`.
func (w *xw) attr(name, value string) {
	w.b = append(w.b, ' ')
	w.b = append(w.b, name...)
	w.b = append(w.b, `="`...)
	w.esc(value)
	w.b = append(w.b, '"')
}

// num appends ` name="v"` with v rounded to 0.1 px: enough for a
// drawing, and short.
func (w *xw) num(name string, v float64) {
	w.b = append(w.b, ' ')
	w.b = append(w.b, name...)
	w.b = append(w.b, `="`...)
	w.f(v)
	w.b = append(w.b, '"')
}

// int appends ` name="v"`.
func (w *xw) int(name string, v int) {
	w.b = append(w.b, ' ')
	w.b = append(w.b, name...)
	w.b = append(w.b, `="`...)
	w.b = strconv.AppendInt(w.b, int64(v), 10)
	w.b = append(w.b, '"')
}

// f appends v with at most one decimal, without a trailing ".0".
func (w *xw) f(v float64) {
	n := len(w.b)
	w.b = strconv.AppendFloat(w.b, v, 'f', 1, 64)
	if l := len(w.b); l-n >= 2 && w.b[l-2] == '.' && w.b[l-1] == '0' {
		w.b = w.b[:l-2]
	}
	if string(w.b[n:]) == "-0" {
		w.b = append(w.b[:n], '0')
	}
}
