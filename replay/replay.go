// Package replay is ckpt's discrete-event engine (SPEC §3): it runs every
// process of an execution trace as a piecewise-deterministic program over a
// reliable non-FIFO network, with timer ticks, log flushes and failures,
// and drives one recovery algorithm, recording every action as a run.
//
// The engine owns time, programs, the network (copies in transit and
// mailboxes, which survive crashes), checkpoints' positions and the run.
// The algorithm (see Algorithm) owns everything protocol-specific and is
// consulted through Step.
package replay

import (
	"fmt"
	"slices"

	"github.com/ckpt-dev/ckpt/trace"
)

// Options are the replay options; zero fields take the trace's params,
// then the defaults of SPEC §2.
type Options struct {
	// Params set on the command line override the trace's.
	Params trace.Params
	// Variant is recorded in the run header ("textbook" for MS).
	Variant string
	// Stream, when set, is handed the run as it grows: first with its
	// header and no event (upto 0), then whenever events have become
	// final — run.Events[:upto] never change again — so that a consumer
	// (the checker, a run writer) takes each event while it is fresh
	// instead of walking the whole run afterwards. The run's side tables
	// grow too; read them through the run, as the events say.
	//
	// It returns how many events the consumer has taken: read whatever
	// it needs of them, vectors included. The engine then owns the
	// vectors of those events again, and drops from the run the ones
	// that neither it nor the algorithm can read again (release.go): a
	// run of PK's piggybacks at thousands of processes then stays in
	// memory linear in events, not in events × processes. A consumer on
	// another goroutine returns what it has taken so far; one that takes
	// each event before it returns returns upto. Without Stream the run
	// is kept whole.
	Stream func(run *trace.Run, upto int) (taken int)
	// Spare is the events of a run no longer read (a replay of the same
	// trace by another algorithm): the run's events take its memory when
	// it holds what they reserve, instead of pages that must first be
	// cleared.
	Spare []trace.RunEvent
}

// Run replays tr through alg and returns the run. tr must be a validated
// trace (codec.ReadTrace, the Builder or trace.Validate); Run still checks
// the indexes it relies on, so a malformed trace is an error, never a
// panic. An algorithm that breaks the Effect contract is an error too.
// It is a Sim run to the end without a stop.
func Run(tr *trace.Trace, alg Algorithm, opts Options) (*trace.Run, error) {
	s, err := Start(tr, alg, opts)
	if err != nil {
		return nil, err
	}
	return s.Finish()
}

// ckptRec is a checkpoint the engine knows: its id and position.
type ckptRec struct{ id, pos int32 }

// proc is the engine's view of one process.
type proc struct {
	prog    []int32  // trace indexes of its ops
	live    []CopyID // per live op: the copy it sent or received, or NoCopy
	ckpts   []ckptRec
	replay  []LogCopy // replay log, sorted by op
	rcur    int       // first replay entry not behind pos
	pending []ControlMsg
	exec    trace.Time
	// gen is bumped whenever queued op items of the process become
	// stale: a failure, a restore, a hold.
	gen      uint32
	down     bool
	heldProc bool
	// paused is set while the process is blocked (a hold with Until)
	// since pausedAt: its computation is paused, not restarted.
	paused   bool
	pausedAt trace.Time
	heldRecv bool
	// holdFor is the failure the held receive waits for (its hold's).
	holdFor Seq
	blocked bool // its receive waits for a copy
	// woken is set while an item re-trying its waiting receive is queued
	// (after a copy arrived or a held receive may be released), so that
	// several causes at one instant queue it once.
	woken bool
}

// stale makes the queued op items of the process stale.
func (pr *proc) stale() {
	pr.gen++
	pr.woken = false
}

