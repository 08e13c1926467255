package consistency

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ckpt-dev/ckpt/consistency/report"
	"github.com/ckpt-dev/ckpt/consistency/rline"
	"github.com/ckpt-dev/ckpt/consistency/zgraph"
	"github.com/ckpt-dev/ckpt/trace"
)

// final judges what depends on the final live history: the end part of
// orphan-free, no-lost-messages, no-duplicates, equivalence, z-cycle-free
// and sn-lines, and counts useless and collectable checkpoints.
func (c *checker) final() {
	if c.opsMissing {
		why := "the run lacks op numbers, so the final live history cannot be rebuilt"
		for _, p := range []string{noLostName, noDupName, zCycleFreeName, snLinesName, equivalenceName} {
			c.setUnknown(p, why)
		}
		return
	}
	ev := c.run.Events
	nm := len(c.run.Msgs)
	// liveSend[m] / liveRecv[m]: the live send / first live receive of m.
	liveSend := make([]int32, nm)
	liveRecv := make([]int32, nm)
	for m := range liveSend {
		liveSend[m], liveRecv[m] = none, none
	}
	for p := range c.procs {
		for _, s := range c.procs[p].live {
			if s == none {
				continue
			}
			e := &ev[s]
			if e.Msg < 0 || int(e.Msg) >= nm {
				continue
			}
			switch e.Kind {
			case trace.Send:
				liveSend[e.Msg] = s
			case trace.Recv:
				if first := liveRecv[e.Msg]; first != none {
					c.violate(noDupName, fmt.Sprintf("%s is received twice in the final live history", c.msg(e.Msg)), []int32{first, s},
						fmt.Sprintf("%s and %s both stay live, so the application consumed %s twice", c.describe(first), c.describe(s), c.msg(e.Msg)))
				} else {
					liveRecv[e.Msg] = s
				}
				// End part of orphan-free: no live receipt consumes a copy
				// whose send was undone.
				if snd := c.sendOf[s]; snd != none && c.undoneBy[snd] != none {
					by := c.undoneBy[snd]
					because := fmt.Sprintf("%s stays live at the end, but the copy it consumed comes from %s", c.describe(s), c.describe(snd))
					if by >= 0 {
						because += fmt.Sprintf(", which the %s at seq %d undid", ev[by].Kind, by)
					}
					c.violate(orphanFreeName, fmt.Sprintf("%s's live receipt of %s consumes a copy whose send was undone", c.proc(e.P), c.msg(e.Msg)), []int32{s, snd}, because+": the final state is not consistent")
				}
			}
		}
	}
	if c.copyMissing {
		c.setUnknown(noDupName, "")
	}
	c.lost(liveSend, liveRecv)
	c.equivalence()
	c.zcycles()
	c.collectable()
}

