package consistency

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// orphanFree judges SPEC §7 orphan-free: for every failure f, no
// process's state right after it handled f holds a receipt of an orphan
// of f (a message whose send is undone for f or depends on such an
// event); and at the end no live receipt consumes a copy whose send was
// undone. A receive of a copy never sent, or a resend of a send that is
// not live, consumes or makes a copy with no live send: it fails too
// (the run spec, as the run streamed).
func orphanFree(m *history.Model, r *result) {
	if m.Missing.Failure {
		r.cannotJudge(failureWhy)
	}
	if m.Missing.Ops || m.Missing.Copy {
		r.cannotJudge(causalWhy)
	} else if d := m.Dependence(); d != nil {
		handledOrphans(m, d, r)
	}
	if !m.Missing.Ops {
		liveOrphans(m, r)
	}
}

// handledOrphans checks every handling point, reporting failure group by
// failure group (history.BatchSize).
func handledOrphans(m *history.Model, d *history.Dependence, r *result) {
	var hits []history.Handling
	for _, h := range m.Handlings {
		if h.Top != history.None && d.Orph(h.Top, h.F) {
			hits = append(hits, h)
		}
	}
	slices.SortStableFunc(hits, func(a, b history.Handling) int { return cmp.Compare(a.F/history.BatchSize, b.F/history.BatchSize) })
	for _, h := range hits {
		orphanWitness(m, d, h, r)
	}
}

// liveOrphans is the end part: a live receipt whose copy's send was
// undone (the roots; anything that depends on them is explained by them).
func liveOrphans(m *history.Model, r *result) {
	for _, s := range m.Stale {
		e := m.Event(s)
		snd := m.SendOf[s]
		r.fail([]int32{s, snd}, func() (string, string) {
			because := fmt.Sprintf("%s stays live at the end, but the copy it consumed comes from %s", m.Describe(s), m.Describe(snd))
			if by := m.UndoneBy[snd]; by >= 0 {
				because += fmt.Sprintf(", which the %s at seq %d undid", m.Event(by).Kind, by)
			}
			return fmt.Sprintf("%s's live receipt of %s consumes a copy whose send was undone", m.ProcName(e.P), m.MsgName(e.Msg)),
				because + ": the final state is not consistent"
		})
	}
}

// orphanWitness explains why the state after handling point h holds a
// receipt of an orphan: it finds the receipt on the process's live
// history and follows the dependency back to an undone event.
func orphanWitness(m *history.Model, d *history.Dependence, h history.Handling, r *result) {
	x := h.Top
	for x != history.None {
		if m.Event(x).Kind == trace.Recv {
			if s := m.SendOf[x]; s != history.None && d.U(s, h.F) {
				break
			}
		}
		x = m.Pred[x]
	}
	if x == history.None {
		return
	}
	r.failChain(func() (string, []int32, string) {
		e, s := m.Event(x), m.SendOf[x]
		seqs, because := orphanChain(m, d, fmt.Sprintf("%s is an orphan of %s: %s received it at seq %d and still holds that receipt right after handling the failure at seq %d (%s), but ",
			m.MsgName(e.Msg), m.FailName(h.F), m.ProcName(e.P), x, h.Seq, m.Event(h.Seq).Kind), s, h.F, []int32{x, s, h.Seq})
		return fmt.Sprintf("%s keeps a receipt of orphan %s after handling failure seq %d", m.ProcName(h.P), m.MsgName(e.Msg), m.Failures[h.F].Seq), seqs, because
	})
}

// orphanChain writes, after head, why event s depends on an event undone
// for failure fi: a sequence of "sent after … received … undone by"
// steps, at most a few hops long. It returns seqs with the events it
// names appended, and the because-chain.
func orphanChain(m *history.Model, d *history.Dependence, head string, s, fi int32, seqs []int32) ([]int32, string) {
	var b strings.Builder
	b.WriteString(head)
	for hop := 0; hop < 6 && s != history.None; hop++ {
		x := s
		for x != history.None {
			if own, _ := m.OwnFailure(x); own == fi {
				by := m.UndoneBy[x]
				if x == s {
					fmt.Fprintf(&b, "%s was undone by the %s at seq %d", m.Describe(s), m.Event(by).Kind, by)
				} else {
					fmt.Fprintf(&b, "%s comes after %s, which the %s at seq %d undid", m.Describe(s), m.Describe(x), m.Event(by).Kind, by)
				}
				return append(seqs, x, by), b.String()
			}
			if m.Event(x).Kind == trace.Recv {
				if y := m.SendOf[x]; y != history.None && d.U(y, fi) {
					if x == s {
						fmt.Fprintf(&b, "%s got %s, and ", m.Describe(x), m.MsgName(m.Event(x).Msg))
					} else {
						fmt.Fprintf(&b, "%s comes after %s, and ", m.Describe(s), m.Describe(x))
					}
					seqs = append(seqs, x)
					s = y
					break
				}
			}
			x = m.Pred[x]
		}
		if x == history.None {
			break
		}
	}
	b.WriteString("… (chain truncated)")
	return seqs, b.String()
}