type engine struct {
	tr       *trace.Trace
	alg      Algorithm
	params   trace.Params
	out      *trace.Run
	procs    []proc
	q        queue
	copies   []copyRec // indexed by CopyID; copies[0] is unused (NoCopy)
	ctrls    []ctrlRec // control messages in flight; ctrlFree: free slots
	ctrlFree []int32
	head     []CopyID // per message: first copy in its receiver's mailbox
	tail     []CopyID
	ncopy    []int32 // per message: copies transmitted so far
	now      trace.Time
	txSeq    int64
	arrSeq   int64
	lastPB   []int32 // per process: index in e.out.PBs of its last piggyback, or None
	lastVT   []int32 // per process: index in e.out.VTs of its last checkpoint vector, or None
	// bodies maps a control body to its index in e.out.Bodies: a body
	// sent again (a PK token going round the ring) is stored once.
	bodies map[*trace.ControlBody]int32
	// in and fx are the one input and effects buffer: Step is never
	// re-entered, so one of each suffices. in is a field because the
	// algorithm gets a pointer, and a value passed through an interface
	// would escape to the heap on every event.
	in Input
	fx []Effect
	// err is the first time-limit error (tooLate); it stops the run.
	err error
	// stream is Options.Stream.
	stream func(run *trace.Run, upto int) int
	// cur is the next trace event to handle (ops are skipped: the
	// programs hold them).
	cur int
	releaseState
}

func newEngine(tr *trace.Trace, alg Algorithm, opts Options) (*engine, error) {
	n := len(tr.Processes)
	if n == 0 {
		return nil, fmt.Errorf("%s: trace has no processes", tr.Name)
	}
	if len(tr.Messages) != len(tr.Msgs) {
		return nil, fmt.Errorf("%s: trace is not validated (messages table missing)", tr.Name)
	}
	params := tr.Params.Override(opts.Params).WithDefaults()
	if err := checkParams(tr.Name, params); err != nil {
		return nil, err
	}
	sz, err := checkTrace(tr)
	if err != nil {
		return nil, err
	}
	e := &engine{
		tr:     tr,
		alg:    alg,
		stream: opts.Stream,
		params: params,
		procs:  make([]proc, n),
		head:   make([]CopyID, len(tr.Msgs)),
		tail:   make([]CopyID, len(tr.Msgs)),
		ncopy:  make([]int32, len(tr.Msgs)),
		lastPB: slices.Repeat([]int32{trace.None}, n),
		lastVT: slices.Repeat([]int32{trace.None}, n),
		// Recovery re-sends: a little slack keeps the one growth of this
		// large array (a copy of all of it) out of runs with few failures.
		copies: make([]copyRec, 1, sz.Sends+sz.Sends/16+17),
		out:    newRun(tr, alg, params, opts, sz),
	}
	e.stable = make([]stableAt, n)
	e.programs(sz.ops)
	return e, nil
}

// programs fills every process's program (the trace indexes of its ops,
// counts[p] of them) in one array.
func (e *engine) programs(counts []int32) {
	evs := e.tr.Events
	all := make([]int32, 0, len(evs))
	for p := range e.procs {
		e.procs[p].prog = all[len(all) : len(all) : len(all)+int(counts[p])]
		all = all[:len(all)+int(counts[p])]
		e.procs[p].live = make([]CopyID, 0, counts[p])
	}
	for i := range evs {
		if ev := &evs[i]; ev.Kind.IsOp() {
			pr := &e.procs[ev.P]
			pr.prog = append(pr.prog, int32(i))
		}
	}
}

// newRun returns the run's header and tables, reserved for what a replay
// of a trace of sizes sz writes.
func newRun(tr *trace.Trace, alg Algorithm, params trace.Params, opts Options, sz sizes) *trace.Run {
	n := len(tr.Processes)
	// Reserving the run's events (RunEvents) avoids copying a run
	// of hundreds of megabytes as it grows, and reserving no more keeps
	// untouched capacity out of the collector's heap goal.
	reserve := RunEvents(sz.Sizes)
	events := opts.Spare[:0]
	if int64(cap(events)) < reserve {
		events = make([]trace.RunEvent, 0, reserve)
	}
	return &trace.Run{
		Algorithm: alg.Name(),
		Processes: tr.Processes,
		Options:   trace.RunOptions{Params: params, Variant: opts.Variant},
		Source:    tr.Name,
		Msgs:      tr.Msgs,
		Events:    events,
		// Every algorithm piggybacks one per send (resends share it), so
		// the piggybacks are reserved whole, with the copies' slack for
		// recovery: grown by doubling, they allocated twice their size
		// and copied it, pointers and all (10^7 events: 0.3 s of PK's
		// replay).
		PBs: make([]trace.Piggyback, 0, sz.Sends+sz.Sends/16+int64(n)+8),
		// The other side tables otherwise start at trace.grow's 256
		// entries (tens of kilobytes), which a small trace never fills.
		// These estimates only set the first capacity: a table that
		// outgrows one goes to 256 and doubles as before.
		VTs:     make([]trace.VT, 0, sideCap(len(tr.Events)+n+8)),
		Bodies:  make([]trace.ControlBody, 0, sideCap(2*int(sz.Fails)*n+8)),
		Strings: make([]string, 0, sideCap(len(tr.Events)+8)),
	}
}

