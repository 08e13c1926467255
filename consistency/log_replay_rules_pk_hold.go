package consistency

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// pkHoldRules judges PK's hold (SPEC §5): after a restart, a process on
// a ring of two or more executes no op until the token carrying its
// announcement returns, and `resume` says that it did.
func pkHoldRules(m *history.Model, r *result) {
	if len(m.Procs) < 2 {
		return // alone on the ring there is no token to wait for
	}
	np := len(m.Procs)
	held := make([]int32, np) // seq of the restart a held process waits since, or None
	back := make([]bool, np)  // its token came back
	inc := make([]int32, np)
	for p := range held {
		held[p] = history.None
	}
	for i := range m.Run.Events {
		e := &m.Run.Events[i]
		if e.P < 0 || int(e.P) >= np {
			continue
		}
		seq, p := int32(i), e.P
		switch e.Kind {
		case trace.Restart:
			inc[p]++
			held[p], back[p] = seq, false
		case trace.Fail:
			held[p] = history.None // a crash ends the hold
		case trace.ControlRecv:
			if b := m.Run.Body(e); e.Control == trace.ControlToken && b != nil && b.Origin == p && b.Inc == inc[p]-1 {
				back[p] = true
			} else if e.Control == trace.ControlToken && b == nil {
				back[p] = true // cannot tell: give the benefit of the doubt
			}
		case trace.End:
			if held[p] != history.None && e.State != trace.StateHeld && e.State != trace.StateDown {
				r.fail(fmt.Sprintf("%s ends %s at seq %d while it waits for its token", m.ProcName(p), e.State, seq), []int32{held[p], seq},
					fmt.Sprintf("%s restarted at seq %d and holds until the token with its announcement returns; no resume shows that it did, so the run should end it held", m.ProcName(p), held[p]))
			}
		case trace.Resume:
			pkResume(m, seq, e, held[p], back[p], r)
			held[p] = history.None
		case trace.Send, trace.Recv, trace.Internal:
			if held[p] != history.None && !(e.Kind == trace.Send && e.Resend) {
				r.fail(fmt.Sprintf("%s executes op %d at seq %d while it waits for its token", m.ProcName(p), e.Op, seq), []int32{held[p], seq},
					fmt.Sprintf("%s restarted at seq %d and holds, executing no op, until the token with its announcement returns; the token has not come back, yet it executes %s",
						m.ProcName(p), held[p], m.Describe(seq)))
				held[p] = history.None // one witness per hold
			}
		}
	}
}

// pkResume judges a resume event.
func pkResume(m *history.Model, seq int32, e *trace.RunEvent, held int32, back bool, r *result) {
	switch {
	case held == history.None:
		r.fail(fmt.Sprintf("%s resumes at seq %d but holds for no restart", m.ProcName(e.P), seq), []int32{seq},
			fmt.Sprintf("resume says a restarted process's token came back and it executes again, but %s has not restarted since it last resumed or failed", m.ProcName(e.P)))
	case !back:
		r.fail(fmt.Sprintf("%s resumes at seq %d before its token returned", m.ProcName(e.P), seq), []int32{held, seq},
			fmt.Sprintf("%s restarted at seq %d and sent a token with its announcement round the ring; it may resume only when that token returns, but no token with its announcement reached it before seq %d",
				m.ProcName(e.P), held, seq))
	}
}
