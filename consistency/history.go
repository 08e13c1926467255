package consistency

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/consistency/rline"
	"github.com/ckpt-dev/ckpt/trace"
)

const none int32 = trace.None

// implicitUndo marks ops dropped by a broken op continuity rather than by
// a restart or rollback.
const implicitUndo = -2

// ckptInfo is one checkpoint a process took (or the implicit initial one).
type ckptInfo struct {
	id  int32
	pos int32
	sn  int32
	seq int32 // None for the implicit initial checkpoint
	typ trace.CkptType
	vt  trace.VT
}

// procState is one process's state during the structural pass.
type procState struct {
	// live[k] is the seq of the app event live at op k (None for a gap a
	// broken continuity left).
	live []int32
	// ckpts are the checkpoints the process holds, in the order taken;
	// a restore drops the ones after the restored checkpoint.
	ckpts []ckptInfo
	// byID maps checkpoint ids to checkpoints ever taken.
	byID map[int32]ckptInfo
	down bool
	// lastFail is the seq of the process's latest effective fail.
	lastFail int32
	// lastRestore is the seq of the restart or rollback that last
	// restored a checkpoint, so replays and resends can be attributed.
	lastRestore int32
	// posless is set by a restart or rollback that names no pos: the
	// process's next app event's op then says how many ops stayed live.
	posless bool
	end     int32 // seq of the end event, None if absent
	// program is the inferred program: kind and msg of each op index, as
	// the run shows them in any execution.
	progKind []trace.Kind
	progMsg  []int32
}

// failure is one effective fail event and what answered it.
type failure struct {
	seq     int32
	p       int32
	restart int32 // seq of its restart, None if the run shows none
	// live and ckpts snapshot the whole system at the fail instant, for
	// the maximum consistent recovery line: per process its live count
	// and the positions of its checkpoints.
	liveAt  []int32
	ckptsAt [][]int32
	// crashLive is the failed process's live ops at the crash (seqs), for
	// the max line's message set.
	latestAt ckptInfo // the failed process's latest checkpoint at the crash
	// handlers lists the restart/rollback/recovery-checkpoint events of
	// every process that answer it, in seq order.
	handlers []int32
	controls int
	// ckptIDsAt are the ids of the checkpoints ckptsAt lists, per process.
	ckptIDsAt [][]int32
	// recvsAt lists, at the fail instant, every live receipt whose send
	// is live too, as rline messages (for the max line).
	recvsAt []rline.Msg
	// r is the MS recovery line number; ann the PK announcement.
	r   int32
	ann *announcement
}

// handling is a point where a process has handled a failure: the state
// right after event seq must hold no receipt of an orphan of the failure.
type handling struct {
	f   int32 // index into checker.failures
	p   int32
	seq int32
	top int32 // seq of the process's last live op right after, or None
}

