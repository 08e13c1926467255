package zgraph

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/ckpt-dev/ckpt/rline"
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen/gentest"
)

// oracle decides RDT by brute force over all Z-paths and causal paths,
// following the definitions literally: a Z-path from C(a,i) to C(b,j) is
// a message sequence whose first message a sends in interval ≥ i, whose
// last b receives in interval < j, and where each next message is sent by
// the previous one's receiver in the interval of that receipt or later; a
// causal path is the same with each next message sent after the receipt.
// As in CheckRDT, each process's final state is a checkpoint too.
type oracle struct {
	counts         []int32
	msgs           []rline.Msg
	sIv, rIv       []int32
	zreach, creach [][]bool // per first message: messages on some path from it
}

func bruteForce(ckpts [][]int32, msgs []rline.Msg) *oracle {
	o := &oracle{msgs: msgs, sIv: make([]int32, len(msgs)), rIv: make([]int32, len(msgs))}
	interval := func(p, op int32) int32 {
		x := int32(0)
		for _, pos := range ckpts[p][1:] {
			if pos <= op {
				x++
			}
		}
		return x
	}
	// The final state is one more checkpoint, after every op.
	for p := range ckpts {
		o.counts = append(o.counts, int32(len(ckpts[p])+1))
	}
	for i, m := range msgs {
		o.sIv[i], o.rIv[i] = interval(m.From, m.SendOp), interval(m.To, m.RecvOp)
	}
	zsucc := func(i, j int) bool { return msgs[j].From == msgs[i].To && o.sIv[j] >= o.rIv[i] }
	csucc := func(i, j int) bool { return msgs[j].From == msgs[i].To && msgs[j].SendOp > msgs[i].RecvOp }
	for i := range msgs {
		o.zreach = append(o.zreach, closure(len(msgs), i, zsucc))
		o.creach = append(o.creach, closure(len(msgs), i, csucc))
	}
	return o
}

func closure(n, from int, succ func(i, j int) bool) []bool {
	seen := make([]bool, n)
	seen[from] = true
	queue := []int{from}
	for len(queue) > 0 {
		i := queue[0]
		queue = queue[1:]
		for j := 0; j < n; j++ {
			if !seen[j] && succ(i, j) {
				seen[j] = true
				queue = append(queue, j)
			}
		}
	}
	return seen
}

func (o *oracle) path(reach [][]bool, from, to Checkpoint) bool {
	for m, mm := range o.msgs {
		if mm.From != from.P || o.sIv[m] < from.X {
			continue
		}
		for k, ok := range reach[m] {
			if ok && o.msgs[k].To == to.P && o.rIv[k] < to.X {
				return true
			}
		}
	}
	return false
}

func (o *oracle) zpath(from, to Checkpoint) bool { return o.path(o.zreach, from, to) }

func (o *oracle) cpath(from, to Checkpoint) bool {
	return from.P == to.P && from.X < to.X || o.path(o.creach, from, to)
}

// rdt reports whether every Z-path between checkpoints is doubled.
func (o *oracle) rdt() bool {
	for a := range o.counts {
		for i := int32(0); i < o.counts[a]; i++ {
			for b := range o.counts {
				for j := int32(0); j < o.counts[b]; j++ {
					from, to := Checkpoint{int32(a), i}, Checkpoint{int32(b), j}
					if o.zpath(from, to) && !o.cpath(from, to) {
						return false
					}
				}
			}
		}
	}
	return true
}

// fromTrace is the failure-free pattern of a trace: its ticks are the
// checkpoints, its received messages the messages, in file order (which
// is causal). Fail events are ignored.
func fromTrace(tr *trace.Trace) ([][]int32, []rline.Msg) {
	n := len(tr.Processes)
	ckpts := make([][]int32, n)
	for p := range ckpts {
		ckpts[p] = []int32{0}
	}
	ops := make([]int32, n)
	sendOp := make([]int32, len(tr.Msgs))
	var msgs []rline.Msg
	for i := range tr.Events {
		e := &tr.Events[i]
		switch e.Kind {
		case trace.Checkpoint:
			ckpts[e.P] = append(ckpts[e.P], ops[e.P])
		case trace.Send:
			sendOp[e.Msg] = ops[e.P]
		case trace.Recv:
			s := &tr.Events[tr.Messages[e.Msg].Send]
			msgs = append(msgs, rline.Msg{From: s.P, SendOp: sendOp[e.Msg], To: e.P, RecvOp: ops[e.P]})
		}
		if e.Kind.IsOp() {
			ops[e.P]++
		}
	}
	return ckpts, msgs
}

// TestCheckAgreesWithBruteForce: on random patterns the verdict is the
// oracle's, every reported violation is a Z-path the oracle finds and
// cannot double, and a useless checkpoint (zgraph) always breaks RDT.
func TestCheckAgreesWithBruteForce(t *testing.T) {
	var holds, breaks int
	rapid.Check(t, func(t *rapid.T) {
		// At least 20–80 ops in the generated half: non-trackable
		// dependencies are common there.
		ckpts, msgs := fromTrace(gentest.Mixed(20, 80).Draw(t, "trace"))
		got, err := CheckRDT(ckpts, msgs)
		if err != nil {
			t.Fatal(err)
		}
		o := bruteForce(ckpts, msgs)
		if want := o.rdt(); want != (len(got) == 0) {
			t.Fatalf("oracle RDT = %v, checker reports %v", want, got)
		}
		for _, v := range got {
			if !o.zpath(v.From, v.To) || o.cpath(v.From, v.To) {
				t.Fatalf("violation %v: oracle Z-path %v, causal path %v", v, o.zpath(v.From, v.To), o.cpath(v.From, v.To))
			}
			if mm := msgs[v.M2]; mm.From != msgs[v.M1].To || mm.To != v.To.P {
				t.Fatalf("violation %v does not name a CM-path", v)
			}
		}
		g, err := New(ckpts, msgs)
		if err != nil {
			t.Fatal(err)
		}
		if g.UselessCount() > 0 && len(got) == 0 {
			t.Fatalf("useless checkpoints %v, yet RDT holds", g.UselessList())
		}
		if len(got) == 0 {
			holds++
		} else {
			breaks++
		}
	})
	t.Logf("%d patterns hold RDT, %d break it", holds, breaks)
	if holds == 0 || breaks == 0 {
		t.Fatalf("random patterns never exercised both verdicts: %d hold, %d break", holds, breaks)
	}
}
