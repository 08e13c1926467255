package diagram

import (
	"bytes"
	"fmt"
	json "github.com/goccy/go-json"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/ckpt-dev/ckpt/algorithms"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen/gentest"
)

// TestLayoutOrder: on the logical axis every message and control arrow
// points right and each lane's marks go strictly right in seq order (the
// axis is happened-before order); on the time axis each lane's marks
// never go left, and x grows with time across lanes.
func TestLayoutOrder(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		tr := gentest.Trace().Draw(rt, "trace")
		alg := rapid.SampledFrom([]string{"ms", "pk"}).Draw(rt, "alg")
		a, err := algorithms.New(alg, "", tr)
		if err != nil {
			rt.Fatal(err)
		}
		run, err := replay.Run(tr, a, replay.Options{})
		if err != nil {
			rt.Skip("replay error")
		}
		for _, axis := range []string{AxisLogical, AxisTime} {
			m, err := build(run, nil, Options{Axis: axis, MaxEvents: rapid.IntRange(5, 400).Draw(rt, "max")}, DefaultMaxEvents)
			if err != nil {
				rt.Fatal(err)
			}
			m.layout()
			checkOrder(rt, m, axis)
		}
	})
}

func checkOrder(t *rapid.T, m *model, axis string) {
	// last is the x of a lane's previous mark; on the time axis, first is
	// the x of the lane's first mark at the previous instant (marks at
	// one instant are spread right of it; a later instant is not left of
	// it: x is time, to scale).
	last, first := map[int32]float64{}, map[int32]float64{}
	lastT := map[int32]trace.Time{}
	for i := range m.run.Events {
		e := &m.run.Events[i]
		if !m.drawn[i] || !slotted(e.Kind) {
			continue
		}
		x, ok := last[e.P]
		switch {
		case !ok:
		case axis == AxisLogical || e.T == lastT[e.P]:
			if m.x[i] <= x {
				t.Fatalf("%s axis: event %d of %s at x=%g, not right of the lane's previous mark at %g", axis, i, m.run.Processes[e.P], m.x[i], x)
			}
		case m.x[i] < first[e.P]:
			t.Fatalf("time axis: event %d of %s at t=%s, x=%g, left of the lane's previous instant at %g", i, m.run.Processes[e.P], e.T, m.x[i], first[e.P])
		}
		if !ok || e.T != lastT[e.P] {
			first[e.P], lastT[e.P] = m.x[i], e.T
		}
		last[e.P] = m.x[i]
		if m.x[i] < m.geo.left {
			t.Fatalf("%s axis: event %d at x=%g, inside the lane-name column (< %g)", axis, i, m.x[i], m.geo.left)
		}
	}
	if axis != AxisLogical {
		return
	}
	for _, a := range m.arrows {
		if m.x[a.to] <= m.x[a.from] {
			t.Fatalf("message arrow %d -> %d points left or up: x %g -> %g", a.from, a.to, m.x[a.from], m.x[a.to])
		}
	}
	for _, c := range m.ctl {
		if m.x[c.to] <= m.x[c.from] {
			t.Fatalf("control arrow %d -> %d points left or up: x %g -> %g", c.from, c.to, m.x[c.from], m.x[c.to])
		}
	}
}

// TestLaneNames: names sit whole in their own column (the SVG, as
// wide as the run, never shortens them; the page does, tested in the
// browser), with their tooltip, and the initial checkpoints are right of
// the column.
func TestLaneNames(t *testing.T) {
	long := func(n int) string {
		return fmt.Sprintf("a-very-long-process-name-number-%02d-of-the-cluster.example.org", n)
	}
	for _, names := range [][]string{chordNames, {long(1), long(2), long(3), long(4)}} {
		lanesWhole(t, namedTrace(t, "names.json", names, 40*len(names), 1, 3), names)
	}
}

