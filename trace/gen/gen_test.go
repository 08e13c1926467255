package gen

import (
	"bytes"
	"errors"
	"io"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/codec"

	"github.com/ckpt-dev/ckpt/internal/golden"
	"github.com/ckpt-dev/ckpt/trace"
)

const sec = trace.Second

func mustTrace(t *testing.T, cfg Config) *trace.Trace {
	t.Helper()
	tr, err := Trace(cfg)
	if err != nil {
		t.Fatalf("Trace(%+v): %v", cfg, err)
	}
	return tr
}

func TestParseDist(t *testing.T) {
	tests := []struct {
		in      string
		want    Dist
		wantErr string
	}{
		{"exp:1", Dist{Kind: Exp, A: sec}, ""},
		{"exp:0.25", Dist{Kind: Exp, A: sec / 4}, ""},
		{"uniform:0.1:2", Dist{Kind: Uniform, A: sec / 10, B: 2 * sec}, ""},
		{"uniform:1:1", Dist{Kind: Uniform, A: sec, B: sec}, ""},
		{"fixed:0", Dist{Kind: Fixed}, ""},
		{"fixed:3", Dist{Kind: Fixed, A: 3 * sec}, ""},
		{"exp:0", Dist{}, "mean must be > 0"},
		{"exp", Dist{}, "one parameter"},
		{"exp:1:2", Dist{}, "one parameter"},
		{"uniform:2:1", Dist{}, "must not exceed"},
		{"uniform:1", Dist{}, "two parameters"},
		{"fixed:-1", Dist{}, "≥ 0"},
		{"fixed:NaN", Dist{}, "≥ 0"},
		{"fixed:x", Dist{}, "not a number"},
		{"normal:1:2", Dist{}, "unknown family"},
		{"", Dist{}, "unknown family"},
	}
	for _, tt := range tests {
		got, err := ParseDist(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseDist(%q) error = %v, want one containing %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseDist(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			continue
		}
		if back, err := ParseDist(got.String()); err != nil || back != got {
			t.Errorf("ParseDist(%q).String() = %q does not parse back: %v, %v", tt.in, got.String(), back, err)
		}
	}
}

func TestParseTicksAndTopology(t *testing.T) {
	got, err := ParseTicks("5, 7,0.5")
	if want := []trace.Time{5 * sec, 7 * sec, sec / 2}; err != nil || !slices.Equal(got, want) {
		t.Errorf("ParseTicks = %v, %v; want %v", got, err, want)
	}
	for _, bad := range []string{"", "5,", "-1", "x", "inf"} {
		if _, err := ParseTicks(bad); err == nil {
			t.Errorf("ParseTicks(%q) accepted", bad)
		}
	}
	for _, ok := range []string{"complete", "ring", "star", "random"} {
		if tp, err := ParseTopology(ok); err != nil || string(tp) != ok {
			t.Errorf("ParseTopology(%q) = %q, %v", ok, tp, err)
		}
	}
	if _, err := ParseTopology("mesh"); err == nil {
		t.Error("ParseTopology(mesh) accepted")
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name    string
		mod     func(*Config)
		wantErr string
	}{
		{"default", func(*Config) {}, ""},
		{"zero dists mean default", func(c *Config) { c.Delay, c.OpGap, c.Resolution, c.Topology = Dist{}, Dist{}, 0, "" }, ""},
		{"one process", func(c *Config) { c.Procs = 1 }, ""},
		{"no procs", func(c *Config) { c.Procs = 0 }, "procs must be ≥ 1"},
		{"negative events", func(c *Config) { c.Events = -1 }, "events must be"},
		{"ratio", func(c *Config) { c.SendRatio = 1.5 }, "send ratio"},
		{"ratio NaN", func(c *Config) { c.SendRatio = math.NaN() }, "send ratio"},
		{"topology", func(c *Config) { c.Topology = "mesh" }, "unknown topology"},
		{"bad uniform", func(c *Config) { c.Delay = Dist{Kind: Uniform, A: 2, B: 1} }, "bad delay distribution"},
		{"exp mean 0", func(c *Config) { c.OpGap = Dist{Kind: Exp} }, "bad op gap distribution"},
		{"too many ticks", func(c *Config) { c.Procs = 2; c.Ticks = []trace.Time{1, 2, 3} }, "3 tick periods for 2 processes"},
		{"negative tick", func(c *Config) { c.Ticks = []trace.Time{-1} }, "bad tick period"},
		{"tick interval", func(c *Config) { c.TickInterval = Dist{Kind: Uniform, A: 5 * sec, B: 15 * sec} }, ""},
		{"tick interval always 0", func(c *Config) { c.TickInterval = Dist{Kind: Fixed} }, "tick interval \"fixed:0\" is always 0"},
		{"bad tick interval", func(c *Config) { c.TickInterval = Dist{Kind: Uniform, A: 2, B: 1} }, "bad tick interval distribution"},
		{"negative flush", func(c *Config) { c.FlushEvery = -1 }, "bad flush period"},
		{"negative failures", func(c *Config) { c.Failures = -1 }, "failures must be"},
		{"in transit > events", func(c *Config) { c.Events = 3; c.InTransit = 4 }, "in-transit"},
		{"in transit alone", func(c *Config) { c.Procs = 1; c.InTransit = 1 }, "at least 2 processes"},
		{"negative down", func(c *Config) { c.Down = -1 }, "bad down"},
		{"negative param", func(c *Config) { c.Params.ControlDelay = -1 }, "bad params"},
		{"two errors", func(c *Config) { c.Procs = 0; c.Events = -1 }, "events must be"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := DefaultConfig()
			tt.mod(&c)
			err := c.Validate()
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Validate error = %v, want one containing %q", err, tt.wantErr)
			}
			if _, gerr := Generate(c, SinkFunc(func(*trace.Event, string) error { return nil })); gerr == nil {
				t.Fatal("Generate accepted an invalid config")
			}
		})
	}
}

