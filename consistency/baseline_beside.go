package consistency

import (
	"slices"

	"github.com/ckpt-dev/ckpt/consistency/baseline"
	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// Baseline is the uncoordinated baseline of a source trace (SPEC §7),
// computed on a goroutine of its own. It reads only the source trace, so
// one serves the reports of every algorithm replayed from that trace
// (Stream.ShareBaseline), and it is computed beside other work: a Stream
// without a shared one starts its own before the model's last steps,
// whose work is mostly on one core (10^7 events: about a second of both
// algorithms' reports).
type Baseline struct {
	done chan struct{}
	b    report.Uncoordinated
	err  error
}

// StartBaseline starts computing src's baseline.
func StartBaseline(src *trace.Trace) *Baseline {
	br := &Baseline{done: make(chan struct{})}
	go func() {
		defer close(br.done)
		br.b, br.err = baseline.Uncoordinated(src)
	}()
	return br
}

// wait returns the baseline once computed, its failure list a copy of
// its own: each report renumbers it for its run (renumberBaseline). What
// the list's entries hold is shared, and never written.
func (br *Baseline) wait() (report.Uncoordinated, error) {
	<-br.done
	b := br.b
	b.Line = slices.Clone(b.Line)
	return b, br.err
}
