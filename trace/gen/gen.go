package gen

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"

	"github.com/ckpt-dev/ckpt/trace/codec"

	"github.com/ckpt-dev/ckpt/trace"
)

// Sink receives a generated trace's events in file order. In each event
// Msg is the message's index in send order and msg its id (MsgName);
// To and Msg are trace.None where absent; label is always "" (generated
// events carry none). A sink must not keep ev: the generator reuses it.
// *codec.TraceWriter is a Sink.
type Sink interface {
	WriteEvent(ev *trace.Event, msg, label string) error
}

// SinkFunc adapts a function to Sink.
type SinkFunc func(ev *trace.Event, msg string) error

// WriteEvent calls f; generated events have no label.
func (f SinkFunc) WriteEvent(ev *trace.Event, msg, _ string) error { return f(ev, msg) }

// Stats counts what Generate produced: Sizes the events written, all
// (Events) and by kind (Sizes.Count; Msgs, Procs and Busy are not
// counted).
type Stats struct {
	trace.Sizes
	Ops int // send + recv + internal
	// MaxInFlight is the largest number of messages in flight at once,
	// which (with the processes) bounds the generator's memory.
	MaxInFlight int
}

// PCG stream constants: the seed selects the execution, these keep the
// topology's graph independent of how many draws the run makes.
const (
	streamRun   = 0x636b70742d72756e // "ckpt-run"
	streamGraph = 0x636b70742d677270 // "ckpt-grp"
	streamTick  = 0x636b70742d74636b // "ckpt-tck"
)

// item is a pending event of the simulation: its kind is the event's,
// but trace.Internal, which stands for an op that p starts on its own
// (a send or an internal op, drawn then). Items leave the queue in
// (t, seq) order, and every item is scheduled no earlier than the time
// being processed, so events come out in non-decreasing time and, at
// equal times, in scheduling order: a recv always follows its send.
type item struct {
	t    trace.Time
	seq  uint64
	kind trace.Kind
	p    int32
	msg  int32
	// name is an arrival's message id, made once at the send.
	name string
}

type generator struct {
	cfg  Config
	sink Sink
	r    *rand.Rand
	// adj lists the receivers of each process under the Random topology.
	adj [][]int32
	// rt draws tick intervals (Config.TickInterval), apart from r so
	// that the ticks leave the execution unchanged.
	rt *rand.Rand
	// queue
	q   []item
	seq uint64
	now trace.Time
	// op budget
	remaining int // ops still to write
	inFlight  int // queued arrivals, each a future recv op
	transit   int // in-transit sends still to write
	msgs      int32
	// failures
	failPos   []int
	clustered []bool
	nextFail  int
	// Failures are scheduled in non-decreasing time, so a process is
	// free for a new one iff it has restarted from its latest.
	downUntil []trace.Time
	lastFail  trace.Time // time of the latest scheduled failure
	window    trace.Time
	ev        trace.Event
	st        Stats
	// err is the first error of push: a time beyond the trace's range.
	err error
}

// Header returns the header of cfg's trace: its processes and params.
func Header(cfg Config) (codec.TraceHeader, error) {
	cfg, err := cfg.normalized()
	if err != nil {
		return codec.TraceHeader{}, err
	}
	procs := make([]string, cfg.Procs)
	for i := range procs {
		procs[i] = ProcName(i)
	}
	return codec.TraceHeader{Processes: procs, Params: cfg.Params}, nil
}

// Generate writes the events of the trace that cfg describes into sink,
// in file order, and returns what it wrote; Header gives the header.
// Memory is proportional to the processes, the failures and the
// messages in flight, never to cfg.Events.
func Generate(cfg Config, sink Sink) (Stats, error) {
	cfg, err := cfg.normalized()
	if err != nil {
		return Stats{}, err
	}
	g := newGenerator(cfg, sink)
	err = g.run()
	return g.st, err
}

// Write generates cfg's trace and writes it to w as JSON, JSON Lines
// and/or gzip as opts say, streaming.
func Write(w io.Writer, cfg Config, opts codec.WriteOptions) (Stats, error) {
	h, err := Header(cfg)
	if err != nil {
		return Stats{}, err
	}
	tw, err := codec.NewTraceWriter(w, h, opts)
	if err != nil {
		return Stats{}, err
	}
	st, err := Generate(cfg, tw)
	if err != nil {
		return st, err
	}
	return st, tw.Close()
}

