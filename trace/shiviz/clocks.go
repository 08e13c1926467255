package shiviz

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/goccy/go-json"
)

// rawClock is a clock as written, before host names are resolved.
type rawClock struct {
	keys   []string
	values []int32
}

// resolveClocks turns the raw clocks into host-indexed entries now that
// every host is known, and sets each event's own clock value.
func (p *parser) resolveClocks(ex *Execution) error {
	for i := range ex.Events {
		ev := &ex.Events[i]
		rc := p.raws[i]
		own := false
		for k, key := range rc.keys {
			h, ok := p.hostIdx[key]
			if !ok && rc.values[k] == 0 {
				continue // ShiViz drops zero entries before it looks at hosts
			}
			if !ok {
				return p.evErrf(ev, "the vector clock of host %q has an entry for unknown host %q: no event of %q is in the log (GoVector writes a file per process: import them all at once)", ex.Hosts[ev.Host], key, key)
			}
			if h == ev.Host {
				own = true
				ev.Own = rc.values[k]
			}
			if rc.values[k] != 0 {
				ev.Clock = append(ev.Clock, Entry{h, rc.values[k]})
			}
		}
		if !own {
			return p.evErrf(ev, "host %q is missing from its own vector clock %s", ex.Hosts[ev.Host], clockString(ex.Hosts, ev.Clock))
		}
	}
	return nil
}

// hostEvents lists each host's events sorted by their own clock, and
// checks that they count 1, 2, 3, … as the vector clock algorithm does.
func (p *parser) hostEvents(ex *Execution) ([][]int32, error) {
	perHost := perHost(ex)
	for h, evs := range perHost {
		for k, e := range evs {
			ev := &ex.Events[e]
			if int(ev.Own) == k+1 {
				continue
			}
			if k == 0 {
				return nil, p.evErrf(ev, "clock values of host %q must start at 1, but its first event has %q:%d (expected %q:1)", ex.Hosts[h], ex.Hosts[h], ev.Own, ex.Hosts[h])
			}
			prev := &ex.Events[evs[k-1]]
			if prev.Own == ev.Own {
				return nil, p.evErrf(ev, "host %q has two events with clock value %d (%s and %s); each event must increase it by 1", ex.Hosts[h], ev.Own, p.at(prev, ev), p.at(ev, ev))
			}
			return nil, p.evErrf(ev, "the clock of host %q goes from %d (%s) to %d; expected %d: clock values must increase by 1 per event", ex.Hosts[h], prev.Own, p.at(prev, ev), ev.Own, prev.Own+1)
		}
	}
	return perHost, nil
}

// perHost lists each host's events in order of their own clock value
// (file order among equal ones).
func perHost(ex *Execution) [][]int32 {
	per := make([][]int32, len(ex.Hosts))
	for i := range ex.Events {
		h := ex.Events[i].Host
		per[h] = append(per[h], int32(i))
	}
	for _, evs := range per {
		slices.SortStableFunc(evs, func(a, b int32) int { return int(ex.Events[a].Own - ex.Events[b].Own) })
	}
	return per
}

// repair makes each host's clocks monotone, as --lenient asks: an event
// whose clock forgets an entry its host's earlier events had is raised
// to it, and the repair noted. ShiViz draws such logs; the vector clock
// algorithm never writes them.
func (p *parser) repair(ex *Execution, perHost [][]int32) {
	known := make([]int32, len(ex.Hosts))
	cur := make([]int32, len(ex.Hosts))
	for h, evs := range perHost {
		var seen []int32
		for _, e := range evs {
			ev := &ex.Events[e]
			for _, en := range ev.Clock {
				cur[en.Host] = en.Value
			}
			var forgot []string
			for _, x := range seen {
				if int(x) != h && cur[x] < known[x] {
					forgot = append(forgot, fmt.Sprintf("%q:%d", ex.Hosts[x], known[x]))
					ev.Clock = raiseEntry(ev.Clock, x, known[x])
				}
			}
			for _, en := range ev.Clock {
				cur[en.Host] = 0
				if known[en.Host] == 0 {
					seen = append(seen, en.Host)
				}
				known[en.Host] = max(known[en.Host], en.Value)
			}
			if forgot != nil {
				ex.Notes = append(ex.Notes, fmt.Sprintf("repaired %s: host %q forgot %s, which it knew; raised", p.at(ev, &Event{File: -1}), ex.Hosts[h], strings.Join(forgot, ", ")))
			}
		}
		for _, x := range seen {
			known[x] = 0
		}
	}
}

// raiseEntry sets host's entry of c to v.
func raiseEntry(c []Entry, host, v int32) []Entry {
	if k := entryOf(c, host); k >= 0 {
		c[k].Value = v
		return c
	}
	return append(c, Entry{host, v})
}

// entryOf is the index of host's entry in c, or -1.
func entryOf(c []Entry, host int32) int {
	return slices.IndexFunc(c, func(en Entry) bool { return en.Host == host })
}

// clockString writes a clock as the log would, for messages.
func clockString(hosts []string, c []Entry) string {
	entries := make([]string, len(c))
	for k, en := range c {
		entries[k] = strconv.Quote(hosts[en.Host]) + ":" + strconv.Itoa(int(en.Value))
	}
	return "{" + strings.Join(entries, ", ") + "}"
}

// parseClock reads a JSON object of host → non-negative integer. A clock
// written inside a quoted string with escaped quotes ({\"n1\":1}, as the
// TLA+ ShiViz module prints it) is unescaped first.
func parseClock(s string) (rawClock, error) {
	rc, err := parseClockJSON(s)
	if err != nil && strings.Contains(s, `\"`) {
		if unq, uerr := strconv.Unquote(`"` + s + `"`); uerr == nil {
			if rc2, err2 := parseClockJSON(unq); err2 == nil {
				return rc2, nil
			}
		}
	}
	return rc, err
}

func parseClockJSON(s string) (rawClock, error) {
	var rc rawClock
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return rc, fmt.Errorf("not a JSON object: %v", err)
	}
	if tok != json.Delim('{') {
		return rc, fmt.Errorf("not a JSON object")
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return rc, fmt.Errorf("bad JSON: %v", err)
		}
		key, _ := tok.(string) // the decoder refuses other keys
		tok, err = dec.Token()
		if err != nil {
			return rc, fmt.Errorf("bad JSON: %v", err)
		}
		num, ok := tok.(json.Number)
		if !ok {
			return rc, fmt.Errorf("the entry for %q is not a number", key)
		}
		v, err := strconv.ParseInt(string(num), 10, 32)
		if errors.Is(err, strconv.ErrRange) && !strings.HasPrefix(string(num), "-") {
			return rc, fmt.Errorf("the entry %q:%s is over the limit of %d events per host", key, num, math.MaxInt32)
		}
		if err != nil || v < 0 {
			return rc, fmt.Errorf("the entry %q:%s is not a non-negative integer", key, num)
		}
		if seen[key] {
			return rc, fmt.Errorf("host %q appears twice", key)
		}
		seen[key] = true
		rc.keys = append(rc.keys, key)
		rc.values = append(rc.values, int32(v))
	}
	if _, err := dec.Token(); err != nil {
		return rc, fmt.Errorf("bad JSON: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return rc, fmt.Errorf("text after the JSON object")
	}
	return rc, nil
}