// lost judges no-lost-messages: every process that did not finish is
// stuck at some op; a receive it still has to make whose send is live is
// a lost message, and a receive blocked on a message whose sender is
// itself stuck is charged to that sender (the root cause).
func (c *checker) lost(liveSend, liveRecv []int32) {
	ev := c.run.Events
	prog := c.programKinds()
	np := len(c.procs)
	sender := c.senders()
	// waits[p]: the stuck process p waits for, when p is blocked on a
	// message whose send is not live.
	waits := make([]int32, np)
	blockedOn := make([]int32, np)
	for p := range waits {
		waits[p], blockedOn[p] = none, none
	}
	for p := range c.procs {
		ps := &c.procs[p]
		if ps.end == none {
			continue
		}
		e := &ev[ps.end]
		if e.State == trace.StateBlocked && e.Msg >= 0 && int(e.Msg) < len(liveSend) && liveSend[e.Msg] == none {
			blockedOn[p] = e.Msg
			if s := sender[e.Msg]; s != none && s != int32(p) {
				waits[p] = s
			}
		}
	}
	// Roots: follow waits (bounded, cycles stop) to the process nobody
	// explains.
	behind := make([][]int32, np)
	for p := range waits {
		if blockedOn[p] == none {
			continue
		}
		q := int32(p)
		for steps := 0; steps < np && waits[q] != none && blockedOn[waits[q]] != none; steps++ {
			q = waits[q]
		}
		root := waits[q]
		if root == none {
			root = q
		}
		behind[root] = append(behind[root], int32(p))
	}
	for p := range c.procs {
		ps := &c.procs[p]
		live := len(ps.live)
		var pr []progOp
		if p < len(prog) {
			pr = prog[p]
		}
		state := "ended"
		if ps.end != none {
			state = "ended " + ev[ps.end].State.String()
		} else {
			state = "has no end event"
		}
		if ps.end != none && ev[ps.end].State == trace.StateDone && live >= len(pr) {
			continue
		}
		if blockedOn[p] != none {
			// Charged to its root, unless nothing explains it.
			m := blockedOn[p]
			s := sender[m]
			switch {
			case s == none:
				c.setUnknown(noLostName, fmt.Sprintf("%s is blocked on %s, which the run never sends; without the source trace its sender is unknown", c.proc(int32(p)), c.msg(m)))
			case s == int32(p) || (c.procs[s].end != none && ev[c.procs[s].end].State == trace.StateDone):
				c.violate(noLostName, fmt.Sprintf("%s is blocked on %s, which is never sent live", c.proc(int32(p)), c.msg(m)), []int32{ps.end},
					fmt.Sprintf("%s ended blocked at op %d on %s, but the final live history holds no send of it and its sender %s finished without sending it",
						c.proc(int32(p)), ev[ps.end].Op, c.msg(m), c.proc(s)))
			}
			continue
		}
		if ps.end != none && ev[ps.end].State == trace.StateBlocked {
			// Blocked on a message whose send is live: lost, whatever
			// the program says beyond.
			if m := ev[ps.end].Msg; m >= 0 && int(m) < len(liveSend) && liveSend[m] != none && liveRecv[m] == none {
				if live >= len(pr) || pr[live].kind != trace.Recv || pr[live].msg != m {
					// Only the op at live is read below.
					pr = make([]progOp, live+1)
					pr[live] = progOp{kind: trace.Recv, msg: m}
				}
			}
		}
		for k := live; k < len(pr); k++ {
			if pr[k].kind != trace.Recv || pr[k].msg < 0 || int(pr[k].msg) >= len(liveSend) {
				continue
			}
			m := pr[k].msg
			snd := liveSend[m]
			if snd == none || liveRecv[m] != none {
				continue
			}
			seqs := []int32{snd}
			if ps.end != none {
				seqs = append(seqs, ps.end)
			}
			var b strings.Builder
			if ps.end != none && ev[ps.end].State == trace.StateBlocked && ev[ps.end].Msg == m {
				fmt.Fprintf(&b, "%s ended blocked at op %d on %s, whose send (%s) is live, yet no copy of it was delivered: the message was lost",
					c.proc(int32(p)), k, c.msg(m), c.describe(snd))
			} else {
				fmt.Fprintf(&b, "%s %s after %d live ops; its program still has to receive %s (op %d), whose send (%s) is live, so the receipt is missing from the final live history",
					c.proc(int32(p)), state, live, c.msg(m), k, c.describe(snd))
			}
			if len(behind[p]) > 0 {
				var names []string
				for _, q := range behind[p] {
					names = append(names, fmt.Sprintf("%s (blocked on %s)", c.proc(q), c.msg(blockedOn[q])))
					seqs = append(seqs, c.procs[q].end)
				}
				fmt.Fprintf(&b, "; stuck behind it: %s", strings.Join(names, ", "))
			}
			c.violate(noLostName, fmt.Sprintf("%s is lost: %s never receives it", c.msg(m), c.proc(int32(p))), seqs, b.String())
			break
		}
	}
}

// senders returns, per message, the process that sends it (from the
// source trace, else from the run's sends).
func (c *checker) senders() []int32 {
	out := make([]int32, len(c.run.Msgs))
	for m := range out {
		out[m] = none
	}
	for i := range c.run.Events {
		e := &c.run.Events[i]
		if e.Kind == trace.Send && e.Msg >= 0 && int(e.Msg) < len(out) && out[e.Msg] == none {
			out[e.Msg] = e.P
		}
	}
	if c.src != nil && len(c.src.Processes) == len(c.run.Processes) {
		same := c.sameMsgs()
		for m, msg := range c.src.Messages {
			rm := int32(m)
			if !same {
				rm = c.runMsg(c.src.Msgs[m])
			}
			if rm != none && int(rm) < len(out) && out[rm] == none && msg.Send >= 0 && int(msg.Send) < len(c.src.Events) {
				out[rm] = c.src.Events[msg.Send].P
			}
		}
	}
	return out
}

