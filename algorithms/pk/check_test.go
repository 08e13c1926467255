package pk

import (
	"fmt"
	"testing"

	"github.com/ckpt-dev/ckpt/trace"
)

// inst is one execution of an app op, as the run shows it.
type inst struct {
	seq  int32
	p    int32
	op   int32
	kind trace.Kind
	msg  int32
	// prev is the process's previous live op; from the sending op of the
	// received copy. Both nil when absent.
	prev, from *inst
}

type copyKey struct{ msg, no int32 }

// runCheck rebuilds live histories and happened-before from a run alone
// (no algorithm state) and checks PK's promises: every rollback undoes
// exactly the suffix that causally depends on the events its failure lost
// (minimal rollback, also "no less"); at the end no live event depends on
// lost events, and the live histories are the programs (equivalence),
// without duplicates.
type runCheck struct {
	run  *trace.Run
	live [][]*inst
	cp   map[copyKey]*inst
	// lost[f] holds the events failure f lost.
	lost map[int32]map[*inst]bool
	memo map[int32]map[*inst]bool
	errs []string
}

func (c *runCheck) errorf(format string, args ...any) {
	c.errs = append(c.errs, fmt.Sprintf(format, args...))
}

func (c *runCheck) depends(f int32, x *inst) bool {
	if x == nil {
		return false
	}
	m := c.memo[f]
	if m == nil {
		m = map[*inst]bool{}
		c.memo[f] = m
	}
	if v, ok := m[x]; ok {
		return v
	}
	v := c.lost[f][x] || c.depends(f, x.prev) || c.depends(f, x.from)
	m[x] = v
	return v
}

func (c *runCheck) last(p int32) *inst {
	if l := c.live[p]; len(l) > 0 {
		return l[len(l)-1]
	}
	return nil
}

// firstDependent returns the index of p's first live op that depends on
// f's lost events, or len(live) if none does.
func (c *runCheck) firstDependent(f int32, p int32) int {
	for k, x := range c.live[p] {
		if c.depends(f, x) {
			return k
		}
	}
	return len(c.live[p])
}

func checkRun(t *testing.T, tr *trace.Trace, run *trace.Run, wantDone bool) {
	t.Helper()
	for _, s := range runErrors(tr, run, wantDone) {
		t.Error(s)
	}
}

