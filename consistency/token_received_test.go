package consistency

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/tracetest"

	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// tokenWitnesses returns the log-replay-rules violations of run that
// mention want.
func tokenWitnesses(t *testing.T, run *trace.Run, src *trace.Trace, want string) []report.Violation {
	t.Helper()
	var out []report.Violation
	for _, p := range Check(run, src).Properties {
		if p.Name != report.LogReplayRules {
			continue
		}
		for _, v := range p.Violations {
			if strings.Contains(v.Message+" "+v.Because, want) {
				out = append(out, v)
			}
		}
	}
	return out
}

// TestTokenReceivedOnePerToken: a token's received list forged on every
// hop is one violation naming the token's control_send seqs, whether the
// hops share one body (the engine's run) or each carries its own copy
// (the run read back from its file).
func TestTokenReceivedOnePerToken(t *testing.T) {
	var c propCase
	for _, x := range forgedCases() {
		if x.name == "forged-token-received-extra" {
			c = x
		}
	}
	src := c.src(t)
	path := filepath.Join("testdata", c.property, "fail", c.name+".run.json")
	read, err := tracetest.ReadRunFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range []struct {
		name string
		run  *trace.Run
	}{{"shared", c.build(t)}, {"read", read}} {
		name, run := x.name, x.run
		vs := tokenWitnesses(t, run, src, "(y2, inc 0)")
		if len(vs) != 1 {
			t.Fatalf("%s: %d violations name the forged receipt, want 1: %v", name, len(vs), vs)
		}
		for _, s := range []int32{19, 22, 23, 26} {
			if !slices.Contains(vs[0].Seqs, s) {
				t.Errorf("%s: the witness's seqs %v lack %d", name, vs[0].Seqs, s)
			}
		}
	}
}

// TestTokenWithoutReceived: a token whose body has no received field (a
// foreign implementation may leave it out) is not judged for it.
func TestTokenWithoutReceived(t *testing.T) {
	run := replayOf(t, "pk", bundled("domino")(t))
	for i := range run.Bodies {
		run.Bodies[i].Receipts, run.Bodies[i].Received = nil, nil
	}
	for _, p := range Check(run, bundled("domino")(t)).Properties {
		if p.Name == report.LogReplayRules && p.Status != report.Pass {
			t.Fatalf("log-replay-rules is %s, want pass: %v", p.Status, p.Violations)
		}
	}
}

// TestForwardWithoutListOfEmptyList: a hop that forwards, without any
// list, a token received with an empty one forwards another token than
// it received. The two lists are then equal (both empty), and the
// witness once looked for where they part, past their end: the checker
// panicked (a review's forged run).
func TestForwardWithoutListOfEmptyList(t *testing.T) {
	src := bundled("textbook-orphan")(t)
	run := replayOf(t, "pk", src)
	forged := false
	for i := range run.Events {
		e := &run.Events[i]
		b := run.Body(e)
		if e.Kind != trace.ControlSend || e.Control != trace.ControlToken || b == nil || int(b.Origin) == int(e.P) || len(b.ReceivedList()) != 0 {
			continue
		}
		nb := *b
		nb.Receipts, nb.Received = nil, nil
		run.Bodies = append(run.Bodies, nb)
		e.Body, forged = int32(len(run.Bodies)-1), true
		break
	}
	if !forged {
		t.Fatal("no forwarded token with an empty list in the run")
	}
	if vs := tokenWitnesses(t, run, src, "another token than it received"); len(vs) == 0 {
		t.Fatal("the forward without a list passes")
	}
}
