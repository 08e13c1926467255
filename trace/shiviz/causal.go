package shiviz

import (
	"cmp"
	"container/heap"
	"fmt"
	"slices"
	"strings"
)

// finish completes the execution just matched: resolves its clocks,
// checks them, infers its messages and orders it causally.
func (p *parser) finish(ex *Execution) error {
	if err := p.resolveClocks(ex); err != nil {
		return err
	}
	per, err := p.hostEvents(ex)
	if err != nil {
		return err
	}
	if p.lenient {
		p.repair(ex, per)
	}
	if err := p.inferEdges(ex, per); err != nil {
		return err
	}
	if path := ex.order(per); path != nil {
		return p.cycleError(ex, path)
	}
	return p.verify(ex, per)
}

// inferEdges finds each event's parents the way ShiViz's ModelGraph does:
// walking a host's events in clock order, an entry for another host that
// exceeds every value the host has seen names a candidate sender (the
// event of that host with that value); candidates another candidate
// already knows about are dropped, since their influence arrived through
// it. What remains are the messages this event receives.
func (p *parser) inferEdges(ex *Execution, perHost [][]int32) error {
	nh := len(ex.Hosts)
	seen := make([]int32, nh)
	cand := make([]int32, nh) // candidate value per host, 0 = none
	implied := make([]bool, nh)
	var candHosts []int32
	var seenHosts []int32
	for h, evs := range perHost {
		// Reset only what the previous host set: clearing all of seen
		// would cost hosts² on logs with many short-lived hosts.
		for _, x := range seenHosts {
			seen[x] = 0
		}
		seenHosts = seenHosts[:0]
		for _, e := range evs {
			ev := &ex.Events[e]
			candHosts = candHosts[:0]
			for _, en := range ev.Clock {
				if int(en.Host) == h || en.Value <= seen[en.Host] {
					continue
				}
				if seen[en.Host] == 0 {
					seenHosts = append(seenHosts, en.Host)
				}
				seen[en.Host] = en.Value
				if int(en.Value) > len(perHost[en.Host]) {
					return p.evErrf(&ex.Events[e], "the vector clock of host %q has %q:%d, but host %q has only %d event(s)", ex.Hosts[h], ex.Hosts[en.Host], en.Value, ex.Hosts[en.Host], len(perHost[en.Host]))
				}
				cand[en.Host] = en.Value
				candHosts = append(candHosts, en.Host)
			}
			for _, c := range candHosts {
				src := &ex.Events[perHost[c][cand[c]-1]]
				for _, en := range src.Clock {
					if en.Host != src.Host && cand[en.Host] == en.Value {
						implied[en.Host] = true
					}
				}
			}
			for _, c := range candHosts {
				if !implied[c] {
					src := perHost[c][cand[c]-1]
					ev.Parents = append(ev.Parents, src)
					ex.Events[src].Children = append(ex.Events[src].Children, e)
				}
				cand[c], implied[c] = 0, false
			}
		}
	}
	return nil
}

// order sets Order with Kahn's algorithm, always taking the ready event
// that comes first — in time when the execution is timed, then in the
// file — and sorts every event's edges in that order. It returns a cycle
// of happened-before, backwards in time, if there is no order.
func (ex *Execution) order(perHost [][]int32) []int32 {
	indeg := kahn(ex, perHost)
	if len(ex.Order) < len(ex.Events) {
		return cyclePath(ex, perHost, indeg)
	}
	pos := make([]int32, len(ex.Events))
	for k, e := range ex.Order {
		pos[e] = int32(k)
	}
	byPos := func(a, b int32) int { return cmp.Compare(pos[a], pos[b]) }
	for i := range ex.Events {
		slices.SortFunc(ex.Events[i].Parents, byPos)
		slices.SortFunc(ex.Events[i].Children, byPos)
	}
	return nil
}

// kahn sets ex.Order to as many events as happened-before lets it take
// and returns the in-degrees left, which are non-zero only on a cycle.
// An event's Own is its position on its host (1, 2, …).
func kahn(ex *Execution, perHost [][]int32) []int32 {
	indeg := make([]int32, len(ex.Events))
	h := &ready{ex: ex}
	for i := range ex.Events {
		ev := &ex.Events[i]
		if indeg[i] = int32(len(ev.Parents)); ev.Own > 1 {
			indeg[i]++
		}
		if indeg[i] == 0 {
			h.evs = append(h.evs, int32(i))
		}
	}
	heap.Init(h)
	ex.Order = make([]int32, 0, len(ex.Events))
	release := func(e int32) {
		if indeg[e]--; indeg[e] == 0 {
			heap.Push(h, e)
		}
	}
	for h.Len() > 0 {
		e := heap.Pop(h).(int32)
		ex.Order = append(ex.Order, e)
		if ev := &ex.Events[e]; int(ev.Own) < len(perHost[ev.Host]) {
			release(perHost[ev.Host][ev.Own])
		}
		for _, c := range ex.Events[e].Children {
			release(c)
		}
	}
	return indeg
}

// ready is a heap of events ready to be ordered, earliest first (by
// time when the execution is timed, then by index), which makes the
// order deterministic.
type ready struct {
	ex  *Execution
	evs []int32
}

