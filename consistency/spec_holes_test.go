package consistency

import (
	"testing"

	"github.com/ckpt-dev/ckpt/trace/tracetest"

	"github.com/ckpt-dev/ckpt/algorithms/mutants"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// The holes issue 28 closed: forged runs, each an engine run with one
// thing edited, that every rule of the checker before the protocol specs
// passed (the log-replay-rules verdict was pass on each; checked against
// that checker, commit d6ffbd3) and that the specs reject.

// replayVariant replays tr through MS's variant (ms only).
func replayVariant(t *testing.T, variant string, tr *trace.Trace) *trace.Run {
	t.Helper()
	a, err := mutants.New("ms", variant, tr)
	if err != nil {
		t.Fatal(err)
	}
	run, err := replay.Run(tr, a, replay.Options{Variant: variant})
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// moveEvent moves the event at from to seq to (shifting those between),
// at time at, the failure fields following the events they name.
func moveEvent(run *trace.Run, from, to int32, at float64) *trace.Run {
	e := run.Events[from]
	e.T = trace.Time(at * float64(trace.Second))
	idx := make([]int, 0, len(run.Events))
	for i := range run.Events {
		if int32(i) == from {
			continue
		}
		if int32(i) == to {
			idx = append(idx, -1)
		}
		idx = append(idx, i)
	}
	newSeq := map[int32]int32{}
	for k, i := range idx {
		if i >= 0 {
			newSeq[int32(i)] = int32(k)
		} else {
			newSeq[from] = int32(k)
		}
	}
	out := make([]trace.RunEvent, len(idx))
	for k, i := range idx {
		x := e
		if i >= 0 {
			x = run.Events[i]
		}
		if x.Failure != trace.None {
			x.Failure = newSeq[x.Failure]
		}
		out[k] = x
	}
	run.Events = out
	return renumber(run)
}

// futureHold: P0's restart (r = 1) sends its request with control_delay
// 3, and its message b reaches P1 first: P1 holds b until the request
// (run seq 6), takes a recovery checkpoint (seq 7) and delivers b.
func futureHold(t *testing.T) *trace.Trace {
	return mustBuild(t, tracetest.NewBuilder("P0", "P1").Params(trace.Params{ControlDelay: 3 * trace.Second}).
		Checkpoint(0.1, "P0").Fail(0.6, "P0").Send(0.8, "P0", "P1", "b").Recv(1, "P1", "b"))
}

// logTrace: P1's checkpoints are numbered 2 when m (sn 0) reaches it, so
// MS logs m at its receipt (run seq 3, 4).
func logTrace(t *testing.T) *trace.Trace {
	return mustBuild(t, tracetest.NewBuilder("P0", "P1").
		Checkpoint(1, "P1").Checkpoint(2, "P1").Send(3, "P0", "P1", "m").Recv(4, "P1", "m"))
}

// forcedTrace: m (sn 1) reaches P1 (sn 0): a forced checkpoint and the
// receipt at t=3 (run seq 2, 3).
func forcedTrace(t *testing.T) *trace.Trace {
	return mustBuild(t, tracetest.NewBuilder("P0", "P1").
		Checkpoint(1, "P0").Send(2, "P0", "P1", "m").Recv(3, "P1", "m"))
}

// retransmitTrace: P0 crashes right after sending m1, its restart
// re-transmits it (copy 2, run seq 2), and P1 takes copy 1 at t=5, after
// which copy 2 arrives (t=6.1) and is left unconsumed.
func retransmitTrace(t *testing.T) *trace.Trace {
	return mustBuild(t, tracetest.NewBuilder("P0", "P1").
		Send(0.1, "P0", "P1", "m1").Fail(0.2, "P0").Recv(5, "P1", "m1"))
}

// twoStale: P0 and P1 fail (run seqs 1 and 2) while m, sent before,
// travels; both recoveries make its copy 1 stale at P3, and MS names
// the first, P0's.
func twoStale(t *testing.T) *trace.Trace {
	return mustBuild(t, tracetest.NewBuilder("P0", "P1", "P2", "P3").
		Send(0.1, "P2", "P3", "m").Fail(0.2, "P0").Fail(0.3, "P1").Recv(5, "P3", "m"))
}

// twoFailures: P0's failure (run seq 1) is announced to everyone before
// P1 loses its receipt of m2; at P1's token P2 resends m2.
func twoFailures(t *testing.T) *trace.Trace {
	return mustBuild(t, tracetest.NewBuilder("P0", "P1", "P2").
		Fail(0.05, "P0").Send(3, "P2", "P1", "m2").Recv(3.5, "P1", "m2").Fail(4, "P1").Internal(6, "P1"))
}

// textbookRollback: P1 holds checkpoints numbered 1, 2 and 3 when the
// request of P0's crash (r = 2) reaches it: the textbook variant rolls
// back to checkpoint 2 (run seq 13) and re-executes its op 2 (seq 14).
func textbookRollback(t *testing.T) *trace.Trace {
	return mustBuild(t, tracetest.NewBuilder("P0", "P1").
		Internal(0.5, "P1").Checkpoint(1, "P0").Checkpoint(1, "P1").Send(1.5, "P0", "P1", "a").
		Checkpoint(2, "P0").Recv(2, "P1", "a").Checkpoint(3, "P1").Internal(4, "P1").Checkpoint(4.5, "P1").Fail(5, "P0"))
}

// discardValid: retransmitTrace's P1 discards copy 1 (with reason) when
// copy 2 has arrived and delivers copy 2: copy 1 was valid.
func discardValid(reason trace.Reason) func(t *testing.T) *trace.Run {
	return func(t *testing.T) *trace.Run {
		run := replayOf(t, "pk", retransmitTrace(t))
		at := run.Events[len(run.Events)-1].T // copy 2's arrival, the run's end
		r := forge(t, run, 9, trace.Recv, func(e *trace.RunEvent) { e.Copy, e.T = 2, at })
		d := trace.NewRunEvent(trace.Discard, at, 1)
		d.Msg, d.Copy, d.Reason = msgID(r, "m1"), 1, reason
		r = insertAt(r, 9, d)
		r.Events = r.Events[:len(r.Events)-1] // copy 2 is no longer unconsumed
		return r
	}
}

func TestSpecHoles(t *testing.T) { checkRuleCases(t, holeCases()) }

// holeCases are the forged runs of the holes, as rule cases.
func holeCases() []ruleCase {
	lrr := report.LogReplayRules
	tb := func(t *testing.T) *trace.Run { return replayVariant(t, "textbook", textbookRollback(t)) }
	return []ruleCase{
		// An MS recovery checkpoint moved to the failed process's restart
		// instant, before the request that causes it reaches P1.
		{name: "ms-recovery-checkpoint-early", src: futureHold, prop: lrr, status: fail,
			run:     func(t *testing.T) *trace.Run { return moveEvent(replayOf(t, "ms", futureHold(t)), 7, 3, 1.6) },
			witness: "P1's recovery checkpoint 1 at seq 3 applies no failure"},
		// ... and with it, b delivered at its arrival without the hold:
		// a message from the future, but for the forged checkpoint.
		{name: "ms-future-unheld", src: futureHold, prop: lrr, status: fail,
			run: func(t *testing.T) *trace.Run {
				run := moveEvent(replayOf(t, "ms", futureHold(t)), 7, 3, 1.6)
				run = moveEvent(run, 9, 6, 2.6) // the receipt, at b's arrival
				run = dropEvents(run, func(e *trace.RunEvent) bool { return e.Kind == trace.Hold || e.Kind == trace.Unhold })
				return run
			},
			witness: "P1's recovery checkpoint 1 at seq 3 applies no failure"},
		// P0's restart names a checkpoint it never took: domino-free
		// fails, and MS's spec, which numbers the recovery by the
		// checkpoint restored (history.Failure), diverges there.
		unknownRestore("ms", trace.Restart, futureHold, "P0's restart at seq 2 restores checkpoint 7, which it never took"),
		unknownRestore("ms", trace.Rollback, rollbackTrace, "P1's rollback at seq 11 restores checkpoint 7, which it never took"),
		// The same for PK, and for rollbacks (review: only MS's restart
		// was judged; the others fell back to the rule's checkpoint).
		unknownRestore("pk", trace.Restart, futureHold, "P0's restart at seq 3 restores checkpoint 7, which it never took"),
		unknownRestore("pk", trace.Rollback, bundled("orphan"), "P1's rollback at seq 14 restores checkpoint 7, which it never took"),
		// P0 applies its own failure's recovery at its restart, then
		// rolls back for that failure again: MS applies a recovery once
		// (review: this passed, left to domino-free, which counts
		// rollbacks only).
		// (Its restore also moves op 0's ready time: equivalence fails too.)
		{name: "ms-rollback-applied-again", src: rollbackTrace, prop: lrr, status: fail,
			also: map[string]report.Status{report.Equivalence: fail},
			run: func(t *testing.T) *trace.Run {
				run := replayOf(t, "ms", rollbackTrace(t))
				r := firstOf(t, run, trace.Restart)
				e, k := run.Events[r], r+1 // before P0 executes again
				for run.Events[k].P != e.P || !run.Events[k].Kind.IsOp() {
					k++
				}
				rb := trace.NewRunEvent(trace.Rollback, run.Events[k-1].T, e.P)
				rb.Pos, rb.Restore, rb.Cause, rb.Failure, rb.Undone = e.Pos, e.Restore, trace.CauseToken, firstOf(t, run, trace.Fail), 0
				return insertAt(run, k, rb)
			},
			witness: "whose recovery (P0, 1, r=1) it has applied already"},
		// PK discards of a valid copy, with reason down or none.
		// (Copy 1 waited in the mailbox from t=5: equivalence fails too.)
		{name: "pk-discard-down", src: retransmitTrace, prop: lrr, status: fail, run: discardValid(trace.ReasonDown),
			also: map[string]report.Status{report.Equivalence: fail}, witness: "P1 discards copy 1 of m1 at seq 9 as down"},
		{name: "pk-discard-no-reason", src: retransmitTrace, prop: lrr, status: fail, run: discardValid(trace.ReasonNone),
			also: map[string]report.Status{report.Equivalence: fail}, witness: "it has no unexplained discards"},
		// Discards, MS logs and forced checkpoints before the copy's arrival.
		{name: "ms-discard-early", src: staleTrace, prop: report.Equivalence, status: fail,
			run: func(t *testing.T) *trace.Run {
				return forge(t, replayOf(t, "ms", staleTrace(t)), 7, trace.Discard, func(e *trace.RunEvent) { e.T = 45 * trace.Second / 10 })
			},
			witness: "P1 discards m1 at seq 7, t=4.5, before it arrives at t=5"},
		{name: "ms-log-early", src: logTrace, prop: lrr, status: fail,
			run: func(t *testing.T) *trace.Run {
				return forge(t, replayOf(t, "ms", logTrace(t)), 3, trace.Log, func(e *trace.RunEvent) { e.T = 35 * trace.Second / 10 })
			},
			witness: "P1's recv at seq 4 (t=4) comes at t=4, not at the instant of P1's log at seq 3 (t=3.5)"},
		{name: "ms-forced-early", src: forcedTrace, prop: lrr, status: fail,
			run: func(t *testing.T) *trace.Run {
				return forge(t, replayOf(t, "ms", forcedTrace(t)), 2, trace.Checkpoint, func(e *trace.RunEvent) { e.T = 25 * trace.Second / 10 })
			},
			witness: "not at the instant of P1's checkpoint at seq 2 (t=2.5)"},
		// The textbook variant's piggyback, restart inc and rollbacks.
		{name: "textbook-pb-inc", src: textbookRollback, prop: lrr, status: fail,
			run: func(t *testing.T) *trace.Run {
				run := tb(t)
				pb := *run.PB(&run.Events[3])
				pb.Inc = 1
				return forge(t, run, 3, trace.Send, func(e *trace.RunEvent) { e.PB = run.AddPB(&pb) })
			},
			witness: "sn 1, inc 0, rec_line 0, but the send at seq 3 carries sn 1, inc 1, rec_line 0"},
		{name: "textbook-pb-rec-line", src: textbookRollback, prop: lrr, status: fail,
			run: func(t *testing.T) *trace.Run {
				run := tb(t)
				pb := *run.PB(&run.Events[3])
				pb.RecLine = 1
				return forge(t, run, 3, trace.Send, func(e *trace.RunEvent) { e.PB = run.AddPB(&pb) })
			},
			witness: "sn 1, inc 0, rec_line 0, but the send at seq 3 carries sn 1, inc 0, rec_line 1"},
		{name: "textbook-restart-inc", src: textbookRollback, prop: lrr, status: fail,
			run: func(t *testing.T) *trace.Run {
				return forge(t, tb(t), 10, trace.Restart, func(e *trace.RunEvent) { e.Inc = 2 })
			},
			witness: "P0's restart at seq 10 says inc 2, not 1"},
		{name: "textbook-rollback-cause", src: textbookRollback, prop: lrr, status: fail,
			run: func(t *testing.T) *trace.Run {
				return forge(t, tb(t), 13, trace.Rollback, func(e *trace.RunEvent) { e.Cause = trace.CauseMessage })
			},
			witness: "P1's rollback at seq 13 says cause message, not request"},
		// Checkpoint 3 restored instead of 2: nothing re-executed (the
		// ends, left at the re-executed op's time, are late too).
		{name: "textbook-rollback-later-checkpoint", src: textbookRollback, prop: lrr, status: fail,
			also: map[string]report.Status{report.Equivalence: fail},
			run: func(t *testing.T) *trace.Run {
				run := forge(t, tb(t), 13, trace.Rollback, func(e *trace.RunEvent) { e.Restore, e.Pos, e.Undone = 3, 3, 0 })
				return dropEvents(run, func(e *trace.RunEvent) bool { return e.Seq == 14 })
			},
			witness: "P1's rollback at seq 13 restores checkpoint 3, not checkpoint 2"},
		// A textbook stale discard naming a send, or no event, as its
		// failure (red team: the textbook branch never judged it).
		textbookDiscardFailure("send", func(run *trace.Run) int32 { return firstOfKind(run, trace.Send) }, "the run has no effective fail event at seq"),
		textbookDiscardFailure("none", func(*trace.Run) int32 { return 999 }, "failure seq 999 has made no recovery yet"),
		// An MS stale discard naming P1's failure, which makes the copy
		// stale too, instead of P0's (a red team's forgery passed).
		{name: "ms-discard-second-recovery", src: twoStale, prop: lrr, status: fail,
			run: func(t *testing.T) *trace.Run {
				run := replayOf(t, "ms", twoStale(t))
				return forge(t, run, firstOf(t, run, trace.Discard), trace.Discard, func(e *trace.RunEvent) { e.Failure = 2 })
			},
			witness: "MS names the first recovery that makes it stale, by origin and then count, which is (P0, 1)"},
		// Resends naming another failure than their cause's, and a
		// restart's re-transmission written twice.
		{name: "pk-hop-resend-failure", src: twoFailures, prop: lrr, status: fail,
			run: func(t *testing.T) *trace.Run {
				run := replayOf(t, "pk", twoFailures(t))
				s := firstResend(t, run, 2)
				return forge(t, run, s, trace.Send, func(e *trace.RunEvent) { e.Failure = 0 })
			},
			witness: "names failure seq 0, not seq"},
		{name: "pk-restart-resend-twice", src: retransmitTrace, prop: lrr, status: fail,
			run: func(t *testing.T) *trace.Run {
				run := replayOf(t, "pk", retransmitTrace(t))
				e := run.Events[2]
				e.Copy = 3
				run = insertAt(run, 3, e)
				u := run.Events[len(run.Events)-1]
				u.Copy = 3
				return insertAt(run, int32(len(run.Events)), u)
			},
			witness: "repeats op 0 a second time"},
	}
}

// textbookDiscardFailure is staleTrace's textbook run with its stale
// discard naming failure(run) instead of P0's fail.
func textbookDiscardFailure(name string, failure func(*trace.Run) int32, witness string) ruleCase {
	return ruleCase{name: "textbook-discard-failure-" + name, src: staleTrace, prop: report.LogReplayRules, status: report.Fail,
		run: func(t *testing.T) *trace.Run {
			run := replayVariant(t, "textbook", staleTrace(t))
			return forge(t, run, firstOf(t, run, trace.Discard), trace.Discard, func(e *trace.RunEvent) { e.Failure = failure(run) })
		},
		witness: witness}
}

// firstResend returns the seq of run's first resend by process p.
// unknownRestore is the case of alg's replay of src with its first
// event of kind (a restart or a rollback) naming checkpoint 7, which
// its process never took.
func unknownRestore(alg string, kind trace.Kind, src func(*testing.T) *trace.Trace, witness string) ruleCase {
	return ruleCase{name: alg + "-" + kind.String() + "-unknown-checkpoint", src: src, prop: report.LogReplayRules, status: report.Fail,
		also: map[string]report.Status{report.DominoFree: report.Fail},
		run: func(t *testing.T) *trace.Run {
			run := replayOf(t, alg, src(t))
			return forge(t, run, firstOf(t, run, kind), kind, func(e *trace.RunEvent) { e.Restore = 7 })
		},
		witness: witness}
}

func firstResend(t *testing.T, run *trace.Run, p int32) int32 {
	t.Helper()
	for i := range run.Events {
		if e := &run.Events[i]; e.Kind == trace.Send && e.Resend && e.P == p {
			return int32(i)
		}
	}
	t.Fatalf("no resend by process %d", p)
	return 0
}
