package trace

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// protocolRun is a run with the shapes the checkpoint-placement
// protocols write (docs/formats.md): a BCS, an FDAS and an HMNR
// piggyback, coordinated checkpointing's control kinds, a block and the
// reasons of its skipped ticks.
func protocolRun() *Run {
	run := &Run{Algorithm: "x", Processes: []string{"P0", "P1", "P2"}, Msgs: []string{"m1", "m2", "m3"}}
	send := func(msg int32, pb Piggyback) {
		e := NewRunEvent(Send, 0, 0)
		e.Msg, e.Peer, e.Op, e.Copy, e.PB = msg, 1, msg, 1, run.AddPB(&pb)
		run.Events = append(run.Events, e)
	}
	bcs := NewPiggyback()
	bcs.Sn = 2
	send(0, bcs)
	fdas := NewPiggyback()
	fdas.CIC = &CIC{LC: None, DV: []int32{3, 0, 1}}
	send(1, fdas)
	hmnr := NewPiggyback()
	hmnr.CIC = &CIC{LC: 0, Ckpt: []int32{1, 0, 2}, Taken: []bool{false, true, true}, Greater: []bool{true, false, true}}
	send(2, hmnr)
	for _, c := range []Control{ControlRequest, ControlAck, ControlCommit} {
		e := NewRunEvent(ControlSend, Second, 0)
		e.Peer, e.Control = 1, c
		run.Events = append(run.Events, e)
	}
	b := NewRunEvent(Block, Second, 1)
	b.Until = run.AddString("commit")
	run.Events = append(run.Events, b)
	for _, r := range []Reason{ReasonNotInitiator, ReasonInRound} {
		e := NewRunEvent(CheckpointSkipped, 2*Second, 2)
		e.Reason = r
		run.Events = append(run.Events, e)
	}
	for i := range run.Events {
		run.Events[i].Seq = int32(i)
	}
	return run
}

// TestProtocolShapesEncode pins how the protocols' piggybacks, control
// kinds, block events and skip reasons are written.
func TestProtocolShapesEncode(t *testing.T) {
	var b bytes.Buffer
	if err := WriteRun(&b, protocolRun(), WriteOptions{JSONL: true}); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`"pb":{"sn":2,"f":{}}`,
		`"pb":{"dv":[3,0,1]}`,
		`"pb":{"lc":0,"ckpt":[1,0,2],"taken":"011","greater":"101"}`,
		`"kind":"control_send","to":"P1","control":"request"`,
		`"control":"ack"`,
		`"control":"commit"`,
		`"kind":"block","until":"commit"`,
		`"reason":"not-initiator"`,
		`"reason":"in-round"`,
	}
	got := b.String()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("run lacks %s:\n%s", w, got)
		}
	}
}

// TestProtocolShapesDecode: the kinds, enum values and piggybacks the
// protocols add come back from the run decoder as they were built, in
// every container: FDAS's and HMNR's vectors included, each one entry per
// process, LC absent for FDAS.
func TestProtocolShapesDecode(t *testing.T) {
	run := protocolRun()
	for _, opts := range allWriteOptions {
		var b bytes.Buffer
		if err := WriteRun(&b, run, opts); err != nil {
			t.Fatal(err)
		}
		got, err := ReadRun("x", &b)
		if err != nil {
			t.Fatalf("%+v: %v", opts, err)
		}
		for i := range run.Events {
			w, g := &run.Events[i], &got.Events[i]
			if w.Kind != g.Kind || w.Control != g.Control || w.Reason != g.Reason || run.Until(w) != got.Until(g) {
				t.Errorf("%+v: event %d: got %v %v %v %q, want %v %v %v %q", opts, i, g.Kind, g.Control, g.Reason, got.Until(g), w.Kind, w.Control, w.Reason, run.Until(w))
			}
			if !samePB(got.PB(g), run.PB(w)) {
				t.Errorf("%+v: event %d: piggyback %s, want %s", opts, i, pbString(got.PB(g)), pbString(run.PB(w)))
			}
		}
	}
}

