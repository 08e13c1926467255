package record

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/trace"
)

// merged orders the events of every recording into one sequence that
// respects causality: each process's order, and every event about a copy
// or control message after its send. Among the events whose causes are
// placed, the earliest recorded (then the lowest Lamport clock, then
// the lowest process index) goes next: clocks that agree (one machine)
// give exact times, and clocks that do not only reorder what no message
// orders. Clocks never decide causality. A process's end and unconsumed
// copies wait until every other event is placed. It sets each event's
// seq.
func merged(recs []*recording, procs []string) ([]*event, error) {
	byProc := make([][]*event, len(procs))
	total := 0
	for _, r := range recs {
		byProc[r.p] = r.events
		total += len(r.events)
	}
	out := make([]*event, 0, total)
	next := make([]int, len(procs))
	place := func(e *event) {
		e.seq = int32(len(out))
		out = append(out, e)
	}
	for {
		var best *event
		for p, evs := range byProc {
			if next[p] == len(evs) {
				continue
			}
			e := evs[next[p]]
			if final(e.kind) || e.from != nil && e.from.seq == trace.None {
				continue
			}
			if best == nil || e.NS < best.NS || e.NS == best.NS && e.C < best.C {
				best = e
			}
		}
		if best == nil {
			break
		}
		place(best)
		next[best.p]++
	}
	for _, kind := range []trace.Kind{trace.End, trace.Unconsumed} {
		for p, evs := range byProc {
			for ; next[p] < len(evs) && evs[next[p]].kind == kind; next[p]++ {
				place(evs[next[p]])
			}
		}
	}
	for p, evs := range byProc {
		if i := next[p]; i < len(evs) {
			why := "it follows the process's end"
			if i == 0 || !final(evs[i-1].kind) {
				why = fmt.Sprintf("%s's send it names (n=%d) comes after it, as far as the recordings tell", evs[i].From, evs[i].Tx)
			}
			return nil, fmt.Errorf("record: %s's event n=%d (%s) cannot be placed: %s", procs[p], evs[i].N, evs[i].Kind, why)
		}
	}
	return out, nil
}

func final(k trace.Kind) bool { return k == trace.End || k == trace.Unconsumed }
