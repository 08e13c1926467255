package pk

import (
	"reflect"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/tracetest"

	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
)

// harness drives PK's Step directly, playing the engine by hand, so the
// state machine's decisions are tested without the engine.
type harness struct {
	t    *testing.T
	a    *PK
	pos  []int32
	copy replay.CopyID // the next copy
	// pb[c] is the piggyback vector of copy c.
	pb map[replay.CopyID]trace.VT
}

func newHarness(t *testing.T, b *tracetest.Builder) *harness {
	t.Helper()
	tr, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(Default, tr)
	if err != nil {
		t.Fatal(err)
	}
	return &harness{t: t, a: a, pos: make([]int32, len(tr.Processes)), copy: 1, pb: map[replay.CopyID]trace.VT{}}
}

func (h *harness) step(in replay.Input) []replay.Effect {
	h.t.Helper()
	if in.Kind != replay.InRestart && in.Kind != replay.InFail {
		in.Pos = h.pos[in.P]
	}
	return h.a.Step(&in, nil)
}

// send runs p's next op as a send of msg to `to` and returns the copy.
func (h *harness) send(p, to replay.Proc, msg replay.Msg) replay.CopyID {
	h.t.Helper()
	fx := h.step(replay.Input{Kind: replay.InSend, P: p, Op: h.pos[p], Msg: msg, Peer: to, Copy: h.copy})
	if len(fx) != 1 || fx[0].Kind != replay.EffPiggyback {
		h.t.Fatalf("send: effects %v", fx)
	}
	c := h.copy
	h.pb[c] = fx[0].PB.VT
	h.copy++
	h.pos[p]++
	return c
}

func (h *harness) internal(p replay.Proc) { h.pos[p]++ }

// recv offers copy c (sent by from) to p's next op and returns the
// judgement; a delivery completes the op.
func (h *harness) recv(p, from replay.Proc, msg replay.Msg, c replay.CopyID) replay.Effect {
	h.t.Helper()
	pb := trace.NewPiggyback()
	pb.VT = h.pb[c]
	fx := h.step(replay.Input{Kind: replay.InRecv, P: p, Op: h.pos[p], Msg: msg, Peer: from, Copy: c, Via: trace.ViaNet, PB: &pb})
	if len(fx) != 1 {
		h.t.Fatalf("recv: effects %v", fx)
	}
	if fx[0].Kind == replay.EffDeliver {
		h.pos[p]++
	}
	return fx[0]
}

func (h *harness) tick(p replay.Proc) []replay.Effect {
	return h.step(replay.Input{Kind: replay.InTick, P: p})
}

func (h *harness) flush(p replay.Proc) []replay.Effect {
	return h.step(replay.Input{Kind: replay.InFlush, P: p})
}

func (h *harness) fail(p replay.Proc, seq replay.Seq) {
	h.a.Step(&replay.Input{Kind: replay.InFail, P: p, Pos: h.pos[p], Failure: seq}, nil)
}

func (h *harness) restart(p replay.Proc, seq replay.Seq, pending ...replay.ControlMsg) []replay.Effect {
	fx := h.a.Step(&replay.Input{Kind: replay.InRestart, P: p, Pos: h.pos[p], Failure: seq, Pending: pending}, nil)
	if len(fx) == 0 || fx[0].Kind != replay.EffRestart {
		h.t.Fatalf("restart: effects %v", fx)
	}
	h.pos[p] = fx[0].Pos
	return fx
}

func (h *harness) control(p, from replay.Proc, body *trace.ControlBody, seq replay.Seq) []replay.Effect {
	fx := h.step(replay.Input{Kind: replay.InControl, P: p, Peer: from, Control: trace.ControlToken, Body: body, Failure: seq})
	for _, e := range fx {
		if e.Kind == replay.EffRollback {
			h.pos[p] = e.Pos
		}
	}
	return fx
}

func kinds(fx []replay.Effect) []replay.EffectKind {
	k := make([]replay.EffectKind, len(fx))
	for i, e := range fx {
		k[i] = e.Kind
	}
	return k
}

func find(fx []replay.Effect, k replay.EffectKind) *replay.Effect {
	for i := range fx {
		if fx[i].Kind == k {
			return &fx[i]
		}
	}
	return nil
}