// structure runs the first pass over the run: it rebuilds every process's
// live history, checks op continuity, links each receive to the send of
// its copy, records what each restart and rollback undid and for which
// failure, and collects the handling points of every failure.
func (c *checker) structure() {
	ev := c.run.Events
	np := len(c.run.Processes)
	c.procs = make([]procState, np)
	for p := range c.procs {
		ps := &c.procs[p]
		ps.byID = map[int32]ckptInfo{}
		// Room for an even share of the ops avoids regrowing the live
		// histories of a large run.
		ps.live = make([]int32, 0, len(ev)/np+16)
		ps.progKind = make([]trace.Kind, 0, len(ev)/np+16)
		ps.progMsg = make([]int32, 0, len(ev)/np+16)
		init := ckptInfo{id: 0, pos: 0, sn: 0, seq: none, typ: trace.CkptInitial}
		if c.alg == algPK {
			init.vt = make(trace.VT, np)
		}
		ps.ckpts = []ckptInfo{init}
		ps.byID[0] = init
		ps.lastFail = none
		ps.lastRestore = none
		ps.end = none
	}
	n := len(ev)
	c.stats.Events = n
	c.pred = make([]int32, n)
	c.sendOf = make([]int32, n)
	c.undoneBy = make([]int32, n)
	c.failOf = make([]int32, n)
	c.failIdx = map[int32]int32{}
	c.undoneAt = map[int32]int32{}
	c.replayedAt = map[int32]int32{}

	// Copies: copy c of msg m sits at copyOff[m]+c-1; the table is sized
	// by the number of transmissions of each msg, so it is linear.
	nm := len(c.run.Msgs)
	c.copyOff = make([]int32, nm+1)
	for i := range ev {
		e := &ev[i]
		if e.Kind == trace.Send && e.Msg >= 0 && int(e.Msg) < nm {
			c.copyOff[e.Msg+1]++
		}
	}
	for m := 0; m < nm; m++ {
		c.copyOff[m+1] += c.copyOff[m]
	}
	c.copySend = make([]int32, c.copyOff[nm])
	c.copyOrig = make([]int32, c.copyOff[nm])
	for i := range c.copySend {
		c.copySend[i] = none
		c.copyOrig[i] = none
	}

	candidates := map[[2]int32]handling{} // control_recv handling, by (p, f)
	downPending := make([][]int32, np)    // failures whose control arrived while down
	handled := map[[2]int32]bool{}

	for i := 0; i < n; i++ {
		e := &ev[i]
		seq := int32(i)
		c.pred[i], c.sendOf[i], c.undoneBy[i], c.failOf[i] = none, none, none, none
		if e.Seq != none && e.Seq != seq {
			c.anomaly(fmt.Sprintf("event %d carries seq %d", i, e.Seq), seq)
		}
		if e.P < 0 || int(e.P) >= np {
			c.anomaly(fmt.Sprintf("event %d: process index %d out of range", i, e.P), seq)
			continue
		}
		ps := &c.procs[e.P]
		switch e.Kind {
		case trace.Send, trace.Recv, trace.Internal:
			if e.Kind == trace.Send && e.Resend {
				c.resend(i, e, ps)
				continue
			}
			if e.Op == none {
				c.opsMissing = true
				continue
			}
			if e.Op < 0 || int(e.Op) > n {
				// No process can have more ops than the run has events.
				c.anomaly(fmt.Sprintf("event %d: op %d out of range", i, e.Op), seq)
				continue
			}
			if ps.posless && e.Op < int32(len(ps.live)) {
				// A foreign restart or rollback without pos: its undo
				// shows only here, and is no broken continuity.
				c.undo(ps, e.Op, ps.lastRestore)
			}
			ps.posless = false
			if e.Op != int32(len(ps.live)) {
				c.violate(equivalenceName, fmt.Sprintf("broken op continuity at seq %d", i), []int32{seq},
					fmt.Sprintf("%s had %d live ops before seq %d, so its next op should be op %d, but the run says op %d",
						c.proc(e.P), len(ps.live), i, len(ps.live), e.Op))
				if e.Op < int32(len(ps.live)) {
					c.undo(ps, e.Op, implicitUndo)
				}
				for int32(len(ps.live)) < e.Op {
					ps.live = append(ps.live, none)
				}
			}
			if len(ps.live) > 0 {
				c.pred[i] = ps.live[len(ps.live)-1]
			}
			ps.live = append(ps.live, seq)
			c.learnOp(ps, e, seq)
			if e.Kind == trace.Send {
				if ci := c.copyIndex(e.Msg, e.Copy); ci >= 0 {
					c.copySend[ci] = seq
					c.copyOrig[ci] = seq
				} else {
					c.copyMissing = true
				}
			} else if e.Kind == trace.Recv {
				ci := c.copyIndex(e.Msg, e.Copy)
				if ci < 0 || c.copyOrig[ci] == none {
					if e.Copy <= 0 {
						c.copyMissing = true
					} else {
						c.violate(orphanFreeName, fmt.Sprintf("%s received copy %d of %s that was never sent", c.proc(e.P), e.Copy, c.msg(e.Msg)), []int32{seq},
							fmt.Sprintf("the run shows no send of copy %d of %s before seq %d", e.Copy, c.msg(e.Msg), i))
					}
				} else {
					c.sendOf[i] = c.copyOrig[ci]
				}
			}
		case trace.Checkpoint:
			ck := ckptInfo{id: e.Ckpt, pos: e.Pos, sn: e.Sn, seq: seq, typ: e.CkptType, vt: c.run.VTOf(e)}
			if e.Pos == none {
				ck.pos = int32(len(ps.live))
			} else if e.Pos != int32(len(ps.live)) {
				c.violate(equivalenceName, fmt.Sprintf("checkpoint at seq %d has pos %d", i, e.Pos), []int32{seq},
					fmt.Sprintf("%s had %d live ops when it took checkpoint %d at seq %d, but the checkpoint says pos %d",
						c.proc(e.P), len(ps.live), e.Ckpt, i, e.Pos))
			}
			if e.Sn == none {
				c.snMissing = true
			}
			switch e.CkptType {
			case trace.CkptInitial:
				c.stats.Checkpoints.Initial++
				c.explicitInitial = true
				ck.pos, ck.id = 0, 0
				if ck.sn == none {
					ck.sn = 0
				}
				ps.ckpts[0] = ck
				ps.byID[0] = ck
				continue
			case trace.CkptBasic:
				c.stats.Checkpoints.Basic++
			case trace.CkptForced:
				c.stats.Checkpoints.Forced++
			case trace.CkptRecovery:
				c.stats.Checkpoints.Recovery++
			}
			if e.Ckpt == none {
				c.ckptIDMissing = true
			} else {
				ps.byID[e.Ckpt] = ck
			}
			ps.ckpts = append(ps.ckpts, ck)
			if e.CkptType == trace.CkptRecovery && e.Failure != none {
				c.handle(e, seq, ps, handled)
			}
		case trace.CheckpointSkipped:
			c.stats.Checkpoints.Skipped++
		case trace.Fail:
			if ps.down {
				continue // a fail of a down process is ignored (SPEC §3)
			}
			ps.down = true
			ps.lastFail = seq
			f := failure{seq: seq, p: e.P, restart: none}
			f.r = none
			c.snapshot(&f)
			f.latestAt = ps.ckpts[len(ps.ckpts)-1]
			c.failIdx[seq] = int32(len(c.failures))
			c.failures = append(c.failures, f)
		case trace.Restart:
			ps.down = false
			fs := e.Failure
			if fs == none {
				fs = ps.lastFail
			}
			if fi, ok := c.failIdx[fs]; ok && c.failures[fi].restart == none && c.failures[fi].p == e.P {
				c.failures[fi].restart = seq
			} else {
				c.failureMissing = true
			}
			c.restore(i, e, ps, fs)
			c.handleAt(fs, e.P, seq, ps, handled)
			for _, fi := range downPending[e.P] {
				k := [2]int32{e.P, fi}
				if _, seen := candidates[k]; !seen {
					candidates[k] = handling{f: fi, p: e.P, seq: seq, top: top(ps)}
				}
			}
			downPending[e.P] = downPending[e.P][:0]
		case trace.Rollback:
			c.stats.Rollbacks++
			if _, ok := c.failIdx[e.Failure]; !ok {
				c.failureMissing = true
			}
			c.restore(i, e, ps, e.Failure)
			c.handleAt(e.Failure, e.P, seq, ps, handled)
		case trace.Log:
			c.stats.Logged++
		case trace.Discard:
			c.stats.Discarded++
			if c.stats.DiscardedBy == nil {
				c.stats.DiscardedBy = map[string]int{}
			}
			c.stats.DiscardedBy[e.Reason.String()]++
		case trace.Hold:
			c.stats.Holds++
		case trace.ControlSend:
			c.stats.ControlMessages++
			if e.Control == trace.ControlToken {
				c.stats.TokenHops++
			}
			if fi, ok := c.failIdx[e.Failure]; ok {
				c.failures[fi].controls++
			}
		case trace.ControlRecv:
			if fi, ok := c.failIdx[e.Failure]; ok {
				if ps.down {
					// A down process handles it at its restart.
					downPending[e.P] = append(downPending[e.P], fi)
					continue
				}
				k := [2]int32{e.P, fi}
				if _, seen := candidates[k]; !seen {
					candidates[k] = handling{f: fi, p: e.P, seq: seq, top: top(ps)}
				}
			}
		case trace.End:
			ps.end = seq
		}
	}
	// A process that answered a failure only by receiving its control
	// message (nothing to roll back) handled it at that arrival.
	for k, h := range candidates {
		// With unattributed rollbacks, a control message's arrival may be
		// followed by the (unnamed) rollback that handles it: only the
		// explicitly attributed handling points are judged.
		if !handled[k] && !c.failureMissing {
			c.handlings = append(c.handlings, h)
		}
	}
	sortHandlings(c.handlings)
}