// counts checks the invariants every generated trace must meet and
// returns how many ops, failures and unreceived messages it has.
func counts(t *testing.T, tr *trace.Trace) (ops, fails, unreceived int) {
	t.Helper()
	for i, e := range tr.Events {
		if i > 0 && e.T < tr.Events[i-1].T {
			t.Fatalf("event %d at %v before event %d at %v", i, e.T, i-1, tr.Events[i-1].T)
		}
		if e.Kind.IsOp() {
			ops++
		}
		if e.Kind == trace.Fail {
			fails++
		}
	}
	for _, m := range tr.Messages {
		if m.Recv == trace.None {
			unreceived++
		}
	}
	return
}

func TestExactCounts(t *testing.T) {
	tests := []struct {
		name string
		mod  func(*Config)
	}{
		{"default", func(*Config) {}},
		{"no events", func(c *Config) { c.Events = 0; c.Failures = 2 }},
		{"one process", func(c *Config) { c.Procs = 1; c.Failures = 3 }},
		{"all sends", func(c *Config) { c.SendRatio = 1; c.InTransit = 5 }},
		{"no sends", func(c *Config) { c.SendRatio = 0 }},
		{"all in transit", func(c *Config) { c.Events = 7; c.InTransit = 7 }},
		{"many failures", func(c *Config) { c.Procs = 3; c.Failures = 40; c.Concurrent = true }},
		{"many failures separated", func(c *Config) { c.Procs = 3; c.Failures = 40 }},
		{"zero gaps", func(c *Config) {
			c.OpGap = Dist{Kind: Fixed}
			c.Delay = Dist{Kind: Fixed}
			c.Failures = 5
			c.Concurrent = true
		}},
		{"ns resolution", func(c *Config) { c.Resolution = 1; c.Delay = Dist{Kind: Uniform, A: 1, B: 3} }},
		{"star of 2", func(c *Config) { c.Procs = 2; c.Topology = Star; c.InTransit = 2 }},
		{"random of 9", func(c *Config) { c.Procs = 9; c.Topology = Random; c.InTransit = 3; c.Failures = 3 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := DefaultConfig()
			tt.mod(&c)
			tr := mustTrace(t, c)
			ops, fails, unreceived := counts(t, tr)
			if ops != c.Events || fails != c.Failures || unreceived != c.InTransit {
				t.Errorf("ops, failures, in transit = %d, %d, %d; want %d, %d, %d",
					ops, fails, unreceived, c.Events, c.Failures, c.InTransit)
			}
		})
	}
}

