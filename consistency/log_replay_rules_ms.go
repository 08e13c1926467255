package consistency

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// logEntry is one entry of a process's stable message log: the copy it
// holds and the seq of its log event, stored +1 so that the zero value
// means "no entry".
type logEntry struct {
	ci  int32
	seq int32
}

// msLogs is the MS logging and replay rules' view of the run: the
// ledger, every process's log by op, and the first receive that took
// each copy (MS never puts a taken copy back in the mailbox, so meeting
// it again means the replay log offered it).
type msLogs struct {
	*msLedger
	logs     [][]logEntry
	consumed []int32 // per copy: seq+1 of its first receive, 0 if none
}

// msLogReplay judges SPEC §4.2's logging and replay rules: each `log`
// follows the logging rule (valid and M.sn < sn at that moment), each
// network delivery of a valid message with M.sn < sn is logged, each
// `recv via log` takes an entry logged before the latest restore and
// still valid, no entry the replay rule demands is skipped, and no
// stale logged copy is offered again.
func msLogReplay(m *history.Model, r *result) {
	if m.Missing.MSReplay() {
		r.cannotJudge(msFieldsWhy)
		return
	}
	x := &msLogs{msLedger: newMSLedger(m), logs: make([][]logEntry, len(m.Procs)), consumed: make([]int32, m.Copies.Len())}
	x.sweep(func(seq int32, e *trace.RunEvent) {
		switch e.Kind {
		case trace.Log:
			x.log(seq, e, r)
		case trace.Discard:
			x.discard(seq, e, r)
		case trace.Recv:
			x.recv(seq, e, r)
		}
	})
}

// entry returns p's log entry for op k.
func (x *msLogs) entry(p, k int32) (logEntry, bool) {
	if k < 0 || int(k) >= len(x.logs[p]) || x.logs[p][k].seq == 0 {
		return logEntry{}, false
	}
	e := x.logs[p][k]
	e.seq--
	return e, true
}

func (x *msLogs) log(seq int32, e *trace.RunEvent, r *result) {
	m, p := x.m, e.P
	ci := m.Copies.Index(e.Msg, e.Copy)
	if ci < 0 || e.Op < 0 || int(e.Op) > len(m.Run.Events) {
		return
	}
	pb := m.PB(ci)
	x.adoptFrom(p, pb)
	if pb == nil || pb.Sn == history.None {
		r.cannotJudge(fmt.Sprintf("copy %d of %s carries no sn piggyback", e.Copy, m.MsgName(e.Msg)))
		return
	}
	if valid := x.valid(pb, p); !valid || pb.Sn >= x.sn[p] {
		r.fail([]int32{seq, m.Copies.Send[ci]}, func() (string, string) {
			why := fmt.Sprintf("its piggybacked sn %d is not below %s's current checkpoint number %d", pb.Sn, m.ProcName(p), x.sn[p])
			if !valid {
				why = fmt.Sprintf("it is stale: %s", x.staleWhy(pb, p))
			}
			return fmt.Sprintf("%s logs %s at seq %d against the logging rule", m.ProcName(p), m.MsgName(e.Msg), seq),
				fmt.Sprintf("MS logs a message iff it is valid and M.sn < sn; %s logged copy %d of %s (sent at seq %d) at seq %d, but %s",
					m.ProcName(p), e.Copy, m.MsgName(e.Msg), m.Copies.Send[ci], seq, why)
		})
	}
	if old, ok := x.entry(p, e.Op); ok && old.seq < x.lastRestore[p] && old.ci != ci {
		// A new entry for an op whose old entry the replay rule still
		// demands means the replay was skipped.
		if opb := m.PB(old.ci); opb != nil && x.valid(opb, p) {
			r.fail([]int32{old.seq, seq}, func() (string, string) {
				return fmt.Sprintf("%s skips the logged %s at seq %d", m.ProcName(p), m.MsgName(e.Msg), seq),
					fmt.Sprintf("%s logged %s for op %d at seq %d, the entry is still valid after the restore at seq %d, so the replay rule demands it, but op %d took another copy and logged it anew at seq %d",
						m.ProcName(p), m.MsgName(m.Event(old.seq).Msg), e.Op, old.seq, x.lastRestore[p], e.Op, seq)
			})
		}
	}
	for int32(len(x.logs[p])) <= e.Op {
		x.logs[p] = append(x.logs[p], logEntry{})
	}
	x.logs[p][e.Op] = logEntry{ci: ci, seq: seq + 1}
}

