package protocoltest

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/consistency/zgraph"
	"github.com/ckpt-dev/ckpt/rline"
	"github.com/ckpt-dev/ckpt/trace"
)

// Pattern is the checkpoint and communication pattern of a failure-free
// run: per process the positions, types and numbers of its checkpoints
// after the initial one, and the received messages with their ops.
type Pattern struct {
	Ckpts [][]int32
	Types [][]trace.CkptType
	// Sn[p][x] is the number (sn) of checkpoint x of p, 0 for the
	// initial one, None where the run records none.
	Sn   [][]int32
	Msgs []rline.Msg
}

// PatternOf extracts the pattern of run, which must have no restart or
// rollback: the protocols under test place checkpoints failure-free.
func PatternOf(run *trace.Run) (*Pattern, error) {
	n := len(run.Processes)
	pt := &Pattern{Ckpts: make([][]int32, n), Types: make([][]trace.CkptType, n), Sn: make([][]int32, n)}
	for p := range pt.Sn {
		pt.Sn[p] = []int32{0}
	}
	sendOp := map[[2]int32][2]int32{} // (msg, copy) → (sender, op)
	for i := range run.Events {
		e := &run.Events[i]
		switch e.Kind {
		case trace.Restart, trace.Rollback:
			return nil, fmt.Errorf("event %d: %s in a run of a failure-free protocol", e.Seq, e.Kind)
		case trace.Checkpoint:
			pt.Ckpts[e.P] = append(pt.Ckpts[e.P], e.Pos)
			pt.Types[e.P] = append(pt.Types[e.P], e.CkptType)
			pt.Sn[e.P] = append(pt.Sn[e.P], e.Sn)
		case trace.Send:
			sendOp[[2]int32{e.Msg, e.Copy}] = [2]int32{e.P, e.Op}
		case trace.Recv:
			s, ok := sendOp[[2]int32{e.Msg, e.Copy}]
			if !ok {
				return nil, fmt.Errorf("event %d: receipt of a copy never sent", e.Seq)
			}
			pt.Msgs = append(pt.Msgs, rline.Msg{From: s[0], SendOp: s[1], To: e.P, RecvOp: e.Op})
		}
	}
	return pt, nil
}

// ZGraph returns the pattern's checkpoint graph (package zgraph).
func (pt *Pattern) ZGraph() (*zgraph.Graph, error) { return zgraph.New(pt.withInitial(), pt.Msgs) }

// withInitial returns the checkpoints' positions with the initial one's,
// as zgraph takes them.
func (pt *Pattern) withInitial() [][]int32 {
	out := make([][]int32, len(pt.Ckpts))
	for p, cs := range pt.Ckpts {
		out[p] = append([]int32{0}, cs...)
	}
	return out
}

// Useless returns the checkpoints on a Z-cycle.
func (pt *Pattern) Useless() ([]zgraph.Checkpoint, error) {
	g, err := pt.ZGraph()
	if err != nil {
		return nil, err
	}
	return g.UselessList(), nil
}

// RDT returns the pattern's RDT violations (zgraph.CheckRDT).
func (pt *Pattern) RDT() ([]zgraph.RDTViolation, error) {
	return zgraph.CheckRDT(pt.withInitial(), pt.Msgs)
}

// SnOrphans returns the messages that make some S_n inconsistent (SPEC
// §4.1's theorem, package zgraph), judged from the checkpoints' numbers.
func (pt *Pattern) SnOrphans() ([]zgraph.SnOrphan, error) {
	g, err := pt.ZGraph()
	if err != nil {
		return nil, err
	}
	return g.SnLines(pt.Sn)
}
