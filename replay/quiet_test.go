package replay_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
)

// vtSender stamps every send and checkpoint with a one-entry vector time,
// and records which inputs came quiet. At a tick of P0 it resends P0's op
// 0 when resendAtTick is set; at a tick of P1 it rolls P1 back to its
// start, putting copy 1 back in its mailbox, when requeueAtTick is set.
type vtSender struct {
	*replay.Plain
	quiet         []bool // per input, in order
	restartQuiet  bool   // the restart's input was quiet
	resendAtTick  bool
	requeueAtTick bool
}

func (a *vtSender) Step(in *replay.Input, fx []replay.Effect) []replay.Effect {
	a.quiet = append(a.quiet, in.Quiet)
	if in.Kind == replay.InRestart {
		a.restartQuiet = in.Quiet
	}
	vt := trace.VT{{Count: int32(len(a.quiet))}}
	switch in.Kind {
	case replay.InSend:
		pb := trace.NewPiggyback()
		pb.VT = vt
		return append(fx, replay.Effect{Kind: replay.EffPiggyback, PB: pb})
	case replay.InTick:
		if a.resendAtTick && in.P == 0 {
			return append(fx, replay.Effect{Kind: replay.EffResend, Op: 0})
		}
		if a.requeueAtTick && in.P == 1 {
			return append(fx, replay.Effect{Kind: replay.EffRollback, Ckpt: 0, Pos: 0, Requeue: []replay.CopyID{1}})
		}
		if !in.Down {
			return append(fx, replay.Effect{Kind: replay.EffCheckpoint, Ckpt: int32(len(a.quiet)), CkptType: trace.CkptBasic, VT: vt})
		}
		return fx
	}
	return a.Plain.Step(in, fx)
}

