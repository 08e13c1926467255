package compare

import (
	"sort"

	"github.com/ckpt-dev/ckpt/consistency/zgraph"
	"github.com/ckpt-dev/ckpt/trace"
)

// countRow reads the figures of a failure-free run: checkpoints by type,
// sends and their piggyback bytes, control messages, blocked time, and
// the useless checkpoints of its checkpoint and communication pattern.
func countRow(run *trace.Run) Row {
	var r Row
	n := len(run.Processes)
	blockedAt := make([]trace.Time, n)
	pat := newPattern(run)
	for i := range run.Events {
		e := &run.Events[i]
		switch e.Kind {
		case trace.Checkpoint:
			switch e.CkptType {
			case trace.CkptBasic:
				r.Basic++
			case trace.CkptForced:
				r.Forced++
			}
		case trace.Send:
			r.Messages++
			r.PiggybackBytes += run.PB(e).Bytes()
		case trace.ControlSend:
			r.ControlMessages++
		case trace.Block:
			blockedAt[e.P] = e.T
		case trace.Resume:
			r.Blocked += e.T - blockedAt[e.P]
		}
		pat.add(e)
	}
	r.Useless = pat.useless()
	r.quotients()
	return r
}

// quotients sets the figures that divide the counts.
func (r *Row) quotients() {
	r.ForcedPerBasic = quotient(float64(r.Forced), r.Basic)
	r.PiggybackPerMessage = quotient(float64(r.PiggybackBytes), r.Messages)
}

// quotient returns a/b, or nil when b is 0.
func quotient(a float64, b int) *float64 {
	if b == 0 {
		return nil
	}
	v := a / float64(b)
	return &v
}

// pattern is a failure-free run's checkpoints (positions) and received
// messages (ops at both ends), for zgraph.
type pattern struct {
	ckpts [][]int32
	sent  [][2]int32 // per message: sender and op
	msgs  [][4]int32 // from, send op, to, receive op
}

func newPattern(run *trace.Run) *pattern {
	p := &pattern{ckpts: make([][]int32, len(run.Processes)), sent: make([][2]int32, len(run.Msgs))}
	for q := range p.ckpts {
		p.ckpts[q] = []int32{0}
	}
	return p
}

func (p *pattern) add(e *trace.RunEvent) {
	switch e.Kind {
	case trace.Checkpoint:
		p.ckpts[e.P] = append(p.ckpts[e.P], e.Pos)
	case trace.Send:
		p.sent[e.Msg] = [2]int32{e.P, e.Op}
	case trace.Recv:
		s := p.sent[e.Msg]
		p.msgs = append(p.msgs, [4]int32{s[0], s[1], e.P, e.Op})
	}
}

// useless counts the checkpoints on a Z-cycle.
func (p *pattern) useless() int {
	counts := make([]int32, len(p.ckpts))
	for q := range counts {
		counts[q] = int32(len(p.ckpts[q]))
	}
	// The interval of op k: the last checkpoint at a position ≤ k.
	interval := func(q, k int32) int32 {
		cs := p.ckpts[q]
		return int32(sort.Search(len(cs), func(i int) bool { return cs[i] > k }) - 1)
	}
	zm := make([]zgraph.Msg, len(p.msgs))
	for i, m := range p.msgs {
		zm[i] = zgraph.Msg{From: m[0], FromInterval: interval(m[0], m[1]), To: m[2], ToInterval: interval(m[2], m[3])}
	}
	g, err := zgraph.New(counts, zm)
	if err != nil {
		// A replay's own run is well formed: cannot happen.
		panic("compare: " + err.Error())
	}
	return g.UselessCount()
}
