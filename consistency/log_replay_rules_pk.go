package consistency

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// pkLogReplay judges PK's replay rule at every restart (SPEC §7): its
// pos is exactly where replay from the latest checkpoint that is not an
// orphan of the announcements recorded by then stops — at the first
// receive with no stable entry at the crash, or whose entry is such an
// orphan.
func pkLogReplay(m *history.Model, r *result) {
	if m.Missing.Replay() {
		r.cannotJudge(pkFieldsWhy)
		return
	}
	stable := stableLogs(m) // stable[p][op]: see pkLogEntry
	for i := range m.Run.Events {
		e := &m.Run.Events[i]
		if e.P < 0 || int(e.P) >= len(m.Procs) {
			continue
		}
		p := e.P
		switch e.Kind {
		case trace.Log:
			if entry := pkLogEntry(m, e); entry != 0 {
				stable[p] = setEntry(stable[p], e.Op, entry)
			}
		case trace.Restart, trace.Rollback:
			rs := m.RestoreOf(int32(i))
			if e.Kind == trace.Restart {
				pkRestartPos(m, rs, stable[p], r)
			}
			if e.Pos >= 0 && int(e.Pos) < len(stable[p]) {
				stable[p] = stable[p][:e.Pos]
			}
		}
	}
}

// stableLogs makes every process's stable log, empty, with room for its
// program (pkLogEntry files nothing beyond it): growing each by one entry
// at a time cost 4% of verify's samples at 10^7 events.
func stableLogs(m *history.Model) [][]int32 {
	total := 0
	for p := range m.Procs {
		total += len(m.Program[p])
	}
	all := make([]int32, total)
	stable := make([][]int32, len(m.Procs))
	for p := range stable {
		n := len(m.Program[p])
		stable[p], all = all[:0:n], all[n:]
	}
	return stable
}

// setEntry files entry at op of a stable log, which grows to op in its
// room (stableLogs) with no entry between: what a log cut by a rollback
// held there is gone.
func setEntry(log []int32, op, entry int32) []int32 {
	if n := len(log); int(op) >= n {
		log = log[:op+1]
		clear(log[n:])
	}
	log[op] = entry
	return log
}

// unsentEntry is the stable-log entry of a log event whose copy no send
// transmitted: the receipt is logged, but its copy has no identity or
// vector.
const unsentEntry int32 = -1

// pkLogEntry is what log event e puts in its process's stable log at
// e.Op: copy index + 1, unsentEntry, or 0 for nothing usable. A log of a
// copy never sent still makes its receipt stable: replay stopping there
// would blame a missing log entry on a receipt that has one, while the
// real fault, the copy never sent, is reported by orphan-free
// (history.CopyNeverSent).
func pkLogEntry(m *history.Model, e *trace.RunEvent) int32 {
	if e.Op < 0 || int(e.Op) >= len(m.Program[e.P]) {
		// Replay walks the program: an entry beyond it is never read
		// (and a forged far op must not grow the table to it).
		return 0
	}
	if ci := m.Copies.Index(e.Msg, e.Copy); ci >= 0 {
		return ci + 1
	}
	if e.Msg >= 0 && int(e.Msg) < len(m.Run.Msgs) && e.Copy > 0 {
		return unsentEntry
	}
	return 0
}

// pkRestartPos checks where one PK restart's replay stops.
func pkRestartPos(m *history.Model, rs *history.Restore, stable []int32, r *result) {
	if why := pkRestartUnknown(m, rs); why != "" {
		r.cannotJudge(why)
		return
	}
	fi := m.FailOf(rs.Seq)
	if fi == history.None {
		return
	}
	e := m.Event(rs.Seq)
	want := pkRestoreTarget(m, rs)
	prog := m.Program[e.P]
	pos := want.Pos
	orphan, by := false, history.Announcement{} // whose orphan stops the replay
	for ; int(pos) < len(prog); pos++ {
		if prog[pos].Kind != trace.Recv {
			continue
		}
		if int(pos) >= len(stable) || stable[pos] == 0 {
			break
		}
		if stable[pos] == unsentEntry {
			if len(rs.Known) > 0 {
				r.cannotJudge("a logged receipt's copy was never sent, so whether it is an orphan of the announcements recorded, and replay stops before it, cannot be told")
				return
			}
			continue // no announcement can make it an orphan
		}
		pb := m.PB(stable[pos] - 1)
		if (pb == nil || pb.VT == nil) && len(rs.Known) > 0 {
			// Without the copy's vector its orphan status under the
			// recorded announcements cannot be told, nor where replay stops.
			r.cannotJudge("a logged receipt's copy carries no vector time, so whether replay stops before it cannot be told")
			return
		}
		if pb != nil {
			if orphan, by = m.KnownOrphan(e.P, rs, pb.VT); orphan {
				break
			}
		}
	}
	if e.Pos != pos {
		r.fail([]int32{rs.Seq}, func() (string, string) {
			return fmt.Sprintf("%s's restart at seq %d stops at pos %d, the replay rule says %d", m.ProcName(e.P), rs.Seq, e.Pos, pos),
				fmt.Sprintf("replaying from checkpoint %d (pos %d) with the stable log at the crash stops before %s, i.e. at pos %d, but the restart claims pos %d",
					want.ID, want.Pos, replayStop(m, prog, pos, orphan, by), pos, e.Pos)
		})
	}
}

// replayStop says what stops a PK restart's replay at op pos of its
// program prog: the program's end, a receive with no stable log entry
// at the crash, or (orphan) one whose logged copy is an orphan of
// announcement a.
func replayStop(m *history.Model, prog []history.ProgOp, pos int32, orphan bool, a history.Announcement) string {
	switch {
	case int(pos) >= len(prog):
		return "the end of its program"
	case orphan:
		return fmt.Sprintf("op %d, whose logged %s is an orphan of announcement (%s, inc %d, k %d)", pos, m.MsgName(prog[pos].Msg), m.ProcName(a.Origin), a.Inc, a.K)
	}
	return fmt.Sprintf("op %d, a receive of %s with no stable log entry at the crash", pos, m.MsgName(prog[pos].Msg))
}

// pkFlushRule judges that taking a PK checkpoint first flushes the
// volatile message log (SPEC §5): every live receipt is stable — a log
// event made it so — when a checkpoint is taken.
func pkFlushRule(m *history.Model, r *result) {
	for p := range m.Procs {
		for _, c := range m.Procs[p].Taken {
			if c.Seq == history.None || c.Unstable == 0 {
				continue
			}
			r.fail([]int32{c.Seq}, func() (string, string) {
				return fmt.Sprintf("%s's checkpoint %d at seq %d leaves %d receipts off stable storage", m.ProcName(int32(p)), c.ID, c.Seq, c.Unstable),
					fmt.Sprintf("taking a checkpoint first flushes the volatile message log, which the run shows as one log event per entry, but when %s took checkpoint %d at seq %d, %d of its live receipts had no log event",
						m.ProcName(int32(p)), c.ID, c.Seq, c.Unstable)
			})
		}
	}
}
