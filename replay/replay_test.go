package replay_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/tracetest"

	"github.com/ckpt-dev/ckpt/internal/golden"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/replay/replaytest"
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen/gentest"
)

func runPlain(t *testing.T, tr *trace.Trace) *trace.Run {
	t.Helper()
	run, err := replay.Run(tr, replay.NewPlain(len(tr.Processes)), replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return run
}

func lines(run *trace.Run) []string { return replaytest.Lines(run) }

func TestEngine(t *testing.T) {
	cases := []struct {
		name  string
		b     *tracetest.Builder
		must  []string
		never []string
	}{
		{
			// The gap rule after a restore: P0 restarts at 1.5 from
			// checkpoint 1 (pos 1) and runs op 1 (gap 0.2) at 1.7, op 2
			// (gap 0.1) at 1.8; the re-executed send is copy 2.
			name: "gap-after-restart",
			b: tracetest.NewBuilder("P0", "P1").
				Params(trace.Params{RestartDelay: trace.Second / 2}).
				Internal(0.1, "P0").
				Checkpoint(0.2, "P0").
				Internal(0.3, "P0").
				Send(0.4, "P0", "P1", "m").
				Fail(1.0, "P0").
				Recv(2.0, "P1", "m"),
			must: []string{`"seq":5,"t":1.5,"p":"P0","kind":"restart","pos":1,"restore":1,"undone":2,"failure":4`,
				`"t":1.7,"p":"P0","kind":"internal","op":1`, `"t":1.8,"p":"P0","kind":"send","msg":"m","to":"P1","op":2,"copy":2`,
				`"p":"P1","kind":"recv","msg":"m","from":"P0","op":0,"copy":1,"via":"net"`, `"p":"P1","kind":"unconsumed","msg":"m","copy":2`},
		},
		{
			// Environment events of a down process: a tick is skipped
			// (reason down), a second fail is recorded and ignored, a
			// flush does nothing; a restart at exactly a tick's time
			// comes first.
			name: "down",
			b: tracetest.NewBuilder("P0", "P1").
				Fail(1.0, "P0").
				Checkpoint(1.2, "P0").
				Fail(1.3, "P0").
				Flush(1.4, "P0").
				Checkpoint(2.0, "P0").
				Internal(2.5, "P1"),
			must: []string{`"seq":1,"t":1.2,"p":"P0","kind":"checkpoint_skipped","reason":"down"`, `"seq":2,"t":1.3,"p":"P0","kind":"fail"`,
				`"seq":3,"t":2,"p":"P0","kind":"restart","pos":0,"restore":0,"undone":0,"failure":0`, `"seq":4,"t":2,"p":"P0","kind":"checkpoint","ckpt":1,"type":"basic","pos":0`},
			never: []string{`"failure":2`},
		},
		{
			// End states: Plain neither logs nor asks senders to
			// re-send, so P1's re-executed receive of m1 blocks forever,
			// and P2, which waits for P1's m2, is blocked behind it.
			name: "end-states",
			b: tracetest.NewBuilder("P0", "P1", "P2").
				Send(0.1, "P0", "P1", "m1").
				Recv(0.2, "P1", "m1").
				Fail(0.3, "P1").
				Send(1.5, "P1", "P2", "m2").
				Recv(1.6, "P2", "m2"),
			must: []string{`"p":"P0","kind":"end","state":"done"`, `"p":"P1","kind":"end","msg":"m1","op":0,"state":"blocked"`, `"p":"P2","kind":"end","msg":"m2","op":0,"state":"blocked"`},
		},
		{
			// A receive waits for a late copy: ready at 0.5, executed at
			// 1.6 when the copy arrives (the sender restarted at 1.1 and
			// sent at 1.1 + gap 0.2; delay 0.3).
			name: "late-copy",
			b: tracetest.NewBuilder("P0", "P1").
				Fail(0.1, "P0").
				Send(0.2, "P0", "P1", "m").
				Recv(0.5, "P1", "m"),
			must: []string{`"t":1.3,"p":"P0","kind":"send","msg":"m","to":"P1","op":0,"copy":1`, `"t":1.6,"p":"P1","kind":"recv","msg":"m"`},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr, err := c.b.Build()
			if err != nil {
				t.Fatal(err)
			}
			run := runPlain(t, tr)
			got := replaytest.Dump(run)
			golden.Check(t, c.name+".golden", []byte(got))
			ls := lines(run)
			for _, m := range c.must {
				found := false
				for _, l := range ls {
					if strings.Contains(l, m) {
						found = true
					}
				}
				if !found {
					t.Errorf("run lacks %q", m)
				}
			}
			for _, m := range c.never {
				for _, l := range ls {
					if strings.Contains(l, m) {
						t.Errorf("run has %q: %s", m, l)
					}
				}
			}
			for i := range run.Events {
				if run.Events[i].Seq != int32(i) {
					t.Fatalf("seq %d at %d", run.Events[i].Seq, i)
				}
			}
		})
	}
}

