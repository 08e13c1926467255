package diagram

import (
	"bytes"
	"github.com/ckpt-dev/ckpt/trace/codec"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen"
)

func generated(t testing.TB, events, failures int) *trace.Trace {
	t.Helper()
	cfg := gen.DefaultConfig()
	cfg.Events, cfg.Failures, cfg.Seed = events, failures, 3
	tr, err := gen.Trace(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tr.Name = "gen.json"
	return tr
}

// TestWindow: a run over MaxEvents is windowed — the start and every
// failure's surroundings — says so, and stays a valid SVG.
func TestWindow(t *testing.T) {
	for _, alg := range []string{"ms", "pk"} {
		t.Run(alg, func(t *testing.T) {
			run, rep := replayed(t, generated(t, 3000, 4), alg)
			opts := Options{MaxEvents: 800}
			doc := renderSVG(t, run, rep, opts)
			nodes := parseSVG(t, doc)
			root := nodes[0]
			total, _ := strconv.Atoi(root.attrs["data-events"])
			shown, _ := strconv.Atoi(root.attrs["data-drawn"])
			if total != len(run.Events) || total <= 800 {
				t.Fatalf("data-events=%d, run has %d", total, len(run.Events))
			}
			// A few restored checkpoints may be added beyond the budget.
			if shown > 800+20 || shown < 400 {
				t.Errorf("drew %d of %d events with MaxEvents 800", shown, total)
			}
			var note string
			bands, fails := 0, 0
			for _, n := range nodes {
				if n.has("window-note") {
					note = "found"
				}
				if n.has("band") {
					bands++
				}
				if n.has("ev-fail") && n.attrs["data-seq"] != "" {
					fails++
				}
			}
			if note == "" || !bytes.Contains(doc, []byte("Large run: showing "+strconv.Itoa(shown)+" of "+strconv.Itoa(total))) {
				t.Error("windowed diagram does not say so")
			}
			if bands == 0 {
				t.Error("no band marks the events left out")
			}
			if fails != 4 {
				t.Errorf("%d failures drawn, want all 4", fails)
			}
			var h bytes.Buffer
			if err := htmlOf(&h, run, rep, opts); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(h.String(), `class="window-note page-window-note"`) {
				t.Error("HTML page does not say the run is windowed")
			}
		})
	}
}

// TestSmallRunNotWindowed: under the limit nothing is left out.
func TestSmallRunNotWindowed(t *testing.T) {
	run, rep := replayed(t, generated(t, 200, 1), "ms")
	doc := renderSVG(t, run, rep, Options{})
	if bytes.Contains(doc, []byte(`class="window-note"`)) || bytes.Contains(doc, []byte(`class="band"`)) {
		t.Error("small run windowed")
	}
}

// BenchmarkSVG draws a windowed diagram of a 100k-op MS run: the cost is
// the linear pass over the run plus the drawn window.
func BenchmarkSVG(b *testing.B) {
	run, rep := replayed(b, generated(b, 100_000, 20), "ms")
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := svgOf(io.Discard, run, rep, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(run.Events)), "events")
}

// BenchmarkHTMLLarge writes the page of a run of more than 10^5 events,
// all of them (the browser draws only what is in view).
func BenchmarkHTMLLarge(b *testing.B) {
	cfg := gen.DefaultConfig()
	cfg.Procs, cfg.Events, cfg.Failures, cfg.Seed = 8, 95_000, 20, 3
	tr, err := gen.Trace(cfg)
	if err != nil {
		b.Fatal(err)
	}
	run, rep := replayed(b, tr, "ms")
	var size int
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		var w countWriter
		if err := htmlOf(&w, run, rep, Options{}); err != nil {
			b.Fatal(err)
		}
		size = int(w)
	}
	b.ReportMetric(float64(len(run.Events)), "events")
	b.ReportMetric(float64(size)/1e6, "MB")
}

type countWriter int

func (c *countWriter) Write(p []byte) (int, error) { *c += countWriter(len(p)); return len(p), nil }

// BenchmarkHTMLSmall draws a whole 2000-op run as a page.
func BenchmarkHTMLSmall(b *testing.B) {
	run, rep := replayed(b, generated(b, 2000, 3), "pk")
	b.ReportAllocs()
	for b.Loop() {
		if err := htmlOf(io.Discard, run, rep, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestWindowKeepsFailure: a window too small for a failure's
// surroundings still draws what answers it, as far as the budget goes
// (ux6: 25 events of orphan.json drew the start alone, "not the events
// around its 1 failure").
func TestWindowKeepsFailure(t *testing.T) {
	tr, err := codec.ReadTraceFile("../testdata/traces/orphan.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, alg := range []string{"ms", "pk"} {
		run, rep := replayed(t, tr, alg)
		if doc := renderSVG(t, run, rep, Options{MaxEvents: 25}); !bytes.Contains(doc, []byte("around 1 of 1 failure")) {
			t.Errorf("%s: the failure's recovery is not drawn", alg)
		}
	}
}