// SamePiggyback and PiggybackText serve the external tests
// (engineform_test.go).
var SamePiggyback, PiggybackText = samePB, pbString

// samePB compares piggybacks, an empty f equal to a nil one: "f": {}
// decodes to an empty vector (docs/formats.md), and BCS writes its
// absent one so.
func samePB(a, b *Piggyback) bool {
	if a == nil || b == nil {
		return a == b
	}
	x, y := *a, *b
	if len(x.F) == 0 && len(y.F) == 0 {
		x.F, y.F = nil, nil
	}
	return reflect.DeepEqual(x, y)
}

// pbString shows a piggyback with its CIC, which %+v prints as a pointer.
func pbString(pb *Piggyback) string {
	if pb == nil {
		return "<nil>"
	}
	if pb.CIC == nil {
		return fmt.Sprintf("%+v", *pb)
	}
	return fmt.Sprintf("%+v CIC %+v", *pb, *pb.CIC)
}

// TestPiggybackBytes: the compact size of every shape.
func TestPiggybackBytes(t *testing.T) {
	run := protocolRun()
	ms := NewPiggyback()
	ms.Sn, ms.F = 3, []FEntry{{P: 1, Count: 1}}
	textbook := NewPiggyback()
	textbook.Sn, textbook.Inc, textbook.RecLine = 1, 2, 3
	pk := NewPiggyback()
	pk.VT = VT{{0, 1}, {1, 2}, {0, 0}}
	wide := NewPiggyback()
	wide.CIC = &CIC{LC: 5, Ckpt: make([]int32, 9), Taken: make([]bool, 9), Greater: make([]bool, 9)}
	for _, c := range []struct {
		name string
		pb   *Piggyback
		want int64
	}{
		{"nil", nil, 0},
		{"empty", &Piggyback{Sn: None, Inc: None, RecLine: None}, 0},
		{"bcs: sn", run.PB(&run.Events[0]), 4},
		{"fdas: 3 entries of dv", run.PB(&run.Events[1]), 12},
		{"hmnr: lc, 3 ckpt, 6 flags in one byte", run.PB(&run.Events[2]), 4 + 12 + 1},
		{"hmnr: 18 flags in three bytes", &wide, 4 + 36 + 3},
		{"ms: sn and one f entry", &ms, 12},
		{"textbook: three numbers", &textbook, 12},
		{"pk: three vt pairs", &pk, 24},
	} {
		if got := c.pb.Bytes(); got != c.want {
			t.Errorf("%s: %d bytes, want %d", c.name, got, c.want)
		}
	}
}

// TestCICSlab: vectors from a slab are zeroed, sized exactly (an append
// cannot run into the next one) and distinct; a CIC's lc starts absent.
func TestCICSlab(t *testing.T) {
	var s CICSlab
	a, b := s.Ints(3), s.Ints(3)
	a[0], b[0] = 7, 8
	if cap(a) != 3 || a[0] != 7 || b[0] != 8 || a[1] != 0 {
		t.Errorf("ints %v %v (cap %d)", a, b, cap(a))
	}
	if a4 := append(a, 9); b[0] != 8 || len(a4) != 4 {
		t.Error("an append to one vector wrote into the next")
	}
	f, g := s.Bools(2), s.Bools(2)
	f[1] = true
	if g[1] || cap(f) != 2 {
		t.Errorf("bools %v %v", f, g)
	}
	c, d := s.CIC(), s.CIC()
	if c == d || c.LC != None || c.DV != nil {
		t.Errorf("CICs %+v %+v", c, d)
	}
	big := s.Ints(5000)
	if len(big) != 5000 {
		t.Errorf("a vector longer than a chunk: %d", len(big))
	}
	for i := 0; i < 3000; i++ {
		s.CIC().LC = int32(i)
	}
}
