// Package replaytest holds test helpers shared by the replay engine's and
// the algorithms' tests: a readable dump of a run for golden files, the
// app events of a trace and its run side by side, and the
// SPEC-conformance case harness. Random traces come from trace/gen/gentest.
package replaytest

import (
	"fmt"
	"strings"

	"github.com/ckpt-dev/ckpt/trace"
)

// Dump renders a run one event a line with every present field, the form
// the golden files use until the run codec lands.
func Dump(r *trace.Run) string {
	var b strings.Builder
	fmt.Fprintf(&b, "algorithm=%s processes=%v\n", r.Algorithm, r.Processes)
	for i := range r.Events {
		b.WriteString(DumpEvent(r, &r.Events[i]))
		b.WriteByte('\n')
	}
	return b.String()
}

// DumpEvent renders one event of r as Dump does.
func DumpEvent(r *trace.Run, e *trace.RunEvent) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d t=%s %s %s", e.Seq, e.T, r.Processes[e.P], e.Kind)
	num := func(k string, v int32) {
		if v != trace.None {
			fmt.Fprintf(&b, " %s=%d", k, v)
		}
	}
	if e.Msg != trace.None {
		fmt.Fprintf(&b, " msg=%s", r.Msgs[e.Msg])
	}
	if e.Peer != trace.None {
		fmt.Fprintf(&b, " peer=%s", r.Processes[e.Peer])
	}
	num("op", e.Op)
	if e.Copy != 0 {
		fmt.Fprintf(&b, " copy=%d", e.Copy)
	}
	if e.Resend {
		fmt.Fprintf(&b, " resend of=%d", e.Of)
	}
	if e.Via != trace.ViaNone {
		fmt.Fprintf(&b, " via=%s", e.Via)
	}
	if pb := r.PB(e); pb != nil {
		dumpPB(&b, r, pb)
	}
	num("ckpt", e.Ckpt)
	if e.CkptType != trace.CkptNone {
		fmt.Fprintf(&b, " type=%s", e.CkptType)
	}
	num("restore", e.Restore)
	num("pos", e.Pos)
	num("undone", e.Undone)
	num("sn", e.Sn)
	num("next", e.Next)
	num("inc", e.Inc)
	if e.Reason != trace.ReasonNone {
		fmt.Fprintf(&b, " reason=%s", e.Reason)
	}
	if e.Cause != trace.CauseNone {
		fmt.Fprintf(&b, " cause=%s", e.Cause)
	}
	if e.Control != trace.ControlNone {
		fmt.Fprintf(&b, " control=%s", e.Control)
	}
	if body := r.Body(e); body != nil {
		fmt.Fprintf(&b, " body={origin:%d count:%d r:%d}", body.Origin, body.Count, body.R)
	}
	if e.State != trace.StateNone {
		fmt.Fprintf(&b, " state=%s", e.State)
	}
	if until := r.Until(e); until != "" {
		fmt.Fprintf(&b, " until=%s", until)
	}
	num("failure", e.Failure)
	if label := r.Label(e); label != "" {
		fmt.Fprintf(&b, " label=%q", label)
	}
	return b.String()
}

// dumpPB renders a piggyback as DumpEvent does.
func dumpPB(b *strings.Builder, r *trace.Run, pb *trace.Piggyback) {
	fmt.Fprintf(b, " pb={sn:%d", pb.Sn)
	if pb.Inc != trace.None {
		fmt.Fprintf(b, " inc:%d rec_line:%d", pb.Inc, pb.RecLine)
	}
	if len(pb.F) > 0 {
		b.WriteString(" f:")
		for i, f := range pb.F {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(b, "%s=%d", r.Processes[f.P], f.Count)
		}
	}
	b.WriteByte('}')
}
