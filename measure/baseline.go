package measure

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/rline"
	"github.com/ckpt-dev/ckpt/trace"
)

// Uncoordinated computes SPEC §7's uncoordinated-checkpointing baseline
// for tr, from the trace alone: the rollback each failure would cause if
// the timer ticks were the only checkpoints and nothing were logged (the
// domino effect), and how many ticks are useless (on a Z-cycle). It
// depends on no algorithm, so it is the same in every report of a trace.
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
	sc, err := scanTrace(tr)
	if err != nil {
		return res, err
	}
	if res.Useless, err = Useless(sc.ckpts, sc.rm); err != nil {
		return res, err // a message to or from no process
	}
	if len(sc.fails) == 0 {
		return res, nil
	}
	// Messages never received are dropped by rline; a message received
	// after a failure plays no part in it because its receive op is past
	// the receiver's state then, so one graph serves every failure.
	g, err := rline.New(sc.ckpts, sc.rm)
	if err != nil {
		return res, err
	}
	for _, f := range sc.fails {
		uf, err := sc.line(tr, g, f)
		if err != nil {
			return res, err
		}
		for _, l := range uf.Line {
			res.Undone += l.Undone
		}
		res.Domino = res.Domino || uf.Domino
		res.Line = append(res.Line, uf)
	}
	return res, nil
}

// scan is what one pass over a trace gathers for the baseline.
type scan struct {
	np    int32
	ops   []int32   // per process, ops so far
	ticks []int32   // per process, ticks so far
	ckpts [][]int32 // per process, the positions of its checkpoints
	// Per message: both ends, for rline and Useless.
	rm []rline.Msg
	// Per fail event: where it is and every process's ops and ticks
	// just before it. F × P, the size of the output.
	fails []fail
}

type fail struct {
	ev         int
	ops, ticks []int32
}

// scanTrace makes the pass over tr. SPEC §2's rules are the decoder's
// and trace.Validate's (a message sent once, not to its sender, received
// once by its receiver after its send): the scan only refuses indexes
// out of range, so that an unvalidated trace cannot make it panic; what
// such a trace breaks otherwise rline refuses or the baseline shows.
func scanTrace(tr *trace.Trace) (*scan, error) {
	np, nm := int32(len(tr.Processes)), int32(len(tr.Msgs))
	sc := &scan{np: np, ops: make([]int32, np), ticks: make([]int32, np), ckpts: make([][]int32, np),
		rm: make([]rline.Msg, nm)}
	for p := range sc.ckpts {
		sc.ckpts[p] = []int32{0}
	}
	for i := range sc.rm {
		sc.rm[i] = rline.Msg{From: trace.None, SendOp: trace.None, To: trace.None, RecvOp: trace.None}
	}
	for i := range tr.Events {
		if err := sc.event(tr, i); err != nil {
			return nil, err
		}
	}
	return sc, nil
}

func bad(tr *trace.Trace, i int, format string, args ...any) error {
	return &trace.InputError{File: tr.Name, Event: i, Msg: fmt.Sprintf(format, args...)}
}

// event scans trace event i.
func (sc *scan) event(tr *trace.Trace, i int) error {
	e := &tr.Events[i]
	p := e.P
	if p < 0 || p >= sc.np {
		return bad(tr, i, "unknown process index %d", p)
	}
	switch e.Kind {
	case trace.Send, trace.Recv:
		if e.Msg < 0 || e.Msg >= int32(len(sc.rm)) {
			return bad(tr, i, "unknown message index %d", e.Msg)
		}
		if e.Kind == trace.Send {
			sc.rm[e.Msg].From, sc.rm[e.Msg].SendOp, sc.rm[e.Msg].To = p, sc.ops[p], e.To
		} else {
			sc.rm[e.Msg].RecvOp = sc.ops[p]
		}
		sc.ops[p]++
	case trace.Internal:
		sc.ops[p]++
	case trace.Checkpoint:
		sc.ticks[p]++
		sc.ckpts[p] = append(sc.ckpts[p], sc.ops[p])
	case trace.Fail:
		sc.fails = append(sc.fails, fail{ev: i, ops: append([]int32(nil), sc.ops...), ticks: append([]int32(nil), sc.ticks...)})
	case trace.Flush:
	default:
		return bad(tr, i, "unexpected event kind %q in a trace", e.Kind)
	}
	return nil
}

// line is the baseline's line for one fail event.
func (sc *scan) line(tr *trace.Trace, g *rline.Graph, f fail) (report.UncoordinatedFailure, error) {
	e := &tr.Events[f.ev]
	o := e.P
	start := append([]int32(nil), f.ops...)
	start[o] = sc.ckpts[o][f.ticks[o]]
	uf := report.UncoordinatedFailure{
		Failure: report.FailureRef{P: tr.Processes[o], T: e.T, Seq: int32(f.ev)},
		Line:    make([]report.UncoordinatedEntry, sc.np),
	}
	line, err := g.Line(start, f.ops)
	if err != nil {
		return uf, err
	}
	for q := int32(0); q < sc.np; q++ {
		l := line[q]
		latest := f.ticks[q] // index of q's latest checkpoint before the failure
		ck := l.Ckpt
		if !l.Moved {
			// rline may name a tick taken after the failure at the
			// same position; the baseline knows only earlier ones.
			ck = trace.None
			if q == o || sc.ckpts[q][latest] == l.Pos {
				ck = latest
			}
		}
		domino := l.Pos < sc.ckpts[q][latest]
		uf.Line[q] = report.UncoordinatedEntry{
			P: tr.Processes[q], Ckpt: ck, Pos: l.Pos, Undone: int(l.Undone), Domino: domino,
		}
		uf.Domino = uf.Domino || domino
	}
	return uf, nil
}
