package consistency

import (
	"maps"
	"math"
	"slices"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// Runs that share a prefix share its judging: explore replays the
// failure-free prefix of its schedules once and clones the replay at
// each failure point (replay.Sim); it clones the stream judging that
// prefix there too, and each clone judges its schedule's suffix only
// (docs/explore.md, "What the checker shares"). A clone fed the rest of
// a run reports exactly what a fresh stream fed the whole run does
// (TestStreamCloneAgrees).

// NewSharedStream is NewStream for a prefix that runs going on
// differently share: it keeps to the end what a recovery may read (PK's
// vectors of checkpoints and copies), since a clone's suffix may hold
// recoveries its prefix does not foresee, so that Clone can be taken at
// any event. Its clones are such streams too.
func NewSharedStream(run *trace.Run, src *trace.Trace, sizeHint int) *Stream {
	return newStream(run, src, sizeHint, math.MaxInt32)
}

// Clone returns an independent stream in s's state (made by
// NewSharedStream, not yet reported), judging run from there: run's events so far are the
// ones s was fed, and src is the source trace the run goes on against —
// s's, or s's with events that are not ops inserted at index at, after
// every source event the run has shown so far (a schedule's injected
// failure). Every table the specs read of the source trace is made
// again for src.
func (s *Stream) Clone(run *trace.Run, src *trace.Trace, at int) *Stream {
	b := s.b.Clone(run, src, at, s.spare)
	s.spare = nil
	return &Stream{b: b, spec: s.spec.clone(b), n: s.n}
}

// Recycle ends done, a clone of s whose report and model are no longer
// read: the next clone of s fills its model's tables.
func (s *Stream) Recycle(done *Stream) {
	s.spare, done.m = done.m, nil
}

// clone copies the run spec and its protocol spec over b, the clone of
// their builder; every slice and map they may write again is copied.
func (s *runSpec) clone(b *history.Builder) *runSpec {
	c := *s
	c.specFrame = s.specFrame.clone(b)
	c.procs = slices.Clone(s.procs)
	for p := range c.procs {
		c.procs[p].downOps = slices.Clone(c.procs[p].downOps)
	}
	c.flight, c.heard, c.skipped = slices.Clone(s.flight), maps.Clone(s.heard), slices.Clone(s.skipped)
	c.env = s.env.clone(s.m, c.m)
	if s.rounds != nil {
		c.rounds = s.rounds.clone()
	}
	c.posChecks.Violations = slices.Clone(s.posChecks.Violations)
	switch p := s.proto.(type) {
	case *msSpec:
		c.proto = p.clone(c.specFrame)
	case *pkSpec:
		c.proto = p.clone(c.specFrame)
	}
	return &c
}

func (f *specFrame) clone(b *history.Builder) *specFrame {
	c := *f
	c.b, c.m = b, b.Model()
	for i := range c.results {
		c.results[i].Violations = slices.Clone(f.results[i].Violations)
	}
	c.res = &c.results[logReplayAt]
	return &c
}

// clone copies env onto model to, whose source trace may have events
// inserted after those env has matched: its lists of ticks and fails
// still to come are to's, past as many as env's were.
func (env envSpec) clone(from, to *history.Model) envSpec {
	c := env
	c.envIdx = slices.Clone(env.envIdx)
	if env.ticks == nil {
		return c
	}
	ticks0, fails0 := from.SrcEnv()
	ticks, fails := to.SrcEnv()
	c.ticks, c.fails = slices.Clone(ticks), slices.Clone(fails)
	for p := range c.ticks {
		c.ticks[p] = c.ticks[p][len(ticks0[p])-len(env.ticks[p]):]
		c.fails[p] = c.fails[p][len(fails0[p])-len(env.fails[p]):]
	}
	return c
}

func (s *msSpec) clone(f *specFrame) *msSpec {
	c := *s
	c.specFrame = f
	c.incs = slices.Clone(s.incs)
	c.procs = slices.Clone(s.procs)
	for p := range c.procs {
		pr := &c.procs[p]
		pr.f, pr.pending, pr.log = slices.Clone(pr.f), slices.Clone(pr.pending), trace.Into(nil, pr.log)
		pr.owes = slices.Clone(pr.owes)
		for i := range pr.owes {
			pr.owes[i].sent = slices.Clone(pr.owes[i].sent)
		}
	}
	return &c
}

// clone copies the PK spec; the vectors it keeps are never written
// again, so they are shared.
func (s *pkSpec) clone(f *specFrame) *pkSpec {
	c := *s
	c.specFrame = f
	c.procs = slices.Clone(s.procs)
	for p := range c.procs {
		pr := &c.procs[p]
		pr.clock.got, pr.pending, pr.ckpts = slices.Clone(pr.clock.got), slices.Clone(pr.pending), trace.Into(nil, pr.ckpts)
		pr.blind = slices.Clone(pr.blind)
		pr.sentTo = maps.Clone(pr.sentTo)
		for q, l := range pr.sentTo {
			pr.sentTo[q] = trace.Into(nil, l)
		}
		pr.ann = annIndex{list: slices.Clone(pr.ann.list), origins: slices.Clone(pr.ann.origins), by: slices.Clone(pr.ann.by)}
		for i := range pr.ann.by {
			o := &pr.ann.by[i]
			o.minK, o.have = slices.Clone(o.minK), slices.Clone(o.have)
		}
		pr.duties = slices.Clone(pr.duties)
		for i := range pr.duties {
			pr.duties[i].resent = slices.Clone(pr.duties[i].resent)
		}
		if r := pr.replay; r != nil {
			rc := *r
			rc.vt, rc.sent, rc.events = slices.Clone(r.vt), slices.Clone(r.sent), slices.Clone(r.events)
			pr.replay = &rc
		}
	}
	c.copies, c.early, c.recvOf, c.restarted = trace.Into(nil, s.copies), slices.Clone(s.early), slices.Clone(s.recvOf), slices.Clone(s.restarted)
	c.lists, c.scratch = slices.Clone(s.lists), nil
	c.sorted.keys = nil // a cache, remade on use
	for i := range c.lists {
		if bad := c.lists[i].bad; bad != nil {
			bc := *bad
			bc.seqs = slices.Clone(bad.seqs)
			c.lists[i].bad = &bc
		}
	}
	// The source's flushes are found again in the clone's source; the
	// clone keeps its vectors, as s does, for clones of its own.
	c.flushes = pkFlushes{}
	if src := f.m.Src; src != nil && len(src.Processes) == len(c.procs) {
		c.flushes = newPKFlushes(src, len(c.procs))
		c.flushes.next = s.flushes.next
	}
	f.b.PutBack(c.putBack)
	return &c
}
