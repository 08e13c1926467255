package codec

import (
	"strconv"
	"unicode/utf8"

	"github.com/ckpt-dev/ckpt/trace"
)

// The appenders both writers build their text with. A member is written
// with the comma before it; appendObject drops the one after its brace.

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string. It escapes what JSON requires
// plus U+2028/U+2029, and replaces invalid UTF-8 with U+FFFD, so every
// string decodes back to itself. Unlike encoding/json it leaves <, > and &
// alone: traces and runs are read by people and tools, not embedded in
// HTML (the diagram escapes for itself), and a message id such as
// "a:1->b" should read as written.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(append(b, s[start:i]...), `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(append(b, s[start:i]...), '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
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
