package shiviz

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/ckpt-dev/ckpt/trace"
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
	if ex.Timed {
		return inputError(name, 0, "--time-group takes times from a ShiViz log's regex group; these events carry their own times")
	}
	layouts := TimeLayouts
	if opts.TimeLayout != "" {
		layouts = []string{opts.TimeLayout}
	}
	abs := make([]time.Time, len(ex.Events))
	for i, ev := range ex.Events {
		k := slices.IndexFunc(ev.Fields, func(f Field) bool { return f.Name == opts.TimeGroup })
		if k < 0 {
			return inputError(name, ev.Line, "the regular expression has no group %q to take times from", opts.TimeGroup)
		}
		var err error
		for _, l := range layouts {
			if abs[i], err = time.Parse(l, strings.TrimSpace(ev.Fields[k].Value)); err == nil {
				break
			}
		}
		if err != nil {
			return inputError(name, ev.Line, "cannot read the timestamp %q of group %q (layouts tried: %s)", ev.Fields[k].Value, opts.TimeGroup, strings.Join(layouts, "; "))
		}
	}
	origin := slices.MinFunc(abs, time.Time.Compare)
	for i := range ex.Events {
		if ex.Events[i].Time = trace.Time(abs[i].Sub(origin)); ex.Events[i].Time > trace.MaxTime {
			return inputError(name, ex.Events[i].Line, "the events' times span more than %s", trace.MaxTimeText)
		}
	}
	if err := ex.Deskew(); err != nil {
		return inputError(name, 0, "%s", err.Error())
	}
	return nil
}

// Deskew finishes an execution whose events' hosts, own positions (1,
// 2, … per host), texts, times and messages (Parents and Children) are
// set — as the span importer and record's merge build it, or as Parse
// leaves it once a timestamp group gave the times — each time taken by
// its host's own clock on any origin (Unix nanoseconds, say). It orders
// the events causally (messages that make a cycle with the hosts' order
// are an error), makes the times consistent with causality (deskew: the
// least shift per host, then any event still before a cause raised to
// it), makes the earliest time 0, orders the events by time, and notes
// every shift and raise. It is the one rule of every importer and of
// record's merge: the smallest shift that restores causality.
func (ex *Execution) Deskew() error {
	per := perHost(ex)
	if path := ex.order(per); path != nil {
		return newCycleError(ex, path)
	}
	if err := ex.rebase(); err != nil {
		return err
	}
	shift, consistent, raised, err := ex.deskew(per)
	if err != nil {
		return err
	}
	ex.rebase() // no error: deskew kept every time within trace.MaxTime
	ex.Timed = true
	ex.order(per) // no cycle: it was ordered
	for h, s := range shift {
		if s > 0 {
			ex.Notes = append(ex.Notes, fmt.Sprintf("clock of %s shifted by +%s s to restore causality", shown(ex.Hosts[h]), s))
		}
	}
	if !consistent {
		ex.Notes = append(ex.Notes, "the clocks contradict each other (no shift per process puts every receive after its send): none shifted")
	}
	if raised > 0 {
		ex.Notes = append(ex.Notes, fmt.Sprintf("%d event(s) earlier than their cause raised to it", raised))
	}
	return nil
}

// shown is a host name as a message shows it: as it is, or quoted when
// a character of it (a newline, a NUL) would break or hide in the line.
func shown(host string) string {
	if strings.ContainsFunc(host, func(r rune) bool { return !unicode.IsPrint(r) }) {
		return strconv.Quote(host)
	}
	return host
}

// shownAll lists host names, each shown, so that the list stays on one
// line.
func shownAll(hosts []string) string {
	each := make([]string, len(hosts))
	for i, h := range hosts {
		each[i] = shown(h)
	}
	return strings.Join(each, ", ")
}

// rebase makes the earliest time 0. Times that span more than
// trace.MaxTime are an error naming the earliest and the latest event.
func (ex *Execution) rebase() error {
	if len(ex.Events) == 0 {
		return nil
	}
	first, last := 0, 0
	for i, ev := range ex.Events {
		if ev.Time < ex.Events[first].Time {
			first = i
		}
		if ev.Time > ex.Events[last].Time {
			last = i
		}
	}
	origin, end := ex.Events[first].Time, ex.Events[last].Time
	if span := end - origin; span < 0 || span > trace.MaxTime { // < 0: it overflowed
		return fmt.Errorf("the events' times span more than %s: from %s to %s, %.0f s later",
			trace.MaxTimeText, ex.named(first), ex.named(last), (float64(end)-float64(origin))/float64(trace.Second))
	}
	for i := range ex.Events {
		ex.Events[i].Time -= origin
	}
	return nil
}

// named names an event in a message: its host, its position there and
// its label.
func (ex *Execution) named(e int) string {
	ev := &ex.Events[e]
	return fmt.Sprintf("%s:%d (%q)", shown(ex.Hosts[ev.Host]), ev.Own, ev.label())
}

// deskew rewrites the times so that they are non-decreasing along each
// host and no receive is earlier than its send. It first adds to each
// host's times the least non-negative shift that puts every receive at
// or after its send (shifts); when no shifts can (consistent false),
// none is shifted. Then, in causal order, any event still earlier than
// one of its causes is raised to the latest of them, and counted; with
// consistent clocks that are non-decreasing per host, none is. A shifted
// time beyond trace.MaxTime is an error.
func (ex *Execution) deskew(per [][]int32) (shift []trace.Time, consistent bool, raised int, err error) {
	if shift, consistent = ex.shifts(); !consistent {
		clear(shift)
	}
	for _, ev := range ex.Events {
		if ev.Time+shift[ev.Host] > trace.MaxTime {
			return nil, false, 0, fmt.Errorf("a time of %s shifted by %s exceeds %s", shown(ex.Hosts[ev.Host]), shift[ev.Host], trace.MaxTimeText)
		}
	}
	for _, e := range ex.Order {
		ev := &ex.Events[e]
		t := ev.Time + shift[ev.Host]
		cause := t
		if ev.Own > 1 {
			cause = max(cause, ex.Events[per[ev.Host][ev.Own-2]].Time)
		}
		for _, q := range ev.Parents {
			cause = max(cause, ex.Events[q].Time)
		}
		if ev.Time = cause; cause > t {
			raised++
		}
	}
	return shift, consistent, raised, nil
}

// shifts finds the least non-negative shifts per host satisfying every
// message — the longest paths of the constraints shift[to]−shift[from] ≥
// sent−received — by Bellman–Ford over the messages; it reports false
// when a cycle of constraints has positive weight, which no shifts
// satisfy. The least shifts are unique, so the order the messages are
// relaxed in does not matter.
func (ex *Execution) shifts() ([]trace.Time, bool) {
	shift := make([]trace.Time, len(ex.Hosts))
	for range len(ex.Hosts) + 1 {
		changed := false
		for _, ev := range ex.Events {
			for _, q := range ev.Parents {
				send := &ex.Events[q]
				if s := shift[send.Host] + send.Time - ev.Time; s > shift[ev.Host] {
					if s > trace.MaxTime {
						return shift, false
					}
					shift[ev.Host], changed = s, true
				}
			}
		}
		if !changed {
			return shift, true
		}
	}
	return shift, false
}