// equivalence compares every process's final live history with its
// program in the source trace.
func (c *checker) equivalence() {
	if c.src == nil {
		c.setUnknown(equivalenceName, "no source trace: the processes' programs are unknown")
		return
	}
	if len(c.src.Processes) != len(c.run.Processes) {
		c.violate(equivalenceName, "the run and its source trace have different processes", []int32{},
			fmt.Sprintf("the source trace has %d processes, the run %d", len(c.src.Processes), len(c.run.Processes)))
		return
	}
	prog := c.programKinds()
	for p := range c.procs {
		live := c.procs[p].live
		pr := prog[p]
		k := 0
		for ; k < len(live) && k < len(pr); k++ {
			s := live[k]
			if s == none {
				break
			}
			e := &c.run.Events[s]
			if e.Kind != pr[k].kind || (e.Kind != trace.Internal && e.Msg != pr[k].msg) {
				break
			}
		}
		if k == len(live) && k == len(pr) {
			continue
		}
		var because string
		seqs := []int32{}
		switch {
		case k < len(live) && k < len(pr):
			s := live[k]
			got := "a gap"
			if s != none {
				got = c.describe(s)
				seqs = append(seqs, s)
			}
			because = fmt.Sprintf("op %d of %s's program is %s %s, but its final live history has %s there", k, c.proc(int32(p)), pr[k].kind, c.msgOpt(pr[k].msg), got)
		case k < len(pr):
			because = fmt.Sprintf("%s's program has %d ops, its final live history only %d: op %d (%s %s) and the rest never happened", c.proc(int32(p)), len(pr), len(live), k, pr[k].kind, c.msgOpt(pr[k].msg))
			if e := c.procs[p].end; e != none {
				seqs = append(seqs, e)
			}
		default:
			because = fmt.Sprintf("%s's program has %d ops, but its final live history has %d", c.proc(int32(p)), len(pr), len(live))
		}
		c.violate(equivalenceName, fmt.Sprintf("%s's final live history is not its program", c.proc(int32(p))), seqs, because)
	}
}

// finalGraph returns, per process, the held checkpoints' positions and
// numbers, and the messages with both ends live as zgraph messages (with
// the live receive seq of each).
func (c *checker) finalGraph() (counts []int32, numbers [][]int32, msgs []zgraph.Msg, recvs []int32) {
	np := len(c.procs)
	counts = make([]int32, np)
	numbers = make([][]int32, np)
	pos := make([][]int32, np)
	for p := range c.procs {
		ck := c.procs[p].ckpts
		counts[p] = int32(len(ck))
		numbers[p] = make([]int32, len(ck))
		pos[p] = make([]int32, len(ck))
		for k := range ck {
			numbers[p][k], pos[p][k] = ck[k].sn, ck[k].pos
		}
	}
	interval := func(p, op int32) int32 {
		ps := pos[p]
		// The last checkpoint taken at or before op (checkpoint at pos x
		// precedes op x).
		i := sort.Search(len(ps), func(i int) bool { return ps[i] > op })
		return int32(i - 1)
	}
	nr := 0
	for p := range c.procs {
		for _, s := range c.procs[p].live {
			if s != none && c.run.Events[s].Kind == trace.Recv {
				nr++
			}
		}
	}
	msgs = make([]zgraph.Msg, 0, nr)
	recvs = make([]int32, 0, nr)
	for p := range c.procs {
		for _, s := range c.procs[p].live {
			if s == none || c.run.Events[s].Kind != trace.Recv {
				continue
			}
			snd := c.sendOf[s]
			if snd == none || c.undoneBy[snd] != none {
				continue
			}
			se := &c.run.Events[snd]
			re := &c.run.Events[s]
			msgs = append(msgs, zgraph.Msg{From: se.P, FromInterval: interval(se.P, se.Op), To: re.P, ToInterval: interval(re.P, re.Op)})
			recvs = append(recvs, s)
		}
	}
	return counts, numbers, msgs, recvs
}

