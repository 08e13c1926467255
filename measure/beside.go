package measure

import (
	"slices"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// Baseline is the uncoordinated baseline of a source trace (SPEC §7),
// computed on a goroutine of its own. It reads only the source trace, so
// one serves the reports of every algorithm replayed from that trace
// (Fill), and it is computed beside other work: the pipeline starts it
// before the replays or the checking, whose last steps are mostly on one
// core (10^7 events: about a second of both algorithms' reports).
type Baseline struct {
	done chan struct{}
	b    report.Uncoordinated
	err  error
}

// StartBaseline starts computing src's baseline; nil without a source
// trace.
func StartBaseline(src *trace.Trace) *Baseline {
	if src == nil {
		return nil
	}
	br := &Baseline{done: make(chan struct{})}
	go func() {
		defer close(br.done)
		br.b, br.err = Uncoordinated(src)
	}()
	return br
}

// wait returns the baseline once computed, for the report of m: its
// failure list is a copy of its own, with the trace-event indexes of the
// fails replaced by the seqs of the run's fail events, the same fails in
// order. What the list's entries hold is shared, and never written.
func (br *Baseline) wait(m *history.Model) (report.Uncoordinated, error) {
	<-br.done
	b := br.b
	var fails []int32
	for i := range m.Run.Events {
		if m.Run.Events[i].Kind == trace.Fail {
			fails = append(fails, int32(i))
		}
	}
	if b.Line = slices.Clone(b.Line); len(fails) == len(b.Line) {
		for k := range b.Line {
			b.Line[k].Failure.Seq = fails[k]
		}
	}
	return b, br.err
}
