package codec

import (
	"errors"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/ckpt-dev/ckpt/trace"

	"github.com/goccy/go-json/jsontext"
)

// The decoders let goccy/go-json check the syntax and split objects into
// their fields as jsontext.Value — the raw text of one value, or empty
// when the field is absent — and read the values themselves: the first
// byte names the JSON type for messages, which a Go type would hide
// (null into a string is no error for encoding/json, "1" into a number
// may be none), and times convert exactly.

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

func isNumber(v []byte) bool {
	return len(v) > 0 && (v[0] == '-' || (v[0] >= '0' && v[0] <= '9'))
}

// text returns the text of a JSON string value: its bytes between the
// quotes when it has no escape and is valid UTF-8, else its unescaped
// text in *scratch, invalid UTF-8 and lone surrogates replaced by
// U+FFFD as encoding/json does, so that everything decoded encodes back
// unchanged.
func text(v []byte, scratch *[]byte) []byte {
	s := v[1 : len(v)-1]
	if plain(s) {
		return s
	}
	// The error only says that something was replaced.
	*scratch, _ = jsontext.AppendUnquote((*scratch)[:0], v)
	return *scratch
}

// plain reports whether s is printable ASCII without escapes, as names
// and ids nearly always are: its text is then itself. (Strings are short:
// a loop beats the calls of bytes.IndexByte and utf8.Valid.)
func plain(s []byte) bool {
	for _, c := range s {
		if c == '\\' || c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// seconds reads a number of seconds as a Time. A plain decimal with at
// most nine fractional digits converts exactly, digit by digit, so every
// Time written by AppendJSON reads back unchanged whatever its size;
// anything else (exponents, more digits) goes through float64 and is
// rounded once. ok is false for values FromSeconds rejects; f is the
// value for messages.
func seconds(v []byte) (t trace.Time, ok bool, f float64) {
	if t, ok := exactSeconds(v); ok {
		return t, true, 0
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false, f
	}
	t, ok = trace.FromSeconds(f)
	return t, ok, f
}

// exactSeconds converts "123" or "123.456" (at most 9 fractional digits,
// no sign or exponent) to nanoseconds without rounding.
func exactSeconds(b []byte) (trace.Time, bool) {
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
	scale := int64(trace.Second)
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
	t := trace.Time(whole)*trace.Second + trace.Time(frac)
	if t > trace.MaxTime {
		return 0, false
	}
	return t, true
}

func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// badSeconds describes a number v read for a time or duration (field
// names it, as `"t"`) that FromSeconds (or, for a duration, > 0)
// rejects: a finite v > 0 is beyond MaxTime, a positive duration below
// the resolution says so.
func badSeconds(field string, v float64, duration bool) string {
	if duration && trace.RoundsToZero(v) {
		return trace.OutOfRange(field, fmtFloat(v)+", which "+trace.ZeroRoundingText, false, true)
	}
	return trace.OutOfRange(field, fmtFloat(v), v > 0 && !math.IsInf(v, 1), duration)
}