func newGenerator(cfg Config, sink Sink) *generator {
	g := &generator{
		cfg:       cfg,
		sink:      sink,
		r:         rand.New(rand.NewPCG(cfg.Seed, streamRun)),
		remaining: cfg.Events,
		transit:   cfg.InTransit,
		window:    cfg.recoveryWindow(),
		downUntil: make([]trace.Time, cfg.Procs),
	}
	if cfg.Topology == Random {
		g.adj = randomGraph(cfg.Procs, cfg.Seed)
	}
	if cfg.TickInterval.Kind != DistNone {
		g.rt = rand.New(rand.NewPCG(cfg.Seed, streamTick))
	}
	if res := cfg.Resolution; res > 1 {
		// Keep failure times on the resolution grid.
		g.window = (g.window + res - 1) / res * res
	}
	// Failures are anchored to progress, not to time (the trace's length
	// in time is known only at its end): failure i comes after op
	// failPos[i], or, when clustered, inside the previous one's window.
	g.failPos = make([]int, cfg.Failures)
	g.clustered = make([]bool, cfg.Failures)
	for i := range g.failPos {
		g.failPos[i] = g.r.IntN(cfg.Events + 1)
		g.clustered[i] = cfg.Concurrent && i > 0 && g.r.IntN(2) == 0
	}
	slices.Sort(g.failPos)
	return g
}

// randomGraph draws a connected undirected graph on n vertices as
// sorted adjacency lists: a random spanning tree plus n random extra
// edges (when n ≥ 4), duplicates removed.
func randomGraph(n int, seed uint64) [][]int32 {
	r := rand.New(rand.NewPCG(seed, streamGraph))
	perm := r.Perm(n)
	adj := make([][]int32, n)
	link := func(a, b int) {
		adj[a] = append(adj[a], int32(b))
		adj[b] = append(adj[b], int32(a))
	}
	for i := 1; i < n; i++ {
		link(perm[i], perm[r.IntN(i)])
	}
	if n >= 4 {
		for range n {
			a := r.IntN(n)
			b := r.IntN(n - 1)
			if b >= a {
				b++
			}
			link(a, b)
		}
	}
	for i := range adj {
		slices.Sort(adj[i])
		adj[i] = slices.Compact(adj[i])
	}
	return adj
}

// receiver draws the receiver of a send by p; n ≥ 2.
func (g *generator) receiver(p int32) int32 {
	n := int32(g.cfg.Procs)
	switch g.cfg.Topology {
	case Ring:
		if n == 2 || g.r.IntN(2) == 0 {
			return (p + 1) % n
		}
		return (p + n - 1) % n
	case Star:
		if p == 0 {
			return 1 + g.r.Int32N(n-1)
		}
		return 0
	case Random:
		return g.adj[p][g.r.Int32N(int32(len(g.adj[p])))]
	}
	q := g.r.Int32N(n - 1)
	if q >= p {
		q++
	}
	return q
}

// sample draws a duration from d with r, quantized to the resolution
// (fixed values are kept exact; uniform samples stay inside [A, B]).
func (g *generator) sample(r *rand.Rand, d Dist) trace.Time {
	res := g.cfg.Resolution
	switch d.Kind {
	case Exp:
		t := trace.Time(min(r.ExpFloat64()*float64(d.A), float64(trace.MaxTime/16)))
		if res > 1 {
			t = (t + res/2) / res * res
		}
		return t
	case Uniform:
		if res <= 1 {
			return d.A + trace.Time(r.Int64N(int64(d.B-d.A)+1))
		}
		lo, hi := (d.A+res-1)/res, d.B/res
		if lo > hi {
			return d.A
		}
		return (lo + trace.Time(r.Int64N(int64(hi-lo)+1))) * res
	}
	return d.A
}

// push queues an item. A time beyond the trace's range is an error
// (g.err), which stops the generator before it writes another event.
func (g *generator) push(it item) {
	if it.t > trace.MaxTime {
		if g.err == nil {
			g.err = fmt.Errorf("generated time %v exceeds the time range; use fewer events or shorter gaps", it.t)
		}
		return
	}
	it.seq = g.seq
	g.seq++
	g.q = append(g.q, it)
	for i := len(g.q) - 1; i > 0; { // sift up
		parent := (i - 1) / 2
		if !less(&g.q[i], &g.q[parent]) {
			break
		}
		g.q[i], g.q[parent] = g.q[parent], g.q[i]
		i = parent
	}
}

