package history

import (
	"maps"
	"slices"

	"github.com/ckpt-dev/ckpt/trace"
)

// Clone returns an independent builder in b's state, building the model
// of run from there: run holds the events added so far (the same ones),
// and src is the source trace it goes on against — b's, or b's with
// events that are not ops inserted at index at, after every source
// event the run has shown so far (explore's next failure). The tables
// read from the source are made again for src; what the builder keeps
// of source indexes is from before at, so it holds unchanged. The
// putBack hook is not carried over: the caller that set it sets its
// clone's (package consistency's PK spec).
//
// Every slice and map the builder may write again is copied, also those
// inside its elements; the source and run tables and the vectors are
// shared, as nobody writes them. The largest tables are copied into
// spare's, a finished model no longer read (nil: none).
func (b *Builder) Clone(run *trace.Run, src *trace.Trace, at int, spare *Model) *Builder {
	if spare == nil {
		spare = &Model{}
	}
	c := *b
	c.m = b.m.clone(run, src, at, spare)
	c.procs = slices.Clone(b.procs)
	for p := range c.procs {
		var o Proc
		if p < len(spare.Procs) {
			o = spare.Procs[p]
		}
		ps := &c.procs[p]
		ps.Live, ps.Held, ps.Taken = trace.Into(o.Live, ps.Live), trace.Into(o.Held, ps.Held), trace.Into(o.Taken, ps.Taken)
		ps.stable = trace.Into(nil, ps.stable)
		ps.byID = maps.Clone(ps.byID)
	}
	c.candidates = slices.Clone(b.candidates)
	c.downPending = maps.Clone(b.downPending)
	for p, l := range c.downPending {
		c.downPending[p] = slices.Clone(l)
	}
	c.perFail = slices.Clone(b.perFail)
	c.putBack = nil
	return &c
}

// clone copies a model being built (Finish has not run: its final
// tables are nil) for Builder.Clone, into spare's tables.
func (m *Model) clone(run *trace.Run, src *trace.Trace, at int, spare *Model) *Model {
	c := *m
	c.Run = run
	c.setSrc(src, m, at)
	c.Pred, c.SendOf, c.UndoneBy = trace.Into(spare.Pred, m.Pred), trace.Into(spare.SendOf, m.SendOf), trace.Into(spare.UndoneBy, m.UndoneBy)
	c.answers, c.failSeqs, c.restoreSeqs = slices.Clone(m.answers), slices.Clone(m.failSeqs), slices.Clone(m.restoreSeqs)
	c.Failures = slices.Clone(m.Failures)
	for i := range c.Failures {
		f := &c.Failures[i]
		f.Handlers = slices.Clone(f.Handlers)
		f.Snap = Snapshot{LiveAt: slices.Clone(f.Snap.LiveAt), Heads: slices.Clone(f.Snap.Heads), Recvs: slices.Clone(f.Snap.Recvs)}
	}
	c.Handlings = slices.Clone(m.Handlings)
	c.Restores = slices.Clone(m.Restores)
	for i := range c.Restores {
		c.Restores[i].Undid = slices.Clone(c.Restores[i].Undid)
	}
	cp := &c.Copies
	cp.Send, cp.Orig, cp.box = trace.Into(spare.Copies.Send, cp.Send), trace.Into(spare.Copies.Orig, cp.Orig), trace.Into(nil, cp.box)
	cp.first, cp.count, cp.later = slices.Clone(cp.first), slices.Clone(cp.count), maps.Clone(cp.later)
	c.Takes = slices.Clone(m.Takes)
	c.shownKind, c.shownMsg = slices.Clone(m.shownKind), slices.Clone(m.shownMsg)
	for p := range c.shownKind {
		var kind []trace.Kind
		var msg []int32
		if p < len(spare.shownKind) {
			kind, msg = spare.shownKind[p], spare.shownMsg[p]
		}
		c.shownKind[p], c.shownMsg[p] = trace.Into(kind, c.shownKind[p]), trace.Into(msg, c.shownMsg[p])
	}
	return &c
}
