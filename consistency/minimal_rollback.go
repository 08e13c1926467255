package consistency

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/consistency/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// minimalRollback judges SPEC §7 minimal-rollback for PK: each rollback
// for failure f undid exactly the suffix that causally depends on L_f,
// the events f's process lost at its restart — it leaves none that
// depends on L_f and undoes none that does not.
func minimalRollback(m *history.Model) result {
	r := newResult(report.MinimalRollback)
	if m.Alg == history.PK && m.Missing.Failure {
		r.cannotJudge(failureWhy)
	}
	if m.Missing.Ops || m.Missing.Copy {
		r.cannotJudge(causalWhy)
	} else if m.Alg == history.PK {
		for base := 0; base < len(m.Failures); base += history.BatchSize {
			d := m.Dependence(base)
			shortRollbacks(m, d, &r)
			for _, o := range overRollbacks(m, d) {
				r.fail(fmt.Sprintf("%s rolled back further than its orphan suffix at seq %d", m.ProcName(m.Event(o.by).P), o.by), o.seqs(), o.because(m))
			}
		}
	}
	switch {
	case m.Alg.IsMS():
		r.notApplicable("minimal rollback is PK's promise, not MS's")
	case m.Alg.Places():
		placementRecovery(m, &r)
	case m.Alg != history.PK:
		r.cannotJudge(foreignWhy(m))
	}
	return r
}

// shortRollbacks reports rollbacks after which the process still holds an
// op that depends on L_f.
func shortRollbacks(m *history.Model, d *history.Dependence, r *result) {
	for _, h := range m.Handlings {
		bit := d.Bit(h.F)
		if bit == 0 || h.Top == history.None || m.Event(h.Seq).Kind != trace.Rollback || d.L[h.Top]&bit == 0 {
			continue
		}
		r.fail(fmt.Sprintf("%s's rollback at seq %d stops short of its orphan suffix", m.ProcName(h.P), h.Seq), []int32{h.Seq, h.Top},
			fmt.Sprintf("after the rollback at seq %d %s still holds %s, which depends on events %s lost in %s, so the rollback did not undo the whole orphan suffix",
				h.Seq, m.ProcName(h.P), m.Describe(h.Top), m.ProcName(m.Failures[h.F].P), m.FailName(h.F)))
	}
}

// overRollback is a PK rollback that undid an op which does not depend
// on L_f: the first such op of each rollback.
type overRollback struct {
	by, op, f int32
}

func (o overRollback) seqs() []int32 { return []int32{o.by, o.op} }

func (o overRollback) because(m *history.Model) string {
	return fmt.Sprintf("the rollback at seq %d answering %s undid %s, which does not depend on any event %s lost in that failure; PK must undo exactly the orphan suffix",
		o.by, m.FailName(o.f), m.Describe(o.op), m.ProcName(m.Failures[o.f].P))
}

// overRollbacks finds the PK rollbacks for the failures d covers that
// went past the first orphan event (SPEC §7's PK bound, shared by
// minimal-rollback and domino-free).
func overRollbacks(m *history.Model, d *history.Dependence) []overRollback {
	var out []overRollback
	for i := range m.Restores {
		rs := &m.Restores[i]
		if m.Event(rs.Seq).Kind != trace.Rollback {
			continue
		}
		fi := m.FailOf(rs.Seq)
		bit := d.Bit(fi)
		if bit == 0 {
			continue
		}
		for _, s := range rs.Undid {
			if d.L[s]&bit == 0 {
				out = append(out, overRollback{by: rs.Seq, op: s, f: fi})
				break
			}
		}
	}
	// In the order of the ops, as a walk over the run meets them.
	slices.SortFunc(out, func(a, b overRollback) int { return cmp.Compare(a.op, b.op) })
	return out
}