func less(a, b *item) bool {
	return a.t < b.t || (a.t == b.t && a.seq < b.seq)
}

func (g *generator) pop() item {
	top := g.q[0]
	last := len(g.q) - 1
	g.q[0] = g.q[last]
	g.q = g.q[:last]
	for i := 0; ; { // sift down
		l := 2*i + 1
		if l >= last {
			break
		}
		m := l
		if r := l + 1; r < last && less(&g.q[r], &g.q[l]) {
			m = r
		}
		if !less(&g.q[m], &g.q[i]) {
			break
		}
		g.q[i], g.q[m] = g.q[m], g.q[i]
		i = m
	}
	return top
}

// ErrTooManyEvents is returned when a trace passes Config.MaxEvents.
var ErrTooManyEvents = errors.New("--max-events")

func (g *generator) emit(kind trace.Kind, p, to, msg int32, name string, down trace.Time) error {
	g.ev = trace.Event{T: g.now, Kind: kind, P: p, To: to, Msg: msg, Down: down}
	g.st.Events++
	if g.cfg.MaxEvents > 0 && g.st.Events > g.cfg.MaxEvents {
		return fmt.Errorf("gen: the trace passes %d events (%w) at t=%s with %d of its %d ops done (%d checkpoints, %d flushes so far): lengthen --tick or --flush-every, shorten --delay or --op-gap, or raise --max-events",
			g.cfg.MaxEvents, ErrTooManyEvents, g.now, g.st.Ops, g.cfg.Events, g.st.Checkpoints, g.st.Flushes)
	}
	g.st.Count(kind)
	if kind.IsOp() {
		g.st.Ops++
	}
	return g.sink.WriteEvent(&g.ev, name, "")
}

func (g *generator) run() error {
	for p := range int32(g.cfg.Procs) {
		if g.remaining > 0 {
			g.push(item{t: g.sample(g.r, g.cfg.OpGap), kind: trace.Internal, p: p})
		}
		if next := g.nextTick(p); next > 0 {
			g.push(item{t: next, kind: trace.Checkpoint, p: p})
		}
		if f := g.cfg.FlushEvery; f > 0 {
			g.push(item{t: f + trace.Time(int64(f)/int64(g.cfg.Procs)*int64(p)), kind: trace.Flush, p: p})
		}
	}
	g.triggerFailures()
	var err error
	for err == nil && g.err == nil && len(g.q) > 0 {
		it := g.pop()
		if (it.kind == trace.Checkpoint || it.kind == trace.Flush) && !g.goesOn() {
			// Only timers are left: the execution is over.
			continue
		}
		g.now = it.t
		switch it.kind {
		case trace.Internal:
			err = g.op(it.p)
		case trace.Recv:
			g.inFlight--
			g.remaining--
			if err = g.emit(trace.Recv, it.p, trace.None, it.msg, it.name, 0); err == nil {
				g.triggerFailures()
			}
		case trace.Fail:
			err = g.emit(trace.Fail, it.p, trace.None, trace.None, "", g.cfg.Down)
		default: // a timer: the next tick or flush follows
			if err = g.emit(it.kind, it.p, trace.None, trace.None, "", 0); err == nil {
				period := g.cfg.FlushEvery
				if it.kind == trace.Checkpoint {
					period = g.nextTick(it.p)
				}
				g.push(item{t: it.t + period, kind: it.kind, p: it.p})
			}
		}
	}
	if err == nil {
		err = g.err
	}
	return err
}

// nextTick returns the time from p's latest tick (or from 0) to its
// next one, 0 for a process without a timer: its period, or a fresh
// sample of TickInterval, at least one resolution.
func (g *generator) nextTick(p int32) trace.Time {
	switch {
	case g.rt != nil:
		return max(g.sample(g.rt, g.cfg.TickInterval), g.cfg.Resolution, 1)
	case len(g.cfg.Ticks) > 0:
		return g.cfg.Ticks[int(p)%len(g.cfg.Ticks)]
	}
	return 0
}

