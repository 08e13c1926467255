package codec

import (
	"strings"
	"testing"
)

// TestRunBodiesShared: a control body whose text the decoder has read
// before takes that body's index (a token's body is written at every
// hop), and reads exactly as if decoded again; a body that differs by
// one receipt, or only in its layout, is decoded on its own.
func TestRunBodiesShared(t *testing.T) {
	head := `{"format":"ckpt/run@1","algorithm":"acme","processes":["P0","P1","P2"]}` + "\n"
	ev := func(seq int, p, to, body string) string {
		return `{"seq":` + string(rune('0'+seq)) + `,"t":1,"p":"` + p + `","kind":"control_send","to":"` + to + `","control":"token","body":` + body + "}\n"
	}
	a := `{"origin":"P2","inc":0,"k":3,"received":[["m1",0],["m2",1]]}`
	b := `{"origin":"P2","inc":0,"k":3,"received":[["m1",0],["m3",1]]}`
	a2 := `{"origin":"P2","inc":0,"k":3,"received":[["m1",0], ["m2",1]]}`
	run, err := ReadRun("t.jsonl", strings.NewReader(head+ev(0, "P2", "P0", a)+ev(1, "P0", "P1", a)+ev(2, "P1", "P2", b)+ev(3, "P1", "P2", a2)+ev(4, "P2", "P0", a)))
	if err != nil {
		t.Fatal(err)
	}
	idx := make([]int32, len(run.Events))
	for i := range run.Events {
		idx[i] = run.Events[i].Body
	}
	if idx[0] != idx[1] || idx[0] != idx[4] || idx[2] == idx[0] || idx[3] == idx[0] || idx[3] == idx[2] || len(run.Bodies) != 3 {
		t.Fatalf("body indexes %v over %d bodies, want events 0, 1 and 4 sharing one, 2 and 3 apart", idx, len(run.Bodies))
	}
	got := func(i int) string {
		var s strings.Builder
		for _, id := range run.Body(&run.Events[i]).ReceivedList() {
			s.WriteString(run.Msgs[id.Msg] + ":" + string(rune('0'+id.Inc)) + " ")
		}
		return s.String()
	}
	for i, want := range []string{"m1:0 m2:1 ", "m1:0 m2:1 ", "m1:0 m3:1 ", "m1:0 m2:1 ", "m1:0 m2:1 "} {
		if got(i) != want {
			t.Errorf("event %d received %q, want %q", i, got(i), want)
		}
	}
}
