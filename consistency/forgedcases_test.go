package consistency

import (
	"path/filepath"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/codec"
	"github.com/ckpt-dev/ckpt/trace/gen"
	"github.com/ckpt-dev/ckpt/trace/tracetest"

	"github.com/ckpt-dev/ckpt/algorithms/mutants"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// Issue 14, "take nothing on trust": runs that the engine wrote
// correctly, with one field forged, which `ckpt check` passed before
// the checker rebuilt that field. Each is a replay of a small trace
// (a bundled example where one shows the field) through ms or pk and
// one edit of one event; the files under testdata/PROPERTY/fail are
// their output, so `ckpt check` sees the same forged runs.

// bundled reads one of the bundled example traces.
func bundled(name string) func(t *testing.T) *trace.Trace {
	return func(t *testing.T) *trace.Trace {
		t.Helper()
		tr, err := codec.ReadTraceFile(filepath.Join("..", "testdata", "traces", name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
}

// specTrace reads a trace of testdata/spec.
func specTrace(name string) func(t *testing.T) *trace.Trace {
	return func(t *testing.T) *trace.Trace {
		t.Helper()
		tr, err := codec.ReadTraceFile(filepath.Join("testdata", "spec", name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
}

// forged is a case whose run is src replayed through alg with the first
// event edit selects (by seq, kind and process) changed by edit.
func forged(property, name, witness, alg string, src func(*testing.T) *trace.Trace, pick func(run *trace.Run, e *trace.RunEvent) bool, edit func(run *trace.Run, e *trace.RunEvent)) propCase {
	return propCase{property: property, name: name, fail: true, witness: witness, src: src,
		replayed: func(t *testing.T) *trace.Run {
			t.Helper()
			run := replayOf(t, alg, src(t))
			for i := range run.Events {
				if e := &run.Events[i]; pick(run, e) {
					edit(run, e)
					return run
				}
			}
			t.Fatalf("%s: no event to forge", name)
			return nil
		}}
}

// relabelled is a log-replay-rules case whose run is src replayed
// through alg with its header naming another algorithm, label.
func relabelled(name, witness, alg, label string, src func(*testing.T) *trace.Trace) propCase {
	return propCase{property: report.LogReplayRules, name: name, fail: true, witness: witness, src: src,
		replayed: func(t *testing.T) *trace.Run {
			t.Helper()
			run := replayOf(t, alg, src(t))
			run.Algorithm, run.Options.Variant = label, ""
			return run
		}}
}

// replayOf replays tr through algorithm alg (ms or pk).
func replayOf(t *testing.T, alg string, tr *trace.Trace) *trace.Run {
	t.Helper()
	a, err := mutants.New(alg, "", tr)
	if err != nil {
		t.Fatal(err)
	}
	run, err := replay.Run(tr, a, replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// firstOfType picks the first checkpoint of type typ.
func firstOfType(typ trace.CkptType) func(run *trace.Run, e *trace.RunEvent) bool {
	return func(run *trace.Run, e *trace.RunEvent) bool { return e.Kind == trace.Checkpoint && e.CkptType == typ }
}

// at picks the event at seq, checking its kind.
func at(seq int32, kind trace.Kind) func(run *trace.Run, e *trace.RunEvent) bool {
	return func(run *trace.Run, e *trace.RunEvent) bool { return e.Seq == seq && e.Kind == kind }
}

// msgID returns the run's index of message id, or None.
func msgID(run *trace.Run, id string) int32 {
	for i, m := range run.Msgs {
		if m == id {
			return int32(i)
		}
	}
	return trace.None
}

// rollbackTrace: P1 holds checkpoint 1 (sn 1, pos 1) and checkpoint 2
// (sn 2, pos 2) when P0's failure, whose line is r = 1, reaches it: MS
// restores checkpoint 1 and keeps 1 op.
func rollbackTrace(t *testing.T) *trace.Trace {
	return mustBuild(t, tracetest.NewBuilder("P0", "P1").
		Internal(0.5, "P1").Checkpoint(1, "P0").Checkpoint(1, "P1").Internal(1.5, "P0").
		Internal(2, "P1").Checkpoint(3, "P1").Internal(4, "P1").Fail(5, "P0"))
}

// staleTrace: P0 sends m1 after its checkpoint 1 and crashes before m1
// arrives; P1 applies the recovery (P0, 1, r=1) first, so MS discards
// copy 1 of m1 as stale (run seq 7), for failure seq 2.
func staleTrace(t *testing.T) *trace.Trace {
	return mustBuild(t, tracetest.NewBuilder("P0", "P1").
		Checkpoint(1, "P0").Send(2, "P0", "P1", "m1").Fail(2.5, "P0").Recv(5, "P1", "m1"))
}

func forgedCases() []propCase {
	orphanPK, forcedMS, orphanMS := bundled("orphan"), bundled("forced"), bundled("orphan")
	rb := func(t *testing.T) *trace.Trace { return rollbackTrace(t) }
	stale := func(t *testing.T) *trace.Trace { return staleTrace(t) }
	domino := bundled("domino")
	return []propCase{
		// 1. end records.
		forged(report.Equivalence, "forged-end-blocked-received", "P1's end at seq 29 says blocked at op 1 on m4", "pk", orphanPK,
			at(29, trace.End), func(run *trace.Run, e *trace.RunEvent) {
				e.State, e.Op, e.Msg = trace.StateBlocked, 1, msgID(run, "m4")
			}),
		{property: report.Equivalence, name: "forged-end-held", fail: true, witness: "nothing holds P1 at the end",
			run: func() *trace.Run {
				run := msFailureRun(msOpts{discardResent: true})
				run.Events[len(run.Events)-1].State = trace.StateHeld
				return run
			}},
		forged(report.Equivalence, "forged-end-down", "P0's end at seq 22 says down", "ms", forcedMS,
			at(22, trace.End), func(run *trace.Run, e *trace.RunEvent) { e.State = trace.StateDown }),
		// A receive naming another sender than its copy's (review round).
		forged(report.Equivalence, "forged-recv-from", "P2 receives copy 2 of m3 at seq 21 from P1, but P0 sent it", "ms", orphanMS,
			at(21, trace.Recv), func(run *trace.Run, e *trace.RunEvent) { e.Peer = 1 }),
		// A PK log event left out: the flush at t=3.1 (source trace)
		// wrote P2's receipt of m3 to stable storage (review round).
		{property: report.LogReplayRules, name: "forged-flush-unlogged", fail: true, src: orphanPK,
			witness: "P2's flush at t=3.1 leaves its receipt of m3 at seq 5 off stable storage",
			replayed: func(t *testing.T) *trace.Run {
				return dropEvents(replayOf(t, "pk", orphanPK(t)), func(e *trace.RunEvent) bool { return e.Kind == trace.Log && e.P == 2 })
			}},
		// A run of one algorithm labelled as another (review round).
		relabelled("forged-label-textbook", "P1's send of m1 at seq 4 piggybacks {sn}, not what MS's textbook variant sends", "ms", "ms-textbook", bundled("textbook-orphan")),
		relabelled("forged-label-bcs", "P0 sends a rollback control message at seq 13, which BCS does not send", "ms", "bcs", orphanMS),
		// A rollback cause the algorithm never has, or one not received.
		forged(report.LogReplayRules, "forged-rollback-cause-ms", "P1's rollback at seq 16 says cause token, not request", "ms", orphanMS,
			at(16, trace.Rollback), func(run *trace.Run, e *trace.RunEvent) { e.Cause = trace.CauseToken }),
		forged(report.LogReplayRules, "forged-rollback-cause-pk", "P2's rollback at seq 18 says cause token, but P2 received no token control message for failure seq 3", "pk", orphanPK,
			at(18, trace.Rollback), func(run *trace.Run, e *trace.RunEvent) { e.Failure = 3 }),
		// 2. a restore whose checkpoint was taken at another position.
		forged(report.Equivalence, "forged-restore-id", "restores checkpoint 2, taken at pos 2, but says pos 1", "ms", rb,
			func(run *trace.Run, e *trace.RunEvent) bool { return e.Kind == trace.Rollback && e.P == 1 },
			func(run *trace.Run, e *trace.RunEvent) { e.Restore = 2 }),
		forged(report.LogReplayRules, "forged-restore-id-ms", "restores checkpoint 3, not checkpoint 1", "ms", bundled("textbook-orphan"),
			at(21, trace.Rollback), func(run *trace.Run, e *trace.RunEvent) { e.Restore = 3 }),
		forged(report.LogReplayRules, "forged-restore-id-pk", "restores checkpoint 0, not checkpoint 1", "pk", orphanPK,
			at(18, trace.Rollback), func(run *trace.Run, e *trace.RunEvent) { e.Restore = 0 }),
		// 3. a resend that names a copy it does not repeat.
		forged(report.Equivalence, "forged-resend-of-self", "says it repeats copy 2 of m2, but the send it repeats", "pk", orphanPK,
			at(15, trace.Send), func(run *trace.Run, e *trace.RunEvent) { e.Of = 2 }),
		forged(report.Equivalence, "forged-resend-of-missing", "says it repeats copy 7 of m2, but the send it repeats", "pk", orphanPK,
			at(15, trace.Send), func(run *trace.Run, e *trace.RunEvent) { e.Of = 7 }),
		// 4. discards with a forged reason or failure.
		forged(report.LogReplayRules, "forged-discard-reason", "discards copy 1 of m1 at seq 7 as orphan", "ms", stale,
			at(7, trace.Discard), func(run *trace.Run, e *trace.RunEvent) { e.Reason = trace.ReasonOrphan }),
		forged(report.LogReplayRules, "forged-discard-failure", "names failure seq 3", "ms", stale,
			at(7, trace.Discard), func(run *trace.Run, e *trace.RunEvent) { e.Failure = 3 }),
		// 5. a control message received with another body than was sent.
		forged(report.Equivalence, "forged-control-body", "receives a rollback control message at seq 15 whose body differs", "ms", orphanMS,
			at(15, trace.ControlRecv), func(run *trace.Run, e *trace.RunEvent) {
				b := *run.Body(e)
				b.R = 2
				e.Body = run.AddBody(&b)
			}),
		forged(report.LogReplayRules, "forged-control-body-both", "carries {origin P0, count 1, r 2}, not {origin P0, count 1, r 1}", "ms", orphanMS,
			at(13, trace.ControlSend), func(run *trace.Run, e *trace.RunEvent) {
				run.Bodies[e.Body].R = 2 // the engine's events share the body: every end of it
			}),
		// 6. a forced checkpoint relabelled as a recovery checkpoint.
		forged(report.LogReplayRules, "forged-recovery-checkpoint", "recovery checkpoint 1 at seq 3 applies no failure", "ms", forcedMS,
			at(3, trace.Checkpoint), func(run *trace.Run, e *trace.RunEvent) { e.CkptType = trace.CkptRecovery }),
		// 7. a token's received list forged the same way on every hop
		// (P0's restart at seq 22 keeps its receipts of y0 and y1), and
		// one forged from the forwarder's hop on.
		forged(report.LogReplayRules, "forged-token-received-extra", "lists (y2, inc 0), which P0 had not received live at its restart at seq 22", "pk", domino,
			at(23, trace.ControlSend), forgeReceived(false, "y0", "y1", "y2")),
		forged(report.LogReplayRules, "forged-token-received-dropped", "lacks (y0, inc 0), which P0 had received live at its restart at seq 22", "pk", domino,
			at(23, trace.ControlSend), forgeReceived(false, "y1")),
		forged(report.LogReplayRules, "forged-token-received-forwarded", "sent at seq 26 lacks (y1, inc 0)", "pk", domino,
			at(26, trace.ControlSend), forgeReceived(true, "y0")),
		forged(report.LogReplayRules, "forged-token-received-inc", "(y0, inc 1)", "pk", domino,
			at(23, trace.ControlSend), func(run *trace.Run, e *trace.RunEvent) {
				forgeReceived(false, "y0", "y1")(run, e)
				run.Bodies[e.Body].Received[0].Inc = 1
			}),
		forged(report.LogReplayRules, "forged-token-received-twice", "lists (y0, inc 0) twice", "pk", domino,
			at(23, trace.ControlSend), forgeReceived(false, "y0", "y0")),
		// What a token hop resends (token_resend_test.go): m2 twice, and
		// m2 where the token lists it.
		{property: report.LogReplayRules, name: "forged-token-resent-twice", fail: true, src: tokenHops,
			witness: "P2 resends its send of m2 at seq 2 more than once for the failure at seq 4", replayed: extraResend(tokenHops, 9, 3, 2.5, 4)},
		{property: report.LogReplayRules, name: "forged-token-resent-listed", fail: true, src: tokenListsAll,
			witness: "the token lists (m2, inc 0)", replayed: extraResend(tokenListsAll, 11, 2, 2.5, 6)},
		// 8. what an algorithm sends: its piggyback fields and control
		// kinds (log_replay_rules_shape.go), and the causes it rolls back
		// for (log_replay_rules_cause.go), on runs of the right label.
		forged(report.LogReplayRules, "forged-pb-extra-field", "piggybacks {sn, vt}, not what MS sends", "ms", orphanMS,
			at(2, trace.Send), func(run *trace.Run, e *trace.RunEvent) {
				pb := *run.PB(e)
				pb.VT = trace.VT{{}, {}, {}}
				e.PB = run.AddPB(&pb)
			}),
		forged(report.LogReplayRules, "forged-control-kind-ms", "P0 sends a token control message at seq 13, which MS does not send", "ms", orphanMS,
			at(13, trace.ControlSend), func(run *trace.Run, e *trace.RunEvent) { e.Control = trace.ControlToken }),
		// ... and what it writes besides (shape.go, redteam7): a tick
		// skipped by a protocol that never skips one hid the checkpoint
		// the protocol's promises failed on; a checkpoint type, skip
		// reason or log event of another algorithm.
		forged(report.LogReplayRules, "forged-skip-bcs", "skipped tick (reason none) at seq 2 cannot be in a run of BCS", "bcs", bundled("failure-free"),
			firstOfType(trace.CkptBasic), func(run *trace.Run, e *trace.RunEvent) {
				e.Kind, e.CkptType, e.Ckpt, e.Pos = trace.CheckpointSkipped, trace.CkptNone, trace.None, trace.None
			}),
		forged(report.LogReplayRules, "forged-skip-reason-ms", "skipped tick (reason in-round) at seq 0 cannot be in a run of MS", "ms", forcedMS,
			firstOfType(trace.CkptBasic), func(run *trace.Run, e *trace.RunEvent) {
				e.Kind, e.CkptType, e.Ckpt, e.Pos, e.Reason, e.Next = trace.CheckpointSkipped, trace.CkptNone, trace.None, trace.None, trace.ReasonInRound, e.Sn
			}),
		forged(report.LogReplayRules, "forged-ckpt-type-pk", "forced checkpoint at seq 0 cannot be in a run of PK", "pk", orphanPK,
			firstOfType(trace.CkptBasic), func(run *trace.Run, e *trace.RunEvent) { e.CkptType = trace.CkptForced }),
		forged(report.LogReplayRules, "forged-ckpt-initial-fdas", "initial checkpoint at seq 2 cannot be in a run of FDAS", "fdas", bundled("failure-free"),
			firstOfType(trace.CkptBasic), func(run *trace.Run, e *trace.RunEvent) { e.CkptType = trace.CkptInitial }),
		forged(report.LogReplayRules, "forged-log-hmnr", "log event at seq", "hmnr", bundled("failure-free"),
			func(run *trace.Run, e *trace.RunEvent) bool { return e.Kind == trace.Recv },
			func(run *trace.Run, e *trace.RunEvent) { e.Kind = trace.Log }),
		// An orphan discard names the failure whose announcement its
		// process recorded (redteam7): failure 144's token reaches P1 at
		// t=55.994, after the discard at seq 166 (t=52.886) that names it.
		forged(report.LogReplayRules, "forged-discard-unheard-pk", "P1 had not recorded its announcement (P2, inc 0, k 7) by seq 166", "pk", specTrace("slow-tokens"),
			at(166, trace.Discard), func(run *trace.Run, e *trace.RunEvent) { e.Failure = 144 }),
		// Coordinated checkpointing's rounds (spec_coordinated.go,
		// redteam7): an ack for another round than the request its
		// checkpoint answered; an in-round skip by a process that starts
		// no round; a block while blocked.
		forged(report.LogReplayRules, "forged-ack-round-coordinated", "P1 acknowledges a round at seq 14 without a checkpoint that answers its request", "coordinated", bundled("failure-free"),
			at(14, trace.ControlSend), func(run *trace.Run, e *trace.RunEvent) {
				b := *run.Body(e)
				b.Count++
				e.Body = run.AddBody(&b)
			}),
		forged(report.LogReplayRules, "forged-skip-role-coordinated", "P1 skips its tick at seq 6 as in-round, but no round of its runs", "coordinated", bundled("failure-free"),
			at(6, trace.CheckpointSkipped), func(run *trace.Run, e *trace.RunEvent) { e.Reason = trace.ReasonInRound }),
		// ... the initiator's round start relabelled, a non-initiator
		// checkpointing at its own tick (redteam8: whole rounds deleted,
		// their ticks relabelled, passed).
		forged(report.LogReplayRules, "forged-initiator-skip-coordinated", "P0 skips its tick at seq 2 as not-initiator, but it is the initiator", "coordinated", bundled("failure-free"),
			at(2, trace.Checkpoint), func(run *trace.Run, e *trace.RunEvent) {
				e.Kind, e.CkptType, e.Ckpt, e.Pos, e.Reason = trace.CheckpointSkipped, trace.CkptNone, trace.None, trace.None, trace.ReasonNotInitiator
			}),
		forged(report.LogReplayRules, "forged-own-tick-coordinated", "P1 checkpoints at its own tick at seq 6", "coordinated", bundled("failure-free"),
			at(6, trace.CheckpointSkipped), func(run *trace.Run, e *trace.RunEvent) {
				e.Kind, e.CkptType, e.Ckpt, e.Pos, e.Sn, e.Reason = trace.Checkpoint, trace.CkptBasic, 99, 0, 1, trace.ReasonNone
			}),
		{property: report.LogReplayRules, name: "forged-resume-deleted-coordinated", fail: true, src: bundled("failure-free"),
			witness: "P0 executes op 1 at seq 51 while blocked since seq 25",
			replayed: func(t *testing.T) *trace.Run {
				return dropEvents(replayOf(t, "coordinated", bundled("failure-free")(t)), func(e *trace.RunEvent) bool {
					return e.Kind == trace.Resume && e.P == 0 && e.T == 3*trace.Second
				})
			}},
		forged(report.LogReplayRules, "forged-block-twice-coordinated", "P0 blocks at seq 23 while blocked since seq 3", "coordinated", bundled("failure-free"),
			at(23, trace.Resume), func(run *trace.Run, e *trace.RunEvent) { e.Kind = trace.Block }),
		// An MS hold's until names the recovery it waits for (redteam7).
		forged(report.LogReplayRules, "forged-hold-until-ms", `it says until "whatever"`, "ms", futureHold,
			func(run *trace.Run, e *trace.RunEvent) bool { return e.Kind == trace.Hold },
			func(run *trace.Run, e *trace.RunEvent) { e.Until = run.AddString("whatever") }),
		forged(report.LogReplayRules, "forged-rollback-cause-message-ms", "says cause message, not request", "ms", orphanMS,
			at(16, trace.Rollback), func(run *trace.Run, e *trace.RunEvent) { e.Cause = trace.CauseMessage }),
		forged(report.LogReplayRules, "forged-rollback-cause-request-pk", "says cause request, not token", "pk", orphanPK,
			at(14, trace.Rollback), func(run *trace.Run, e *trace.RunEvent) { e.Cause = trace.CauseRequest }),
		// 9. timing (red team, issue 28): a process acts on a Rollback
		// request when it arrives; P1's recovery checkpoint, and what
		// follows it, moved later (a rollback moved so shifts the ready
		// time of what it re-executes, which equivalence judges).
		forged(report.LogReplayRules, "forged-recovery-late-ms", "P1's checkpoint at seq 7 (t=5) comes at t=5, not at the instant of P1's control_recv at seq 6 (t=4.6)", "ms", futureHold,
			at(7, trace.Checkpoint), retimeFrom(5)),
		// ... and a PK process resumes when its token returns (P0's
		// resume moved 0.05 later; its next op waits for a message).
		forged(report.LogReplayRules, "forged-resume-late-pk", "P0's resume at seq 22 (t=3.45) comes at t=3.45, not at the instant of P0's control_recv at seq 21 (t=3.4)", "pk", bundled("textbook-orphan"),
			at(22, trace.Resume), func(run *trace.Run, e *trace.RunEvent) { e.T = 345 * trace.Second / 100 }),
		// A token hop that forwards without resending what the announcer
		// lacks: P1 fails before m reaches it, so its token lacks m and P0
		// must resend it; copy 1 arrives anyway (the no-resend mutant's run).
		{property: report.LogReplayRules, name: "forged-hop-no-resend-pk", fail: true, src: inFlight,
			witness: "P0 forwards the token it received at seq 4 without resending its send of m at seq 0",
			replayed: func(t *testing.T) *trace.Run {
				a, err := mutants.New("pk", "no-resend", inFlight(t))
				if err != nil {
					t.Fatal(err)
				}
				run, err := replay.Run(inFlight(t), a, replay.Options{})
				if err != nil {
					t.Fatal(err)
				}
				return run
			}},
		// A discard at no receive of its message: P1, done, discards the
		// extra copy 2 of m1 as a duplicate at its arrival instead of
		// leaving it unconsumed.
		{property: report.LogReplayRules, name: "forged-discard-no-receive-pk", fail: true, src: retransmitTrace,
			witness: "P1 discards copy 2 of m1 at seq 10 at no receive of it",
			replayed: func(t *testing.T) *trace.Run {
				run := replayOf(t, "pk", retransmitTrace(t))
				n := int32(len(run.Events))
				u := run.Events[n-1] // copy 2's unconsumed record, after the ends at its arrival
				d := trace.NewRunEvent(trace.Discard, u.T, u.P)
				d.Msg, d.Copy, d.Reason = u.Msg, u.Copy, trace.ReasonDuplicate
				run.Events = run.Events[:n-1]
				return insertAt(run, n-3, d)
			}},
		// A receive examines its copies when it is ready and they have
		// arrived, and delivers, discards or holds at once (SPEC §3): a
		// hold MS owed deleted (its delivery still at the request's
		// arrival), a discard or a receipt moved later, a discard moved
		// before its receive was ready.
		{property: report.Equivalence, name: "forged-hold-deleted-ms", fail: true, src: futureHold,
			witness: "P1's recv of b at seq 7 comes at t=4.6, not at t=2.6",
			replayed: func(t *testing.T) *trace.Run {
				return dropEvents(replayOf(t, "ms", futureHold(t)), func(e *trace.RunEvent) bool { return e.Kind == trace.Hold || e.Kind == trace.Unhold })
			}},
		// ... and the unhold with it, later than the recovery checkpoint
		// that applies the failure the hold waits for.
		forged(report.Equivalence, "forged-unhold-late-ms", "P1's recv of b at seq 9 comes at t=5, not at t=4.6", "ms", futureHold,
			at(8, trace.Unhold), retimeFrom(5)),
		// ... and a hold moved before the copy it holds arrives (review).
		forged(report.Equivalence, "forged-hold-early-ms", "P1's hold of b at seq 5 comes at t=2.5, not at t=2.6", "ms", futureHold,
			at(5, trace.Hold), func(run *trace.Run, e *trace.RunEvent) { e.T = 25 * trace.Second / 10 }),
		forged(report.Equivalence, "forged-discard-late-ms", "P1's discard of m1 at seq 7 comes at t=5.4, not at t=5", "ms", stale,
			at(7, trace.Discard), func(run *trace.Run, e *trace.RunEvent) { e.T = 54 * trace.Second / 10 }),
		forged(report.Equivalence, "forged-recv-late-ms", "P1's recv of m at seq 3 comes at t=3.5, not at t=3", "ms", forcedTrace,
			at(2, trace.Checkpoint), retimeFrom(3.5)),
		// A source trace whose processes are the run's in another order:
		// ckpt's algorithms replay them in the trace's (the CLI set such a
		// source aside, equivalence unknown).
		{property: report.Equivalence, name: "forged-source-permuted-ms", fail: true, witness: "the source trace's processes are P1, P0, the run's P0, P1",
			src: func(t *testing.T) *trace.Trace {
				tr := futureHold(t)
				tr.Processes[0], tr.Processes[1] = tr.Processes[1], tr.Processes[0]
				return tr
			},
			replayed: func(t *testing.T) *trace.Run { return replayOf(t, "ms", futureHold(t)) }},
		// Two stale copies of one message discarded at one instant, out of
		// their arrival order (a generated trace: copies 1 and 2 of m3).
		{property: report.Equivalence, name: "forged-discard-order-ms", fail: true, src: genFour,
			witness: "P2's discard at seq 56 takes copy 2 of m3 while copy 1 waits in its mailbox",
			replayed: func(t *testing.T) *trace.Run {
				run := replayOf(t, "ms", genFour(t))
				run.Events[56], run.Events[57] = run.Events[57], run.Events[56]
				return renumber(run)
			}},
		forged(report.Equivalence, "forged-discard-unready-ms", "P1's discard of m1 at seq 10 comes at t=6, not at t=8.7", "ms", staleRestarted,
			at(10, trace.Discard), func(run *trace.Run, e *trace.RunEvent) { e.T = 6 * trace.Second }),
	}
}

// retimeFrom returns an edit that moves the event it is given and every
// later one to time at (in seconds).
func retimeFrom(at float64) func(run *trace.Run, e *trace.RunEvent) {
	return func(run *trace.Run, e *trace.RunEvent) {
		for i := e.Seq; int(i) < len(run.Events); i++ {
			run.Events[i].T = trace.Time(at * float64(trace.Second))
		}
	}
}

// staleRestarted is staleTrace with P1's receive its op 1, after a
// checkpoint numbered 1: P0's request (r = 1) rolls P1 back to that
// checkpoint at t=4, so its receive of m1 is ready its gap later, at
// t=8.7, after copy 1 arrives (t=5), and MS discards copy 1 as stale then.
func staleRestarted(t *testing.T) *trace.Trace {
	return mustBuild(t, tracetest.NewBuilder("P0", "P1").
		Internal(0.3, "P1").Checkpoint(1, "P0").Checkpoint(1.5, "P1").Send(2, "P0", "P1", "m1").Fail(2.5, "P0").Recv(5, "P1", "m1"))
}

// inFlight: P0's m is in flight to P1 (t=1 to 8) when P1 fails (t=2).
func inFlight(t *testing.T) *trace.Trace {
	return mustBuild(t, tracetest.NewBuilder("P0", "P1").
		Send(1, "P0", "P1", "m").Fail(2, "P1").Recv(8, "P1", "m"))
}

// genFour is a generated trace (seed 4, three processes, two failures)
// whose MS run discards two stale copies of m3 at one instant (seqs 56
// and 57).
func genFour(t *testing.T) *trace.Trace { return genThree(t, 4, 30, 2, true) }

// genThree is a generated trace of three processes with timer ticks
// every 2 and 3 seconds and a flush every second, from seed, with about
// events events and failures failures (concurrent: they may overlap).
func genThree(t *testing.T, seed uint64, events, failures int, concurrent bool) *trace.Trace {
	t.Helper()
	c := gen.DefaultConfig()
	c.Seed, c.Procs, c.Events, c.Failures, c.Concurrent = seed, 3, events, failures, concurrent
	c.Ticks, c.FlushEvery = []trace.Time{2 * trace.Second, 3 * trace.Second}, trace.Second
	tr, err := gen.Trace(c)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// forgeReceived returns an edit that makes a token's received list the
// identities (msg, inc 0) of msgs. The engine's events share one body
// per token, so editing it forges every hop; with hop, the control_send
// gets a body of its own, shared with the control_recv that takes it:
// only that hop carries the forged list, on both of its ends, which
// comparing the two ends cannot tell.
func forgeReceived(hop bool, msgs ...string) func(run *trace.Run, e *trace.RunEvent) {
	return func(run *trace.Run, e *trace.RunEvent) {
		ids := []trace.Identity{}
		for _, m := range msgs {
			ids = append(ids, trace.Identity{Msg: msgID(run, m), Inc: 0})
		}
		b := *run.Body(e)
		b.Receipts, b.Received = nil, ids
		if !hop {
			run.Bodies[e.Body] = b
			return
		}
		e.Body = run.AddBody(&b)
		for i := e.Seq + 1; int(i) < len(run.Events); i++ {
			if r := &run.Events[i]; r.Kind == trace.ControlRecv && r.P == e.Peer && r.Peer == e.P {
				r.Body = e.Body
				return
			}
		}
	}
}
