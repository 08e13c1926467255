package shiviz

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/skew"
)

// Deskew makes the events' times, each taken by its host's own clock,
// consistent with causality (skew.Deskew: the least shift per host,
// then any event still before a cause raised to it), makes the earliest
// time 0, orders the events by time, and notes every shift and raise.
func (ex *Execution) Deskew() error {
	per := perHost(ex)
	times := make([][]trace.Time, len(per))
	pos := make([]int32, len(ex.Events))
	for h, evs := range per {
		times[h] = make([]trace.Time, len(evs))
		for k, e := range evs {
			times[h][k], pos[e] = ex.Events[e].Time, int32(k)
		}
	}
	var msgs []skew.Msg
	for i := range ex.Events {
		ev := &ex.Events[i]
		for _, q := range ev.Parents {
			msgs = append(msgs, skew.Msg{From: ex.Events[q].Host, Send: pos[q], To: ev.Host, Recv: pos[i]})
		}
	}
	res, err := skew.Deskew(times, msgs)
	if err != nil {
		return err
	}
	origin := trace.MaxTime
	for _, ts := range times {
		if len(ts) > 0 {
			origin = min(origin, ts[0])
		}
	}
	for h, evs := range per {
		for k, e := range evs {
			ex.Events[e].Time = times[h][k] - origin
		}
	}
	ex.Timed = true
	if path := ex.order(per); path != nil {
		return fmt.Errorf("the messages make a cycle of happened-before")
	}
	ex.Notes = append(ex.Notes, skewNotes(ex.Hosts, res)...)
	return nil
}

// skewNotes says what Deskew changed.
func skewNotes(hosts []string, res skew.Result) []string {
	var notes []string
	for h, s := range res.Shift {
		if s > 0 {
			notes = append(notes, fmt.Sprintf("clock of %s shifted by +%s s to restore causality", hosts[h], s))
		}
	}
	if !res.Consistent {
		notes = append(notes, "the clocks contradict each other (no shift per process puts every receive after its send): none shifted")
	}
	if res.Raised > 0 {
		notes = append(notes, fmt.Sprintf("%d event(s) earlier than their cause raised to it", res.Raised))
	}
	return notes
}