func runErrors(tr *trace.Trace, run *trace.Run, wantDone bool) []string {
	n := len(run.Processes)
	c := &runCheck{run: run, live: make([][]*inst, n), cp: map[copyKey]*inst{},
		lost: map[int32]map[*inst]bool{}, memo: map[int32]map[*inst]bool{}}
	down := make([]bool, n)
	// handled[p] lists the failures whose tokens p recorded while down;
	// it handles them at its restart.
	handled := make([][]int32, n)
	// clean checks that p's state right after handling f holds nothing
	// that depends on f's lost events.
	clean := func(e *trace.RunEvent, f int32) {
		if k := c.firstDependent(f, e.P); k < len(c.live[e.P]) {
			c.errorf("seq %d: %s keeps op %d, which depends on failure %d's lost events, after handling it",
				e.Seq, run.Processes[e.P], k, f)
		}
	}
	for i := range run.Events {
		e := &run.Events[i]
		p := e.P
		switch e.Kind {
		case trace.Fail:
			down[p] = true
		case trace.ControlRecv:
			if body := run.Body(e); e.Control != trace.ControlToken || body == nil || body.Origin == p {
				continue
			}
			if down[p] {
				handled[p] = append(handled[p], e.Failure)
				continue
			}
			// A rollback, if any, is the next event of p at this time.
			rolled := false
			for j := i + 1; j < len(run.Events) && run.Events[j].T == e.T; j++ {
				if n := &run.Events[j]; n.P == p && n.Kind != trace.Send && n.Kind != trace.ControlSend {
					rolled = n.Kind == trace.Rollback && n.Failure == e.Failure
					break
				}
			}
			if !rolled {
				clean(e, e.Failure)
			}
		case trace.Send:
			if e.Resend {
				orig := c.cp[copyKey{e.Msg, e.Of}]
				if orig == nil {
					c.errorf("seq %d: resend of unknown copy %d", e.Seq, e.Of)
				}
				c.cp[copyKey{e.Msg, e.Copy}] = orig
				continue
			}
			x := &inst{seq: e.Seq, p: p, op: e.Op, kind: e.Kind, msg: e.Msg, prev: c.last(p)}
			c.cp[copyKey{e.Msg, e.Copy}] = x
			c.add(x)
		case trace.Recv:
			from := c.cp[copyKey{e.Msg, e.Copy}]
			if from == nil {
				c.errorf("seq %d: recv of unknown copy", e.Seq)
			}
			c.add(&inst{seq: e.Seq, p: p, op: e.Op, kind: e.Kind, msg: e.Msg, prev: c.last(p), from: from})
		case trace.Internal:
			c.add(&inst{seq: e.Seq, p: p, op: e.Op, kind: e.Kind, msg: trace.None, prev: c.last(p)})
		case trace.Restart:
			lost := c.lost[e.Failure]
			if lost == nil {
				lost = map[*inst]bool{}
				c.lost[e.Failure] = lost
			}
			if int(e.Pos) < len(c.live[p]) {
				for _, x := range c.live[p][e.Pos:] {
					lost[x] = true
				}
				c.live[p] = c.live[p][:e.Pos]
			}
			c.memo = map[int32]map[*inst]bool{}
			down[p] = false
			for _, f := range handled[p] {
				clean(e, f)
			}
			handled[p] = handled[p][:0]
		case trace.Rollback:
			if want := c.firstDependent(e.Failure, p); want != int(e.Pos) {
				c.errorf("seq %d: %s rolled back to %d, but its first event depending on failure %d's lost events is op %d",
					e.Seq, run.Processes[p], e.Pos, e.Failure, want)
			}
			if int(e.Pos) < len(c.live[p]) {
				c.live[p] = c.live[p][:e.Pos]
			}
			clean(e, e.Failure)
		}
	}
	for f := range c.lost {
		for p := range c.live {
			if k := c.firstDependent(f, int32(p)); k < len(c.live[p]) {
				c.errorf("end: %s op %d depends on events lost by failure %d", run.Processes[p], k, f)
			}
		}
	}
	for p := range c.live {
		for k, x := range c.live[p] {
			if x.op != int32(k) {
				c.errorf("%s: live op %d recorded as op %d", run.Processes[p], k, x.op)
			}
		}
	}
	if wantDone {
		prog := make([][]int, n)
		for i := range tr.Events {
			if tr.Events[i].Kind.IsOp() {
				prog[tr.Events[i].P] = append(prog[tr.Events[i].P], i)
			}
		}
		seen := map[int32]bool{}
		for p := range c.live {
			if len(c.live[p]) != len(prog[p]) {
				c.errorf("%s: %d live ops, program has %d", run.Processes[p], len(c.live[p]), len(prog[p]))
				continue
			}
			for k, x := range c.live[p] {
				ev := &tr.Events[prog[p][k]]
				if ev.Kind != x.kind || (ev.Kind != trace.Internal && ev.Msg != x.msg) {
					c.errorf("%s op %d: live %s %d, program %s %d", run.Processes[p], k, x.kind, x.msg, ev.Kind, ev.Msg)
				}
				if x.kind == trace.Recv {
					if seen[x.msg] {
						c.errorf("message %s received twice", run.Msgs[x.msg])
					}
					seen[x.msg] = true
				}
			}
		}
		for i := range run.Events {
			if e := &run.Events[i]; e.Kind == trace.End && e.State != trace.StateDone {
				c.errorf("%s ends %s", run.Processes[e.P], e.State)
			}
		}
	}
	return c.errs
}

func (c *runCheck) add(x *inst) {
	if int(x.op) != len(c.live[x.p]) {
		c.errorf("seq %d: %s op %d after %d live ops", x.seq, c.run.Processes[x.p], x.op, len(c.live[x.p]))
	}
	c.live[x.p] = append(c.live[x.p], x)
}