func top(ps *procState) int32 {
	for k := len(ps.live) - 1; k >= 0; k-- {
		if ps.live[k] != none {
			return ps.live[k]
		}
	}
	return none
}

// handle records a handling point for a failure-attributed event.
func (c *checker) handle(e *trace.RunEvent, seq int32, ps *procState, handled map[[2]int32]bool) {
	c.handleAt(e.Failure, e.P, seq, ps, handled)
}

func (c *checker) handleAt(fs, p, seq int32, ps *procState, handled map[[2]int32]bool) {
	fi, ok := c.failIdx[fs]
	if !ok {
		return
	}
	c.failOf[seq] = fi
	c.failures[fi].handlers = append(c.failures[fi].handlers, seq)
	handled[[2]int32{p, fi}] = true
	c.handlings = append(c.handlings, handling{f: fi, p: p, seq: seq, top: top(ps)})
}

// restore applies a restart or rollback: the restored checkpoint's later
// checkpoints are dropped and every live op from pos on is undone.
func (c *checker) restore(i int, e *trace.RunEvent, ps *procState, fs int32) {
	seq := int32(i)
	ps.lastRestore = seq
	if e.Restore != none {
		k := len(ps.ckpts) - 1
		for k >= 0 && ps.ckpts[k].id != e.Restore {
			k--
		}
		if k < 0 {
			c.violate(dominoFreeName, fmt.Sprintf("%s restores checkpoint %d it does not hold", c.proc(e.P), e.Restore), []int32{seq},
				fmt.Sprintf("at seq %d %s restores checkpoint %d, but no checkpoint with that id is among the checkpoints it holds (it took it never, or a rollback discarded it)",
					i, c.proc(e.P), e.Restore))
		} else {
			ps.ckpts = ps.ckpts[:k+1]
		}
	} else {
		c.restoreMissing = true
	}
	pos := e.Pos
	if pos == none {
		c.opsMissing = true
		ps.posless = true
		return
	}
	if pos < 0 {
		c.anomaly(fmt.Sprintf("event %d: negative pos %d", i, pos), seq)
		return
	}
	if pos > int32(len(ps.live)) {
		c.violate(equivalenceName, fmt.Sprintf("%s at seq %d keeps %d ops but has only %d", e.Kind, i, pos, len(ps.live)), []int32{seq},
			fmt.Sprintf("%s had %d live ops at seq %d, so a %s cannot keep the first %d", c.proc(e.P), len(ps.live), i, e.Kind, pos))
		pos = int32(len(ps.live))
	}
	if c.alg == algPK && e.Restore != none {
		c.countReplayed(seq, ps, e.Restore, pos)
	}
	n := c.undo(ps, pos, seq)
	c.stats.Undone += n
	c.undoneAt[seq] = int32(n)
	if e.Undone != none && int(e.Undone) != n {
		c.violate(equivalenceName, fmt.Sprintf("%s at seq %d claims %d ops undone, the checker counts %d", e.Kind, i, e.Undone, n), []int32{seq},
			fmt.Sprintf("%s had %d live ops before seq %d and kept %d, so %d were undone", c.proc(e.P), int(pos)+n, i, pos, n))
	}
	_ = fs
}

