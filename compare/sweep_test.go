package compare

import (
	"bytes"
	"encoding/csv"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/internal/golden"
	"github.com/ckpt-dev/ckpt/trace"
)

// smallSweep is a grid small enough for unit tests that still shows the
// classic shape.
func smallSweep() SweepOptions {
	return SweepOptions{Procs: 4, Intervals: 8, Seeds: 2, MTT: trace.Second, Ratios: []float64{1, 5, 20, 50}}
}

func runSweep(t *testing.T, o SweepOptions) []SweepRow {
	t.Helper()
	rows, err := Sweep(o)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestSweepGolden: the CSV and the chart of a small grid, and the same
// bytes whatever the number of workers (render tests the table).
func TestSweepGolden(t *testing.T) {
	o := smallSweep()
	render := func(o SweepOptions) (csvOut, svg []byte) {
		rows := runSweep(t, o)
		var c, s bytes.Buffer
		if err := WriteCSV(&c, o, rows); err != nil {
			t.Fatal(err)
		}
		if err := Chart(&s, o, rows); err != nil {
			t.Fatal(err)
		}
		return c.Bytes(), s.Bytes()
	}
	o.Workers = 1
	c1, s1 := render(o)
	o.Workers = 4
	c4, s4 := render(o)
	if !bytes.Equal(c1, c4) || !bytes.Equal(s1, s4) {
		t.Error("output depends on the number of workers")
	}
	golden.Check(t, "sweep.csv", c1)
	golden.Check(t, "sweep.svg", s1)
}

// TestSweepShape: the literature's shape on the classic workload — HMNR
// forces no more than BCS, which forces fewer than FDAS once processes
// send several messages per interval; FDAS grows with ICT/MTT; the
// protocols without forced checkpoints force none; the CSV has a row per
// ratio and protocol.
func TestSweepShape(t *testing.T) {
	o := smallSweep()
	rows := runSweep(t, o)
	at := map[string]map[float64]float64{}
	for _, r := range rows {
		if at[r.Protocol] == nil {
			at[r.Protocol] = map[float64]float64{}
		}
		if r.ForcedPerBasic == nil {
			t.Fatalf("%s at %g: no basic checkpoint", r.Protocol, r.Ratio)
		}
		at[r.Protocol][r.Ratio] = *r.ForcedPerBasic
	}
	for _, ratio := range []float64{5, 20, 50} {
		if !(at["hmnr"][ratio] <= at["bcs"][ratio] && at["bcs"][ratio] < at["fdas"][ratio]) {
			t.Errorf("ICT/MTT %g: hmnr %.2f, bcs %.2f, fdas %.2f; want hmnr ≤ bcs < fdas", ratio, at["hmnr"][ratio], at["bcs"][ratio], at["fdas"][ratio])
		}
	}
	if !(at["fdas"][1] < at["fdas"][5] && at["fdas"][5] < at["fdas"][50]) {
		t.Errorf("fdas does not grow with ICT/MTT: %v", at["fdas"])
	}
	for _, p := range []string{Uncoordinated, "coordinated", "pk"} {
		for ratio, v := range at[p] {
			if v != 0 {
				t.Errorf("%s forces %.2f per basic at %g", p, v, ratio)
			}
		}
	}
	var c bytes.Buffer
	if err := WriteCSV(&c, o, rows); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&c).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1+len(o.Ratios)*len(Protocols) || len(recs[0]) != len(csvHeader) {
		t.Errorf("CSV has %d records of %d fields", len(recs), len(recs[0]))
	}
}

