package history

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/trace"
)

// A PK flush writes every volatile log entry to stable storage (SPEC
// §5), which a run shows as one log event per entry at the flush's time.
// A run shows no flush itself, so the checker takes the flush times from
// the source trace: a log event left out where the receipt is later
// undone changed nothing else the checker sees, and passed.

// flushesBefore judges the source trace's flushes strictly before t:
// their instants are over once an event at t comes. A cursor walks the
// trace's events (in time order) rather than a list of its flushes,
// which cost 16 bytes a flush (80 MB for 10^5 ops with flushes every
// tick). Only PK's log is written at flushes: other runs skip the walk.
func (b *Builder) flushesBefore(t trace.Time) {
	w := &b.wf
	if w.src == nil || b.m.Alg != PK {
		return
	}
	for ev := w.src.Events; w.nextFlush < len(ev) && ev[w.nextFlush].T < t; w.nextFlush++ {
		if e := &ev[w.nextFlush]; e.Kind == trace.Flush && e.P >= 0 && int(e.P) < len(b.procs) {
			b.flushed(e, int32(w.nextFlush))
		}
	}
}

// logBacked checks the converse of flushed: PK writes log events only
// when its volatile log is flushed, at a flush of the source trace or at
// a timer tick (a checkpoint flushes first), so a log event at an
// instant where its process has neither is forged. It made a receipt
// stable that a crash loses, and the restart then replays it instead of
// rolling its dependents back: orphans kept with every rule passing.
// Without a comparable source trace nothing says when PK flushed, and
// the log events are taken as they are (docs/checker.md).
func (b *Builder) logBacked(seq int32, e *trace.RunEvent, receipt int32) {
	w := &b.wf
	if w.src == nil || b.m.Alg != PK {
		return
	}
	if w.flushAt == nil {
		np := len(b.procs)
		w.flushAt, w.tickAt = make([]trace.Time, np), make([]trace.Time, np)
		w.flushIdx, w.tickIdx = make([]int32, np), make([]int32, np)
		w.failAt = make([]trace.Time, np)
		for p := range w.flushAt {
			w.flushAt[p], w.tickAt[p], w.failAt[p] = -1, -1, -1
		}
	}
	for ev := w.src.Events; w.nextAt < len(ev) && ev[w.nextAt].T <= e.T; w.nextAt++ {
		te := &ev[w.nextAt]
		if te.P < 0 || int(te.P) >= len(b.procs) {
			continue
		}
		// A flush or tick after a fail of its instant finds the process
		// down: it flushes nothing (SPEC §3). Found by the third review.
		switch p := te.P; {
		case te.Kind == trace.Fail:
			w.failAt[p] = te.T
		case w.failAt[p] == te.T:
		case te.Kind == trace.Flush:
			w.flushAt[p], w.flushIdx[p] = te.T, int32(w.nextAt)
		case te.Kind == trace.Checkpoint:
			w.tickAt[p], w.tickIdx[p] = te.T, int32(w.nextAt)
		}
	}
	idx := None // the latest flush or tick of the instant the process was up at
	if w.flushAt[e.P] == e.T {
		idx = w.flushIdx[e.P]
	}
	if w.tickAt[e.P] == e.T {
		idx = max(idx, w.tickIdx[e.P])
	}
	if b.procs[e.P].down {
		idx = None // a down process flushes nothing (SPEC §3)
	}
	if idx != None {
		b.loggedBefore(seq, e, receipt, idx)
		return
	}
	m := b.m
	b.anomaly(LogUnflushed, seq, func() (string, string) {
		return fmt.Sprintf("%s logs its receipt of %s (op %d) at seq %d, t=%s, where it neither flushes nor ticks while up", m.ProcName(e.P), m.MsgName(e.Msg), e.Op, seq, e.T),
			fmt.Sprintf("a PK log event is an entry made stable by a flush, at a flush of the source trace or at a timer tick (a checkpoint flushes first); the source trace has neither for %s at t=%s, so the receipt of %s (op %d) is still volatile there, and a crash loses it",
				m.ProcName(e.P), e.T, m.MsgName(e.Msg), e.Op)
	})
}

