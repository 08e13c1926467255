package replay

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/ckpt-dev/ckpt/trace"
)

// A Sim is a replay that stops before a point of its trace, is copied
// there, and goes on over the trace with failures inserted at that
// point. Schedules that differ only after a point share the replay up to
// it: explore replays the failure-free prefix once and each schedule's
// suffix only (docs/explore.md, "Shared prefixes").
//
// What a Sim continuing over the longer trace makes is exactly what Run
// makes of that trace from the start: until the point, the engine handles
// the same items in the same order (an inserted trace event comes after
// every item it follows in SPEC §3's order), and the engine's state names
// trace events only by index, which Insert renumbers.
type Sim struct {
	e *engine
	// from is the replay this one was cloned from, and spare the engine
	// of a released clone, whose tables the next clone fills.
	from  *Sim
	spare *engine
}

// Cloner is an Algorithm whose state can be copied: Clone returns an
// independent machine in the same state, or nil when it cannot (a
// wrapper around a machine that cannot). What neither writes again
// (programs, vectors and bodies handed out) may be shared, and read
// through what the original goes on to write (PK's receipt views read
// its receipt log): step a clone and its original in one goroutine.
type Cloner interface {
	Algorithm
	Clone() Algorithm
}

// Start prepares the replay of tr through alg, as Run does, without
// running it. Its stream (opts.Stream) gets the header at once.
func Start(tr *trace.Trace, alg Algorithm, opts Options) (*Sim, error) {
	e, err := newEngine(tr, alg, opts)
	if err != nil {
		return nil, err
	}
	e.publish()
	e.begin()
	return &Sim{e: e}, nil
}

// RunUntil handles everything that comes before a trace event inserted
// at index at of the trace at time t: every trace event before index at,
// every queued item SPEC §3 orders before it. Calls go forward: at and t
// never decrease.
func (s *Sim) RunUntil(at int32, t trace.Time) error {
	return s.e.advance(&item{t: t, class: classIndexed, key: int64(at)})
}

// Run returns the run made so far: its events are final (a checker may
// take them as they come), its end is not yet written. A clone's run is
// its own.
func (s *Sim) Run() *trace.Run { return s.e.out }

// Finish runs to the end and returns the run, as Run would.
func (s *Sim) Finish() (*trace.Run, error) {
	if err := s.e.advance(nil); err != nil {
		return nil, err
	}
	s.e.finish()
	s.e.publish()
	return s.e.out, nil
}

// Clone returns an independent copy of the replay, its algorithm's
// state cloned (the algorithm must be a Cloner). A replay that streams
// its run cannot be cloned: its consumer takes one run.
func (s *Sim) Clone() (*Sim, error) {
	e := s.e
	if e.stream != nil {
		return nil, errors.New("replay: a Sim that streams its run cannot be cloned")
	}
	var alg Algorithm
	if cl, ok := e.alg.(Cloner); ok {
		alg = cl.Clone()
	}
	if alg == nil {
		return nil, fmt.Errorf("replay: algorithm %s cannot be cloned", e.alg.Name())
	}
	old := s.spare
	if s.spare = nil; old == nil {
		old = &engine{out: &trace.Run{}}
	}
	c := *e
	c.alg = alg
	c.in, c.fx = Input{}, nil
	c.procs = slices.Clone(e.procs)
	for p := range c.procs {
		var o proc
		if p < len(old.procs) {
			o = old.procs[p]
		}
		pr := &c.procs[p]
		pr.live, pr.ckpts = trace.Into(o.live, pr.live), trace.Into(o.ckpts, pr.ckpts)
		pr.replay, pr.pending = trace.Into(o.replay, pr.replay), trace.Into(o.pending, pr.pending)
	}
	c.q, c.copies = trace.Into(old.q, e.q), trace.Into(old.copies, e.copies)
	c.ctrls, c.ctrlFree = trace.Into(old.ctrls, e.ctrls), trace.Into(old.ctrlFree, e.ctrlFree)
	c.head, c.tail, c.ncopy = trace.Into(old.head, e.head), trace.Into(old.tail, e.tail), trace.Into(old.ncopy, e.ncopy)
	c.lastPB, c.lastVT = trace.Into(old.lastPB, e.lastPB), trace.Into(old.lastVT, e.lastVT)
	c.bodies = maps.Clone(e.bodies)
	c.stable, c.pbRefs, c.drops = trace.Into(old.stable, e.stable), trace.Into(old.pbRefs, e.pbRefs), trace.Into(old.drops, e.drops)
	// The run's tables hold values and immutable vectors: copying the
	// slices is copying the run.
	run := *e.out
	run.Events, run.PBs, run.VTs = trace.Into(old.out.Events, run.Events), trace.Into(old.out.PBs, run.PBs), trace.Into(old.out.VTs, run.VTs)
	run.Bodies, run.Strings = trace.Into(old.out.Bodies, run.Bodies), trace.Into(old.out.Strings, run.Strings)
	c.out = &run
	return &Sim{e: &c, from: s}, nil
}

// Release ends s: the run Finish returned is no longer read, and its
// memory serves the next clone of the replay s was cloned from.
func (s *Sim) Release() {
	if s.from != nil && s.e != nil {
		s.from.spare = s.e
	}
	s.e = nil
}

// Insert makes the replay go on over tr: its trace with n events that
// are not ops inserted at index at, where RunUntil(at, t) stopped (t the
// first inserted event's time). The inserted events come next.
func (s *Sim) Insert(tr *trace.Trace, at, n int32) error {
	e := s.e
	if len(tr.Events) != len(e.tr.Events)+int(n) || at < 0 || int(at) > len(e.tr.Events) || int(at) > e.cur {
		return fmt.Errorf("replay: %d events inserted at %d do not fit the replay", n, at)
	}
	for i := at; i < at+n; i++ {
		if tr.Events[i].Kind.IsOp() {
			return fmt.Errorf("replay: inserted event %d is an op", i)
		}
	}
	shift := func(i int32) int32 {
		if i >= at {
			return i + n
		}
		return i
	}
	all := make([]int32, 0, len(tr.Events))
	for p := range e.procs {
		pr := &e.procs[p]
		start := len(all)
		for _, i := range pr.prog {
			all = append(all, shift(i))
		}
		pr.prog = all[start:len(all):len(all)]
	}
	for k := range e.q {
		if it := &e.q[k]; it.kind == itemOp || it.kind == itemRestart {
			it.key = int64(shift(int32(it.key)))
		}
	}
	e.tr, e.cur = tr, int(at)
	return nil
}
