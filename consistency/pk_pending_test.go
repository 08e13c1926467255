package consistency

import (
	"slices"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen"
)

// pendingTrace is a generated trace (seed 8, three processes, two
// concurrent failures) whose PK run has P0's token (failure seq 35)
// reach P2 at seq 51 while P2 is down (it failed at seq 49): P2 records
// it, restarts at seq 52 and forwards it at seq 54.
func pendingTrace(t *testing.T) *trace.Trace {
	c := gen.DefaultConfig()
	c.Seed, c.Procs, c.Events, c.Failures, c.Concurrent = 8, 3, 30, 2, true
	c.Ticks, c.FlushEvery = []trace.Time{2 * trace.Second, 3 * trace.Second}, trace.Second
	tr, err := gen.Trace(c)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestPendingTokenOfNoFailure: a token a down process records names a
// seq that is no effective fail, and the process forwards it with
// another list after its restart. The hop was once judged against the
// failure at the seq's insertion index in the failures: past the last
// one the checker panicked; else the witness named another failure (P2's
// own, or P0's that the token does not name) as the token's. It is now
// judged, as an up process's hop is, as forwarding another token than it
// received.
func TestPendingTokenOfNoFailure(t *testing.T) {
	src := pendingTrace(t)
	for _, c := range []struct {
		name    string
		failure int32
	}{
		{"past every failure", 50},
		{"between the failures", 40},
		{"none", trace.None},
	} {
		run := replayOf(t, "pk", src)
		recv, fwd := &run.Events[51], &run.Events[54]
		if recv.Kind != trace.ControlRecv || recv.P != 2 || fwd.Kind != trace.ControlSend || fwd.P != 2 || recv.Failure != 35 {
			t.Fatalf("the run no longer has P2 take P0's token at seq 51 while down and forward it at seq 54")
		}
		recv.Failure = c.failure
		b := *run.Body(fwd)
		b.Receipts, b.Received = nil, b.ReceivedList()[1:]
		fwd.Body = run.AddBody(&b)
		if vs := tokenWitnesses(t, run, src, "P2 forwards at seq 54 another token than it received at seq 51"); len(vs) != 1 {
			t.Errorf("%s: %d witnesses of the forward of another token, want 1", c.name, len(vs))
		}
		for _, v := range tokenWitnesses(t, run, src, "token (failure seq") {
			t.Errorf("%s: the hop is judged as another failure's token: %s", c.name, strings.SplitN(v.Message, "\n", 2)[0])
		}
	}
}

// TestUndoneBlindReceipt: P0 receives, at seq 2, copy 1 of m2, which no
// send transmitted (the send at seq 1 is forged to say copy 2, so copy 1
// pads the table), and its restart at seq 8 undoes that receipt. Its
// token, sent at seq 9, is then judged for its list: no live receipt
// lacks an identity. The receipt was once counted as blind and never
// uncounted (the undo looked at whether the copy index existed, not at
// whether the copy had a send): the list was not judged (log-replay-rules
// unknown), and a forged one went unreported.
func TestUndoneBlindReceipt(t *testing.T) {
	c := gen.DefaultConfig()
	c.Seed, c.Procs, c.Events, c.Failures = 7, 3, 30, 3 // P0 fails once, at seq 5
	c.Ticks, c.FlushEvery = []trace.Time{2 * trace.Second, 3 * trace.Second}, trace.Second
	src, err := gen.Trace(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range []struct {
		name   string
		listed []trace.Identity // P0's token list (message index 0 is m1), or nil: as replayed
		status report.Status
		want   string
	}{
		{"list right", nil, report.Pass, ""},
		{"list forged", []trace.Identity{{Msg: 0, Inc: 0}}, report.Fail, "lists (m1, inc 0), which P0 had not received live"},
	} {
		run := replayOf(t, "pk", src)
		send, recv, restart, tok := &run.Events[1], &run.Events[2], &run.Events[8], &run.Events[9]
		if send.Kind != trace.Send || send.Msg != recv.Msg || send.Copy != 1 || recv.Kind != trace.Recv || recv.P != 0 || recv.Op != 1 ||
			restart.Kind != trace.Restart || restart.P != 0 || restart.Pos != 1 || tok.Kind != trace.ControlSend || tok.P != 0 {
			t.Fatal("the run no longer has P0 receive m2 at seq 2, restart at seq 8 undoing it, and send its token at seq 9")
		}
		send.Copy = 2
		if x.listed != nil {
			b := run.Body(tok)
			b.Receipts, b.Received = nil, x.listed
		}
		for _, p := range Check(run, src).Properties {
			if p.Name != report.LogReplayRules {
				continue
			}
			if p.Status != x.status {
				t.Errorf("%s: log-replay-rules is %s (%s), want %s: %v", x.name, p.Status, p.Note, x.status, p.Violations)
			}
			if x.want != "" && len(tokenWitnesses(t, run, src, x.want)) != 1 {
				t.Errorf("%s: no witness says %q: %v", x.name, x.want, p.Violations)
			}
		}
	}
}

// TestBlindReceiptsLive: the receipts of copies no send transmitted that
// the PK spec keeps for a process are exactly its live ones: one taken
// while the process waits for its token is kept (it was once not counted,
// yet uncounted when undone: the count went below zero), and one undone
// is dropped (a receipt of a skipped copy number once stayed counted).
func TestBlindReceiptsLive(t *testing.T) {
	for _, x := range []struct {
		name          string
		seed          uint64
		events, fails int
		forge         func(t *testing.T, run *trace.Run) int32 // returns the blind receipt's seq
	}{
		{"taken while waiting", 1, 60, 6, func(t *testing.T, run *trace.Run) int32 {
			// P2's token returns at seq 32 and it receives m6 at seq 38:
			// the receipt, of a copy number no send made, comes first.
			ev := run.Events
			if ev[32].Kind != trace.ControlRecv || ev[32].P != 2 || ev[33].Kind != trace.Resume || ev[38].Kind != trace.Recv || ev[38].P != 2 {
				t.Fatal("the run no longer has P2's token return at seq 32 and a receive of P2 at seq 38")
			}
			ev[32], ev[38] = ev[38], ev[32]
			ev[32].Seq, ev[38].Seq, ev[32].T, ev[38].T = 32, 38, ev[38].T, ev[32].T
			for j := range ev {
				if (ev[j].Kind == trace.Log || ev[j].Kind == trace.Recv) && ev[j].P == 2 && ev[j].Msg == ev[32].Msg && ev[j].Copy == ev[32].Copy {
					ev[j].Copy = 7
				}
			}
			return 32
		}},
		{"undone", 7, 30, 3, func(t *testing.T, run *trace.Run) int32 {
			run.Events[1].Copy = 2 // P0's receipt at seq 2 takes copy 1, which pads the table
			return 2
		}},
	} {
		c := gen.DefaultConfig()
		c.Seed, c.Procs, c.Events, c.Failures = x.seed, 3, x.events, x.fails
		c.Ticks, c.FlushEvery = []trace.Time{2 * trace.Second, 3 * trace.Second}, trace.Second
		src, err := gen.Trace(c)
		if err != nil {
			t.Fatal(err)
		}
		run := replayOf(t, "pk", src)
		blind := x.forge(t, run)
		s := NewStream(run, src, len(run.Events))
		pk := s.spec.proto.(*pkSpec)
		p := run.Events[blind].P
		for i := range run.Events {
			s.Add(&run.Events[i])
			if i < int(blind) {
				continue
			}
			undone := s.b.Model().UndoneBy[blind] != history.None
			if got := pk.procs[p].blind; !undone && !slices.Equal(got, []int32{blind}) || undone && len(got) != 0 {
				t.Fatalf("%s: after seq %d, the blind receipts of P%d are %v; the one at seq %d is live: %v", x.name, i, p, got, blind, !undone)
			}
		}
	}
}
