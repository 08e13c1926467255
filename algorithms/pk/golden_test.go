package pk

import (
	"bytes"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/codec"
	"github.com/ckpt-dev/ckpt/trace/tracetest"

	"github.com/ckpt-dev/ckpt/internal/golden"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
)

// replayPK replays tr through PK.
func replayPK(t *testing.T, tr *trace.Trace) *trace.Run {
	t.Helper()
	return replayVariant(t, tr, Default)
}

func replayVariant(t *testing.T, tr *trace.Trace, variant string) *trace.Run {
	t.Helper()
	a, err := New(variant, tr)
	if err != nil {
		t.Fatal(err)
	}
	run, err := replay.Run(tr, a, replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// events returns the run's events of kind k at process p (−1: any).
func events(run *trace.Run, p int32, k trace.Kind) []*trace.RunEvent {
	var out []*trace.RunEvent
	for i := range run.Events {
		if e := &run.Events[i]; e.Kind == k && (p < 0 || e.P == p) {
			out = append(out, e)
		}
	}
	return out
}

func msgIndex(run *trace.Run, name string) int32 {
	for i, m := range run.Msgs {
		if m == name {
			return int32(i)
		}
	}
	return trace.None
}

type goldenCase struct {
	name  string
	trace *tracetest.Builder
	// done: every process must finish its whole program.
	done  bool
	check func(t *testing.T, run *trace.Run)
}

var goldenCases = []goldenCase{
	{
		// The textbook example: P0's receipt of m2 is lost, so m3 and
		// everything after it are orphans; P1 and P2 roll back, P2 resends
		// m2, and the orphan copy of m5 still in transit is discarded.
		name: "classic",
		trace: tracetest.NewBuilder("P0", "P1", "P2").
			Send(0.1, "P0", "P1", "m1").
			Recv(0.2, "P1", "m1").
			Checkpoint(0.3, "P0").
			Send(0.4, "P2", "P0", "m2").
			Recv(0.5, "P0", "m2").
			Send(0.6, "P0", "P1", "m3").
			Recv(0.7, "P1", "m3").
			Send(0.8, "P1", "P2", "m4").
			Send(0.85, "P1", "P2", "m5").
			Recv(0.9, "P2", "m4").
			Fail(1.0, "P0").
			Recv(4.0, "P2", "m5"),
		done: true,
		check: func(t *testing.T, run *trace.Run) {
			if rb := events(run, -1, trace.Rollback); len(rb) != 2 {
				t.Errorf("%d rollbacks, want 2", len(rb))
			}
			var resends int
			for _, e := range events(run, -1, trace.Send) {
				if e.Resend {
					resends++
					if run.Msgs[e.Msg] != "m2" {
						t.Errorf("resend of %s", run.Msgs[e.Msg])
					}
				}
			}
			if resends != 1 {
				t.Errorf("%d resends, want 1", resends)
			}
			d := events(run, -1, trace.Discard)
			if len(d) != 1 || run.Msgs[d[0].Msg] != "m5" || d[0].Reason != trace.ReasonOrphan {
				t.Errorf("discards: %v", d)
			}
		},
	},
	{
		// The log was flushed before the crash: the restart replays every
		// receipt, nothing is an orphan, nobody rolls back.
		name: "flushed",
		trace: tracetest.NewBuilder("P0", "P1", "P2").
			Send(0.4, "P2", "P0", "m2").
			Recv(0.5, "P0", "m2").
			Send(0.6, "P0", "P1", "m3").
			Flush(0.65, "P0").
			Recv(0.7, "P1", "m3").
			Fail(1.0, "P0").
			Send(3.0, "P0", "P2", "m6").
			Recv(3.5, "P2", "m6"),
		done: true,
		check: func(t *testing.T, run *trace.Run) {
			if rb := events(run, -1, trace.Rollback); len(rb) != 0 {
				t.Errorf("%d rollbacks, want 0", len(rb))
			}
			r := events(run, 0, trace.Restart)
			if len(r) != 1 || r[0].Pos != 3 || r[0].Undone != 0 {
				t.Errorf("restart %v", r)
			}
		},
	},
	{
		// P0 and P2 fail at nearly the same time: two tokens circulate.
		name: "concurrent",
		trace: tracetest.NewBuilder("P0", "P1", "P2").
			Send(0.1, "P1", "P0", "a").
			Send(0.15, "P1", "P2", "b").
			Recv(0.2, "P0", "a").
			Recv(0.25, "P2", "b").
			Send(0.3, "P0", "P1", "c").
			Send(0.35, "P2", "P1", "d").
			Recv(0.4, "P1", "c").
			Recv(0.45, "P1", "d").
			Fail(1.0, "P0").
			Fail(1.1, "P2").
			Send(5.0, "P1", "P0", "e").
			Recv(5.5, "P0", "e"),
		done: true,
		check: func(t *testing.T, run *trace.Run) {
			if n := len(events(run, -1, trace.Restart)); n != 2 {
				t.Errorf("%d restarts", n)
			}
			if rb := events(run, 1, trace.Rollback); len(rb) != 1 || rb[0].Pos != 2 {
				t.Errorf("P1 rollbacks %v", rb)
			}
		},
	},
	{
		// P2 fails while P0's token is on its way to it: the token waits
		// in P2's mailbox of control messages and P2 handles it at its
		// restart, after which it forwards it.
		name: "token-while-down",
		trace: tracetest.NewBuilder("P0", "P1", "P2").
			Send(0.1, "P1", "P0", "a").
			Recv(0.2, "P0", "a").
			Send(0.3, "P0", "P2", "c").
			Recv(0.4, "P2", "c").
			Flush(0.45, "P2").
			Fail(1.0, "P0").
			Fail(2.6, "P2"),
		done: true,
		check: func(t *testing.T, run *trace.Run) {
			r := events(run, 2, trace.Restart)
			// P2 learns P0's announcement from the token recorded while it
			// was down before it replays: the logged receipt of c is an
			// orphan and is not replayed.
			if len(r) != 1 || r[0].Pos != 0 {
				t.Errorf("P2 restart %v", r)
			}
			if len(events(run, 0, trace.Resume)) != 1 || len(events(run, 2, trace.Resume)) != 1 {
				t.Error("both failed processes must resume")
			}
		},
	},
	{
		// P0 fails again before its first token returns: it starts a new
		// token and resumes only when the newest returns.
		name: "repeated",
		trace: tracetest.NewBuilder("P0", "P1", "P2").
			Send(0.1, "P1", "P0", "a").
			Recv(0.2, "P0", "a").
			Send(0.3, "P0", "P1", "b").
			Recv(0.4, "P1", "b").
			Fail(1.0, "P0").
			Fail(2.2, "P0"),
		done: true,
		check: func(t *testing.T, run *trace.Run) {
			res := events(run, 0, trace.Resume)
			r := events(run, 0, trace.Restart)
			if len(res) != 1 || len(r) != 2 || r[1].Inc != 2 {
				t.Fatalf("resumes %v restarts %v", res, r)
			}
			// The resume follows the second token's return.
			var back *trace.RunEvent
			for _, e := range events(run, 0, trace.ControlRecv) {
				if run.Body(e).Inc == 1 {
					back = e
				}
			}
			if back == nil || res[0].Seq < back.Seq {
				t.Errorf("resumed at seq %d before the newest token came back", res[0].Seq)
			}
		},
	},
	{
		// P1 logs its receipt of the orphan c stably, is rolled back by
		// P0's token, and fails later: its restart must not replay c.
		name: "rolled-back-then-fails",
		trace: tracetest.NewBuilder("P0", "P1", "P2").
			Send(0.1, "P2", "P0", "a").
			Recv(0.2, "P0", "a").
			Send(0.3, "P0", "P1", "c").
			Recv(0.4, "P1", "c").
			Flush(0.5, "P1").
			Fail(1.0, "P0").
			Fail(2.8, "P1").
			Internal(6.0, "P1"),
		done: true,
		check: func(t *testing.T, run *trace.Run) {
			r := events(run, 1, trace.Restart)
			if len(r) != 1 || r[0].Pos != 0 {
				t.Errorf("P1 restart %v, want pos 0", r)
			}
		},
	},
	{
		// P1 restarts first, replaying x (from P0) and m (from P2) from
		// its log, and is held waiting for its token when P0's token
		// arrives: x is an orphan, the rollback undoes m's receipt too, and
		// m's copy must come back to the mailbox.
		name: "held-rollback-requeue",
		trace: tracetest.NewBuilder("P0", "P1", "P2").
			Send(0.1, "P2", "P0", "w").
			Recv(0.2, "P0", "w").
			Send(0.3, "P0", "P1", "x").
			Send(0.35, "P2", "P1", "m").
			Recv(0.4, "P1", "x").
			Recv(0.45, "P1", "m").
			Flush(0.5, "P1").
			Fail(1.0, "P0").
			FailDown(1.1, "P1", 1.0).
			Send(7.0, "P1", "P2", "y").
			Recv(7.5, "P2", "y"),
		done: true,
		check: func(t *testing.T, run *trace.Run) {
			r := events(run, 1, trace.Restart)
			rb := events(run, 1, trace.Rollback)
			if len(r) != 1 || r[0].Pos != 3 || len(rb) != 1 || rb[0].Pos != 0 {
				t.Errorf("P1 restart %v rollback %v", r, rb)
				return
			}
			// m is received again with its original copy (via the
			// mailbox), no resend needed.
			m := msgIndex(run, "m")
			var got []int32
			for _, e := range events(run, 1, trace.Recv) {
				if e.Msg == m {
					got = append(got, e.Copy)
				}
			}
			if len(got) != 2 || got[0] != 1 || got[1] != 1 {
				t.Errorf("m received as copies %v, want [1 1]", got)
			}
			// A restarted process rolled back below its restart point
			// stays in its new incarnation.
			y := events(run, 1, trace.Send)
			if len(y) == 0 || run.PB(y[len(y)-1]).VT[1].Inc != 1 {
				t.Errorf("P1's send after the rollback: %v", y)
			}
		},
	},
	{
		// A message P0 sends after its recovery reaches P1, whose answer
		// names P0's new incarnation: P0 knows its own announcement, so
		// the answer is not held forever.
		name: "after-recovery",
		trace: tracetest.NewBuilder("P0", "P1", "P2").
			Send(0.1, "P2", "P0", "w").
			Recv(0.2, "P0", "w").
			Fail(1.0, "P0").
			Send(4.0, "P0", "P1", "a").
			Recv(4.1, "P1", "a").
			Send(4.2, "P1", "P0", "b").
			Recv(4.3, "P0", "b"),
		done: true,
		check: func(t *testing.T, run *trace.Run) {
			if h := events(run, -1, trace.Hold); len(h) != 0 {
				t.Errorf("holds %v", h)
			}
		},
	},
	{
		// P1's first recovery replays x from its log; P0's announcement
		// (the third process) undoes that replay; P1 then fails again: its
		// second restart must not replay x's orphan receipt, and its
		// announcement covers what incarnation 1 kept.
		name: "second-failure-after-undone-replay",
		trace: tracetest.NewBuilder("P0", "P1", "P2").
			Send(0.1, "P2", "P0", "w").
			Recv(0.2, "P0", "w").
			Send(0.3, "P0", "P1", "x").
			Send(0.35, "P2", "P1", "m").
			Recv(0.4, "P1", "x").
			Recv(0.45, "P1", "m").
			Send(0.5, "P1", "P2", "z").
			Flush(0.55, "P1").
			Recv(0.6, "P2", "z").
			Fail(1.0, "P0").
			FailDown(1.1, "P1", 1.0).
			Fail(4.0, "P1"),
		done: true,
		check: func(t *testing.T, run *trace.Run) {
			r := events(run, 1, trace.Restart)
			if len(r) != 2 || r[1].Inc != 2 || r[1].Pos != 0 {
				t.Fatalf("P1 restarts %v", r)
			}
		},
	},
}

func TestSingleProcess(t *testing.T) {
	tr, err := tracetest.NewBuilder("P0").
		Internal(0.1, "P0").
		Checkpoint(0.2, "P0").
		Internal(0.3, "P0").
		Fail(0.4, "P0").
		Internal(5, "P0").
		Build()
	if err != nil {
		t.Fatal(err)
	}
	run := replayPK(t, tr)
	checkRun(t, tr, run, true)
	if r := events(run, 0, trace.Restart); len(r) != 1 || r[0].Restore != 1 || r[0].Pos != 3 {
		t.Errorf("restart %v", r)
	}
	// SPEC §5 on a ring of one: the successor of P0 is P0, so the token
	// goes to P0 itself and P0 holds until it returns, control_delay (0.5)
	// after the restart at 1.4. (With no receive to stop it, the restart
	// already replayed the whole program: op 2 runs for the first time at
	// 1.4.)
	send, recv, resume := events(run, 0, trace.ControlSend), events(run, 0, trace.ControlRecv), events(run, 0, trace.Resume)
	if len(send) != 1 || send[0].Peer != 0 || send[0].T != 1400*trace.Second/1000 ||
		len(recv) != 1 || recv[0].T != 1900*trace.Second/1000 || len(resume) != 1 || resume[0].T != 1900*trace.Second/1000 {
		t.Errorf("token to itself: sent %v, received %v, resumed %v", send, recv, resume)
	}
	if in := events(run, 0, trace.Internal); len(in) != 3 || in[2].T != 1400*trace.Second/1000 {
		t.Errorf("internal ops %v, want op 2 at 1.4", in)
	}
}

func TestGolden(t *testing.T) {
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := tc.trace.Build()
			if err != nil {
				t.Fatal(err)
			}
			tr.Name = tc.name + ".json"
			run := replayPK(t, tr)
			checkRun(t, tr, run, tc.done)
			if tc.check != nil {
				tc.check(t, run)
			}
			var buf bytes.Buffer
			if err := codec.WriteRun(&buf, run, codec.WriteOptions{JSONL: true}); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, tc.name+".run.jsonl", buf.Bytes())
		})
	}
}
