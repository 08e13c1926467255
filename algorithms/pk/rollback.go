package pk

import (
	"sort"

	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
)

// rollback undoes exactly p's orphan suffix (process j): it restores the
// latest checkpoint that is not an orphan and replays silently up to the
// first receipt of an orphan message. The copy behind every undone
// receipt that is not an orphan goes back to the mailbox.
func (a *PK) rollback(j int32, p *proc, failure replay.Seq, fx []replay.Effect) []replay.Effect {
	ci := latestClean(p)
	c := p.ckpts[ci]
	li := sort.Search(len(p.receipts), func(k int) bool { return p.receipts[k].op >= c.pos })
	first := li
	for first < len(p.receipts) && !p.known.Orphan(p.receipts[first].pb) {
		first++
	}
	if first == len(p.receipts) {
		// The state is an orphan although no receipt since the latest
		// clean checkpoint is: impossible while receipts are judged as
		// SPEC §5 says. Keep the state rather than undo innocent events.
		return fx
	}
	pos := p.receipts[first].op
	p.clock.restore(c.vt, trace.VTEntry{Inc: p.inc, Count: pos})
	for k := li; k < first; k++ {
		p.clock.receive(p.receipts[k].pb)
	}
	p.ckpts = p.ckpts[:ci+1]

	e := replay.Effect{Kind: replay.EffRollback, Ckpt: c.id, Pos: pos, Cause: trace.CauseToken, Failure: failure}
	for k := first; k < len(p.receipts); k++ {
		r := &p.receipts[k]
		a.unlive(r)
		if !p.known.Orphan(r.pb) {
			e.Requeue = append(e.Requeue, r.copy)
		}
	}
	p.receipts = p.receipts[:first]
	p.stable = min(p.stable, first)
	a.truncSends(p, pos)
	return append(fx, e)
}
