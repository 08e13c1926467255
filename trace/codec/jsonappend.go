package codec

import (
	"strconv"

	"github.com/ckpt-dev/ckpt/trace"

	"github.com/goccy/go-json/jsontext"
)

// The appenders both writers build their text with. A member is written
// with the comma before it; appendObject drops the one after its brace.

// appendString appends s as a JSON string, by goccy/go-json's rules:
// what JSON requires is escaped, invalid UTF-8 becomes U+FFFD (so every
// string decodes back to what a decoder read), and <, > and & are left
// alone: traces and runs are read by people and tools, not embedded in
// HTML (the diagram escapes for itself), and a message id such as
// "a:1->b" should read as written.
func appendString(b []byte, s string) []byte {
	b, _ = jsontext.AppendQuote(b, s) // the error only says that U+FFFD replaced something
	return b
}

// appendKey appends `,"key":`.
func appendKey(b []byte, key string) []byte {
	b = append(b, ',', '"')
	b = append(b, key...)
	return append(b, '"', ':')
}

func appendInt(b []byte, key string, v int32) []byte {
	return strconv.AppendInt(appendKey(b, key), int64(v), 10)
}

// appendOptInt appends the member unless v is None.
func appendOptInt(b []byte, key string, v int32) []byte {
	if v == trace.None {
		return b
	}
	return appendInt(b, key, v)
}

func appendStr(b []byte, key, s string) []byte { return appendString(appendKey(b, key), s) }

// appendOptStr appends the member unless s is "" (an enum's zero value
// is named "").
func appendOptStr(b []byte, key, s string) []byte {
	if s == "" {
		return b
	}
	return appendStr(b, key, s)
}

// appendObject appends the member key, an object whose members fill
// appends.
func appendObject(b []byte, key string, fill func([]byte) []byte) []byte {
	b = append(appendKey(b, key), '{')
	n := len(b)
	if b = fill(b); len(b) > n {
		b = append(b[:n], b[n+1:]...)
	}
	return append(b, '}')
}

// appendArray appends [elem(0), ..., elem(n-1)].
func appendArray(b []byte, n int, elem func(b []byte, i int) []byte) []byte {
	b = append(b, '[')
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		b = elem(b, i)
	}
	return append(b, ']')
}

// appendInts appends [v[0], ...].
func appendInts(b []byte, v ...int32) []byte {
	return appendArray(b, len(v), func(b []byte, i int) []byte { return strconv.AppendInt(b, int64(v[i]), 10) })
}

// appendNames appends the member key, an array of strings.
func appendNames(b []byte, key string, names []string) []byte {
	return appendArray(appendKey(b, key), len(names), func(b []byte, i int) []byte { return appendString(b, names[i]) })
}

// appendDelays appends the members of the params that are set.
func appendDelays(b []byte, p trace.Params) []byte {
	for _, f := range [...]struct {
		key string
		v   trace.Time
	}{{"restart_delay", p.RestartDelay}, {"control_delay", p.ControlDelay}, {"default_delay", p.DefaultDelay}} {
		if f.v != 0 {
			b = f.v.AppendJSON(appendKey(b, f.key))
		}
	}
	return b
}

// appendHead opens an event: start (`{"t":`, or a run's `{"seq":N,"t":`)
// then t, p and kind, the members every event has.
func appendHead(b []byte, start string, t trace.Time, p string, kind trace.Kind) []byte {
	b = t.AppendJSON(append(b, start...))
	return appendStr(appendStr(b, "p", p), "kind", kind.String())
}

// nameOf returns names[i], or a stand-in that says it is out of range.
func nameOf(names []string, i int32) string {
	if i >= 0 && int(i) < len(names) {
		return names[i]
	}
	return "?" + strconv.Itoa(int(i))
}
