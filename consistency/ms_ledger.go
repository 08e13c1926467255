package consistency

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// msLedger replays MS's bookkeeping from the run alone, event by event
// (SPEC §4): per process the number sn of its latest checkpoint, the
// recoveries it has applied (vector F, each recovery's line r known from
// the model) and its latest restore; for the textbook variant its scalar
// incarnation and recovery line, adopted from Rollback requests and
// messages with a higher incarnation. A rule judges each event against
// the ledger, then calls step.
type msLedger struct {
	m           *history.Model
	textbook    bool
	sn          []int32
	F           [][]trace.FEntry
	lastRestore []int32
	rs          [][]int32 // rs[o][c-1]: line r of o's c-th recovery
	next        []int32   // timer ticks so far (basic numbering, SPEC §4.1)

	down    []bool
	pending [][]trace.ControlBody
	tbInc   []int32
	tbLine  []int32
}

func newMSLedger(m *history.Model) *msLedger {
	np := len(m.Procs)
	ints := make([]int32, 5*np) // one allocation for the per-process numbers
	l := &msLedger{m: m, textbook: m.Alg == history.Textbook,
		sn: ints[:np:np], lastRestore: ints[np : 2*np : 2*np], next: ints[2*np : 3*np : 3*np],
		tbInc: ints[3*np : 4*np : 4*np], tbLine: ints[4*np:], F: make([][]trace.FEntry, np), down: make([]bool, np)}
	for p := range l.lastRestore {
		l.lastRestore[p] = history.None
	}
	for _, f := range m.Failures {
		if f.Count == history.None {
			continue
		}
		if l.rs == nil {
			l.rs = make([][]int32, np)
		}
		for int32(len(l.rs[f.P])) < f.Count {
			l.rs[f.P] = append(l.rs[f.P], history.None)
		}
		l.rs[f.P][f.Count-1] = f.R
	}
	return l
}

// sweep calls visit for every event of a process the header names, in
// seq order, each before the ledger steps past it.
func (l *msLedger) sweep(visit func(seq int32, e *trace.RunEvent)) {
	for i := range l.m.Run.Events {
		e := &l.m.Run.Events[i]
		if e.P < 0 || int(e.P) >= len(l.m.Procs) {
			continue
		}
		visit(int32(i), e)
		l.step(int32(i), e)
	}
}

// step applies event seq's effect on the bookkeeping.
func (l *msLedger) step(seq int32, e *trace.RunEvent) {
	p := e.P
	switch e.Kind {
	case trace.Checkpoint:
		if e.CkptType == trace.CkptInitial {
			return
		}
		l.sn[p] = e.Sn
		if e.CkptType == trace.CkptBasic {
			l.next[p]++
		}
		if e.CkptType == trace.CkptRecovery {
			if fi := l.m.FailOf(seq); fi != history.None {
				l.apply(p, fi)
			}
		}
	case trace.CheckpointSkipped:
		l.next[p]++
	case trace.Restart, trace.Rollback:
		l.restore(seq, e)
	case trace.Fail:
		l.down[p] = true
	case trace.ControlRecv:
		if body := l.m.Run.Body(e); l.textbook && e.Control == trace.ControlRollback && body != nil {
			if l.down[p] {
				// A down process handles requests at its restart, after
				// raising its own incarnation.
				if l.pending == nil {
					l.pending = make([][]trace.ControlBody, len(l.m.Procs))
				}
				l.pending[p] = append(l.pending[p], *body)
			} else {
				l.adopt(p, body.Count, body.R)
			}
		}
	}
}