// quietTrace: a send before P2's failure, one after it, and checkpoints on
// both sides.
func quietTrace(t *testing.T) *trace.Trace {
	t.Helper()
	tr, err := trace.NewBuilder("P0", "P1", "P2").
		Send(1, "P0", "P1", "a").
		Recv(1.5, "P1", "a").
		Checkpoint(2, "P0").
		Fail(3, "P2").
		Send(10, "P0", "P1", "b").
		Recv(10.5, "P1", "b").
		Checkpoint(11, "P0").
		Build()
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// streamed takes a run as it streams, as the checker does, and counts
// the sends and checkpoints whose vector was already gone when they came.
type streamed struct {
	fed, late int
}

func (s *streamed) take(run *trace.Run, upto int) {
	for ; s.fed < upto; s.fed++ {
		e := &run.Events[s.fed]
		switch {
		case e.Kind == trace.Send && run.PB(e).VT == nil:
			s.late++
		case e.Kind == trace.Checkpoint && e.VT != trace.None && run.VTOf(e) == nil:
			s.late++
		}
	}
}

// TestForgetPastQuiet: the engine tells the algorithm the run is quiet
// only once the last failure is behind and its process is up again, and
// with Forget drops exactly the vectors made past that point — the
// piggyback of b once delivered, the checkpoint at 11 — keeping a's and
// the checkpoint at 2, which a restore could still read. A run that
// forgot vectors cannot be written; without Forget nothing is dropped.
func TestForgetPastQuiet(t *testing.T) {
	tr := quietTrace(t)
	for _, forget := range []bool{false, true} {
		alg := &vtSender{Plain: replay.NewPlain(3)}
		var st streamed
		run, err := replay.Run(tr, alg, replay.Options{Stream: st.take, Forget: forget})
		if err != nil {
			t.Fatal(err)
		}
		if alg.quiet[0] || alg.restartQuiet || !alg.quiet[len(alg.quiet)-1] {
			t.Errorf("quiet inputs %v (restart's %v): want the first not quiet (a failure is ahead), nor the restart's (P2 was down), the last quiet", alg.quiet, alg.restartQuiet)
		}
		kept := map[string]bool{}
		for i := range run.Events {
			e := &run.Events[i]
			switch {
			case e.Kind == trace.Send:
				kept["send "+run.Msgs[e.Msg]] = run.PB(e).VT != nil
				if !run.PB(e).HasVT() {
					t.Errorf("send %s: a forgotten vector must still count as carried", run.Msgs[e.Msg])
				}
			case e.Kind == trace.Checkpoint && e.CkptType == trace.CkptBasic:
				kept["checkpoint at "+e.T.String()] = run.VTOf(e) != nil
			}
		}
		want := map[string]bool{"send a": true, "send b": !forget, "checkpoint at 2": true, "checkpoint at 11": !forget}
		for k, v := range want {
			if kept[k] != v {
				t.Errorf("forget=%v: %s keeps its vector: %v, want %v", forget, k, kept[k], v)
			}
		}
		if st.late > 0 {
			t.Errorf("forget=%v: %d vectors were gone before the stream took their events", forget, st.late)
		}
		if want := map[bool]int64{false: 0, true: 2}[forget]; run.Forgotten != want {
			t.Errorf("forget=%v: Forgotten = %d, want %d", forget, run.Forgotten, want)
		}
		err = trace.WriteRun(&bytes.Buffer{}, run, trace.WriteOptions{})
		if forget != (err != nil) {
			t.Errorf("forget=%v: writing the run: %v", forget, err)
		}
	}
}

// TestRecoveryOfForgottenCopy: an algorithm that, past the quiet point,
// resends a copy whose vector was forgotten, or puts one back in a
// mailbox to be offered again, broke Input.Quiet's promise; the engine
// stops with an error instead of handing on a copy without its vector.
func TestRecoveryOfForgottenCopy(t *testing.T) {
	tr, err := trace.NewBuilder("P0", "P1").
		Send(1, "P0", "P1", "a").
		Recv(1.5, "P1", "a").
		Checkpoint(2, "P0").
		Checkpoint(2, "P1").
		Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		alg  func() *vtSender
		want string
	}{
		{func() *vtSender { return &vtSender{Plain: replay.NewPlain(2), resendAtTick: true} }, "resends a copy delivered after the last failure was answered"},
		{func() *vtSender { return &vtSender{Plain: replay.NewPlain(2), requeueAtTick: true} }, "offers a receive a copy delivered after the last failure was answered"},
	} {
		for _, forget := range []bool{false, true} {
			var st streamed
			_, err := replay.Run(tr, tc.alg(), replay.Options{Stream: st.take, Forget: forget})
			if forget != (err != nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("forget=%v, want %q: %v", forget, tc.want, err)
			}
		}
	}
}

// lagging takes a run as a consumer on another goroutine does: it takes
// the events handed to Stream only when the engine calls Taken.
type lagging struct {
	streamed
	run    *trace.Run
	upto   int
	takens int
}

func (l *lagging) stream(run *trace.Run, upto int) { l.run, l.upto = run, upto }

func (l *lagging) taken() {
	l.takens++
	l.take(l.run, l.upto)
}

// TestTakenBeforeForgetting: with Options.Taken (the stream's consumer on
// another goroutine), the engine forgets no vector before Taken has
// returned for the events that carry it, and forgets in batches of
// forgetBatch, so that it waits once per batch, not once per step.
func TestTakenBeforeForgetting(t *testing.T) {
	const pairs = 2*4096 + 100 // forgetBatch, twice over and a bit
	b := trace.NewBuilder("P0", "P1", "P2").Fail(1, "P2")
	for i := 0; i < pairs; i++ {
		at := 10 + float64(i)
		b = b.Send(at, "P0", "P1", fmt.Sprint("m", i)).Recv(at+0.5, "P1", fmt.Sprint("m", i))
	}
	tr, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	var l lagging
	run, err := replay.Run(tr, &vtSender{Plain: replay.NewPlain(3)}, replay.Options{Stream: l.stream, Taken: l.taken, Forget: true})
	if err != nil {
		t.Fatal(err)
	}
	l.take(run, len(run.Events))
	if l.late > 0 {
		t.Errorf("%d vectors were gone before the stream took their events", l.late)
	}
	if run.Forgotten < 2*4096 || l.takens != 2 {
		t.Errorf("forgot %d vectors in %d waits, want at least %d in 2", run.Forgotten, l.takens, 2*4096)
	}
}
