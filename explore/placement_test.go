package explore

import (
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/ckpt-dev/ckpt/algorithms"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
)

// TestFailurePlacement: a single injected failure falls exactly at its
// point, ties included — when the fail event happens in the replay, the
// process has executed exactly the ops before the point and had exactly
// the ticks before it — and the schedule's trace is valid.
func TestFailurePlacement(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		tr := smallTraces().Draw(rt, "trace")
		prep := prepared(rt, tr, true)
		b := newBase(prep, nil)
		for g := range b.points {
			pt := &b.points[g]
			var buf traceBuf
			st := b.build([]int32{int32(g)}, &buf, true)
			if err := trace.Validate(cloneTrace(st)); err != nil {
				rt.Fatalf("point %s: invalid schedule: %v", b.describe(pt), err)
			}
			wantOps, wantTicks := before(prep, pt)
			alg, err := algorithms.New("ms", "", st)
			if err != nil {
				rt.Fatal(err)
			}
			run, err := replay.Run(st, alg, replay.Options{})
			if err != nil {
				rt.Fatal(err)
			}
			ops, ticks := 0, 0
			for _, ev := range run.Events {
				if ev.Kind == trace.Fail {
					break
				}
				if ev.P != pt.P {
					continue
				}
				switch {
				case ev.Kind.IsOp() && !ev.Resend:
					ops++
				case ev.Kind == trace.Checkpoint && ev.CkptType == trace.CkptBasic, ev.Kind == trace.CheckpointSkipped:
					ticks++
				}
			}
			if ops != wantOps || ticks != wantTicks {
				rt.Fatalf("point %s: crashed after %d ops and %d ticks, want %d and %d", b.describe(pt), ops, ticks, wantOps, wantTicks)
			}
		}
	})
}

// before counts the ops and ticks of the point's process that come
// before it in the trace.
func before(tr *trace.Trace, pt *Point) (ops, ticks int) {
	for i := int32(0); i < pt.Gap; i++ {
		ev := &tr.Events[i]
		if ev.P != pt.P {
			continue
		}
		if ev.Kind.IsOp() {
			ops++
		}
		if ev.Kind == trace.Checkpoint {
			ticks++
		}
	}
	return ops, ticks
}

// TestRetime: a re-timed trace is valid, replays failure-free to exactly
// its own times (SPEC §3's identity), keeps every process's program, and
// delivers each delayed message no earlier than its extra delay says.
func TestRetime(t *testing.T) {
	delayed := 0
	rapid.Check(t, func(rt *rapid.T) {
		tr := smallTraces().Draw(rt, "trace")
		prep := prepared(rt, tr, true)
		choices := delayChoices(prep)
		digits := make([]int32, len(choices))
		for m := range digits {
			digits[m] = int32(rapid.IntRange(0, len(choices[m])-1).Draw(rt, "choice"))
		}
		extra := extraOf(digits, choices)
		if extra == nil {
			return
		}
		delayed++
		rt2, err := retime(prep, extra)
		if err != nil {
			rt.Fatalf("retime: %v", err)
		}
		for m, msg := range rt2.Messages {
			if msg.Recv == trace.None {
				continue
			}
			old := prep.Messages[m]
			got := rt2.Events[msg.Recv].T - rt2.Events[msg.Send].T
			want := prep.Events[old.Recv].T - prep.Events[old.Send].T + extra[m]
			if got < want {
				rt.Fatalf("message %s: delay %s, want at least %s", prep.Msgs[m], got, want)
			}
		}
		if a, b := programs(prep), programs(rt2); len(a) != len(b) {
			rt.Fatal("programs differ")
		} else {
			for p := range a {
				if len(a[p]) != len(b[p]) {
					rt.Fatalf("process %d: program changed", p)
				}
				for k := range a[p] {
					if a[p][k] != b[p][k] {
						rt.Fatalf("process %d op %d changed", p, k)
					}
				}
			}
		}
		alg, _ := algorithms.New("pk", "", rt2)
		run, err := replay.Run(rt2, alg, replay.Options{})
		if err != nil {
			rt.Fatal(err)
		}
		var times []trace.Time
		for _, ev := range run.Events {
			if ev.Kind.IsOp() {
				times = append(times, ev.T)
			}
		}
		var want []trace.Time
		for _, ev := range rt2.Events {
			if ev.Kind.IsOp() {
				want = append(want, ev.T)
			}
		}
		if len(times) != len(want) {
			rt.Fatalf("replay ran %d ops, trace has %d", len(times), len(want))
		}
		for i := range want {
			if times[i] != want[i] {
				rt.Fatalf("op %d replayed at %s, trace says %s", i, times[i], want[i])
			}
		}
	})
	if delayed == 0 {
		t.Fatal("no drawn trace delayed a message: the test was vacuous")
	}
	t.Logf("%d traces re-timed", delayed)
}

// programs lists each process's ops as (kind, message) pairs.
func programs(tr *trace.Trace) [][][2]int32 {
	out := make([][][2]int32, len(tr.Processes))
	for _, ev := range tr.Events {
		if ev.Kind.IsOp() {
			out[ev.P] = append(out[ev.P], [2]int32{int32(ev.Kind), ev.Msg})
		}
	}
	return out
}

// cloneTrace copies what trace.Validate rewrites, so that a test can
// validate a trace it does not own.
func cloneTrace(t *trace.Trace) *trace.Trace {
	c := *t
	c.Events = slices.Clone(t.Events)
	c.Messages = slices.Clone(t.Messages)
	return &c
}