func TestTopology(t *testing.T) {
	for _, top := range []Topology{Complete, Ring, Star, Random} {
		for _, n := range []int{2, 3, 5, 8} {
			c := DefaultConfig()
			c.Procs, c.Topology, c.Events, c.SendRatio, c.Seed = n, top, 3000, 0.8, uint64(n)
			nb, err := Neighbors(c)
			if err != nil {
				t.Fatal(err)
			}
			allowed := map[[2]int32]bool{}
			for p, l := range nb {
				for _, q := range l {
					if q == int32(p) {
						t.Fatalf("%s/%d: %d is its own neighbour", top, n, p)
					}
					allowed[[2]int32{int32(p), q}] = true
				}
			}
			// Undirected and connected: every process can reach every
			// other, so no process is cut off.
			for k := range allowed {
				if !allowed[[2]int32{k[1], k[0]}] {
					t.Errorf("%s/%d: edge %v is one-way", top, n, k)
				}
			}
			if !connected(nb) {
				t.Errorf("%s/%d: graph %v is not connected", top, n, nb)
			}
			switch top {
			case Complete:
				if len(allowed) != n*(n-1) {
					t.Errorf("complete/%d has %d edges", n, len(allowed))
				}
			case Ring:
				if n > 2 && len(allowed) != 2*n {
					t.Errorf("ring/%d has %d edges", n, len(allowed))
				}
			case Star:
				if len(allowed) != 2*(n-1) || len(nb[0]) != n-1 {
					t.Errorf("star/%d: %v", n, nb)
				}
			}
			used := map[[2]int32]bool{}
			for _, e := range mustTrace(t, c).Events {
				if e.Kind == trace.Send {
					k := [2]int32{e.P, e.To}
					if !allowed[k] {
						t.Fatalf("%s/%d: send %s→%s is not an edge", top, n, ProcName(int(e.P)), ProcName(int(e.To)))
					}
					used[k] = true
				}
			}
			if len(used) != len(allowed) {
				t.Errorf("%s/%d: only %d of %d edges used in 3000 ops", top, n, len(used), len(allowed))
			}
		}
	}
}

func connected(nb [][]int32) bool {
	seen := make([]bool, len(nb))
	stack := []int32{0}
	seen[0] = true
	count := 1
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, q := range nb[p] {
			if !seen[q] {
				seen[q] = true
				count++
				stack = append(stack, q)
			}
		}
	}
	return count == len(nb)
}

// lastActive is the time of the last app or fail event: timers stop there.
func lastActive(tr *trace.Trace) trace.Time {
	var end trace.Time
	for _, e := range tr.Events {
		if e.Kind.IsOp() || e.Kind == trace.Fail {
			end = e.T
		}
	}
	return end
}

func TestTicksAndFlushes(t *testing.T) {
	c := DefaultConfig()
	c.Procs, c.Events = 5, 2000
	c.Ticks = []trace.Time{3 * sec, 7 * sec, 0}
	c.FlushEvery = 4 * sec
	tr := mustTrace(t, c)
	end := lastActive(tr)
	if end < 20*sec {
		t.Fatalf("trace too short (%v) to test timers", end)
	}
	ticks := make([][]trace.Time, c.Procs)
	flushes := make([][]trace.Time, c.Procs)
	for _, e := range tr.Events {
		switch e.Kind {
		case trace.Checkpoint:
			ticks[e.P] = append(ticks[e.P], e.T)
		case trace.Flush:
			flushes[e.P] = append(flushes[e.P], e.T)
		}
	}
	for p := range c.Procs {
		period := c.Ticks[p%len(c.Ticks)]
		var want []trace.Time
		for k := trace.Time(1); period > 0 && k*period <= end; k++ {
			want = append(want, k*period)
		}
		if !slices.Equal(ticks[p], want) {
			t.Errorf("P%d (period %v) ticks %v, want %v", p, period, ticks[p], want)
		}
		want = want[:0]
		phase := c.FlushEvery / trace.Time(c.Procs) * trace.Time(p)
		for k := trace.Time(1); k*c.FlushEvery+phase <= end; k++ {
			want = append(want, k*c.FlushEvery+phase)
		}
		if !slices.Equal(flushes[p], want) {
			t.Errorf("P%d flushes %v, want %v", p, flushes[p], want)
		}
	}
}

