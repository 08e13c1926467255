// Package gen generates random, valid ckpt/trace@1 execution traces
// (SPEC §10): a discrete-event model of processes that compute, send and
// receive over a chosen topology with random delays, plus periodic
// checkpoint timer ticks, log flushes and failures.
//
// Generation is deterministic (a PCG seeded from Config.Seed, never the
// global source) and streaming: events are produced in file order into a
// Sink, with memory proportional to the processes and the messages in
// flight, never to the number of events. See docs/generator.md for the
// time model and the choices the specification leaves open.
package gen

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ckpt-dev/ckpt/trace"
)

// Topology names who may send to whom.
type Topology string

// Topologies of SPEC §10.
const (
	// Complete lets every process send to every other one.
	Complete Topology = "complete"
	// Ring lets process i send to its neighbours i-1 and i+1 (mod N) in
	// the processes list, which is also PK's ring order.
	Ring Topology = "ring"
	// Star makes process 0 the hub: it sends to anyone, the others only
	// to it.
	Star Topology = "star"
	// Random draws a connected undirected graph from the seed: a random
	// spanning tree plus about one extra edge per process.
	Random Topology = "random"
)

// ParseTopology returns the topology named s.
func ParseTopology(s string) (Topology, error) {
	switch t := Topology(s); t {
	case Complete, Ring, Star, Random:
		return t, nil
	}
	return "", fmt.Errorf("unknown topology %q (want complete, ring, star or random)", s)
}

// DistKind is the family of a Dist.
type DistKind uint8

// Distribution families.
const (
	// DistNone is the zero Dist, which Config treats as "use the default".
	DistNone DistKind = iota
	// Exp is exponential with mean A ("exp:MEAN").
	Exp
	// Uniform is uniform on [A, B] ("uniform:A:B").
	Uniform
	// Fixed is always A ("fixed:D").
	Fixed
)

// Dist is a distribution of non-negative durations, written in seconds
// as exp:MEAN, uniform:A:B or fixed:D.
type Dist struct {
	Kind DistKind
	A, B trace.Time
}

// ParseDist parses exp:MEAN, uniform:A:B or fixed:D (seconds).
func ParseDist(s string) (Dist, error) {
	parts := strings.Split(s, ":")
	bad := func(why string) (Dist, error) {
		return Dist{}, fmt.Errorf("bad distribution %q: %s (want exp:MEAN, uniform:A:B or fixed:D, in seconds)", s, why)
	}
	nums := make([]trace.Time, len(parts)-1)
	for i, p := range parts[1:] {
		v, err := ParseSeconds(p)
		if err != nil {
			return bad(err.Error())
		}
		nums[i] = v
	}
	switch parts[0] {
	case "exp":
		if len(nums) != 1 {
			return bad("exp takes one parameter")
		}
		if nums[0] == 0 {
			return bad("the mean must be > 0")
		}
		return Dist{Kind: Exp, A: nums[0]}, nil
	case "uniform":
		if len(nums) != 2 {
			return bad("uniform takes two parameters")
		}
		if nums[0] > nums[1] {
			return bad("A must not exceed B")
		}
		return Dist{Kind: Uniform, A: nums[0], B: nums[1]}, nil
	case "fixed":
		if len(nums) != 1 {
			return bad("fixed takes one parameter")
		}
		return Dist{Kind: Fixed, A: nums[0]}, nil
	}
	return bad("unknown family " + strconv.Quote(parts[0]))
}

// String writes d in the syntax ParseDist reads.
func (d Dist) String() string {
	switch d.Kind {
	case Exp:
		return "exp:" + d.A.String()
	case Uniform:
		return "uniform:" + d.A.String() + ":" + d.B.String()
	case Fixed:
		return "fixed:" + d.A.String()
	}
	return ""
}

// high is a duration that samples rarely exceed (all of them for fixed
// and uniform, 99% for exp), used to size recovery windows.
func (d Dist) high() trace.Time {
	switch d.Kind {
	case Exp:
		return trace.Time(float64(d.A) * math.Log(100))
	case Uniform:
		return d.B
	}
	return d.A
}

// ParseSeconds parses a finite, non-negative number of seconds.
func ParseSeconds(s string) (trace.Time, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	t, ok := trace.FromSeconds(f)
	if !ok {
		return 0, fmt.Errorf("%q is not a finite number of seconds ≥ 0", s)
	}
	return t, nil
}

// ParseTicks parses a checkpoint tick period or a comma-separated list of
// them (seconds; 0 means "no timer" for that process).
func ParseTicks(s string) ([]trace.Time, error) {
	var out []trace.Time
	for _, p := range strings.Split(s, ",") {
		v, err := ParseSeconds(p)
		if err != nil {
			return nil, fmt.Errorf("bad tick period: %v", err)
		}
		out = append(out, v)
	}
	return out, nil
}

