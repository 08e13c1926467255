package diagram

import (
	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// history builds the checker's history model of the run (package
// consistency/history, the model its properties read): what the
// diagram draws faded — the ops restarts and rollbacks undid, and the
// checkpoints a later restore threw away — is read from it (undoneBy,
// discarded), and so is which processes' initial checkpoint the run does
// not write (implicit). It also ties each log event to the receipt it
// makes stable.
func (m *model) history() {
	run := m.run
	b := history.NewBuilder(run, nil, history.AlgOf(run), m.n)
	for i := range run.Events {
		if e := &run.Events[i]; e.Kind == trace.Log {
			m.noteLog(int32(i), b)
		}
		b.Add(&run.Events[i])
	}
	m.h = b
	for p := range run.Processes {
		taken, held := b.Taken(int32(p)), b.Held(int32(p))
		m.implicit[p] = taken[0].Seq == trace.None
		for k := 1; k < len(taken); k++ {
			m.discarded[taken[k].Seq] = true
		}
		for _, k := range held {
			if c := taken[k]; c.Seq != trace.None {
				m.discarded[c.Seq] = false
			}
		}
	}
}

// undoneBy returns the restart or rollback that undid event i (for a
// resend, the live send it repeats), or None.
func (m *model) undoneBy(i int32) int32 {
	h := m.h.Model()
	if e := &m.run.Events[i]; e.Kind == trace.Send && e.Resend {
		if i = h.SendOf[i]; i == trace.None {
			return trace.None
		}
	}
	if u := h.UndoneBy[i]; u >= 0 {
		return u
	}
	return trace.None
}

func (m *model) undone(i int32) bool { return m.undoneBy(i) != trace.None }

// restored returns the checkpoint event restart or rollback idx
// restores (None: the implicit initial checkpoint), or false when the
// run names none its process took.
func (m *model) restored(idx int32) (int32, bool) {
	e := &m.run.Events[idx]
	if e.Restore == 0 {
		return trace.None, true
	}
	rs := m.h.Model().RestoreOf(idx)
	if e.Restore < 0 || rs == nil || rs.Restored == trace.None {
		return trace.None, false
	}
	return m.h.Taken(e.P)[rs.Restored].Seq, true
}

// sendOf returns the send or resend event that transmitted copy cp of
// msg before event idx, or with cp 0 the latest send of msg before it;
// None if there is none.
func (m *model) sendOf(msg, cp, idx int32) int32 {
	c := &m.h.Model().Copies
	out := int32(trace.None)
	for k := int32(1); ; k++ {
		ci := c.Index(msg, k)
		if ci < 0 {
			return out
		}
		if s := c.Send[ci]; s != trace.None && s < idx && (k == cp || cp == 0 && s > out) {
			out = s
		}
	}
}

// noteLog ties log event idx to the receipt it records: MS logs just
// before the recv, PK makes a live receipt stable after it (at a flush),
// which the history builder, not yet fed idx, names (Logs).
func (m *model) noteLog(idx int32, b *history.Builder) {
	ev := m.run.Events
	l := &ev[idx]
	if j := int(idx) + 1; j < len(ev) {
		r := &ev[j]
		if r.Kind == trace.Recv && r.P == l.P && r.Msg == l.Msg && r.Copy == l.Copy {
			m.logged[j] = idx
			return
		}
	}
	if j := b.Logs(l); j != trace.None && m.logged[j] == trace.None {
		m.logged[j] = idx
	}
}

// orphanReceipt reports whether receipt r of a copy sent by s received
// an orphan: the send was undone (SPEC §7: its send is in U_f) while the
// receipt was live, or the receipt was undone for the same failure (the
// order in which two processes roll back for one failure is chance).
// A receipt undone for an earlier failure, before its send was undone,
// received no orphan.
func (m *model) orphanReceipt(s, r int32) bool {
	us := m.undoneBy(s)
	if us == trace.None {
		return false
	}
	ur := m.undoneBy(r)
	if ur == trace.None || ur > us {
		return true
	}
	f := m.run.Events[us].Failure
	return f >= 0 && m.run.Events[ur].Failure == f
}