// lanesWhole checks that tr's SVG names every lane whole, in a column
// the initial checkpoints stay right of.
func lanesWhole(t *testing.T, tr *trace.Trace, names []string) {
	t.Helper()
	longest := 0.0
	for _, p := range names {
		longest = max(longest, textWidth(p, laneFont, true))
	}
	run, rep := replayed(t, tr, "ms")
	nodes := parseSVG(t, renderSVG(t, run, rep, Options{}))
	seen := map[string]bool{}
	for _, n := range nodes {
		switch {
		case n.has("lane-label"):
			name := n.attrs["data-p"]
			if n.title != name || n.text != name {
				t.Errorf("lane label of %s reads %q with tooltip %q", name, n.text, n.title)
			}
			seen[name] = true
		case n.has("ckpt-initial") && n.attrs["data-p"] != "":
			x, _ := strconv.ParseFloat(n.attrs["x"], 64)
			if x < 8+longest {
				t.Errorf("initial checkpoint of %s at x=%g covers the lane names (which end at %g)", n.attrs["data-p"], x, 8+longest)
			}
		}
	}
	for _, p := range names {
		if !seen[p] {
			t.Errorf("no lane label for %s", p)
		}
	}
}

// TestLabelsApart: the SVG's labels (checkpoint numbers, message names,
// lost receives) never overlap, by the writer's own width estimate.
func TestLabelsApart(t *testing.T) {
	for _, axis := range []string{AxisLogical, AxisTime} {
		run, rep := replayed(t, chordLike(t), "pk")
		nodes := parseSVG(t, renderSVG(t, run, rep, Options{Axis: axis}))
		var boxes []box
		for _, n := range nodes {
			if n.name != "text" || !(n.has("sn") || n.has("msg-label") || n.has("lost-label")) {
				continue
			}
			x, _ := strconv.ParseFloat(n.attrs["x"], 64)
			y, _ := strconv.ParseFloat(n.attrs["y"], 64)
			w := textWidth(n.text, textFont, false)
			b := box{x, y - textFont, x + w, y + 3}
			if !n.has("lost-label") {
				b.x0, b.x1 = x-w/2, x+w/2
			}
			boxes = append(boxes, b)
		}
		if len(boxes) < 20 {
			t.Fatalf("%s axis: only %d labels", axis, len(boxes))
		}
		for i := range boxes {
			for j := i + 1; j < len(boxes); j++ {
				if boxes[i].overlaps(boxes[j]) {
					t.Fatalf("%s axis: labels overlap: %v and %v", axis, boxes[i], boxes[j])
				}
			}
		}
	}
}

// TestLegendUsed: the legend lists what the diagram draws, and only that.
func TestLegendUsed(t *testing.T) {
	keys := func(name, alg string) map[string]bool {
		run, rep := replayed(t, readExample(t, name), alg)
		out := map[string]bool{}
		for _, n := range parseSVG(t, renderSVG(t, run, rep, Options{})) {
			if n.has("legend-item") {
				out[n.attrs["data-item"]] = true
			}
		}
		return out
	}
	free := keys("failure-free.json", "ms")
	for _, k := range []string{"ev-fail", "jump", "rline", "msg-orphan", "ctl", "undone", "viol", "ckpt-recovery"} {
		if free[k] {
			t.Errorf("failure-free legend lists %s, which it does not draw", k)
		}
	}
	for _, k := range []string{"ev-send", "ev-recv", "ckpt-initial", "msg-normal", "msg-lost"} {
		if !free[k] {
			t.Errorf("failure-free legend lacks %s", k)
		}
	}
	orphan := keys("orphan.json", "pk")
	for _, k := range []string{"msg-orphan", "msg-resent", "ctl", "jump", "rline", "held", "ev-resume", "undone"} {
		if !orphan[k] {
			t.Errorf("orphan.json (PK) legend lacks %s", k)
		}
	}
}