func (h *ready) Len() int { return len(h.evs) }
func (h *ready) Less(i, j int) bool {
	a, b := h.evs[i], h.evs[j]
	if ta, tb := h.ex.Events[a].Time, h.ex.Events[b].Time; h.ex.Timed && ta != tb {
		return ta < tb
	}
	return a < b
}
func (h *ready) Swap(i, j int) { h.evs[i], h.evs[j] = h.evs[j], h.evs[i] }
func (h *ready) Push(x any)    { h.evs = append(h.evs, x.(int32)) }
func (h *ready) Pop() any {
	x := h.evs[len(h.evs)-1]
	h.evs = h.evs[:len(h.evs)-1]
	return x
}

// cyclePath finds a cycle among the events Kahn's algorithm left (those
// with indeg > 0), backwards in time, to show the user: every event left
// has a predecessor left too, so walk predecessors until one repeats.
func cyclePath(ex *Execution, perHost [][]int32, indeg []int32) []int32 {
	e := int32(slices.IndexFunc(indeg, func(d int32) bool { return d > 0 }))
	visited := map[int32]int{}
	var path []int32
	for {
		if k, ok := visited[e]; ok {
			return path[k:]
		}
		visited[e] = len(path)
		path = append(path, e)
		ev := &ex.Events[e]
		if q := ev.Own - 2; q >= 0 && indeg[perHost[ev.Host][q]] > 0 {
			e = perHost[ev.Host][q]
			continue
		}
		for _, q := range ev.Parents {
			if indeg[q] > 0 {
				e = q
				break
			}
		}
	}
}

// CycleError is Deskew's refusal of events that happened-before orders
// in a cycle: Path is the cycle forwards in time, from its event of the
// least index, each event its predecessor's successor (a host's next
// event or a receipt of a send) and the last's successor the first.
type CycleError struct {
	Path []int32
	msg  string
}

func (e *CycleError) Error() string { return e.msg }

// newCycleError is the CycleError of path, a cycle backwards in time
// (cyclePath).
func newCycleError(ex *Execution, path []int32) *CycleError {
	fwd := slices.Clone(path)
	slices.Reverse(fwd)
	first := slices.Index(fwd, slices.Min(fwd))
	fwd = append(fwd[first:], fwd[:first]...)
	ev := &ex.Events[path[0]]
	return &CycleError{Path: fwd, msg: fmt.Sprintf("the messages make a cycle of happened-before through %s:%d", shown(ex.Hosts[ev.Host]), ev.Own)}
}

// cycleError reports the cycle path (which runs backwards in time)
// forwards, naming each event by host, clock value and line.
func (p *parser) cycleError(ex *Execution, path []int32) error {
	var b strings.Builder
	for k := len(path) - 1; k >= 0; k-- {
		ev := &ex.Events[path[k]]
		fmt.Fprintf(&b, "%s:%d (line %d) -> ", shown(ex.Hosts[ev.Host]), ev.Own, ev.ClockLine)
	}
	first := &ex.Events[path[len(path)-1]]
	fmt.Fprintf(&b, "%s:%d", shown(ex.Hosts[first.Host]), first.Own)
	return p.evErrf(first, "no order of events can explain these vector clocks: they make a cycle of happened-before %s", b.String())
}

// verify checks, in causal order, that every clock is exactly what the
// vector clock algorithm gives: the merge of the host's previous clock and
// the clocks of the messages received, with the own entry counted. It
// works on the sparse clocks, so its cost is linear in the log's size.
func (p *parser) verify(ex *Execution, perHost [][]int32) error {
	exp := make([]int32, len(ex.Hosts)) // the clock expected, over the hosts touched
	var touched []int32
	merge := func(c []Entry) {
		for _, en := range c {
			if exp[en.Host] == 0 {
				touched = append(touched, en.Host)
			}
			exp[en.Host] = max(exp[en.Host], en.Value)
		}
	}
	for _, e := range ex.Order {
		ev := &ex.Events[e]
		if ev.Own > 1 {
			merge(ex.Events[perHost[ev.Host][ev.Own-2]].Clock)
		}
		for _, q := range ev.Parents {
			merge(ex.Events[q].Clock)
		}
		merge([]Entry{{ev.Host, ev.Own}})
		if len(touched) != len(ev.Clock) || slices.ContainsFunc(ev.Clock, func(en Entry) bool { return exp[en.Host] != en.Value }) {
			hint := " (--lenient repairs a clock that forgets what its host knew before)"
			if p.lenient {
				hint = ""
			}
			return p.evErrf(ev, "host %q has the impermissible vector clock %s; from its previous event and the messages it receives it should be %s%s",
				ex.Hosts[ev.Host], clockString(ex.Hosts, ev.Clock), clockString(ex.Hosts, expected(ev.Clock, exp, touched)), hint)
		}
		for _, h := range touched {
			exp[h] = 0
		}
		touched = touched[:0]
	}
	return nil
}

// expected lists the expected clock exp (over the hosts touched) in the
// order the event's own clock lists its hosts, then the missing ones in
// host order, so that the two read side by side. It leaves exp negated.
func expected(clock []Entry, exp []int32, touched []int32) []Entry {
	want := make([]Entry, 0, len(touched))
	for _, en := range clock {
		if exp[en.Host] > 0 {
			want = append(want, Entry{en.Host, exp[en.Host]})
			exp[en.Host] = -exp[en.Host]
		}
	}
	slices.Sort(touched)
	for _, h := range touched {
		if exp[h] > 0 {
			want = append(want, Entry{h, exp[h]})
		}
	}
	return want
}
