package history

import "github.com/ckpt-dev/ckpt/rline"

// MaxLineEntry is one process's place on a failure's maximum consistent
// recovery line of checkpoints.
type MaxLineEntry struct {
	// Ckpt is the id of the checkpoint the process ends at, or None when
	// it keeps its state at the failure and that state is no checkpoint.
	Ckpt int32
	Pos  int32
	// Undone counts the ops of its state at the failure the line discards.
	Undone int32
}

// MaxLine computes the maximum consistent recovery line of checkpoints
// for failure fi (Wang 1997): the failed process at its latest checkpoint
// at or before its restored state, everyone else at its state at the
// failure instant, then rollback propagation. nil when it cannot be
// computed (no restart, no snapshot, or a history rline refuses).
//
// The held checkpoints are read from each process's chain of parents,
// walked only as far as the propagation goes: a failure costs what it
// rolls back, not every checkpoint held.
func (m *Model) MaxLine(fi int) []MaxLineEntry {
	f := &m.Failures[fi]
	s := &f.Snap
	if s.heads == nil || f.Restart == None {
		return nil
	}
	restored := m.Event(f.Restart).Pos
	if restored == None {
		return nil
	}
	ch := &heldChain{m: m, heads: s.heads, cur: make([]int32, len(s.heads)), asked: make([]int32, len(s.heads))}
	for p, h := range s.heads {
		if !m.Procs[p].Taken[h].sorted {
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
	g, err := rline.NewOver(int32(len(s.heads)), ch, s.recvs)
	if err != nil {
		return nil
	}
	line, err := g.Line(start, s.LiveAt)
	if err != nil {
		return nil
	}
	out := make([]MaxLineEntry, len(line))
	for p, l := range line {
		out[p] = MaxLineEntry{Ckpt: None, Pos: l.Pos, Undone: l.Undone}
		if l.Ckpt >= 0 {
			out[p].Ckpt = m.Procs[p].Taken[l.Ckpt].ID
		}
	}
	return out
}

// heldChain gives rline the checkpoints each process held at a fail
// instant: the chain of parents from the head it held then. A handle is
// an index into the process's Taken.
type heldChain struct {
	m     *Model
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
	for h != None && t[h].Pos > pos {
		h = t[h].Parent
	}
	c.cur[p], c.asked[p] = h, pos
	if h == None {
		return None, None
	}
	return h, t[h].Pos
}