// sizes are what checkTrace counts: the trace's Sizes, but Busy, and
// each process's ops.
type sizes struct {
	Sizes
	ops []int32 // per process
}

// checkTrace checks the indexes and times the engine relies on (a
// validated trace has them right; a hand-made one may not) and counts
// the trace's sizes and each process's ops.
func checkTrace(tr *trace.Trace) (sizes, error) {
	n := len(tr.Processes)
	sz := sizes{Sizes: Sizes{Events: int64(len(tr.Events)), Msgs: int64(len(tr.Msgs)), Procs: int64(n)}, ops: make([]int32, n)}
	bad := func(i int, msg string) (sizes, error) {
		return sizes{}, &trace.InputError{File: tr.Name, Event: i, Msg: msg}
	}
	var prev trace.Time
	for i := range tr.Events {
		ev := &tr.Events[i]
		if ev.P < 0 || int(ev.P) >= n || ev.T < prev || ev.T > trace.MaxTime || ev.Down < 0 || ev.Down > trace.MaxTime || !ev.Kind.IsTraceKind() {
			return bad(i, "invalid event (trace not validated)")
		}
		prev = ev.T
		sz.Count(ev.Kind)
		if ev.Kind == trace.Send || ev.Kind == trace.Recv {
			if ev.Msg < 0 || int(ev.Msg) >= len(tr.Msgs) {
				return bad(i, "message index out of range")
			}
			m := tr.Messages[ev.Msg]
			if ev.Kind == trace.Send && (m.Send != int32(i) || ev.To < 0 || int(ev.To) >= n || ev.To == ev.P) {
				return bad(i, "inconsistent send (trace not validated)")
			}
			if ev.Kind == trace.Recv && (m.Recv != int32(i) || m.Send < 0 || m.Send >= int32(i) || tr.Events[m.Send].To != ev.P) {
				return bad(i, "inconsistent recv (trace not validated)")
			}
		}
		if ev.Kind.IsOp() {
			sz.ops[ev.P]++
		}
	}
	return sz, nil
}

// sideCap is the first capacity of a run side table expected to hold about
// want entries. From 256 up it is 0, which allocates nothing: trace.grow
// then starts the table at 256 on first use, as it did before seeding, so
// a large run allocates exactly what it used to (and nothing for a table
// its algorithm never fills).
func sideCap(want int) int {
	if want >= 256 {
		return 0
	}
	return want
}

// gap returns gap_k of op k of p.
func (e *engine) gap(p int32, k int32) trace.Time {
	pr := &e.procs[p]
	t := e.tr.Events[pr.prog[k]].T
	if k == 0 {
		return t
	}
	return t - e.tr.Events[pr.prog[k-1]].T
}

func (e *engine) delay(msg int32) trace.Time {
	m := e.tr.Messages[msg]
	if m.Recv == trace.None {
		return e.params.DefaultDelay
	}
	return e.tr.Events[m.Recv].T - e.tr.Events[m.Send].T
}