// discard judges a discard of a copy the process had already consumed:
// MS never returns such copies to the mailbox, so the replay log offered
// it, and the replay rule offers only entries still valid.
func (x *msLogs) discard(seq int32, e *trace.RunEvent, r *result) {
	m, p := x.m, e.P
	ci := m.Copies.Index(e.Msg, e.Copy)
	if ci < 0 || x.consumed[ci] == 0 {
		return
	}
	first := x.consumed[ci] - 1
	pb := m.PB(ci)
	x.adoptFrom(p, pb)
	if pb != nil && !x.valid(pb, p) {
		r.fail([]int32{first, seq}, func() (string, string) {
			return fmt.Sprintf("%s's replay offers the stale logged %s at seq %d", m.ProcName(p), m.MsgName(e.Msg), seq),
				fmt.Sprintf("%s received copy %d of %s at seq %d; MS puts no undone receipt back in the mailbox, so meeting that copy again at seq %d means the replay log offered it, but the replay rule replays only entries still valid, and this one is stale: %s",
					m.ProcName(p), e.Copy, m.MsgName(e.Msg), first, seq, x.staleWhy(pb, p))
		})
	}
}

func (x *msLogs) recv(seq int32, e *trace.RunEvent, r *result) {
	m, p := x.m, e.P
	ci := m.Copies.Index(e.Msg, e.Copy)
	if ci < 0 || e.Op < 0 {
		return
	}
	if x.consumed[ci] == 0 {
		x.consumed[ci] = seq + 1
	}
	pb := m.PB(ci)
	x.adoptFrom(p, pb)
	if pb == nil || pb.Sn == history.None {
		r.cannotJudge(fmt.Sprintf("copy %d of %s carries no sn piggyback", e.Copy, m.MsgName(e.Msg)))
		return
	}
	ent, has := x.entry(p, e.Op)
	if e.Via == trace.ViaLog {
		x.replay(seq, e, ent, has, pb, r)
		return
	}
	if has && ent.seq < x.lastRestore[p] && m.Event(ent.seq).Msg == e.Msg {
		if epb := m.PB(ent.ci); epb != nil && x.valid(epb, p) {
			r.fail([]int32{ent.seq, seq}, func() (string, string) {
				return fmt.Sprintf("%s skips the logged %s at seq %d", m.ProcName(p), m.MsgName(e.Msg), seq),
					fmt.Sprintf("%s logged %s for op %d at seq %d, the entry is still valid after the restore at seq %d, so the replay rule demands it, but op %d took a copy from the network at seq %d",
						m.ProcName(p), m.MsgName(e.Msg), e.Op, ent.seq, x.lastRestore[p], e.Op, seq)
			})
		}
	}
	if x.valid(pb, p) && pb.Sn < x.sn[p] && (!has || ent.seq < x.lastRestore[p] || ent.ci != ci) {
		r.fail([]int32{m.Copies.Send[ci], seq}, func() (string, string) {
			return fmt.Sprintf("%s delivers %s at seq %d without logging it", m.ProcName(p), m.MsgName(e.Msg), seq),
				fmt.Sprintf("%s was sent at seq %d with sn %d, below %s's current checkpoint number %d when it was delivered at seq %d, so the logging rule demands a log entry first, and there is none",
					m.MsgName(e.Msg), m.Copies.Send[ci], pb.Sn, m.ProcName(p), x.sn[p], seq)
		})
	}
}

// replay judges a receive via the log: it must take an entry logged for
// its op before the latest restore, still valid under the replay rule.
func (x *msLogs) replay(seq int32, e *trace.RunEvent, ent logEntry, has bool, pb *trace.Piggyback, r *result) {
	m, p := x.m, e.P
	switch {
	case !has || ent.seq > x.lastRestore[p] || m.Event(ent.seq).Msg != e.Msg:
		r.fail([]int32{seq}, func() (string, string) {
			return fmt.Sprintf("%s replays %s at seq %d without a log entry", m.ProcName(p), m.MsgName(e.Msg), seq),
				fmt.Sprintf("a receive via log must take an entry %s logged for op %d before its restore at seq %d, and there is none", m.ProcName(p), e.Op, x.lastRestore[p])
		})
	case !x.valid(pb, p):
		r.fail([]int32{seq, ent.seq}, func() (string, string) {
			return fmt.Sprintf("%s replays stale %s at seq %d", m.ProcName(p), m.MsgName(e.Msg), seq),
				fmt.Sprintf("the replay rule replays only entries still valid for the recoveries applied, but the entry of %s logged at seq %d is stale: %s",
					m.MsgName(e.Msg), ent.seq, x.staleWhy(pb, p))
		})
	}
}