// TestOrphanAndLost: a receipt whose send was undone is drawn as an
// orphan (not a faded normal arrow), and a receive blocked forever as a
// lost arrow from the message's last send, labelled.
func TestOrphanAndLost(t *testing.T) {
	run, rep := replayed(t, readExample(t, "orphan.json"), "ms")
	nodes := parseSVG(t, renderSVG(t, run, rep, Options{}))
	found := false
	for _, n := range drawn(nodes) {
		if n.has("msg-orphan") && strings.Contains(n.title, "orphan: received, then its send was undone") {
			found = true
		}
	}
	if !found {
		t.Error("orphan.json under MS: no orphan receipt drawn in the orphan style")
	}
	run, rep = replayed(t, readExample(t, "orphan.json"), "pk:no-resend")
	nodes = parseSVG(t, renderSVG(t, run, rep, Options{}))
	arrows, labels := 0, 0
	for _, n := range nodes {
		if n.has("lost-receive") && n.attrs["data-seq"] != "" {
			arrows++
		}
		if n.has("lost-label") && strings.HasSuffix(n.text, " lost") {
			labels++
		}
	}
	if arrows == 0 || labels != arrows {
		t.Errorf("PK without resends: %d lost arrows from a send, %d labels", arrows, labels)
	}
	// A message never sent gets an arrow from nowhere.
	nodes = parseSVG(t, renderSVG(t, styleRun(), nil, Options{}))
	stub := false
	for _, n := range nodes {
		if n.has("lost-receive") && n.attrs["data-seq"] == "" && strings.Contains(n.title, "no copy was ever sent") {
			stub = true
		}
	}
	if !stub {
		t.Error("a receive blocked on a message never sent is not drawn")
	}
}

// TestWording: a valid run says "no violations" (never "Violations: 1.
// none"), and the axis says what x is.
func TestWording(t *testing.T) {
	run, rep := replayed(t, readExample(t, "forced.json"), "ms")
	svg := string(renderSVG(t, run, rep, Options{}))
	if !strings.Contains(svg, "verdict: valid, no violations") || strings.Contains(svg, ">Violations<") {
		t.Error("a valid run's SVG does not say no violations, or lists violations")
	}
	if !strings.Contains(svg, "not a time scale") {
		t.Error("the logical axis does not say it is not a time scale")
	}
	ts := string(renderSVG(t, run, rep, Options{Axis: AxisTime}))
	if !strings.Contains(ts, "x: real time, to scale") || !strings.Contains(ts, `class="tick"`) {
		t.Error("the time axis has no scale or ticks")
	}
	// The page's script says "No violations" or "Not checked" from its
	// data (TestBrowser reads the words).
	for _, r := range []*report.Report{rep, nil} {
		var h bytes.Buffer
		if err := htmlOf(&h, run, r, Options{}); err != nil {
			t.Fatal(err)
		}
		if p := dataOf(t, h.String()).Panels[0]; len(p.Viol) != 0 || (r != nil && p.Stats.Rollbacks != r.Stats.Rollbacks) {
			t.Errorf("report %v: page data has %d violations, stats %v", r != nil, len(p.Viol), p.Stats)
		}
	}
}

// dataOf is the data a page embeds for its script.
func dataOf(t *testing.T, page string) pageJSON {
	t.Helper()
	start := strings.Index(page, `id="ckpt-data">`) + len(`id="ckpt-data">`)
	end := strings.Index(page[start:], "</script>")
	var data pageJSON
	if err := json.Unmarshal([]byte(page[start:start+end]), &data); err != nil {
		t.Fatalf("page data is not JSON: %v", err)
	}
	return data
}

