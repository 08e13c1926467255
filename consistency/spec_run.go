package consistency

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// runSpec is the run spec: what every run keeps, whatever its algorithm
// (SPEC §3, §6). Its events are in seq and time order, none but `end`
// and `unconsumed` after the first end, one end per process; op numbers
// are continuous and every execution agrees on what op k is; copies are
// numbered in order, taken only from the mailbox they were sent to and
// listed unconsumed where they stay; a restart ends a failure of its
// process, a rollback or control message answers a failure its process
// has heard of, a down process executes nothing; control messages arrive
// once, unchanged; against the source trace, the environment events
// happen at their times and, in a replay, every time is SPEC §3's
// (spec_run_env.go). A violation breaks the run's form: equivalence
// fails ("the run is not well formed"), but for the few that say more
// (a copy never sent: orphan-free; a restore of a checkpoint not held:
// domino-free; a copy left unlisted in the mailbox or discarded twice:
// log-replay-rules).
//
// The protocol spec of the run's algorithm (nil for one without
// recovery rules) steps beside it, after it.
type runSpec struct {
	*specFrame
	proto protocol
	procs []runProc
	lastT trace.Time
	ended int32 // seq of the first end event, or None
	// inFlight are the seqs of the control messages sent and not yet
	// received, per key in send order: a map, since a failure announced
	// to n processes puts n in flight at once.
	inFlight map[ctlKey][]int32
	// heard says, by failure index × process, what each process heard
	// of each failure (bit 1<<control kind, and heardRestart); heardOther
	// the same for fail seqs that name no effective failure.
	heard      []uint32
	heardOther map[[2]int32]uint32
	env        envSpec
	// sawOp: an app event carried an op number. Without any, the live
	// counts are unknown: the checks that compare a pos with them wait in
	// posChecks, dropped at the end if no op number came.
	sawOp     bool
	posChecks result
}

// runProc is what the run spec keeps per process.
type runProc struct {
	// downOps are the app ops executed since the latest fail while down.
	downOps []int32
	// restartAt is when the latest fail's down time ends (spec_run_env.go).
	restartAt trace.Time
	// restart is its latest restart; recvHold and procHold the hold (of
	// a receive) and the block or PK restart (of the whole process)
	// holding it now, or None (spec_run_end.go).
	restart, recvHold, procHold int32
}

// heardRestart marks in heard a process's restart from its own failure.
const heardRestart = 1 << 31

// newRunSpec starts judging the run b builds, horizon as newStream's.
func newRunSpec(b *history.Builder, horizon int32) *runSpec {
	f := newSpecFrame(b)
	m := f.m
	s := &runSpec{specFrame: f, procs: make([]runProc, len(m.Run.Processes)), ended: history.None, posChecks: newResult(ruleNames[equivalenceAt])}
	for p := range s.procs {
		s.procs[p].restart, s.procs[p].recvHold, s.procs[p].procHold = history.None, history.None, history.None
	}
	s.env = newEnvSpec(m)
	switch m.Alg {
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
		s.malformed(seq, func() string { return fmt.Sprintf("event %d carries seq %d", seq, e.Seq) })
	}
	s.order(seq, e)
	if e.P < 0 || int(e.P) >= len(s.procs) {
		s.malformed(seq, func() string { return fmt.Sprintf("event %d: process index %d out of range", seq, e.P) })
		return
	}
	switch e.Kind {
	case trace.Send:
		if e.Resend {
			if !s.b.Down(e.P) || e.Failure != s.b.LastFail(e.P) {
				s.prompted(seq, e) // a restart's own resends precede it
			}
			s.transmits(seq, e)
		} else {
			s.op(seq, e)
		}
	case trace.Recv, trace.Internal:
		s.op(seq, e)
	case trace.Checkpoint:
		if e.CkptType == trace.CkptBasic && !s.env.answersRound(s.m, e) {
			s.environment(seq, e)
		}
		s.downTick(seq, e)
		s.checkpoint(seq, e)
	case trace.CheckpointSkipped:
		s.environment(seq, e)
		s.downTick(seq, e)
	case trace.Fail:
		s.environment(seq, e)
		s.failure(seq, e)
	case trace.Restart:
		s.restart(seq, e)
		s.restore(seq, e)
	case trace.Rollback:
		s.prompted(seq, e)
		s.rollback(seq, e)
		s.restore(seq, e)
	case trace.Discard:
		if ci := s.copyOf(e); ci >= 0 && s.m.Copies.Send[ci] != history.None {
			s.takes(seq, e, ci)
		}
	case trace.ControlSend:
		s.prompted(seq, e)
		s.controlSent(seq, e)
	case trace.ControlRecv:
		s.controlArrived(seq, e)
		s.env.roundRequested(s.m, seq, e)
		s.controlRecv(seq, e)
	case trace.Unconsumed:
		s.unconsumed(seq, e)
	case trace.End:
		s.end(seq, e)
	}
	if s.proto != nil {
		s.proto.prepare(seq, e)
	}
}