// goesOn reports whether an app event or a failure is still to come: an
// arrival or a failure queued (every failure scheduled is queued until
// written), or an op. remaining-inFlight never grows, and while it is
// positive every process has an op queued that will write one; once it
// is 0, queued ops write nothing.
func (g *generator) goesOn() bool {
	return g.inFlight > 0 || int64(g.nextFail) > g.st.Fails || g.remaining-g.inFlight > 0
}

// op runs an op that p starts on its own. The budget keeps exactly
// cfg.Events ops: a received send needs two (its recv comes later), and
// the in-transit sends are written once nothing else fits, so they are
// the last sends, as if the trace were cut while they were in flight.
func (g *generator) op(p int32) error {
	free := g.remaining - g.inFlight - g.transit
	send := free >= 2 && g.cfg.Procs > 1 && g.r.Float64() < g.cfg.SendRatio
	switch {
	case send || free < 1 && g.transit > 0:
		to, msg := g.receiver(p), g.msgs
		name := MsgName(msg)
		g.msgs++
		g.remaining--
		if err := g.emit(trace.Send, p, to, msg, name, 0); err != nil {
			return err
		}
		if !send {
			g.transit--
			break
		}
		g.inFlight++
		g.st.MaxInFlight = max(g.st.MaxInFlight, g.inFlight)
		g.push(item{t: g.now + g.sample(g.r, g.cfg.Delay), kind: trace.Recv, p: to, msg: msg, name: name})
	case free >= 1:
		g.remaining--
		if err := g.emit(trace.Internal, p, trace.None, trace.None, "", 0); err != nil {
			return err
		}
	default:
		return nil
	}
	if g.remaining-g.inFlight > 0 {
		g.push(item{t: g.now + g.sample(g.r, g.cfg.OpGap), kind: trace.Internal, p: p})
	}
	g.triggerFailures()
	return nil
}

// triggerFailures schedules the failures whose op position has been
// reached, in non-decreasing time. A failure is never placed while its
// process is down (SPEC §3 ignores such a fail): another process is
// taken, or, if all are down, the time moves to the earliest restart.
func (g *generator) triggerFailures() {
	for g.nextFail < len(g.failPos) && g.failPos[g.nextFail] <= g.st.Ops {
		t := g.now
		if g.nextFail > 0 { // after the latest failure
			t = max(t, g.lastFail)
			if !g.cfg.Concurrent {
				t = max(t, g.lastFail+g.window)
			}
		}
		g.scheduleFail(t, g.r.Int32N(int32(g.cfg.Procs)))
		g.nextFail++
		for g.nextFail < len(g.failPos) && g.clustered[g.nextFail] {
			// Inside the latest failure's window: uniform in [0, window) on
			// the resolution grid (newGenerator put the window on it).
			in := g.sample(g.r, Dist{Kind: Uniform, B: g.window - g.cfg.Resolution})
			g.scheduleFail(g.lastFail+in, g.r.Int32N(int32(g.cfg.Procs)))
			g.nextFail++
		}
	}
}

// scheduleFail schedules a failure at t ≥ lastFail of p, or of the next
// process (cyclically) that is up at t.
func (g *generator) scheduleFail(t trace.Time, p int32) {
	n := int32(g.cfg.Procs)
	for {
		for range n {
			if g.downUntil[p] <= t {
				g.downUntil[p] = t + g.cfg.downTime()
				g.lastFail = t
				g.push(item{t: t, kind: trace.Fail, p: p})
				return
			}
			p = (p + 1) % n
		}
		// Everyone is down at t: wait for the earliest restart.
		t = slices.Min(g.downUntil)
	}
}

// Trace generates cfg's trace in memory, for tests and small inputs,
// and validates it.
func Trace(cfg Config) (*trace.Trace, error) {
	h, err := Header(cfg)
	if err != nil {
		return nil, err
	}
	tr := &trace.Trace{Processes: h.Processes, Params: h.Params}
	_, err = Generate(cfg, SinkFunc(func(ev *trace.Event, msg string) error {
		if ev.Kind == trace.Send {
			tr.Msgs = append(tr.Msgs, msg)
		}
		tr.Events = append(tr.Events, *ev)
		return nil
	}))
	if err != nil {
		return nil, err
	}
	if err := trace.Validate(tr); err != nil {
		return nil, fmt.Errorf("generator bug: %w", err)
	}
	return tr, nil
}
