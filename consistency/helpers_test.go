package consistency

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/measure"
	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// rb builds a run event by event; every event gets the next seq and a
// time 0.1 s after the previous one.
type rb struct {
	run  *trace.Run
	msgs map[string]int32
}

func newRun(alg string, procs ...string) *rb {
	return &rb{run: &trace.Run{Name: "test.run.json", Algorithm: alg, Processes: procs}, msgs: map[string]int32{}}
}

func (b *rb) p(name string) int32 {
	i := int32(slices.Index(b.run.Processes, name))
	if i == trace.None {
		panic("unknown process " + name)
	}
	return i
}

func (b *rb) m(id string) int32 {
	if i, ok := b.msgs[id]; ok {
		return i
	}
	i := int32(len(b.run.Msgs))
	b.run.Msgs = append(b.run.Msgs, id)
	b.msgs[id] = i
	return i
}

func (b *rb) add(kind trace.Kind, p string, set func(e *trace.RunEvent)) int32 {
	seq := int32(len(b.run.Events))
	e := trace.NewRunEvent(kind, trace.Time(seq+1)*trace.Second/10, b.p(p))
	e.Seq = seq
	if set != nil {
		set(&e)
	}
	b.run.Events = append(b.run.Events, e)
	return seq
}

func msPB(sn int32, f ...trace.FEntry) *trace.Piggyback {
	pb := trace.NewPiggyback()
	pb.Sn = sn
	pb.F = f
	return &pb
}

func pkPB(vt ...[2]int32) *trace.Piggyback {
	pb := trace.NewPiggyback()
	for _, x := range vt {
		pb.VT = append(pb.VT, trace.VTEntry{Inc: x[0], Count: x[1]})
	}
	return &pb
}

func (b *rb) send(p, to, msg string, op, cp int32, pb *trace.Piggyback) int32 {
	return b.add(trace.Send, p, func(e *trace.RunEvent) {
		e.Peer, e.Msg, e.Op, e.Copy, e.PB = b.p(to), b.m(msg), op, cp, b.run.AddPB(pb)
	})
}

func (b *rb) resend(p, to, msg string, op, cp, of int32, pb *trace.Piggyback) int32 {
	return b.add(trace.Send, p, func(e *trace.RunEvent) {
		e.Peer, e.Msg, e.Op, e.Copy, e.PB, e.Resend, e.Of = b.p(to), b.m(msg), op, cp, b.run.AddPB(pb), true, of
	})
}

func (b *rb) recv(p, from, msg string, op, cp int32, via trace.Via) int32 {
	return b.add(trace.Recv, p, func(e *trace.RunEvent) {
		e.Peer, e.Msg, e.Op, e.Copy, e.Via = b.p(from), b.m(msg), op, cp, via
	})
}

func (b *rb) internal(p string, op int32) int32 {
	return b.add(trace.Internal, p, func(e *trace.RunEvent) { e.Op = op })
}

func (b *rb) ckpt(p string, id int32, typ trace.CkptType, pos, sn int32, failure int32) int32 {
	return b.add(trace.Checkpoint, p, func(e *trace.RunEvent) {
		e.Ckpt, e.CkptType, e.Pos, e.Sn, e.Failure = id, typ, pos, sn, failure
	})
}

func (b *rb) pkCkpt(p string, id, pos int32, vt ...[2]int32) int32 {
	return b.add(trace.Checkpoint, p, func(e *trace.RunEvent) {
		e.Ckpt, e.CkptType, e.Pos = id, trace.CkptBasic, pos
		var v trace.VT
		for _, x := range vt {
			v = append(v, trace.VTEntry{Inc: x[0], Count: x[1]})
		}
		e.VT = b.run.AddVT(v)
	})
}

func (b *rb) log(p, msg string, op, cp int32) int32 {
	return b.add(trace.Log, p, func(e *trace.RunEvent) { e.Msg, e.Op, e.Copy = b.m(msg), op, cp })
}

func (b *rb) fail(p string) int32 { return b.add(trace.Fail, p, nil) }

func (b *rb) restart(p string, restore, pos, undone, failure int32) int32 {
	inc := int32(1) // its restarts so far, this one included: what ckpt writes
	for i := range b.run.Events {
		if e := &b.run.Events[i]; e.Kind == trace.Restart && e.P == b.p(p) {
			inc++
		}
	}
	return b.add(trace.Restart, p, func(e *trace.RunEvent) {
		e.Restore, e.Pos, e.Undone, e.Failure, e.Inc = restore, pos, undone, failure, inc
	})
}

