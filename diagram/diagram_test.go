package diagram

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/internal/golden"
	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// TestExamples draws every worked example through MS and PK and pins the
// diagram's contents: checkpoints of each kind, messages by style,
// rollbacks and recovery lines.
func TestExamples(t *testing.T) {
	for _, name := range []string{"forced.json", "orphan.json", "domino.json", "failure-free.json"} {
		tr := readExample(t, name)
		for _, alg := range []string{"ms", "pk"} {
			t.Run(name+"/"+alg, func(t *testing.T) {
				run, rep := replayed(t, tr, alg)
				doc := renderSVG(t, run, rep, Options{})
				golden.Check(t, strings.TrimSuffix(name, ".json")+"-"+alg+".golden", []byte(summarize(doc)(t)))
				if again := renderSVG(t, run, rep, Options{}); !bytes.Equal(doc, again) {
					t.Error("two renderings of the same run differ")
				}
			})
		}
	}
}

// TestExampleFacts states, independently of the goldens, what the worked
// examples must show, so that an -update cannot bless a broken diagram.
func TestExampleFacts(t *testing.T) {
	count := func(nodes []*node, class string) int {
		c := 0
		for _, n := range drawn(nodes) {
			if n.has(class) {
				c++
			}
		}
		return c
	}
	cases := []struct {
		example, alg string
		want         map[string]int
	}{
		// forced.json: P1's forced checkpoint, P0's and P1's recovery
		// checkpoints, P2's restart replaying m2 from the log.
		{"forced.json", "ms", map[string]int{
			"ckpt-forced": 1, "ckpt-recovery": 2, "ckpt-basic": 3, "ckpt-initial": 3,
			"msg-replayed": 1, "jump-restart": 1, "rline": 1, "ev-fail": 1, "down": 1, "viol": 0,
		}},
		// orphan.json under PK: P0 restarts, P1 and P2 roll back for the
		// token, P1 resends m2.
		{"orphan.json", "pk", map[string]int{
			"jump-restart": 1, "jump-rollback": 2, "msg-resent": 1, "ctl-token": 3, "rline": 1, "ckpt-forced": 0,
		}},
		{"orphan.json", "ms", map[string]int{
			"jump-restart": 1, "jump-rollback": 2, "msg-replayed": 1, "ctl-rollback": 2, "ckpt-forced": 1,
		}},
		{"failure-free.json", "ms", map[string]int{
			"jump": 0, "rline": 0, "ev-fail": 0, "msg-lost": 1, "undone": 0,
		}},
	}
	for _, tc := range cases {
		t.Run(tc.example+"/"+tc.alg, func(t *testing.T) {
			run, rep := replayed(t, readExample(t, tc.example), tc.alg)
			nodes := parseSVG(t, renderSVG(t, run, rep, Options{}))
			for class, want := range tc.want {
				if got := count(nodes, class); got != want {
					t.Errorf("%d elements of class %s, want %d", got, class, want)
				}
			}
		})
	}
}

// TestStyles draws a hand-written run with one of everything and checks
// each lands in its own style.
func TestStyles(t *testing.T) {
	run := styleRun()
	rep := &report.Report{Algorithm: "pk", Properties: []report.Property{{
		Name: report.NoLostMessages, Status: report.Fail,
		Violations: []report.Violation{{Property: report.NoLostMessages, Message: `receive of "b" <never> happens`, Seqs: []int32{6, 99, -1}, Because: "P1 is blocked on b & nobody sends it"}},
	}}}
	nodes := parseSVG(t, renderSVG(t, run, rep, Options{}))
	got := map[string]int{}
	for _, n := range drawn(nodes) {
		for _, c := range n.classes {
			got[c]++
		}
	}
	want := map[string]int{
		"msg-normal": 1, "msg-orphan": 1, "msg-discarded": 1, "msg-lost": 1, "msg-replayed": 1, "msg-resent": 1,
		"ev-skipped": 1, "ev-hold": 1, "held": 1, "lost-mark": 1, "ckpt-initial": 2, "ckpt-basic": 1,
		"ev-resume": 1, "ev-unconsumed": 1, "viol": 1, "reason-orphan": 1, "reason-duplicate": 1,
	}
	for c, w := range want {
		if got[c] != w {
			t.Errorf("class %s: %d elements, want %d", c, got[c], w)
		}
	}
	var list []string
	for _, n := range nodes {
		if n.has("viol-text") || n.has("because") {
			list = append(list, n.attrs["class"])
		}
	}
	if len(list) != 2 {
		t.Errorf("violation list has %v, want a message and a because line", list)
	}
}