func TestFailureFreeIdentityPlain(t *testing.T) {
	for seed := uint64(1); seed <= 30; seed++ {
		tr := gentest.Seeded(seed, 1+int(seed%6), 50, 0)
		run := runPlain(t, tr)
		want, got := replaytest.AppEvents(tr, run)
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("seed %d: app events differ", seed)
		}
		again := runPlain(t, tr)
		if !reflect.DeepEqual(run, again) {
			t.Fatalf("seed %d: not deterministic", seed)
		}
	}
}

// TestSpare pins Options.Spare: a run written over a judged run's events
// is the run a fresh replay makes, in the spare's memory.
func TestSpare(t *testing.T) {
	for seed := uint64(1); seed <= 10; seed++ {
		tr := gentest.Seeded(seed, 2+int(seed%4), 60, 2)
		want := runPlain(t, tr)
		spare := runPlain(t, tr).Events
		got, err := replay.Run(tr, replay.NewPlain(len(tr.Processes)), replay.Options{Spare: spare})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("seed %d: the run over a spare differs", seed)
		}
		if len(got.Events) > 0 && &got.Events[0] != &spare[:1][0] {
			t.Fatalf("seed %d: the spare's memory was not used", seed)
		}
	}
}

// badAlg breaks the Effect contract; the engine must report it, not panic.
type badAlg struct{ replay.Plain }

func (badAlg) Name() string { return "bad" }
func (badAlg) Step(in *replay.Input, fx []replay.Effect) []replay.Effect {
	if in.Kind == replay.InRecv {
		return fx // no judgement
	}
	if in.Kind == replay.InSend {
		return append(fx, replay.Effect{Kind: replay.EffPiggyback, PB: trace.NewPiggyback()})
	}
	return fx
}

func TestContractErrors(t *testing.T) {
	tr, err := tracetest.NewBuilder("P0", "P1").Send(0.1, "P0", "P1", "m").Recv(0.2, "P1", "m").Build()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := replay.Run(tr, badAlg{}, replay.Options{}); err == nil || !strings.Contains(err.Error(), "no judgement") {
		t.Errorf("err = %v, want a missing-judgement error", err)
	}
	bad := *tr
	bad.Messages = nil
	if _, err := replay.Run(&bad, replay.NewPlain(2), replay.Options{}); err == nil {
		t.Error("unvalidated trace accepted")
	}
	// Times and durations beyond trace.MaxTime could overflow the
	// engine's sums: a trace or options that bypassed validation with one
	// are refused, never replayed.
	late := *tr
	late.Events = append([]trace.Event(nil), tr.Events...)
	late.Events[1].T = trace.MaxTime + 1
	if _, err := replay.Run(&late, replay.NewPlain(2), replay.Options{}); err == nil || !strings.Contains(err.Error(), "event 1: invalid event") {
		t.Errorf("time beyond the limit: err = %v", err)
	}
	long := trace.Params{ControlDelay: trace.MaxTime + 1}
	if _, err := replay.Run(tr, replay.NewPlain(2), replay.Options{Params: long}); err == nil || !strings.Contains(err.Error(), "control_delay") {
		t.Errorf("delay beyond the limit: err = %v", err)
	}
	if _, err := replay.Run(tr, replay.NewPlain(2), replay.Options{Params: trace.Params{RestartDelay: -1}}); err == nil {
		t.Error("negative restart delay accepted")
	}
}
