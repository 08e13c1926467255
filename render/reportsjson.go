package render

import "github.com/ckpt-dev/ckpt/report"

// reportsJSON is SPEC §9: a top-level array of report objects, fields
// in schema order, indented two spaces, with a trailing newline. Empty
// lists are written [] (a consumer iterating them needs no nil check) and
// absent values null where the schema shows null.
//
// A file that could not be checked is an entry with the same keys in the
// same order, "valid": false, "verdict": "error" and "error" saying why;
// nothing was measured, so "properties" and "recoveries" are [] and
// "baseline" and "stats" null (docs/reports.md).
func reportsJSON(reports []report.Report) []any {
	out := make([]any, len(reports))
	for i := range reports {
		if reports[i].Verdict == report.VerdictError {
			out[i] = newErrorEntry(&reports[i])
		} else {
			out[i] = normalized(reports[i])
		}
	}
	return out
}

// errorEntry is the JSON of a report whose file could not be checked.
type errorEntry struct {
	File string `json:"file"`
	// Algorithm is null when the file could not be read at all.
	Algorithm         *string           `json:"algorithm"`
	Valid             bool              `json:"valid"`
	Properties        []report.Property `json:"properties"`
	Recoveries        []report.Recovery `json:"recoveries"`
	Baseline          *report.Baseline  `json:"baseline"`
	Stats             *report.Stats     `json:"stats"`
	Verdict           report.Verdict    `json:"verdict"`
	FailuresExercised int               `json:"failures_exercised"`
	Error             string            `json:"error"`
}

func newErrorEntry(r *report.Report) errorEntry {
	e := errorEntry{File: r.File, Properties: []report.Property{}, Recoveries: []report.Recovery{}, Verdict: report.VerdictError, Error: r.Error}
	if r.Algorithm != "" {
		e.Algorithm = new(r.Algorithm)
	}
	return e
}

// normalized returns a copy of r whose nil lists are empty lists. It
// copies rather than writes into the caller's report.
func normalized(r report.Report) report.Report {
	// "valid" is true exactly when the verdict is (docs/reports.md): an
	// unknown verdict was not shown to hold.
	if r.Verdict == report.VerdictUnknown {
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
func nonNil[T any](s []T) []T { return append([]T{}, s...) }
