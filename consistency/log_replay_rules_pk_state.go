package consistency

import (
	"fmt"
	"slices"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// pkClocks rebuilds every PK process's vector time from the run (SPEC
// §5): its own entry is (inc, pos) — inc its restarts so far, pos its
// live op count — and every other entry the maximum of that entry over
// the copies its live receipts took. A restore starts again from the
// rebuilt vector of the restored checkpoint, merged with the receipts
// the restore replays silently.
//
// It follows the run event by event (step), reading the model only up to
// the event at hand, so that it can judge a run while the engine makes it
// (Stream), which may then forget each vector once it is judged.
type pkClocks struct {
	m   *history.Model
	b   *history.Builder // m in the making: it has taken the event step takes
	cur []trace.VT       // per process, the merge of its live receipts' vectors
	// ckpts are, per process, the rebuilt vector of each checkpoint
	// taken, by index in Taken (a ckptVT).
	ckpts [][]ckptVT
	// own holds the rebuilt vectors that differ from the run's; own[0]
	// is the initial checkpoints' all-zero one.
	own  []trace.VT
	lost []bool // the process restored a checkpoint whose vector is unknown
}

// ckptVT is one checkpoint's rebuilt vector. Where the run's vector is
// the rebuilt one (in a correct run, everywhere) it is its index in the
// run's VTs, not a slice: the checker keeps no vector per checkpoint of
// its own, and one the engine forgets is not held here. Else it is
// ownVT(k), own[k]. Four bytes a checkpoint: a run with 10^5 failures
// takes millions.
type ckptVT int32

// ownVT is the ckptVT of own[k].
func ownVT(k int) ckptVT { return ckptVT(-2 - k) }

func newPKClocks(b *history.Builder) *pkClocks {
	m := b.Model()
	np := len(m.Run.Processes)
	c := &pkClocks{m: m, b: b, cur: make([]trace.VT, np), ckpts: make([][]ckptVT, np), lost: make([]bool, np)}
	// A process without events keeps a nil current vector until one is
	// needed (current): a run of many idle processes costs the busy ones'
	// vectors, not n² entries. The initial checkpoint's is all zero.
	c.own = []trace.VT{make(trace.VT, np)}
	// Sized as the model's checkpoint lists are (from the source trace's
	// ticks while they are built): one allocation a process, not a
	// doubling series of them.
	for p := range c.ckpts {
		c.ckpts[p] = append(make([]ckptVT, 0, max(1, cap(b.Taken(int32(p))))), ownVT(0))
	}
	return c
}

// current returns p's current vector, made on first use.
func (c *pkClocks) current(p int32) trace.VT {
	if c.cur[p] == nil {
		c.cur[p] = make(trace.VT, len(c.cur))
	}
	return c.cur[p]
}

// at returns p's rebuilt vector at the event step takes, with its own
// entry at count.
func (c *pkClocks) at(p, count int32) trace.VT {
	vt := c.current(p)
	vt[p] = trace.VTEntry{Inc: c.b.Incarnation(p), Count: count}
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
	vt := c.restored(rs, p)
	if vt == nil {
		c.lost[p] = true
		return
	}
	copy(c.current(p), vt)
	for _, s := range rs.Replayed {
		c.merge(p, c.vtOf(s))
	}
}

// restored returns the rebuilt vector of the checkpoint rs restored, or
// nil when that is unknown.
func (c *pkClocks) restored(rs *history.Restore, p int32) trace.VT {
	if rs == nil || rs.Restored == history.None || int(rs.Restored) >= len(c.ckpts[p]) {
		return nil
	}
	ref := c.ckpts[p][rs.Restored]
	if ref < 0 {
		return c.own[ownVT(0)-ref]
	}
	return c.m.Run.VTs[ref]
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
// tests of every receiver). A Stream judges them as the run is made.
// Here the model is finished, but each event is still judged against the
// run as it was then (a receipt takes the copy sent so far, not one a
// forged run sends under the same number later): the run goes through a
// builder of its own, as in a Stream, so that Judge and Check agree.
func pkStateRules(m *history.Model, r *result) {
	if m.Missing.Replay() {
		return // pkLogReplay said why
	}
	b := history.NewBuilder(m.Run, m.Src, m.Alg, len(m.Run.Events))
	c := newPKClocks(b)
	for i := range m.Run.Events {
		e := &m.Run.Events[i]
		b.Add(e)
		c.step(int32(i), e, r)
	}
}

// step takes event seq.
func (c *pkClocks) step(seq int32, e *trace.RunEvent, r *result) {
	if e.P < 0 || int(e.P) >= len(c.cur) || c.lost[e.P] {
		return
	}
	switch e.Kind {
	case trace.Send:
		if !e.Resend {
			c.judge(seq, e, e.Op+1, vtOrNil(c.m.Run.PB(e)), r)
		}
	case trace.Recv:
		c.merge(e.P, c.vtOf(seq))
	case trace.Checkpoint:
		c.checkpoint(seq, e, r)
	case trace.Restart, trace.Rollback:
		c.restore(c.m.RestoreOf(seq), e)
	}
}

// checkpoint judges a checkpoint's vector and keeps the rebuilt one.
func (c *pkClocks) checkpoint(seq int32, e *trace.RunEvent, r *result) {
	p := e.P
	taken := c.b.Taken(p)
	k := len(c.ckpts[p])
	if e.CkptType == trace.CkptInitial || k >= len(taken) {
		return
	}
	pos := taken[k].Pos
	want := c.at(p, pos)
	vt := c.m.Run.VTOf(e)
	if vt != nil {
		c.judge(seq, e, pos, vt, r)
	}
	ref := ckptVT(e.VT)
	if vtDiff(vt, want) >= 0 {
		ref = ownVT(len(c.own))
		c.own = append(c.own, slices.Clone(want))
	}
	c.ckpts[p] = append(c.ckpts[p], ref)
}

// judge compares the vector a send or checkpoint shows with the rebuilt
// one.
func (c *pkClocks) judge(seq int32, e *trace.RunEvent, count int32, got trace.VT, r *result) {
	m, p := c.m, e.P
	if got == nil {
		r.cannotJudge(fmt.Sprintf("%s at seq %d carries no vector time", vtHolder(m, e), seq))
		return
	}
	want := c.at(p, count)
	j := vtDiff(got, want)
	if j < 0 {
		return
	}
	r.fail([]int32{seq}, func() (string, string) {
		return fmt.Sprintf("%s's %s at seq %d carries vector time %s, not %s", m.ProcName(p), vtHolder(m, e), seq, vtString(got), vtString(want)),
			fmt.Sprintf("%s's vector time at seq %d, rebuilt from its incarnation (%d restarts), its %d live ops and the vectors of the copies its live receipts took, is %s; its entry for %s is %s, but the run says %s",
				m.ProcName(p), seq, c.b.Incarnation(p), count, vtString(want), m.ProcName(int32(j)), vtEntry(want, j), vtEntry(got, j))
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
