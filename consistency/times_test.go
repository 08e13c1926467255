package consistency

import (
	"testing"

	"github.com/ckpt-dev/ckpt/trace/tracetest"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// SPEC §3's times, judged against the source trace (equivalence_times.go).
// Found by an adversarial review: a receipt retimed before its copy's
// arrival (and so before a flush) and a restart before its down time
// were over both passed.

// failAndMessage: P1 fails at 1 (restart_delay 1 by default, so it
// restarts at 2); m takes 0.4 from P0 to P1.
func failAndMessage(t *testing.T) *trace.Trace {
	return mustBuild(t, tracetest.NewBuilder("P0", "P1").
		Checkpoint(0.5, "P1").Fail(1, "P1").Send(3, "P0", "P1", "m").Recv(3.4, "P1", "m"))
}

// message: m takes 0.4 from P0 to P1, whose receive is ready at 3.4 too.
func message(t *testing.T) *trace.Trace {
	return mustBuild(t, tracetest.NewBuilder("P0", "P1").
		Internal(3, "P1").Send(3, "P0", "P1", "m").Recv(3.4, "P1", "m"))
}

// retimedKind returns the run of alg on src with the first event of kind
// at time t (in seconds).
func retimedKind(alg string, src func(*testing.T) *trace.Trace, kind trace.Kind, t float64) func(*testing.T) *trace.Run {
	return func(tt *testing.T) *trace.Run {
		run := replayOf(tt, alg, src(tt))
		for i := range run.Events {
			if run.Events[i].Kind == kind {
				run.Events[i].T = trace.Time(t * float64(trace.Second))
				return run
			}
		}
		tt.Fatalf("no %s event to retime", kind)
		return nil
	}
}

func TestReplayTimes(t *testing.T) {
	eq := report.Equivalence
	var cases []ruleCase
	for _, alg := range []string{"ms", "pk"} {
		cases = append(cases,
			ruleCase{name: alg + "/replayed", run: func(t *testing.T) *trace.Run { return replayOf(t, alg, failAndMessage(t)) },
				src: failAndMessage, prop: eq, status: report.Pass},
			ruleCase{name: alg + "/receipt-before-arrival", run: retimedKind(alg, message, trace.Recv, 3.3), src: message,
				prop: eq, status: report.Fail, witness: "P1 receives m at seq", besides: []string{"its ready time"}},
			ruleCase{name: alg + "/internal-early", run: retimedKind(alg, message, trace.Internal, 2.9), src: message,
				prop: eq, status: report.Fail, witness: "P1's internal (op 0) at seq"},
			ruleCase{name: alg + "/message-replayed", run: func(t *testing.T) *trace.Run { return replayOf(t, alg, message(t)) },
				src: message, prop: eq, status: report.Pass},
			ruleCase{name: alg + "/early-restart", run: retimedKind(alg, failAndMessage, trace.Restart, 1.5), src: failAndMessage,
				prop: eq, status: report.Fail, witness: "P1 restarts at seq 2, t=1.5, not at t=2",
				// The restart moves the receive's ready time: it is late then.
				besides: []string{"P1's recv of m at seq 7 comes at t=5.4, not at t=4.9"},
				// MS's requests, PK's token, left at t=2, no longer share the restart's instant.
				also: map[string]report.Status{report.LogReplayRules: report.Fail}},
		)
	}
	// A run of ckpt's algorithms that records no params claims §3's
	// timing and leaves it unjudgeable: equivalence is unknown, not the
	// pass it was, which let a forger strip the params to pass an early
	// restart. A foreign algorithm's run claims none of it.
	stripped := func(alg, name string) func(*testing.T) *trace.Run {
		return func(t *testing.T) *trace.Run {
			run := retimedKind(alg, failAndMessage, trace.Restart, 1.5)(t)
			run.Options.Params = trace.Params{}
			if name != "" {
				run.Algorithm = name
			}
			return run
		}
	}
	// reordered has P1 execute an internal op where its program
	// receives m: unknown never hides a failure of the program.
	reordered := func(run func(*testing.T) *trace.Run) func(*testing.T) *trace.Run {
		return func(t *testing.T) *trace.Run {
			r := run(t)
			for i := range r.Events {
				if e := &r.Events[i]; e.Kind == trace.Recv {
					e.Kind, e.Msg, e.Peer, e.Copy = trace.Internal, history.None, history.None, 0
					return r
				}
			}
			t.Fatal("no receive")
			return nil
		}
	}
	cases = append(cases,
		ruleCase{name: "ms/no-params", run: stripped("ms", ""), src: failAndMessage, prop: eq, status: report.Unknown, witness: "records no params"},
		ruleCase{name: "pk/no-params", run: stripped("pk", ""), src: failAndMessage, prop: eq, status: report.Unknown, witness: "records no params"},
		ruleCase{name: "foreign/no-params", run: stripped("pk", "their-pk"), src: failAndMessage, prop: eq, status: report.Pass},
		ruleCase{name: "ms/no-params-and-reordered", run: reordered(stripped("ms", "")), src: failAndMessage, prop: eq, status: report.Fail, witness: "is not its program", besides: []string{""},
			also: map[string]report.Status{report.LogReplayRules: report.Fail}}, // m's copy left unlisted in the mailbox
	)
	// A run whose options.timing says its times were recorded claims no
	// replay timing: equivalence judges its program and causal order,
	// and passes a retimed but causal run (docs/checker.md, "Recorded
	// runs"); its program is judged all the same.
	recorded := func(run func(*testing.T) *trace.Run) func(*testing.T) *trace.Run {
		return func(t *testing.T) *trace.Run {
			r := run(t)
			r.Options.Timing = trace.TimingRecorded
			return r
		}
	}
	for _, alg := range []string{"ms", "pk"} {
		cases = append(cases,
			ruleCase{name: alg + "/recorded-early-restart", run: recorded(stripped(alg, "")), src: failAndMessage, prop: eq, status: report.Pass},
			ruleCase{name: alg + "/recorded-with-params", run: recorded(retimedKind(alg, message, trace.Recv, 3.3)), src: message, prop: eq, status: report.Pass},
		)
	}
	cases = append(cases, ruleCase{name: "ms/recorded-and-reordered", run: recorded(reordered(stripped("ms", ""))), src: failAndMessage,
		prop: eq, status: report.Fail, witness: "is not its program", besides: []string{""},
		also: map[string]report.Status{report.LogReplayRules: report.Fail}})
	checkRuleCases(t, cases)
}

// A recorded run's equivalence passes claiming less, and says so: its
// replay times went unjudged (the review of issue 28's change: adding
// the field passed retimed runs, and no report told the reader).
func TestRecordedEquivalenceSaysSo(t *testing.T) {
	run := retimedKind("ms", failAndMessage, trace.Restart, 1.5)(t)
	run.Options.Params, run.Options.Timing = trace.Params{}, trace.TimingRecorded
	for _, p := range Check(run, failAndMessage(t)).Properties {
		if p.Name == report.Equivalence {
			if p.Status != report.Pass || p.Note != recordedNote {
				t.Errorf("equivalence %s, note %q; want pass, noting %q", p.Status, p.Note, recordedNote)
			}
			return
		}
	}
	t.Error("no equivalence in the report")
}

// TestControlDelay: a control message arrives control_delay after its
// send (history.ControlLate), found by the second review round.
func TestControlDelay(t *testing.T) {
	late := func(alg string) func(*testing.T) *trace.Run {
		return func(t *testing.T) *trace.Run {
			run := replayOf(t, alg, failAndMessage(t))
			for i := range run.Events {
				if run.Events[i].Kind == trace.ControlRecv {
					run.Events[i].T -= trace.Second / 100
					return run
				}
			}
			t.Fatal("no control message")
			return nil
		}
	}
	var cases []ruleCase
	for _, alg := range []string{"ms", "pk"} {
		cases = append(cases, ruleCase{name: alg, run: late(alg), src: failAndMessage, prop: report.Equivalence,
			status: report.Fail, witness: "control message at seq", besides: []string{"restarts at seq"},
			// MS's recovery checkpoint, PK's hop, left at t=2.5, no longer share the request's or token's instant.
			also: map[string]report.Status{report.LogReplayRules: report.Fail}})
	}
	checkRuleCases(t, cases)
}

// TestTokenRing: a PK token goes to its sender's ring successor
// (pkTokenRing), found by the second review round.
func TestTokenRing(t *testing.T) {
	three := func(t *testing.T) *trace.Trace {
		return mustBuild(t, tracetest.NewBuilder("P0", "P1", "P2").
			Checkpoint(0.5, "P0").Fail(1, "P0").Internal(3, "P1").Internal(3, "P2"))
	}
	backwards := func(t *testing.T) *trace.Run {
		run := replayOf(t, "pk", three(t))
		for i := range run.Events {
			if e := &run.Events[i]; e.Kind == trace.ControlSend && e.Control == trace.ControlToken {
				e.Peer = 2
				for j := i + 1; j < len(run.Events); j++ {
					if r := &run.Events[j]; r.Kind == trace.ControlRecv && r.Control == trace.ControlToken {
						r.P = 2
						return run
					}
				}
			}
		}
		t.Fatal("no token")
		return nil
	}
	checkRuleCases(t, []ruleCase{
		{name: "replayed", run: func(t *testing.T) *trace.Run { return replayOf(t, "pk", three(t)) }, src: three,
			prop: report.LogReplayRules, status: report.Pass},
		{name: "first-hop-skips-P1", run: backwards, src: three, prop: report.LogReplayRules, status: report.Fail,
			witness: "P0 sends a token to P2 at seq", besides: []string{"token", "P1", "P2"},
			also: map[string]report.Status{report.Equivalence: report.Fail}},
	})
}

// putBackTrace: P0's receipt of x is lost with its fail, so P2's
// receipt of o is an orphan; P2's rollback undoes it and its receipt of
// m, whose copy 1 PK puts back, and P0's restart re-sends m (copy 2).
// P2's re-executed receive of m takes copy 1; copy 2 is left unconsumed.
func putBackTrace(t *testing.T) *trace.Trace {
	return mustBuild(t, tracetest.NewBuilder("P0", "P1", "P2").
		Send(0.2, "P0", "P2", "m").Send(0.32, "P1", "P0", "x").Recv(0.35, "P0", "x").Send(0.4, "P0", "P2", "o").
		Recv(0.45, "P2", "o").Recv(0.5, "P2", "m").Fail(0.7, "P0"))
}

// TestReceiveTakesCopiesInOrder: a receive examines its message's copies
// in arrival order (inOrder), found by the second review round: MS's
// stale discard of copy 1 deleted, the copy listed unconsumed and copy 2
// received instead, passed. A copy a rollback put back keeps its place:
// PK's re-executed receive taking the re-sent copy 2 of putBackTrace,
// copy 1 listed unconsumed instead, passed too (issue 28's red team, F3).
func TestReceiveTakesCopiesInOrder(t *testing.T) {
	laterCopy := func(t *testing.T) *trace.Run {
		// The re-executed receipt of m and the unconsumed record swap
		// copies.
		run := replayOf(t, "pk", putBackTrace(t))
		var takes []*trace.RunEvent // of m: two receipts, one record
		for i := range run.Events {
			if e := &run.Events[i]; e.Msg == msgID(run, "m") && (e.Kind == trace.Recv || e.Kind == trace.Unconsumed) {
				takes = append(takes, e)
			}
		}
		if len(takes) != 3 {
			t.Fatalf("%d receipts and records of m, want 3", len(takes))
		}
		takes[1].Copy, takes[2].Copy = takes[2].Copy, takes[1].Copy
		return run
	}
	skipped := func(t *testing.T) *trace.Run {
		run := replayOf(t, "ms", staleTrace(t))
		d := firstOf(t, run, trace.Discard)
		de := run.Events[d]
		run = removeAt(run, []int32{d})
		last := run.Events[len(run.Events)-1]
		u := trace.NewRunEvent(trace.Unconsumed, last.T, de.P)
		u.Seq, u.Msg, u.Copy = int32(len(run.Events)), de.Msg, de.Copy
		run.Events = append(run.Events, u)
		return run
	}
	checkRuleCases(t, []ruleCase{
		{name: "replayed", run: replayed("ms", staleTrace), src: staleTrace, prop: report.Equivalence, status: report.Pass},
		{name: "stale-copy-skipped", run: skipped, src: staleTrace, prop: report.Equivalence, status: report.Fail,
			witness: "takes copy 2 of m1 while copy 1 waits in its mailbox", besides: []string{"P1's recv of m1 at seq 8 comes at t=8.5, not at t=5"}},
		{name: "pk-replayed", run: replayed("pk", putBackTrace), src: putBackTrace, prop: report.Equivalence, status: report.Pass},
		{name: "pk-put-back-copy-skipped", run: laterCopy, src: putBackTrace, prop: report.Equivalence, status: report.Fail,
			witness: "P2's receive at seq 21 takes copy 2 of m while copy 1 waits in its mailbox"},
	})
}

// inTransit: m, sent at 1 and never received, arrives at 2
// (default_delay 1), after the last event: the run ends then, with m
// unconsumed.
func inTransit(t *testing.T) *trace.Trace {
	return mustBuild(t, tracetest.NewBuilder("P0", "P1").Internal(0.5, "P1").Send(1, "P0", "P1", "m"))
}

// TestEndRecordsAtRunEnd: a replay writes its end and unconsumed records
// at the time of the last item it handled (endTime), here m's arrival.
// A red team moved one end or unconsumed record to another time, and
// the run passed; so did all of them moved together.
func TestEndRecordsAtRunEnd(t *testing.T) {
	retimed := func(from int, at float64) func(t *testing.T) *trace.Run {
		return func(t *testing.T) *trace.Run {
			run := replayOf(t, "ms", inTransit(t))
			for i := from; i < len(run.Events) && from >= 0; i++ {
				run.Events[i].T = trace.Time(at * float64(trace.Second))
			}
			return run
		}
	}
	eq := report.Equivalence
	checkRuleCases(t, []ruleCase{
		{name: "replayed", run: retimed(-1, 0), src: inTransit, prop: eq, status: report.Pass},
		{name: "all-later", run: retimed(2, 3), src: inTransit, prop: eq, status: report.Fail,
			witness: "comes at t=3, not at the run's end, t=2"},
		{name: "all-before-arrival", run: retimed(2, 1.5), src: inTransit, prop: eq, status: report.Fail,
			witness: "comes at t=1.5, not at the run's end, t=2"},
		{name: "unconsumed-later", run: retimed(4, 2.5), src: inTransit, prop: eq, status: report.Fail,
			witness: "P1's unconsumed record at seq 4 comes at t=2.5"},
	})
}