// zcycles judges z-cycle-free and sn-lines (MS) and counts useless
// checkpoints over the final live history (every algorithm).
func (c *checker) zcycles() {
	if c.copyMissing {
		c.setUnknown(zCycleFreeName, "the run lacks copy numbers, so messages cannot be matched to receipts")
		c.setUnknown(snLinesName, "the run lacks copy numbers, so messages cannot be matched to receipts")
		return
	}
	counts, numbers, msgs, recvs := c.finalGraph()
	g, err := zgraph.New(counts, msgs)
	if err != nil {
		c.setUnknown(zCycleFreeName, "z-graph: "+err.Error())
		return
	}
	c.stats.Checkpoints.Useless = g.UselessCount()
	isMS := c.alg == algMS || c.alg == algTextbook
	if isMS {
		for _, u := range g.UselessList() {
			ck := c.procs[u.P].ckpts[u.X]
			seqs := []int32{}
			if ck.seq != none {
				seqs = append(seqs, ck.seq)
			}
			var hops []string
			for _, mi := range g.Cycle(u.P, u.X) {
				if int(mi) < len(recvs) {
					r := recvs[mi]
					seqs = append(seqs, c.sendOf[r], r)
					hops = append(hops, fmt.Sprintf("%s (%s → %s, sent at seq %d in interval %d, received at seq %d in interval %d)",
						c.msg(c.run.Events[r].Msg), c.proc(msgs[mi].From), c.proc(msgs[mi].To), c.sendOf[r], msgs[mi].FromInterval, r, msgs[mi].ToInterval))
				}
			}
			c.violate(zCycleFreeName, fmt.Sprintf("%s's checkpoint %d is useless (on a Z-cycle)", c.proc(u.P), ck.id), seqs,
				fmt.Sprintf("the Z-path %s starts after %s's checkpoint %d (sn %d) and ends before it, so no consistent global checkpoint contains it; MS promises none",
					strings.Join(hops, ", then "), c.proc(u.P), ck.id, ck.sn))
		}
	}
	if !isMS {
		return
	}
	if c.snMissing {
		c.setUnknown(snLinesName, "checkpoints carry no sn")
		return
	}
	orphans, err := zgraph.SnLines(numbers, msgs)
	if err != nil {
		c.setUnknown(snLinesName, "sn-lines: "+err.Error())
		return
	}
	for _, o := range orphans {
		r := recvs[o.Msg]
		s := c.sendOf[r]
		m := msgs[o.Msg]
		rng := fmt.Sprintf("S_%d", o.Lo)
		if o.Hi > o.Lo {
			rng = fmt.Sprintf("S_%d … S_%d", o.Lo, o.Hi)
		}
		c.violate(snLinesName, fmt.Sprintf("%s is an orphan of %s", c.msg(c.run.Events[r].Msg), rng), []int32{s, r},
			fmt.Sprintf("%s sent %s at seq %d after a checkpoint numbered %d, and %s received it at seq %d before any checkpoint numbered above %d (interval %d), so every S_n with %d ≤ n ≤ %d holds the receipt but not the send",
				c.proc(m.From), c.msg(c.run.Events[r].Msg), s, o.Hi, c.proc(m.To), r, o.Lo-1, m.ToInterval, o.Lo, o.Hi))
	}
}

// collectable counts the MS checkpoints SPEC §4.2's garbage collection
// may drop at the end: with every recovery applied everywhere, those
// before S_n for the largest n every process has reached.
func (c *checker) collectable() {
	if c.alg != algMS && c.alg != algTextbook {
		return
	}
	np := len(c.procs)
	for fi := range c.failures {
		seen := make([]bool, np)
		for _, h := range c.failures[fi].handlers {
			seen[c.run.Events[h].P] = true
		}
		for _, s := range seen {
			if !s {
				return
			}
		}
	}
	n := int32(-1)
	for p := range c.procs {
		ck := c.procs[p].ckpts
		top := ck[len(ck)-1].sn
		if n == -1 || top < n {
			n = top
		}
	}
	for p := range c.procs {
		for _, ck := range c.procs[p].ckpts {
			if ck.sn >= n {
				break
			}
			c.stats.Checkpoints.Collectable++
		}
	}
}