// TestSweepRejects: a grid that makes no sense is an error, never a
// panic or an endless generation.
func TestSweepRejects(t *testing.T) {
	for _, c := range []struct {
		name string
		mod  func(*SweepOptions)
		want string
	}{
		{"one process", func(o *SweepOptions) { o.Procs = 1 }, "--procs 1"},
		{"no interval", func(o *SweepOptions) { o.Intervals = 0 }, "--intervals 0"},
		{"no seed", func(o *SweepOptions) { o.Seeds = 0 }, "--seeds 0"},
		{"no mtt", func(o *SweepOptions) { o.MTT = 0 }, "--mtt 0"},
		{"no ratio", func(o *SweepOptions) { o.Ratios = nil }, "no ICT/MTT ratio"},
		// The message names the flags whose product is too large.
		{"huge ratio", func(o *SweepOptions) { o.Ratios = []float64{1e9} }, "sweep: 2 × --procs 4 × --intervals 8 × ICT/MTT 1e+09 = 64000000000 ops a trace, over the 50000000 a trace may have: lower --procs, --intervals or --ratios"},
		{"huge intervals", func(o *SweepOptions) { o.Intervals = 1e9; o.Ratios = []float64{1} }, "sweep: 2 × --procs 4 × --intervals 1000000000 × ICT/MTT 1 = 8000000000 ops a trace, over"},
		{"huge procs", func(o *SweepOptions) { o.Procs = 100000; o.Intervals = 30; o.Ratios = []float64{10} }, "2 × --procs 100000 × --intervals 30 × ICT/MTT 10 = 60000000 ops"},
		{"negative ratio", func(o *SweepOptions) { o.Ratios = []float64{-1} }, "sweep: ICT/MTT -1: want a ratio > 0 whose interval (ICT/MTT × --mtt 1 s) is a valid time"},
		{"unknown protocol", func(o *SweepOptions) { o.Protocols = []string{"nope"} }, `unknown protocol "nope"`},
	} {
		o := smallSweep()
		c.mod(&o)
		if _, err := Sweep(o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
}

// TestChartScales: values spanning orders of magnitude get a log axis
// with the zeros on their own lane; close values a linear axis from 0;
// the SVG is well-formed XML with one line group per protocol, axis
// titles and a legend entry each.
func TestChartScales(t *testing.T) {
	pos := func(v float64) *float64 { return &v }
	mk := func(vals map[string][]float64) (SweepOptions, []SweepRow) {
		o := SweepOptions{Procs: 4, Intervals: 8, Seeds: 1, MTT: trace.Second, Ratios: []float64{1, 10, 100}, Protocols: []string{"bcs", "fdas", "pk"}}
		var rows []SweepRow
		for i, r := range o.Ratios {
			for _, p := range o.Protocols {
				rows = append(rows, SweepRow{Ratio: r, Protocol: p, Counts: Counts{ForcedPerBasic: pos(vals[p][i])}})
			}
		}
		return o, rows
	}
	for _, c := range []struct {
		name            string
		vals            map[string][]float64
		logY, zeroLane  bool
		wantTexts       []string
		forbiddenTexts  []string
		wantSeries, pts int
	}{
		{"log with zeros", map[string][]float64{"bcs": {0.2, 2, 5}, "fdas": {0.3, 4, 45}, "pk": {0, 0, 0}}, true, true,
			[]string{"(log scale)", ">0<", ">pk<", "forces no checkpoint: on 0."}, nil, 3, 9},
		{"linear", map[string][]float64{"bcs": {1, 2, 3}, "fdas": {1.5, 2.5, 4}, "pk": {0, 0, 0}}, false, false,
			[]string{"forced checkpoints per basic checkpoint<"}, []string{"forced checkpoints per basic checkpoint (log scale)"}, 3, 9},
	} {
		t.Run(c.name, func(t *testing.T) {
			o, rows := mk(c.vals)
			ch := newChart(o, rows)
			if ch.ys.log != c.logY || ch.zeroLane != c.zeroLane {
				t.Errorf("log %v, zero lane %v; want %v, %v", ch.ys.log, ch.zeroLane, c.logY, c.zeroLane)
			}
			var b bytes.Buffer
			if err := Chart(&b, o, rows); err != nil {
				t.Fatal(err)
			}
			svg := b.String()
			if err := xml.Unmarshal(b.Bytes(), new(struct{})); err != nil {
				t.Fatalf("not well-formed XML: %v", err)
			}
			if n := strings.Count(svg, `class="series"`); n != c.wantSeries {
				t.Errorf("%d series, want %d", n, c.wantSeries)
			}
			if n := strings.Count(svg, "<title>"); n != c.pts {
				t.Errorf("%d point tooltips, want %d", n, c.pts)
			}
			for _, w := range append(c.wantTexts, "ICT / MTT", `id="legend"`, "Forced checkpoints per basic checkpoint") {
				if !strings.Contains(svg, w) {
					t.Errorf("chart lacks %q", w)
				}
			}
			for _, w := range c.forbiddenTexts {
				if strings.Contains(svg, w) {
					t.Errorf("chart has %q", w)
				}
			}
			for _, vs := range c.vals {
				for _, v := range vs {
					if y := ch.yAt(v); y < plotT || y > plotB {
						t.Errorf("value %g drawn at y %.1f, outside the plot", v, y)
					}
				}
			}
		})
	}
}

// TestDocsChart: docs/sweep.svg is the chart of the default sweep (run
// with -update after a change to the chart or the workload).
func TestDocsChart(t *testing.T) {
	if testing.Short() {
		t.Skip("the default sweep takes a few seconds")
	}
	o := DefaultSweep()
	var b bytes.Buffer
	if err := Chart(&b, o, runSweep(t, o)); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "../../docs/sweep.svg", b.Bytes())
}