// classic is the textbook example: P0 checkpoints, receives m2 from P2,
// sends m3 to P1, and crashes before flushing m2's receipt; P1 then sends
// m4 to P2 after receiving m3.
func classic() *tracetest.Builder {
	return tracetest.NewBuilder("P0", "P1", "P2").
		Send(0.1, "P0", "P1", "m1").
		Recv(0.2, "P1", "m1").
		Checkpoint(0.3, "P0").
		Send(0.4, "P2", "P0", "m2").
		Recv(0.5, "P0", "m2").
		Send(0.6, "P0", "P1", "m3").
		Recv(0.7, "P1", "m3").
		Send(0.8, "P1", "P2", "m4").
		Recv(0.9, "P2", "m4").
		Fail(1.0, "P0")
}

func TestClassicDecisions(t *testing.T) {
	h := newHarness(t, classic())
	c1 := h.send(0, 1, 0)
	if got := h.recv(1, 0, 0, c1); got.Kind != replay.EffDeliver {
		t.Fatalf("m1: %v", got)
	}
	fx := h.tick(0)
	if !reflect.DeepEqual(kinds(fx), []replay.EffectKind{replay.EffCheckpoint}) || !reflect.DeepEqual(fx[0].VT, vt(0, 1, 0, 0, 0, 0)) {
		t.Fatalf("tick: %+v", fx)
	}
	c2 := h.send(2, 0, 1)
	h.recv(0, 2, 1, c2)
	c3 := h.send(0, 1, 2)
	if !reflect.DeepEqual(h.pb[c3], vt(0, 3, 0, 0, 0, 1)) {
		t.Fatalf("m3 piggyback %v", h.pb[c3])
	}
	h.recv(1, 0, 2, c3)
	c4 := h.send(1, 2, 3)
	if !reflect.DeepEqual(h.pb[c4], vt(0, 3, 0, 3, 0, 1)) {
		t.Fatalf("m4 piggyback %v", h.pb[c4])
	}
	h.recv(2, 1, 3, c4)
	if fx := h.flush(1); len(fx) != 2 || fx[0].Copy != c1 || fx[1].Copy != c3 {
		t.Fatalf("flush P1: %+v", fx)
	}

	h.fail(0, 9)
	fx = h.restart(0, 10)
	r := fx[0]
	// The receipt of m2 was never flushed: replay stops before it.
	if r.Ckpt != 1 || r.Pos != 1 || r.Inc != 1 || !r.Resend || r.Failure != 10 {
		t.Fatalf("restart: %+v", r)
	}
	tok := find(fx, replay.EffControl)
	if tok == nil || tok.To != 1 || tok.Body.Origin != 0 || tok.Body.Inc != 0 || tok.Body.K != 1 || len(tok.Body.Received) != 0 {
		t.Fatalf("token: %+v", tok)
	}
	if find(fx, replay.EffHoldProcess) == nil {
		t.Fatal("restarted process not held")
	}

	// P1 received m3, an orphan: it rolls back to just before it, and m1's
	// receipt stays live. m3's copy is an orphan: not requeued.
	fx = h.control(1, 0, tok.Body, 10)
	rb := find(fx, replay.EffRollback)
	if rb == nil || rb.Pos != 1 || rb.Ckpt != 0 || rb.Cause != trace.CauseToken || len(rb.Requeue) != 0 {
		t.Fatalf("P1 rollback: %+v", fx)
	}
	// P1's live send to P0 — none; it forwards.
	if fw := find(fx, replay.EffControl); fw == nil || fw.To != 2 {
		t.Fatalf("P1 forward: %+v", fx)
	}
	// P2 received m4 (orphan) and resends m2 to P0, which lacks it.
	fx = h.control(2, 1, tok.Body, 10)
	if got := kinds(fx); !reflect.DeepEqual(got, []replay.EffectKind{replay.EffRollback, replay.EffResend, replay.EffControl}) {
		t.Fatalf("P2: %v", got)
	}
	if fx[0].Pos != 1 || fx[1].Op != 0 || fx[2].To != 0 {
		t.Fatalf("P2: %+v", fx)
	}
	// Back at P0: resume.
	if fx = h.control(0, 2, tok.Body, 10); !reflect.DeepEqual(kinds(fx), []replay.EffectKind{replay.EffResume}) {
		t.Fatalf("P0 resume: %v", kinds(fx))
	}
	// The orphan copy of m3 is discarded if offered again; the original m2
	// is accepted by P0.
	if got := h.recv(1, 0, 2, c3); got.Kind != replay.EffDiscard || got.Reason != trace.ReasonOrphan || got.Failure != 10 {
		t.Fatalf("m3 again: %+v", got)
	}
	if got := h.recv(0, 2, 1, c2); got.Kind != replay.EffDeliver {
		t.Fatalf("m2 again: %+v", got)
	}
	// P0's new send carries incarnation 1.
	c3b := h.send(0, 1, 2)
	if !reflect.DeepEqual(h.pb[c3b], vt(1, 3, 0, 0, 0, 1)) {
		t.Fatalf("new m3 piggyback %v", h.pb[c3b])
	}
	if got := h.recv(1, 0, 2, c3b); got.Kind != replay.EffDeliver {
		t.Fatalf("new m3: %+v", got)
	}
}

