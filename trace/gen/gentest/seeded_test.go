package gentest

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/codec"

	"github.com/ckpt-dev/ckpt/internal/golden"
	"github.com/ckpt-dev/ckpt/trace"
)

// TestSeeded: a seeded trace is valid, reproducible, has the processes,
// ops and failures asked for, and its name; seeds differ; and one of them
// is pinned (testdata/seeded-7.jsonl), so that the regime the sweeps rely
// on cannot drift unnoticed.
func TestSeeded(t *testing.T) {
	for seed := uint64(1); seed <= 30; seed++ {
		procs, n, failures := 1+int(seed%6), 20+int(seed), int(seed%5)
		tr := Seeded(seed, procs, n, failures)
		if !reflect.DeepEqual(tr, Seeded(seed, procs, n, failures)) {
			t.Fatalf("seed %d: two calls differ", seed)
		}
		if err := trace.Validate(tr); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		fails, sendsOrInternal := 0, 0
		for _, e := range tr.Events {
			switch e.Kind {
			case trace.Fail:
				fails++
			case trace.Send, trace.Internal:
				sendsOrInternal++
			}
		}
		if len(tr.Processes) != procs || sendsOrInternal != n || fails != failures || tr.Name != fmt.Sprintf("seed-%d", seed) {
			t.Errorf("seed %d: %q with %d processes, %d sends and internal ops, %d failures; want %d, %d, %d",
				seed, tr.Name, len(tr.Processes), sendsOrInternal, fails, procs, n, failures)
		}
	}
	if reflect.DeepEqual(Seeded(1, 3, 30, 2).Events, Seeded(2, 3, 30, 2).Events) {
		t.Error("seeds 1 and 2 give the same events")
	}
	var b bytes.Buffer
	if err := codec.WriteTrace(&b, Seeded(7, 3, 30, 2), codec.WriteOptions{JSONL: true}); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "seeded-7.jsonl", b.Bytes())
}
