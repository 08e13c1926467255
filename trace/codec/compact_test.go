package codec_test

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/codec"
	"github.com/ckpt-dev/ckpt/trace/tracetest"

	"github.com/ckpt-dev/ckpt/algorithms"
	"github.com/ckpt-dev/ckpt/consistency"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen"
)

// compactRuns replays generated traces of 16 processes through every
// algorithm and variant (8 failures for those that recover) and hands
// each run to f.
func compactRuns(t *testing.T, seeds int, f func(name string, tr *trace.Trace, run *trace.Run)) {
	for seed := uint64(1); seed <= uint64(seeds); seed++ {
		for _, a := range algorithms.All {
			cfg := gen.DefaultConfig()
			cfg.Seed, cfg.Procs, cfg.Events = seed, 16, 1500
			if a.Recovery {
				cfg.Failures, cfg.Concurrent = 8, seed%2 == 0
			}
			tr, err := gen.Trace(cfg)
			if err != nil {
				t.Fatal(err)
			}
			variants := []string{""}
			for _, v := range a.Variants {
				variants = append(variants, v.Name)
			}
			for _, v := range variants {
				alg, err := a.New(v, tr)
				if err != nil {
					t.Fatal(err)
				}
				run, err := replay.Run(tr, alg, replay.Options{Variant: v})
				if err != nil {
					t.Fatal(err)
				}
				f(fmt.Sprintf("%s/%s/seed %d", a.Name, v, seed), tr, run)
			}
		}
	}
}

// TestCompactDecodesTheSame: a run written as ckpt/run@1 and as
// ckpt/run@2 decodes to the same values, event by event — piggybacks,
// vector times, bodies and their receipt lists — and ckpt check gives
// the same verdicts on both, on generated runs of 16 processes of every
// algorithm, with failures for those that recover.
func TestCompactDecodesTheSame(t *testing.T) {
	sizes := map[string][2]int{}
	refs := map[string]int{}
	compactRuns(t, 3, func(name string, tr *trace.Trace, run *trace.Run) {
		var runs [2]*trace.Run
		for i, o := range []codec.WriteOptions{{}, {Compact: true, JSONL: len(name)%2 == 0}} {
			var b bytes.Buffer
			if err := codec.WriteRun(&b, run, o); err != nil {
				t.Fatal(err)
			}
			s := sizes[run.Algorithm]
			s[i] += b.Len()
			sizes[run.Algorithm] = s
			for _, r := range []string{`"body":{"of"`, `"received":{"of"`, `"vt":{"set"`} {
				refs[r] += bytes.Count(b.Bytes(), []byte(r))
			}
			got, err := codec.ReadRun(name, &b)
			if err != nil {
				t.Fatalf("%s %+v: %v", name, o, err)
			}
			runs[i] = got
		}
		if msg := sameValues(runs[0], runs[1]); msg != "" {
			t.Fatalf("%s: %s", name, msg)
		}
		if msg := sameValues(run, runs[1]); msg != "" {
			t.Fatalf("%s, the engine's run and the @2 one: %s", name, msg)
		}
		want, got := verdicts(consistency.Check(runs[0], tr)), verdicts(consistency.Check(runs[1], tr))
		if !slices.Equal(want, got) {
			t.Fatalf("%s: verdicts on @1 %v, on @2 %v", name, want, got)
		}
	})
	for r, n := range refs {
		if n == 0 {
			t.Errorf("no run wrote %s: the test does not reach that form", r)
		}
	}
	// At 16 processes a dense vector is a tenth of an event's text; the
	// saving grows with the width (docs/performance.md, 4,096).
	if s := sizes["pk"]; 5*s[1] > 4*s[0] {
		t.Errorf("PK runs take %d bytes as @2, %d as @1: less than a fifth saved", s[1], s[0])
	}
}

// verdicts lists a report's properties with status and message.
func verdicts(r report.Report) []string {
	var out []string
	for _, p := range r.Properties {
		out = append(out, fmt.Sprintf("%s=%s %s %d", p.Name, p.Status, p.Note, len(p.Violations)))
	}
	return out
}

// sameValues compares two runs event by event, through their side tables,
// and says where they differ.
func sameValues(a, b *trace.Run) string {
	if len(a.Events) != len(b.Events) || !slices.Equal(a.Processes, b.Processes) {
		return "different lengths or processes"
	}
	for i := range a.Events {
		x, y := a.Events[i], b.Events[i]
		if (x.Msg >= 0) != (y.Msg >= 0) || (x.Msg >= 0 && a.Msgs[x.Msg] != b.Msgs[y.Msg]) {
			return fmt.Sprintf("event %d: messages differ", i)
		}
		if !codec.SamePiggyback(a.PB(&x), b.PB(&y)) || !slices.Equal(a.VTOf(&x), b.VTOf(&y)) {
			return fmt.Sprintf("event %d: vectors differ: %s, %s", i, codec.PiggybackText(a.PB(&x)), codec.PiggybackText(b.PB(&y)))
		}
		if msg := sameBody(a, b, a.Body(&x), b.Body(&y)); msg != "" {
			return fmt.Sprintf("event %d: %s", i, msg)
		}
		if a.Until(&x) != b.Until(&y) || a.Label(&x) != b.Label(&y) {
			return fmt.Sprintf("event %d: strings differ", i)
		}
		x.PB, x.VT, x.Body, x.Until, x.Label, x.Msg = 0, 0, 0, 0, 0, 0
		y.PB, y.VT, y.Body, y.Until, y.Label, y.Msg = 0, 0, 0, 0, 0, 0
		if x != y {
			return fmt.Sprintf("event %d: %+v, %+v", i, x, y)
		}
	}
	return ""
}

