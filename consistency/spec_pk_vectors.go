package consistency

import (
	"slices"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// What PK's spec keeps of vector times. It reads a vector only while the
// event that carries it is added (a run may drop it after), so it keeps
// a copy's vector until a receive takes it and, while a recovery may
// still read them (vtKeeper), the vectors of checkpoints and taken
// copies: a PK run at thousands of processes then holds no vector per
// send. A vector kept is the run's own, never written once sent.

// vtKeeper says whether a recovery may still read the vectors of
// checkpoints and taken copies.
type vtKeeper struct {
	keep bool
	// horizon is the seq from which the run shows no recovery event (a
	// look ahead at a finished run), or None. srcFails counts the source
	// trace's fails (-1 without one): once the run has shown as many and
	// every recovery is over, none can come (another would be no fail of
	// the trace: equivalence's).
	horizon                 int32
	srcFails, fails, tokens int
}

func newVTKeeper(m *history.Model, lookahead int32) vtKeeper {
	k := vtKeeper{keep: true, horizon: lookahead, srcFails: -1}
	if _, fails := m.SrcEnv(); m.Src != nil {
		k.srcFails = 0
		for _, f := range fails {
			k.srcFails += len(f)
		}
	}
	return k
}

// taken drops copy ci's vector once a receive or discard took it, when
// no recovery can read it again.
func (k *vtKeeper) taken(s *pkSpec, ci int32) {
	if !k.keep && ci >= 0 && int(ci) < len(s.copies) {
		s.copies[ci].vt = nil
	}
}

// after notes event seq and, once no recovery can come, drops what only
// a recovery reads.
func (k *vtKeeper) after(s *pkSpec, seq int32) {
	switch e := s.m.Event(seq); {
	case e.Kind == trace.Fail:
		k.fails++
	case e.Kind == trace.ControlSend && e.Control == trace.ControlToken:
		k.tokens++
	case e.Kind == trace.ControlRecv && e.Control == trace.ControlToken:
		k.tokens--
	}
	if !k.keep || !k.quiet(s, seq) {
		return
	}
	k.keep = false
	for p := range s.procs {
		s.procs[p].ckpts = nil
	}
	for ci := range s.copies {
		if !s.b.InMailbox(int32(ci)) {
			s.copies[ci].vt = nil
		}
	}
}

// quiet reports whether no recovery can come after seq.
func (k *vtKeeper) quiet(s *pkSpec, seq int32) bool {
	if k.horizon != history.None {
		return seq+1 >= k.horizon
	}
	if k.srcFails < 0 || k.fails < k.srcFails || k.tokens > 0 {
		return false
	}
	for p := range s.procs {
		if pr := &s.procs[p]; s.b.Down(int32(p)) || pr.waiting != history.None || len(pr.duties) > 0 {
			return false
		}
	}
	return true
}

// recoveryHorizon returns the seq from which a finished run shows no
// recovery event (0: none at all), for a spec judging it with hindsight.
func recoveryHorizon(run *trace.Run) int32 {
	for i := len(run.Events) - 1; i >= 0; i-- {
		if e := &run.Events[i]; e.Kind == trace.Send && e.Resend || slices.Contains(recoveryKinds, e.Kind) {
			return int32(i) + 1
		}
	}
	return 0
}

// recoveryKinds are the kinds of event only a recovery writes, beside a
// resend.
var recoveryKinds = []trace.Kind{trace.Fail, trace.Restart, trace.Rollback, trace.ControlSend, trace.ControlRecv}

// annIndex is the announcements a process recorded, indexed for orphan
// tests in O(origins announced) per vector: per origin (sorted), minK[y]
// is the least k announced for an incarnation ≥ y (entry (y, c) of a
// vector is an orphan iff c exceeds it), and have[y] whether incarnation
// y's end was announced. Announcements are the model's (Failure.Ann): of
// real processes and incarnations.
type annIndex struct {
	list    []history.Announcement
	origins []int32
	by      []originAnns // parallel to origins
}

type originAnns struct {
	minK []int32
	have []bool
}

// add records announcement a.
func (x *annIndex) add(a history.Announcement) {
	x.list = append(x.list, a)
	i, ok := slices.BinarySearch(x.origins, a.Origin)
	if !ok {
		x.origins, x.by = slices.Insert(x.origins, i, a.Origin), slices.Insert(x.by, i, originAnns{})
	}
	o := &x.by[i]
	for int32(len(o.minK)) <= a.Inc {
		o.minK, o.have = append(o.minK, history.None), append(o.have, false)
	}
	o.have[a.Inc] = true
	for y := a.Inc; y >= 0 && (o.minK[y] == history.None || o.minK[y] > a.K); y-- {
		o.minK[y] = a.K
	}
}

// orphan reports whether vt is an orphan of an announcement recorded
// (SPEC §5: an entry (y, c) for origin i with y ≤ inc and c > k).
func (x *annIndex) orphan(vt trace.VT) bool {
	for i, o := range x.origins {
		if int(o) >= len(vt) {
			continue
		}
		e, ks := vt[o], x.by[i].minK
		if y := max(e.Inc, 0); int(y) < len(ks) && ks[y] != history.None && e.Count > ks[y] {
			return true
		}
	}
	return false
}

// orphanBy returns the first announcement recorded that makes vt an
// orphan, for a witness.
func (x *annIndex) orphanBy(vt trace.VT) history.Announcement {
	if i := slices.IndexFunc(x.list, func(a history.Announcement) bool { return orphanOf(vt, a) }); i >= 0 {
		return x.list[i]
	}
	return history.Announcement{}
}

// unheard returns an origin k and incarnation x ≥ 1 that vt names while
// p recorded no announcement of k's incarnation x − 1. Only a process
// that restarted has an entry of incarnation ≥ 1 in a rebuilt vector.
func (s *pkSpec) unheard(p *pkProc, vt trace.VT) (k, inc int32, ok bool) {
	for _, j := range s.restarted {
		if int(j) >= len(vt) || vt[j].Inc < 1 {
			continue
		}
		if !p.ann.heard(j, vt[j].Inc-1) {
			return j, vt[j].Inc, true
		}
	}
	return 0, 0, false
}

// orphanOf reports whether vector time vt is an orphan of announcement a
// (SPEC §5).
func orphanOf(vt trace.VT, a history.Announcement) bool {
	return a.Origin >= 0 && int(a.Origin) < len(vt) && vt[a.Origin].Inc <= a.Inc && vt[a.Origin].Count > a.K
}

// pkClock is a process's rebuilt vector time kept as the vectors it is
// the maximum of: base, the latest judged (the run's own once equal to
// the rebuilt one) or restored, and the copies' vectors its receipts
// took since. A receipt then costs no vector work, and the process no
// vector of its own (at 4,096 processes the receipt's merge into a cold
// vector per process was a fifth of verify); a send is judged in one
// read of them beside its vector (trace.VT.IsMaxOf), building none.
type pkClock struct {
	base trace.VT // nil: all zero; never written
	got  []trace.VT
}

// maxGot bounds the vectors a clock keeps unmerged.
const maxGot = 64

// take merges a copy's vector vt into the clock. The vectors kept
// unmerged are the run's own, which a streamed check lets go once taken
// (codec.StreamRun): held counts them over all n clocks, and a clock
// that takes one past n merges its own, so that the spec keeps at most
// two vectors per process (a base and a share of held), as the memory
// estimate counts (pipeline.streamCheckEstimate; TestClocksBoundUnmerged
// says what it cost without).
func (c *pkClock) take(vt trace.VT, n int, held *int) {
	c.got = append(c.got, vt)
	*held++
	if len(c.got) >= maxGot || *held > n {
		c.reset(c.vector(nil, n), held)
	}
}

// vector appends the clock's vector of n entries to buf (its own entry
// is the caller's to set).
func (c *pkClock) vector(buf trace.VT, n int) trace.VT {
	buf = append(buf, c.base[:min(len(c.base), n)]...)
	buf = append(buf, make(trace.VT, n-len(buf))...)
	for _, vt := range c.got {
		buf.Merge(vt)
	}
	return buf
}

// is reports whether vt is the clock's vector of n entries with own
// entry own at self, reading it without building it.
func (c *pkClock) is(vt trace.VT, n int, self int32, own trace.VTEntry) bool {
	return len(vt) == n && self >= 0 && int(self) < n && vt[self] == own && vt.IsMaxOf(c.base, c.got, int(self))
}

// reset makes vt, which is never written again, the clock; nil keeps it.
// held counts the vectors all clocks keep unmerged (take).
func (c *pkClock) reset(vt trace.VT, held *int) {
	if vt != nil {
		*held -= len(c.got)
		clear(c.got) // what stays in the array's tail stays alive
		c.base, c.got = vt, c.got[:0]
	}
}
