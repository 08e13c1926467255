package consistency

import (
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/trace"
)

// pendingTrace is a generated trace (seed 8, three processes, two
// concurrent failures) whose PK run has P0's token (failure seq 35)
// reach P2 at seq 51 while P2 is down (it failed at seq 49): P2 records
// it, restarts at seq 52 and forwards it at seq 54.
func pendingTrace(t *testing.T) *trace.Trace { return genThree(t, 8, 30, 2, true) }

// TestPendingTokenOfNoFailure: a token a down process records names a
// seq that is no effective fail, and the process forwards it with
// another list after its restart. The hop was once judged against the
// failure at the seq's insertion index in the failures: past the last
// one the checker panicked; else the witness named another failure (P2's
// own, or P0's that the token does not name) as the token's. It is now
// judged, as an up process's hop is, as forwarding another token than it
// received.
func TestPendingTokenOfNoFailure(t *testing.T) {
	src := pendingTrace(t)
	for _, c := range []struct {
		name    string
		failure int32
	}{
		{"past every failure", 50},
		{"between the failures", 40},
		{"none", trace.None},
	} {
		run := replayOf(t, "pk", src)
		recv, fwd := &run.Events[51], &run.Events[54]
		if recv.Kind != trace.ControlRecv || recv.P != 2 || fwd.Kind != trace.ControlSend || fwd.P != 2 || recv.Failure != 35 {
			t.Fatalf("the run no longer has P2 take P0's token at seq 51 while down and forward it at seq 54")
		}
		recv.Failure = c.failure
		b := *run.Body(fwd)
		b.Receipts, b.Received = nil, b.ReceivedList()[1:]
		fwd.Body = run.AddBody(&b)
		if vs := tokenWitnesses(t, run, src, "P2 forwards at seq 54 another token than it received at seq 51"); len(vs) != 1 {
			t.Errorf("%s: %d witnesses of the forward of another token, want 1", c.name, len(vs))
		}
		for _, v := range tokenWitnesses(t, run, src, "token (failure seq") {
			t.Errorf("%s: the hop is judged as another failure's token: %s", c.name, strings.SplitN(v.Message, "\n", 2)[0])
		}
	}
}
