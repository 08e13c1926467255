package cmd

import (
	"bytes"
	"slices"
	"testing"

	"github.com/ckpt-dev/ckpt/render"
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen"
)

// TestVerifyParallelSameReports verifies a trace large enough for verify
// to run its algorithms in parallel (parallelTrace events, spare cores,
// memory to spare) and one after the other: the reports must be the same
// bytes, in the same order. From bigTrace events the largest replay in
// parallel has its checker on a goroutine of its own, which one after the
// other without spare cores none has. Run with -race it also shows that
// the two replays and checks share the trace read-only.
func TestVerifyParallelSameReports(t *testing.T) {
	for _, events := range []int{parallelTrace, bigTrace} {
		c := gen.DefaultConfig()
		c.Procs, c.Events, c.Failures, c.Concurrent, c.Seed = 6, events, 8, true, 3
		tr, err := gen.Trace(c)
		if err != nil {
			t.Fatal(err)
		}
		if len(tr.Events) < events {
			t.Fatalf("trace has %d events, want at least %d", len(tr.Events), events)
		}
		f := &reportFlags{Algo: "both", Format: "json", Variant: "textbook"}
		ios := &IO{mem: &memCap{bytes: 1 << 40}}
		if !ios.fitsParallel(lazySizes(tr, trace.Params{}), f.algorithms()) {
			t.Fatal("the trace does not fit the parallel budget")
		}
		render := func(spare bool) string {
			var out bytes.Buffer
			reports := verifyTrace(ios, tr, "par.json", f, trace.Params{}, spare)
			if err := render.Reports(&out, render.JSON, reports, render.Options{}); err != nil {
				t.Fatal(err)
			}
			return out.String()
		}
		par, seq := render(true), render(false)
		if par != seq {
			t.Fatalf("%d events: parallel and sequential verify differ:\nparallel:\n%.2000s\nsequential:\n%.2000s", events, par, seq)
		}
		if !bytes.Contains([]byte(par), []byte(`"algorithm": "ms-textbook"`)) || !bytes.Contains([]byte(par), []byte(`"algorithm": "pk"`)) {
			t.Fatalf("want an ms-textbook and a pk report:\n%.1000s", par)
		}
	}
}

// One after the other, a big trace's algorithms run largest estimate
// first (PK's vectors make it the larger), so that the largest run has no
// other report beside it; a small trace keeps the flags' order.
func TestBiggestFirst(t *testing.T) {
	for _, n := range []int{bigTrace, 100} {
		tr := &trace.Trace{Name: "t", Processes: []string{"P0", "P1", "P2"}}
		tr.Events = make([]trace.Event, n)
		for i := range tr.Events {
			tr.Events[i] = trace.Event{T: trace.Time(i), Kind: trace.Internal, P: int32(i % 3), To: trace.None, Msg: trace.None}
		}
		got := biggestFirst(lazySizes(tr, trace.Params{}), len(tr.Events), []string{"ms", "pk"}, []int{0, 1})
		want := []int{1, 0}
		if n < bigTrace {
			want = []int{0, 1}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%d events: order %v, want %v", n, got, want)
		}
	}
}
