package consistency

import (
	"testing"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// TestModelIncAndKnownBefore: the incarnations (Model.Inc) and PK
// announcement counts (Model.KnownBefore) the rules now read from the
// model are what the rules used to count for themselves in one sweep
// over the run: restarts so far; and, per process, its own restarts with
// a pos and the tokens received with a body, none known once a token
// came without one. PK runs of the bundled traces, one of them with a
// token's body dropped at its second hop.
func TestModelIncAndKnownBefore(t *testing.T) {
	runs := map[string]*trace.Run{}
	for _, name := range []string{"orphan", "domino", "forced", "textbook-orphan"} {
		runs[name] = replayOf(t, "pk", bundled(name)(t))
	}
	blind := replayOf(t, "pk", bundled("orphan")(t))
	hops := 0
	for i := range blind.Events {
		if e := &blind.Events[i]; e.Kind == trace.ControlRecv && e.Control == trace.ControlToken {
			if hops++; hops == 2 {
				e.Body = trace.None
			}
		}
	}
	if hops < 2 {
		t.Fatalf("the orphan trace's PK run has %d token hops, want 2 or more", hops)
	}
	runs["orphan-blind"] = blind
	for name, run := range runs {
		m := history.Build(run, nil, history.PK)
		np := len(m.Procs)
		inc, known := make([]int32, np), make([]int32, np)
		unknown := make([]bool, np)
		restarts, blinded := 0, 0
		for i := range run.Events {
			e, seq := &run.Events[i], int32(i)
			if e.P < 0 || int(e.P) >= np {
				continue
			}
			if got := m.Inc(e.P, seq); got != inc[e.P] {
				t.Errorf("%s: seq %d: Inc = %d, want %d", name, seq, got, inc[e.P])
			}
			n, ok := m.KnownBefore(e.P, seq)
			if ok != !unknown[e.P] || ok && n != known[e.P] {
				t.Errorf("%s: seq %d: KnownBefore = %d, %v; want %d, %v", name, seq, n, ok, known[e.P], !unknown[e.P])
			}
			if !ok {
				blinded++
			}
			switch {
			case e.Kind == trace.Restart:
				inc[e.P]++
				restarts++
				if e.Pos >= 0 {
					known[e.P]++
				}
			case e.Kind == trace.ControlRecv && e.Control == trace.ControlToken:
				if b := run.Body(e); b != nil && b.Origin != history.None {
					known[e.P]++
				} else {
					unknown[e.P] = true
				}
			}
		}
		if restarts == 0 {
			t.Errorf("%s: no restart to count", name)
		}
		if (blinded > 0) != (name == "orphan-blind") {
			t.Errorf("%s: announcements unknown at %d events", name, blinded)
		}
	}
	if got := (&history.Model{Procs: make([]history.Proc, 1)}).Inc(1, 0); got != history.None {
		t.Errorf("Inc of a process the header does not name = %d, want None", got)
	}
}
