package history

import (
	"slices"

	"github.com/ckpt-dev/ckpt/trace"
)

// Builder builds a Model from a run's events, fed one at a time in seq
// order. It reads the run's header (processes, message ids, side tables)
// as events arrive, and earlier events by seq, so a producer that appends
// each event to run.Events before calling Add can stream a run into it.
// It judges nothing: where the run contradicts itself it keeps building
// as robustly as it can (a gap padded, a copy number refused), and the
// run spec of package consistency, which reads it before and after each
// event, says what is wrong.
type Builder struct {
	m     *Model
	procs []procBuild
	n     int32 // events added so far
	// sizeHint is the expected number of events: it bounds the op
	// numbers a broken run can make the builder pad up to.
	sizeHint int32

	// candidates are control_recv handling points, the first per
	// (process, failure): a process that answered a failure only by
	// receiving its control message handled it at that arrival.
	candidates []Handling
	// downPending lists, per process, the failures whose control message
	// arrived while it was down: it handles them at its restart.
	downPending map[int32][]int32
	// perFail is what each process did about each failure, by failure
	// index × process: an array, not maps by (process, failure), which
	// were a tenth of verify's CPU with 10^5 failures.
	perFail []failProc

	// putBack answers which copies a PK rollback puts back (PutBack).
	putBack func(p, ci int32) (back, sure bool)

	snapshotUsed int
}

// procBuild is one process's state while the run is read.
type procBuild struct {
	// Proc is its state so far, which Finish hands over as its final
	// state.
	Proc
	gaps int32 // None entries in Live: ops a broken continuity skipped
	// byID maps the ids of the checkpoints taken after the initial one to
	// their index in Taken (the latest one with that id); nil while every
	// id is its checkpoint's index, as the engine numbers them: a map
	// lookup per checkpoint and restore was 12% of verify's CPU with 10^5
	// failures.
	byID map[int32]int32
	down bool
	// lastFail is the seq of the latest effective fail; lastRestore of
	// the latest restart or rollback.
	lastFail, lastRestore int32
	// posless: the latest restart or rollback named no pos, so the next
	// app event's op says how many ops stayed live.
	posless bool
	// restarts counts its restarts: its incarnation after the latest.
	restarts int32
	// attributed counts the restarts attributed to a failure whose
	// restored checkpoint is known: MS's failure count c.
	attributed int32
	// stable[k] says a log event made the receipt at live op k stable;
	// unstable counts the live receipts that are not.
	stable   []bool
	unstable int32
	// logFrom: every live receipt below it is stable (OldestUnstable).
	logFrom int32
}

// NewBuilder starts the model of run (its header set; its events are fed
// with Add) judged under alg, with src the source trace or nil.
// sizeHint is the expected number of events, 0 if unknown.
func NewBuilder(run *trace.Run, src *trace.Trace, alg Alg, sizeHint int) *Builder {
	np := len(run.Processes)
	m := &Model{Run: run, Alg: alg, shownKind: make([][]trace.Kind, np), shownMsg: make([][]int32, np)}
	m.setSrc(src, nil, 0)
	m.Pred, m.SendOf, m.UndoneBy = make([]int32, 0, sizeHint), make([]int32, 0, sizeHint), make([]int32, 0, sizeHint)
	b := &Builder{m: m, procs: make([]procBuild, np), sizeHint: int32(min(sizeHint, 1<<30))}
	m.Copies.reserve(len(run.Msgs))
	for p := range b.procs {
		ps := &b.procs[p]
		ops, ckpts := room(m, p, sizeHint)
		ps.Live, ps.stable = make([]int32, 0, ops), make([]bool, 0, ops)
		m.shownMsg[p], m.shownKind[p] = make([]int32, 0, ops), make([]trace.Kind, 0, ops)
		ps.Held = append(make([]int32, 0, ckpts), 0)
		ps.Taken = append(make([]Ckpt, 0, ckpts), Ckpt{ID: 0, Pos: 0, Sn: 0, Seq: None, Parent: None, Type: trace.CkptInitial, snBelow: None})
		ps.lastFail, ps.lastRestore, ps.End = None, None, None
	}
	return b
}