// TestTickInterval: with TickInterval every interval between a
// process's consecutive ticks (and the first from 0) is a sample within
// its bounds, the intervals vary, and the execution — every event but
// the ticks — is exactly the one the same seed gives with periodic
// ticks or none.
func TestTickInterval(t *testing.T) {
	c := DefaultConfig()
	c.Procs, c.Events, c.FlushEvery, c.SendRatio = 4, 3000, 0, 1
	c.TickInterval = Dist{Kind: Uniform, A: 5 * sec, B: 15 * sec}
	tr := mustTrace(t, c)
	last := make([]trace.Time, c.Procs)
	seen := map[trace.Time]bool{}
	for i, e := range tr.Events {
		if e.Kind != trace.Checkpoint {
			continue
		}
		d := e.T - last[e.P]
		if d < 5*sec || d > 15*sec {
			t.Fatalf("event %d: P%d's tick %v after its previous one, outside [5, 15] s", i, e.P, d)
		}
		seen[d] = true
		last[e.P] = e.T
	}
	if len(seen) < 20 {
		t.Fatalf("only %d distinct tick intervals", len(seen))
	}
	withoutTicks := func(tr *trace.Trace) []trace.Event {
		var out []trace.Event
		for _, e := range tr.Events {
			if e.Kind != trace.Checkpoint {
				out = append(out, e)
			}
		}
		return out
	}
	c.TickInterval = Dist{}
	for _, ticks := range [][]trace.Time{nil, {3 * sec}} {
		c.Ticks = ticks
		if !slices.Equal(withoutTicks(tr), withoutTicks(mustTrace(t, c))) {
			t.Errorf("ticks %v: the execution differs from the one with drawn ticks", ticks)
		}
	}
	// A sample quantized to 0 waits one resolution: the timer advances.
	c.TickInterval, c.Events = Dist{Kind: Uniform, A: 0, B: sec / 1000}, 200
	if tr := mustTrace(t, c); len(tr.Events) < 200 {
		t.Fatalf("%d events", len(tr.Events))
	}
}

// delays returns recv time − send time of every received message.
func delays(tr *trace.Trace) []trace.Time {
	var d []trace.Time
	for _, m := range tr.Messages {
		if m.Recv != trace.None {
			d = append(d, tr.Events[m.Recv].T-tr.Events[m.Send].T)
		}
	}
	return d
}

func TestDelays(t *testing.T) {
	tests := []struct {
		dist       string
		min, max   trace.Time
		mean, tol  float64 // seconds
		resolution trace.Time
	}{
		{"fixed:0.7", 7 * sec / 10, 7 * sec / 10, 0.7, 0, 0},
		{"fixed:0", 0, 0, 0, 0, 0},
		{"uniform:0.5:1.5", sec / 2, 3 * sec / 2, 1, 0.05, 0},
		{"uniform:0.0005:0.0025", sec / 1000, 2 * sec / 1000, 0.0015, 0.0002, 0}, // quantized inside [A, B]
		{"uniform:0.2:0.3", sec / 5, 3 * sec / 10, 0.25, 0.01, 1},
		{"exp:2", 0, 40 * sec, 2, 0.2, 0},
	}
	for _, tt := range tests {
		t.Run(tt.dist, func(t *testing.T) {
			c := DefaultConfig()
			c.Events, c.SendRatio, c.Resolution = 6000, 1, tt.resolution
			var err error
			if c.Delay, err = ParseDist(tt.dist); err != nil {
				t.Fatal(err)
			}
			d := delays(mustTrace(t, c))
			if len(d) < 2000 {
				t.Fatalf("only %d messages", len(d))
			}
			lo, hi := slices.Min(d), slices.Max(d)
			if lo < tt.min || hi > tt.max {
				t.Errorf("delays in [%v, %v], want within [%v, %v]", lo, hi, tt.min, tt.max)
			}
			var sum float64
			for _, v := range d {
				sum += v.Seconds()
			}
			if mean := sum / float64(len(d)); math.Abs(mean-tt.mean) > tt.tol+1e-12 {
				t.Errorf("mean delay %.4f s, want %.4f ± %.4f", mean, tt.mean, tt.tol)
			}
			if tt.tol > 0 && hi-lo < (tt.max-tt.min)/2 && tt.dist[0] == 'u' {
				t.Errorf("uniform delays span only [%v, %v]", lo, hi)
			}
		})
	}
}

