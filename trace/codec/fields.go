package codec

import (
	"errors"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/ckpt-dev/ckpt/trace"

	"github.com/goccy/go-json/jsontext"
)

// Readers of the fields both formats share. A field is the raw text of
// its value (see below), empty when absent; each checks the JSON
// type and words the error as it always has.

// want reports a field of the wrong JSON type, kind being the first
// byte of the type wanted: '0' a number, '"' a string, '[' an array,
// '{' an object. An absent field is of every type.
func want(f *frame, key string, v []byte, kind byte) error {
	if len(v) == 0 || v[0] == kind || (kind == '0' && isNumber(v)) {
		return nil
	}
	return f.eventErr("%q must be %s, not %s", key, kindOf(kind), kindOf(v[0]))
}

// stringField reads a string field, unescaped into *scratch if need be;
// nil when absent.
func stringField(f *frame, key string, v []byte, scratch *[]byte) ([]byte, error) {
	if err := want(f, key, v, '"'); err != nil || len(v) == 0 {
		return nil, err
	}
	return text(v, scratch), nil
}

// names reads the header's "processes": an array of strings.
func (f *frame) names() ([]string, error) {
	v, err := f.value()
	if err != nil {
		return nil, err
	}
	if v[0] != '[' {
		return nil, f.headerErr(`"processes" must be an array of strings, not %s`, kindOf(v[0]))
	}
	var elems []jsontext.Value
	if err := unmarshal(v, &elems); err != nil {
		return nil, f.malformed(err)
	}
	names := make([]string, 0, len(elems))
	var buf []byte
	for _, e := range elems {
		if e[0] != '"' {
			return nil, f.headerErr(`"processes" must be an array of strings, found %s`, kindOf(e[0]))
		}
		names = append(names, string(text(e, &buf)))
	}
	return names, nil
}

// delaysWire is the header object of replay defaults: a trace's "params",
// a run's "options" (which add "variant").
type delaysWire struct {
	Restart jsontext.Value `json:"restart_delay"`
	Control jsontext.Value `json:"control_delay"`
	Default jsontext.Value `json:"default_delay"`
	Variant jsontext.Value `json:"variant"`
	Timing  jsontext.Value `json:"timing"`
}

// delays reads the header object of replay defaults named what into p,
// wording a delay that is not > 0 with bad (given the field and the
// number read). It returns the object for its other fields.
func (f *frame) delays(what string, p *trace.Params, bad func(field string, v float64) string) (*delaysWire, error) {
	v, err := f.value()
	if err != nil {
		return nil, err
	}
	if v[0] != '{' {
		return nil, f.headerErr("%q must be an object, not %s", what, kindOf(v[0]))
	}
	var w delaysWire
	if err := unmarshal(v, &w); err != nil {
		return nil, f.malformed(err)
	}
	for _, d := range [...]struct {
		key string
		v   []byte
		dst *trace.Time
	}{{"restart_delay", w.Restart, &p.RestartDelay}, {"control_delay", w.Control, &p.ControlDelay}, {"default_delay", w.Default, &p.DefaultDelay}} {
		if len(d.v) == 0 {
			continue
		}
		if !isNumber(d.v) {
			return nil, f.headerErr("%s.%s must be a finite number > 0, not %s", what, d.key, kindOf(d.v[0]))
		}
		t, ok, fv := seconds(d.v)
		if !ok || t <= 0 {
			return nil, f.headerErr("%s", bad(what+"."+d.key, fv))
		}
		*d.dst = t
	}
	return &w, nil
}

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