// Config holds every knob of the generator. Start from DefaultConfig: a
// zero Delay, OpGap, Resolution or Topology means its default, but zero
// counts and ratios are taken literally.
type Config struct {
	// Procs is the number of processes, named P0 … P(Procs-1).
	Procs int
	// Events is the number of program operations (send, recv,
	// internal) in the trace; environment events come on top.
	Events int
	// Seed selects the execution; equal configs and seeds give
	// byte-identical traces.
	Seed uint64
	// SendRatio is the probability that an op a process starts on its
	// own (not a receive, which happens when a message arrives) is a
	// send rather than an internal op. In the steady state sends and
	// receives balance, so 0.5 gives about a third of each kind.
	SendRatio float64
	// Topology restricts the receivers of sends.
	Topology Topology
	// Delay is the network delay of a message: its recv is at exactly
	// send time + a sample.
	Delay Dist
	// OpGap is the time between consecutive ops a process starts on its
	// own.
	OpGap Dist
	// Ticks are the checkpoint timer periods, at most one per process,
	// cycled over the processes (P_i gets Ticks[i mod len]); ticks fall
	// at multiples of the period (a longer list is refused: its extra
	// periods would never be used).
	// A period of 0, or an empty list, means no timer.
	Ticks []trace.Time
	// TickInterval, when set, replaces Ticks: every process's timer
	// waits a fresh sample between consecutive ticks (the first one a
	// sample after 0), so basic checkpoint intervals vary — the classic
	// workload of the checkpointing literature draws them uniformly from
	// [0.5·ICT, 1.5·ICT] (uniform:A:B). Samples come from their own
	// random stream: the execution (ops, messages, delays) is the same as
	// with any other ticks. A sample quantized to 0 counts as one
	// Resolution.
	TickInterval Dist
	// FlushEvery is the period of each process's log flush; P_i flushes
	// at k·FlushEvery + i·FlushEvery/Procs for k ≥ 1. 0 means never.
	FlushEvery trace.Time
	// Failures is the number of fail events.
	Failures int
	// Concurrent lets a failure fall inside another failure's recovery
	// window (about half of them do); otherwise consecutive failures are
	// at least that window apart (recoveryWindow).
	Concurrent bool
	// InTransit is the number of messages sent and never received.
	InTransit int
	// Down is the "down" of every fail event; 0 leaves it out, so the
	// restart_delay in force applies.
	Down trace.Time
	// Params are written to the trace header; zero fields are left out.
	Params trace.Params
	// MaxEvents, when positive, stops generation with ErrTooManyEvents
	// once the trace has more events: ticks and flushes fill the whole
	// span of the run, so a tiny tick period or a huge delay turns a few
	// ops into billions of events.
	MaxEvents int64
	// Resolution is the quantum of sampled durations (delays, gaps,
	// failure offsets), which keeps times short in JSON.
	Resolution trace.Time
}

// DefaultResolution is the resolution of DefaultConfig: milliseconds.
const DefaultResolution = trace.Second / 1000

// DefaultConfig returns the generator's defaults: 4 processes, 1000 ops,
// seed 1, half sends, complete topology, exp:1 delays and op gaps, ticks
// every 10 s, flushes every 5 s, no failures, millisecond resolution.
func DefaultConfig() Config {
	return Config{
		Procs:      4,
		Events:     1000,
		Seed:       1,
		SendRatio:  0.5,
		Topology:   Complete,
		Delay:      Dist{Kind: Exp, A: trace.Second},
		OpGap:      Dist{Kind: Exp, A: trace.Second},
		Ticks:      []trace.Time{10 * trace.Second},
		FlushEvery: 5 * trace.Second,
		Resolution: DefaultResolution,
	}
}

// normalized fills the zero-means-default fields and checks the rest.
func (c Config) normalized() (Config, error) {
	d := DefaultConfig()
	if c.Delay.Kind == DistNone {
		c.Delay = d.Delay
	}
	if c.OpGap.Kind == DistNone {
		c.OpGap = d.OpGap
	}
	c.Resolution, c.Topology = cmp.Or(c.Resolution, d.Resolution), cmp.Or(c.Topology, d.Topology)
	return c, c.check()
}

