package replay

import (
	"fmt"
	"sort"

	"github.com/ckpt-dev/ckpt/trace"
)

// Restores (SPEC §3 "Rollback and re-execution"): a restart or rollback
// restores a checkpoint and leaves the process at a position pos ≥ the
// checkpoint's; the ops beyond pos are undone and re-executed later.

// restore applies EffRestart (restart) or EffRollback.
func (e *engine) restore(p int32, f *Effect, restart bool) error {
	pr := &e.procs[p]
	if f.Ckpt < e.stable[p].ckpt {
		return fmt.Errorf("replay: algorithm %s: %s restores checkpoint %d, below checkpoint %d it declared stable", e.alg.Name(), e.name(p), f.Ckpt, e.stable[p].ckpt)
	}
	cpos, err := e.ckptPos(p, f.Ckpt)
	if err != nil {
		return err
	}
	L := pr.pos()
	pos := f.Pos
	if pos < cpos || int(pos) > len(pr.prog) || (!restart && pos > L) {
		return fmt.Errorf("replay: algorithm %s: %s restores checkpoint %d (pos %d) to bad pos %d", e.alg.Name(), e.name(p), f.Ckpt, cpos, pos)
	}
	if err := e.checkReplay(p, f.Replay); err != nil {
		return err
	}
	undone := max(L-pos, 0)
	// The held or blocked receive is undone by any restore.
	e.unholdRecv(p, f.Failure)
	pr.blocked = false
	pr.stale()
	if L > pos {
		pr.live = pr.live[:pos]
	}
	pr.replay = append(pr.replay[:0], f.Replay...)
	sort.Slice(pr.replay, func(a, b int) bool { return pr.replay[a].Op < pr.replay[b].Op })
	pr.rcur = 0
	if restart {
		if err := e.instantReplay(p, cpos, L, f); err != nil {
			return err
		}
		r := e.emit(trace.Restart, p)
		r.Restore, r.Pos, r.Undone, r.Inc, r.Failure = f.Ckpt, pos, undone, orNone(f.Inc), f.Failure.Run()
	} else {
		r := e.emit(trace.Rollback, p)
		r.Restore, r.Pos, r.Undone, r.Cause, r.Failure = f.Ckpt, pos, undone, f.Cause, f.Failure.Run()
	}
	if err := e.requeue(p, f.Requeue); err != nil {
		return err
	}
	pr = &e.procs[p]
	pr.exec = e.now
	e.schedule(p)
	return nil
}

// ckptPos returns the position of p's checkpoint id.
func (e *engine) ckptPos(p, id int32) (int32, error) {
	if id == 0 {
		return 0, nil
	}
	cs := e.procs[p].ckpts
	i := sort.Search(len(cs), func(i int) bool { return cs[i].id >= id })
	if i < len(cs) && cs[i].id == id {
		return cs[i].pos, nil
	}
	return 0, fmt.Errorf("replay: algorithm %s: %s restores unknown checkpoint %d", e.alg.Name(), e.name(p), id)
}

// checkReplay checks that every replay-log entry names a copy of the
// message its receive op takes.
func (e *engine) checkReplay(p int32, log []LogCopy) error {
	prog := e.procs[p].prog
	for _, lc := range log {
		if lc.Copy <= NoCopy || int(lc.Copy) >= len(e.copies) || e.copies[lc.Copy].to != p ||
			lc.Op < 0 || int(lc.Op) >= len(prog) || e.tr.Events[prog[lc.Op]].Msg != e.copies[lc.Copy].msg {
			return fmt.Errorf("replay: algorithm %s: %s's replay log gives op %d copy %d, which is not a copy of that receive's message", e.alg.Name(), e.name(p), lc.Op, lc.Copy)
		}
	}
	return nil
}

// instantReplay runs a restart's replay from the checkpoint at cpos to
// f.Pos, at the restart time (PK): live sends (ops below L, p's position
// at the crash) are re-transmitted if f.Resend, and ops from L on run for
// the first time, their sends with the piggybacks of f.Sends and their
// receives with the replay log's copies.
func (e *engine) instantReplay(p, cpos, L int32, f *Effect) error {
	sends := f.Sends
	for k := cpos; k < f.Pos; k++ {
		pr := &e.procs[p]
		tev := &e.tr.Events[pr.prog[k]]
		if k < L {
			if f.Resend && tev.Kind == trace.Send {
				orig := pr.live[k]
				if err := e.usable(e.copies[orig].pb, "re-transmits"); err != nil {
					return err
				}
				e.transmit(p, k, tev.Msg, tev.To, e.copies[orig].pb, orig, f.Failure, "")
			}
			continue
		}
		switch tev.Kind {
		case trace.Send:
			if len(sends) == 0 || sends[0].Op != k {
				return fmt.Errorf("replay: algorithm %s: %s's restart runs send op %d for the first time without its piggyback", e.alg.Name(), e.name(p), k)
			}
			e.execLocal(p, k, tev, e.storePB(p, &sends[0].PB))
			sends = sends[1:]
		case trace.Internal:
			e.execLocal(p, k, tev, trace.None)
		case trace.Recv:
			if err := e.replayRecv(p, k, tev); err != nil {
				return err
			}
		}
	}
	if len(sends) != 0 {
		return fmt.Errorf("replay: algorithm %s: %s's restart gives a piggyback for op %d, which it does not run for the first time", e.alg.Name(), e.name(p), sends[0].Op)
	}
	return nil
}

// replayRecv runs receive op k of p, for the first time, with its replay
// log copy.
func (e *engine) replayRecv(p, k int32, tev *trace.Event) error {
	pr := &e.procs[p]
	c := NoCopy
	for _, lc := range pr.replay {
		if lc.Op == k {
			c = lc.Copy
		}
	}
	if c == NoCopy || e.copies[c].msg != tev.Msg {
		return fmt.Errorf("replay: algorithm %s: %s replays receive op %d without a log copy", e.alg.Name(), e.name(p), k)
	}
	e.receipt(p, k, c, trace.ViaLog)
	return nil
}

// requeue puts the copies of undone receipts back into p's mailbox at
// their original arrival position.
func (e *engine) requeue(p int32, cs []CopyID) error {
	for _, c := range cs {
		if c <= NoCopy || int(c) >= len(e.copies) || e.copies[c].to != p {
			return fmt.Errorf("replay: algorithm %s: requeue of unknown copy %d", e.alg.Name(), c)
		}
		if cr := &e.copies[c]; cr.state != copyBox && cr.state != copyTransit {
			cr.state = copyBox
			e.boxInsert(c)
		}
	}
	return nil
}
