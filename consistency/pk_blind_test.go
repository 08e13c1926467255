package consistency

import (
	"slices"
	"testing"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// TestUndoneBlindReceipt: P0 receives, at seq 2, copy 1 of m2, which no
// send transmitted (the send at seq 1 is forged to say copy 2, so copy 1
// pads the table), and its restart at seq 8 undoes that receipt. Its
// token, sent at seq 9, is then judged for its list: no live receipt
// lacks an identity. The receipt was once counted as blind and never
// uncounted (the undo looked at whether the copy index existed, not at
// whether the copy had a send): the list was not judged (log-replay-rules
// unknown), and a forged one went unreported.
func TestUndoneBlindReceipt(t *testing.T) {
	src := genThree(t, 7, 30, 3, false) // P0 fails once, at seq 5
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
		src := genThree(t, x.seed, x.events, x.fails, false)
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
