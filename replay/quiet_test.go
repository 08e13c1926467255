package replay_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
)

// vtSender stamps every send and checkpoint with a one-entry vector time,
// records which inputs came quiet, and resends op 0 of P0 at P0's tick
// when resendAtTick is set.
type vtSender struct {
	*replay.Plain
	quiet        []bool // per input, in order
	restartQuiet bool   // the restart's input was quiet
	resendAtTick bool
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

// streamAll consumes a run as it streams, as the checker does.
func streamAll(run *trace.Run, upto int) {}

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
		run, err := replay.Run(tr, alg, replay.Options{Stream: streamAll, Forget: forget})
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
		if want := map[bool]int64{false: 0, true: 2}[forget]; run.Forgotten != want {
			t.Errorf("forget=%v: Forgotten = %d, want %d", forget, run.Forgotten, want)
		}
		err = trace.WriteRun(&bytes.Buffer{}, run, trace.WriteOptions{})
		if forget != (err != nil) {
			t.Errorf("forget=%v: writing the run: %v", forget, err)
		}
	}
}

// TestResendOfForgottenCopy: an algorithm that resends, past the quiet
// point, a copy whose vector was forgotten broke Input.Quiet's promise;
// the engine stops with an error instead of handing the receiver a copy
// without its vector.
func TestResendOfForgottenCopy(t *testing.T) {
	tr, err := trace.NewBuilder("P0", "P1").
		Send(1, "P0", "P1", "a").
		Recv(1.5, "P1", "a").
		Checkpoint(2, "P0").
		Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, forget := range []bool{false, true} {
		alg := &vtSender{Plain: replay.NewPlain(2), resendAtTick: true}
		_, err := replay.Run(tr, alg, replay.Options{Stream: streamAll, Forget: forget})
		if forget != (err != nil) || (err != nil && !strings.Contains(err.Error(), "resends a copy delivered after the last failure was answered")) {
			t.Errorf("forget=%v: %v", forget, err)
		}
	}
}
