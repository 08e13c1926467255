// Package skew makes the timestamps of a distributed execution, taken by
// the processes' own clocks, consistent with causality: it shifts each
// process's clock by the least amount that puts every receive at or
// after its send, the correction a span importer and a recorder merging
// per-process recordings from different machines both need.
package skew

import (
	"fmt"
	"slices"

	"github.com/ckpt-dev/ckpt/trace"
)

// Msg is one message of the execution: event Send of process From sends
// it and event Recv of process To receives it (indexes into the times
// of those processes).
type Msg struct {
	From, Send int32
	To, Recv   int32
}

// Result says what Deskew changed.
type Result struct {
	// Shift[p] was added to every time of process p. Shifts are never
	// negative, and each is the least that any consistent choice of
	// shifts needs; a process whose clock agrees with its messages keeps
	// 0. All are 0 when Consistent is false.
	Shift []trace.Time
	// Consistent is false when no shift per process puts every receive
	// at or after its send: the clocks drift, or disagree in both
	// directions between two processes.
	Consistent bool
	// Raised counts the events that were still earlier than one of their
	// causes (the previous event of their process, or the send of a
	// message they receive) after the shifts, and were raised to it.
	Raised int
}

// Deskew rewrites times so that they are consistent with causality:
// non-decreasing along each process, and no receive earlier than its
// send. times[p] holds process p's event times in the process's order,
// each by p's own clock; msgs are the messages between those events.
//
// It first adds to each process's times the least non-negative shift
// that puts every receive at or after its send — the longest paths of
// the constraints shift[To]−shift[From] ≥ sent−received, computed by
// Bellman–Ford over the processes. When those constraints contradict
// each other (Consistent false) no process is shifted. Then, in causal
// order, any event still earlier than one of its causes is raised to
// the latest of them, and counted in Raised; with consistent clocks
// that are non-decreasing per process, none is.
//
// An index out of range, a message received before it is sent by the
// order of the processes (a cycle of happened-before), or a shifted time
// beyond trace.MaxTime is an error, and times are then left as given.
func Deskew(times [][]trace.Time, msgs []Msg) (Result, error) {
	res := Result{Shift: make([]trace.Time, len(times))}
	for i, m := range msgs {
		if !in(times, m.From, m.Send) || !in(times, m.To, m.Recv) {
			return res, fmt.Errorf("message %d joins events that do not exist", i)
		}
	}
	res.Consistent = shifts(times, msgs, res.Shift)
	if !res.Consistent {
		clear(res.Shift)
	}
	for p, ts := range times {
		for _, t := range ts {
			if t+res.Shift[p] > trace.MaxTime {
				return res, fmt.Errorf("a time of process %d shifted by %s exceeds %s", p, res.Shift[p], trace.MaxTimeText)
			}
		}
	}
	order, err := causalOrder(times, msgs)
	if err != nil {
		return res, err
	}
	for p := range times {
		for i := range times[p] {
			times[p][i] += res.Shift[p]
		}
	}
	res.Raised = raise(times, msgs, order)
	return res, nil
}

func in(times [][]trace.Time, p, i int32) bool {
	return p >= 0 && int(p) < len(times) && i >= 0 && int(i) < len(times[p])
}

// shifts finds the least non-negative shifts satisfying every message by
// Bellman–Ford on the strongest constraint between each pair of
// processes; it reports false when a cycle of constraints has positive
// weight, which no shifts satisfy.
func shifts(times [][]trace.Time, msgs []Msg, shift []trace.Time) bool {
	need := map[[2]int32]trace.Time{}
	for _, m := range msgs {
		w := times[m.From][m.Send] - times[m.To][m.Recv]
		k := [2]int32{m.From, m.To}
		if old, ok := need[k]; !ok || w > old {
			need[k] = w
		}
	}
	keys := make([][2]int32, 0, len(need))
	for k := range need {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b [2]int32) int { return cmp2(a, b) })
	for range len(times) + 1 {
		changed := false
		for _, k := range keys {
			if s := shift[k[0]] + need[k]; s > shift[k[1]] {
				if s > trace.MaxTime {
					return false
				}
				shift[k[1]], changed = s, true
			}
		}
		if !changed {
			return true
		}
	}
	return false
}

func cmp2(a, b [2]int32) int {
	if a[0] != b[0] {
		return int(a[0] - b[0])
	}
	return int(a[1] - b[1])
}

// event names event i of process p.
type event struct{ p, i int32 }

// causalOrder lists every event in an order that respects each
// process's order and every message, by Kahn's algorithm.
func causalOrder(times [][]trace.Time, msgs []Msg) ([]event, error) {
	indeg := make([][]int32, len(times))
	total := 0
	for p, ts := range times {
		indeg[p] = make([]int32, len(ts))
		for i := 1; i < len(ts); i++ {
			indeg[p][i] = 1
		}
		total += len(ts)
	}
	recvs := byReceive(msgs, indeg)
	var order, ready []event
	for p := range times {
		if len(times[p]) > 0 && indeg[p][0] == 0 {
			ready = append(ready, event{int32(p), 0})
		}
	}
	for len(ready) > 0 {
		e := ready[len(ready)-1]
		ready = ready[:len(ready)-1]
		order = append(order, e)
		release := func(n event) {
			if indeg[n.p][n.i]--; indeg[n.p][n.i] == 0 {
				ready = append(ready, n)
			}
		}
		if int(e.i)+1 < len(times[e.p]) {
			release(event{e.p, e.i + 1})
		}
		for _, n := range recvs[e] {
			release(n)
		}
	}
	if len(order) < total {
		return nil, fmt.Errorf("the messages form a cycle with the order of the processes: some event receives a message its own past sends")
	}
	return order, nil
}

// byReceive maps each sending event to the events receiving its
// messages, counting those receives in indeg.
func byReceive(msgs []Msg, indeg [][]int32) map[event][]event {
	recvs := make(map[event][]event, len(msgs))
	for _, m := range msgs {
		s := event{m.From, m.Send}
		recvs[s] = append(recvs[s], event{m.To, m.Recv})
		indeg[m.To][m.Recv]++
	}
	return recvs
}

// raise walks the events in causal order, raising each to the latest
// time of its causes, and counts the events raised.
func raise(times [][]trace.Time, msgs []Msg, order []event) int {
	from := make(map[event][]event, len(msgs))
	for _, m := range msgs {
		r := event{m.To, m.Recv}
		from[r] = append(from[r], event{m.From, m.Send})
	}
	raised := 0
	for _, e := range order {
		t := times[e.p][e.i]
		latest := t
		if e.i > 0 {
			latest = max(latest, times[e.p][e.i-1])
		}
		for _, s := range from[e] {
			latest = max(latest, times[s.p][s.i])
		}
		if latest > t {
			times[e.p][e.i] = latest
			raised++
		}
	}
	return raised
}