// countReplayed records how many receipts a PK restart or rollback
// replays from the message log: the live receipts between the restored
// checkpoint and pos. The run shows only the outcome of that silent
// replay (SPEC §6), so the report would otherwise always say 0 for PK.
func (c *checker) countReplayed(seq int32, ps *procState, restore, pos int32) {
	ck, ok := ps.byID[restore]
	if !ok || ck.pos == none || ck.pos < 0 {
		return
	}
	hi := min(int(pos), len(ps.live))
	n := int32(0)
	for k := int(ck.pos); k < hi; k++ {
		if s := ps.live[k]; s != none && c.run.Events[s].Kind == trace.Recv {
			n++
		}
	}
	if n > 0 {
		c.replayedAt[seq] = n
		c.stats.Replayed += int(n)
	}
}

// undo truncates ps's live history to pos, marking the dropped ops as
// undone by event by (implicitUndo for a broken continuity), and returns how
// many live ops it dropped.
func (c *checker) undo(ps *procState, pos int32, by int32) int {
	n := 0
	for k := len(ps.live) - 1; k >= int(pos); k-- {
		if s := ps.live[k]; s != none {
			c.undoneBy[s] = by
			n++
		}
	}
	ps.live = ps.live[:pos]
	return n
}

// resend links a re-transmission to the live send it repeats.
func (c *checker) resend(i int, e *trace.RunEvent, ps *procState) {
	seq := int32(i)
	c.stats.Resent++
	ci := c.copyIndex(e.Msg, e.Copy)
	if ci < 0 {
		c.copyMissing = true
		return
	}
	c.copySend[ci] = seq
	orig := none
	if e.Op >= 0 && int(e.Op) < len(ps.live) {
		if s := ps.live[e.Op]; s != none && c.run.Events[s].Kind == trace.Send && c.run.Events[s].Msg == e.Msg {
			orig = s
		}
	}
	if orig == none {
		// A resend of a send that is not live repeats a message the
		// sender's state no longer holds: link it to the copy it repeats.
		if oi := c.copyIndex(e.Msg, e.Of); oi >= 0 {
			orig = c.copyOrig[oi]
		}
		c.violate(orphanFreeName, fmt.Sprintf("%s resends %s at seq %d but its send is not live", c.proc(e.P), c.msg(e.Msg), i), []int32{seq},
			fmt.Sprintf("a resend repeats a send of the live history, but at seq %d op %d of %s is not a live send of %s", i, e.Op, c.proc(e.P), c.msg(e.Msg)))
	}
	c.copyOrig[ci] = orig
	c.sendOf[i] = orig
}