// restore applies a restart or rollback (one that names a checkpoint the
// process took; any other leaves the ledger as it was).
func (l *msLedger) restore(seq int32, e *trace.RunEvent) {
	p := e.P
	ck, ok := l.m.RestoredCkpt(l.m.RestoreOf(seq))
	if !ok {
		return
	}
	if fi := l.m.FailOf(seq); fi != history.None {
		l.apply(p, fi)
	}
	l.sn[p] = ck.Sn
	l.lastRestore[p] = seq
	if e.Kind != trace.Restart {
		return
	}
	l.down[p] = false
	if l.textbook {
		l.tbInc[p]++
		l.tbLine[p] = ck.Sn
		if l.pending != nil {
			for _, b := range l.pending[p] {
				l.adopt(p, b.Count, b.R)
			}
			l.pending[p] = l.pending[p][:0]
		}
	}
}

// apply records that p applied failure fi's recovery.
func (l *msLedger) apply(p, fi int32) {
	if f := &l.m.Failures[fi]; f.Count != history.None {
		l.F[p] = fSet(l.F[p], f.P, f.Count)
	}
}

// adopt raises p's textbook incarnation and line to a higher one seen.
func (l *msLedger) adopt(p, inc, line int32) {
	if inc != history.None && inc > l.tbInc[p] {
		l.tbInc[p], l.tbLine[p] = inc, line
	}
}

// adoptFrom adopts the textbook state a message carries.
func (l *msLedger) adoptFrom(p int32, pb *trace.Piggyback) {
	if l.textbook && pb != nil {
		l.adopt(p, pb.Inc, pb.RecLine)
	}
}

// valid reports whether a message with piggyback pb is still valid at p:
// for every recovery p applied and the sender had not, M.sn < r (SPEC
// §4.2 case 2); textbook: not (M.inc < inc and M.sn ≥ rec_line).
func (l *msLedger) valid(pb *trace.Piggyback, p int32) bool {
	if l.textbook {
		return !(pb.Inc != history.None && pb.Inc < l.tbInc[p] && pb.Sn >= l.tbLine[p])
	}
	_, _, stale := l.staleBy(pb, p)
	return !stale
}

// staleBy returns a recovery (origin, count) that makes pb stale at p.
func (l *msLedger) staleBy(pb *trace.Piggyback, p int32) (o, c int32, stale bool) {
	for _, x := range l.F[p] {
		for cnt := fGet(pb.F, x.P) + 1; cnt <= x.Count; cnt++ {
			if r := l.line(x.P, cnt); r != history.None && pb.Sn >= r {
				return x.P, cnt, true
			}
		}
	}
	return 0, 0, false
}

// line returns the line r of o's c-th recovery, or None.
func (l *msLedger) line(o, c int32) int32 {
	if o < 0 || int(o) >= len(l.rs) || c < 1 || int(c) > len(l.rs[o]) {
		return history.None
	}
	return l.rs[o][c-1]
}

// staleWhy explains why pb is stale at p.
func (l *msLedger) staleWhy(pb *trace.Piggyback, p int32) string {
	m := l.m
	if l.textbook {
		return fmt.Sprintf("its incarnation %d is below %s's %d and its sn %d is ≥ the recovery line %d (the textbook rule)",
			pb.Inc, m.ProcName(p), l.tbInc[p], pb.Sn, l.tbLine[p])
	}
	if o, c, stale := l.staleBy(pb, p); stale {
		r := l.line(o, c)
		return fmt.Sprintf("its sender had not applied recovery (%s, %d) with line r=%d, and its sn %d is ≥ %d, so its send was undone",
			m.ProcName(o), c, r, pb.Sn, r)
	}
	return "it is not valid"
}

func fGet(f []trace.FEntry, o int32) int32 {
	for _, x := range f {
		if x.P == o {
			return x.Count
		}
	}
	return 0
}

// fSet raises o's count in the sparse, sorted vector f to cnt.
func fSet(f []trace.FEntry, o, cnt int32) []trace.FEntry {
	for k := range f {
		if f[k].P == o {
			if cnt > f[k].Count {
				f[k].Count = cnt
			}
			return f
		}
	}
	f = append(f, trace.FEntry{P: o, Count: cnt})
	for k := len(f) - 1; k > 0 && f[k].P < f[k-1].P; k-- {
		f[k], f[k-1] = f[k-1], f[k]
	}
	return f
}
