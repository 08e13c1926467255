// Package measure fills the report's tables from the checker's history
// model: what each failure's recovery did beside the maximum consistent
// recovery line (recoveries.go), the run's statistics (stats.go) and the
// uncoordinated baseline of its source trace (baseline.go). They feed no
// verdict, so they are not the checker's: the checker judges a run and
// hands over the model it judged (consistency.Judge, Stream.Model), and
// the pipeline, which assembles the report, has them measured here.
package measure

import (
	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/report"
)

// Fill adds the tables to r, the checker's report of m. base is the
// baseline of m's source trace started beside the checking
// (StartBaseline; nil without a source trace). explore, which judges
// thousands of schedules of one trace, reads only its failures' sums
// (Summarize, Extra).
func Fill(r *report.Report, m *history.Model, base *Baseline) {
	r.Recoveries = Recoveries(m)
	r.Baseline.Uncoordinated.Line = []report.UncoordinatedFailure{}
	r.Stats = Stats(m)
	if base == nil {
		return
	}
	if b, err := base.wait(m); err == nil {
		r.Baseline.Uncoordinated = b
	}
}
