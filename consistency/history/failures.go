package history

import "github.com/ckpt-dev/ckpt/trace"

// fail records an effective fail event; a fail of a process that is
// already down is ignored (SPEC §3).
func (b *Builder) fail(seq int32, e *trace.RunEvent, ps *procBuild) {
	if ps.down {
		return
	}
	m := b.m
	ps.down = true
	ps.lastFail = seq
	f := Failure{Seq: seq, P: e.P, Restart: None, Count: None, R: None}
	b.snapshot(&f)
	m.Failures = append(m.Failures, f)
	m.failSeqs = append(m.failSeqs, seq)
	b.perFail = append(b.perFail, make([]failProc, len(b.procs))...)
}

// restart applies a restart: it answers the process's pending failure
// (the one its failure field, if any, names), restores a checkpoint, and
// handles the control messages that arrived while the process was down.
func (b *Builder) restart(seq int32, e *trace.RunEvent, ps *procBuild) {
	m := b.m
	fi := None
	if f, ok := m.FailureAt(ps.lastFail); ok && ps.down && (e.Failure == None || e.Failure == ps.lastFail) && m.Failures[f].Restart == None {
		fi = f
	}
	if fi == None {
		m.Missing.Failure = true
	}
	ps.down = false
	restored := b.restore(seq, e, ps, !m.Alg.Recovers())
	ps.restarts++
	if fi != None {
		f := &m.Failures[fi]
		f.Restart = seq
		if m.Alg == PK && e.Pos >= 0 {
			// Incarnation restarts−1 ended at e.Pos.
			f.Ann = &Announcement{Origin: e.P, Inc: ps.restarts - 1, K: e.Pos}
		}
		if restored != None {
			ps.attributed++
			f.Count, f.R = ps.attributed, ps.Taken[restored].Sn
		}
		b.handle(fi, e.P, seq, ps)
	}
	for _, fj := range b.downPending[e.P] {
		b.candidate(Handling{F: fj, P: e.P, Seq: seq, Top: Top(ps.Live)})
	}
	delete(b.downPending, e.P)
}

// controlRecv handles the arrival of a control message: a handling point
// of its failure for a process that does nothing else about it (or, for
// a process that is down, its restart).
func (b *Builder) controlRecv(seq int32, e *trace.RunEvent, ps *procBuild) {
	fi, ok := b.m.FailureAt(e.Failure)
	switch {
	case !ok:
	case ps.down:
		put(&b.downPending, e.P, append(b.downPending[e.P], fi))
	default:
		b.candidate(Handling{F: fi, P: e.P, Seq: seq, Top: Top(ps.Live)})
	}
}

// candidate records a control-message handling point, the first one per
// (process, failure).
func (b *Builder) candidate(h Handling) {
	if fp := b.failProcOf(h.F, h.P); !fp.cand {
		fp.cand = true
		b.candidates = append(b.candidates, h)
	}
}

// SnapshotBudget bounds the live receipts copied for max-line snapshots,
// counted as the live ops of every process at each fail instant, so runs
// with very many failures stay linear; beyond it max lines are left out.
const SnapshotBudget = 2_000_000

// snapshot records the whole system's state at a fail instant for the
// maximum consistent recovery line: live counts, the head of each
// process's chain of held checkpoints (the chain itself never changes,
// so the head is the whole table) and the messages received in the live
// histories.
func (b *Builder) snapshot(f *Failure) {
	m := b.m
	np := len(b.procs)
	s := &f.Snap
	s.LiveAt = make([]int32, np)
	total := 0
	for q := range b.procs {
		s.LiveAt[q] = int32(len(b.procs[q].Live))
		total += len(b.procs[q].Live)
	}
	if b.snapshotUsed+total > SnapshotBudget {
		return
	}
	b.snapshotUsed += total
	s.Heads = make([]int32, np)
	s.Recvs = make([]int32, 0, total/2+1)
	for q := range b.procs {
		ps := &b.procs[q]
		s.Heads[q] = ps.Held[len(ps.Held)-1]
		for _, r := range ps.Live {
			// A live op with a send is a receipt (copyOf links only
			// those; resends are never live): its event need not be read.
			if r == None {
				continue
			}
			snd := m.SendOf[r]
			if snd == None || m.UndoneBy[snd] != None {
				continue
			}
			s.Recvs = append(s.Recvs, r)
		}
	}
}
