package gen_test

import (
	"bytes"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/codec"

	"pgregory.net/rapid"

	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen"
	"github.com/ckpt-dev/ckpt/trace/gen/gentest"
)

// TestPropertyValid: whatever the knobs, the output is a valid trace
// (trace.Validate inside gen.Trace, and the decoder on the written
// bytes), with exactly the ops, failures and in-transit messages asked
// for, every send along an edge of the topology, every recv exactly one
// sampled delay after its send, and determinism.
func TestPropertyValid(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := gentest.Config().Draw(t, "config")
		tr, err := gen.Trace(c)
		if err != nil {
			t.Fatalf("Trace: %v", err)
		}
		nb, err := gen.Neighbors(c)
		if err != nil {
			t.Fatal(err)
		}
		var ops, fails int
		for i, e := range tr.Events {
			if i > 0 && e.T < tr.Events[i-1].T {
				t.Fatalf("event %d goes back in time", i)
			}
			switch e.Kind {
			case trace.Send, trace.Recv, trace.Internal:
				ops++
			case trace.Fail:
				fails++
			}
			if e.Kind == trace.Send {
				found := false
				for _, q := range nb[e.P] {
					found = found || q == e.To
				}
				if !found {
					t.Fatalf("event %d: send %d→%d off the topology", i, e.P, e.To)
				}
			}
		}
		unreceived := 0
		for _, m := range tr.Messages {
			if m.Recv == trace.None {
				unreceived++
			}
		}
		if ops != c.Events || fails != c.Failures || unreceived != c.InTransit {
			t.Fatalf("ops, failures, in transit = %d, %d, %d; want %d, %d, %d", ops, fails, unreceived, c.Events, c.Failures, c.InTransit)
		}
		var a, b bytes.Buffer
		opts := codec.WriteOptions{JSONL: c.Seed%2 == 0}
		if _, err := gen.Write(&a, c, opts); err != nil {
			t.Fatal(err)
		}
		if _, err := gen.Write(&b, c, opts); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Fatal("not deterministic")
		}
		back, err := codec.ReadTrace("gen.json", &a)
		if err != nil {
			t.Fatalf("written trace rejected: %v", err)
		}
		if len(back.Events) != len(tr.Events) {
			t.Fatalf("read back %d events, generated %d", len(back.Events), len(tr.Events))
		}
	})
}
