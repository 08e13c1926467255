package consistency

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// pkTokenRing judges that every PK token goes to its sender's successor
// on the ring the header's process order gives (SPEC §2, §5: "forward
// to the successor", index i+1 mod N). Found by an adversarial review: a
// token sent round the ring backwards, or back to its announcer past a
// process it never visited, passed every rule.
func pkTokenRing(m *history.Model, r *result) {
	n := int32(len(m.Procs))
	for i := range m.Run.Events {
		e := &m.Run.Events[i]
		if e.Kind != trace.ControlSend || e.Control != trace.ControlToken || e.P < 0 || e.P >= n {
			continue
		}
		if next := (e.P + 1) % n; e.Peer != next {
			r.fail([]int32{int32(i)}, func() (string, string) {
				return fmt.Sprintf("%s sends a token to %s at seq %d, not to its successor %s", m.ProcName(e.P), m.ProcName(e.Peer), i, m.ProcName(next)),
					fmt.Sprintf("a PK token travels the logical ring of the header's process order, each process forwarding it to the next (index i+1 mod %d), so %s's token goes to %s", n, m.ProcName(e.P), m.ProcName(next))
			})
		}
	}
}
