package diagram

import (
	"bytes"
	"encoding/xml"
	"fmt"
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

// put appends markup: format with its verbs replaced by args as fmt
// does, except that a float64 is written as num writes it and a string is
// escaped for a double-quoted attribute (esc), so free text from a run
// can never break the document; markup already made (template.HTML) is
// written as it is. Text content goes through text or end.
func (w *xw) put(format string, args ...any) {
	for i, a := range args {
		switch v := a.(type) {
		case float64:
			args[i] = num(v)
		case string:
			var e xw
			e.esc(v)
			args[i] = string(e.b)
		}
	}
	w.b = fmt.Appendf(w.b, format, args...)
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
	w.put(`<text class="%v" x="%v" y="%v">`, class, x, y)
	w.escText(s)
	w.raw("</text>")
}

// num is v rounded to 0.1 px, without a trailing ".0": enough for a
// drawing, and short (a whole number, such as a seq, is written as it
// is).
func num(v float64) string {
	s := strconv.FormatFloat(v, 'f', 1, 64)
	s = strings.TrimSuffix(s, ".0")
	if s == "-0" {
		return "0"
	}
	return s
}
