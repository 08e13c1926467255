package consistency

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// pkClocks rebuilds every PK process's vector time from the run (SPEC
// §5): its own entry is (inc, pos) — inc its restart count (Model.Inc),
// pos its live op count — and every other entry the maximum of that entry over the
// copies its live receipts took. A restore starts again from the
// rebuilt vector of the restored checkpoint, merged with the receipts
// the restore replays silently.
type pkClocks struct {
	m   *history.Model
	cur []trace.VT // per process, the merge of its live receipts' vectors
	// ckpts are, per process, the rebuilt vector of each checkpoint
	// taken, by index in Taken. Where the run's vector is the rebuilt
	// one (in a correct run, everywhere) it is the run's own slice: the
	// checker keeps no vector per checkpoint of its own.
	ckpts [][]trace.VT
	lost  []bool // the process restored a checkpoint whose vector is unknown
	slab  []trace.VTEntry
}

func newPKClocks(m *history.Model) *pkClocks {
	np := len(m.Procs)
	c := &pkClocks{m: m, cur: make([]trace.VT, np), ckpts: make([][]trace.VT, np), lost: make([]bool, np)}
	taken := 0
	for p := range m.Procs {
		taken += len(m.Procs[p].Taken)
	}
	// One slab holds the current vectors of the processes with events and
	// the all-zero initial one; a checkpoint whose vector differs from the
	// run's gets its own. A process without events keeps a nil current
	// vector until one is needed (cur): a run of many idle processes
	// costs the busy ones' vectors, not n² entries.
	c.slab = make([]trace.VTEntry, (m.Run.Busy()+1)*np)
	zero := c.vector()
	vts := make([]trace.VT, taken)
	for p := range c.cur {
		c.ckpts[p], vts = vts[:1:len(m.Procs[p].Taken)], vts[len(m.Procs[p].Taken):]
		c.ckpts[p][0] = zero
	}
	return c
}

// current returns p's current vector, made on first use.
func (c *pkClocks) current(p int32) trace.VT {
	if c.cur[p] == nil {
		c.cur[p] = c.vector()
	}
	return c.cur[p]
}

// vector hands out a fresh vector, from the slab while it lasts.
func (c *pkClocks) vector() trace.VT {
	n := len(c.cur)
	if len(c.slab) < n {
		return make(trace.VT, n)
	}
	v := c.slab[:n:n]
	c.slab = c.slab[n:]
	return v
}

// at returns p's rebuilt vector at event seq, with its own entry at
// count.
func (c *pkClocks) at(p, seq, count int32) trace.VT {
	vt := c.current(p)
	vt[p] = trace.VTEntry{Inc: c.m.Inc(p, seq), Count: count}
	return vt
}

// merge takes the entry-wise maximum with a receipt's vector.
func (c *pkClocks) merge(p int32, vt trace.VT) {
	cur := c.current(p)
	for j := range min(len(cur), len(vt)) {
		if cur[j].Less(vt[j]) {
			cur[j] = vt[j]
		}
	}
}

// restore restarts p's vector from a restored checkpoint.
func (c *pkClocks) restore(rs *history.Restore, e *trace.RunEvent) {
	p := e.P
	ck, ok := c.m.RestoredCkpt(rs)
	if !ok || int(ck.Index) >= len(c.ckpts[p]) || c.ckpts[p][ck.Index] == nil {
		c.lost[p] = true
		return
	}
	copy(c.current(p), c.ckpts[p][ck.Index])
	for _, s := range rs.Replayed {
		c.merge(p, c.vtOf(s))
	}
}

// vtOf returns the vector the copy a receive took carries, or nil.
func (c *pkClocks) vtOf(s int32) trace.VT {
	e := c.m.Event(s)
	if pb := c.m.PB(c.m.Copies.Index(e.Msg, e.Copy)); pb != nil {
		return pb.VT
	}
	return nil
}

