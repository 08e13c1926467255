package replay

import (
	"fmt"
	"sort"

	"github.com/ckpt-dev/ckpt/trace"
)

func (e *engine) restore(p int32, f *Effect, restart bool) error {
	pr := &e.procs[p]
	ci := sort.Search(len(pr.ckpts), func(i int) bool { return pr.ckpts[i].id >= f.Ckpt })
	cpos := int32(0)
	switch {
	case f.Ckpt == 0:
	case ci < len(pr.ckpts) && pr.ckpts[ci].id == f.Ckpt:
		cpos = pr.ckpts[ci].pos
	default:
		return fmt.Errorf("replay: algorithm %s: %s restores unknown checkpoint %d", e.alg.Name(), e.tr.Processes[p], f.Ckpt)
	}
	L := pr.pos()
	pos := f.Pos
	if pos == trace.None {
		pos = cpos
	}
	if pos < cpos || int(pos) > len(pr.prog) || (!restart && pos > L) {
		return fmt.Errorf("replay: algorithm %s: %s restores checkpoint %d (pos %d) to bad pos %d", e.alg.Name(), e.tr.Processes[p], f.Ckpt, cpos, pos)
	}
	undone := int32(0)
	if L > pos {
		undone = L - pos
	}
	// The held or blocked receive is undone by any restore.
	if pr.heldRecv {
		pr.heldRecv = false
		r := e.ev(trace.Unhold, p)
		r.Msg, r.Failure = pr.holdMsg, f.Failure
		e.emit(r)
	}
	pr.blocked = false
	pr.gen++
	if L > pos {
		pr.live = pr.live[:pos]
	}
	for _, lc := range f.Replay {
		if lc.Copy < 0 || int(lc.Copy) >= len(e.copies) || e.copies[lc.Copy].to != p ||
			lc.Op < 0 || int(lc.Op) >= len(pr.prog) || e.tr.Events[pr.prog[lc.Op]].Msg != e.copies[lc.Copy].msg {
			return fmt.Errorf("replay: algorithm %s: %s's replay log gives op %d copy %d, which is not a copy of that receive's message", e.alg.Name(), e.tr.Processes[p], lc.Op, lc.Copy)
		}
	}
	pr.replay = append(pr.replay[:0], f.Replay...)
	sort.Slice(pr.replay, func(a, b int) bool { return pr.replay[a].Op < pr.replay[b].Op })
	pr.rcur = 0
	if restart {
		// PK: re-transmit live sends and run, for the first time, the ops
		// between the crash point and pos, all before the restart event.
		for k := cpos; k < pos; k++ {
			tev := &e.tr.Events[pr.prog[k]]
			if k < L {
				if f.Resend && tev.Kind == trace.Send {
					orig := pr.live[k]
					if _, err := e.transmit(p, k, tev.Msg, tev.To, e.copies[orig].pb, orig, f.Failure, ""); err != nil {
						return err
					}
					pr = &e.procs[p]
				}
				continue
			}
			switch tev.Kind {
			case trace.Send, trace.Internal:
				if err := e.execLocal(p, k, tev); err != nil {
					return err
				}
				pr = &e.procs[p]
			case trace.Recv:
				c := NoCopy
				for _, lc := range pr.replay {
					if lc.Op == k {
						c = lc.Copy
					}
				}
				if c == NoCopy || e.copies[c].msg != tev.Msg {
					return fmt.Errorf("replay: algorithm %s: %s replays receive op %d without a log copy", e.alg.Name(), e.tr.Processes[p], k)
				}
				cr := &e.copies[c]
				r := e.ev(trace.Recv, p)
				r.Msg, r.Peer, r.Op, r.Copy, r.Via, r.Label = cr.msg, cr.from, k, cr.no, trace.ViaLog, e.out.AddString(tev.Label)
				e.emit(r)
				pr.live = append(pr.live, c)
			}
		}
		r := e.ev(trace.Restart, p)
		r.Restore, r.Pos, r.Undone, r.Inc, r.Failure = f.Ckpt, pos, undone, f.Inc, f.Failure
		e.emit(r)
	} else {
		r := e.ev(trace.Rollback, p)
		r.Restore, r.Pos, r.Undone, r.Cause, r.Failure = f.Ckpt, pos, undone, f.Cause, f.Failure
		e.emit(r)
	}
	for _, c := range f.Requeue {
		if c < 0 || int(c) >= len(e.copies) || e.copies[c].to != p {
			return fmt.Errorf("replay: algorithm %s: requeue of unknown copy %d", e.alg.Name(), c)
		}
		if cr := &e.copies[c]; cr.state != copyBox && cr.state != copyTransit {
			cr.state = copyBox
			e.boxInsert(c)
		}
	}
	pr.exec = e.now
	e.schedule(p)
	return nil
}

// finish records every process's end and the copies left in mailboxes.
