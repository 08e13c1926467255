package replay_test

import (
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/tracetest"

	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
)

// stabler stamps every send and checkpoint with a one-entry vector and,
// at each tick of P1 (checkpoint k), declares checkpoint k of both
// processes stable. Hooks break its promises.
type stabler struct {
	*replay.Plain
	n int32
	// after, when set, runs at P0's tick number after and may replace
	// its effects.
	after int
	hook  func(fx []replay.Effect) []replay.Effect
	ticks [2]int
}

func (a *stabler) Step(in *replay.Input, fx []replay.Effect) []replay.Effect {
	a.n++
	vt := trace.VT{{Count: a.n}}
	switch in.Kind {
	case replay.InSend:
		pb := trace.NewPiggyback()
		pb.VT = vt
		return append(fx, replay.Effect{Kind: replay.EffPiggyback, PB: pb})
	case replay.InTick:
		a.ticks[in.P]++
		k := int32(a.ticks[in.P])
		if in.P == 0 && a.hook != nil && a.ticks[0] == a.after {
			return a.hook(fx)
		}
		fx = append(fx, replay.Effect{Kind: replay.EffCheckpoint, Ckpt: k, CkptType: trace.CkptBasic, VT: vt})
		if in.P == 1 {
			fx = append(fx, replay.Effect{Kind: replay.EffStable, To: 0, Ckpt: k}, replay.Effect{Kind: replay.EffStable, To: 1, Ckpt: k})
		}
		return fx
	}
	return a.Plain.Step(in, fx)
}

// stableTrace: P0 sends a to P1, both tick, P0 sends b, both tick twice.
func stableTrace(t *testing.T) *trace.Trace {
	tr, err := tracetest.NewBuilder("P0", "P1").
		Send(1, "P0", "P1", "a").Recv(1.5, "P1", "a").
		Checkpoint(2, "P0").Checkpoint(2, "P1").
		Send(3, "P0", "P1", "b").Recv(3.5, "P1", "b").
		Checkpoint(4, "P0").Checkpoint(4, "P1").
		Checkpoint(5, "P0").Checkpoint(5, "P1").
		Build()
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestReleaseDropsWhatIsFinal: with a consumer that takes every event,
// the engine drops the vector of a piggyback once its send and receipt
// are final and the vectors of checkpoints below the stable one; without
// a consumer, and for a consumer that has taken nothing, it keeps all.
func TestReleaseDropsWhatIsFinal(t *testing.T) {
	tr := stableTrace(t)
	kept := func(stream func(*trace.Run, int) int) (pbs, vts int) {
		run, err := replay.Run(tr, &stabler{Plain: replay.NewPlain(2)}, replay.Options{Stream: stream})
		if err != nil {
			t.Fatal(err)
		}
		for i := range run.PBs {
			if run.PBs[i].VT != nil {
				pbs++
			}
		}
		for _, vt := range run.VTs {
			if vt != nil {
				vts++
			}
		}
		return pbs, vts
	}
	if pbs, vts := kept(nil); pbs != 2 || vts != 6 {
		t.Errorf("without a consumer: %d piggybacks and %d checkpoint vectors kept, want all 2 and 6", pbs, vts)
	}
	if pbs, vts := kept(func(*trace.Run, int) int { return 0 }); pbs != 2 || vts != 6 {
		t.Errorf("a consumer that took nothing: %d piggybacks and %d checkpoint vectors kept, want all 2 and 6", pbs, vts)
	}
	// Checkpoint 3 of each process is stable: a and b are final at both
	// ends, the checkpoints before 3 are never restored.
	if pbs, vts := kept(func(_ *trace.Run, upto int) int { return upto }); pbs != 0 || vts != 2 {
		t.Errorf("a consumer that took everything: %d piggybacks and %d checkpoint vectors kept, want 0 and 2", pbs, vts)
	}
}

// TestReleaseRefusesBrokenPromises: restoring below a stable checkpoint,
// or resending a send whose vector was let go, is an error.
func TestReleaseRefusesBrokenPromises(t *testing.T) {
	for _, tc := range []struct {
		name string
		fx   replay.Effect
		want string
	}{
		{"restore below", replay.Effect{Kind: replay.EffRollback, Ckpt: 1, Pos: 1}, "below checkpoint 2 it declared stable"},
		{"resend", replay.Effect{Kind: replay.EffResend, Op: 0}, "declared final"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := &stabler{Plain: replay.NewPlain(2), after: 3, hook: func(fx []replay.Effect) []replay.Effect { return append(fx, tc.fx) }}
			_, err := replay.Run(stableTrace(t), a, replay.Options{Stream: func(_ *trace.Run, upto int) int { return upto }})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one saying %q", err, tc.want)
			}
		})
	}
}
