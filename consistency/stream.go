package consistency

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// Stream judges a run while it is made: Add takes each event as soon as
// it is final, and Report judges the whole. It builds the model
// (history.Builder) and, for PK, judges every vector time as its event
// comes (pkClocks), so that the engine may forget a vector once it is
// judged (replay.Options.Forget): a PK run at 4,096 processes then needs
// no vector per send in memory. Check is a Stream fed a finished run, so
// both paths are one.
type Stream struct {
	b      *history.Builder
	clocks *pkClocks // PK only
	vts    result    // what clocks found
	// forgot is the seq of the first restore after the engine forgot a
	// vector, or None.
	forgot int32
	n      int32
	base   *Baseline // shared by the caller, or nil
	// pbBytes sums the piggybacks' sizes as their sends come: the engine
	// may let go of a vector once its event is taken.
	pbBytes int64
}

// NewStream starts judging run, whose header is set and whose events
// will be fed with Add, with src the source trace or nil. sizeHint is the
// expected number of events, 0 if unknown.
func NewStream(run *trace.Run, src *trace.Trace, sizeHint int) *Stream {
	alg := history.AlgOf(run)
	s := &Stream{b: history.NewBuilder(run, src, alg, sizeHint), vts: newResult(report.LogReplayRules), forgot: history.None}
	if alg == history.PK {
		s.clocks = newPKClocks(s.b)
	}
	return s
}

// Add feeds the next event of the run.
func (s *Stream) Add(e *trace.RunEvent) {
	seq := s.n
	s.n++
	s.b.Add(e)
	if e.Kind == trace.Send {
		s.pbBytes += s.b.Model().Run.PB(e).Bytes()
	}
	if s.forgot == history.None && recovers(e) && s.b.Model().Run.Forgotten > 0 {
		s.forgot = seq
	}
	if s.clocks != nil {
		s.clocks.step(seq, e, &s.vts)
	}
}

// recovers reports whether e is recovery work that reads or repeats
// vectors of the past: a restore, or a resend (whose copy shares its
// piggyback with the one it repeats).
func recovers(e *trace.RunEvent) bool {
	return e.Kind == trace.Restart || e.Kind == trace.Rollback || (e.Kind == trace.Send && e.Resend)
}

// ShareBaseline has Report take the baseline from b, started for the
// stream's source trace, instead of computing its own.
func (s *Stream) ShareBaseline(b *Baseline) { s.base = b }

// Report judges the run fed so far, which must be complete.
func (s *Stream) Report() report.Report { return s.report(false) }

// report is Report, without the baseline and statistics when verdicts is
// set (CheckVerdicts).
func (s *Stream) report(verdicts bool) report.Report {
	base := s.base
	if src := s.b.Model().Src; base == nil && !verdicts && src != nil {
		base = StartBaseline(src)
	}
	m := s.b.Finish()
	// What the stream kept for itself is garbage before the rules make
	// theirs (a checkpoint's entry each, millions with 10^5 failures).
	s.b, s.clocks = nil, nil
	r := judgeOnly(m, &s.vts, verdicts, base)
	if !verdicts {
		r.Stats.PiggybackBytes = s.pbBytes
	}
	if s.forgot != history.None {
		// Only recovery reads or repeats vectors of the past, and the
		// engine forgets them only when no recovery is ahead: an
		// algorithm that recovers anyway broke that promise, and what
		// the rules read of those vectors may be gone. Never a pass then.
		why := fmt.Sprintf("the %s at seq %d comes after the last failure was answered, when the vectors recovery reads had been forgotten (the run was judged as it streamed)", m.Run.Events[s.forgot].Kind, s.forgot)
		for i := range r.Properties {
			if p := &r.Properties[i]; p.Status == report.Pass {
				p.Status, p.Note = report.Unknown, why
			}
		}
	}
	return r
}
