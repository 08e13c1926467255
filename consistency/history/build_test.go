package history_test

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/codec"

	"github.com/ckpt-dev/ckpt/algorithms"
	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen"
)

// engineRuns replays the bundled traces and a few generated ones with
// failures through MS and PK.
func engineRuns(t *testing.T) map[string]*trace.Run {
	t.Helper()
	traces := map[string]*trace.Trace{}
	files, _ := filepath.Glob("../../testdata/traces/*.json")
	for _, f := range files {
		tr, err := codec.ReadTraceFile(f)
		if err != nil {
			t.Fatal(err)
		}
		traces[filepath.Base(f)] = tr
	}
	for seed := uint64(1); seed <= 4; seed++ {
		c := gen.DefaultConfig()
		c.Seed, c.Procs, c.Events, c.Failures, c.Concurrent = seed, 3, 60, 3, true
		tr, err := gen.Trace(c)
		if err != nil {
			t.Fatal(err)
		}
		traces[filepath.Join("gen", string(rune('0'+seed)))] = tr
	}
	runs := map[string]*trace.Run{}
	for name, tr := range traces {
		for _, a := range algorithms.Names {
			alg, err := algorithms.New(a, "", tr)
			if err != nil {
				t.Fatal(err)
			}
			run, err := replay.Run(tr, alg, replay.Options{})
			if err != nil {
				t.Fatal(err)
			}
			runs[name+"/"+a] = run
		}
	}
	if len(runs) < 10 {
		t.Fatalf("only %d engine runs", len(runs))
	}
	return runs
}

// Feeding events one at a time, with no size hint, builds the same model
// as Build: the builder never looks ahead.
func TestStreamingBuildsTheSameModel(t *testing.T) {
	for name, run := range engineRuns(t) {
		whole := history.Build(run, nil, history.AlgOf(run))
		hdr := &trace.Run{Name: run.Name, Algorithm: run.Algorithm, Processes: run.Processes,
			Options: run.Options, Msgs: run.Msgs, PBs: run.PBs, VTs: run.VTs, Bodies: run.Bodies, Strings: run.Strings}
		b := history.NewBuilder(hdr, nil, history.AlgOf(run), 0)
		for i := range run.Events {
			hdr.Events = append(hdr.Events, run.Events[i])
			b.Add(&hdr.Events[i])
		}
		m := b.Finish()
		m.Run = whole.Run
		if !reflect.DeepEqual(whole, m) {
			t.Errorf("%s: the streamed model differs from the built one", name)
		}
	}
}
