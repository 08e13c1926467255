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
	h := holds{m: m, r: r, since: make([]int32, len(m.Procs)), back: make([]bool, len(m.Procs))}
	for p := range h.since {
		h.since[p] = history.None
	}
	for i := range m.Run.Events {
		if e := &m.Run.Events[i]; e.P >= 0 && int(e.P) < len(m.Procs) {
			h.event(int32(i), e)
		}
	}
}

// holds is pkHoldRules' state per process: the restart a held process
// waits since (None if it is not held), and whether its token came back.
type holds struct {
	m     *history.Model
	r     *result
	since []int32
	back  []bool
}

func (h *holds) event(seq int32, e *trace.RunEvent) {
	m, p := h.m, e.P
	switch e.Kind {
	case trace.Restart:
		h.since[p], h.back[p] = seq, false
	case trace.Fail:
		h.since[p] = history.None // a crash ends the hold
	case trace.ControlRecv:
		b := m.Run.Body(e)
		// A token without a body cannot be told: the benefit of the doubt.
		// Its announcement names the incarnation the restart ended.
		h.back[p] = h.back[p] || e.Control == trace.ControlToken && (b == nil || b.Origin == p && b.Inc == m.Inc(p, seq)-1)
	case trace.End:
		if h.since[p] != history.None && e.State != trace.StateHeld && e.State != trace.StateDown {
			h.r.fail([]int32{h.since[p], seq}, func() (string, string) {
				return fmt.Sprintf("%s ends %s at seq %d while it waits for its token", m.ProcName(p), e.State, seq),
					fmt.Sprintf("%s restarted at seq %d and holds until the token with its announcement returns; no resume shows that it did, so the run should end it held", m.ProcName(p), h.since[p])
			})
		}
	case trace.Resume:
		pkResume(m, seq, e, h.since[p], h.back[p], h.r)
		h.since[p] = history.None
	case trace.Send, trace.Recv, trace.Internal:
		if h.since[p] != history.None && !(e.Kind == trace.Send && e.Resend) {
			h.r.fail([]int32{h.since[p], seq}, func() (string, string) {
				return fmt.Sprintf("%s executes op %d at seq %d while it waits for its token", m.ProcName(p), e.Op, seq),
					fmt.Sprintf("%s restarted at seq %d and holds, executing no op, until the token with its announcement returns; the token has not come back, yet it executes %s",
						m.ProcName(p), h.since[p], m.Describe(seq))
			})
			h.since[p] = history.None // one witness per hold
		}
	}
}

// pkResume judges a resume event.
func pkResume(m *history.Model, seq int32, e *trace.RunEvent, held int32, back bool, r *result) {
	switch {
	case held == history.None:
		r.fail([]int32{seq}, func() (string, string) {
			return fmt.Sprintf("%s resumes at seq %d but holds for no restart", m.ProcName(e.P), seq),
				fmt.Sprintf("resume says a restarted process's token came back and it executes again, but %s has not restarted since it last resumed or failed", m.ProcName(e.P))
		})
	case !back:
		r.fail([]int32{held, seq}, func() (string, string) {
			return fmt.Sprintf("%s resumes at seq %d before its token returned", m.ProcName(e.P), seq),
				fmt.Sprintf("%s restarted at seq %d and sent a token with its announcement round the ring; it may resume only when that token returns, but no token with its announcement reached it before seq %d",
					m.ProcName(e.P), held, seq)
		})
	}
}