// styleRun is a small PK-like run with every message fate.
func styleRun() *trace.Run {
	run := &trace.Run{Name: "styles", Algorithm: "pk", Processes: []string{"P0", "P1"}, Msgs: []string{"a", "b", "c", "d", "e"}}
	add := func(k trace.Kind, t float64, p int32, f func(e *trace.RunEvent)) {
		tt, _ := trace.FromSeconds(t)
		e := trace.NewRunEvent(k, tt, p)
		e.Seq = int32(len(run.Events))
		if f != nil {
			f(&e)
		}
		run.Events = append(run.Events, e)
	}
	send := func(t float64, p, to, msg, cp int32, resend bool) {
		add(trace.Send, t, p, func(e *trace.RunEvent) {
			e.Peer, e.Msg, e.Copy, e.Resend = to, msg, cp, resend
			pb := trace.NewPiggyback()
			pb.VT = trace.VT{{Inc: 0, Count: 1}, {Inc: 0, Count: 0}}
			e.PB = run.AddPB(&pb)
		})
	}
	send(0.1, 0, 1, 0, 1, false) // 0: a, delivered
	add(trace.Recv, 0.2, 1, func(e *trace.RunEvent) { e.Peer, e.Msg, e.Copy, e.Via, e.Op = 0, 0, 1, trace.ViaNet, 0 })
	send(0.3, 0, 1, 2, 1, false) // 2: c, discarded orphan
	add(trace.Discard, 0.4, 1, func(e *trace.RunEvent) { e.Msg, e.Copy, e.Reason = 2, 1, trace.ReasonOrphan })
	add(trace.CheckpointSkipped, 0.5, 1, func(e *trace.RunEvent) { e.Reason = trace.ReasonDown })
	add(trace.Checkpoint, 0.5, 0, func(e *trace.RunEvent) { e.Ckpt, e.CkptType, e.Pos = 1, trace.CkptBasic, 1 })
	add(trace.Hold, 0.6, 1, func(e *trace.RunEvent) { e.Msg, e.Until = 1, run.AddString("token") }) // 6
	add(trace.Unhold, 0.7, 1, func(e *trace.RunEvent) { e.Msg = 1 })
	send(0.8, 0, 1, 3, 1, false) // 8: d, duplicate
	add(trace.Discard, 0.9, 1, func(e *trace.RunEvent) { e.Msg, e.Copy, e.Reason = 3, 1, trace.ReasonDuplicate })
	add(trace.Recv, 1.0, 1, func(e *trace.RunEvent) { e.Peer, e.Msg, e.Copy, e.Via, e.Op = 0, 0, 1, trace.ViaLog, 1 })
	send(1.1, 0, 1, 0, 2, true) // 11: a again, resent
	add(trace.Recv, 1.2, 1, func(e *trace.RunEvent) { e.Peer, e.Msg, e.Copy, e.Via, e.Op = 0, 0, 2, trace.ViaNet, 2 })
	send(1.3, 0, 1, 4, 1, false) // 13: e, never consumed
	add(trace.Resume, 1.4, 0, nil)
	add(trace.End, 2, 0, func(e *trace.RunEvent) { e.State = trace.StateDone })
	add(trace.End, 2, 1, func(e *trace.RunEvent) { e.State, e.Msg, e.Op = trace.StateBlocked, 1, 3 })
	add(trace.Unconsumed, 2, 1, func(e *trace.RunEvent) { e.Msg, e.Copy = 4, 1 })
	return run
}

