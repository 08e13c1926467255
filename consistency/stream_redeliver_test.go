package consistency_test

import (
	"reflect"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/tracetest"

	"github.com/ckpt-dev/ckpt/pipeline"
	"github.com/ckpt-dev/ckpt/trace"
)

// TestStreamAgreesWhenACopyIsDeliveredAgain: a copy delivered
// early, logged and replayed by a restart, then put back in the mailbox
// by a rollback and delivered again after the last recovery.
// The restart's replay rule reads its vector after the fact, which the
// spec must have kept: verify's report must still be the one replay +
// check gives (log-replay-rules pass, not unknown).
//
// P3's failure first makes every process know an announcement. P1 takes y
// (which depends on P2's unlogged receipt of z) and m, logs both, fails
// and replays both at its restart. P2 then fails losing y's send: its
// token rolls P1 back before y, m's copy 1 goes back to the mailbox and
// is taken again after the last token has come home.
func TestStreamAgreesWhenACopyIsDeliveredAgain(t *testing.T) {
	tr, err := tracetest.NewBuilder("P0", "P1", "P2", "P3").
		Params(trace.Params{RestartDelay: trace.Second / 2, ControlDelay: trace.Second / 10}).
		Fail(0.1, "P3").
		Send(1.0, "P0", "P2", "z").
		Recv(1.2, "P2", "z").
		Send(1.3, "P2", "P1", "y").
		Send(1.4, "P0", "P1", "m").
		Recv(1.6, "P1", "y").
		Recv(1.7, "P1", "m").
		Flush(1.8, "P1").
		Fail(2.0, "P1").
		Fail(3.0, "P2").
		Build()
	if err != nil {
		t.Fatal(err)
	}
	run := replayed(t, "pk", tr)
	want := pipeline.Report(run, tr)
	got, _ := streamed(t, "pk", tr)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("judged as it streamed:\n%s\nchecking the finished run:\n%s", dumpReport(got), dumpReport(want))
	}
}
