package pk

import (
	"slices"

	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
)

// Garbage collection at the quiet point (replay.Input.Quiet). Once every
// failure is answered and none is ahead, no restart, token or rollback
// comes again, and those are the only readers of a receipt's piggyback
// and of a checkpoint's vector (restart.go, rollback.go, token.go). SPEC
// §5 lets stable storage drop what no recovery can use, so from the quiet
// point on PK keeps neither: a receipt still records its copy (the log
// events and tokens' received sets name copies), a checkpoint its id and
// position. At 4,096 processes the vectors were most of the run's memory.

// quiesce forgets the vectors only a restore reads, the first time an
// input says the run is quiet.
func (a *PK) quiesce(in *replay.Input) {
	if !in.Quiet || a.quiet {
		return
	}
	a.quiet = true
	for i := range a.procs {
		p := &a.procs[i]
		for k := range p.receipts {
			p.receipts[k].pb = nil
		}
		for k := range p.ckpts {
			p.ckpts[k].vt = nil
		}
	}
}

// keep returns what a receipt or checkpoint record keeps of vector vt:
// vt, or nothing once the run is quiet.
func (a *PK) keep(vt trace.VT) trace.VT {
	if a.quiet {
		return nil
	}
	return vt
}

// clone copies vt for a piggyback or a checkpoint. Past the quiet point
// each is dropped as soon as it is delivered or judged, at its own time,
// so it gets an allocation of its own: one long-lived copy in a slab block
// would keep the whole block's vectors alive.
func (a *PK) clone(vt trace.VT) trace.VT {
	if a.quiet {
		return slices.Clone(vt)
	}
	return a.slab.clone(vt)
}
