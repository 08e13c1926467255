package shiviz

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/skew"
)

// TimeLayouts are tried, in order, for a timestamp group without an
// explicit layout: Akka's, log4j's and RFC 3339.
var TimeLayouts = []string{
	"01/02/2006 15:04:05.000",
	"2006-01-02 15:04:05,000",
	"2006-01-02 15:04:05.000",
	"2006-01-02 15:04:05",
	time.RFC3339Nano,
}

// timestamps takes the events' times from the timestamp group, relative
// to the earliest, and makes them consistent with causality (Deskew):
// hosts' clocks are skewed.
func (ex *Execution) timestamps(name string, opts ImportOptions) error {
	bad := func(line int, format string, args ...any) error {
		return &trace.InputError{File: name, Event: -1, Line: line, Msg: fmt.Sprintf(format, args...)}
	}
	layouts := TimeLayouts
	if opts.TimeLayout != "" {
		layouts = []string{opts.TimeLayout}
	}
	abs := make([]time.Time, len(ex.Events))
	for i, ev := range ex.Events {
		k := slices.IndexFunc(ev.Fields, func(f Field) bool { return f.Name == opts.TimeGroup })
		if k < 0 {
			return bad(ev.Line, "the regular expression has no group %q to take times from", opts.TimeGroup)
		}
		var err error
		for _, l := range layouts {
			if abs[i], err = time.Parse(l, strings.TrimSpace(ev.Fields[k].Value)); err == nil {
				break
			}
		}
		if err != nil {
			return bad(ev.Line, "cannot read the timestamp %q of group %q (layouts tried: %s)", ev.Fields[k].Value, opts.TimeGroup, strings.Join(layouts, "; "))
		}
	}
	origin := slices.MinFunc(abs, time.Time.Compare)
	for i := range ex.Events {
		if ex.Events[i].Time = trace.Time(abs[i].Sub(origin)); ex.Events[i].Time > trace.MaxTime {
			return bad(ex.Events[i].Line, "timestamps span more than ckpt's time range")
		}
	}
	if err := ex.Deskew(); err != nil {
		return bad(0, "%s", err.Error())
	}
	return nil
}

// Deskew makes the events' times, each taken by its host's own clock,
// consistent with causality (skew.Deskew: the least shift per host,
// then any event still before a cause raised to it), makes the earliest
// time 0, orders the events by time, and notes every shift and raise.
func (ex *Execution) Deskew() error {
	per := perHost(ex)
	times := make([][]trace.Time, len(per))
	for h, evs := range per {
		for _, e := range evs {
			times[h] = append(times[h], ex.Events[e].Time)
		}
	}
	var msgs []skew.Msg
	for _, ev := range ex.Events {
		for _, q := range ev.Parents {
			msgs = append(msgs, skew.Msg{From: ex.Events[q].Host, Send: ex.Events[q].Own - 1, To: ev.Host, Recv: ev.Own - 1})
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
	for h, s := range res.Shift {
		if s > 0 {
			ex.Notes = append(ex.Notes, fmt.Sprintf("clock of %s shifted by +%s s to restore causality", ex.Hosts[h], s))
		}
	}
	if !res.Consistent {
		ex.Notes = append(ex.Notes, "the clocks contradict each other (no shift per process puts every receive after its send): none shifted")
	}
	if res.Raised > 0 {
		ex.Notes = append(ex.Notes, fmt.Sprintf("%d event(s) earlier than their cause raised to it", res.Raised))
	}
	return nil
}
