package consistency

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// minimalRollback judges SPEC §7 minimal-rollback for PK: each rollback
// for failure f undid exactly the suffix that causally depends on L_f,
// the events f's process lost at its restart — it leaves none that
// depends on L_f and undoes none that does not.
func minimalRollback(m *history.Model, r *result) {
	if m.Alg == history.PK && m.Missing.Failure {
		r.cannotJudge(failureWhy)
	}
	if m.Missing.Ops || m.Missing.Copy {
		r.cannotJudge(causalWhy)
	} else if d := m.Dependence(); m.Alg == history.PK && d != nil {
		pkRollbacks(m, d, r)
	}
	if recoveryKnown(m, r) && m.Alg.IsMS() {
		r.notApplicable("minimal rollback is PK's promise, not MS's")
	}
}

// pkRollbacks reports the rollbacks after which the process still holds
// an op that depends on L_f (short) and those that undid one that does
// not (long), failure group by failure group: its short ones, then its
// long ones.
func pkRollbacks(m *history.Model, d *history.Dependence, r *result) {
	type witness struct {
		g    int32
		seqs []int32
		text func() (string, string)
	}
	var ws []witness
	for _, h := range m.Handlings {
		if h.Top == history.None || m.Event(h.Seq).Kind != trace.Rollback || !d.L(h.Top, h.F) {
			continue
		}
		ws = append(ws, witness{group(h.F), []int32{h.Seq, h.Top}, func() (string, string) {
			return fmt.Sprintf("%s's rollback at seq %d stops short of its orphan suffix", m.ProcName(h.P), h.Seq),
				fmt.Sprintf("after the rollback at seq %d %s still holds %s, which depends on events %s lost in %s, so the rollback did not undo the whole orphan suffix",
					h.Seq, m.ProcName(h.P), m.Describe(h.Top), m.ProcName(m.Failures[h.F].P), m.FailName(h.F))
		}})
	}
	for _, o := range overRollbacks(m, d) {
		ws = append(ws, witness{group(o.f), o.seqs(), func() (string, string) {
			return fmt.Sprintf("%s rolled back further than its orphan suffix at seq %d", m.ProcName(m.Event(o.by).P), o.by), o.because(m)
		}})
	}
	// Stable: a group's short rollbacks (in seq order) stay before its
	// long ones (in op order).
	slices.SortStableFunc(ws, func(a, b witness) int { return cmp.Compare(a.g, b.g) })
	for _, w := range ws {
		r.fail(w.seqs, w.text)
	}
}

// group is the failure group witnesses are reported by
// (history.BatchSize).
func group(fi int32) int32 { return fi / history.BatchSize }

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

// overRollbacks finds the PK rollbacks that went past the first orphan
// event (SPEC §7's PK bound, shared by minimal-rollback and
// domino-free), by failure group, then in the order of the ops, as a
// walk over the run meets them.
func overRollbacks(m *history.Model, d *history.Dependence) []overRollback {
	var out []overRollback
	for i := range m.Restores {
		rs := &m.Restores[i]
		if m.Event(rs.Seq).Kind != trace.Rollback {
			continue
		}
		fi := m.FailOf(rs.Seq)
		if fi == history.None {
			continue
		}
		for _, s := range rs.Undid {
			if !d.L(s, fi) {
				out = append(out, overRollback{by: rs.Seq, op: s, f: fi})
				break
			}
		}
	}
	slices.SortFunc(out, func(a, b overRollback) int {
		return cmp.Or(cmp.Compare(group(a.f), group(b.f)), cmp.Compare(a.op, b.op))
	})
	return out
}
