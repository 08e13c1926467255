package codec

import (
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/goccy/go-json/jsontext"
)

// Readers of the fields both formats share. A field is the raw text of
// its value (see values.go), empty when absent; each checks the JSON
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