func TestSendRatio(t *testing.T) {
	for _, r := range []float64{0, 0.25, 0.5, 0.9} {
		c := DefaultConfig()
		c.Events, c.SendRatio = 20000, r
		var sends, internals int
		for _, e := range mustTrace(t, c).Events {
			switch e.Kind {
			case trace.Send:
				sends++
			case trace.Internal:
				internals++
			}
		}
		if got := float64(sends) / float64(sends+internals); math.Abs(got-r) > 0.02 {
			t.Errorf("send ratio %v: got %.3f", r, got)
		}
	}
}

type fail struct {
	p    int32
	t    trace.Time
	down trace.Time
}

func failures(tr *trace.Trace, dflt trace.Time) []fail {
	var fs []fail
	for _, e := range tr.Events {
		if e.Kind == trace.Fail {
			d := e.Down
			if d == 0 {
				d = dflt
			}
			fs = append(fs, fail{e.P, e.T, d})
		}
	}
	return fs
}

func TestFailures(t *testing.T) {
	for _, concurrent := range []bool{false, true} {
		overlapping := 0
		for seed := range uint64(20) {
			c := DefaultConfig()
			c.Procs, c.Events, c.Failures, c.Concurrent, c.Seed = 3, 500, 6, concurrent, seed
			if seed%2 == 1 {
				c.Down = 3 * sec
			}
			w := c.RecoveryWindow()
			if want := c.Params.WithDefaults().RestartDelay; c.Down == 0 && w <= want {
				t.Fatalf("window %v not above the restart delay", w)
			}
			fs := failures(mustTrace(t, c), c.Params.WithDefaults().RestartDelay)
			if len(fs) != c.Failures {
				t.Fatalf("%d failures, want %d", len(fs), c.Failures)
			}
			for i, f := range fs {
				if c.Down != 0 && f.down != c.Down {
					t.Errorf("failure %d down %v, want %v", i, f.down, c.Down)
				}
				for _, g := range fs[:i] {
					if g.p == f.p && f.t < g.t+g.down {
						t.Errorf("seed %d: %s fails at %v while down since %v", seed, ProcName(int(f.p)), f.t, g.t)
					}
					if f.t-g.t < w {
						overlapping++
						if !concurrent {
							t.Errorf("seed %d: failures at %v and %v closer than the window %v", seed, g.t, f.t, w)
						}
					}
				}
			}
		}
		if concurrent && overlapping < 20 {
			t.Errorf("concurrent: only %d failure pairs inside a recovery window in 20 traces", overlapping)
		}
	}
}

func TestNoFailOfDownProcessWhenAllDown(t *testing.T) {
	// Two processes, many clustered failures and long down times: the
	// generator must wait for restarts rather than fail a down process.
	c := DefaultConfig()
	c.Procs, c.Events, c.Failures, c.Concurrent, c.Down = 2, 50, 30, true, 20*sec
	fs := failures(mustTrace(t, c), c.Down)
	if len(fs) != 30 {
		t.Fatalf("%d failures", len(fs))
	}
	for i, f := range fs {
		for _, g := range fs[:i] {
			if g.p == f.p && f.t < g.t+g.down {
				t.Fatalf("%s fails at %v while down since %v", ProcName(int(f.p)), f.t, g.t)
			}
		}
	}
}