// step judges event seq once the model has taken it.
func (s *runSpec) step(seq int32, e *trace.RunEvent) {
	s.shaped(seq, e)
	if e.P >= 0 && int(e.P) < len(s.procs) {
		s.holds(seq, e)
		switch e.Kind {
		case trace.Send:
			if e.Resend {
				s.resendLive(seq, e)
				s.resendOf(seq, e)
			}
		case trace.Restart, trace.Rollback:
			s.undoneCount(seq, e)
			if e.Kind == trace.Restart {
				s.restarted(seq, e)
			}
		}
	}
	if s.proto != nil {
		s.proto.step(seq, e)
	}
}

// order checks that events come in time order and, but for `unconsumed`
// records, none after the run's end.
func (s *runSpec) order(seq int32, e *trace.RunEvent) {
	if seq > 0 && e.T < s.lastT {
		t := s.lastT
		s.fail(equivalenceAt, []int32{seq}, func() (string, string) {
			msg := fmt.Sprintf("event %d at t=%s comes after one at t=%s", seq, e.T, t)
			return msg, notWellFormed(msg + ": a run lists its events in simulated time order")
		})
	}
	s.lastT = max(s.lastT, e.T)
	switch {
	case e.Kind == trace.End:
		if s.ended == history.None {
			s.ended = seq
		}
	case e.Kind != trace.Unconsumed && s.ended != history.None:
		end := s.ended
		s.fail(equivalenceAt, []int32{seq}, func() (string, string) {
			msg := fmt.Sprintf("%s at seq %d comes after the run's end at seq %d", e.Kind, seq, end)
			return msg, notWellFormed(msg + ": a run ends when no event is pending, and then records only end and unconsumed events")
		})
	}
}

// end checks a process's end event: one per process.
func (s *runSpec) end(seq int32, e *trace.RunEvent) {
	if first := s.b.Ended(e.P); first != history.None {
		s.malformed(seq, func() string { return fmt.Sprintf("%s ends twice, at seq %d and %d", s.name(e.P), first, seq) })
	}
}

// finish judges what the end of the run leaves open: processes with no
// end, control messages never received, environment events of the trace
// the run does not show, copies in a mailbox the run does not list, ops
// executed by a process that never restarted.
func (s *runSpec) finish() {
	for p := range s.procs {
		if s.b.Ended(int32(p)) == history.None {
			s.fail(equivalenceAt, nil, func() (string, string) {
				msg := fmt.Sprintf("%s has no end event", s.name(int32(p)))
				return msg, notWellFormed(msg + ": a run records per process how it ended")
			})
		}
	}
	s.controlsPending()
	s.env.missing(s)
	s.mailboxesListed()
	for p := range s.procs {
		if s.b.Down(int32(p)) {
			s.opsWhileDown(int32(p), history.None)
		}
	}
	if s.sawOp || !s.m.Missing.Ops {
		s.results[equivalenceAt].then(s.posChecks)
	}
	s.posChecks = result{}
	s.endRecords()
	if s.proto != nil {
		s.proto.finish()
	}
}

// posCheck records a violation of a pos against the live count: at once
// once the run has shown an op number, else in posChecks.
func (s *runSpec) posCheck(seq int32, text func() (string, string)) {
	if s.sawOp {
		s.fail(equivalenceAt, []int32{seq}, text)
	} else {
		s.posChecks.fail([]int32{seq}, text)
	}
}
