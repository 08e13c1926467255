package consistency

import (
	"fmt"
	"slices"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// runSpec is the run spec: the form every run keeps, whatever its
// algorithm (SPEC §3, §6). Events come in seq and time order, nothing but
// `end` and `unconsumed` after the first end, one end per process; op
// numbers are continuous and every execution agrees on op k; copies are
// numbered in order, taken only from the mailbox they were sent to and
// listed unconsumed where they stay; a restart ends a failure of its
// process, a rollback or control message answers a failure its process
// has heard of, a down process executes nothing; control messages arrive
// once, unchanged; against the source trace, the environment happens at
// its times (spec_run_env.go). A violation breaks equivalence ("the run
// is not well formed"), but for the few that say more (a copy never sent:
// orphan-free; a restore of a checkpoint not held: domino-free; a copy
// left unlisted or discarded twice: log-replay-rules). The protocol spec
// of the run's algorithm (nil if it has none) steps after it.
type runSpec struct {
	*specFrame
	proto protocol
	// rounds are a coordinated run's (spec_coordinated.go), else nil.
	rounds *roundSpec
	procs  []runProc
	lastT  trace.Time
	ended  int32 // seq of the first end event, or None
	// flight are the control_sends not yet received, in send order.
	flight []int32
	// heard holds (process, fail seq) once the process heard of that
	// failure: by its own restart or a control message naming it.
	heard map[[2]int32]bool
	env   envSpec
	// sawOp: an app event carried an op number. Until one does the live
	// counts are unknown, and the checks of a pos against them wait in
	// posChecks (dropped at the end if none came).
	sawOp     bool
	posChecks result
	// skipped are the takes (seq, copy index) that skipped a copy a
	// rollback put back, judged at the end (inOrder).
	skipped [][2]int32
}

// runProc is what the run spec keeps per process: the app ops executed
// since its latest fail while down, when that fail's down time ends
// (spec_run_env.go), its latest restart, and the hold of a receive and
// the block or PK restart (of the whole process) holding it, or None;
// and its latest unhold while the event that ends the hold is to come
// (holdEnds), or None.
type runProc struct {
	downOps                             []int32
	restartAt                           trace.Time
	restart, recvHold, procHold, unhold int32
}

func newRunSpec(b *history.Builder, horizon int32) *runSpec {
	f := newSpecFrame(b)
	procs := slices.Repeat([]runProc{{restart: history.None, recvHold: history.None, procHold: history.None, unhold: history.None}}, len(f.m.Run.Processes))
	s := &runSpec{specFrame: f, procs: procs, ended: history.None, heard: map[[2]int32]bool{}, posChecks: newResult(ruleNames[equivalenceAt])}
	s.env = newEnvSpec(f.m)
	switch f.m.Alg {
	case history.Coordinated:
		s.rounds = newRoundSpec(f.m)
	case history.MS, history.Textbook:
		s.proto = newMSSpec(f)
	case history.PK:
		s.proto = newPKSpec(f, horizon)
	}
	return s
}

// prepare judges event seq against the model before it takes it.
func (s *runSpec) prepare(seq int32, e *trace.RunEvent) {
	if e.Seq != history.None && e.Seq != seq {
		s.badf(equivalenceAt, []int32{seq}, "event %d carries seq %d", seq, e.Seq)
	}
	s.order(seq, e)
	if e.P < 0 || int(e.P) >= len(s.procs) {
		s.badf(equivalenceAt, []int32{seq}, "event %d: process index %d out of range", seq, e.P)
		return
	}
	switch e.Kind {
	case trace.Send:
		if !e.Resend {
			s.op(seq, e)
			break
		}
		if !s.b.Down(e.P) || e.Failure != s.b.LastFail(e.P) {
			s.prompted(seq, e) // a restart's own resends precede it
		}
		s.transmits(seq, e)
	case trace.Recv, trace.Internal:
		s.op(seq, e)
	case trace.Checkpoint:
		if e.CkptType == trace.CkptBasic && !s.rounds.answers(s.m, e) {
			s.environment(seq, e)
			s.rounds.ticked(s, seq, e)
		}
		s.downTick(seq, e)
		s.checkpoint(seq, e)
	case trace.CheckpointSkipped:
		s.environment(seq, e)
		s.downTick(seq, e)
		s.rounds.skipped(s, seq, e)
	case trace.Fail:
		if at := s.environment(seq, e); !s.b.Down(e.P) { // a fail of a down process is ignored
			s.failedUntil(e, at)
		}
	case trace.Restart, trace.Rollback:
		s.restart(seq, e)
		s.restore(seq, e)
	case trace.Discard:
		s.discarded(seq, e)
	case trace.ControlSend:
		s.prompted(seq, e)
		s.rounds.sent(s, seq, e)
		s.flight = append(s.flight, seq)
	case trace.ControlRecv:
		s.controlArrived(seq, e)
		s.rounds.requested(seq, e)
		s.heard[[2]int32{e.P, e.Failure}] = true
		s.attributed(seq, e)
	case trace.Unconsumed:
		s.unconsumed(seq, e)
	case trace.End:
		if first := s.b.Ended(e.P); first != history.None {
			s.badf(equivalenceAt, []int32{seq}, "%s ends twice, at seq %d and %d", s.name(e.P), first, seq)
		}
	}
	if s.proto != nil {
		s.proto.prepare(seq, e)
	}
}

// step judges event seq once the model has taken it; the protocol spec
// sees only events of a process of the run (prepare reports the others).
func (s *runSpec) step(seq int32, e *trace.RunEvent) {
	s.shaped(seq, e)
	if e.P < 0 || int(e.P) >= len(s.procs) {
		return
	}
	s.holds(seq, e)
	switch {
	case e.Kind == trace.Send && e.Resend:
		s.resendLive(seq, e)
		s.resendOf(seq, e)
	case e.Kind == trace.Rollback:
		s.undoneCount(seq, e)
	case e.Kind == trace.Restart:
		s.undoneCount(seq, e)
		s.restarted(seq, e)
	}
	if s.proto != nil {
		s.proto.step(seq, e)
	}
}

// order checks that events come in time order and, but for `unconsumed`
// records, none after the run's end.
func (s *runSpec) order(seq int32, e *trace.RunEvent) {
	if t := s.lastT; seq > 0 && e.T < t {
		s.badf(equivalenceAt, []int32{seq}, "event %d at t=%s comes after one at t=%s\n+: a run lists its events in simulated time order", seq, e.T, t)
	}
	s.lastT = max(s.lastT, e.T)
	if e.Kind == trace.End && s.ended == history.None {
		s.ended = seq
	} else if end := s.ended; e.Kind != trace.End && e.Kind != trace.Unconsumed && end != history.None {
		s.badf(equivalenceAt, []int32{seq}, "%s at seq %d comes after the run's end at seq %d\n+: a run ends when no event is pending, and then records only end and unconsumed events", e.Kind, seq, end)
	}
}

// finish judges what the end of the run leaves open: processes with no
// end, control messages never received, environment events of the trace
// the run does not show, copies left unlisted, ops of a process that
// never restarted, the end records.
func (s *runSpec) finish() {
	for p := range s.procs {
		if s.b.Ended(int32(p)) == history.None {
			s.badf(equivalenceAt, nil, "%s has no end event\n+: a run records per process how it ended", s.name(int32(p)))
		}
	}
	for _, x := range s.flight {
		e := s.m.Event(x)
		s.badf(equivalenceAt, []int32{x}, "the %s control message %s sends at seq %d never arrives\n+: the network delivers every control message, and a run ends only when none is pending", e.Control, s.name(e.P), x)
	}
	s.env.missing(s)
	s.mailboxesListed()
	s.skippedShown()
	for p := range s.procs {
		s.opsWhileDown(int32(p), history.None) // an up process's were judged at its restart
	}
	if s.sawOp || !s.m.Missing.Ops {
		s.results[equivalenceAt].then(s.posChecks)
	}
	s.posChecks = result{}
	s.endRecords()
	if s.rounds != nil {
		s.rounds.finish(s)
	}
	if s.proto != nil {
		s.proto.finish()
	}
}

// posCheckf records a violation of a pos against the live count, its
// text as badf's: at once once the run has shown an op number, else in
// posChecks.
func (s *runSpec) posCheckf(seq int32, format string, args ...any) {
	r := &s.posChecks
	if s.sawOp {
		r = &s.results[equivalenceAt]
	}
	r.fail([]int32{seq}, func() (string, string) { return splitWitness(fmt.Sprintf(format, args...)) })
}

// op judges an app op (send, recv, internal; not a resend): op numbers
// continue the live history, and every execution agrees on op k.
func (s *runSpec) op(seq int32, e *trace.RunEvent) {
	if e.Op != history.None {
		s.sawOp = true
		s.env.opAfterEnv(s, seq, e)
		if !s.b.OpInRange(seq, e) {
			s.badf(equivalenceAt, []int32{seq}, "event %d: op %d out of range", seq, e.Op)
			return
		}
		if live := s.liveCount(e.P); e.Op != live && !(e.Op < live && s.b.Posless(e.P)) {
			s.badf(equivalenceAt, []int32{seq}, "broken op continuity at seq %d\n%s had %d live ops before seq %[1]d, so its next op should be op %[3]d, but the run says op %d", seq, s.name(e.P), live, e.Op)
		}
		if s.b.Down(e.P) {
			s.procs[e.P].downOps = append(s.procs[e.P].downOps, seq)
		}
		if was, ok := s.b.Shown(e.P, e.Op); ok && (was.Kind != e.Kind || (e.Kind != trace.Internal && was.Msg != e.Msg)) {
			s.badf(equivalenceAt, []int32{seq}, "%s op %d differs between executions\na piecewise-deterministic program re-executes the same op at the same index, but op %[2]d of %[1]s was %[3]s earlier and is %[4]s%[5]s at seq %[6]d",
				s.name(e.P), e.Op, was.Kind, e.Kind, s.m.MsgOpt(e.Msg), seq)
		}
	}
	if e.Kind == trace.Send {
		s.transmits(seq, e)
		return
	}
	if e.Kind != trace.Recv {
		return
	}
	s.viaLog(seq, e)
	if ci := s.copyOf(e); ci >= 0 && s.m.Copies.Orig[ci] != history.None {
		s.fromSender(seq, e, ci)
		if e.Via != trace.ViaLog {
			s.takes(seq, e, ci)
		}
	} else if e.Copy > 0 {
		s.badf(orphanFreeAt, []int32{seq}, "%s received copy %d of %s that was never sent\nthe run shows no send of copy %[2]d of %[3]s before seq %d", s.name(e.P), e.Copy, s.m.MsgName(e.Msg), seq)
	}
}

// viaLog judges a receipt from the log: of ckpt's own algorithms only
// MS replays receipts from a message log (its spec judges them); PK
// replays its restart's receipts silently (SPEC §5) and the placement
// protocols never replay. A via-log receipt of theirs would take a copy
// past the mailbox checks (takes), so it breaks log-replay-rules.
func (s *runSpec) viaLog(seq int32, e *trace.RunEvent) {
	if e.Via == trace.ViaLog && !s.m.Alg.IsMS() && (s.m.Alg.Recovers() || s.m.Alg.Places()) {
		s.badf(logReplayAt, []int32{seq}, "%s receives %s at seq %d via the log\nonly MS replays receipts from a message log; %s %s, so every receipt of its runs takes a copy from the mailbox",
			s.name(e.P), s.m.MsgName(e.Msg), seq, algName(s.m), map[bool]string{true: "replays a restart's receipts silently (SPEC §5)", false: "never replays a receipt"}[s.m.Alg.Recovers()])
	}
}

// transmits checks the copy number of a send or resend: copies number
// every transmission of a message id 1, 2, … (SPEC §6), each used once.
func (s *runSpec) transmits(seq int32, e *trace.RunEvent) {
	if e.Msg < 0 || int(e.Msg) >= len(s.m.Run.Msgs) || e.Copy <= 0 {
		return
	}
	if n := s.b.CopyCount(e.Msg); e.Copy <= n || e.Copy > n+1 {
		what, why := fmt.Sprintf("copy %d of %s is sent twice", e.Copy, s.m.MsgName(e.Msg)), "each is used once"
		if e.Copy > n {
			what, why = fmt.Sprintf("copy numbers of %s jump from %d to %d", s.m.MsgName(e.Msg), n, e.Copy), "none is skipped"
		}
		s.badf(equivalenceAt, []int32{seq}, "%s\nthe send at seq %d numbers its copy %d, but %s has copies 1 to %d before it: copy numbers count every transmission of a message id, so %s",
			what, seq, e.Copy, s.m.MsgName(e.Msg), n, why)
	}
}

// fromSender checks a receive's from against the process that
// transmitted its copy: a copy has one sender.
func (s *runSpec) fromSender(seq int32, e *trace.RunEvent, ci int32) {
	sent := s.m.Copies.Send[ci]
	if e.Peer == history.None || sent == history.None || s.m.Event(sent).P == e.Peer {
		return
	}
	s.badf(equivalenceAt, []int32{seq}, "%s receives copy %d of %s at seq %d from %s, but %s sent it\ncopy %[2]d of %[3]s was transmitted by %[6]s at seq %d, so a receive of it names %[6]s as its sender, but the receive at seq %[4]d says from %[5]s",
		s.name(e.P), e.Copy, s.m.MsgName(e.Msg), seq, s.name(e.Peer), s.name(s.m.Event(sent).P), sent)
}

// takes checks a receive or discard taking copy ci from p's mailbox: it
// was sent there, it has arrived, and (a discard) it is there. A copy
// taken before and not put back is in no mailbox: only MS's replay log
// offers it again, as a receipt it logged.
func (s *runSpec) takes(seq int32, e *trace.RunEvent, ci int32) {
	m := s.m
	if to := m.CopyTo(ci); to != history.None && to != e.P {
		s.badf(equivalenceAt, []int32{seq}, "%s takes copy %d of %s, which was sent to %s\ncopy %[2]d of %[3]s was sent to %[4]s at seq %d, so it can reach no other mailbox, but %[1]s takes it at seq %[6]d",
			s.name(e.P), e.Copy, m.MsgName(e.Msg), s.name(to), m.Copies.Send[ci], seq)
		return
	}
	if e.Via != trace.ViaLog {
		s.env.arrived(s, seq, e, ci)
	}
	if e.Kind != trace.Discard || s.b.MayHold(ci) {
		return
	}
	switch t := s.b.TakenBy(ci); {
	case t == history.None:
		s.badf(equivalenceAt, []int32{seq}, "%s discards copy %d of %s it never had\na discard judges a copy from the mailbox or the message log, but copy %[2]d of %[3]s is in neither at seq %d: it was sent at seq %d and nobody took it before",
			s.name(e.P), e.Copy, m.MsgName(e.Msg), seq, m.Copies.Send[ci])
	case m.Alg == history.PK || m.Event(t).Kind != trace.Recv:
		s.badf(logReplayAt, []int32{seq}, "%s discards copy %d of %s at seq %d, which its mailbox no longer holds\nthe %s at seq %d took copy %[2]d of %[3]s and nothing put it back; only MS's replay log offers a copy again, once, as a receipt it logged",
			s.name(e.P), e.Copy, m.MsgName(e.Msg), seq, m.Event(t).Kind, t)
	}
}

// discarded checks a discard: it takes its copy from the mailbox
// (takes), and (MS, PK) at a receive of its message, which alone judges
// a copy (SPEC §3).
func (s *runSpec) discarded(seq int32, e *trace.RunEvent) {
	if ci := s.copyOf(e); ci >= 0 && s.m.Copies.Send[ci] != history.None {
		s.takes(seq, e, ci)
	}
	if why := s.atRecv(e.P, e.Msg); why != "" && s.m.Alg.Recovers() {
		s.badf(logReplayAt, []int32{seq}, "%s discards copy %d of %s at seq %d at no receive of it\nonly a receive of its message judges a copy, to deliver, discard or hold it (SPEC §3); but %s", s.name(e.P), e.Copy, s.m.MsgName(e.Msg), seq, why)
	}
}

// unconsumed checks an `unconsumed` record: after its process's end, of
// a copy still in that process's mailbox.
func (s *runSpec) unconsumed(seq int32, e *trace.RunEvent) {
	m := s.m
	if s.b.Ended(e.P) == history.None {
		s.badf(equivalenceAt, []int32{seq}, "unconsumed record at seq %d comes before %s's end", seq, s.name(e.P))
	}
	ci := s.copyOf(e)
	if ci < 0 && e.Copy <= 0 || ci >= 0 && s.b.MayHold(ci) && m.CopyTo(ci) == e.P {
		return
	}
	where := "it was never sent"
	if ci >= 0 && m.Copies.Send[ci] != history.None {
		switch t := s.b.TakenBy(ci); {
		case m.CopyTo(ci) != e.P:
			where = "it was sent to " + s.name(m.CopyTo(ci))
		case t != history.None && m.Event(t).Kind == trace.Unconsumed:
			where = fmt.Sprintf("the record at seq %d listed it already", t)
		default:
			where = fmt.Sprintf("it was taken at seq %d and not put back", t)
		}
	}
	s.badf(equivalenceAt, []int32{seq}, "%s lists copy %d of %s unconsumed, but its mailbox does not hold it\nthe unconsumed record at seq %d says copy %[2]d of %[3]s is still in %[1]s's mailbox, but %[5]s",
		s.name(e.P), e.Copy, m.MsgName(e.Msg), seq, where)
}

// mailboxesListed reports copies still in a mailbox that no `unconsumed`
// record lists (SPEC §3), for the algorithms whose mailbox the model
// knows exactly (MS and PK): their requeue rules decide it.
func (s *runSpec) mailboxesListed() {
	if !s.m.Alg.Recovers() || s.ended == history.None {
		return
	}
	for ci := range int32(s.m.Copies.Len()) {
		if to := s.m.CopyTo(ci); s.b.InMailbox(ci) && to != history.None {
			send := s.m.Copies.Send[ci]
			e := s.m.Event(send)
			s.badf(logReplayAt, []int32{send}, "copy %d of %s is left in %s's mailbox, but no unconsumed record lists it\ncopy %[1]d of %[2]s was sent at seq %[4]d and no receive or discard took it (or a rollback put it back), so it is still in %[3]s's mailbox at the end, where the run must list it as unconsumed",
				e.Copy, s.m.MsgName(e.Msg), s.name(to), send)
		}
	}
}

// resendLive checks that a resend repeats a send of its process's live
// history: one that is not live repeats a message the sender's state no
// longer holds (orphan-free).
func (s *runSpec) resendLive(seq int32, e *trace.RunEvent) {
	if s.copyOf(e) < 0 || e.Op == history.None || s.b.ResendOf(e.P, e.Op, e.Msg) != history.None {
		return
	}
	s.badf(orphanFreeAt, []int32{seq}, "%s resends %s at seq %d but its send is not live\na resend repeats a send of the live history, but at seq %[3]d op %d of %[1]s is not a live send of %[2]s", s.name(e.P), s.m.MsgName(e.Msg), seq, e.Op)
}

// resendOf checks a resend's `of`: an earlier transmission of the live
// send it repeats — the send's own copy, or an earlier resend of it.
func (s *runSpec) resendOf(seq int32, e *trace.RunEvent) {
	m := s.m
	orig := m.SendOf[seq]
	if e.Of <= 0 || orig == history.None || e.Op == history.None || s.copyOf(e) < 0 {
		return
	}
	oi := m.Copies.Index(e.Msg, e.Of)
	if e.Of < e.Copy && oi >= 0 && m.Copies.Orig[oi] == orig {
		return
	}
	why := fmt.Sprintf("copy %d is another send's", e.Of)
	switch {
	case e.Of == e.Copy:
		why = fmt.Sprintf("copy %d is the resend's own", e.Of)
	case oi < 0 || e.Of > e.Copy || m.Copies.Send[oi] == history.None:
		why = fmt.Sprintf("no copy %d of %s was sent before it", e.Of, m.MsgName(e.Msg))
	}
	s.badf(equivalenceAt, []int32{orig, seq}, "%s's resend of %s at seq %d says it repeats copy %d of %[2]s, but the send it repeats transmitted copy %[5]d\n+: a resend's of names the copy it repeats, a transmission of the live send it repeats (%[6]s), but %[7]s",
		s.name(e.P), m.MsgName(e.Msg), seq, e.Of, m.Event(orig).Copy, m.Describe(orig), why)
}

// checkpoint checks a checkpoint's pos and id, and the failure a
// recovery checkpoint names.
func (s *runSpec) checkpoint(seq int32, e *trace.RunEvent) {
	switch live := s.liveCount(e.P); {
	case e.Pos == history.None:
	case e.Pos < 0:
		s.badf(equivalenceAt, []int32{seq}, "event %d: negative pos %d", seq, e.Pos)
	case e.Pos != live:
		s.posCheckf(seq, "checkpoint at seq %d has pos %d\n%s had %d live ops when it took checkpoint %d at seq %[1]d, but the checkpoint says pos %[2]d", seq, e.Pos, s.name(e.P), live, e.Ckpt)
	}
	if e.CkptType == trace.CkptInitial || e.Ckpt == history.None {
		return
	}
	if old, ok := s.b.CkptByID(e.P, e.Ckpt); ok {
		was := fmt.Sprintf("the checkpoint at seq %d has already", old.Seq)
		if old.Seq == history.None {
			was = "is the initial checkpoint's"
		}
		s.badf(equivalenceAt, []int32{seq}, "%s reuses checkpoint id %d at seq %d\ncheckpoint ids are unique per process (0 is the initial checkpoint), but %[1]s's checkpoint at seq %[3]d has id %[2]d, which %[4]s", s.name(e.P), e.Ckpt, seq, was)
	}
	if e.CkptType == trace.CkptRecovery && e.Failure != history.None {
		s.attributed(seq, e)
	}
}

// attributed checks the failure a rollback, recovery checkpoint or
// control message names: an effective fail whose process has restarted
// (its recovery is known only then; a control message that came before
// is the sender's to answer for: prompted).
func (s *runSpec) attributed(seq int32, e *trace.RunEvent) {
	fi, ok := s.m.FailureAt(e.Failure)
	switch {
	case !ok && e.Failure != history.None:
		s.badf(equivalenceAt, []int32{seq}, "%s at seq %d answers failure seq %d, which is no fail event\nthe %[1]s of %[4]s at seq %[2]d names failure seq %[3]d, but the run has no effective fail event there", e.Kind, seq, e.Failure, s.name(e.P))
	case ok && e.Kind != trace.ControlRecv && s.m.Failures[fi].Restart == history.None:
		s.badf(equivalenceAt, []int32{seq}, "%s at seq %d answers %s before its restart\na failure is announced at its process's restart, but the %[1]s of %[4]s at seq %[2]d answers %[3]s, whose process has not restarted yet", e.Kind, seq, s.m.FailName(fi), s.name(e.P))
	}
}

// restart checks a restart or rollback against the process being down: a
// restart ends its pending failure (the one its failure field names), at
// the time it ends; a rollback comes from an up process, for a failure
// that has restarted.
func (s *runSpec) restart(seq int32, e *trace.RunEvent) {
	last, down := s.b.LastFail(e.P), s.b.Down(e.P)
	if e.Kind == trace.Rollback {
		s.prompted(seq, e)
		if down {
			s.badf(equivalenceAt, []int32{seq}, "%s rolls back at seq %d while it is down\n%[1]s failed at seq %[3]d and has not restarted, so it executes nothing, but the run shows it rolling back at seq %[2]d", s.name(e.P), seq, last)
		}
		s.attributed(seq, e)
		return
	}
	switch {
	case !down:
		s.badf(equivalenceAt, []int32{seq}, "%s restarts at seq %d but is not down\na restart ends a failure, but %[1]s has no fail event since its last restart before seq %[2]d", s.name(e.P), seq)
	case e.Failure != history.None && e.Failure != last:
		s.badf(equivalenceAt, []int32{seq}, "%s's restart at seq %d answers failure seq %d, not its own pending failure seq %d\n%[1]s failed at seq %[4]d and restarts at seq %[2]d, so the restart answers that failure, but it names failure seq %[3]d", s.name(e.P), seq, e.Failure, last)
	}
	s.opsWhileDown(e.P, seq)
	s.env.restartedAt(s, seq, e)
}

// restarted checks a restart's inc — PK's new incarnation, MS's failure
// count: its number of restarts — and notes that the process heard of
// its own failure.
func (s *runSpec) restarted(seq int32, e *trace.RunEvent) {
	if n := s.b.Restarts(e.P); e.Inc != history.None && (s.m.Alg == history.MS || s.m.Alg == history.PK) && e.Inc != n {
		s.badf(equivalenceAt, []int32{seq}, "%s's restart at seq %d says inc %d, but it is restart number %d\na restart's inc is the process's new incarnation (PK) or failure count (MS), which is its number of restarts, but the run says inc %[3]d",
			s.name(e.P), seq, e.Inc, n)
	}
	if fi := s.m.FailOf(seq); fi != history.None {
		s.heard[[2]int32{e.P, s.m.Failures[fi].Seq}] = true
	}
}

// restore checks a restart's or rollback's checkpoint and pos: a held
// checkpoint (domino-free), at least its ops kept, at most the live ones.
func (s *runSpec) restore(seq int32, e *trace.RunEvent) {
	if e.Restore != history.None && !s.b.Holds(e.P, e.Restore) && !s.m.Missing.CkptID {
		s.badf(dominoFreeAt, []int32{seq}, "%s restores checkpoint %d it does not hold\nat seq %d %[1]s restores checkpoint %[2]d, but no checkpoint with that id is among the checkpoints it holds (it took it never, or a rollback discarded it)", s.name(e.P), e.Restore, seq)
	}
	switch live := s.liveCount(e.P); {
	case e.Pos == history.None:
	case e.Pos < 0:
		s.badf(equivalenceAt, []int32{seq}, "event %d: negative pos %d", seq, e.Pos)
	case e.Pos > live:
		s.posCheckf(seq, "%s at seq %d keeps %d ops but has only %d\n%s had %[4]d live ops at seq %[2]d, so a %[1]s cannot keep the first %[3]d", e.Kind, seq, e.Pos, live, s.name(e.P))
	}
	if ck, ok := s.b.CkptByID(e.P, e.Restore); ok && e.Restore != history.None && e.Pos >= 0 && e.Pos < ck.Pos {
		s.badf(equivalenceAt, []int32{seq}, "%s's %s at seq %d restores checkpoint %d, taken at pos %d, but says pos %d\n+: a restored checkpoint holds the state after its pos ops, and replay only moves forward from it", s.name(e.P), e.Kind, seq, e.Restore, ck.Pos, e.Pos)
	}
}

// undoneCount checks a restore's undone against the ops it undid.
func (s *runSpec) undoneCount(seq int32, e *trace.RunEvent) {
	if n := int32(len(s.m.RestoreOf(seq).Undid)); e.Pos >= 0 && e.Undone != history.None && e.Undone != n {
		kept := min(e.Pos, s.liveCount(e.P))
		s.posCheckf(seq, "%s at seq %d claims %d ops undone, the checker counts %d\n%s had %d live ops before seq %[2]d and kept %[7]d, so %[4]d were undone", e.Kind, seq, e.Undone, n, s.name(e.P), kept+n, kept)
	}
}

// opsWhileDown reports the app ops p executed while down, but for the
// ones a PK restart at seq restart re-executes at its own time.
func (s *runSpec) opsWhileDown(p, restart int32) {
	ps := &s.procs[p]
	for _, x := range ps.downOps {
		if !s.m.Alg.Recovers() || restart != history.None && s.m.Alg == history.PK && s.m.Event(x).T == s.m.Event(restart).T {
			continue
		}
		e, last := s.m.Event(x), s.b.LastFail(p)
		s.posCheckf(x, "%s executes op %d at seq %d while it is down\n%[1]s failed at seq %[4]d and executes nothing until it restarts (a PK restart re-executes ops at its own time), but %[5]s comes before that", s.name(e.P), e.Op, x, last, s.m.Describe(x))
	}
	ps.downOps = ps.downOps[:0]
}

// downTick checks a timer tick against the process being up or down: a
// down process takes no checkpoint and records the tick as skipped with
// reason "down"; an up one never does (SPEC §3).
func (s *runSpec) downTick(seq int32, e *trace.RunEvent) {
	isDown, skip := s.b.Down(e.P), e.Kind == trace.CheckpointSkipped
	down := skip && e.Reason == trace.ReasonDown
	if e.CkptType == trace.CkptInitial && !skip || down == isDown || skip && !down && !isDown {
		return
	}
	state := map[bool]string{true: "down", false: "up"}[isDown]
	s.badf(equivalenceAt, []int32{seq}, "%s's %s at seq %d does not fit it being %s\na tick of a down process takes no checkpoint and is recorded as skipped with reason down, and only then; %[1]s is %[4]s at seq %[3]d", s.name(e.P), e.Kind, seq, state)
}

// prompted checks that a rollback answering a request or token, a
// control message or a resend comes after its process heard of the
// failure it answers: a failure's control messages start at its
// process's restart and travel from there (SPEC §4.2, §5).
func (s *runSpec) prompted(seq int32, e *trace.RunEvent) {
	if e.Failure == history.None || s.heard[[2]int32{e.P, e.Failure}] || e.Kind == trace.Rollback && e.Cause != trace.CauseRequest && e.Cause != trace.CauseToken {
		return // a rollback for a message from a later recovery (MS) needs none
	}
	s.badf(equivalenceAt, []int32{seq}, "%s's %s at seq %d answers failure seq %d, of which it has not heard\na failure's control messages start at its process's restart and reach the others as control_recv events; %[1]s has no restart or control_recv for failure seq %[4]d before its %[2]s at seq %[3]d",
		s.name(e.P), e.Kind, seq, e.Failure)
}

// controlArrived takes a control message out of flight: of those in
// flight from its sender to it, of its kind and failure, the first with
// its body, else the first, whose body then changed. It arrives
// control_delay after its send in a run that claims SPEC §3's timing.
func (s *runSpec) controlArrived(seq int32, e *trace.RunEvent) {
	m, first, i := s.m, -1, -1
	for k, x := range s.flight {
		if c := m.Event(x); c.P == e.Peer && c.Peer == e.P && c.Control == e.Control && c.Failure == e.Failure {
			if first < 0 {
				first = k
			}
			if sameBody(m.Run, c, e) {
				i = k
				break
			}
		}
	}
	if first < 0 {
		s.badf(equivalenceAt, []int32{seq}, "%s receives a %s control message at seq %d that %s never sent\n+ (or not for that failure, or it arrived already)", s.name(e.P), e.Control, seq, s.name(e.Peer))
		return
	}
	if i < 0 {
		i = first
		sent := s.flight[i]
		s.badf(equivalenceAt, []int32{sent, seq}, "%s receives a %s control message at seq %d whose body differs from the one %s sent at seq %d\nthe run is not well formed: the network delivers a control message unchanged, but %[4]s sent %[6]s at seq %[5]d and %[1]s received %[7]s at seq %[3]d",
			s.name(e.P), e.Control, seq, s.name(e.Peer), sent, describeBody(m, m.Run.Body(m.Event(sent))), describeBody(m, m.Run.Body(e)))
	}
	sent := s.flight[i]
	if d := m.Run.Options.Params.ControlDelay; s.instants && e.T != m.Event(sent).T+d {
		s.badf(equivalenceAt, []int32{seq}, "%s receives a %s control message at seq %d, t=%s, not at t=%s\ncontrol messages take control_delay %s (the run's params), and this one was sent at seq %d, t=%s",
			s.name(e.P), e.Control, seq, e.T, m.Event(sent).T+d, d, sent, m.Event(sent).T)
	}
	if i == 0 {
		// Receipts mostly come in send order: re-slicing keeps a
		// broadcast to many processes linear, where Delete would shift
		// the rest of the flight at each receipt.
		s.flight = s.flight[1:]
		return
	}
	s.flight = slices.Delete(s.flight, i, i+1)
}

// sameBody reports whether two control events carry the same body, or
// one of them none. Bodies the engine shares (one index) are equal
// without a look; a token's receipt list is compared entry by entry.
func sameBody(run *trace.Run, a, b *trace.RunEvent) bool {
	if a.Body == b.Body || a.Body == history.None || b.Body == history.None {
		return true
	}
	x, y := run.Body(a), run.Body(b)
	return x.Origin == y.Origin && x.Count == y.Count && x.R == y.R && x.Inc == y.Inc && x.K == y.K && x.SameReceived(y)
}
