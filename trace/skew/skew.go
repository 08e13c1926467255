// Package skew makes the timestamps of a distributed execution, taken by
// the processes' own clocks, consistent with causality: it shifts each
// process's clock by the least amount that puts every receive at or
// after its send, the correction a span importer and a recorder merging
// per-process recordings from different machines both need.
package skew

import (
	"fmt"
	"maps"
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
	if res.Consistent = shifts(times, msgs, res.Shift); !res.Consistent {
		clear(res.Shift)
	}
	var err error
	res.Raised, err = raise(times, msgs, res.Shift)
	return res, err
}

func in(times [][]trace.Time, p, i int32) bool {
	return p >= 0 && int(p) < len(times) && i >= 0 && int(i) < len(times[p])
}

// shifts finds the least non-negative shifts satisfying every message by
// Bellman–Ford on the strongest constraint between each pair of
// processes; it reports false when a cycle of constraints has positive
// weight, which no shifts satisfy.
func shifts(times [][]trace.Time, msgs []Msg, shift []trace.Time) bool {
	need := map[int64]trace.Time{} // From<<32 | To → least shift difference
	for _, m := range msgs {
		w := times[m.From][m.Send] - times[m.To][m.Recv]
		k := int64(m.From)<<32 | int64(m.To)
		if old, ok := need[k]; !ok || w > old {
			need[k] = w
		}
	}
	keys := slices.Sorted(maps.Keys(need))
	for range len(times) + 1 {
		changed := false
		for _, k := range keys {
			from, to := k>>32, k&(1<<32-1)
			if s := shift[from] + need[k]; s > shift[to] {
				if s > trace.MaxTime {
					return false
				}
				shift[to], changed = s, true
			}
		}
		if !changed {
			return true
		}
	}
	return false
}

// raise shifts the times, then walks the events in causal order (Kahn's
// algorithm over each process's order and the messages), raising each
// to the latest time of its causes, and counts the events raised. The
// times are written back only when all is well: no time beyond MaxTime,
// no cycle.
func raise(times [][]trace.Time, msgs []Msg, shift []trace.Time) (int, error) {
	var flat []trace.Time // every event's time, process after process
	var first []bool      // whether the event is its process's first
	base := make([]int, len(times))
	for p, ts := range times {
		base[p] = len(flat)
		for i, t := range ts {
			if t += shift[p]; t > trace.MaxTime {
				return 0, fmt.Errorf("a time of process %d shifted by %s exceeds %s", p, shift[p], trace.MaxTimeText)
			}
			flat, first = append(flat, t), append(first, i == 0)
		}
	}
	recvs := make([][]int, len(flat))
	indeg := make([]int32, len(flat))
	for j := range indeg {
		if !first[j] {
			indeg[j] = 1
		}
	}
	for _, m := range msgs {
		s, r := base[m.From]+int(m.Send), base[m.To]+int(m.Recv)
		recvs[s] = append(recvs[s], r)
		indeg[r]++
	}
	var ready []int
	for j := range indeg {
		if indeg[j] == 0 {
			ready = append(ready, j)
		}
	}
	raised := make([]bool, len(flat))
	count, done := 0, 0
	for ; len(ready) > 0; done++ {
		j := ready[len(ready)-1]
		ready = ready[:len(ready)-1]
		next := recvs[j]
		if j+1 < len(flat) && !first[j+1] {
			next = append(next, j+1)
		}
		for _, k := range next {
			if flat[k] < flat[j] {
				if flat[k] = flat[j]; !raised[k] {
					raised[k] = true
					count++
				}
			}
			if indeg[k]--; indeg[k] == 0 {
				ready = append(ready, k)
			}
		}
	}
	if done < len(flat) {
		return 0, fmt.Errorf("the messages form a cycle with the order of the processes: some event receives a message its own past sends")
	}
	for p := range times {
		copy(times[p], flat[base[p]:])
	}
	return count, nil
}