func write(t *testing.T, c Config, opts codec.WriteOptions) []byte {
	t.Helper()
	var b bytes.Buffer
	if _, err := Write(&b, c, opts); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestDeterminism(t *testing.T) {
	c := DefaultConfig()
	c.Events, c.Failures, c.Concurrent, c.InTransit, c.Topology = 3000, 4, true, 3, Random
	c.Ticks = []trace.Time{2 * sec, 3 * sec}
	a := write(t, c, codec.WriteOptions{})
	if b := write(t, c, codec.WriteOptions{}); !bytes.Equal(a, b) {
		t.Fatal("same config and seed gave different output")
	}
	if a, b := write(t, c, codec.WriteOptions{Gzip: true, JSONL: true}), write(t, c, codec.WriteOptions{Gzip: true, JSONL: true}); !bytes.Equal(a, b) {
		t.Fatal("same config and seed gave different gzip output")
	}
	c2 := c
	c2.Seed++
	if b := write(t, c2, codec.WriteOptions{}); bytes.Equal(a, b) {
		t.Fatal("different seeds gave the same output")
	}
	// The written trace reads back as the in-memory one.
	got, err := codec.ReadTrace("gen.json", bytes.NewReader(a))
	if err != nil {
		t.Fatalf("generated trace does not read back: %v", err)
	}
	want := mustTrace(t, c)
	if !slices.Equal(got.Events, want.Events) || !slices.Equal(got.Msgs, want.Msgs) || !slices.Equal(got.Processes, want.Processes) {
		t.Fatal("written trace differs from Trace()")
	}
}

func TestGolden(t *testing.T) {
	tests := []struct {
		file string
		mod  func(*Config)
	}{
		{"default.json", func(c *Config) { c.Events = 40; c.Ticks = []trace.Time{2 * sec}; c.FlushEvery = 3 * sec }},
		{"concurrent.jsonl", func(c *Config) {
			c.Procs, c.Events, c.Failures, c.Concurrent, c.InTransit, c.Seed = 3, 30, 3, true, 2, 7
			c.Topology, c.Delay, c.Ticks, c.Down = Ring, Dist{Kind: Uniform, A: sec / 10, B: 2 * sec}, []trace.Time{2 * sec, 3 * sec}, 2*sec
			c.Params = trace.Params{RestartDelay: 2 * sec, ControlDelay: sec / 4}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			c := DefaultConfig()
			tt.mod(&c)
			got := write(t, c, codec.WriteOptions{JSONL: strings.HasSuffix(tt.file, ".jsonl")})
			golden.Check(t, tt.file, got)
		})
	}
}

func TestLimits(t *testing.T) {
	discard := SinkFunc(func(*trace.Event, string) error { return nil })
	// Times beyond the representable range are an error, not a wrap.
	c := DefaultConfig()
	c.OpGap = Dist{Kind: Fixed, A: trace.MaxTime / 16}
	c.Events, c.Ticks, c.FlushEvery = 200, nil, 0
	if _, err := Generate(c, discard); err == nil || !strings.Contains(err.Error(), "time range") {
		t.Errorf("overflowing times: err = %v", err)
	}
	// Many failures stay cheap: only failures that may still overlap a
	// new one are kept.
	for _, concurrent := range []bool{false, true} {
		c = DefaultConfig()
		c.Procs, c.Events, c.Failures, c.Concurrent = 16, 1000, 100_000, concurrent
		c.Ticks, c.FlushEvery = nil, 0
		st, err := Generate(c, discard)
		if err != nil || st.Fails != int64(c.Failures) {
			t.Errorf("concurrent=%v: %d failures, %v", concurrent, st.Fails, err)
		}
	}
	// A sink error stops generation and is returned.
	boom := errors.New("disk full")
	n := 0
	_, err := Generate(DefaultConfig(), SinkFunc(func(*trace.Event, string) error {
		if n++; n == 10 {
			return boom
		}
		return nil
	}))
	if !errors.Is(err, boom) || n != 10 {
		t.Errorf("sink error: err = %v after %d events", err, n)
	}
}

// TestMaxEvents: ticks and flushes fill the run's whole span, so a 10 ns
// tick turns 100 ops into billions of events; MaxEvents stops the
// generator with ErrTooManyEvents once the trace passes it, and leaves a
// sane trace alone.
func TestMaxEvents(t *testing.T) {
	c := DefaultConfig()
	c.Procs, c.Events, c.Ticks, c.MaxEvents = 3, 100, []trace.Time{10 * sec}, 1000
	if _, err := Write(io.Discard, c, codec.WriteOptions{}); err != nil {
		t.Fatalf("a sane trace: %v", err)
	}
	c.Ticks = []trace.Time{10} // 10 ns
	st, err := Write(io.Discard, c, codec.WriteOptions{})
	if !errors.Is(err, ErrTooManyEvents) || st.Events != 1001 {
		t.Fatalf("a 10 ns tick: %d events, err %v; want ErrTooManyEvents at 1001", st.Events, err)
	}
}