func TestRestartStoppingPoint(t *testing.T) {
	// P1: recv a, send b, recv c, internal, recv d.
	b := tracetest.NewBuilder("P0", "P1").
		Send(0.1, "P0", "P1", "a").
		Send(0.2, "P0", "P1", "c").
		Send(0.3, "P0", "P1", "d").
		Recv(0.4, "P1", "a").
		Send(0.5, "P1", "P0", "b").
		Recv(0.6, "P1", "c").
		Internal(0.7, "P1").
		Recv(0.8, "P1", "d")
	tests := []struct {
		name string
		// flushAfter is how many of P1's ops run before its flush.
		flushAfter int
		tickAfter  int // -1: no checkpoint
		known      []Announcement
		pos        int32
		ckpt       int32
	}{
		{"nothing flushed", 0, -1, nil, 0, 0},
		{"first receipt flushed", 1, -1, nil, 2, 0},
		{"all flushed: runs to the next receive", 5, -1, nil, 5, 0},
		{"checkpoint flushes", 5, 3, nil, 5, 1},
		{"orphan entry stops replay", 5, -1, []Announcement{{0, 0, 1}}, 2, 0},
		{"clean checkpoint kept", 5, 4, []Announcement{{0, 0, 2}}, 4, 1},
		{"orphan checkpoint skipped", 5, 4, []Announcement{{0, 0, 1}}, 2, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, b)
			ca, cc, cd := h.send(0, 1, 0), h.send(0, 1, 1), h.send(0, 1, 2)
			steps := []func(){
				func() { h.recv(1, 0, 0, ca) },
				func() { h.send(1, 0, 3) },
				func() { h.recv(1, 0, 1, cc) },
				func() { h.internal(1) },
				func() { h.recv(1, 0, 2, cd) },
			}
			for i, s := range steps {
				if i == tc.flushAfter {
					h.flush(1)
				}
				if i == tc.tickAfter {
					h.tick(1)
				}
				s()
			}
			if tc.flushAfter == len(steps) {
				h.flush(1)
			}
			var pending []replay.ControlMsg
			for _, a := range tc.known {
				body := trace.NewControlBody()
				body.Origin, body.Inc, body.K = a.P, a.Inc, a.K
				pending = append(pending, replay.ControlMsg{From: replay.Proc(a.P), Control: trace.ControlToken, Body: &body, Failure: 3})
			}
			h.fail(1, 7)
			fx := h.restart(1, 8, pending...)
			if fx[0].Pos != tc.pos || fx[0].Ckpt != tc.ckpt {
				t.Fatalf("restart at %d from ckpt %d, want %d from %d", fx[0].Pos, fx[0].Ckpt, tc.pos, tc.ckpt)
			}
			tok := find(fx, replay.EffControl)
			if tok.Body.K != tc.pos {
				t.Fatalf("announcement k = %d, want %d", tok.Body.K, tc.pos)
			}
			// A second restart without new news stops at the same point:
			// the stable log was cut at pos, so nothing beyond is replayed.
			h.fail(1, 9)
			if fx := h.restart(1, 10); fx[0].Pos > tc.pos {
				t.Fatalf("second restart at %d beyond %d", fx[0].Pos, tc.pos)
			}
		})
	}
}

