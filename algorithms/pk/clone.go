package pk

import (
	"maps"
	"slices"

	"github.com/ckpt-dev/ckpt/replay"
)

// Clone implements replay.Cloner: an independent PK in the same state
// (docs/pk.md, "Ready to clone"). It copies the per-process records, the
// per-message arrays, the receipt log's tables, the outstanding lists
// and each Known, and shares what nothing writes: the programs, the
// message tables and every vector handed out.
func (a *PK) Clone() replay.Algorithm {
	c := *a
	c.procs = slices.Clone(a.procs)
	for i := range c.procs {
		p := &c.procs[i]
		p.receipts, p.sends = slices.Clone(p.receipts), slices.Clone(p.sends)
		p.clock.pending = slices.Clone(p.clock.pending)
		p.known = p.known.clone()
		p.ckpts = slices.Clone(p.ckpts)
	}
	c.liveInc = slices.Clone(a.liveInc)
	c.failSeq = maps.Clone(a.failSeq)
	c.log = receiptLog{nodes: slices.Clone(a.log.nodes), sum: slices.Clone(a.log.sum), size: slices.Clone(a.log.size),
		clock: a.log.clock, lastOf: slices.Clone(a.log.lastOf)}
	c.sendInc, c.sendOp = slices.Clone(a.sendInc), slices.Clone(a.sendOp)
	c.out = outstanding{next: slices.Clone(a.out.next), prev: slices.Clone(a.out.prev), head: maps.Clone(a.out.head)}
	c.scratch = nil
	c.restarted = slices.Clone(a.restarted)
	c.line.all = a.line.all.clone()
	c.line.at, c.line.reach, c.line.reached = slices.Clone(a.line.at), slices.Clone(a.line.reach), slices.Clone(a.line.reached)
	return &c
}

// clone returns an independent copy of s.
func (s *Known) clone() *Known {
	c := &Known{n: s.n, origins: slices.Clone(s.origins), k: slices.Clone(s.k), min: slices.Clone(s.min)}
	for i := range c.k {
		c.k[i], c.min[i] = slices.Clone(c.k[i]), slices.Clone(c.min[i])
	}
	return c
}
