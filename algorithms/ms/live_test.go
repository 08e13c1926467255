package ms_test

import (
	"bytes"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/codec"

	"github.com/ckpt-dev/ckpt/algorithms/ms"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
)

// perProcess drives one ms.Live per process, as a running system does:
// each sees only its own process's inputs. It names failures as the
// engine does, learning (origin, count) → fail seq from the restarts it
// routes, as a live runtime learns them from its own restarts and
// requests.
type perProcess struct {
	lives    []*ms.Live
	restarts []int32
	seqs     map[[2]int32]replay.Seq
}

func newPerProcess(tr *trace.Trace) *perProcess {
	d := &perProcess{restarts: make([]int32, len(tr.Processes)), seqs: map[[2]int32]replay.Seq{}}
	for range tr.Processes {
		d.lives = append(d.lives, ms.NewLive(tr.Processes, func(o, c int32) replay.Seq { return d.seqs[[2]int32{o, c}] }))
	}
	return d
}

func (d *perProcess) Name() string { return "ms" }

func (d *perProcess) Step(in *replay.Input, fx []replay.Effect) []replay.Effect {
	if in.Kind == replay.InRestart {
		d.restarts[in.P]++
		d.seqs[[2]int32{int32(in.P), d.restarts[in.P]}] = in.Failure
	}
	return d.lives[in.P].Step(in, fx)
}

// TestLiveIsMS replays traces with concurrent and repeated failures
// through one Live per process: the run must be byte for byte the
// engine's MS run, so a process that knows only what reaches it decides
// exactly as the all-knowing simulation.
func TestLiveIsMS(t *testing.T) {
	trs := exampleTraces(t)
	for _, c := range cases {
		tr, err := c.build().Build()
		if err != nil {
			t.Fatal(err)
		}
		tr.Name = c.name
		trs = append(trs, tr)
	}
	n := uint64(40)
	if testing.Short() {
		n = 10
	}
	for seed := uint64(1); seed <= n; seed++ {
		trs = append(trs, generated(t, seed, 1+int(seed%6)))
	}
	for _, tr := range trs {
		want, got := mustRun(t, tr, ""), runWith(t, tr, newPerProcess(tr))
		var a, b bytes.Buffer
		if err := codec.WriteRun(&a, want, codec.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := codec.WriteRun(&b, got, codec.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("%s: one Live per process differs from MS", tr.Name)
		}
	}
}

func runWith(t *testing.T, tr *trace.Trace, a replay.Algorithm) *trace.Run {
	t.Helper()
	run, err := replay.Run(tr, a, replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return run
}
