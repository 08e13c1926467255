// Package gentest is the one source of random execution traces for the
// project's tests: pgregory.net/rapid generators of traces and of
// configurations of package gen, and seeded traces for reproducible
// sweeps.
//
// Trace draws the structure of a trace — a list of steps, each an op or
// an environment event of a chosen process after a chosen gap — rather
// than a seed for package gen, so that rapid can shrink a failing trace
// step by step: deleting a step, or lowering one of its numbers, always
// leaves a valid trace, and the smallest values mean the simplest
// events (an internal op, the first process, no gap). Mixed adds the
// long executions of package gen, where violations live; Seeded draws a
// recovery-dense regime of its own from a seed.
package gentest

import (
	"pgregory.net/rapid"

	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen"
)

// Limits of the traces Trace draws.
const (
	MinProcs    = 2
	MaxProcs    = 6
	MaxSteps    = 60 // ops, ticks and flushes
	MaxFailures = 3
	// Unit is the time quantum of step gaps; gaps are 0–10 units, so a
	// failure often falls within another's restart delay (concurrent
	// failures) and ties are common.
	Unit    = trace.Second / 10
	maxGap  = 10
	kindMax = 9
)

// step is one drawn step. kind 0–1 internal, 2–4 send, 5–7 recv,
// 8 checkpoint, 9 flush: ops are about four times as frequent as timer
// events, and shrinking a kind towards 0 simplifies it to an internal op.
type step struct {
	kind int
	p    int // the process (ignored by recv, which happens at the receiver)
	arg  int // send: receiver choice; recv: which pending message
	gap  int // units after the previous step
}

type failure struct {
	at   int // the failure comes before step at (len(steps): at the end)
	p    int
	down int // 0: the restart delay; else down·0.25 s
}

// Trace draws a small valid trace: 2–6 processes, up to 60 steps (sends,
// receives, internal ops, checkpoint ticks, flushes), 0–3 failures that
// are often concurrent, sometimes messages left unreceived, and varied
// params.
func Trace() *rapid.Generator[*trace.Trace] {
	return rapid.Custom(func(t *rapid.T) *trace.Trace {
		n := rapid.IntRange(MinProcs, MaxProcs).Draw(t, "procs")
		steps := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) step {
			return step{
				kind: rapid.IntRange(0, kindMax).Draw(t, "kind"),
				p:    rapid.IntRange(0, n-1).Draw(t, "p"),
				arg:  rapid.IntRange(0, 2*MaxSteps).Draw(t, "arg"),
				gap:  rapid.IntRange(0, maxGap).Draw(t, "gap"),
			}
		}), 0, MaxSteps).Draw(t, "steps")
		fails := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) failure {
			return failure{
				at:   rapid.IntRange(0, len(steps)).Draw(t, "at"),
				p:    rapid.IntRange(0, n-1).Draw(t, "p"),
				down: rapid.IntRange(0, 4).Draw(t, "down"),
			}
		}), 0, MaxFailures).Draw(t, "failures")
		drain := rapid.Bool().Draw(t, "drain")
		params := trace.Params{
			RestartDelay: rapid.SampledFrom([]trace.Time{0, trace.Second / 2, 2 * trace.Second}).Draw(t, "restart_delay"),
			ControlDelay: rapid.SampledFrom([]trace.Time{0, trace.Second / 10, trace.Second}).Draw(t, "control_delay"),
		}
		tr, err := build(n, steps, fails, drain, params)
		if err != nil {
			t.Fatalf("gentest built an invalid trace: %v", err)
		}
		return tr
	})
}