// check lists every problem of a config whose defaults are filled in.
func (c Config) check() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if c.Procs < 1 {
		bad("procs must be ≥ 1, got %d", c.Procs)
	}
	if c.Procs > 1<<20 {
		bad("procs must be ≤ %d, got %d", 1<<20, c.Procs)
	}
	if c.Events < 0 || c.Events > math.MaxInt32 {
		bad("events must be in [0, %d], got %d", math.MaxInt32, c.Events)
	}
	if !(c.SendRatio >= 0 && c.SendRatio <= 1) {
		bad("send ratio must be in [0, 1], got %v", c.SendRatio)
	}
	if _, err := ParseTopology(string(c.Topology)); err != nil {
		bad("%v", err)
	}
	errs = append(errs, c.Delay.check("delay"), c.OpGap.check("op gap"), c.TickInterval.check("tick interval")) // Join drops the nils
	if c.TickInterval.Kind != DistNone && c.TickInterval.high() == 0 {
		bad("tick interval %q is always 0", c.TickInterval)
	}
	if len(c.Ticks) > c.Procs && c.Procs >= 1 {
		bad("%d tick periods for %d processes (at most one each)", len(c.Ticks), c.Procs)
	}
	if c.Failures < 0 || c.Failures > 1<<20 {
		bad("failures must be in [0, %d], got %d", 1<<20, c.Failures)
	}
	if c.InTransit < 0 || c.InTransit > c.Events {
		bad("in-transit messages must be in [0, events=%d], got %d", c.Events, c.InTransit)
	}
	if c.InTransit > 0 && c.Procs < 2 {
		bad("in-transit messages need at least 2 processes")
	}
	type named struct {
		name string
		t    trace.Time
	}
	times := []named{{"flush period", c.FlushEvery}, {"down time", c.Down}, {"params value", c.Params.RestartDelay},
		{"params value", c.Params.ControlDelay}, {"params value", c.Params.DefaultDelay}, {"resolution", c.Resolution}}
	for _, t := range c.Ticks {
		times = append(times, named{"tick period", t})
	}
	for _, t := range times {
		if t.t < 0 || t.t > trace.MaxTime/16 {
			bad("bad %s %v", t.name, t.t)
		}
	}
	return errors.Join(errs...)
}

// check reports a distribution that no sample can come from.
func (d Dist) check(name string) error {
	switch {
	case d.A > trace.MaxTime/16 || d.B > trace.MaxTime/16:
		// Sums of many samples must stay below trace.MaxTime.
		return fmt.Errorf("bad %s distribution %q: at most %s s per sample", name, d, trace.MaxTime/16)
	case d.Kind > Fixed || d.A < 0 || d.B < 0 || (d.Kind == Uniform && d.A > d.B) || (d.Kind == Exp && d.A == 0):
		return fmt.Errorf("bad %s distribution %q", name, d)
	}
	return nil
}

// Validate reports every problem of c, or nil.
func (c Config) Validate() error {
	_, err := c.normalized()
	return err
}

// recoveryWindow is the time after a failure during which its recovery
// may still be running: the process is down, the Rollback requests (MS)
// or the token's trip around the ring (PK, N+1 control delays) are under
// way, messages sent before the failure or re-sent after it are in
// flight (two high delays), and undone work is re-executed (one longest
// tick period). Without Concurrent, consecutive failures are at least
// this far apart. It is a generous estimate, not a bound: re-execution
// can take longer when a rollback goes back further than one period.
func (c Config) recoveryWindow() trace.Time {
	p := c.Params.WithDefaults()
	var tick trace.Time
	for _, t := range c.Ticks {
		tick = max(tick, t)
	}
	if c.TickInterval.Kind != DistNone {
		tick = c.TickInterval.high()
	}
	return c.downTime() + trace.Time(c.Procs+1)*p.ControlDelay + 2*c.Delay.high() + tick
}

// downTime is how long a failure keeps its process down: Down, or the
// restart delay in force.
func (c Config) downTime() trace.Time {
	return cmp.Or(c.Down, c.Params.WithDefaults().RestartDelay)
}

// ProcName is the name of process i in generated traces.
func ProcName(i int) string { return "P" + strconv.Itoa(i) }

// MsgName is the id of the message whose send is the i-th (from 0) of a
// generated trace; trace.Event.Msg holds i in events given to a Sink.
func MsgName(i int32) string {
	var buf [16]byte
	return string(strconv.AppendInt(append(buf[:0], 'm'), int64(i)+1, 10))
}

// Classic returns the configuration of the classic workload of the
// communication-induced checkpointing literature (the comparisons of
// Baldoni, Hélary, Raynal and others; ckpt compare --sweep): procs
// processes on a complete graph, every op a process starts a send
// (receives come on arrival), inter-send times exponential with mean
// mtt, message delays exponential with mean mtt/10, basic checkpoint
// intervals uniform on [ict/2, 3·ict/2], no flushes, no failures. The
// ratio ict/mtt is the number of sends a process makes per basic
// checkpoint interval, the workload's one shape parameter.
func Classic(procs, ops int, ict, mtt trace.Time, seed uint64) Config {
	cfg := DefaultConfig()
	cfg.Procs, cfg.Events, cfg.Seed = procs, ops, seed
	cfg.SendRatio, cfg.FlushEvery, cfg.Ticks = 1, 0, nil
	cfg.OpGap = Dist{Kind: Exp, A: mtt}
	cfg.Delay = Dist{Kind: Exp, A: mtt / 10}
	cfg.TickInterval = Dist{Kind: Uniform, A: ict / 2, B: ict * 3 / 2}
	return cfg
}
