package mutants

import (
	"bytes"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/codec"

	"github.com/ckpt-dev/ckpt/algorithms/ms"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace/gen/gentest"
)

// probing is the real MS, probed for every process before every input.
type probing struct {
	replay.Algorithm
	probe msProbe
	n     int
}

// Step probes every process, then steps the machine.
func (w *probing) Step(in *replay.Input, fx []replay.Effect) []replay.Effect {
	for p := range w.n {
		w.probe.of(w.Algorithm, replay.Proc(p))
	}
	return w.Algorithm.Step(in, fx)
}

// TestProbePure: the MS mutants read the machine's sn and F by probing
// it with a send; that must change nothing. Runs of the real MS probed
// before every input are byte-identical to its runs unprobed, on traces
// with overlapping failures, flushes and replays.
func TestProbePure(t *testing.T) {
	for seed := uint64(1); seed <= 60; seed++ {
		tr := gentest.Seeded(seed, 2+int(seed%4), 20+int(seed%50), 1+int(seed%4))
		var out [2]bytes.Buffer
		for i := range out {
			a, err := ms.New(ms.Default, tr)
			if err != nil {
				t.Fatal(err)
			}
			var alg replay.Algorithm = a
			if i == 1 {
				alg = &probing{Algorithm: a, n: len(tr.Processes)}
			}
			run, err := replay.Run(tr, alg, replay.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := codec.WriteRun(&out[i], run, codec.WriteOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(out[0].Bytes(), out[1].Bytes()) {
			t.Fatalf("%s: probing the machine changes its run", tr.Name)
		}
	}
}
