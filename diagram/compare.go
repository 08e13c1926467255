package diagram

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// Panel is one run to draw and the checker's report on it (nil: not
// checked). Two panels of runs of one trace (MS and PK) are drawn one
// above the other on a shared x axis, compared.
type Panel struct {
	Run    *trace.Run
	Report *report.Report
}

// opKey names an app op of a trace, the same in every run of it: the
// process, the op's index in its program, its kind and message id.
type opKey struct {
	p, op int32
	kind  trace.Kind
	msg   string
}

// execCounts counts how often each app op ran in m's run (undone or
// not; resends repeat a send and are not counted).
func execCounts(m *model) map[opKey]int {
	c := make(map[opKey]int)
	for i := range m.run.Events {
		if k, ok := m.opOf(int32(i)); ok {
			c[k]++
		}
	}
	return c
}

func (m *model) opOf(i int32) (opKey, bool) {
	e := &m.run.Events[i]
	if !e.Kind.IsOp() || e.Resend || e.Op < 0 {
		return opKey{}, false
	}
	k := opKey{p: e.P, op: e.Op, kind: e.Kind}
	if e.Msg >= 0 {
		k.msg = m.msgName(e.Msg)
	}
	return k, true
}

// diffNotes marks, in each of two runs of one trace, the drawn app ops
// that ran a different number of times in the other: the work one
// algorithm redid (or undid) that the other did not, as ShiViz marks
// the events two executions do not share.
func diffNotes(a, b *model) (map[int32]string, map[int32]string) {
	ca, cb := execCounts(a), execCounts(b)
	na, nb := algoShort(a.run.Algorithm), algoShort(b.run.Algorithm)
	notes := func(m *model, mine, other map[opKey]int, me, them string) map[int32]string {
		out := map[int32]string{}
		for i := range m.run.Events {
			if !m.drawn[i] {
				continue
			}
			k, ok := m.opOf(int32(i))
			if !ok || mine[k] == other[k] {
				continue
			}
			out[int32(i)] = fmt.Sprintf("differs: this op ran %d× under %s, %d× under %s", mine[k], me, other[k], them)
		}
		return out
	}
	return notes(a, ca, cb, na, nb), notes(b, cb, ca, nb, na)
}

func algoShort(a string) string {
	switch {
	case a == "ms-textbook":
		return "MS (textbook)"
	case len(a) >= 2 && a[:2] == "ms":
		return "MS"
	case a == "pk":
		return "PK"
	}
	return a
}

// compareTable is the page's side-by-side summary of two runs: one row
// per figure, one column per run.
type compareTable struct {
	Head []string
	Rows [][]string
	// Failures compares, failure by failure, what each process did.
	Failures []failureCompare
}

type failureCompare struct {
	Title string
	Rows  [][]string
}

func newCompareTable(ms []*model, diffs []int) *compareTable {
	t := &compareTable{Head: []string{""}}
	for _, m := range ms {
		t.Head = append(t.Head, algoShort(m.run.Algorithm))
	}
	row := func(name string, f func(m *model, s *report.Stats) string) {
		r := []string{name}
		for _, m := range ms {
			if m.rep == nil {
				r = append(r, "—")
				continue
			}
			r = append(r, f(m, &m.rep.Stats))
		}
		t.Rows = append(t.Rows, r)
	}
	itoa := strconv.Itoa
	row("verdict", func(m *model, _ *report.Stats) string {
		if m.rep.Valid {
			return "valid"
		}
		return "INVALID (" + plural(len(m.violOf), "violation") + ")"
	})
	row("checkpoints basic / forced / recovery", func(_ *model, s *report.Stats) string {
		c := s.Checkpoints
		return itoa(c.Basic) + " / " + itoa(c.Forced) + " / " + itoa(c.Recovery)
	})
	row("rollbacks", func(_ *model, s *report.Stats) string { return itoa(s.Rollbacks) })
	row("ops undone", func(_ *model, s *report.Stats) string { return itoa(s.Undone) })
	row("logged / replayed", func(_ *model, s *report.Stats) string { return itoa(s.Logged) + " / " + itoa(s.Replayed) })
	row("resent", func(_ *model, s *report.Stats) string { return itoa(s.Resent) })
	row("discarded", func(_ *model, s *report.Stats) string { return itoa(s.Discarded) })
	row("control messages", func(_ *model, s *report.Stats) string { return itoa(s.ControlMessages) })
	row("piggyback bytes", func(_ *model, s *report.Stats) string { return strconv.FormatInt(s.PiggybackBytes, 10) })
	r := []string{"ops run a different number of times (outlined)"}
	for _, d := range diffs {
		r = append(r, itoa(d))
	}
	t.Rows = append(t.Rows, r)
	t.Failures = compareFailures(ms)
	return t
}

// compareFailures lines the runs' recoveries up by failure (the k-th
// fail event of each run is the trace's k-th failure) and says, per
// process, where each algorithm rolled back to and how much it undid.
// The runs replay one trace, so they have the same processes.
func compareFailures(ms []*model) []failureCompare {
	var out []failureCompare
	for k := 0; ; k++ {
		var fc failureCompare
		byP := map[string][]string{}
		for mi, m := range ms {
			if m.rep == nil || k >= len(m.rep.Recoveries) {
				continue
			}
			rc := &m.rep.Recoveries[k]
			if fc.Title == "" {
				fc.Title = fmt.Sprintf("failure %d: %s at t=%ss", k+1, rc.Failure.P, rc.Failure.T)
			}
			for _, l := range rc.Line {
				if byP[l.P] == nil {
					byP[l.P] = slices.Repeat([]string{"—"}, len(ms))
				}
				byP[l.P][mi] = lineWords(&l)
			}
		}
		if fc.Title == "" {
			return out
		}
		for _, p := range ms[0].run.Processes {
			if byP[p] != nil {
				fc.Rows = append(fc.Rows, append([]string{p}, byP[p]...))
			}
		}
		out = append(out, fc)
	}
}

// lineWords says what one process did for one failure.
func lineWords(l *report.LineEntry) string {
	if l.Restore == nil {
		if l.Resent > 0 {
			return fmt.Sprintf("kept its state, resent %d", l.Resent)
		}
		return "kept its state"
	}
	s := fmt.Sprintf("back to ckpt %d, undid %d", *l.Restore, l.Undone)
	if l.Replayed > 0 {
		s += fmt.Sprintf(", replayed %d", l.Replayed)
	}
	if l.Resent > 0 {
		s += fmt.Sprintf(", resent %d", l.Resent)
	}
	if l.Cause != "" && l.Cause != "none" {
		s += " (" + l.Cause + ")"
	}
	return s
}
