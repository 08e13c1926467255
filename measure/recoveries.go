package measure

import (
	"slices"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/rline"
	"github.com/ckpt-dev/ckpt/trace"
)

// Recoveries builds the report's recoveries: per failure, what every
// process restored and undid, and the maximum consistent recovery line of
// checkpoints it is compared with.
func Recoveries(m *history.Model) []report.Recovery {
	out := make([]report.Recovery, len(m.Failures))
	msLines := m.Alg.IsMS() && !m.Missing.Replay() && !m.Missing.Sn
	pkAnns := m.Alg == history.PK && !m.Missing.Replay()
	for fi := range m.Failures {
		f := &m.Failures[fi]
		rec := &out[fi]
		rec.Failure = report.FailureRef{P: m.ProcName(f.P), T: m.Event(f.Seq).T, Seq: f.Seq}
		rec.ControlMessages = f.Controls
		rec.Line = make([]report.LineEntry, len(m.Procs))
		for p := range rec.Line {
			rec.Line[p] = report.LineEntry{P: m.ProcName(int32(p)), Cause: "none", Pos: history.None}
		}
		if msLines && f.R != history.None {
			r := f.R
			rec.RecLine = &r
		}
		if pkAnns && f.Ann != nil {
			rec.Announcement = &report.Announcement{Inc: f.Ann.Inc, K: f.Ann.K}
		}
	}
	tally(m, out)
	var sorted [][]bool
	var msgs []rline.Msg
	for fi := range out {
		f, rec := &m.Failures[fi], &out[fi]
		if sorted == nil && f.Snap.Heads != nil {
			sorted = sortedChains(m)
		}
		rec.MaxLine = maxLine(m, fi, sorted, &msgs)
		for p := range rec.Line {
			le := &rec.Line[p]
			if le.Restore == nil {
				le.Sn, le.VT = nil, nil
			}
			if le.Pos == history.None && p < len(f.Snap.LiveAt) {
				le.Pos = f.Snap.LiveAt[p]
			}
			if rec.MaxLine != nil {
				extra := le.Undone - rec.MaxLine[p].Undone
				le.Extra = &extra
			}
		}
		if rec.MaxLine == nil {
			rec.Note = noMaxLine(f)
		}
	}
	return out
}

// Sum is one failure's recovery summed over the processes, as
// Recoveries reports it: what explore keeps of each of the thousands of
// runs it judges.
type Sum struct {
	// Undone is the ops every process undid for the failure; Failed is
	// the failed process's share.
	Undone, Failed int
	// Rolled counts the processes that restored a checkpoint.
	Rolled int
}

// Summarize sums failure fi's recovery from the restarts and rollbacks
// that answer it (Failure.Handlers), the events Recoveries reads for
// it: a schedule costs its failures, not a pass over its whole run.
func Summarize(m *history.Model, fi int) Sum {
	f := &m.Failures[fi]
	var s Sum
	// restore is, per process, the checkpoint its last restart or
	// rollback for the failure restored (None: none, or nothing).
	restore := slices.Repeat([]int32{history.None}, len(m.Procs))
	for _, seq := range f.Handlers {
		e := m.Event(seq)
		if e.Kind != trace.Restart && e.Kind != trace.Rollback {
			continue
		}
		n := len(m.RestoreOf(seq).Undid)
		s.Undone += n
		if e.P == f.P {
			s.Failed += n
		}
		restore[e.P] = e.Restore
	}
	for _, r := range restore {
		if r != history.None {
			s.Rolled++
		}
	}
	return s
}

// tally adds up, per failure and process, what the run's events did for
// it. Replays and resends are charged to the failure a process last
// handled, a resend that names its failure to that one (a PK restart
// writes its resends before the restart event itself).
func tally(m *history.Model, out []report.Recovery) {
	lastF := slices.Repeat([]int32{history.None}, len(m.Procs))
	for i := range m.Run.Events {
		seq, e := int32(i), &m.Run.Events[i]
		if e.P < 0 || int(e.P) >= len(lastF) {
			continue
		}
		fi := history.None
		switch {
		case e.Kind == trace.Restart || e.Kind == trace.Rollback || e.Kind == trace.Checkpoint && e.CkptType == trace.CkptRecovery:
			// Only these answer a failure (Model.FailOf): the search is
			// skipped for the others, most of a run's.
			fi = m.FailOf(seq)
		case e.Kind == trace.ControlRecv || e.Kind == trace.Discard:
			if f, ok := m.FailureAt(e.Failure); ok {
				fi = f
			}
		}
		switch e.Kind {
		case trace.Restart, trace.Rollback, trace.Checkpoint, trace.ControlRecv:
			if fi == history.None {
				continue
			}
			lastF[e.P] = fi
			le := &out[fi].Line[e.P]
			if e.Kind == trace.Checkpoint {
				if le.Pos == history.None {
					le.Pos = e.Pos
				}
				if le.Cause == "none" {
					le.Cause = "recovery"
				}
			} else if e.Kind != trace.ControlRecv {
				restored(m, seq, e, le)
			}
		case trace.Discard:
			if fi != history.None {
				out[fi].Line[e.P].Discarded++
			}
		case trace.Recv:
			if e.Via == trace.ViaLog && lastF[e.P] != history.None {
				out[lastF[e.P]].Line[e.P].Replayed++
			}
		case trace.Send:
			if f, ok := m.FailureAt(e.Failure); ok && e.Resend {
				out[f].Line[e.P].Resent++
			} else if e.Resend && lastF[e.P] != history.None {
				out[lastF[e.P]].Line[e.P].Resent++
			}
		}
	}
}

// restored adds the restart or rollback at seq to a process's line
// entry.
func restored(m *history.Model, seq int32, e *trace.RunEvent, le *report.LineEntry) {
	le.Restore, le.Pos = nil, e.Pos
	if e.Restore != history.None {
		r := e.Restore
		le.Restore = &r
	}
	rs := m.RestoreOf(seq)
	if ck, ok := m.RestoredCkpt(rs); ok && m.Alg == history.PK {
		le.VT = report.VT(rs.VT)
	} else if ok {
		sn := ck.Sn
		le.Sn = nil
		if sn != history.None {
			le.Sn = &sn
		}
	}
	le.Undone += len(rs.Undid)
	le.Replayed += int(rs.Replayed)
	switch {
	case e.Kind == trace.Restart:
		le.Cause = "restart"
	case e.Cause != trace.CauseNone:
		le.Cause = e.Cause.String()
	default:
		le.Cause = "rollback"
	}
}