// room returns the room to reserve for process p's live history and
// program, and for its checkpoints: from the source trace, its ops and
// timer ticks (a run re-executes and adds forced checkpoints, which grow
// the tables as usual); without one, an even share of the events for the
// ops and a few checkpoints.
func room(m *Model, p, sizeHint int) (ops, ckpts int) {
	if m.srcOps != nil {
		return len(m.srcOps[p]) + 8, len(m.srcTicks[p]) + 4
	}
	return sizeHint/max(len(m.Run.Processes), 1) + 8, 4
}

// Add feeds the next event, whose seq is the number of events fed so
// far.
func (b *Builder) Add(e *trace.RunEvent) {
	seq := b.n
	b.n++
	m := b.m
	m.Pred = append(m.Pred, None)
	m.SendOf = append(m.SendOf, None)
	m.UndoneBy = append(m.UndoneBy, None)
	if e.Kind == trace.Send {
		m.PiggybackBytes += m.Run.PB(e).Bytes()
	}
	if e.P < 0 || int(e.P) >= len(b.procs) {
		return
	}
	ps := &b.procs[e.P]
	switch e.Kind {
	case trace.Send:
		if e.Resend {
			b.resend(seq, e, ps)
		} else {
			b.op(seq, e, ps)
		}
	case trace.Recv, trace.Internal:
		b.op(seq, e, ps)
	case trace.Checkpoint:
		b.checkpoint(seq, e, ps)
	case trace.Fail:
		b.fail(seq, e, ps)
	case trace.Restart:
		b.restart(seq, e, ps)
	case trace.Rollback:
		b.rollback(seq, e, ps)
	case trace.Log:
		// A log event makes the live receipt it names stable.
		if b.Logs(e) != None {
			ps.stable[e.Op] = true
			ps.unstable--
		}
	case trace.Discard:
		if ci := m.Copies.Index(e.Msg, e.Copy); ci >= 0 && m.Copies.Send[ci] != None {
			b.take(seq, e, ci)
		}
	case trace.ControlSend:
		if fi, ok := m.FailureAt(e.Failure); ok {
			m.Failures[fi].Controls++
		}
	case trace.ControlRecv:
		b.controlRecv(seq, e, ps)
	case trace.Unconsumed:
		// The copy an `unconsumed` record lists leaves its mailbox, if it
		// holds it: listed once.
		if ci := m.Copies.Index(e.Msg, e.Copy); ci >= 0 && b.MayHold(ci) && m.CopyTo(ci) == e.P {
			m.Copies.box[ci] = seq
		}
	case trace.End:
		if ps.End == None {
			ps.End = seq
		}
	}
}

// failProc is what a process did about one failure.
type failProc struct {
	handled bool // it handled the failure (handle)
	cand    bool // a control_recv handling point is among candidates
}

// failProcOf returns process p's record for failure fi.
func (b *Builder) failProcOf(fi, p int32) *failProc {
	return &b.perFail[int(fi)*len(b.procs)+int(p)]
}

// put sets k to v in *mp, making the map on first use: most runs never
// need most of the builder's maps.
func put[K comparable, V any](mp *map[K]V, k K, v V) {
	if *mp == nil {
		*mp = map[K]V{}
	}
	(*mp)[k] = v
}

// setSrc sets the source trace the run is judged against, and the
// tables read from it, when its processes are the run's (Mismatched):
// those of from, a clone's original, shifted to src (Builder.Clone's at)
// if it has them.
func (m *Model) setSrc(src *trace.Trace, from *Model, at int) {
	m.Src, m.Mismatched, m.toSrc, m.toRun, m.srcOps, m.srcTicks, m.srcFails = nil, nil, nil, nil, nil, nil, nil
	switch np := len(m.Run.Processes); {
	case src == nil:
	case len(src.Processes) != np || m.Alg != Foreign && !slices.Equal(src.Processes, m.Run.Processes):
		m.Mismatched = src
	default:
		m.Src = src
		if run := m.Run.Msgs; len(run) != len(src.Msgs) || len(run) > 0 && &run[0] != &src.Msgs[0] {
			m.toSrc, m.toRun = msgMap(run, src.Msgs), msgMap(src.Msgs, run)
		}
		m.srcOps, m.srcTicks, m.srcFails = srcTables(src, np, from, at)
	}
}
