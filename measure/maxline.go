package measure

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/rline"
)

// maxLine computes the maximum consistent recovery line of checkpoints
// for failure fi (Wang 1997) from the snapshot the model took at its fail
// instant: the failed process at its latest checkpoint at or before its
// restored state, everyone else at its state at the failure instant,
// then rollback propagation, as the report writes it. nil when it cannot
// be computed (no restart, no snapshot, or a history rline refuses).
// sorted is sortedChains(m); msgs is room for the snapshot's messages,
// which the failures share (each graph is garbage once its line is
// drawn).
//
// The held checkpoints are read from each process's chain of parents,
// walked only as far as the propagation goes: a failure costs what it
// rolls back, not every checkpoint held.
func maxLine(m *history.Model, fi int, sorted [][]bool, msgs *[]rline.Msg) []report.MaxLineEntry {
	f := &m.Failures[fi]
	s := &f.Snap
	if s.Heads == nil || f.Restart == history.None {
		return nil
	}
	restored := m.Event(f.Restart).Pos
	if restored == history.None {
		return nil
	}
	ch := &heldChain{m: m, heads: s.Heads, cur: make([]int32, len(s.Heads)), asked: make([]int32, len(s.Heads))}
	for p, h := range s.Heads {
		if !sorted[p][h] {
			return nil
		}
		ch.cur[p], ch.asked[p] = h, -1
	}
	start := make([]int32, len(s.LiveAt))
	copy(start, s.LiveAt)
	start[f.P] = 0
	if x := min(restored, s.LiveAt[f.P]); x >= 0 {
		_, start[f.P] = ch.Latest(f.P, x)
	}
	ms := (*msgs)[:0]
	for _, r := range s.Recvs {
		re, se := m.Event(r), m.Event(m.SendOf[r])
		ms = append(ms, rline.Msg{From: se.P, SendOp: se.Op, To: re.P, RecvOp: re.Op})
	}
	*msgs = ms
	g, err := rline.NewOver(int32(len(s.Heads)), ch, ms)
	if err != nil {
		return nil
	}
	line, err := g.Line(start, s.LiveAt)
	if err != nil {
		return nil
	}
	out := make([]report.MaxLineEntry, len(line))
	for p, l := range line {
		out[p] = report.MaxLineEntry{P: m.ProcName(int32(p)), Ckpt: history.None, Pos: l.Pos, Undone: int(l.Undone)}
		if l.Ckpt >= 0 {
			out[p].Ckpt = m.Procs[p].Taken[l.Ckpt].ID
		}
	}
	return out
}

// noMaxLine says why maxLine gave failure f no line, for the report to
// print beside the extra figures it leaves blank.
func noMaxLine(f *history.Failure) string {
	switch {
	case f.Restart == history.None:
		return "no max line or extra: the failed process does not restart in the run"
	case f.Snap.Heads == nil:
		return fmt.Sprintf("no max line or extra: ckpt snapshots at most %d live ops per run to draw max lines, and this failure's snapshot would pass that bound", history.SnapshotBudget)
	}
	return "no max line or extra: the run's checkpoints and receipts do not let one be drawn"
}

// Extra sums, over the processes, the rollback of failure fi's recovery
// beyond the maximum consistent line of checkpoints
// (report.LineEntry.Extra): undone, what the recovery undid (Sum.Undone),
// less what the line undoes; 0 when the line cannot be drawn. It is
// never more than undone.
func Extra(m *history.Model, fi, undone int) int {
	var msgs []rline.Msg
	line := maxLine(m, fi, sortedChains(m), &msgs)
	if line == nil {
		return 0
	}
	for _, l := range line {
		undone -= l.Undone
	}
	return undone
}

// sortedChains reports, per process and checkpoint taken, whether
// positions never decrease along its chain of parents down to the
// initial checkpoint: a run can break that, and rline needs it. A
// parent is taken before its child, so one pass in Taken order does.
func sortedChains(m *history.Model) [][]bool {
	out := make([][]bool, len(m.Procs))
	for p := range m.Procs {
		t := m.Procs[p].Taken
		out[p] = make([]bool, len(t))
		for i := range t {
			par := t[i].Parent
			out[p][i] = par == history.None || out[p][par] && t[par].Pos <= t[i].Pos
		}
	}
	return out
}

// heldChain gives rline the checkpoints each process held at a fail
// instant: the chain of parents from the head it held then. A handle is
// an index into the process's Taken.
type heldChain struct {
	m     *history.Model
	heads []int32
	// cur and asked are, per process, where the last walk stopped and
	// for which position: a walk for a lower position goes on from
	// there, a higher one starts again at the head.
	cur, asked []int32
}

// Latest implements rline.Checkpoints.
func (c *heldChain) Latest(p, pos int32) (h, at int32) {
	t := c.m.Procs[p].Taken
	h = c.cur[p]
	if c.asked[p] < 0 || pos > c.asked[p] {
		h = c.heads[p]
	}
	for h != history.None && t[h].Pos > pos {
		h = t[h].Parent
	}
	c.cur[p], c.asked[p] = h, pos
	if h == history.None {
		return history.None, history.None
	}
	return h, t[h].Pos
}