// loggedBefore checks a log event made by the flush or tick at trace
// index idx against its receipt at the same instant: at equal times the
// trace's order holds (SPEC §3, equal_times.go), so a receipt the trace
// lists after the flush is not yet in the log it writes.
func (b *Builder) loggedBefore(seq int32, e *trace.RunEvent, receipt, idx int32) {
	r := &b.m.Run.Events[receipt]
	ri := b.srcOpIndex(r)
	if r.T != e.T || ri == None || ri < idx {
		return
	}
	m := b.m
	b.anomaly(LogUnflushed, seq, func() (string, string) {
		return fmt.Sprintf("%s logs its receipt of %s (op %d) at seq %d, t=%s, by a flush the trace lists before that receipt", m.ProcName(e.P), m.MsgName(e.Msg), e.Op, seq, e.T),
			fmt.Sprintf("at equal times the trace's order holds (SPEC §3): %s's latest flush or tick at t=%s is trace event %d and its receipt of %s trace event %d, so the receipt comes after the flush and is still volatile",
				m.ProcName(e.P), e.T, idx, m.MsgName(e.Msg), ri)
	})
}

// flushed checks that a flush of an up PK process left none of its live
// receipts from before the flush without a log event: from before its
// instant, or at its instant and before it in the trace (SPEC §3's order
// at equal times; one the trace lists after it comes after it). Live ops are in time order, so
// the first receipt without one is the oldest; logFrom skips the stable
// prefix once, so the checks cost O(ops) in all.
func (b *Builder) flushed(f *trace.Event, idx int32) {
	ps := &b.procs[f.P]
	if ps.down && !b.failedAfter(f, idx) {
		return
	}
	k := ps.logFrom
	for ; int(k) < len(ps.live); k++ {
		if s := ps.live[k]; s != None && b.m.Run.Events[s].Kind == trace.Recv && !ps.stable[k] {
			break
		}
	}
	ps.logFrom = k
	if int(k) == len(ps.live) {
		return
	}
	s := ps.live[k]
	e := &b.m.Run.Events[s]
	if ri := b.srcOpIndex(e); e.T > f.T || (e.T == f.T && (ri == None || ri > idx)) {
		return // after the flush
	}
	m := b.m
	b.anomaly(FlushUnlogged, s, func() (string, string) {
		return fmt.Sprintf("%s's flush at t=%s leaves its receipt of %s at seq %d off stable storage", m.ProcName(f.P), f.T, m.MsgName(e.Msg), s),
			fmt.Sprintf("a flush writes every volatile log entry to stable storage, which the run shows as a log event per entry at the flush's time; %s was up at its flush at t=%s (source trace), but its receipt of %s at seq %d (t=%s), live then, has no log event",
				m.ProcName(f.P), f.T, m.MsgName(e.Msg), s, e.T)
	})
}

// failedAfter reports whether the fail that has flush f's process down
// now came at f's instant after f in the trace: f is judged once its
// instant is over, but at equal times the trace's order holds (SPEC §3),
// so f found the process up and logged its receipts, which the fail
// leaves live until the restart (at a later time: every down time is
// > 0). Skipped as a down flush, a run that logged nothing there
// passed. The process was up before that fail (an effective fail finds
// it up); a fail of the same instant that the trace lists before f had
// it down at f.
func (b *Builder) failedAfter(f *trace.Event, idx int32) bool {
	ps := &b.procs[f.P]
	if ps.lastFail == None || b.m.Run.Events[ps.lastFail].T != f.T {
		return false
	}
	ev := b.wf.src.Events
	for i := idx - 1; i >= 0 && ev[i].T == f.T; i-- {
		if ev[i].Kind == trace.Fail && ev[i].P == f.P {
			return false
		}
	}
	return true
}
