package cmd

import (
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/trace"
)

func TestParseBytes(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		bad  bool
	}{
		{"0", 0, false},
		{"4096", 4096, false},
		{"2GiB", 2 << 30, false},
		{"2G", 2 << 30, false},
		{"2gb", 2 << 30, false},
		{"512MiB", 512 << 20, false},
		{"1.5 KiB", 1536, false},
		{"64K", 64 << 10, false},
		{"1T", 1 << 40, false},
		{"lots", 0, true},
		{"-1G", 0, true},
		{"2XB", 0, true},
		{"", 0, true},
		{"1e30G", 0, true},
	}
	for _, tc := range tests {
		got, err := parseBytes(tc.in)
		if (err != nil) != tc.bad || got != tc.want {
			t.Errorf("parseBytes(%q) = %d, %v; want %d, bad %v", tc.in, got, err, tc.want, tc.bad)
		}
	}
}

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{512: "512 B", 2048: "2.0 KiB", 3 << 29: "1.5 GiB"} {
		if got := formatBytes(n); got != want {
			t.Errorf("formatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestMeminfoTotal(t *testing.T) {
	in := "MemFree:  100 kB\nMemTotal:       24601232 kB\nBuffers: 1 kB\n"
	if got := meminfoTotal([]byte(in)); got != 24601232 {
		t.Fatalf("meminfoTotal = %d", got)
	}
	if got := meminfoTotal([]byte("nothing\n")); got != 0 {
		t.Fatalf("meminfoTotal of nothing = %d", got)
	}
}

// TestReplayEstimate checks that the estimate grows with what makes runs
// big — PK's vectors with processes, recovery lines with failures — and
// names it, and that a cap below it refuses, above it accepts.
func TestReplayEstimate(t *testing.T) {
	small := traceSizes{events: 1000, procs: 4, msgs: 300, sends: 300, recvs: 300, ticks: 40, flushes: 20}
	wide := small
	wide.procs, wide.busy = 4096, 4096
	idle := wide // the same processes, only 4 with events (pk.New)
	idle.busy = 4
	failing := small
	failing.fails = 100000
	base := replayEstimate(small, []string{"ms"}, checked).bytes
	for _, tc := range []struct {
		s     traceSizes
		alg   string
		why   string
		times float64 // at least this many times the small MS estimate
	}{
		{small, "pk", "run events", 1},
		{wide, "pk", "4096 processes: a 4096-entry vector", 10},
		{wide, "ms", "run events", 1},
		{idle, "pk", "4096 processes: a 4096-entry vector", 1},
		{failing, "ms", "100000 failures × 4 processes", 20},
	} {
		e := replayEstimate(tc.s, []string{tc.alg}, checked)
		if !strings.Contains(e.why, tc.why) {
			t.Errorf("%+v %s: why %q, want %q", tc.s, tc.alg, e.why, tc.why)
		}
		under := &memCap{bytes: e.bytes - 1}
		if err := under.check("x.json", e); err == nil || !strings.Contains(err.Error(), "x.json: replaying it through "+tc.alg) {
			t.Errorf("%+v %s: cap below the estimate: %v", tc.s, tc.alg, err)
		}
		if err := (&memCap{bytes: e.bytes}).check("x.json", e); err != nil {
			t.Errorf("%+v %s: cap at the estimate: %v", tc.s, tc.alg, err)
		}
		if float64(e.bytes) < tc.times*float64(base) {
			t.Errorf("%+v %s: estimate %s, want at least %.0f × %s", tc.s, tc.alg, formatBytes(e.bytes), tc.times, formatBytes(base))
		}
	}
	both := replayEstimate(small, []string{"ms", "pk"}, checked)
	ms, pk := replayEstimate(small, []string{"ms"}, checked), replayEstimate(small, []string{"pk"}, checked)
	if both.bytes <= max(ms.bytes, pk.bytes) {
		t.Errorf("in parallel the estimates must add up: both %d, ms %d, pk %d", both.bytes, ms.bytes, pk.bytes)
	}
}

func TestCheckEstimatePK(t *testing.T) {
	run := &trace.Run{Algorithm: "pk", Processes: make([]string, 2000)}
	for i := 0; i < 100; i++ {
		run.Events = append(run.Events, trace.NewRunEvent(trace.Checkpoint, 0, 0))
	}
	e := checkEstimate(run)
	if !strings.Contains(e.why, "2000 processes: a rebuilt 2000-entry vector") || e.bytes > baseBytes+2000*8*1000 {
		t.Fatalf("idle: estimate %s (%s), want no vector for the 1999 processes without events", formatBytes(e.bytes), e.why)
	}
	for i := range run.Events {
		run.Events[i].P = int32(i * 20)
	}
	e = checkEstimate(run)
	if e.bytes < 2000*8*200 {
		t.Fatalf("busy: estimate %s (%s), want a vector for each of 100 busy processes and 100 checkpoints", formatBytes(e.bytes), e.why)
	}
}
