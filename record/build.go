package record

import (
	"fmt"
	"slices"

	"github.com/ckpt-dev/ckpt/trace"
)

// builder turns merged events into a run.
type builder struct {
	run    *trace.Run
	msgs   map[string]int32
	fails  [][]int32 // fails[p]: seqs of p's fail events, in order
	live   []int32   // live ops per process
	copies map[string]int32
	last   trace.Time
}

// build makes the run of the merged events: times as merged, never
// decreasing; seq, copy numbers, undone counts and failure
// seqs filled in.
func build(order []*event, procs []string, alg string) (*trace.Run, error) {
	b := &builder{
		run:    &trace.Run{Algorithm: alg, Processes: procs, Events: make([]trace.RunEvent, 0, len(order))},
		msgs:   map[string]int32{},
		fails:  make([][]int32, len(procs)),
		live:   make([]int32, len(procs)),
		copies: map[string]int32{},
	}
	for _, e := range order {
		re, err := b.event(e)
		if err != nil {
			return nil, fmt.Errorf("record: %s's event n=%d (%s): %w", procs[e.p], e.N, e.Kind, err)
		}
		b.run.Events = append(b.run.Events, re)
	}
	return b.run, nil
}

func (b *builder) event(e *event) (trace.RunEvent, error) {
	t := max(e.t, b.last) // an end or unconsumed copy, placed last
	b.last = t
	re := trace.NewRunEvent(e.kind, t, e.p)
	re.Seq = e.seq
	re.Op, re.Ckpt, re.Pos, re.Sn, re.Next, re.Inc = e.Op, e.Ckpt, e.Pos, e.Sn, e.Next, e.Inc
	re.Restore = e.Rest
	re.CkptType, re.Via, re.Reason = trace.Parse[trace.CkptType](e.Type), trace.Parse[trace.Via](e.Via), trace.Parse[trace.Reason](e.Why)
	re.Cause, re.Control, re.State = trace.Parse[trace.Cause](e.Cause), trace.Parse[trace.Control](e.Ctl), trace.Parse[trace.EndState](e.State)
	re.Label, re.Until = b.run.AddString(e.Label), b.run.AddString(e.Until)
	if e.Msg != "" {
		re.Msg = b.msg(e.Msg)
	}
	var err error
	if re.Peer, err = b.peer(e); err != nil {
		return re, err
	}
	if e.from != nil {
		re.Copy = e.from.copy
	}
	if re.Failure, err = b.failure(e.Fail); err != nil {
		return re, err
	}
	switch e.kind {
	case trace.Send:
		b.copies[e.Msg]++
		e.copy, re.Copy = b.copies[e.Msg], b.copies[e.Msg]
		if e.PB != nil {
			pb, err := b.pb(e.PB)
			if err != nil {
				return re, err
			}
			re.PB = b.run.AddPB(&pb)
		}
	case trace.Fail:
		b.fails[e.p] = append(b.fails[e.p], e.seq)
	case trace.Restart, trace.Rollback:
		re.Undone = max(b.live[e.p]-e.Pos, 0)
		b.live[e.p] = e.Pos
	}
	if e.kind.IsOp() && e.Op >= 0 {
		b.live[e.p] = e.Op + 1
	}
	if e.Body != nil {
		body, err := b.body(e.Body)
		if err != nil {
			return re, err
		}
		re.Body = b.run.AddBody(&body)
	}
	return re, nil
}

func (b *builder) msg(id string) int32 {
	m, ok := b.msgs[id]
	if !ok {
		m = int32(len(b.run.Msgs))
		b.msgs[id] = m
		b.run.Msgs = append(b.run.Msgs, id)
	}
	return m
}

// proc returns the index of process name.
func (b *builder) proc(name string) (int32, error) {
	if p := slices.Index(b.run.Processes, name); p >= 0 {
		return int32(p), nil
	}
	return trace.None, fmt.Errorf("unknown process %q", name)
}

// peer is the receiver of a send or control_send, the sender of a recv
// or control_recv (the run's "to" or "from").
func (b *builder) peer(e *event) (int32, error) {
	switch e.kind {
	case trace.Send, trace.ControlSend:
		return b.proc(e.To)
	case trace.Recv, trace.ControlRecv:
		return b.proc(e.From)
	}
	return trace.None, nil
}

// failure resolves a failure's name to the seq of its fail event, which
// causality has placed before any event that answers it.
func (b *builder) failure(f *wireFailure) (int32, error) {
	if f == nil {
		return trace.None, nil
	}
	p, err := b.proc(f.P)
	if err != nil {
		return trace.None, err
	}
	if f.N < 1 || int(f.N) > len(b.fails[p]) {
		return trace.None, fmt.Errorf("it answers %s's failure %d, which is not recorded before it", f.P, f.N)
	}
	return b.fails[p][f.N-1], nil
}

func (b *builder) pb(w *wirePB) (trace.Piggyback, error) {
	pb := trace.NewPiggyback()
	pb.Sn = w.Sn
	pb.F = make([]trace.FEntry, 0, len(w.F))
	for name, c := range w.F {
		p, err := b.proc(name)
		if err != nil {
			return pb, err
		}
		pb.F = append(pb.F, trace.FEntry{P: p, Count: c})
	}
	slices.SortFunc(pb.F, func(x, y trace.FEntry) int { return int(x.P - y.P) })
	return pb, nil
}

func (b *builder) body(w *wireBody) (trace.ControlBody, error) {
	body := trace.NewControlBody()
	var err error
	body.Origin, err = b.proc(w.Origin)
	body.Count, body.R = w.Count, w.R
	return body, err
}
