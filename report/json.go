package report

import (
	"bytes"
	"fmt"
	"io"

	"github.com/goccy/go-json"

	"github.com/ckpt-dev/ckpt/trace"
)

// renderJSON writes SPEC §9: a top-level array of report objects, fields
// in schema order, indented two spaces, with a trailing newline. Empty
// lists are written [] (a consumer iterating them needs no nil check) and
// absent values null where the schema shows null.
//
// A file that could not be checked is an entry with the same keys in the
// same order, "valid": false, "verdict": "error" and "error" saying why;
// nothing was measured, so "properties" and "recoveries" are [] and
// "baseline" and "stats" null (docs/reports.md).
func renderJSON(w io.Writer, reports []Report) error {
	out := make([]any, len(reports))
	for i := range reports {
		out[i] = jsonEntry(&reports[i])
	}
	return WriteJSON(w, out)
}

// jsonEntry is what the JSON array holds for r.
func jsonEntry(r *Report) any {
	if r.Verdict == VerdictError {
		return newErrorEntry(r)
	}
	return normalized(*r)
}

// WriteJSON writes v as ckpt writes every JSON report (verify's,
// explore's, compare's): with github.com/goccy/go-json, indented two
// spaces, with a trailing newline, and without HTML escaping — messages
// quote trace text such as "a < b", and \u003c would only make them
// harder to read. Its output is byte for byte encoding/json's with the
// same settings (TestWriteJSONIsEncodingJSON). Nothing is written if v
// cannot be encoded.
func WriteJSON(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}

// errorEntry is the JSON of a report whose file could not be checked.
type errorEntry struct {
	File string `json:"file"`
	// Algorithm is null when the file could not be read at all.
	Algorithm         *string    `json:"algorithm"`
	Valid             bool       `json:"valid"`
	Properties        []Property `json:"properties"`
	Recoveries        []Recovery `json:"recoveries"`
	Baseline          *Baseline  `json:"baseline"`
	Stats             *Stats     `json:"stats"`
	Verdict           Verdict    `json:"verdict"`
	FailuresExercised int        `json:"failures_exercised"`
	Error             string     `json:"error"`
}

func newErrorEntry(r *Report) errorEntry {
	e := errorEntry{File: r.File, Properties: []Property{}, Recoveries: []Recovery{}, Verdict: VerdictError, Error: r.Error}
	if r.Algorithm != "" {
		algo := r.Algorithm
		e.Algorithm = &algo
	}
	return e
}

// normalized returns a copy of r whose nil lists are empty lists. It
// copies rather than writes into the caller's report.
func normalized(r Report) Report {
	// "valid" is true exactly when the verdict is (docs/reports.md): an
	// unknown verdict was not shown to hold.
	if r.Verdict == VerdictUnknown {
		r.Valid = false
	}
	r.Properties = nonNil(r.Properties)
	for i := range r.Properties {
		p := &r.Properties[i]
		p.Violations = nonNil(p.Violations)
		for j := range p.Violations {
			p.Violations[j].Seqs = nonNil(p.Violations[j].Seqs)
		}
	}
	r.Recoveries = nonNil(r.Recoveries)
	for i := range r.Recoveries {
		r.Recoveries[i].Line = nonNil(r.Recoveries[i].Line)
	}
	u := &r.Baseline.Uncoordinated
	u.Line = nonNil(u.Line)
	for i := range u.Line {
		u.Line[i].Line = nonNil(u.Line[i].Line)
	}
	return r
}

// nonNil returns a fresh copy of s, never nil, so that normalizing one
// level cannot write into the caller's backing array.
func nonNil[T any](s []T) []T {
	out := make([]T, len(s))
	copy(out, s)
	return out
}

// lineEntryJSON has LineEntry's fields without its methods, so that the
// methods below can use the default encoding for everything but vt.
type lineEntryJSON LineEntry

// MarshalJSON writes a line entry with "vt" as [[inc, count], ...] (SPEC
// §6), or null when the entry has none (MS).
func (e LineEntry) MarshalJSON() ([]byte, error) {
	vt := e.VT
	e.VT = nil
	b, err := json.Marshal(lineEntryJSON(e))
	if err != nil {
		return nil, err
	}
	if vt == nil {
		return b, nil
	}
	// Inside a JSON string every quote is escaped, so the first
	// unescaped `"vt":null` is the key itself.
	const key = `"vt":null`
	i := bytes.Index(b, []byte(key))
	if i < 0 {
		return nil, fmt.Errorf("report: encoding line entry of %s: no vt key", e.P)
	}
	out := make([]byte, 0, len(b)+8*len(vt))
	out = append(out, b[:i+len(key)-len("null")]...)
	out = appendVT(out, vt)
	return append(out, b[i+len(key):]...), nil
}

func appendVT(b []byte, vt trace.VT) []byte {
	b = append(b, '[')
	for i, x := range vt {
		if i > 0 {
			b = append(b, ',')
		}
		b = fmt.Appendf(b, "[%d,%d]", x.Inc, x.Count)
	}
	return append(b, ']')
}

// UnmarshalJSON reads what MarshalJSON writes.
func (e *LineEntry) UnmarshalJSON(b []byte) error {
	// The outer VT shadows the embedded one (shallower depth wins), so
	// every other field decodes as usual.
	var wire struct {
		*lineEntryJSON
		VT *[][2]int32 `json:"vt"`
	}
	wire.lineEntryJSON = (*lineEntryJSON)(e)
	if err := json.Unmarshal(b, &wire); err != nil {
		return err
	}
	e.VT = nil
	if wire.VT != nil {
		e.VT = make(trace.VT, len(*wire.VT))
		for i, x := range *wire.VT {
			e.VT[i] = trace.VTEntry{Inc: x[0], Count: x[1]}
		}
	}
	return nil
}