// learnOp adds an executed op to the inferred program of its process, and
// notes when two executions disagree on what op k is.
func (c *checker) learnOp(ps *procState, e *trace.RunEvent, seq int32) {
	k := int(e.Op)
	for len(ps.progKind) <= k {
		ps.progKind = append(ps.progKind, trace.KindInvalid)
		ps.progMsg = append(ps.progMsg, none)
	}
	if ps.progKind[k] == trace.KindInvalid {
		ps.progKind[k] = e.Kind
		ps.progMsg[k] = e.Msg
		return
	}
	if ps.progKind[k] != e.Kind || (e.Kind != trace.Internal && ps.progMsg[k] != e.Msg) {
		c.violate(equivalenceName, fmt.Sprintf("%s op %d differs between executions", c.proc(e.P), k), []int32{seq},
			fmt.Sprintf("a piecewise-deterministic program re-executes the same op at the same index, but op %d of %s was %s earlier and is %s %s at seq %d",
				k, c.proc(e.P), ps.progKind[k], e.Kind, c.msgOpt(e.Msg), seq))
	}
}

// copyIndex returns the index of copy cp of msg m in the copy tables, or
// -1 when the run gives no usable copy number.
func (c *checker) copyIndex(m, cp int32) int32 {
	if m < 0 || int(m) >= len(c.run.Msgs) || cp <= 0 {
		return -1
	}
	i := c.copyOff[m] + cp - 1
	if i >= c.copyOff[m+1] {
		return -1
	}
	return i
}

// snapshotBudget bounds the live ops copied for max-line snapshots, so
// runs with very many failures stay linear; beyond it max lines are left
// out (and extra is 0).
const snapshotBudget = 2_000_000

// snapshot records the whole system's state at a fail instant for the
// maximum consistent recovery line: live counts, held checkpoints and the
// messages received in the live histories.
func (c *checker) snapshot(f *failure) {
	np := len(c.procs)
	f.liveAt = make([]int32, np)
	f.ckptsAt = make([][]int32, np)
	f.ckptIDsAt = make([][]int32, np)
	total := 0
	for q := range c.procs {
		total += len(c.procs[q].live)
	}
	ok := c.snapshotUsed+total <= snapshotBudget
	if ok {
		c.snapshotUsed += total
	}
	if ok {
		f.recvsAt = make([]rline.Msg, 0, total/2+1)
	}
	for q := range c.procs {
		ps := &c.procs[q]
		f.liveAt[q] = int32(len(ps.live))
		pos := make([]int32, len(ps.ckpts))
		ids := make([]int32, len(ps.ckpts))
		for k, ck := range ps.ckpts {
			pos[k], ids[k] = ck.pos, ck.id
		}
		f.ckptsAt[q], f.ckptIDsAt[q] = pos, ids
		if !ok {
			continue
		}
		for _, s := range ps.live {
			if s == none || c.run.Events[s].Kind != trace.Recv {
				continue
			}
			snd := c.sendOf[s]
			if snd == none || c.undoneBy[snd] != none {
				continue
			}
			se := &c.run.Events[snd]
			f.recvsAt = append(f.recvsAt, rline.Msg{From: se.P, SendOp: se.Op, To: int32(q), RecvOp: c.run.Events[s].Op})
		}
	}
	if !ok {
		f.ckptsAt = nil
	}
}