// TestEscaping: free text from the run never breaks the document.
func TestEscaping(t *testing.T) {
	run := styleRun()
	run.Name = `<evil & "name">`
	run.Processes[0] = "P<0>&'\"\x00"
	run.Msgs[0] = "m]]>\xff\x01"
	run.Events[0].Label = run.AddString("</title><script>alert(1)</script>\x7f\uFFFE")
	rep := &report.Report{Properties: []report.Property{{Name: "x", Status: report.Fail, Violations: []report.Violation{
		{Property: "x", Message: "<b>bold</b> & ]]>", Seqs: []int32{0}, Because: strings.Repeat("long because text ", 30)},
	}}}}
	doc := renderSVG(t, run, rep, Options{})
	nodes := parseSVG(t, doc)
	for _, n := range nodes {
		if n.name == "script" {
			t.Fatal("a label became a script element")
		}
	}
	var h bytes.Buffer
	if err := htmlOf(&h, run, rep, Options{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(h.String(), "<script>alert") || strings.Contains(h.String(), "<b>bold") {
		t.Error("HTML page contains unescaped input text")
	}
}

// TestBadRuns: malformed runs give errors, never panics.
func TestBadRuns(t *testing.T) {
	cases := []struct {
		name string
		mod  func(r *trace.Run)
		want string
	}{
		{"process out of range", func(r *trace.Run) { r.Events[3].P = 7 }, "event 3: process index 7 out of range"},
		{"negative process", func(r *trace.Run) { r.Events[1].P = -1 }, "event 1: process index -1"},
		{"time goes back", func(r *trace.Run) { r.Events[5].T = 0 }, "event 5: t 0 is before"},
		{"no processes", func(r *trace.Run) { r.Processes = nil }, "run has no processes"},
		{"dangling references are ignored", func(r *trace.Run) {
			r.Events[0].Msg, r.Events[1].Peer, r.Events[2].Copy = 99, 42, -5
			r.Events[5].Ckpt, r.Events[4].Failure = -3, 1000
		}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			run := styleRun()
			tc.mod(run)
			var b bytes.Buffer
			err := svgOf(&b, run, nil, Options{})
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				parseSVG(t, b.Bytes())
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			if !strings.HasPrefix(err.Error(), "styles: ") {
				t.Errorf("error %q does not name the run", err)
			}
		})
	}
	if err := svgOf(&bytes.Buffer{}, nil, nil, Options{}); err == nil {
		t.Error("nil run: no error")
	}
}

// TestViolationHighlight: witnesses of a failing property are circled,
// listed, and the HTML's list names their seqs.
func TestViolationHighlight(t *testing.T) {
	// MS without logging loses P2's receipt of m2 in forced.json.
	run, rep := replayed(t, readExample(t, "forced.json"), "ms:no-log")
	if rep.Valid {
		t.Fatal("the no-log mutant passed: the test lost its violation")
	}
	nodes := parseSVG(t, renderSVG(t, run, rep, Options{}))
	rings, entries := 0, 0
	for _, n := range nodes {
		if n.has("viol") && n.attrs["data-v"] != "" {
			rings++
		}
		if n.has("viol-entry") {
			entries++
		}
	}
	nviol := 0
	for _, p := range rep.Properties {
		nviol += len(p.Violations)
	}
	if entries != nviol || rings == 0 {
		t.Errorf("%d list entries and %d rings for %d violations", entries, rings, nviol)
	}
	var h bytes.Buffer
	if err := htmlOf(&h, run, rep, Options{}); err != nil {
		t.Fatal(err)
	}
	// Every violation of this whole run points at drawn events the page
	// can highlight (its count is the report's by construction).
	for _, v := range dataOf(t, h.String()).Panels[0].Viol {
		if len(v.Ev) == 0 || v.Missing != 0 {
			t.Errorf("violation %q points at %d drawn events, %d missing", v.Msg, len(v.Ev), v.Missing)
		}
	}
}

// TestHoverDetails: every drawn event carries its details — op, message,
// piggyback, vector time, checkpoint number — in its title.
func TestHoverDetails(t *testing.T) {
	cases := []struct {
		example, alg string
		class        string
		want         []string
	}{
		{"forced.json", "ms", "ev-send", []string{`"kind":"send","msg":"m1"`, `"to":"P1"`, `"op":0`, `"copy":1`, `"pb":{"sn":1,"f":{}}`}},
		{"forced.json", "ms", "ckpt-forced", []string{`"p":"P1","kind":"checkpoint"`, `"ckpt":1`, `"type":"forced"`, `"pos":0`, `"sn":1`}},
		{"forced.json", "ms", "ckpt-recovery", []string{`"type":"recovery"`, `"sn":2`, `"failure":`}},
		{"orphan.json", "pk", "ev-send", []string{`"pb":{"vt":[[0,0],[0,1],[0,0]]}`}},
		{"orphan.json", "pk", "ckpt-basic", []string{`"vt":[[0,0],[0,0],[0,0]]`}},
		// P2 flushes its receipt of m3 after receiving it.
		{"orphan.json", "pk", "ev-recv", []string{`"p":"P2","kind":"recv","msg":"m3"`, "logged to the stable message log at #6", "undone by a later restart or rollback"}},
		{"orphan.json", "pk", "ctl-token", []string{"control_send", `"body":{"origin":"P0","inc":0,"k":0,"received":[]}`, "control_recv"}},
		{"orphan.json", "pk", "jump-rollback", []string{"P1 rolls back to checkpoint 0", "why: a token announced lost events"}},
		{"orphan.json", "ms", "jump-rollback", []string{"P2 rolls back to checkpoint 1 (sn=1)", "why: a Rollback request (failure seq 10 of P0)"}},
		{"orphan.json", "ms", "ev-fail", []string{`"label":"crash before any flush`}},
	}
	for _, tc := range cases {
		t.Run(tc.example+"/"+tc.alg+"/"+tc.class, func(t *testing.T) {
			run, rep := replayed(t, readExample(t, tc.example), tc.alg)
			nodes := drawn(parseSVG(t, renderSVG(t, run, rep, Options{})))
			var titles []string
			for _, n := range nodes {
				if n.has(tc.class) {
					if n.title == "" {
						t.Errorf("%s element without details: %v", tc.class, n.attrs)
					}
					titles = append(titles, n.title)
				}
			}
			for _, title := range titles {
				ok := true
				for _, w := range tc.want {
					ok = ok && strings.Contains(title, w)
				}
				if ok {
					return
				}
			}
			t.Errorf("no %s element has all of %q; titles:\n%s", tc.class, tc.want, strings.Join(titles, "\n--\n"))
		})
	}
	// Every drawn event of a run has a title.
	run, rep := replayed(t, readExample(t, "orphan.json"), "pk")
	for _, n := range drawn(parseSVG(t, renderSVG(t, run, rep, Options{}))) {
		if n.title == "" {
			t.Errorf("element %s %v has no hover details", n.name, n.attrs)
		}
	}
}

// TestGoldenSVG pins the exact bytes of one small diagram, so any change
// in the drawing is seen in review (-update rewrites it).
func TestGoldenSVG(t *testing.T) {
	run, rep := replayed(t, readExample(t, "forced.json"), "ms")
	golden.Check(t, "forced-ms.svg", renderSVG(t, run, rep, Options{}))
}
