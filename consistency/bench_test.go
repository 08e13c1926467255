package consistency

import (
	"fmt"
	"testing"

	"github.com/ckpt-dev/ckpt/trace"
)

// syntheticMS builds an MS-like run of about n events over np processes:
// rounds in which every process sends to its ring successor, which
// receives it; every 50 rounds every process takes a basic checkpoint;
// every `every` rounds P0 fails right after the checkpoints and restarts
// from its latest one, and the Rollback requests make everyone else
// restore theirs (nothing to undo: the run stays valid, but every
// failure, handling point and recovery line is exercised).
func syntheticMS(n, np, every int) *trace.Run {
	names := make([]string, np)
	for i := range names {
		names[i] = fmt.Sprintf("P%d", i)
	}
	run := &trace.Run{Name: "synthetic", Algorithm: "ms", Processes: names}
	run.Events = make([]trace.RunEvent, 0, n+n/10)
	ops := make([]int32, np)
	ids := make([]int32, np)
	var t trace.Time
	sn := int32(0)
	add := func(e trace.RunEvent) {
		e.Seq = int32(len(run.Events))
		run.Events = append(run.Events, e)
	}
	nfail := int32(0)
	for round := 0; len(run.Events) < n; round++ {
		t += trace.Second / 100
		if round > 0 && round%50 == 0 {
			sn++
			for p := 0; p < np; p++ {
				ids[p]++
				e := trace.NewRunEvent(trace.Checkpoint, t, int32(p))
				e.Ckpt, e.CkptType, e.Pos, e.Sn = ids[p], trace.CkptBasic, ops[p], sn
				add(e)
			}
			if round%every == 0 {
				nfail++
				fail := int32(len(run.Events))
				add(trace.NewRunEvent(trace.Fail, t, 0))
				e := trace.NewRunEvent(trace.Restart, t, 0)
				e.Restore, e.Pos, e.Undone, e.Failure = ids[0], ops[0], 0, fail
				add(e)
				for p := 1; p < np; p++ {
					cs := trace.NewRunEvent(trace.ControlSend, t, 0)
					cs.Peer, cs.Control, cs.Failure = int32(p), trace.ControlRollback, fail
					add(cs)
					cr := trace.NewRunEvent(trace.ControlRecv, t, int32(p))
					cr.Peer, cr.Control, cr.Failure = 0, trace.ControlRollback, fail
					add(cr)
					rb := trace.NewRunEvent(trace.Rollback, t, int32(p))
					rb.Restore, rb.Pos, rb.Undone, rb.Failure, rb.Cause = ids[p], ops[p], 0, fail, trace.CauseRequest
					add(rb)
				}
			}
		}
		var f []trace.FEntry
		if nfail > 0 {
			f = []trace.FEntry{{P: 0, Count: nfail}}
		}
		pb := run.AddPB(&trace.Piggyback{Sn: sn, F: f, Inc: trace.None, RecLine: trace.None})
		for p := 0; p < np; p++ {
			m := int32(len(run.Msgs))
			run.Msgs = append(run.Msgs, fmt.Sprintf("m%d", m))
			e := trace.NewRunEvent(trace.Send, t, int32(p))
			e.Peer, e.Msg, e.Op, e.Copy, e.PB = int32((p+1)%np), m, ops[p], 1, pb
			ops[p]++
			add(e)
		}
		for p := 0; p < np; p++ {
			from := (p + np - 1) % np
			m := int32(len(run.Msgs) - np + from)
			e := trace.NewRunEvent(trace.Recv, t+trace.Second/200, int32(p))
			e.Peer, e.Msg, e.Op, e.Copy, e.Via = int32(from), m, ops[p], 1, trace.ViaNet
			ops[p]++
			add(e)
		}
	}
	for p := 0; p < np; p++ {
		e := trace.NewRunEvent(trace.End, t+trace.Second, int32(p))
		e.State = trace.StateDone
		add(e)
	}
	return run
}

func TestSyntheticValid(t *testing.T) {
	run := syntheticMS(20000, 8, 100)
	r := measured(run, nil)
	for _, p := range r.Properties {
		if p.Status == "fail" {
			t.Fatalf("synthetic run fails %s:\n%s", p.Name, dump(r))
		}
	}
	if len(r.Recoveries) == 0 {
		t.Fatal("no failures in the synthetic run")
	}
}

// BenchmarkCheck1M checks a 1,000,000-event run (target: under 2 s).
func BenchmarkCheck1M(b *testing.B) {
	run := syntheticMS(1_000_000, 16, 500)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := Check(run, nil)
		if !r.Valid {
			b.Fatal("invalid")
		}
	}
}
