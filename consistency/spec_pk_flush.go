package consistency

import (
	"slices"
	"sort"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// PK's stable log against the source trace's flushes (SPEC §5): a flush
// writes every volatile log entry to stable storage, which a run shows as
// one log event per entry at the flush's time, and PK writes a log event
// at no other time (a timer tick's checkpoint flushes first). A run shows
// no flush itself, so the flush times come from the source trace; without
// a comparable one log events are taken as they are (docs/checker.md).

// pkFlushes is what the PK spec keeps of the source trace's flushes.
type pkFlushes struct {
	src *trace.Trace
	// next is the index of the source trace's first event whose flushes
	// are not judged yet (they are, once an event of a later time comes).
	next int
	// up is, per process, the trace indexes of its flushes and ticks
	// that find it up: a flush or tick after a fail of its instant finds
	// the process down and flushes nothing (SPEC §3).
	up [][]int32
}

func newPKFlushes(src *trace.Trace, np int) pkFlushes {
	fl := pkFlushes{src: src, up: make([][]int32, np)}
	failAt := make([]trace.Time, np)
	for i := range src.Events {
		switch e := &src.Events[i]; {
		case e.P < 0 || int(e.P) >= np:
		case e.Kind == trace.Fail:
			failAt[e.P] = e.T + 1
		case (e.Kind == trace.Flush || e.Kind == trace.Checkpoint) && failAt[e.P] != e.T+1:
			fl.up[e.P] = append(fl.up[e.P], int32(i))
		}
	}
	return fl
}

// flushesBefore judges the source trace's flushes strictly before t:
// their instants are over once an event at t comes.
func (s *pkSpec) flushesBefore(t trace.Time) {
	fl := &s.flushes
	if fl.src == nil {
		return
	}
	for ev := fl.src.Events; fl.next < len(ev) && ev[fl.next].T < t; fl.next++ {
		if e := &ev[fl.next]; e.Kind == trace.Flush && e.P >= 0 && int(e.P) < len(s.procs) {
			s.flushed(e, int32(fl.next))
		}
	}
}

// flushed checks that a flush of an up process left none of its live
// receipts from before the flush without a log event: from before its
// instant, or at its instant and before it in the trace (one the trace
// lists after it comes after it). Live ops are in time order, so the
// oldest receipt without one is the one to look at.
func (s *pkSpec) flushed(f *trace.Event, idx int32) {
	if s.b.Down(f.P) {
		// f is judged once its instant is over: a fail of its instant
		// that the trace lists after it (f is in up) found the process up
		// and its receipts logged, which the fail leaves live until the
		// restart (every down time is > 0).
		last := s.b.LastFail(f.P)
		if _, up := slices.BinarySearch(s.flushes.up[f.P], idx); !up || last == history.None || s.m.Event(last).T != f.T {
			return
		}
	}
	k := s.b.OldestUnstable(f.P)
	live := s.b.Live(f.P)
	if int(k) == len(live) {
		return
	}
	x := live[k]
	e := s.m.Event(x)
	if ri := s.m.SrcIndex(e); e.T > f.T || (e.T == f.T && (ri == history.None || ri > idx)) {
		return // after the flush
	}
	s.badf(logReplayAt, []int32{x}, "%s's flush at t=%s leaves its receipt of %s at seq %d off stable storage\na flush writes every volatile log entry to stable storage, which the run shows as a log event per entry at the flush's time; %[1]s was up at its flush at t=%[2]s (source trace), but its receipt of %[3]s at seq %[4]d (t=%s), live then, has no log event",
		s.name(f.P), f.T, s.m.MsgName(e.Msg), x, e.T)
}

// logged judges a log event: it makes stable a live receipt still
// volatile, at an instant its process flushes or ticks while up (with
// a comparable source trace).
func (s *pkSpec) logged(seq int32, e *trace.RunEvent) {
	receipt := s.b.Logs(e)
	if receipt == history.None {
		s.badf(logReplayAt, []int32{seq}, "%s logs copy %d of %s for op %d at seq %d, which is no volatile receipt\na PK log event makes an entry of the volatile message log stable, so it names a live receipt not yet stable, but op %[4]d of %[1]s is no such receipt of copy %[2]d of %[3]s at seq %[5]d",
			s.name(e.P), e.Copy, s.m.MsgName(e.Msg), e.Op, seq)
		return
	}
	if s.flushes.src == nil {
		return
	}
	idx := s.flushOf(e)
	if idx == history.None {
		s.badf(logReplayAt, []int32{seq}, "%s logs its receipt of %s (op %d) at seq %d, t=%s, where it neither flushes nor ticks while up\na PK log event is an entry made stable by a flush, at a flush of the source trace or at a timer tick (a checkpoint flushes first); the source trace has neither for %[1]s at t=%[5]s, so the receipt of %[2]s (op %[3]d) is still volatile there, and a crash loses it",
			s.name(e.P), s.m.MsgName(e.Msg), e.Op, seq, e.T)
		return
	}
	// At equal times the trace's order holds: a receipt the trace lists
	// after the flush is not yet in the log it writes.
	r := s.m.Event(receipt)
	if ri := s.m.SrcIndex(r); r.T == e.T && ri != history.None && ri >= idx {
		s.badf(logReplayAt, []int32{seq}, "%s logs its receipt of %s (op %d) at seq %d, t=%s, by a flush the trace lists before that receipt\nat equal times the trace's order holds (SPEC §3): %[1]s's latest flush or tick at t=%[5]s is trace event %[6]d and its receipt of %[2]s trace event %[7]d, so the receipt comes after the flush and is still volatile",
			s.name(e.P), s.m.MsgName(e.Msg), e.Op, seq, e.T, idx, ri)
	}
}

// flushOf returns the trace index of the latest flush or tick of log
// event e's process at e's instant while it is up, or None.
func (s *pkSpec) flushOf(e *trace.RunEvent) int32 {
	up, ev := s.flushes.up[e.P], s.flushes.src.Events
	k := sort.Search(len(up), func(i int) bool { return ev[up[i]].T > e.T }) - 1
	if k < 0 || ev[up[k]].T != e.T || s.b.Down(e.P) {
		return history.None // a down process flushes nothing
	}
	return up[k]
}
