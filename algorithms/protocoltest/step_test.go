package protocoltest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
)

// Effects renders effects compactly for table-driven Step tests, one
// string per effect: "checkpoint 1 basic sn=1", "piggyback sn=0",
// "piggyback dv=1,0,0", "piggyback lc=0 ckpt=1,0,0 taken=011 greater=011",
// "deliver", "control request to=1 origin=0 count=1", "hold until=commit",
// "resume", "skip sn=2 reason=in-round".
func Effects(fx []replay.Effect) []string {
	out := make([]string, 0, len(fx))
	for i := range fx {
		out = append(out, Effect(&fx[i]))
	}
	return out
}

// Effect renders one effect as Effects does.
func Effect(e *replay.Effect) string {
	var b strings.Builder
	num := func(k string, v int32) {
		if v != trace.None {
			fmt.Fprintf(&b, " %s=%d", k, v)
		}
	}
	vec := func(k string, v []int32) {
		if v != nil {
			fmt.Fprintf(&b, " %s=%s", k, strings.Trim(strings.Join(strings.Fields(fmt.Sprint(v)), ","), "[]"))
		}
	}
	bits := func(k string, v []bool) {
		if v != nil {
			fmt.Fprintf(&b, " %s=", k)
			for _, x := range v {
				b.WriteByte("01"[btoi(x)])
			}
		}
	}
	// An effect's optional numbers are absent when zero (replay.Effect).
	opt := func(k string, v int32) {
		if v != 0 {
			fmt.Fprintf(&b, " %s=%d", k, v)
		}
	}
	switch e.Kind {
	case replay.EffCheckpoint:
		fmt.Fprintf(&b, "checkpoint %d %s", e.Ckpt, e.CkptType)
		opt("sn", e.Sn)
	case replay.EffPiggyback:
		b.WriteString("piggyback")
		num("sn", e.PB.Sn)
		for _, f := range e.PB.F {
			fmt.Fprintf(&b, " f%d=%d", f.P, f.Count)
		}
		for k, v := range e.PB.VT {
			fmt.Fprintf(&b, " vt%d=%d:%d", k, v.Inc, v.Count)
		}
		if c := e.PB.CIC; c != nil {
			num("lc", c.LC)
			vec("dv", c.DV)
			vec("ckpt", c.Ckpt)
			bits("taken", c.Taken)
			bits("greater", c.Greater)
		}
	case replay.EffDeliver:
		b.WriteString("deliver")
	case replay.EffControl:
		fmt.Fprintf(&b, "control %s to=%d", e.Control, e.To)
		if e.Body != nil {
			num("origin", e.Body.Origin)
			num("count", e.Body.Count)
		}
	case replay.EffHoldProcess:
		b.WriteString("hold")
		if e.Until != "" {
			fmt.Fprintf(&b, " until=%s", e.Until)
		}
	case replay.EffResume:
		b.WriteString("resume")
	case replay.EffSkip:
		b.WriteString("skip")
		opt("sn", e.Sn)
		opt("next", e.Next)
		if e.Reason != trace.ReasonNone {
			fmt.Fprintf(&b, " reason=%s", e.Reason)
		}
	default:
		fmt.Fprintf(&b, "effect(%d)", e.Kind)
	}
	return b.String()
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Step is one input of a table-driven Step test and the effects it must
// produce, rendered by Effect.
type Step struct {
	In   replay.Input
	Want []string
}

// Steps feeds steps to alg in order and reports the first difference.
func Steps(alg replay.Algorithm, steps []Step) error {
	for i := range steps {
		st := &steps[i]
		got := Effects(alg.Step(&st.In, nil))
		if strings.Join(got, "; ") != strings.Join(st.Want, "; ") {
			return fmt.Errorf("step %d (input kind %d at P%d): effects %q, want %q", i, st.In.Kind, st.In.P, got, st.Want)
		}
	}
	return nil
}

// Tick, Send and Recv build inputs for Steps. Recv's piggyback is pb.
func Tick(p replay.Proc) replay.Input { return replay.Input{Kind: replay.InTick, P: p} }

// Send is op's send from p to `to`.
func Send(p, to replay.Proc) replay.Input {
	return replay.Input{Kind: replay.InSend, P: p, Peer: to, Copy: replay.NoCopy}
}

// Recv is p's receipt of a copy from `from` carrying pb.
func Recv(p, from replay.Proc, pb trace.Piggyback) replay.Input {
	return replay.Input{Kind: replay.InRecv, P: p, Peer: from, PB: &pb, Copy: replay.NoCopy, Via: trace.ViaNet}
}

// Down marks a tick as one of a down process.
func Down(in replay.Input) replay.Input {
	in.Down = true
	return in
}

// StepCase is one table-driven Step test: inputs fed in order to a fresh
// state machine of three processes P0, P1, P2.
type StepCase struct {
	Name  string
	Steps []Step
}

// CheckSteps runs every case on a fresh state machine from mk.
func CheckSteps(t *testing.T, mk New, cases []StepCase) {
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			if err := Steps(mustNew(t, mk, Procs(t, "P0", "P1", "P2")), tc.Steps); err != nil {
				t.Fatal(err)
			}
		})
	}
}
