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
	"sort"

	"github.com/ckpt-dev/ckpt/trace"
)

// Options are the replay options; zero fields take the trace's params,
// then the defaults of SPEC §2.
type Options struct {
	// Params set on the command line override the trace's.
	Params trace.Params
	// Variant is recorded in the run header ("textbook" for MS).
	Variant string
}

// Run replays tr through alg and returns the run. tr must be a validated
// trace (trace.ReadTrace, the Builder or trace.Validate); Run still checks
// the indexes it relies on, so a malformed trace is an error, never a
// panic. An algorithm that breaks the Effect contract is an error too.
func Run(tr *trace.Trace, alg Algorithm, opts Options) (*trace.Run, error) {
	e, err := newEngine(tr, alg, opts)
	if err != nil {
		return nil, err
	}
	if err := e.run(); err != nil {
		return nil, err
	}
	// newEngine seeds the side tables; one never added to is left nil,
	// as it was before seeding, so callers see the same Run.
	if len(e.out.PBs) == 0 {
		e.out.PBs = nil
	}
	if len(e.out.VTs) == 0 {
		e.out.VTs = nil
	}
	if len(e.out.Bodies) == 0 {
		e.out.Bodies = nil
	}
	if len(e.out.Strings) == 0 {
		e.out.Strings = nil
	}
	return e.out, nil
}

// Classes of queue items at equal times (SPEC §3 "Order at equal times").
const (
	classRestart = iota
	classArrival
	classIndexed
)

// Kinds of queue items.
const (
	itemRestart = iota
	itemData
	itemControl
	itemOp
)

// item is one pending event. Items are values in a hand-written binary
// heap: no interface boxing, no allocation per push.
type item struct {
	t     trace.Time
	key   int64 // restart: fail's trace index; arrival: transmission order; op: trace index
	p     int32
	gen   uint32 // op items: the process generation they were scheduled in
	ref   int32  // copy or control message; op items: the op's index in its program
	class uint8
	kind  uint8
}

func (a *item) less(b *item) bool {
	if a.t != b.t {
		return a.t < b.t
	}
	if a.class != b.class {
		return a.class < b.class
	}
	return a.key < b.key
}

type queue []item

func (q *queue) push(it item) {
	h := append(*q, it)
	i := len(h) - 1
	for i > 0 {
		j := (i - 1) / 2
		if !h[i].less(&h[j]) {
			break
		}
		h[i], h[j] = h[j], h[i]
		i = j
	}
	*q = h
}

