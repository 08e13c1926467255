package gentest

import (
	"fmt"
	"math/rand"
	"sort"

	"github.com/ckpt-dev/ckpt/trace/tracetest"

	"github.com/ckpt-dev/ckpt/trace"
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
	sort.SliceStable(evs, func(a, b int) bool { return evs[a].t < evs[b].t })
	names := make([]string, procs)
	for p := range names {
		names[p] = fmt.Sprintf("P%d", p)
	}
	ms := func(t int64) float64 { return float64(t) / 1000 }
	b := tracetest.NewBuilder(names...).Params(trace.Params{RestartDelay: 50 * trace.Second / 1000, ControlDelay: 20 * trace.Second / 1000, DefaultDelay: 60 * trace.Second / 1000})
	for _, e := range evs {
		switch e.kind {
		case trace.Send:
			b.Send(ms(e.t), names[e.p], names[e.to], e.msg)
		case trace.Recv:
			b.Recv(ms(e.t), names[e.p], e.msg)
		case trace.Internal:
			b.Internal(ms(e.t), names[e.p])
		case trace.Checkpoint:
			b.Checkpoint(ms(e.t), names[e.p])
		case trace.Flush:
			b.Flush(ms(e.t), names[e.p])
		case trace.Fail:
			b.FailDown(ms(e.t), names[e.p], ms(e.down))
		}
	}
	tr, err := b.Build()
	if err != nil {
		panic(fmt.Sprintf("gentest: seeded trace %d invalid: %v", seed, err))
	}
	tr.Name = fmt.Sprintf("seed-%d", seed)
	return tr
}

// seededEvent is one event of a seeded trace, times in milliseconds.
type seededEvent struct {
	t    int64
	kind trace.Kind
	p    int
	to   int
	msg  string
	down int64
}

// seededEvents draws a seeded trace's events, unsorted: the ops on each
// process's clock, then the ticks and flushes up to the last op, then the
// failures.
func seededEvents(rng *rand.Rand, procs, ops, failures int) []seededEvent {
	var evs []seededEvent
	clock := make([]int64, procs)
	for i := 0; i < ops; i++ {
		p := rng.Intn(procs)
		clock[p] += 1 + int64(rng.Intn(40))
		if procs > 1 && rng.Intn(3) != 0 {
			to := rng.Intn(procs - 1)
			if to >= p {
				to++
			}
			msg := fmt.Sprintf("m%d", i)
			evs = append(evs, seededEvent{t: clock[p], kind: trace.Send, p: p, to: to, msg: msg})
			if rng.Intn(10) != 0 {
				evs = append(evs, seededEvent{t: clock[p] + 1 + int64(rng.Intn(80)), kind: trace.Recv, p: to, msg: msg})
			}
		} else {
			evs = append(evs, seededEvent{t: clock[p], kind: trace.Internal, p: p})
		}
	}
	end := int64(1)
	for _, e := range evs {
		end = max(end, e.t)
	}
	for p := 0; p < procs; p++ {
		period := 20 + int64(rng.Intn(100))
		for t := period; t < end; t += period {
			evs = append(evs, seededEvent{t: t, kind: trace.Checkpoint, p: p})
		}
		if rng.Intn(2) == 0 {
			evs = append(evs, seededEvent{t: 1 + rng.Int63n(end), kind: trace.Flush, p: p})
		}
	}
	for i := 0; i < failures; i++ {
		evs = append(evs, seededEvent{t: 1 + rng.Int63n(end), kind: trace.Fail, p: rng.Intn(procs), down: 10 + rng.Int63n(200)})
	}
	return evs
}
