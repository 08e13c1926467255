package consistency

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// Discards are judged, not counted (issue 14): a discard's reason and
// failure are rebuilt from the copy's piggyback and the receiver's state
// at that moment. MS discards only stale copies (SPEC §4.2 case 2), each
// for a recovery that makes it stale; PK discards an orphan of an
// announcement the receiver has recorded, or a duplicate of a receipt
// its live history holds (SPEC §5), never a stale copy.

// msDiscard judges an MS discard against the ledger, before the ledger
// steps past it. The textbook variant's state is not fully rebuilt
// (msStateRules says why): only its reason is judged.
func msDiscard(l *msLedger, seq int32, e *trace.RunEvent, r *result) {
	m, p := l.m, e.P
	ci := m.Copies.Index(e.Msg, e.Copy)
	pb := m.PB(ci)
	what := func() string { return discardWhat(m, seq, e) }
	if e.Reason != trace.ReasonNone && e.Reason != trace.ReasonStale {
		r.fail([]int32{seq}, func() (string, string) {
			return what(),
				fmt.Sprintf("MS discards a copy only when it is stale (its send undone by a recovery its sender had not applied); it has no %s discards", e.Reason)
		})
		return
	}
	if ci < 0 || pb == nil || pb.Sn == history.None || l.textbook {
		return
	}
	if l.valid(pb, p) {
		r.fail([]int32{m.Copies.Send[ci], seq}, func() (string, string) {
			return what(),
				fmt.Sprintf("copy %d of %s, sent at seq %d with sn %d and f %s, is valid for the recoveries %s has applied, %s, so MS delivers it",
					e.Copy, m.MsgName(e.Msg), m.Copies.Send[ci], pb.Sn, fString(m, pb.F), m.ProcName(p), fString(m, l.F[p]))
		})
		return
	}
	if e.Failure == history.None {
		return
	}
	if why := msStaleFor(l, p, pb, e.Failure); why != "" {
		r.fail([]int32{m.Copies.Send[ci], seq}, func() (string, string) {
			return what() + fmt.Sprintf(" and names failure seq %d", e.Failure),
				fmt.Sprintf("a stale discard names the failure whose recovery makes the copy stale, but %s; what does: %s", why, l.staleWhy(pb, p))
		})
	}
}

// discardWhat names a discard for a witness (made only for one).
func discardWhat(m *history.Model, seq int32, e *trace.RunEvent) string {
	return fmt.Sprintf("%s discards copy %d of %s at seq %d as %s", m.ProcName(e.P), e.Copy, m.MsgName(e.Msg), seq, e.Reason)
}

// msStaleFor returns why failure seq fs does not make a copy with
// piggyback pb stale at p, or "" if it does: p has applied its recovery
// (o, c, r), the sender had not, and M.sn ≥ r.
func msStaleFor(l *msLedger, p int32, pb *trace.Piggyback, fs int32) string {
	m := l.m
	fi, ok := m.FailureAt(fs)
	if !ok {
		return fmt.Sprintf("the run has no effective fail event at seq %d", fs)
	}
	f := &m.Failures[fi]
	rec := func() string {
		return fmt.Sprintf("recovery (%s, %d, r=%d) of failure seq %d", m.ProcName(f.P), f.Count, f.R, fs)
	}
	switch {
	case f.Count == history.None || f.R == history.None:
		return "" // the recovery is unknown: nothing to compare with
	case fGet(l.F[p], f.P) < f.Count:
		return fmt.Sprintf("%s has not applied %s", m.ProcName(p), rec())
	case fGet(pb.F, f.P) >= f.Count:
		return fmt.Sprintf("the copy's sender had applied %s (its f is %s)", rec(), fString(m, pb.F))
	case pb.Sn < f.R:
		return fmt.Sprintf("the copy's sn %d is below the line of %s, so that recovery left its send live", pb.Sn, rec())
	}
	return ""
}