// pkStateRules judges the vectors a PK run shows against the ones
// rebuilt from it: each send's piggyback and each checkpoint's vector
// must be the process's vector time at that moment (a vector entry the
// sender's history cannot produce, or one it lacks, breaks the orphan
// tests of every receiver).
func pkStateRules(m *history.Model, r *result) {
	if m.Missing.Replay() {
		return // pkLogReplay said why
	}
	c := newPKClocks(m)
	for i := range m.Run.Events {
		e := &m.Run.Events[i]
		if e.P < 0 || int(e.P) >= len(m.Procs) || c.lost[e.P] {
			continue
		}
		seq := int32(i)
		switch e.Kind {
		case trace.Send:
			if !e.Resend {
				c.judge(seq, e, e.Op+1, vtOrNil(m.Run.PB(e)), r)
			}
		case trace.Recv:
			c.merge(e.P, c.vtOf(seq))
		case trace.Checkpoint:
			c.checkpoint(seq, e, r)
		case trace.Restart, trace.Rollback:
			c.restore(m.RestoreOf(seq), e)
		}
	}
}

// checkpoint judges a checkpoint's vector and keeps the rebuilt one.
func (c *pkClocks) checkpoint(seq int32, e *trace.RunEvent, r *result) {
	p := e.P
	taken := c.m.Procs[p].Taken
	k := len(c.ckpts[p])
	if e.CkptType == trace.CkptInitial || k >= len(taken) {
		return
	}
	pos := taken[k].Pos
	want := c.at(p, seq, pos)
	vt := c.m.Run.VTOf(e)
	if vt != nil {
		c.judge(seq, e, pos, vt, r)
	}
	if vtDiff(vt, want) >= 0 {
		vt = c.vector()
		copy(vt, want)
	}
	c.ckpts[p] = append(c.ckpts[p], vt)
}

// judge compares the vector a send or checkpoint shows with the rebuilt
// one.
func (c *pkClocks) judge(seq int32, e *trace.RunEvent, count int32, got trace.VT, r *result) {
	m, p := c.m, e.P
	if got == nil {
		r.cannotJudge(fmt.Sprintf("%s at seq %d carries no vector time", vtHolder(m, e), seq))
		return
	}
	want := c.at(p, seq, count)
	j := vtDiff(got, want)
	if j < 0 {
		return
	}
	r.fail([]int32{seq}, func() (string, string) {
		return fmt.Sprintf("%s's %s at seq %d carries vector time %s, not %s", m.ProcName(p), vtHolder(m, e), seq, vtString(got), vtString(want)),
			fmt.Sprintf("%s's vector time at seq %d, rebuilt from its incarnation (%d restarts), its %d live ops and the vectors of the copies its live receipts took, is %s; its entry for %s is %s, but the run says %s",
				m.ProcName(p), seq, m.Inc(p, seq), count, vtString(want), m.ProcName(int32(j)), vtEntry(want, j), vtEntry(got, j))
	})
}

// vtHolder names the send or checkpoint a vector belongs to.
func vtHolder(m *history.Model, e *trace.RunEvent) string {
	if e.Kind == trace.Checkpoint {
		return fmt.Sprintf("checkpoint %d", e.Ckpt)
	}
	return "the send of " + m.MsgName(e.Msg)
}

// vtDiff returns the first entry where two vectors differ (an entry one
// has and the other lacks counts), or -1.
func vtDiff(got, want trace.VT) int {
	n := min(len(got), len(want))
	for j := range n {
		if got[j] != want[j] {
			return j
		}
	}
	if len(got) != len(want) {
		return n
	}
	return -1
}

func vtEntry(vt trace.VT, j int) string {
	if j >= len(vt) {
		return "no entry"
	}
	return fmt.Sprintf("(%d, %d)", vt[j].Inc, vt[j].Count)
}

func vtString(vt trace.VT) string {
	s := "["
	for j, x := range vt {
		if j > 0 {
			s += " "
		}
		s += fmt.Sprintf("(%d,%d)", x.Inc, x.Count)
	}
	return s + "]"
}

func vtOrNil(pb *trace.Piggyback) trace.VT {
	if pb == nil {
		return nil
	}
	return pb.VT
}
