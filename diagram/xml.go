package diagram

import (
	"bytes"
	"encoding/xml"
	"strconv"
	"strings"
)

// xw builds markup in a byte slice. Escaping is done here, once, for text
// and attributes alike, so free text from a run (labels, message ids,
// process names) can never break the document.
type xw struct{ b []byte }

func (w *xw) raw(s string) { w.b = append(w.b, s...) }

// Write appends p unescaped, for encoding/xml's escaper.
func (w *xw) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}

// esc appends s escaped for XML text or a double-quoted attribute, as
// encoding/xml escapes: characters XML 1.0 forbids, and invalid UTF-8,
// become U+FFFD, so a label with a NUL byte still gives a well-formed
// SVG.
func (w *xw) esc(s string) {
	_ = xml.EscapeText(w, []byte(s)) // xw's Write never fails
}

// escText appends s escaped for XML text: as esc, but quotes as they
// are (encoding/xml writes each as &#34;, which only an attribute needs;
// a title holding a run line grew by a quarter). Its &#34; can only be
// a quote: a '&' of s is written &amp;.
func (w *xw) escText(s string) {
	start := len(w.b)
	w.esc(s)
	if t := w.b[start:]; bytes.Contains(t, quoteRef) {
		w.b = append(w.b[:start], bytes.ReplaceAll(t, quoteRef, []byte{'"'})...)
	}
}

var quoteRef = []byte("&#34;")

// attr appends ` name="value"`.
func (w *xw) attr(name, value string) {
	w.b = append(w.b, ' ')
	w.b = append(w.b, name...)
	w.b = append(w.b, `="`...)
	w.esc(value)
	w.b = append(w.b, '"')
}

// el starts element tag of the given classes (none: "").
func (w *xw) el(tag, class string) {
	w.raw("<" + tag)
	if class != "" {
		w.raw(` class="` + class + `"`)
	}
}

// nums appends ` name="v"` for each value, the names space-separated in
// names, each v rounded to 0.1 px: enough for a drawing, and short (a
// whole number, such as a seq, is written as it is).
func (w *xw) nums(names string, vs ...float64) {
	for _, v := range vs {
		name, rest, _ := strings.Cut(names, " ")
		names = rest
		w.b = append(w.b, ' ')
		w.b = append(w.b, name...)
		w.b = append(w.b, `="`...)
		w.f(v)
		w.b = append(w.b, '"')
	}
}

// coords appends the values separated by spaces (a path's or a
// transform's numbers).
func (w *xw) coords(vs ...float64) {
	for i, v := range vs {
		if i > 0 {
			w.raw(" ")
		}
		w.f(v)
	}
}

// end closes the start tag of element tag and ends it with title as its
// tooltip.
func (w *xw) end(tag, title string) {
	w.raw("><title>")
	w.escText(title)
	w.raw("</title></" + tag + ">")
}

// text writes a <text> element of the given class at (x, y).
func (w *xw) text(class string, x, y float64, s string) {
	w.el("text", class)
	w.nums("x y", x, y)
	w.raw(">")
	w.escText(s)
	w.raw("</text>")
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