// pkDiscards judges every PK discard, in one sweep that keeps the latest
// receipt of each message, against the announcements its process had
// recorded by then (history.KnownBefore; none judged once a token came
// without a body).
func pkDiscards(m *history.Model, r *result) {
	if m.Missing.Ops || m.Missing.Copy {
		return
	}
	np := len(m.Procs)
	last := make([]int32, len(m.Run.Msgs))
	for i := range last {
		last[i] = history.None
	}
	for i := range m.Run.Events {
		e := &m.Run.Events[i]
		if e.P < 0 || int(e.P) >= np {
			continue
		}
		switch e.Kind {
		case trace.Recv:
			if e.Msg >= 0 && int(e.Msg) < len(last) {
				last[e.Msg] = int32(i)
			}
		case trace.Discard:
			if n, ok := m.KnownBefore(e.P, int32(i)); ok {
				pkDiscard(m, int32(i), e, n, last, r)
			}
		}
	}
}

// pkDiscard judges one PK discard; n announcements were recorded by its
// process then.
func pkDiscard(m *history.Model, seq int32, e *trace.RunEvent, n int32, last []int32, r *result) {
	p := e.P
	ci := m.Copies.Index(e.Msg, e.Copy)
	what := func() string { return discardWhat(m, seq, e) }
	if ci < 0 || m.Copies.Send[ci] == history.None {
		return
	}
	send := m.Copies.Send[ci]
	var vt trace.VT
	if pb := m.PB(ci); pb != nil && len(pb.VT) == len(m.Procs) {
		vt = pb.VT
	}
	switch e.Reason {
	case trace.ReasonStale:
		r.fail([]int32{seq}, func() (string, string) {
			return what(), "PK discards orphans of the announcements it knows and duplicates of its live receipts; it has no stale discards"
		})
	case trace.ReasonOrphan:
		if vt == nil {
			return // PK drops a copy without a vector as an orphan
		}
		if o, _ := m.KnownOrphanAt(p, n, vt); !o {
			r.fail([]int32{send, seq}, func() (string, string) {
				return what(),
					fmt.Sprintf("copy %d of %s, sent at seq %d with vector %s, is no orphan of the %d announcements %s had recorded by seq %d",
						e.Copy, m.MsgName(e.Msg), send, vtString(vt), n, m.ProcName(p), seq)
			})
			return
		}
		if why := pkOrphanOf(m, vt, e.Failure); why != "" {
			r.fail([]int32{send, seq}, func() (string, string) {
				return what() + fmt.Sprintf(" and names failure seq %d", e.Failure),
					fmt.Sprintf("an orphan discard names the failure whose announcement makes the copy an orphan, but %s (the copy's vector is %s)", why, vtString(vt))
			})
		}
	case trace.ReasonDuplicate:
		if why := pkDuplicate(m, seq, e, last); why != "" {
			r.fail([]int32{send, seq}, func() (string, string) {
				return what(), why
			})
		}
	}
}

// pkOrphanOf returns why failure seq fs's announcement does not make vt
// an orphan, or "" if it does (or fs is absent).
func pkOrphanOf(m *history.Model, vt trace.VT, fs int32) string {
	if fs == history.None {
		return ""
	}
	fi, ok := m.FailureAt(fs)
	switch {
	case !ok:
		return fmt.Sprintf("the run has no effective fail event at seq %d", fs)
	case m.Failures[fi].Ann == nil:
		return fmt.Sprintf("failure seq %d announced nothing", fs)
	}
	a := *m.Failures[fi].Ann
	if o, _ := history.Orphan(vt, []history.Announcement{a}); !o {
		return fmt.Sprintf("its announcement (%s, inc %d, k %d) does not make it one", m.ProcName(a.Origin), a.Inc, a.K)
	}
	return ""
}

// pkDuplicate returns why a duplicate discard is none, or "": the
// receiver's live history must hold a receipt of the message, and a
// duplicate answers no failure. The sender incarnations of the two are
// not compared: a live receipt from an incarnation a failure ended is an
// orphan, which orphan-free reports.
func pkDuplicate(m *history.Model, seq int32, e *trace.RunEvent, last []int32) string {
	if e.Failure != history.None {
		return fmt.Sprintf("it names failure seq %d, but a duplicate is discarded for the receipt it repeats, not for a failure", e.Failure)
	}
	if e.Msg < 0 || int(e.Msg) >= len(last) {
		return ""
	}
	rv := last[e.Msg]
	if rv == history.None || m.Event(rv).P != e.P || (m.UndoneBy[rv] != history.None && m.UndoneBy[rv] < seq) {
		return fmt.Sprintf("%s's live history holds no receipt of %s at seq %d, so the copy is no duplicate", m.ProcName(e.P), m.MsgName(e.Msg), seq)
	}
	return ""
}
