package replay

import (
	"fmt"
	"testing"

	"github.com/ckpt-dev/ckpt/trace"
)

// TestNames: kinds print their Go names, so test failures read.
func TestNames(t *testing.T) {
	if got := fmt.Sprint([]EffectKind{EffRestart, EffResend, EffStable, 0, 99}); got != "[EffRestart EffResend EffStable Effect(0) EffectKind(99)]" {
		t.Errorf("effect kinds print as %s", got)
	}
	if got := fmt.Sprint([]InputKind{InTick, InControl, 0, 42}); got != "[InTick InControl Input(0) InputKind(42)]" {
		t.Errorf("input kinds print as %s", got)
	}
	for k := EffPiggyback; k <= EffStable; k++ {
		if s := k.String(); s[:3] != "Eff" {
			t.Errorf("effect kind %d has no name: %s", k, s)
		}
	}
	for k := InTick; k <= InControl; k++ {
		if s := k.String(); s[:2] != "In" {
			t.Errorf("input kind %d has no name: %s", k, s)
		}
	}
}

// TestSeq: the zero Seq names no run event; every other names exactly
// one, run seq 0 included.
func TestSeq(t *testing.T) {
	var zero Seq
	if zero.Run() != trace.None || zero.String() != "none" || SeqOf(trace.None) != 0 {
		t.Errorf("zero Seq: Run %d, String %q", zero.Run(), zero.String())
	}
	for _, seq := range []int32{0, 1, 41} {
		s := SeqOf(seq)
		if s == 0 || s.Run() != seq || s.String() != fmt.Sprint(seq) {
			t.Errorf("SeqOf(%d) = %d: Run %d, String %q", seq, s, s.Run(), s.String())
		}
	}
	// A zero effect attributes nothing and omits its optional numbers.
	var e Effect
	if e.Failure.Run() != trace.None || orNone(e.Sn) != trace.None || orNone(e.Inc) != trace.None || e.Copy != NoCopy {
		t.Errorf("zero Effect names something: %+v", e)
	}
}