// schedule queues p's next op, ready gap after its exec time, and not
// before now: after a block the op may have been ready before the block
// began (a receive waiting for its message), and is ready again at once.
func (e *engine) schedule(p int32) {
	pr := &e.procs[p]
	pr.blocked = false
	if pr.down || pr.heldProc || int(pr.pos()) >= len(pr.prog) {
		return
	}
	k := pr.pos()
	i := pr.prog[k]
	t, ok := later(pr.exec, e.gap(p, k))
	t = max(t, e.now)
	if !ok {
		e.tooLate(t, int(i), "op %d of %s would be ready at %s", k, e.name(p))
		return
	}
	e.q.push(item{t: t, class: classIndexed, kind: itemOp, key: int64(i), p: p, gen: pr.gen, ref: k})
}

// wake queues p's waiting receive as an op that is ready now: SPEC §3
// orders it among the trace-indexed items at this time by its trace
// index, after every arrival at this time, not inside the arrival that
// woke it.
func (e *engine) wake(p int32) {
	pr := &e.procs[p]
	if pr.woken || pr.down || pr.heldProc || int(pr.pos()) >= len(pr.prog) {
		return
	}
	pr.woken = true
	k := pr.pos()
	e.q.push(item{t: e.now, class: classIndexed, kind: itemOp, key: int64(pr.prog[k]), p: p, gen: pr.gen, ref: k})
}

func (pr *proc) pos() int32 { return int32(len(pr.live)) }

func (e *engine) name(p int32) string { return e.tr.Processes[p] }

// emit appends an event of kind at p, now, to the run and returns it,
// to be filled in place (no copy of it made and copied again) before
// anything else is emitted.
func (e *engine) emit(kind trace.Kind, p int32) *trace.RunEvent {
	seq := len(e.out.Events)
	e.out.Events = append(e.out.Events, trace.NewRunEvent(kind, e.now, p))
	r := &e.out.Events[seq]
	r.Seq = int32(seq)
	return r
}

// step hands in to the algorithm. The effects it returns live in e.fx
// until the next step, which comes only after they are applied.
func (e *engine) step(in *Input) []Effect {
	e.fx = e.alg.Step(in, e.fx[:0])
	return e.fx
}

// publish hands the events made so far to the stream, if any, and lets
// go of what its consumer has taken.
func (e *engine) publish() {
	if e.stream != nil {
		e.release(e.stream(e.out, len(e.out.Events)))
	}
}

// begin queues every process's first op.
func (e *engine) begin() {
	e.skipOps()
	for p := range e.procs {
		e.schedule(int32(p))
	}
}

// skipOps moves the trace cursor past ops: the engine takes them from
// the programs.
func (e *engine) skipOps() {
	evs := e.tr.Events
	for e.cur < len(evs) && evs[e.cur].Kind.IsOp() {
		e.cur++
	}
}

// advance handles trace events and queued items in order until none is
// left, or, with stop, until the next one would not come before stop
// (sim.go).
func (e *engine) advance(stop *item) error {
	evs := e.tr.Events
	for {
		useTrace := false
		tv := item{class: classIndexed, key: int64(e.cur)}
		if e.cur < len(evs) {
			tv.t = evs[e.cur].T
			useTrace = len(e.q) == 0 || tv.less(&e.q[0])
		} else if len(e.q) == 0 {
			return nil
		}
		if stop != nil && ((useTrace && !tv.less(stop)) || (!useTrace && !e.q[0].less(stop))) {
			return nil
		}
		var err error
		if useTrace {
			e.now = evs[e.cur].T
			err = e.envEvent(e.cur)
			e.cur++
			e.skipOps()
		} else {
			it := e.q.pop()
			if it.kind == itemOp {
				if pr := &e.procs[it.p]; it.gen != pr.gen || pr.down || pr.heldProc || it.ref != pr.pos() {
					continue // stale: the process was restored, failed, held or moved on since
				}
				e.procs[it.p].woken = false
			}
			e.now = it.t
			switch it.kind {
			case itemRestart:
				err = e.restart(it.p, it.ref)
			case itemData:
				e.arriveData(CopyID(it.ref))
			case itemControl:
				err = e.arriveControl(it.ref)
			case itemOp:
				err = e.execOp(it.p)
			}
		}
		if err == nil {
			err = e.err
		}
		if err != nil {
			return err
		}
		e.publish()
	}
}
