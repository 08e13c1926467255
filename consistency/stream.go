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
	base *Baseline // shared by the caller, or nil
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

// ShareBaseline has Report take the baseline from b, started for the
// stream's source trace, instead of computing its own.
func (s *Stream) ShareBaseline(b *Baseline) { s.base = b }

// Report judges the run fed so far, which must be complete.
func (s *Stream) Report() report.Report { return s.report(false) }

// report is Report, without the uncoordinated baseline and the
// statistics when verdicts is set (CheckVerdicts).
func (s *Stream) report(verdicts bool) report.Report {
	m, base := s.b.Model(), s.base
	if base == nil && !verdicts && m.Src != nil {
		base = StartBaseline(m.Src)
	}
	s.spec.finish()
	streamed := &s.spec.results
	s.b.Finish()
	// What the stream kept for itself is garbage before the rules make
	// theirs.
	s.b, s.spec = nil, nil
	r := report.Report{File: m.Run.Name, Algorithm: m.Run.Algorithm, Valid: true, Properties: make([]report.Property, 0, len(rules))}
	var stats *report.Stats
	if !verdicts {
		stats = &r.Stats
	}
	for _, res := range judgeRules(m, streamed, stats) {
		p := res.property()
		r.Valid = r.Valid && p.Status != report.Fail
		r.Properties = append(r.Properties, p)
	}
	// The report's tables last: the rules make garbage, the tables live
	// data (a tenth of the heap with 10^5 failures), and the collector's
	// goal is a multiple of what is live when it runs.
	r.Recoveries = recoveries(m)
	r.Baseline.Uncoordinated.Line = []report.UncoordinatedFailure{}
	if !verdicts && m.Src != nil {
		if b, err := base.wait(m); err == nil {
			r.Baseline.Uncoordinated = b
		}
	}
	return r
}
