package diagram

import "github.com/ckpt-dev/ckpt/trace"

// history replays the run's restarts and rollbacks over each lane to mark
// undone ops (and which restore undid them) and thrown-away checkpoints,
// and returns the checkpoint events by (process, id).
func (m *model) history() map[uint64]int32 {
	run := m.run
	np := len(run.Processes)
	// live[p] holds p's live ops in order (resends excluded: they repeat
	// an op rather than add one), so a restore to pos pops to length pos.
	live := make([][]int32, np)
	ckpts := make([][]int32, np)
	ckptOf := make(map[uint64]int32)
	// A resend fades when the send it repeats is undone.
	var resends [][2]int32
	lastRecv := make(map[uint64]int32)
	for i := range run.Events {
		e := &run.Events[i]
		idx := int32(i)
		switch e.Kind {
		case trace.Send, trace.Recv, trace.Internal:
			if e.Kind == trace.Send && e.Resend {
				if e.Op >= 0 && int(e.Op) < len(live[e.P]) {
					resends = append(resends, [2]int32{idx, live[e.P][e.Op]})
				}
				continue
			}
			live[e.P] = append(live[e.P], idx)
			if e.Kind == trace.Recv {
				lastRecv[copyKey(e.Msg, e.Copy)] = idx
			}
		case trace.Checkpoint:
			if e.Ckpt >= 0 {
				ckptOf[ckptKey(e.P, e.Ckpt)] = idx
			}
			ckpts[e.P] = append(ckpts[e.P], idx)
		case trace.Restart, trace.Rollback:
			if e.Pos >= 0 {
				l := live[e.P]
				for len(l) > int(e.Pos) {
					u := l[len(l)-1]
					m.undone[u], m.undoneBy[u] = true, idx
					l = l[:len(l)-1]
				}
				live[e.P] = l
			}
			if e.Restore >= 0 {
				c := ckpts[e.P]
				for len(c) > 0 && run.Events[c[len(c)-1]].Ckpt > e.Restore {
					m.discarded[c[len(c)-1]] = true
					c = c[:len(c)-1]
				}
				ckpts[e.P] = c
			}
		case trace.Log:
			m.noteLog(idx, lastRecv)
		}
	}
	for _, r := range resends {
		m.undone[r[0]], m.undoneBy[r[0]] = m.undone[r[1]], m.undoneBy[r[1]]
	}
	return ckptOf
}

// noteLog ties log event idx to the receipt it records: MS logs just
// before the recv, PK makes entries stable after it (at a flush), when
// lastRecv names the latest receipt of each copy.
func (m *model) noteLog(idx int32, lastRecv map[uint64]int32) {
	ev := m.run.Events
	l := &ev[idx]
	if j := int(idx) + 1; j < len(ev) {
		r := &ev[j]
		if r.Kind == trace.Recv && r.P == l.P && r.Msg == l.Msg && r.Copy == l.Copy {
			m.logged[j] = idx
			return
		}
	}
	if j, ok := lastRecv[copyKey(l.Msg, l.Copy)]; ok && ev[j].P == l.P && m.logged[j] == trace.None {
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
	us := m.undoneBy[s]
	if us == trace.None {
		return false
	}
	ur := m.undoneBy[r]
	if ur == trace.None || ur > us {
		return true
	}
	f := m.run.Events[us].Failure
	return f >= 0 && m.run.Events[ur].Failure == f
}
