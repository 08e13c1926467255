package gentest

import (
	"fmt"
	"math/rand"
	"sort"

	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen"
)

// Seeded returns the trace of seed, for reproducible sweeps over
// recovery-dense executions: procs processes doing ops program
// operations in total on their own clocks (sends to random peers with
// random delays, one in ten never received, internal ops), timer ticks
// at independent rates, a few flushes, and failures failures with their
// own down times, which often overlap. Times are whole milliseconds: op
// gaps 1–40 ms, delays 1–80 ms, tick periods 20–119 ms, down times
// 10–209 ms against a restart delay of 50 ms and a control delay of
// 20 ms. The trace is named "seed-SEED".
//
// Why a regime of its own rather than gen on a Config drawn from the
// seed, or Trace's steps drawn from it: on MS's sweep (seeds 1–150, 2–5
// processes, 20–69 ops, 1–4 failures) Seeded's traces show the textbook
// variant's orphans on 75 seeds and the test-only mutants no-forced,
// no-log and replay-all on 136, 102 and 92; gen with Config().Example
// shows them on 0, 10, 13 and 7, Trace's steps on 9, 73, 19 and 30.
func Seeded(seed uint64, procs, ops, failures int) *trace.Trace {
	evs := seededEvents(rand.New(rand.NewSource(int64(seed))), procs, ops, failures)
	// A receive follows its send in file order (its time is strictly
	// later), and a process's ops keep the order of their times.
	sort.SliceStable(evs, func(a, b int) bool { return evs[a].T < evs[b].T })
	tr := &trace.Trace{Name: fmt.Sprintf("seed-%d", seed), Events: evs,
		Params: trace.Params{RestartDelay: 50 * ms, ControlDelay: 20 * ms, DefaultDelay: 60 * ms}}
	for p := range procs {
		tr.Processes = append(tr.Processes, gen.ProcName(p))
	}
	// Messages are numbered in file order, as the decoder numbers them;
	// until then an event's Msg is the op that sent it (message "mOP").
	index := map[int32]int32{}
	for i := range evs {
		if e := &evs[i]; e.Kind == trace.Send {
			index[e.Msg] = int32(len(tr.Msgs))
			tr.Msgs = append(tr.Msgs, fmt.Sprintf("m%d", e.Msg))
			e.Msg = index[e.Msg]
		} else if e.Kind == trace.Recv {
			e.Msg = index[e.Msg]
		}
	}
	if err := trace.Validate(tr); err != nil {
		panic(fmt.Sprintf("gentest: seeded trace %d invalid: %v", seed, err))
	}
	return tr
}

// ms is a millisecond, the unit of a seeded trace's times.
const ms = trace.Second / 1000

// seededEvents draws a seeded trace's events, unsorted: the ops on each
// process's clock, then the ticks and flushes up to the last op, then the
// failures. A send's and a receive's Msg is the op that sent it.
func seededEvents(rng *rand.Rand, procs, ops, failures int) []trace.Event {
	var evs []trace.Event
	add := func(t int64, kind trace.Kind, p, to, msg int, down int64) {
		evs = append(evs, trace.Event{T: trace.Time(t) * ms, Kind: kind, P: int32(p), To: int32(to), Msg: int32(msg), Down: trace.Time(down) * ms})
	}
	none := int(trace.None)
	clock := make([]int64, procs)
	end := int64(1)
	for i := 0; i < ops; i++ {
		p := rng.Intn(procs)
		clock[p] += 1 + int64(rng.Intn(40))
		end = max(end, clock[p])
		if procs > 1 && rng.Intn(3) != 0 {
			to := rng.Intn(procs - 1)
			if to >= p {
				to++
			}
			add(clock[p], trace.Send, p, to, i, 0)
			if rng.Intn(10) != 0 {
				recv := clock[p] + 1 + int64(rng.Intn(80))
				end = max(end, recv)
				add(recv, trace.Recv, to, none, i, 0)
			}
		} else {
			add(clock[p], trace.Internal, p, none, none, 0)
		}
	}
	for p := 0; p < procs; p++ {
		period := 20 + int64(rng.Intn(100))
		for t := period; t < end; t += period {
			add(t, trace.Checkpoint, p, none, none, 0)
		}
		if rng.Intn(2) == 0 {
			add(1+rng.Int63n(end), trace.Flush, p, none, none, 0)
		}
	}
	for i := 0; i < failures; i++ {
		t, p := 1+rng.Int63n(end), rng.Intn(procs)
		add(t, trace.Fail, p, none, none, 10+rng.Int63n(200))
	}
	return evs
}