// recoveryLines builds the report's recoveries: per failure, what every
// process restored and undid, and the maximum consistent recovery line
// of checkpoints it is compared with.
func (c *checker) recoveryLines() {
	ev := c.run.Events
	np := len(c.procs)
	type agg struct {
		restore, sn, pos  int32
		vt                trace.VT
		undone, replayed  int
		discarded, resent int
		cause             string
		touched           bool
	}
	per := make([][]agg, len(c.failures))
	for fi := range per {
		per[fi] = make([]agg, np)
		for p := range per[fi] {
			per[fi][p] = agg{restore: none, sn: none, pos: none, cause: "none"}
		}
	}
	// Replays and resends are charged to the failure a process last
	// handled.
	lastF := make([]int32, np)
	for p := range lastF {
		lastF[p] = none
	}
	for i := range ev {
		e := &ev[i]
		if e.P < 0 || int(e.P) >= np {
			continue
		}
		fi := c.failOf[i]
		if fi == none && (e.Kind == trace.ControlRecv || e.Kind == trace.Discard) {
			if f, ok := c.failIdx[e.Failure]; ok {
				fi = f
			}
		}
		switch e.Kind {
		case trace.Restart, trace.Rollback:
			if fi == none {
				continue
			}
			a := &per[fi][e.P]
			ck, ok := c.procs[e.P].byID[e.Restore]
			a.restore, a.pos = e.Restore, e.Pos
			if ok {
				a.sn, a.vt = ck.sn, ck.vt
			}
			a.undone += int(c.undoneAt[int32(i)])
			a.replayed += int(c.replayedAt[int32(i)])
			a.touched = true
			if e.Kind == trace.Restart {
				a.cause = "restart"
			} else if e.Cause != trace.CauseNone {
				a.cause = e.Cause.String()
			} else {
				a.cause = "rollback"
			}
			lastF[e.P] = fi
		case trace.Checkpoint:
			if fi != none {
				a := &per[fi][e.P]
				a.touched = true
				if a.pos == none {
					a.pos = e.Pos
				}
				if a.cause == "none" {
					a.cause = "recovery"
				}
				lastF[e.P] = fi
			}
		case trace.ControlRecv:
			if fi != none {
				lastF[e.P] = fi
			}
		case trace.Discard:
			if fi != none {
				per[fi][e.P].discarded++
			}
		case trace.Recv:
			if e.Via == trace.ViaLog && lastF[e.P] != none {
				per[lastF[e.P]][e.P].replayed++
			}
		case trace.Send:
			// A PK restart writes its resends before the restart event
			// itself, so a resend naming its failure is charged to it.
			if !e.Resend {
				break
			}
			if f, ok := c.failIdx[e.Failure]; ok {
				per[f][e.P].resent++
			} else if lastF[e.P] != none {
				per[lastF[e.P]][e.P].resent++
			}
		}
	}
	c.recoveries = make([]report.Recovery, 0, len(c.failures))
	for fi := range c.failures {
		f := &c.failures[fi]
		rec := report.Recovery{
			Failure:         report.FailureRef{P: c.proc(f.p), T: ev[f.seq].T, Seq: f.seq},
			ControlMessages: f.controls,
			Line:            make([]report.LineEntry, np),
		}
		if (c.alg == algMS || c.alg == algTextbook) && f.r != none {
			r := f.r
			rec.RecLine = &r
		}
		if c.alg == algPK && f.ann != nil {
			rec.Announcement = &report.Announcement{Inc: f.ann.inc, K: f.ann.k}
		}
		maxLine := c.maxLine(f)
		for p := 0; p < np; p++ {
			a := per[fi][p]
			le := report.LineEntry{P: c.proc(int32(p)), Undone: a.undone, Replayed: a.replayed,
				Discarded: a.discarded, Resent: a.resent, Cause: a.cause}
			if a.restore != none {
				r := a.restore
				le.Restore = &r
				if a.sn != none && c.alg != algPK {
					sn := a.sn
					le.Sn = &sn
				}
				if c.alg == algPK {
					le.VT = a.vt
				}
			}
			le.Pos = a.pos
			if le.Pos == none && int(p) < len(f.liveAt) {
				le.Pos = f.liveAt[p]
			}
			if maxLine != nil {
				le.Extra = a.undone - int(maxLine[p].Undone)
				ck := none
				if maxLine[p].Ckpt >= 0 && int(maxLine[p].Ckpt) < len(f.ckptIDsAt[p]) {
					ck = f.ckptIDsAt[p][maxLine[p].Ckpt]
				}
				rec.MaxLine = append(rec.MaxLine, report.MaxLineEntry{P: c.proc(int32(p)), Ckpt: ck, Pos: maxLine[p].Pos, Undone: int(maxLine[p].Undone)})
			}
			rec.Line[p] = le
		}
		c.recoveries = append(c.recoveries, rec)
	}
}

// maxLine computes the maximum consistent recovery line of checkpoints
// for failure f (Wang 1997): the failed process at its latest checkpoint
// at or before its restored state, everyone else at its state at the
// failure instant, then rollback propagation. nil when it cannot be
// computed (no restart, or the snapshot budget ran out).
func (c *checker) maxLine(f *failure) []rline.Entry {
	if f.ckptsAt == nil || f.restart == none {
		return nil
	}
	restored := c.run.Events[f.restart].Pos
	if restored == none {
		return nil
	}
	np := len(c.procs)
	start := make([]int32, np)
	copy(start, f.liveAt)
	ck := f.ckptsAt[f.p]
	st := int32(0)
	for _, x := range ck {
		if x <= restored && x <= f.liveAt[f.p] {
			st = x
		}
	}
	start[f.p] = st
	g, err := rline.New(f.ckptsAt, f.recvsAt)
	if err != nil {
		return nil
	}
	line, err := g.Line(start, f.liveAt)
	if err != nil {
		return nil
	}
	return line
}
