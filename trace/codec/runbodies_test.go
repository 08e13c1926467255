package codec

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/trace"
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

// TestRunBodiesKeepNoText: the decoder recognises a body read before by
// a hash of its text, not by the text: a run whose bodies each carry a
// large field the decoder ignores must not keep that text while it
// decodes (keyed by text, a 2.5 MB gzip file of such a run took 1.1 GB:
// a review's hostile input). Decoding n distinct bodies holds about what
// decoding n copies of one body of the same size holds.
func TestRunBodiesKeepNoText(t *testing.T) {
	const n, pad = 200, 64 << 10
	filler := strings.Repeat("x", pad)
	most := func(distinct bool) (uint64, int) {
		var doc strings.Builder
		doc.WriteString(`{"format":"ckpt/run@1","algorithm":"acme","processes":["P0","P1"]}` + "\n")
		for i := range n {
			k := 0
			if distinct {
				k = i % 10
			}
			fmt.Fprintf(&doc, `{"seq":%d,"t":1,"p":"P0","kind":"control_send","to":"P1","control":"token","body":{"origin":"P0","inc":0,"k":%d,"pad":"%s%05d"}}`+"\n", i, k, filler, map[bool]int{true: i}[distinct])
		}
		var most uint64
		_, err := StreamRun("t.jsonl", strings.NewReader(doc.String()), func(run *trace.Run, upto int) int {
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			most = max(most, ms.HeapAlloc)
			return upto
		})
		if err != nil {
			t.Fatal(err)
		}
		return most, doc.Len()
	}
	same, size := most(false)
	distinct, _ := most(true)
	if distinct > same+uint64(size)/2 {
		t.Fatalf("%d MB live decoding %d distinct bodies, %d MB decoding one body %[2]d times (a %[4]d MB run): the decoder keeps the bodies' text", distinct>>20, n, same>>20, size>>20)
	}
}
