package consistency

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// pkRetransmits judges that a PK restart transmits every send its replay
// re-executes (SPEC §5): it "cannot know which re-executed sends had
// already gone out before the crash, so it transmits them all again",
// each written at the restart's time before the restart event (a resend
// of a send still live, an ordinary send of one run for the first
// time). Found by the second review round: a restart that left one out
// passed. (A receiver that then never gets the message ends blocked,
// which no-lost-messages fails; one that had it already loses nothing,
// but the run is not PK's.)
func pkRetransmits(m *history.Model, r *result) {
	if m.Missing.Replay() {
		return // pkLogReplay said why
	}
	for i := range m.Run.Events {
		e := &m.Run.Events[i]
		if e.Kind != trace.Restart || e.P < 0 || int(e.P) >= len(m.Procs) {
			continue
		}
		ck, ok := m.RestoredCkpt(m.RestoreOf(int32(i)))
		if !ok || e.Pos <= ck.Pos {
			continue
		}
		sent := sentAtRestart(m, int32(i), e)
		prog := m.Program[e.P]
		for k := ck.Pos; k < e.Pos && int(k) < len(prog); k++ {
			if prog[k].Kind != trace.Send || sent[k] {
				continue
			}
			r.fail([]int32{int32(i)}, func() (string, string) {
				return fmt.Sprintf("%s's restart at seq %d does not transmit its send op %d (%s) again", m.ProcName(e.P), i, k, m.MsgName(prog[k].Msg)),
					fmt.Sprintf("a PK restart re-executes ops %d to %d from checkpoint %d and, not knowing which sends went out before the crash, transmits every send among them again at its time, before the restart event; op %d is a send and the run shows none",
						ck.Pos, e.Pos-1, ck.ID, k)
			})
		}
	}
}

// sentAtRestart returns the send ops the run shows for restart seq at
// its time, before it.
func sentAtRestart(m *history.Model, seq int32, e *trace.RunEvent) map[int32]bool {
	sent := map[int32]bool{}
	for j := seq - 1; j >= 0; j-- {
		n := m.Event(j)
		if n.T != e.T {
			break
		}
		if n.P == e.P && n.Kind == trace.Send {
			sent[n.Op] = true
		}
	}
	return sent
}
