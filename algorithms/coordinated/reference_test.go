package coordinated

import (
	"errors"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/ckpt-dev/ckpt/algorithms/protocoltest"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
)

// reference computes a run's counts from the trace alone: the
// initiator's ticks start rounds greedily, a round keeping the initiator
// busy for 2·control_delay (request out, acknowledgements back; a tick
// at the very instant the last acknowledgement arrives starts the next
// round, arrivals coming first at equal times), and each round costs
// 3(n−1) control messages and 2·control_delay of blocking per process.
func reference(tr *trace.Trace) protocoltest.Counts {
	n := len(tr.Processes)
	cd := tr.Params.WithDefaults().ControlDelay
	var c protocoltest.Counts
	rounds, ticks := 0, 0
	init := Initiator(tr)
	var free trace.Time
	for i := range tr.Events {
		e := &tr.Events[i]
		if e.Kind != trace.Checkpoint {
			continue
		}
		ticks++
		if replay.Proc(e.P) != init || (rounds > 0 && e.T < free) {
			continue
		}
		rounds++
		free = e.T
		if n > 1 {
			free += 2 * cd
			c.Blocked += trace.Time(n) * 2 * cd
		}
	}
	c.Basic, c.Skipped, c.Control = rounds*n, ticks-rounds, rounds*3*(n-1)
	return c
}

// TestAgainstReference: on random failure-free traces the run's counts
// are the reference's; every process runs its whole program, in order,
// no op earlier than in the trace (blocking only delays).
func TestAgainstReference(t *testing.T) {
	var blocked trace.Time
	rapid.Check(t, func(t *rapid.T) {
		tr := protocoltest.Traces().Draw(t, "trace")
		run := protocoltest.Replay(t, tr, mustNew(t, tr))
		got := protocoltest.CountsOf(run)
		got.PBBytes = 0
		if want := reference(tr); got != want {
			t.Fatalf("counts %+v, want %+v", got, want)
		}
		blocked += got.Blocked
		type op struct {
			kind trace.Kind
			msg  int32
			t    trace.Time
		}
		trOps, runOps := make([][]op, len(tr.Processes)), make([][]op, len(tr.Processes))
		for i := range tr.Events {
			if e := &tr.Events[i]; e.Kind.IsOp() {
				trOps[e.P] = append(trOps[e.P], op{e.Kind, e.Msg, e.T})
			}
		}
		for i := range run.Events {
			e := &run.Events[i]
			if e.Kind.IsOp() {
				runOps[e.P] = append(runOps[e.P], op{e.Kind, e.Msg, e.T})
			}
			if e.Kind == trace.End && e.State != trace.StateDone {
				t.Fatalf("%s ends %s", tr.Processes[e.P], e.State)
			}
		}
		for p := range trOps {
			if len(trOps[p]) != len(runOps[p]) {
				t.Fatalf("%s: %d ops run, %d in the trace", tr.Processes[p], len(runOps[p]), len(trOps[p]))
			}
			for k, w := range trOps[p] {
				if g := runOps[p][k]; g.kind != w.kind || g.msg != w.msg || g.t < w.t {
					t.Fatalf("%s op %d: run %+v, trace %+v", tr.Processes[p], k, g, w)
				}
			}
		}
	})
	if blocked == 0 {
		t.Fatal("no random trace blocked a process: the comparison proves little")
	}
}

// rounds checks that every round has exactly one checkpoint per process.
func rounds(pt *protocoltest.Pattern) bool {
	var per []int32
	for p := range pt.Sn {
		sn := pt.Sn[p][1:]
		if per == nil {
			per = sn
		}
		if !slices.Equal(per, sn) {
			return false
		}
	}
	return true
}

func newCoordinated(tr *trace.Trace) (replay.Algorithm, error) { return New(tr) }

// TestPromise: every round is a consistent global checkpoint (S_r, the
// checkpoints numbered r), taken by every process; none is useless.
func TestPromise(t *testing.T) {
	protocoltest.CheckPromise(t, newCoordinated, protocoltest.SnConsistent, protocoltest.ZCycleFree,
		func(pt *protocoltest.Pattern) error {
			if !rounds(pt) {
				return errNotAllRounds
			}
			return nil
		})
}

var errNotAllRounds = errors.New("some process missed a round")

// TestNonBlockingMutantBreaksPromise: without the blocking, a process
// that resumes computing right after its checkpoint sends messages that
// overtake the request and reach processes before their round
// checkpoint: orphans in the round's line.
func TestNonBlockingMutantBreaksPromise(t *testing.T) {
	protocoltest.CheckMutantBreaks(t, newCoordinated, func(a replay.Algorithm) replay.Algorithm {
		return &protocoltest.Filtered{Algorithm: a, Drop: func(e *replay.Effect) bool {
			return e.Kind == replay.EffHoldProcess || e.Kind == replay.EffResume
		}}
	}, protocoltest.SnConsistent)
}
