package diagram

import (
	"fmt"
	"strings"

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
	na, nb := algoName(a.run.Algorithm), algoName(b.run.Algorithm)
	notes := func(m *model, mine, other map[opKey]int, me, them string) map[int32]string {
		out := map[int32]string{}
		for i := range m.run.Events {
			if k, ok := m.opOf(int32(i)); ok && m.drawn[i] && mine[k] != other[k] {
				out[int32(i)] = fmt.Sprintf("differs: this op ran %d× under %s, %d× under %s", mine[k], me, other[k], them)
			}
		}
		return out
	}
	return notes(a, ca, cb, na, nb), notes(b, cb, ca, nb, na)
}

// algoName is how panel headings, the comparison and the violation
// list name an algorithm.
func algoName(a string) string {
	switch {
	case a == "ms-textbook":
		return "MS (textbook)"
	case strings.HasPrefix(a, "ms"):
		return "MS"
	case a == "pk":
		return "PK"
	}
	return a
}