// TestPageData: the embedded data is valid JSON that cannot end its
// <script> element, whatever the run's text.
func TestPageData(t *testing.T) {
	hostile := "</script><!-- \u2028\u2029 \xff \x01 \"q\" \\"
	b, err := json.Marshal(&pageJSON{Axis: hostile})
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte("</")) || bytes.Contains(b, []byte("<!")) || bytes.ContainsRune(b, '\u2028') {
		t.Errorf("data can break out of its script element: %s", b)
	}
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("not JSON: %v: %s", err, b)
	}
	if v["axis"] != "</script><!-- \u2028\u2029 \uFFFD \x01 \"q\" \\" {
		t.Errorf("round trip gave %q", v["axis"])
	}
	run := styleRun()
	run.Processes[0] = "</script><script>alert(1)</script>"
	var h bytes.Buffer
	if err := htmlOf(&h, run, nil, Options{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(h.String(), "<script>alert") {
		t.Error("a process name broke out of the data")
	}
	dataOf(t, h.String())
}

// TestCompare: MS and PK on one trace — two panels, a table, and the ops
// one ran a different number of times than the other outlined.
func TestCompare(t *testing.T) {
	// domino.json: MS rolls P1 back and re-runs its ops; PK keeps P1.
	tr := readExample(t, "domino.json")
	ms, msRep := replayed(t, tr, "ms")
	pk, pkRep := replayed(t, tr, "pk")
	panels := []Panel{{ms, msRep}, {pk, pkRep}}
	var b bytes.Buffer
	if err := SVGPanels(&b, panels, Options{}); err != nil {
		t.Fatal(err)
	}
	nodes := parseSVG(t, b.Bytes())
	var algs []string
	diffs := 0
	for _, n := range nodes {
		if n.has("panel") {
			algs = append(algs, n.attrs["data-algorithm"])
		}
		if n.has("diff") && n.attrs["data-seq"] != "" {
			diffs++
			if !strings.Contains(n.title, "differs: this op ran") {
				t.Errorf("difference without its explanation: %q", n.title)
			}
		}
	}
	if strings.Join(algs, ",") != "ms,pk" {
		t.Errorf("panels %v, want ms,pk", algs)
	}
	na, nb := diffNotes(mustBuild(t, ms, msRep), mustBuild(t, pk, pkRep))
	if diffs == 0 || diffs != len(na)+len(nb) {
		t.Errorf("%d outlines for %d+%d differences", diffs, len(na), len(nb))
	}
	b.Reset()
	if err := HTMLPanels(&b, panels, Options{}); err != nil {
		t.Fatal(err)
	}
	// The script writes the comparison from each panel's report
	// (TestBrowser reads it).
	for i, p := range dataOf(t, b.String()).Panels {
		if p.Stats == nil || len(p.Recoveries) != 1 || len(p.Diff) == 0 {
			t.Errorf("panel %d: stats %v, %d recoveries, %d differences: nothing to compare", i, p.Stats, len(p.Recoveries), len(p.Diff))
		}
	}
	if err := HTMLPanels(&b, nil, Options{}); err == nil {
		t.Error("no panels: no error")
	}
}

func mustBuild(t *testing.T, run *trace.Run, rep *report.Report) *model {
	t.Helper()
	m, err := build(run, rep, Options{}, DefaultMaxEvents)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestTimeAxisBounded: a run whose median gap is a nanosecond but which
// lasts 1000 s gets a time axis of bounded width and ticks.
func TestTimeAxisBounded(t *testing.T) {
	run := &trace.Run{Name: "ns", Algorithm: "x", Processes: []string{"A"}}
	for i, tt := range []trace.Time{0, 1, 2, 3, 4, 1000 * trace.Second} {
		e := trace.NewRunEvent(trace.Internal, tt, 0)
		e.Seq, e.Op = int32(i), int32(i)
		run.Events = append(run.Events, e)
	}
	nodes := parseSVG(t, renderSVG(t, run, nil, Options{Axis: AxisTime}))
	w, _ := strconv.ParseFloat(nodes[0].attrs["width"], 64)
	ticks := 0
	for _, n := range nodes {
		if n.has("tick") {
			ticks++
		}
	}
	if w > maxTimeW+1000 || ticks > 3000 {
		t.Errorf("width %g px, %d ticks", w, ticks)
	}
}
