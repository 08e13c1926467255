package pipeline

import (
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/codec"
)

// TestMSHoldsForEachRecovery: a message from the future that is ahead of
// its receiver by two recoveries of one process (SPEC §4.2 case 1) is
// held until both are applied. When the first is applied the receive
// examines it again and holds it anew, naming the second, so the run
// says what the receive waits for at every instant; an engine that held
// on silently left the checker (which ends a hold when the recovery it
// names is applied) judging the delivery late. Found by explore, shrunk.
func TestMSHoldsForEachRecovery(t *testing.T) {
	const doc = `{"format":"ckpt/trace@1","processes":["P0","P1"],"params":{"restart_delay":1,"control_delay":5,"default_delay":1},"events":[
{"t":1,"p":"P0","kind":"checkpoint"},
{"t":2,"p":"P0","kind":"fail"},
{"t":3.1,"p":"P0","kind":"checkpoint"},
{"t":3.2,"p":"P0","kind":"fail","down":1},
{"t":3.2,"p":"P0","kind":"send","to":"P1","msg":"m"},
{"t":3.3,"p":"P1","kind":"recv","msg":"m"}
]}`
	tr, err := codec.ReadTrace("hold.json", strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	for _, variant := range []string{"", "textbook"} {
		var p Pipeline
		out := p.Verify(tr, "hold.json", Options{Algorithms: []string{"ms"}, Variant: variant, KeepRuns: true})
		if r := out[0].Report; !r.Valid {
			t.Fatalf("ms %q: invalid: %+v", variant, r.Properties)
		}
		if variant == "textbook" {
			continue // the textbook variant holds no receive here
		}
		var until []string
		for _, e := range out[0].Run.Events {
			if e.Kind == trace.Hold {
				until = append(until, out[0].Run.Strings[e.Until])
			}
		}
		if want := "rollback(P0,1) rollback(P0,2)"; strings.Join(until, " ") != want {
			t.Fatalf("ms %q: holds until %q, want %q", variant, until, want)
		}
	}
}
