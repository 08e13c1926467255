// Package baseline computes SPEC §7's uncoordinated-checkpointing
// baseline from an execution trace alone: the rollback each failure would
// cause if the timer ticks were the only checkpoints and nothing were
// logged (the domino effect), and how many ticks are useless (on a
// Z-cycle).
//
// The baseline depends on the trace only, not on any algorithm, so it is
// the same in every report of a trace.
package baseline

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/consistency/report"
	"github.com/ckpt-dev/ckpt/consistency/rline"
	"github.com/ckpt-dev/ckpt/consistency/zgraph"
	"github.com/ckpt-dev/ckpt/trace"
)

// Uncoordinated computes the baseline of SPEC §7 for tr.
//
// Each fail event is taken on its own, as if it were the only one: the
// checkpoints are the initial one plus every tick before the fail event in
// trace order, nothing is logged, the failed process starts from its
// latest such checkpoint and every other process from its state just
// before the fail event, and rollbacks propagate over the messages
// received before the fail event until the line is consistent.
//
// In the result, Line has one entry per fail event in trace order, and
// each has one entry per process in process order. Failure.Seq is the
// index of the fail event in tr.Events (a trace has no run seqs; a caller
// holding the run may replace it, since the k-th entry is the trace's k-th
// fail event). An entry's Ckpt is the checkpoint the process ends at (0
// the initial one, k its k-th tick), or -1 when it keeps its state at the
// failure and that state is no checkpoint; Undone counts the ops of its
// state at the failure that the line discards (for the failed process,
// everything after its latest checkpoint and whatever propagation adds).
//
// Useless counts ticks on a Z-cycle over every message the trace sends
// and receives, failures aside.
//
// Cost: O(events + messages log messages), plus per failure O(processes ×
// log) and the messages sent in the rolled-back regions.
func Uncoordinated(tr *trace.Trace) (report.Uncoordinated, error) {
	res := report.Uncoordinated{Line: []report.UncoordinatedFailure{}}
	np := int32(len(tr.Processes))
	nm := int32(len(tr.Msgs))
	bad := func(i int, format string, args ...any) error {
		return &trace.InputError{File: tr.Name, Event: i, Msg: fmt.Sprintf(format, args...)}
	}

	ops := make([]int32, np)
	ticks := make([]int32, np)
	ckpts := make([][]int32, np)
	for p := range ckpts {
		ckpts[p] = []int32{0}
	}
	// Per message: both ends for rline, both intervals for zgraph.
	rm := make([]rline.Msg, nm)
	zm := make([]zgraph.Msg, nm)
	for i := range rm {
		rm[i] = rline.Msg{From: trace.None, SendOp: trace.None, To: trace.None, RecvOp: trace.None}
	}
	// Per fail event: where it is and every process's ops and ticks just
	// before it. F × P, the size of the output.
	type fail struct {
		ev         int
		ops, ticks []int32
	}
	var fails []fail

	for i := range tr.Events {
		e := &tr.Events[i]
		p := e.P
		if p < 0 || p >= np {
			return res, bad(i, "unknown process index %d", p)
		}
		switch e.Kind {
		case trace.Send, trace.Recv:
			if e.Msg < 0 || e.Msg >= nm {
				return res, bad(i, "unknown message index %d", e.Msg)
			}
			if e.Kind == trace.Send {
				if e.To < 0 || e.To >= np || e.To == p {
					return res, bad(i, "send of %q to a bad receiver", tr.Msgs[e.Msg])
				}
				if rm[e.Msg].From != trace.None {
					return res, bad(i, "duplicate message id %q", tr.Msgs[e.Msg])
				}
				rm[e.Msg].From, rm[e.Msg].SendOp, rm[e.Msg].To = p, ops[p], e.To
				zm[e.Msg].From, zm[e.Msg].FromInterval, zm[e.Msg].To = p, ticks[p], e.To
			} else {
				m := &rm[e.Msg]
				switch {
				case m.From == trace.None:
					return res, bad(i, "recv of %q before its send", tr.Msgs[e.Msg])
				case m.To != p:
					return res, bad(i, "recv of %q by %s, but it is sent to %s", tr.Msgs[e.Msg], tr.Processes[p], tr.Processes[m.To])
				case m.RecvOp != trace.None:
					return res, bad(i, "second recv of %q", tr.Msgs[e.Msg])
				}
				m.RecvOp = ops[p]
				zm[e.Msg].ToInterval = ticks[p]
			}
			ops[p]++
		case trace.Internal:
			ops[p]++
		case trace.Checkpoint:
			ticks[p]++
			ckpts[p] = append(ckpts[p], ops[p])
		case trace.Fail:
			fails = append(fails, fail{ev: i, ops: append([]int32(nil), ops...), ticks: append([]int32(nil), ticks...)})
		case trace.Flush:
		default:
			return res, bad(i, "unexpected event kind %q in a trace", e.Kind)
		}
	}

	// Useless ticks: Z-cycles over the messages both sent and received.
	counts := make([]int32, np)
	for p := range counts {
		counts[p] = ticks[p] + 1
	}
	recvd := make([]zgraph.Msg, 0, nm)
	for i := range rm {
		if rm[i].RecvOp != trace.None {
			recvd = append(recvd, zm[i])
		}
	}
	zg, err := zgraph.New(counts, recvd)
	if err != nil {
		return res, err // unreachable: the intervals come from the pass above
	}
	res.Useless = zg.UselessCount()

	if len(fails) == 0 {
		return res, nil
	}
	// Messages never received are dropped by rline; a message received
	// after a failure plays no part in it because its receive op is past
	// the receiver's state then, so one graph serves every failure.
	g, err := rline.New(ckpts, rm)
	if err != nil {
		return res, err
	}
	start := make([]int32, np)
	for _, f := range fails {
		e := &tr.Events[f.ev]
		o := e.P
		copy(start, f.ops)
		start[o] = ckpts[o][f.ticks[o]]
		line, err := g.Line(start, f.ops)
		if err != nil {
			return res, err
		}
		uf := report.UncoordinatedFailure{
			Failure: report.FailureRef{P: tr.Processes[o], T: e.T, Seq: int32(f.ev)},
			Line:    make([]report.UncoordinatedEntry, np),
		}
		for q := int32(0); q < np; q++ {
			l := line[q]
			latest := f.ticks[q] // index of q's latest checkpoint before the failure
			ck := l.Ckpt
			if !l.Moved {
				// rline may name a tick taken after the failure at the
				// same position; the baseline knows only earlier ones.
				ck = trace.None
				if q == o || ckpts[q][latest] == l.Pos {
					ck = latest
				}
			}
			domino := l.Pos < ckpts[q][latest]
			uf.Line[q] = report.UncoordinatedEntry{
				P: tr.Processes[q], Ckpt: ck, Pos: l.Pos, Undone: int(l.Undone), Domino: domino,
			}
			uf.Domino = uf.Domino || domino
			res.Undone += int(l.Undone)
		}
		res.Domino = res.Domino || uf.Domino
		res.Line = append(res.Line, uf)
	}
	return res, nil
}
