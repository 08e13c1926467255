package consistency

import (
	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// Stream judges a run while it is made: Add takes each event as soon as
// it is final, and Report judges the whole. It builds the model
// (history.Builder) and steps the run spec and the protocol spec of the
// run's algorithm (spec.go) through each event as it comes, so that the
// specs read a vector only while its event is added: the producer may
// drop it after. Check is a Stream fed a finished run, so both paths are
// one.
type Stream struct {
	b    *history.Builder
	spec *runSpec
	n    int32
	m    *history.Model
	// spare is the model of a finished clone (Recycle), whose tables
	// the next clone fills.
	spare *history.Model
}

// NewStream starts judging run, whose header is set and whose events
// will be fed with Add, with src the source trace or nil. sizeHint is the
// expected number of events, 0 if unknown.
func NewStream(run *trace.Run, src *trace.Trace, sizeHint int) *Stream {
	return newStream(run, src, sizeHint, history.None)
}

// newStream is NewStream for a run whose events from seq horizon on hold
// no recovery (None: unknown), so that PK's spec drops the vectors only a
// recovery reads once it is past.
func newStream(run *trace.Run, src *trace.Trace, sizeHint int, horizon int32) *Stream {
	b := history.NewBuilder(run, src, history.AlgOf(run), sizeHint)
	return &Stream{b: b, spec: newRunSpec(b, horizon)}
}

// Add feeds the next event of the run.
func (s *Stream) Add(e *trace.RunEvent) {
	seq := s.n
	s.n++
	s.spec.prepare(seq, e)
	s.b.Add(e)
	s.spec.step(seq, e)
}

// Report judges the run fed so far, which must be complete. Each of
// beside runs on the model among the rules (the report's tables, package
// measure, are measured there).
func (s *Stream) Report(beside ...func(*history.Model)) report.Report {
	m := s.b.Model()
	s.spec.finish()
	streamed := &s.spec.results
	// Equivalence, the costliest rule, reads nothing of the final state:
	// it is judged beside it, on a core the final state leaves idle.
	s.b.Finish(func(m *history.Model) { equivalence(m, &streamed[equivalenceAt]) })
	// What the stream kept for itself is garbage before the rules make
	// theirs.
	s.b, s.spec, s.m = nil, nil, m
	r := report.Report{File: m.Run.Name, Algorithm: m.Run.Algorithm, Valid: true, Properties: make([]report.Property, 0, len(rules))}
	for _, res := range judgeRules(m, streamed, beside) {
		p := res.property()
		r.Valid = r.Valid && p.Status != report.Fail
		r.Properties = append(r.Properties, p)
	}
	return r
}

// Model is the model Report judged, from which the report's tables are
// measured (package measure); nil before Report.
func (s *Stream) Model() *history.Model { return s.m }
