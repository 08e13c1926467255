package consistency

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// restoreRules judges the checkpoint each restart and rollback names
// against the algorithm's rule and the position it keeps, rebuilt from
// the checkpoints the process held (issue 14: a restore's `restore` id
// is not taken on trust):
//
//   - MS stops at the restored checkpoint's position (its replays are
//     recv events via log after the restore), so pos is that position;
//   - an MS rollback restores the earliest checkpoint numbered ≥ r it
//     held (SPEC §4.2; one further back fails domino-free instead);
//   - a PK rollback restores the latest checkpoint it held that is no
//     orphan of the announcements it had recorded (SPEC §5), and
//     replays silently from there.
//
// A restore keeping fewer ops than its checkpoint holds is malformed
// for every algorithm (history.RestoreBelowCkpt, equivalence).
func restoreRules(m *history.Model, r *result) {
	if m.Missing.Ops || m.Missing.Restore {
		return // the MS and PK rules said why they are unknown
	}
	for i := range m.Restores {
		rs := &m.Restores[i]
		e := m.Event(rs.Seq)
		ck, ok := m.RestoredCkpt(rs)
		if !ok || e.Pos == history.None || e.Pos < ck.Pos {
			continue
		}
		switch {
		case m.Alg.IsMS():
			msRestorePos(m, rs.Seq, e, ck, r)
			if e.Kind == trace.Rollback && m.Alg == history.MS {
				msRollbackTarget(m, rs, e, ck, r)
			}
		case m.Alg == history.PK && e.Kind == trace.Rollback:
			if pkRestartUnknown(m, rs) == "" {
				pkRollbackTarget(m, rs, e, ck, r)
			}
		}
	}
}

// msRestorePos checks that an MS restore keeps exactly its checkpoint's
// ops.
func msRestorePos(m *history.Model, seq int32, e *trace.RunEvent, ck history.Ckpt, r *result) {
	if e.Pos == ck.Pos {
		return
	}
	r.fail(restoreSeqs(ck, seq), func() (string, string) {
		return fmt.Sprintf("%s's %s at seq %d restores checkpoint %d, taken at pos %d, but says pos %d", m.ProcName(e.P), e.Kind, seq, ck.ID, ck.Pos, e.Pos),
			fmt.Sprintf("MS restores a checkpoint and stops at its position — what it replays from its log shows as recv events via log after the restore — so a restore of checkpoint %d keeps pos %d, but the %s at seq %d says pos %d",
				ck.ID, ck.Pos, e.Kind, seq, e.Pos)
	})
}

// msRollbackTarget checks that an MS rollback restores the earliest
// checkpoint numbered ≥ r it held, not a later one.
func msRollbackTarget(m *history.Model, rs *history.Restore, e *trace.RunEvent, ck history.Ckpt, r *result) {
	fi := m.FailOf(rs.Seq)
	if fi == history.None || m.Failures[fi].R == history.None {
		return
	}
	f := &m.Failures[fi]
	want := m.EarliestHeld(e.P, rs, f.R)
	if want == nil || want.ID == ck.ID || ck.Pos < want.Pos {
		return // no bound, or one too far back (domino-free)
	}
	r.fail(restoreSeqs(ck, rs.Seq), func() (string, string) {
		return fmt.Sprintf("%s's rollback at seq %d restores checkpoint %d, not checkpoint %d", m.ProcName(e.P), rs.Seq, ck.ID, want.ID),
			fmt.Sprintf("applying recovery (%s, %d, r=%d) MS restores the earliest checkpoint numbered ≥ %d it holds, which for %s was checkpoint %d (sn %d, pos %d), but the rollback restored checkpoint %d (sn %d, pos %d)",
				m.ProcName(f.P), f.Count, f.R, f.R, m.ProcName(e.P), want.ID, want.Sn, want.Pos, ck.ID, ck.Sn, ck.Pos)
	})
}

// pkRollbackTarget checks that a PK rollback restores the latest
// non-orphan checkpoint it held.
func pkRollbackTarget(m *history.Model, rs *history.Restore, e *trace.RunEvent, ck history.Ckpt, r *result) {
	want := pkRestoreTarget(m, rs)
	if want.ID == ck.ID {
		return
	}
	r.fail(restoreSeqs(ck, rs.Seq), func() (string, string) {
		return fmt.Sprintf("%s's rollback at seq %d restores checkpoint %d, not its latest non-orphan checkpoint %d", m.ProcName(e.P), rs.Seq, ck.ID, want.ID),
			fmt.Sprintf("PK rolls back to the latest checkpoint that is no orphan of the announcements recorded by then and replays silently from it; for %s at seq %d that is checkpoint %d (pos %d), but the rollback restored checkpoint %d (pos %d)",
				m.ProcName(e.P), rs.Seq, want.ID, want.Pos, ck.ID, ck.Pos)
	})
}

// restoreSeqs are a restore's witness seqs: the checkpoint it names (if
// the run wrote it) and the restore.
func restoreSeqs(ck history.Ckpt, seq int32) []int32 {
	return []int32{ck.Seq, seq}
}