func (q *queue) pop() item {
	h := *q
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h = h[:n]
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && h[r].less(&h[l]) {
			m = r
		}
		if !h[m].less(&h[i]) {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	*q = h
	return top
}

// Copy states.
const (
	copyTransit = iota
	copyBox
	copyTaken
	copyDiscarded
)

// copyRec is one transmitted copy of a data message.
type copyRec struct {
	msg, no    int32
	from, to   int32
	op         int32 // the sender's op
	arrive     trace.Time
	arrSeq     int64  // arrival order, for mailbox order and requeue
	pb         int32  // index into the run's PBs
	next, prev CopyID // mailbox list of copies of msg, in arrival order
	state      uint8
}

// ctrlRec is one control message.
type ctrlRec struct {
	from, to int32
	control  trace.Control
	body     *trace.ControlBody
	bodyIdx  int32 // body's index in the run's Bodies, shared by send and receive
	failure  int32
}

type ckptRec struct{ id, pos int32 }

// proc is the engine's view of one process.
type proc struct {
	prog     []int32  // trace indexes of its ops
	live     []CopyID // per live op: the copy it sent or received, or NoCopy
	ckpts    []ckptRec
	replay   []LogCopy // replay log, sorted by op
	rcur     int       // first replay entry not behind pos
	pending  []ControlMsg
	exec     trace.Time
	gen      uint32
	down     bool
	heldProc bool
	heldRecv bool
	blocked  bool // its receive waits for a copy
	holdMsg  int32
}

type engine struct {
	tr      *trace.Trace
	alg     Algorithm
	params  trace.Params
	out     *trace.Run
	procs   []proc
	q       queue
	copies  []copyRec
	ctrls   []ctrlRec
	head    []CopyID // per message: first copy in its receiver's mailbox
	tail    []CopyID
	ncopy   []int32 // per message: copies transmitted so far
	now     trace.Time
	txSeq   int64
	arrSeq  int64
	lastPB  []int32 // per process: index in e.out.PBs of its last piggyback, or None
	fxStack [][]Effect
	depth   int
	// in and inSend are reused inputs: the algorithm gets a pointer, and
	// a value passed through an interface would escape to the heap on
	// every event. A send can be asked for while another input's effects
	// are applied (a restart), hence two.
	in     Input
	inSend Input
}

func newEngine(tr *trace.Trace, alg Algorithm, opts Options) (*engine, error) {
	n := len(tr.Processes)
	if n == 0 {
		return nil, fmt.Errorf("%s: trace has no processes", tr.Name)
	}
	if len(tr.Messages) != len(tr.Msgs) {
		return nil, fmt.Errorf("%s: trace is not validated (messages table missing)", tr.Name)
	}
	e := &engine{
		tr:     tr,
		alg:    alg,
		params: tr.Params.Override(opts.Params).WithDefaults(),
		procs:  make([]proc, n),
		head:   make([]CopyID, len(tr.Msgs)),
		tail:   make([]CopyID, len(tr.Msgs)),
		ncopy:  make([]int32, len(tr.Msgs)),
		lastPB: make([]int32, n),
	}
	for i := range e.lastPB {
		e.lastPB[i] = trace.None
	}
	for i := range e.head {
		e.head[i], e.tail[i] = NoCopy, NoCopy
	}
	counts := make([]int32, n)
	nsend, nrecv, nfail := 0, 0, 0
	var prev trace.Time
	for i := range tr.Events {
		ev := &tr.Events[i]
		if ev.P < 0 || int(ev.P) >= n || ev.T < prev || !ev.Kind.IsTraceKind() {
			return nil, &trace.InputError{File: tr.Name, Event: i, Msg: "invalid event (trace not validated)"}
		}
		prev = ev.T
		if ev.Kind == trace.Fail {
			nfail++
		}
		if ev.Kind == trace.Send || ev.Kind == trace.Recv {
			if ev.Msg < 0 || int(ev.Msg) >= len(tr.Msgs) {
				return nil, &trace.InputError{File: tr.Name, Event: i, Msg: "message index out of range"}
			}
			m := tr.Messages[ev.Msg]
			if ev.Kind == trace.Send && (m.Send != int32(i) || ev.To < 0 || int(ev.To) >= n || ev.To == ev.P) {
				return nil, &trace.InputError{File: tr.Name, Event: i, Msg: "inconsistent send (trace not validated)"}
			}
			if ev.Kind == trace.Recv && (m.Recv != int32(i) || m.Send < 0 || m.Send >= int32(i) || tr.Events[m.Send].To != ev.P) {
				return nil, &trace.InputError{File: tr.Name, Event: i, Msg: "inconsistent recv (trace not validated)"}
			}
		}
		if ev.Kind.IsOp() {
			counts[ev.P]++
			switch ev.Kind {
			case trace.Send:
				nsend++
			case trace.Recv:
				nrecv++
			}
		}
	}
	all := make([]int32, 0, len(tr.Events))
	for p := range e.procs {
		e.procs[p].prog = all[len(all) : len(all) : len(all)+int(counts[p])]
		all = all[:len(all)+int(counts[p])]
		e.procs[p].live = make([]CopyID, 0, counts[p])
		e.procs[p].holdMsg = trace.None
	}
	for i := range tr.Events {
		if ev := &tr.Events[i]; ev.Kind.IsOp() {
			pr := &e.procs[ev.P]
			pr.prog = append(pr.prog, int32(i))
		}
	}
	// Recovery re-sends: a little slack keeps the one growth of this
	// large array (a copy of all of it) out of runs with few failures.
	e.copies = make([]copyRec, 0, nsend+nsend/16+16)
	e.out = &trace.Run{
		Name:      "",
		Algorithm: alg.Name(),
		Processes: tr.Processes,
		Options:   trace.RunOptions{Params: e.params, Variant: opts.Variant},
		Source:    tr.Name,
		Msgs:      tr.Msgs,
		// A failure-free run has one event per trace event, except that a
		// receive may add one (a forced checkpoint or a log entry) and
		// each process an end: reserving that avoids copying a run of
		// hundreds of megabytes as it grows.
		Events: make([]trace.RunEvent, 0, len(tr.Events)+nrecv+2*n+16),
		// The side tables otherwise start at trace.grow's 256 entries
		// (tens of kilobytes), which a small trace never fills. These
		// estimates only set the first capacity: a table that outgrows
		// one goes to 256 and doubles as before.
		PBs:     make([]trace.Piggyback, 0, sideCap(nsend+n+8)),
		VTs:     make([]trace.VT, 0, sideCap(len(tr.Events)+n+8)),
		Bodies:  make([]trace.ControlBody, 0, sideCap(2*nfail*n+8)),
		Strings: make([]string, 0, sideCap(len(tr.Events)+8)),
	}
	return e, nil
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

// schedule queues p's next op, ready gap after its exec time.
func (e *engine) schedule(p int32) {
	pr := &e.procs[p]
	pr.blocked = false
	if pr.down || pr.heldProc || int(pr.pos()) >= len(pr.prog) {
		return
	}
	k := pr.pos()
	e.q.push(item{t: pr.exec + e.gap(p, k), class: classIndexed, kind: itemOp,
		key: int64(pr.prog[k]), p: p, gen: pr.gen, ref: k})
}

func (pr *proc) pos() int32 { return int32(len(pr.live)) }

func (e *engine) emit(ev trace.RunEvent) int32 {
	ev.Seq = int32(len(e.out.Events))
	e.out.Events = append(e.out.Events, ev)
	return ev.Seq
}

func (e *engine) ev(kind trace.Kind, p int32) trace.RunEvent {
	return trace.NewRunEvent(kind, e.now, p)
}

// buf returns the effects buffer for the current nesting depth, so that an
// algorithm called while the effects of another call are being applied
// (InSend during a restart) does not overwrite them.
func (e *engine) step(in *Input) []Effect {
	for len(e.fxStack) <= e.depth {
		e.fxStack = append(e.fxStack, make([]Effect, 0, 8))
	}
	fx := e.alg.Step(in, e.fxStack[e.depth][:0])
	e.fxStack[e.depth] = fx
	return fx
}

func (e *engine) run() error {
	evs := e.tr.Events
	cur := 0
	skipOps := func() {
		for cur < len(evs) && evs[cur].Kind.IsOp() {
			cur++
		}
	}
	skipOps()
	for p := range e.procs {
		e.schedule(int32(p))
	}
	for {
		useTrace := false
		if cur < len(evs) {
			if len(e.q) == 0 {
				useTrace = true
			} else {
				tv := item{t: evs[cur].T, class: classIndexed, key: int64(cur)}
				useTrace = tv.less(&e.q[0])
			}
		} else if len(e.q) == 0 {
			break
		}
		var err error
		if useTrace {
			e.now = evs[cur].T
			err = e.envEvent(cur)
			cur++
			skipOps()
		} else {
			it := e.q.pop()
			if it.kind == itemOp {
				if pr := &e.procs[it.p]; it.gen != pr.gen || pr.down || pr.heldProc || it.ref != pr.pos() {
					continue // stale: the process was restored, failed, held or moved on since
				}
			}
			e.now = it.t
			switch it.kind {
			case itemRestart:
				err = e.restart(it.p, it.ref)
			case itemData:
				err = e.arriveData(CopyID(it.ref))
			case itemControl:
				err = e.arriveControl(it.ref)
			case itemOp:
				err = e.execOp(it.p)
			}
		}
		if err != nil {
			return err
		}
	}
	e.finish()
	return nil
}

func (e *engine) envEvent(i int) error {
	ev := &e.tr.Events[i]
	p := ev.P
	pr := &e.procs[p]
	switch ev.Kind {
	case trace.Checkpoint:
		in := &e.in
		*in = Input{Kind: InTick, T: e.now, P: p, Pos: pr.pos(), Down: pr.down, Held: pr.heldProc}
		if pr.down {
			r := e.ev(trace.CheckpointSkipped, p)
			r.Reason = trace.ReasonDown
			r.Label = e.out.AddString(ev.Label)
			e.emit(r)
			e.step(in)
			return nil
		}
		from := len(e.out.Events)
		if err := e.apply(in, e.step(in), nil); err != nil {
			return err
		}
		// SPEC §2: labels are kept in runs. The tick's label goes on what
		// the tick produced: its checkpoint or its checkpoint_skipped.
		if ev.Label != "" {
			label := e.out.AddString(ev.Label)
			for j := from; j < len(e.out.Events); j++ {
				if r := &e.out.Events[j]; r.P == p && (r.Kind == trace.CheckpointSkipped || (r.Kind == trace.Checkpoint && r.CkptType == trace.CkptBasic)) {
					r.Label = label
				}
			}
		}
		return nil
	case trace.Flush:
		if pr.down {
			return nil
		}
		in := &e.in
		*in = Input{Kind: InFlush, T: e.now, P: p, Pos: pr.pos()}
		return e.apply(in, e.step(in), nil)
	case trace.Fail:
		r := e.ev(trace.Fail, p)
		r.Label = e.out.AddString(ev.Label)
		seq := e.emit(r)
		if pr.down {
			return nil // ignored: already down
		}
		pr.down = true
		pr.gen++
		pr.blocked, pr.heldRecv, pr.heldProc = false, false, false
		d := ev.Down
		if d == 0 {
			d = e.params.RestartDelay
		}
		e.q.push(item{t: e.now + d, class: classRestart, kind: itemRestart, key: int64(i), p: p, ref: seq})
		in := &e.in
		*in = Input{Kind: InFail, T: e.now, P: p, Pos: pr.pos(), Failure: seq}
		if fx := e.step(in); len(fx) != 0 {
			return fmt.Errorf("replay: algorithm %s returned effects for a failure", e.alg.Name())
		}
	}
	return nil
}

func (e *engine) restart(p int32, failure int32) error {
	pr := &e.procs[p]
	pr.down = false
	in := &Input{Kind: InRestart, T: e.now, P: p, Pos: pr.pos(), Failure: failure, Pending: pr.pending}
	fx := e.step(in)
	if len(fx) == 0 || fx[0].Kind != EffRestart {
		return fmt.Errorf("replay: algorithm %s did not answer a restart with EffRestart", e.alg.Name())
	}
	err := e.apply(in, fx, nil)
	pr = &e.procs[p]
	pr.pending = pr.pending[:0]
	return err
}

func (e *engine) arriveControl(ref int32) error {
	c := &e.ctrls[ref]
	r := e.ev(trace.ControlRecv, c.to)
	r.Peer, r.Control, r.Body, r.Failure = c.from, c.control, c.bodyIdx, c.failure
	e.emit(r)
	pr := &e.procs[c.to]
	if pr.down {
		pr.pending = append(pr.pending, ControlMsg{T: e.now, From: c.from, Control: c.control, Body: c.body, Failure: c.failure})
		return nil
	}
	in := &Input{Kind: InControl, T: e.now, P: c.to, Pos: pr.pos(), Peer: c.from,
		Control: c.control, Body: c.body, Failure: c.failure}
	if err := e.apply(in, e.step(in), nil); err != nil {
		return err
	}
	return e.retry(c.to)
}

// retry re-tries p's held receive, if any.
func (e *engine) retry(p int32) error {
	pr := &e.procs[p]
	if !pr.heldRecv || pr.down || pr.heldProc {
		return nil
	}
	return e.tryRecv(p)
}

func (e *engine) arriveData(c CopyID) error {
	cr := &e.copies[c]
	cr.state = copyBox
	e.arrSeq++
	cr.arrSeq = e.arrSeq
	e.boxAppend(c)
	pr := &e.procs[cr.to]
	if pr.blocked && !pr.down && !pr.heldProc && !pr.heldRecv && e.tr.Events[pr.prog[pr.pos()]].Msg == cr.msg {
		// The waiting receive is an op that is ready: SPEC §3 orders it
		// among the trace-indexed items at this time by its trace index,
		// after every arrival at this time, not at the arrival itself.
		// Clearing blocked keeps a second copy arriving now from queueing
		// it twice; the op sets it again if no copy is accepted.
		pr.blocked = false
		k := pr.pos()
		e.q.push(item{t: e.now, class: classIndexed, kind: itemOp, key: int64(pr.prog[k]), p: cr.to, gen: pr.gen, ref: k})
	}
	return nil
}

func (e *engine) boxAppend(c CopyID) {
	cr := &e.copies[c]
	m := cr.msg
	cr.next, cr.prev = NoCopy, e.tail[m]
	if e.tail[m] == NoCopy {
		e.head[m] = c
	} else {
		e.copies[e.tail[m]].next = c
	}
	e.tail[m] = c
}

// boxInsert puts c back into its mailbox at its original arrival position.
func (e *engine) boxInsert(c CopyID) {
	cr := &e.copies[c]
	m := cr.msg
	at := e.head[m]
	for at != NoCopy && e.copies[at].arrSeq < cr.arrSeq {
		at = e.copies[at].next
	}
	if at == NoCopy {
		e.boxAppend(c)
		return
	}
	a := &e.copies[at]
	cr.next, cr.prev = at, a.prev
	if a.prev == NoCopy {
		e.head[m] = c
	} else {
		e.copies[a.prev].next = c
	}
	a.prev = c
}

func (e *engine) boxRemove(c CopyID) {
	cr := &e.copies[c]
	m := cr.msg
	if cr.prev == NoCopy {
		e.head[m] = cr.next
	} else {
		e.copies[cr.prev].next = cr.next
	}
	if cr.next == NoCopy {
		e.tail[m] = cr.prev
	} else {
		e.copies[cr.next].prev = cr.prev
	}
	cr.next, cr.prev = NoCopy, NoCopy
}

// execLocal executes op k of p when it is a send or an internal op: the
// ops that need nothing from the network, run alike in normal execution
// and in a restart's instant replay. A send transmits a new copy.
func (e *engine) execLocal(p, k int32, tev *trace.Event) error {
	if tev.Kind == trace.Send {
		if _, err := e.transmit(p, k, tev.Msg, tev.To, trace.None, NoCopy, trace.None, tev.Label); err != nil {
			return err
		}
		pr := &e.procs[p]
		pr.live = append(pr.live, CopyID(len(e.copies)-1))
		return nil
	}
	r := e.ev(trace.Internal, p)
	r.Op, r.Label = k, e.out.AddString(tev.Label)
	e.emit(r)
	pr := &e.procs[p]
	pr.live = append(pr.live, NoCopy)
	return nil
}

// execOp executes p's next op, which is ready now.
func (e *engine) execOp(p int32) error {
	pr := &e.procs[p]
	k := pr.pos()
	tev := &e.tr.Events[pr.prog[k]]
	switch tev.Kind {
	case trace.Send, trace.Internal:
		if err := e.execLocal(p, k, tev); err != nil {
			return err
		}
		pr = &e.procs[p]
	case trace.Recv:
		pr.blocked = true
		return e.tryRecv(p)
	}
	pr.exec = e.now
	e.schedule(p)
	return nil
}

// transmit sends a new copy of msg from p to `to`. A None pb asks the
// algorithm (InSend); a resend passes the piggyback (its index in the
// run's PBs, shared with the original) and number of the copy it repeats.
func (e *engine) transmit(p, op, msg, to int32, pb int32, of CopyID, failure int32, label string) (CopyID, error) {
	c := CopyID(len(e.copies))
	e.ncopy[msg]++
	no := e.ncopy[msg]
	if pb == trace.None {
		in := &e.inSend
		*in = Input{Kind: InSend, T: e.now, P: p, Pos: e.procs[p].pos(), Op: op, Msg: msg, Peer: to, Copy: c, CopyNo: no}
		e.depth++
		fx := e.step(in)
		e.depth--
		if len(fx) != 1 || fx[0].Kind != EffPiggyback {
			return NoCopy, fmt.Errorf("replay: algorithm %s must answer a send with one EffPiggyback", e.alg.Name())
		}
		pb = e.storePB(p, &fx[0].PB)
	}
	d := e.delay(msg)
	e.copies = append(e.copies, copyRec{msg: msg, no: no, from: p, to: to, op: op,
		arrive: e.now + d, pb: pb, next: NoCopy, prev: NoCopy})
	r := e.ev(trace.Send, p)
	r.Msg, r.Peer, r.Op, r.Copy, r.PB, r.Label = msg, to, op, no, pb, e.out.AddString(label)
	if of != NoCopy {
		r.Resend, r.Of, r.Failure = true, e.copies[of].no, failure
	}
	e.emit(r)
	e.txSeq++
	e.q.push(item{t: e.now + d, class: classArrival, kind: itemData, key: e.txSeq, p: to, ref: int32(c)})
	return c, nil
}

// storePB keeps a piggyback in the run's PBs table and returns its index;
// it shares the process's previous one when equal, which is the common
// case for MS.
func (e *engine) storePB(p int32, pb *trace.Piggyback) int32 {
	if last := e.lastPB[p]; last != trace.None && samePB(&e.out.PBs[last], pb) {
		return last
	}
	i := e.out.AddPB(pb)
	e.lastPB[p] = i
	return i
}

func samePB(a, b *trace.Piggyback) bool {
	if a.Sn != b.Sn || a.Inc != b.Inc || a.RecLine != b.RecLine || a.VT != nil || b.VT != nil || len(a.F) != len(b.F) {
		return false
	}
	for i := range a.F {
		if a.F[i] != b.F[i] {
			return false
		}
	}
	return true
}

// tryRecv offers p's waiting receive its candidates: the replay log's copy
// first, then the mailbox's copies of the message in arrival order.
func (e *engine) tryRecv(p int32) error {
	pr := &e.procs[p]
	k := pr.pos()
	tev := &e.tr.Events[pr.prog[k]]
	msg := tev.Msg
	gen := pr.gen
	for pr.rcur < len(pr.replay) && pr.replay[pr.rcur].Op < k {
		pr.rcur++
	}
	if pr.rcur < len(pr.replay) && pr.replay[pr.rcur].Op == k {
		c := pr.replay[pr.rcur].Copy
		res, err := e.judge(p, k, c, trace.ViaLog)
		if err != nil || res != resDiscard || e.procs[p].gen != gen {
			return err
		}
		pr = &e.procs[p]
		pr.rcur++
	}
	for c := e.head[msg]; c != NoCopy; {
		next := e.copies[c].next
		res, err := e.judge(p, k, c, trace.ViaNet)
		if err != nil || res != resDiscard || e.procs[p].gen != gen {
			return err
		}
		c = next
	}
	pr = &e.procs[p]
	pr.blocked = true
	return nil
}

// Judgement results.
const (
	resNone = iota
	resDeliver
	resDiscard
	resHold
	resRolledBack
)

type judgement struct {
	res int
}

func (e *engine) judge(p, k int32, c CopyID, via trace.Via) (int, error) {
	cr := &e.copies[c]
	in := &e.in
	// in.PB points into the run's PBs. A send during this step may grow
	// that table; the algorithm then still reads the old array, whose
	// entries are never written after they are stored.
	*in = Input{Kind: InRecv, T: e.now, P: p, Pos: k, Op: k, Msg: cr.msg, Peer: cr.from,
		Copy: c, CopyNo: cr.no, Via: via, PB: &e.out.PBs[cr.pb]}
	j := judgement{}
	gen := e.procs[p].gen
	if err := e.apply(in, e.step(in), &j); err != nil {
		return resNone, err
	}
	if e.procs[p].gen != gen {
		return resRolledBack, nil
	}
	if j.res == resNone {
		return resNone, fmt.Errorf("replay: algorithm %s gave no judgement for a receive", e.alg.Name())
	}
	return j.res, nil
}

// apply applies the effects fx of input in, in order. j collects the
// judgement of an InRecv.
func (e *engine) apply(in *Input, fx []Effect, j *judgement) error {
	p := in.P
	e.depth++
	defer func() { e.depth-- }()
	retry := false
	for i := range fx {
		f := &fx[i]
		pr := &e.procs[p]
		switch f.Kind {
		case EffCheckpoint:
			if n := len(pr.ckpts); f.Ckpt <= 0 || (n > 0 && f.Ckpt <= pr.ckpts[n-1].id) {
				return fmt.Errorf("replay: algorithm %s: checkpoint id %d of %s not increasing", e.alg.Name(), f.Ckpt, e.tr.Processes[p])
			}
			pr.ckpts = append(pr.ckpts, ckptRec{id: f.Ckpt, pos: pr.pos()})
			r := e.ev(trace.Checkpoint, p)
			r.Ckpt, r.CkptType, r.Pos, r.Sn, r.VT, r.Failure = f.Ckpt, f.CkptType, pr.pos(), f.Sn, e.out.AddVT(f.VT), f.Failure
			e.emit(r)
		case EffSkip:
			r := e.ev(trace.CheckpointSkipped, p)
			r.Next, r.Sn, r.Reason = f.Next, f.Sn, f.Reason
			e.emit(r)
		case EffLog:
			if f.Copy < 0 || int(f.Copy) >= len(e.copies) {
				return fmt.Errorf("replay: algorithm %s logged unknown copy %d", e.alg.Name(), f.Copy)
			}
			cr := &e.copies[f.Copy]
			r := e.ev(trace.Log, p)
			r.Msg, r.Copy, r.Op = cr.msg, cr.no, f.Op
			e.emit(r)
		case EffDeliver, EffDiscard, EffHold:
			if in.Kind != InRecv || j == nil || j.res != resNone {
				return fmt.Errorf("replay: algorithm %s: judgement outside a receive", e.alg.Name())
			}
			if err := e.judged(in, f, j); err != nil {
				return err
			}
		case EffControl:
			if f.To < 0 || int(f.To) >= len(e.procs) || f.To == p {
				return fmt.Errorf("replay: algorithm %s: control message to bad process %d", e.alg.Name(), f.To)
			}
			r := e.ev(trace.ControlSend, p)
			r.Peer, r.Control, r.Body, r.Failure = f.To, f.Control, e.out.AddBody(f.Body), f.Failure
			e.emit(r)
			e.ctrls = append(e.ctrls, ctrlRec{from: p, to: f.To, control: f.Control, body: f.Body, bodyIdx: r.Body, failure: f.Failure})
			e.txSeq++
			e.q.push(item{t: e.now + e.params.ControlDelay, class: classArrival, kind: itemControl,
				key: e.txSeq, p: f.To, ref: int32(len(e.ctrls) - 1)})
		case EffRestart:
			if in.Kind != InRestart || i != 0 {
				return fmt.Errorf("replay: algorithm %s: EffRestart outside a restart", e.alg.Name())
			}
			if err := e.restore(p, f, true); err != nil {
				return err
			}
		case EffRollback:
			if in.Kind == InRestart && i == 0 {
				return fmt.Errorf("replay: algorithm %s: restart must begin with EffRestart", e.alg.Name())
			}
			if err := e.restore(p, f, false); err != nil {
				return err
			}
		case EffHoldProcess:
			pr.heldProc = true
			pr.gen++
			pr.blocked = false
		case EffResume:
			if pr.heldProc {
				pr.heldProc = false
				e.emit(e.ev(trace.Resume, p))
				if pr.exec < e.now {
					pr.exec = e.now
				}
				pr.gen++
				e.schedule(p)
			}
		case EffResend:
			if f.Copy < 0 || int(f.Copy) >= len(e.copies) || e.copies[f.Copy].from != p {
				return fmt.Errorf("replay: algorithm %s: resend of unknown copy %d", e.alg.Name(), f.Copy)
			}
			cr := e.copies[f.Copy]
			if _, err := e.transmit(p, cr.op, cr.msg, cr.to, cr.pb, f.Copy, f.Failure, ""); err != nil {
				return err
			}
		case EffRetry:
			retry = true
		case EffPiggyback:
			return fmt.Errorf("replay: algorithm %s: piggyback outside a send", e.alg.Name())
		default:
			return fmt.Errorf("replay: algorithm %s: unknown effect %d", e.alg.Name(), f.Kind)
		}
	}
	// Inside a receive's judgement the receive is being tried already; a
	// retry there could only recurse.
	if retry && in.Kind != InRecv {
		return e.retry(p)
	}
	return nil
}

// judged applies a receive's judgement.
func (e *engine) judged(in *Input, f *Effect, j *judgement) error {
	p := in.P
	pr := &e.procs[p]
	c := in.Copy
	cr := &e.copies[c]
	if f.Kind != EffHold && pr.heldRecv {
		pr.heldRecv = false
		r := e.ev(trace.Unhold, p)
		r.Msg = cr.msg
		r.Failure = f.Failure
		e.emit(r)
	}
	switch f.Kind {
	case EffDeliver:
		j.res = resDeliver
		if in.Via == trace.ViaNet {
			e.boxRemove(c)
			cr.state = copyTaken
		}
		r := e.ev(trace.Recv, p)
		r.Msg, r.Peer, r.Op, r.Copy, r.Via = cr.msg, cr.from, in.Op, cr.no, in.Via
		r.Label = e.out.AddString(e.tr.Events[pr.prog[in.Op]].Label)
		e.emit(r)
		pr.live = append(pr.live, c)
		pr.blocked = false
		pr.exec = e.now
		e.schedule(p)
	case EffDiscard:
		j.res = resDiscard
		if in.Via == trace.ViaNet {
			e.boxRemove(c)
			cr.state = copyDiscarded
		}
		r := e.ev(trace.Discard, p)
		r.Msg, r.Copy, r.Reason, r.Failure = cr.msg, cr.no, f.Reason, f.Failure
		e.emit(r)
	case EffHold:
		j.res = resHold
		pr.blocked = false
		if !pr.heldRecv {
			pr.heldRecv = true
			pr.holdMsg = cr.msg
			r := e.ev(trace.Hold, p)
			r.Msg, r.Until, r.Failure = cr.msg, e.out.AddString(f.Until), f.Failure
			e.emit(r)
		}
	}
	return nil
}

// restore applies EffRestart (restart) or EffRollback.
func (e *engine) restore(p int32, f *Effect, restart bool) error {
	pr := &e.procs[p]
	ci := sort.Search(len(pr.ckpts), func(i int) bool { return pr.ckpts[i].id >= f.Ckpt })
	cpos := int32(0)
	switch {
	case f.Ckpt == 0:
	case ci < len(pr.ckpts) && pr.ckpts[ci].id == f.Ckpt:
		cpos = pr.ckpts[ci].pos
	default:
		return fmt.Errorf("replay: algorithm %s: %s restores unknown checkpoint %d", e.alg.Name(), e.tr.Processes[p], f.Ckpt)
	}
	L := pr.pos()
	pos := f.Pos
	if pos == trace.None {
		pos = cpos
	}
	if pos < cpos || int(pos) > len(pr.prog) || (!restart && pos > L) {
		return fmt.Errorf("replay: algorithm %s: %s restores checkpoint %d (pos %d) to bad pos %d", e.alg.Name(), e.tr.Processes[p], f.Ckpt, cpos, pos)
	}
	undone := int32(0)
	if L > pos {
		undone = L - pos
	}
	// The held or blocked receive is undone by any restore.
	if pr.heldRecv {
		pr.heldRecv = false
		r := e.ev(trace.Unhold, p)
		r.Msg, r.Failure = pr.holdMsg, f.Failure
		e.emit(r)
	}
	pr.blocked = false
	pr.gen++
	if L > pos {
		pr.live = pr.live[:pos]
	}
	for _, lc := range f.Replay {
		if lc.Copy < 0 || int(lc.Copy) >= len(e.copies) || e.copies[lc.Copy].to != p ||
			lc.Op < 0 || int(lc.Op) >= len(pr.prog) || e.tr.Events[pr.prog[lc.Op]].Msg != e.copies[lc.Copy].msg {
			return fmt.Errorf("replay: algorithm %s: %s's replay log gives op %d copy %d, which is not a copy of that receive's message", e.alg.Name(), e.tr.Processes[p], lc.Op, lc.Copy)
		}
	}
	pr.replay = append(pr.replay[:0], f.Replay...)
	sort.Slice(pr.replay, func(a, b int) bool { return pr.replay[a].Op < pr.replay[b].Op })
	pr.rcur = 0
	if restart {
		// PK: re-transmit live sends and run, for the first time, the ops
		// between the crash point and pos, all before the restart event.
		for k := cpos; k < pos; k++ {
			tev := &e.tr.Events[pr.prog[k]]
			if k < L {
				if f.Resend && tev.Kind == trace.Send {
					orig := pr.live[k]
					if _, err := e.transmit(p, k, tev.Msg, tev.To, e.copies[orig].pb, orig, f.Failure, ""); err != nil {
						return err
					}
					pr = &e.procs[p]
				}
				continue
			}
			switch tev.Kind {
			case trace.Send, trace.Internal:
				if err := e.execLocal(p, k, tev); err != nil {
					return err
				}
				pr = &e.procs[p]
			case trace.Recv:
				c := NoCopy
				for _, lc := range pr.replay {
					if lc.Op == k {
						c = lc.Copy
					}
				}
				if c == NoCopy || e.copies[c].msg != tev.Msg {
					return fmt.Errorf("replay: algorithm %s: %s replays receive op %d without a log copy", e.alg.Name(), e.tr.Processes[p], k)
				}
				cr := &e.copies[c]
				r := e.ev(trace.Recv, p)
				r.Msg, r.Peer, r.Op, r.Copy, r.Via, r.Label = cr.msg, cr.from, k, cr.no, trace.ViaLog, e.out.AddString(tev.Label)
				e.emit(r)
				pr.live = append(pr.live, c)
			}
		}
		r := e.ev(trace.Restart, p)
		r.Restore, r.Pos, r.Undone, r.Inc, r.Failure = f.Ckpt, pos, undone, f.Inc, f.Failure
		e.emit(r)
	} else {
		r := e.ev(trace.Rollback, p)
		r.Restore, r.Pos, r.Undone, r.Cause, r.Failure = f.Ckpt, pos, undone, f.Cause, f.Failure
		e.emit(r)
	}
	for _, c := range f.Requeue {
		if c < 0 || int(c) >= len(e.copies) || e.copies[c].to != p {
			return fmt.Errorf("replay: algorithm %s: requeue of unknown copy %d", e.alg.Name(), c)
		}
		if cr := &e.copies[c]; cr.state != copyBox && cr.state != copyTransit {
			cr.state = copyBox
			e.boxInsert(c)
		}
	}
	pr.exec = e.now
	e.schedule(p)
	return nil
}

// finish records every process's end and the copies left in mailboxes.
func (e *engine) finish() {
	for p := range e.procs {
		pr := &e.procs[p]
		r := e.ev(trace.End, int32(p))
		switch {
		case pr.down:
			r.State = trace.StateDown
		case int(pr.pos()) >= len(pr.prog):
			r.State = trace.StateDone
		case pr.heldProc || pr.heldRecv:
			r.State = trace.StateHeld
		default:
			r.State = trace.StateBlocked
		}
		if r.State != trace.StateDone && int(pr.pos()) < len(pr.prog) {
			r.Op = pr.pos()
			if tev := &e.tr.Events[pr.prog[pr.pos()]]; tev.Kind == trace.Recv {
				r.Msg = tev.Msg
			}
		}
		e.emit(r)
	}
	var left []CopyID
	for c := range e.copies {
		if e.copies[c].state == copyBox {
			left = append(left, CopyID(c))
		}
	}
	sort.Slice(left, func(a, b int) bool {
		ca, cb := &e.copies[left[a]], &e.copies[left[b]]
		if ca.to != cb.to {
			return ca.to < cb.to
		}
		return ca.arrSeq < cb.arrSeq
	})
	for _, c := range left {
		cr := &e.copies[c]
		r := e.ev(trace.Unconsumed, cr.to)
		r.Msg, r.Copy = cr.msg, cr.no
		e.emit(r)
	}
}