func TestHoldUntilAnnouncement(t *testing.T) {
	b := tracetest.NewBuilder("P0", "P1", "P2").
		Send(0.1, "P0", "P2", "x").
		Recv(0.2, "P2", "x")
	h := newHarness(t, b)
	h.fail(0, 1)
	fx := h.restart(0, 2)
	tok := find(fx, replay.EffControl)
	c := h.send(0, 2, 0)
	if got := h.recv(2, 0, 0, c); got.Kind != replay.EffHold || got.Failure != 2 {
		t.Fatalf("copy of incarnation 1: %+v", got)
	}
	h.control(2, 1, tok.Body, 2)
	if got := h.recv(2, 0, 0, c); got.Kind != replay.EffDeliver {
		t.Fatalf("after the token: %+v", got)
	}
}

func TestOwnTokenResumesOnlyNewest(t *testing.T) {
	h := newHarness(t, tracetest.NewBuilder("P0", "P1").Internal(0.1, "P0"))
	h.fail(0, 1)
	old := find(h.restart(0, 2), replay.EffControl).Body
	h.fail(0, 3)
	// The old token came back while P0 was down.
	fx := h.restart(0, 4, replay.ControlMsg{From: 1, Control: trace.ControlToken, Body: old, Failure: 2})
	if find(fx, replay.EffResume) != nil {
		t.Fatal("old token resumed the process")
	}
	newest := find(fx, replay.EffControl).Body
	if newest.Inc != 1 || fx[0].Inc != 2 {
		t.Fatalf("second restart: inc %d, token for %d", fx[0].Inc, newest.Inc)
	}
	if fx := h.control(0, 1, old, 2); len(fx) != 0 {
		t.Fatalf("old token: %v", kinds(fx))
	}
	if fx := h.control(0, 1, newest, 4); !reflect.DeepEqual(kinds(fx), []replay.EffectKind{replay.EffResume}) {
		t.Fatalf("newest token: %v", kinds(fx))
	}
}

func TestRollbackRequeuesNonOrphans(t *testing.T) {
	// P2 receives y (from P1, clean) after x (from P0, to be orphaned):
	// rolling back to x's receipt undoes y's receipt too, whose copy must
	// come back; x's copy is an orphan and does not.
	b := tracetest.NewBuilder("P0", "P1", "P2").
		Send(0.05, "P1", "P0", "w").
		Recv(0.06, "P0", "w").
		Send(0.1, "P0", "P2", "x").
		Send(0.2, "P1", "P2", "y").
		Recv(0.3, "P2", "x").
		Recv(0.4, "P2", "y").
		Send(0.5, "P2", "P0", "z")
	h := newHarness(t, b)
	cw := h.send(1, 0, 0)
	h.recv(0, 1, 0, cw)
	cx, cy := h.send(0, 2, 1), h.send(1, 2, 2)
	h.recv(2, 0, 1, cx)
	h.recv(2, 1, 2, cy)
	h.tick(2)
	h.send(2, 0, 3)
	h.fail(0, 5)
	fx := h.restart(0, 6)
	if fx[0].Pos != 0 {
		t.Fatalf("P0 restart pos %d", fx[0].Pos)
	}
	tok := find(fx, replay.EffControl).Body
	fx = h.control(1, 0, tok, 6)
	if got := kinds(fx); !reflect.DeepEqual(got, []replay.EffectKind{replay.EffResend, replay.EffControl}) || fx[0].Op != 0 {
		t.Fatalf("P1: %+v", fx)
	}
	fx = h.control(2, 1, tok, 6)
	rb := find(fx, replay.EffRollback)
	if rb == nil || rb.Ckpt != 0 || rb.Pos != 0 || !reflect.DeepEqual(rb.Requeue, []replay.CopyID{cy}) {
		t.Fatalf("rollback: %+v", fx)
	}
	// z was sent by an undone op: no resend.
	if find(fx, replay.EffResend) != nil {
		t.Fatalf("resend of an undone send: %v", kinds(fx))
	}
	// The checkpoint taken after the orphan receipt is gone: a later
	// failure cannot restore it.
	h.fail(2, 7)
	if fx := h.restart(2, 8); fx[0].Ckpt != 0 {
		t.Fatalf("restored orphan checkpoint %d", fx[0].Ckpt)
	}
}