func sameBody(a, b *trace.Run, x, y *trace.ControlBody) string {
	if x == nil || y == nil {
		if x != y {
			return "one has a body"
		}
		return ""
	}
	xs, ys := x.ReceivedList(), y.ReceivedList()
	if len(xs) != len(ys) || (xs == nil) != (ys == nil) {
		return "receipt lists differ in length"
	}
	for k := range xs {
		if a.Msgs[xs[k].Msg] != b.Msgs[ys[k].Msg] || xs[k].Inc != ys[k].Inc {
			return fmt.Sprintf("receipt %d differs", k)
		}
	}
	xc, yc := *x, *y
	xc.Received, xc.Receipts, yc.Received, yc.Receipts = nil, nil, nil, nil
	if !reflect.DeepEqual(xc, yc) {
		return fmt.Sprintf("bodies differ: %+v, %+v", xc, yc)
	}
	return ""
}

// TestStreamRunHandsEachEventOnce: StreamRun hands the header, then every
// event with the same values ReadRun reads, vectors included, and drops
// the vectors of the events taken; a consumer that takes nothing keeps
// them.
func TestStreamRunHandsEachEventOnce(t *testing.T) {
	compactRuns(t, 1, func(name string, tr *trace.Trace, run *trace.Run) {
		if run.Algorithm != "pk" {
			return
		}
		var b bytes.Buffer
		if err := codec.WriteRun(&b, run, codec.WriteOptions{Compact: true}); err != nil {
			t.Fatal(err)
		}
		whole, err := codec.ReadRun(name, bytes.NewReader(b.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		calls, fed := 0, 0
		streamed, err := codec.StreamRun(name, bytes.NewReader(b.Bytes()), func(r *trace.Run, upto int) int {
			if calls++; calls == 1 && (upto != 0 || r.Algorithm != "pk" || len(r.Processes) != 16) {
				t.Fatalf("the first call has %d events, algorithm %q", upto, r.Algorithm)
			}
			for ; fed < upto; fed++ {
				x, y := &whole.Events[fed], &r.Events[fed]
				if !codec.SamePiggyback(whole.PB(x), r.PB(y)) || !slices.Equal(whole.VTOf(x), r.VTOf(y)) {
					t.Fatalf("event %d: handed over with other vectors", fed)
				}
			}
			return fed
		})
		if err != nil {
			t.Fatal(err)
		}
		for i := range streamed.PBs {
			if streamed.PBs[i].VT != nil {
				t.Fatalf("piggyback %d kept its vector after it was taken", i)
			}
		}
		kept, err := codec.StreamRun(name, bytes.NewReader(b.Bytes()), func(*trace.Run, int) int { return 0 })
		if err != nil {
			t.Fatal(err)
		}
		if msg := sameValues(kept, whole); msg != "" {
			t.Fatalf("a consumer that took nothing: %s", msg)
		}
	})
}

// TestCompactProcessThatOnlyReceives: a process that receives many
// copies before its next vector (its base waits for more piggybacks
// than the chain keeps unmerged) decodes the same from both encodings.
func TestCompactProcessThatOnlyReceives(t *testing.T) {
	b := tracetest.NewBuilder("P0", "P1", "P2")
	for i := range 200 {
		from := fmt.Sprintf("P%d", i%2*2)
		m := fmt.Sprintf("m%d", i)
		b = b.Send(float64(i), from, "P1", m).Recv(float64(i)+0.5, "P1", m)
	}
	tr, err := b.Checkpoint(300, "P1").Build()
	if err != nil {
		t.Fatal(err)
	}
	alg, err := algorithms.New("pk", "", tr)
	if err != nil {
		t.Fatal(err)
	}
	run, err := replay.Run(tr, alg, replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b2 bytes.Buffer
	if err := codec.WriteRun(&b2, run, codec.WriteOptions{Compact: true}); err != nil {
		t.Fatal(err)
	}
	got, err := codec.ReadRun("only-receives", &b2)
	if err != nil {
		t.Fatal(err)
	}
	if msg := sameValues(run, got); msg != "" {
		t.Fatal(msg)
	}
}
