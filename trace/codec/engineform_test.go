package codec_test

import (
	"bytes"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/codec"

	"pgregory.net/rapid"

	"github.com/ckpt-dev/ckpt/algorithms"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace/gen"
	"github.com/ckpt-dev/ckpt/trace/gen/gentest"
)

// TestDecodedRunIsTheEngines: the run of every algorithm in the table,
// written and read back in any container, has the piggybacks the
// algorithm built — FDAS's dv and HMNR's lc, ckpt, taken and greater
// included, vectors one entry per process — and writes the same bytes.
// A decoder that skipped a field of one protocol's piggyback fails here.
func TestDecodedRunIsTheEngines(t *testing.T) {
	opts := []codec.WriteOptions{{}, {JSONL: true}, {Gzip: true}, {JSONL: true, Gzip: true}}
	sends := map[string]int{}
	rapid.Check(t, func(t *rapid.T) {
		// Failure-free: the checkpoint-placement protocols refuse
		// failures (docs/protocols.md).
		cfg := gentest.Config().Draw(t, "config")
		cfg.Events, cfg.Failures = rapid.IntRange(cfg.InTransit+1, cfg.InTransit+80).Draw(t, "events"), 0
		tr, err := gen.Trace(cfg)
		if err != nil {
			t.Fatal(err)
		}
		o := rapid.SampledFrom(opts).Draw(t, "opts")
		for _, a := range algorithms.All {
			alg, err := a.New("", tr)
			if err != nil {
				t.Fatal(err)
			}
			run, err := replay.Run(tr, alg, replay.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := codec.WriteRun(&b, run, o); err != nil {
				t.Fatal(err)
			}
			written := append([]byte(nil), b.Bytes()...)
			got, err := codec.ReadRun(a.Name, &b)
			if err != nil {
				t.Fatalf("%s: decoding its run: %v", a.Name, err)
			}
			for i := range run.Events {
				w, g := run.PB(&run.Events[i]), got.PB(&got.Events[i])
				if !codec.SamePiggyback(w, g) {
					t.Fatalf("%s: event %d: decoded piggyback %s, the engine's %s", a.Name, i, codec.PiggybackText(g), codec.PiggybackText(w))
				}
				if w != nil {
					sends[a.Name]++
				}
			}
			var again bytes.Buffer
			if err := codec.WriteRun(&again, got, o); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(written, again.Bytes()) {
				t.Fatalf("%s: the decoded run writes differently", a.Name)
			}
		}
	})
	for _, name := range []string{"fdas", "hmnr"} {
		if sends[name] == 0 {
			t.Errorf("no %s run had a send: the comparison proves nothing for it", name)
		}
	}
}
