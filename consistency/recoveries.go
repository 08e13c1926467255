package consistency

import (
	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// lineAgg is what one process did for one failure.
type lineAgg struct {
	restore, sn, pos  int32
	vt                trace.VT
	undone, replayed  int
	discarded, resent int
	cause             string
}

// recoveries builds the report's recoveries: per failure, what every
// process restored and undid, and the maximum consistent recovery line of
// checkpoints it is compared with.
func recoveries(m *history.Model) []report.Recovery {
	per := aggregate(m)
	out := make([]report.Recovery, 0, len(m.Failures))
	msLines := m.Alg.IsMS() && !m.Missing.MSReplay()
	pkAnns := m.Alg == history.PK && !m.Missing.Replay()
	for fi := range m.Failures {
		f := &m.Failures[fi]
		rec := report.Recovery{
			Failure:         report.FailureRef{P: m.ProcName(f.P), T: m.Event(f.Seq).T, Seq: f.Seq},
			ControlMessages: f.Controls,
			Line:            make([]report.LineEntry, len(m.Procs)),
		}
		if msLines && f.R != history.None {
			r := f.R
			rec.RecLine = &r
		}
		if pkAnns && f.Ann != nil {
			rec.Announcement = &report.Announcement{Inc: f.Ann.Inc, K: f.Ann.K}
		}
		maxLine := m.MaxLine(fi)
		for p := range m.Procs {
			rec.Line[p] = lineEntry(m, f, int32(p), per[fi][p])
			if maxLine != nil {
				ml := maxLine[p]
				rec.Line[p].Extra = per[fi][p].undone - int(ml.Undone)
				rec.MaxLine = append(rec.MaxLine, report.MaxLineEntry{P: m.ProcName(int32(p)), Ckpt: ml.Ckpt, Pos: ml.Pos, Undone: int(ml.Undone)})
			}
		}
		out = append(out, rec)
	}
	return out
}

// lineEntry is process p's part in the recovery from failure f.
func lineEntry(m *history.Model, f *history.Failure, p int32, a lineAgg) report.LineEntry {
	le := report.LineEntry{P: m.ProcName(p), Undone: a.undone, Replayed: a.replayed,
		Discarded: a.discarded, Resent: a.resent, Cause: a.cause, Pos: a.pos}
	if a.restore != history.None {
		r := a.restore
		le.Restore = &r
		if a.sn != history.None && m.Alg != history.PK {
			sn := a.sn
			le.Sn = &sn
		}
		if m.Alg == history.PK {
			le.VT = a.vt
		}
	}
	if le.Pos == history.None && int(p) < len(f.Snap.LiveAt) {
		le.Pos = f.Snap.LiveAt[p]
	}
	return le
}

// aggregate sums, per failure and process, what the run's events did for
// it. Replays and resends are charged to the failure a process last
// handled, a resend that names its failure to that one (a PK restart
// writes its resends before the restart event itself).
func aggregate(m *history.Model) [][]lineAgg {
	np := len(m.Procs)
	a := aggregator{m: m, per: make([][]lineAgg, len(m.Failures)), lastF: make([]int32, np)}
	for fi := range a.per {
		a.per[fi] = make([]lineAgg, np)
		for p := range a.per[fi] {
			a.per[fi][p] = lineAgg{restore: history.None, sn: history.None, pos: history.None, cause: "none"}
		}
	}
	for p := range a.lastF {
		a.lastF[p] = history.None
	}
	for i := range m.Run.Events {
		if e := &m.Run.Events[i]; e.P >= 0 && int(e.P) < np {
			a.event(int32(i), e)
		}
	}
	return a.per
}

// aggregator is aggregate's state: the sums so far and, per process,
// the failure it last handled.
type aggregator struct {
	m     *history.Model
	per   [][]lineAgg
	lastF []int32
}

func (a *aggregator) event(seq int32, e *trace.RunEvent) {
	fi := history.None
	switch e.Kind {
	case trace.Restart, trace.Rollback:
		fi = a.m.FailOf(seq)
	case trace.Checkpoint:
		// Only a recovery checkpoint answers a failure (Model.FailOf):
		// the search is skipped for the others, most of a run's.
		if e.CkptType == trace.CkptRecovery {
			fi = a.m.FailOf(seq)
		}
	}
	if fi == history.None && e.Failure != history.None && (e.Kind == trace.ControlRecv || e.Kind == trace.Discard) {
		if f, ok := a.m.FailureAt(e.Failure); ok {
			fi = f
		}
	}
	switch e.Kind {
	case trace.Restart, trace.Rollback, trace.Checkpoint, trace.ControlRecv:
		if fi == history.None {
			return
		}
		a.lastF[e.P] = fi
		if e.Kind == trace.Checkpoint {
			a.recoveryCheckpoint(e, &a.per[fi][e.P])
		} else if e.Kind != trace.ControlRecv {
			restoreAgg(a.m, seq, e, &a.per[fi][e.P])
		}
	case trace.Discard:
		if fi != history.None {
			a.per[fi][e.P].discarded++
		}
	case trace.Recv:
		if e.Via == trace.ViaLog && a.lastF[e.P] != history.None {
			a.per[a.lastF[e.P]][e.P].replayed++
		}
	case trace.Send:
		if !e.Resend {
			return
		}
		if f, ok := a.m.FailureAt(e.Failure); ok {
			a.per[f][e.P].resent++
		} else if a.lastF[e.P] != history.None {
			a.per[a.lastF[e.P]][e.P].resent++
		}
	}
}

// recoveryCheckpoint adds a recovery checkpoint to a process's entry.
func (a *aggregator) recoveryCheckpoint(e *trace.RunEvent, la *lineAgg) {
	if la.pos == history.None {
		la.pos = e.Pos
	}
	if la.cause == "none" {
		la.cause = "recovery"
	}
}

// restoreAgg adds a restart or rollback to a process's line entry.
func restoreAgg(m *history.Model, seq int32, e *trace.RunEvent, a *lineAgg) {
	a.restore, a.pos = e.Restore, e.Pos
	rs := m.RestoreOf(seq)
	if ck, ok := m.RestoredCkpt(rs); ok {
		a.sn, a.vt = ck.Sn, rs.VT
	}
	a.undone += int(rs.Undone)
	a.replayed += int(rs.Replayed)
	switch {
	case e.Kind == trace.Restart:
		a.cause = "restart"
	case e.Cause != trace.CauseNone:
		a.cause = e.Cause.String()
	default:
		a.cause = "rollback"
	}
}
