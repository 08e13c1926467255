package record

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/shiviz"
)

// merged orders the events of every recording into one sequence that
// respects causality — each process's order, and every event about a
// copy or control message after its send — and times them as ckpt
// times every imported log (shiviz.Execution.Deskew): each process's
// clock shifted by the least that puts every such event at or after
// its send, any event still before a cause raised to it, and the
// earliest made 0. Clocks that agree (one machine) keep their exact
// times, and clocks never decide causality. Among the events causality
// leaves free the earliest goes next, then the lowest process's. A
// process's end and unconsumed copies wait until every other event is
// placed. It sets each event's seq and time.
func merged(recs []*recording, procs []string) ([]*event, error) {
	byProc := make([][]*event, len(procs))
	for _, r := range recs {
		byProc[r.p] = r.events
	}
	ex := &shiviz.Execution{Hosts: procs}
	var all []*event                   // the events of ex.Events
	first := make([]int32, len(procs)) // where each process's events start
	for p, evs := range byProc {
		first[p] = int32(len(all))
		for i, e := range evs {
			if i > 0 && final(evs[i-1].kind) && !final(e.kind) {
				return nil, fmt.Errorf("%s cannot be placed: it follows the process's end", e.where())
			}
			e.p = int32(p)
			ex.Events = append(ex.Events, shiviz.Event{Host: int32(p), Own: int32(i + 1), Time: trace.Time(e.NS)})
			all = append(all, e)
		}
	}
	for i, e := range all {
		if e.from != nil {
			s := first[e.from.p] + int32(e.from.N-1)
			ex.Events[s].Children = append(ex.Events[s].Children, int32(i))
			ex.Events[i].Parents = append(ex.Events[i].Parents, s)
		}
	}
	if err := ex.Deskew(); err != nil {
		if ce := (*shiviz.CycleError)(nil); errors.As(err, &ce) {
			return nil, fmt.Errorf("the recordings make a cycle of happened-before, which no execution has: %s", lines(all, append(ce.Path, ce.Path[0])))
		}
		return nil, err
	}
	out := make([]*event, 0, len(all))
	place := func(i int32) {
		all[i].seq, all[i].t = int32(len(out)), ex.Events[i].Time
		out = append(out, all[i])
	}
	for _, i := range ex.Order {
		if !final(all[i].kind) {
			place(i)
		}
	}
	for _, kind := range []trace.Kind{trace.End, trace.Unconsumed} {
		for i, e := range all {
			if e.kind == kind {
				place(int32(i))
			}
		}
	}
	return out, nil
}

func final(k trace.Kind) bool { return k == trace.End || k == trace.Unconsumed }

// lines names the events of path by file and line.
func lines(all []*event, path []int32) string {
	s := make([]string, len(path))
	for i, j := range path {
		s[i] = fmt.Sprintf("%s line %d", all[j].rec.file, all[j].ln)
	}
	return strings.Join(s, " -> ")
}