// build turns drawn steps into a validated trace.
func build(n int, steps []step, fails []failure, drain bool, params trace.Params) (*trace.Trace, error) {
	tr := &trace.Trace{Params: params}
	for i := range n {
		tr.Processes = append(tr.Processes, gen.ProcName(i))
	}
	type pending struct {
		msg int32
		to  int32
	}
	var inFlight []pending
	var now trace.Time
	add := func(kind trace.Kind, p, to, msg int32, down trace.Time) {
		tr.Events = append(tr.Events, trace.Event{T: now, Kind: kind, P: p, To: to, Msg: msg, Down: down})
	}
	fail := func(f failure) {
		var down trace.Time
		if f.down > 0 {
			down = trace.Time(f.down) * 5 * Unit / 2
		}
		add(trace.Fail, int32(f.p), trace.None, trace.None, down)
	}
	for i, s := range steps {
		for _, f := range fails {
			if f.at == i {
				fail(f)
			}
		}
		now += trace.Time(s.gap) * Unit
		p := int32(s.p)
		switch {
		case s.kind >= 2 && s.kind <= 4:
			to := int32(s.arg % (n - 1))
			if to >= p {
				to++
			}
			msg := int32(len(tr.Msgs))
			tr.Msgs = append(tr.Msgs, gen.MsgName(msg))
			add(trace.Send, p, to, msg, 0)
			inFlight = append(inFlight, pending{msg, to})
		case s.kind >= 5 && s.kind <= 7 && len(inFlight) > 0:
			j := s.arg % len(inFlight)
			m := inFlight[j]
			inFlight = append(inFlight[:j], inFlight[j+1:]...)
			add(trace.Recv, m.to, trace.None, m.msg, 0)
		case s.kind == 8:
			add(trace.Checkpoint, p, trace.None, trace.None, 0)
		case s.kind == 9:
			add(trace.Flush, p, trace.None, trace.None, 0)
		default:
			add(trace.Internal, p, trace.None, trace.None, 0)
		}
	}
	for _, f := range fails {
		if f.at >= len(steps) {
			fail(f)
		}
	}
	if drain {
		for _, m := range inFlight {
			now += Unit
			add(trace.Recv, m.to, trace.None, m.msg, 0)
		}
	}
	if err := trace.Validate(tr); err != nil {
		return nil, err
	}
	return tr, nil
}

// Config draws small generator configurations covering every knob: 1–6
// processes, up to 200 ops, every topology and delay family, per-process
// tick lists, flushes, 0–3 failures (concurrent or not), in-transit
// messages, down times and params.
func Config() *rapid.Generator[gen.Config] {
	return rapid.Custom(func(t *rapid.T) gen.Config {
		c := gen.DefaultConfig()
		c.Procs = rapid.IntRange(1, MaxProcs).Draw(t, "procs")
		c.Events = rapid.IntRange(0, 200).Draw(t, "events")
		c.Seed = rapid.Uint64().Draw(t, "seed")
		c.SendRatio = rapid.Float64Range(0, 1).Draw(t, "send_ratio")
		c.Topology = rapid.SampledFrom([]gen.Topology{gen.Complete, gen.Ring, gen.Star, gen.Random}).Draw(t, "topology")
		c.Delay = dist().Draw(t, "delay")
		c.OpGap = dist().Draw(t, "op_gap")
		c.Ticks = rapid.SliceOfN(rapid.Map(rapid.IntRange(0, 20), halfSeconds), 0, c.Procs).Draw(t, "ticks")
		c.FlushEvery = halfSeconds(rapid.IntRange(0, 10).Draw(t, "flush_every"))
		c.Failures = rapid.IntRange(0, MaxFailures).Draw(t, "failures")
		c.Concurrent = rapid.Bool().Draw(t, "concurrent")
		if c.Procs > 1 {
			c.InTransit = rapid.IntRange(0, min(c.Events, 3)).Draw(t, "in_transit")
		}
		c.Down = halfSeconds(rapid.IntRange(0, 4).Draw(t, "down"))
		c.Params.RestartDelay = halfSeconds(rapid.IntRange(0, 4).Draw(t, "restart_delay"))
		c.Params.ControlDelay = halfSeconds(rapid.IntRange(0, 2).Draw(t, "control_delay"))
		c.Resolution = rapid.SampledFrom([]trace.Time{gen.DefaultResolution, 1, trace.Second / 10}).Draw(t, "resolution")
		if err := c.Validate(); err != nil {
			t.Fatalf("gentest drew an invalid config: %v", err)
		}
		return c
	})
}

func halfSeconds(k int) trace.Time { return trace.Time(k) * trace.Second / 2 }

// dist draws a delay distribution: fixed, uniform or exponential, with
// parameters in tenths of a second.
func dist() *rapid.Generator[gen.Dist] {
	return rapid.Custom(func(t *rapid.T) gen.Dist {
		tenth := func(k int) trace.Time { return trace.Time(k) * trace.Second / 10 }
		switch rapid.IntRange(0, 2).Draw(t, "family") {
		case 0:
			return gen.Dist{Kind: gen.Fixed, A: tenth(rapid.IntRange(0, 20).Draw(t, "d"))}
		case 1:
			a := rapid.IntRange(0, 20).Draw(t, "a")
			b := rapid.IntRange(a, 40).Draw(t, "b")
			return gen.Dist{Kind: gen.Uniform, A: tenth(a), B: tenth(b)}
		}
		return gen.Dist{Kind: gen.Exp, A: tenth(rapid.IntRange(1, 30).Draw(t, "mean"))}
	})
}