func (b *rb) rollback(p string, restore, pos, undone, failure int32, cause trace.Cause) int32 {
	return b.add(trace.Rollback, p, func(e *trace.RunEvent) {
		e.Restore, e.Pos, e.Undone, e.Failure, e.Cause = restore, pos, undone, failure, cause
	})
}

func (b *rb) control(p, to string, ctl trace.Control, failure int32, body *trace.ControlBody) {
	if body == nil && ctl == trace.ControlRollback {
		body = b.request(p)
	}
	bi := b.run.AddBody(body)
	b.add(trace.ControlSend, p, func(e *trace.RunEvent) {
		e.Peer, e.Control, e.Failure, e.Body = b.p(to), ctl, failure, bi
	})
	b.add(trace.ControlRecv, to, func(e *trace.RunEvent) {
		e.Peer, e.Control, e.Failure, e.Body = b.p(p), ctl, failure, bi
	})
}

// request is the Rollback request of p's latest restart, as MS writes
// it: origin, its restart count, and the number r of the checkpoint it
// restored.
func (b *rb) request(p string) *trace.ControlBody {
	body := trace.NewControlBody()
	body.Origin, body.Count, body.R = b.p(p), 0, 0
	for i := range b.run.Events {
		e := &b.run.Events[i]
		if e.Kind != trace.Restart || e.P != body.Origin {
			continue
		}
		body.Count, body.R = body.Count+1, 0
		for j := range b.run.Events[:i] {
			if c := &b.run.Events[j]; c.Kind == trace.Checkpoint && c.P == e.P && c.Ckpt == e.Restore {
				body.R = c.Sn
			}
		}
	}
	return &body
}

func token(origin, inc, k int32) *trace.ControlBody {
	body := trace.NewControlBody()
	body.Origin, body.Inc, body.K = origin, inc, k
	return &body
}

func (b *rb) discard(p, msg string, cp int32, reason trace.Reason, failure int32) int32 {
	return b.add(trace.Discard, p, func(e *trace.RunEvent) {
		e.Msg, e.Copy, e.Reason, e.Failure = b.m(msg), cp, reason, failure
	})
}

func (b *rb) end(p string, state trace.EndState, op int32, msg string) int32 {
	return b.add(trace.End, p, func(e *trace.RunEvent) {
		e.State, e.Op = state, op
		if msg != "" {
			e.Msg = b.m(msg)
		}
	})
}

func (b *rb) done(procs ...string) {
	for _, p := range procs {
		b.end(p, trace.StateDone, trace.None, "")
	}
}

// verdicts renders a report's statuses compactly: "orphan-free=pass ...".
func verdicts(r report.Report) map[string]report.Status {
	out := map[string]report.Status{}
	for _, p := range r.Properties {
		out[p.Name] = p.Status
	}
	return out
}

func dump(r report.Report) string {
	var b strings.Builder
	for _, p := range r.Properties {
		fmt.Fprintf(&b, "%s=%s %s\n", p.Name, p.Status, p.Note)
		for _, v := range p.Violations {
			fmt.Fprintf(&b, "   %s %v\n      because %s\n", v.Message, v.Seqs, v.Because)
		}
	}
	return b.String()
}

// expect checks the statuses named in want; properties not named must
// not fail (so each test shows exactly the violation it is about).
func expect(t *testing.T, r report.Report, want map[string]report.Status) {
	t.Helper()
	got := verdicts(r)
	for name, st := range got {
		w, named := want[name]
		if named && st != w || !named && st == report.Fail {
			t.Errorf("%s: got %s, want %v\n%s", name, st, map[bool]any{true: w, false: "not fail"}[named], dump(r))
		}
	}
	for name := range want {
		if _, ok := got[name]; !ok {
			t.Errorf("property %s missing", name)
		}
	}
	failed := false
	for _, st := range got {
		failed = failed || st == report.Fail
	}
	if r.Valid == failed {
		t.Errorf("valid = %v with a failing property = %v", r.Valid, failed)
	}
}

// measured is Check with the report's tables (package measure), for the
// tests that read them.
func measured(run *trace.Run, src *trace.Trace) report.Report {
	r, m := Judge(run, src)
	measure.Fill(&r, m, measure.StartBaseline(src))
	return r
}
