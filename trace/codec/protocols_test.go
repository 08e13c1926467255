package codec

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/trace"
)

// protocolRun is a run with the shapes the checkpoint-placement
// protocols write (docs/formats.md): a BCS, an FDAS and an HMNR
// piggyback, coordinated checkpointing's control kinds, a block and the
// reasons of its skipped ticks.
func protocolRun() *trace.Run {
	run := &trace.Run{Algorithm: "x", Processes: []string{"P0", "P1", "P2"}, Msgs: []string{"m1", "m2", "m3"}}
	send := func(msg int32, pb trace.Piggyback) {
		e := trace.NewRunEvent(trace.Send, 0, 0)
		e.Msg, e.Peer, e.Op, e.Copy, e.PB = msg, 1, msg, 1, run.AddPB(&pb)
		run.Events = append(run.Events, e)
	}
	bcs := trace.NewPiggyback()
	bcs.Sn = 2
	send(0, bcs)
	fdas := trace.NewPiggyback()
	fdas.CIC = &trace.CIC{LC: trace.None, DV: []int32{3, 0, 1}}
	send(1, fdas)
	hmnr := trace.NewPiggyback()
	hmnr.CIC = &trace.CIC{LC: 0, Ckpt: []int32{1, 0, 2}, Taken: []bool{false, true, true}, Greater: []bool{true, false, true}}
	send(2, hmnr)
	for _, c := range []trace.Control{trace.ControlRequest, trace.ControlAck, trace.ControlCommit} {
		e := trace.NewRunEvent(trace.ControlSend, trace.Second, 0)
		e.Peer, e.Control = 1, c
		run.Events = append(run.Events, e)
	}
	b := trace.NewRunEvent(trace.Block, trace.Second, 1)
	b.Until = run.AddString("commit")
	run.Events = append(run.Events, b)
	for _, r := range []trace.Reason{trace.ReasonNotInitiator, trace.ReasonInRound} {
		e := trace.NewRunEvent(trace.CheckpointSkipped, 2*trace.Second, 2)
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

// samePB compares piggybacks, an empty f equal to a nil one: "f": {}
// decodes to an empty vector (docs/formats.md), and BCS writes its
// absent one so.
func samePB(a, b *trace.Piggyback) bool {
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
func pbString(pb *trace.Piggyback) string {
	if pb == nil {
		return "<nil>"
	}
	if pb.CIC == nil {
		return fmt.Sprintf("%+v", *pb)
	}
	return fmt.Sprintf("%+v CIC %+v", *pb, *pb.CIC)
}
