package explore

import (
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/tracetest"
)

// TestLabelsCarried: a trace's labels are indexes into its Labels
// table, so every trace explore derives must take the table along. The
// schedule trace of an injected failure keeps the source's labels and
// labels the injected fail; its clone (the witness's) keeps both.
func TestLabelsCarried(t *testing.T) {
	tr, err := tracetest.NewBuilder("P0", "P1").
		Send(0.1, "P0", "P1", "m").Label("request").
		Recv(0.2, "P1", "m").Label("handle").
		Checkpoint(0.3, "P1").Label("tick").
		Internal(0.4, "P0").Label("work").
		Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, strip := range []bool{false, true} {
		b := newBase(prepared(t, tr, strip), nil)
		var buf traceBuf
		got := b.build([]int32{0}, &buf, true)
		var labels []string
		for i := range got.Events {
			labels = append(labels, got.Label(&got.Events[i]))
		}
		joined := strings.Join(labels, "|")
		for _, want := range []string{"request", "handle", "tick", "work", "explore: injected"} {
			if !strings.Contains(joined, want) {
				t.Errorf("strip=%v: labels %q lack %q", strip, labels, want)
			}
		}
		var other traceBuf // another witness's: the base's label table is shared by both
		b.build([]int32{int32(len(b.points) - 1)}, &other, true)
		for i := range got.Events {
			if l := got.Label(&got.Events[i]); l != labels[i] {
				t.Errorf("strip=%v: event %d's label became %q (was %q) when another witness was built", strip, i, l, labels[i])
			}
		}
	}
}
