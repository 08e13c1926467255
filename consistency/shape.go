package consistency

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// pbField is one field a piggyback may carry (docs/formats.md).
type pbField uint16

const (
	pbSn pbField = 1 << iota
	pbInc
	pbRecLine
	pbF
	pbVT
	pbLC
	pbDV
	pbCkpt
	pbTaken
	pbGreater
)

var pbFieldNames = []string{"sn", "inc", "rec_line", "f", "vt", "lc", "dv", "ckpt", "taken", "greater"}

// String lists the fields of a set in the format's order.
func (s pbField) String() string {
	var out []string
	for i, n := range pbFieldNames {
		if s&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return "none"
	}
	return "{" + strings.Join(out, ", ") + "}"
}

// shape is what an algorithm's runs carry (known, promises.go): the
// piggyback fields it must and may send, the control messages it
// exchanges, the types of the checkpoints it takes, the reasons for
// which it skips a timer tick, and whether it logs messages.
type shape struct {
	must, may pbField
	controls  []trace.Control
	ckpts     []trace.CkptType
	skips     []trace.Reason
	logs      bool
}

// fieldsOf returns the fields pb carries.
func fieldsOf(pb *trace.Piggyback) pbField {
	c := pb.CIC
	if c == nil {
		c = &trace.CIC{LC: trace.None}
	}
	var s pbField
	for i, has := range [...]bool{pb.Sn != trace.None, pb.Inc != trace.None, pb.RecLine != trace.None, len(pb.F) > 0, pb.VT != nil,
		c.LC != trace.None, c.DV != nil, c.Ckpt != nil, c.Taken != nil, c.Greater != nil} {
		if has {
			s |= 1 << i
		}
	}
	return s
}

// shaped judges, as each event is added, that a run carries what the
// algorithm it names sends: its piggyback fields and its control
// messages (log-replay-rules). The specs rebuild each algorithm's state
// from its own fields and pass over others, so a run of one algorithm
// relabelled as another (default MS as ms-textbook, MS as bcs) would
// otherwise be judged on almost nothing and pass. A send without a
// piggyback is not judged here (a foreign run may omit it). It reads a
// piggyback only while its send is added: a producer may drop vectors
// after.
func (s *runSpec) shaped(seq int32, e *trace.RunEvent) {
	if s.m.Alg == history.Foreign || int(s.m.Alg) >= len(known) {
		return
	}
	switch sh := known[s.m.Alg].shape; e.Kind {
	case trace.Send:
		if pb := s.m.Run.PB(e); pb != nil {
			pbShape(s.m, s.res, sh, seq, e, pb)
		}
	case trace.ControlSend:
		controlShape(s.m, s.res, sh, seq, e)
	case trace.Checkpoint:
		if !slices.Contains(sh.ckpts, e.CkptType) {
			notWritten(s.m, s.res, seq, e, fmt.Sprintf("%s checkpoint", e.CkptType), "takes only checkpoints of type "+names(sh.ckpts, ""))
		}
	case trace.CheckpointSkipped:
		if !slices.Contains(sh.skips, e.Reason) {
			notWritten(s.m, s.res, seq, e, fmt.Sprintf("skipped tick (reason %s)", cmp.Or(e.Reason.String(), "none")), "skips a tick only for reason "+names(sh.skips, "none"))
		}
	case trace.Log:
		if !sh.logs {
			notWritten(s.m, s.res, seq, e, "log event", "logs no message")
		}
	}
}

// notWritten fails event seq, which is nothing the run's algorithm
// writes: its specs would pass over it, judging the run on less than it
// claims (a tick skipped by a protocol that never skips one drops a
// checkpoint from the pattern its promises are judged on).
func notWritten(m *history.Model, r *result, seq int32, e *trace.RunEvent, what, rule string) {
	r.fail([]int32{seq}, func() (string, string) {
		return fmt.Sprintf("%s's %s at seq %d cannot be in a run of %s", m.ProcName(e.P), what, seq, algName(m)),
			fmt.Sprintf("%s %s (docs/formats.md), so the run is not one of %[1]s's", algName(m), rule)
	})
}

// names lists a set's names, the zero value's as none, joined by "or".
func names[T interface{ String() string }](set []T, none string) string {
	out := make([]string, len(set))
	for i, x := range set {
		out[i] = cmp.Or(x.String(), none)
	}
	return strings.Join(out, " or ")
}

// pbShape judges one send's piggyback against the algorithm's shape.
func pbShape(m *history.Model, r *result, sh shape, seq int32, e *trace.RunEvent, pb *trace.Piggyback) {
	got := fieldsOf(pb)
	if got == 0 || (got&^sh.may == 0 && got&sh.must == sh.must) {
		return
	}
	r.fail([]int32{seq}, func() (string, string) {
		return fmt.Sprintf("%s's send of %s at seq %d piggybacks %s, not what %s sends", m.ProcName(e.P), m.MsgName(e.Msg), seq, got, algName(m)),
			fmt.Sprintf("%s piggybacks %s on every message (docs/formats.md), and the checker rebuilds its state from those fields only, but this send carries %s", algName(m), sh.must|sh.may, got)
	})
}

// controlShape judges one control message's kind against the
// algorithm's.
func controlShape(m *history.Model, r *result, sh shape, seq int32, e *trace.RunEvent) {
	if slices.Contains(sh.controls, e.Control) {
		return
	}
	want := "no control messages"
	if len(sh.controls) > 0 {
		names := make([]string, len(sh.controls))
		for i, c := range sh.controls {
			names[i] = c.String()
		}
		want = "control messages " + strings.Join(names, ", ") + " only"
	}
	r.fail([]int32{seq}, func() (string, string) {
		return fmt.Sprintf("%s sends a %s control message at seq %d, which %s does not send", m.ProcName(e.P), e.Control, seq, algName(m)),
			fmt.Sprintf("%s sends %s (docs/formats.md), so the run is not one of %s's", algName(m), want, algName(m))
	})
}
