package pk

import (
	"math"
	"slices"
	"sort"

	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
)

// Garbage collection (SPEC §5: log entries older than every checkpoint
// that could still be restored may be collected). One PK value simulates
// every process, so it can compute, from the state it holds, a line no
// restore will ever cross, and forget what lies below it: the receipts
// there (with their piggybacks) and the checkpoints before it. At 4,096
// processes these vectors were most of a replay's memory.
//
// The line is one checkpoint c_j per process j, with a reach S_j: the
// position a replay from c_j over j's stable log gets to (stopping before
// the first receive the log lacks, or j's live position), where a receipt
// only counts while it is no orphan of an announcement made so far and
// its message was sent at an op below its sender's reach. The line holds
// when
//
//	(1) c_j is no orphan of any announcement made so far, and
//	(2) for every process i, c_j's entry for i counts at most S_i.
//
// Then no restore of any process ever goes below its c_j, and no
// announcement of i ever says less than S_i (docs/pk.md has the proof):
// a failure of i restores its latest checkpoint that is no orphan, which
// c_i never becomes, and replays at least to S_i, since every receipt on
// the way depends only on events below the reaches; so no later
// announcement makes c_j an orphan, and every restore, at a restart or
// for a token, takes the latest checkpoint that is none. The greatest
// line is found from each process's latest non-orphan checkpoint and an
// unbounded reach by moving back, until nothing moves, every c_j that
// breaks (2) and every reach to what the others' allow; lines are closed
// under the entry-wise maximum, so it is the greatest, never below the
// previous one. Checking (2) is a vector's length per process; a receipt
// is checked in O(1), because a message sent below its sender's reach
// carries a vector within every reach (the sender's state there is).

// line is PK's part of it.
type line struct {
	// all holds every announcement made so far, at any process.
	all *Known
	// since counts the checkpoints taken since the last pass.
	since int
	// at and reach are, per process, the index of its checkpoint on the
	// line in its checkpoints and S_j (scratch between passes); reached
	// is S_j as the last pass found it.
	at             []int
	reach, reached []int32
}

// collect moves the line after a checkpoint, once every process has
// taken one on average since the last pass (a pass costs a vector's
// length per process), and tells the engine (EffStable) where it moved.
func (a *PK) collect(fx []replay.Effect) []replay.Effect {
	if a.line.since++; a.line.since < int(a.n) {
		return fx
	}
	a.line.since = 0
	a.advance()
	for j := range a.procs {
		if a.line.at[j] > 0 {
			p := &a.procs[j]
			a.forget(p, a.line.at[j])
			fx = append(fx, replay.Effect{Kind: replay.EffStable, To: replay.Proc(j), Ckpt: p.ckpts[0].id})
		}
	}
	return fx
}

// advance finds the greatest line, leaving in line.at each process's
// checkpoint on it (0: where the line already was).
func (a *PK) advance() {
	l := &a.line
	if l.at == nil {
		l.at, l.reach, l.reached = make([]int, a.n), make([]int32, a.n), make([]int32, a.n)
	}
	for j := range a.procs {
		p := &a.procs[j]
		i := len(p.ckpts) - 1
		for i > 0 && l.all.Orphan(p.ckpts[i].vt) {
			i--
		}
		l.at[j], l.reach[j] = i, math.MaxInt32
	}
	for moved := true; moved; {
		moved = false
		for j := range a.procs {
			p := &a.procs[j]
			for back := 0; l.at[j] > 0 && beyond(p.ckpts[l.at[j]].vt, l.reach); back++ {
				if l.at[j]--; back == maxBack {
					l.at[j] = 0
				}
			}
			if s := a.reachOf(int32(j), p, l.at[j]); s != l.reach[j] {
				l.reach[j], moved = s, true
			}
		}
	}
	copy(l.reached, l.reach)
}

// maxBack bounds the checkpoints a pass tries per process before it
// keeps the line where it was, which is still valid (the reaches only
// grow): a line held back for good (a process that neither flushes nor
// checkpoints) would otherwise have every pass try every checkpoint
// taken since, quadratic in the run's length. Ticks of one period keep
// the line within a checkpoint or two of the latest.
const maxBack = 8

// beyond reports whether vt counts an event of some process i at or past
// reach[i].
func beyond(vt trace.VT, reach []int32) bool {
	for i, e := range vt {
		if e.Count > reach[i] {
			return true
		}
	}
	return false
}

// reachOf returns how far a replay of process j from its checkpoint at
// index at is sure to get, under the reaches the line has so far. It
// walks on from the reach the last pass found, which holds still (a
// valid line stays valid, and the greatest only grows): else a process
// whose line stands still, one that never checkpoints, was walked from
// its start at every pass, quadratic in its length.
func (a *PK) reachOf(j int32, p *proc, at int) int32 {
	live := p.clock.own.Count
	pos := min(max(p.ckpts[at].pos, a.line.reached[j]), live)
	li := sort.Search(p.stable, func(k int) bool { return p.receipts[k].op >= pos })
	for prog := a.prog[j]; pos < live; pos++ {
		if prog[pos].kind != trace.Recv {
			continue
		}
		if li >= p.stable || p.receipts[li].op != pos {
			break
		}
		r := &p.receipts[li]
		if m := r.msg; m < 0 || int(m) >= len(a.msgOp) || a.msgOp[m] >= a.line.reach[r.from] || a.line.all.Orphan(r.pb) {
			break
		}
		li++
	}
	return pos
}

// forget drops p's checkpoints before index at, the line's, and its
// receipts before that checkpoint's position: no restore reads them
// again. Their records go too, so nothing keeps their vectors alive.
func (a *PK) forget(p *proc, at int) {
	p.ckpts = slices.Delete(p.ckpts, 0, at)
	pos := p.ckpts[0].pos
	k := sort.Search(len(p.receipts), func(k int) bool { return p.receipts[k].op >= pos })
	if k > 0 {
		p.below = p.receipts[k-1].node
	}
	p.receipts = slices.Delete(p.receipts, 0, k)
	p.stable -= k
}
