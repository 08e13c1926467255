package diagram

import (
	"github.com/ckpt-dev/ckpt/trace"
)

// pageData writes one panel of the page's data: the drawn events as
// columns (process, time, kind, mark class, details…) and everything
// that connects them, by index into those columns. The browser lays the
// events out itself (it can hide lanes, collapse local events and switch
// the axis), so the data holds times and dependencies, not positions.
func (m *model) pageData(w *jw, id string) {
	run := m.run
	em := fill(m.n, trace.None) // run index -> emitted index
	var order []int32
	for i, d := range m.drawn {
		if d {
			em[i] = int32(len(order))
			order = append(order, int32(i))
		}
	}
	ref := func(i int32) int32 {
		if i < 0 || int(i) >= m.n {
			return trace.None
		}
		return em[i]
	}
	w.open('{')
	w.key("id")
	w.string(id)
	w.key("algorithm")
	w.string(run.Algorithm)
	w.key("title")
	w.string(algoName(run.Algorithm))
	w.key("summary")
	w.string(m.summary())
	w.key("window")
	w.string(m.windowNote())
	w.key("ms")
	w.bool(m.isMS())
	w.key("n")
	w.int(m.n)
	w.strs("procs", run.Processes)
	w.key("init")
	w.open('[')
	for _, e := range m.explicitInitial() {
		w.bool(!e)
	}
	w.close(']')
	m.eventColumns(w, order, ref)
	m.connections(w, ref)
	w.close('}')
}

// eventColumns writes the per-event columns.
func (m *model) eventColumns(w *jw, order []int32, ref func(int32) int32) {
	ev := m.run.Events
	col := func(k string, f func(e *trace.RunEvent, i int32) int32) {
		w.key(k)
		w.open('[')
		for _, i := range order {
			w.int(int(f(&ev[i], i)))
		}
		w.close(']')
	}
	col("seq", func(_ *trace.RunEvent, i int32) int32 { return i })
	col("p", func(e *trace.RunEvent, _ int32) int32 { return e.P })
	w.key("t")
	w.open('[')
	for _, i := range order {
		w.time(ev[i].T)
	}
	w.close(']')
	col("k", func(e *trace.RunEvent, _ int32) int32 { return int32(e.Kind) })
	classes := map[string]int32{}
	var clsTable []string
	col("c", func(_ *trace.RunEvent, i int32) int32 {
		c := m.markClass(i)
		ci, ok := classes[c]
		if !ok {
			ci = int32(len(clsTable))
			classes[c] = ci
			clsTable = append(clsTable, c)
		}
		return ci
	})
	w.strs("cls", clsTable)
	col("sn", func(e *trace.RunEvent, _ int32) int32 {
		if e.Kind == trace.Checkpoint {
			return e.Sn
		}
		return trace.None
	})
	col("m", func(e *trace.RunEvent, _ int32) int32 {
		if e.Msg >= 0 && int(e.Msg) < len(m.run.Msgs) && e.Kind != trace.End {
			return e.Msg
		}
		return trace.None
	})
	col("dep", func(_ *trace.RunEvent, i int32) int32 { return ref(m.dep[i]) })
	w.strs("msgs", m.run.Msgs)
	w.key("d")
	w.open('[')
	var b []byte
	for _, i := range order {
		b = m.describe(b[:0], i)
		w.bytes(b)
	}
	w.close(']')
	var diff []int32
	for _, i := range order {
		if _, ok := m.notes[i]; ok {
			diff = append(diff, ref(i))
		}
	}
	w.ints("diff", diff)
}

// connections writes arrows, intervals, jumps, recovery lines,
// violations, failures and left-out stretches.
func (m *model) connections(w *jw, ref func(int32) int32) {
	ev := m.run.Events
	var row []int32
	// flat writes n rows, each the values f appends to row, as one flat
	// array of integers.
	flat := func(k string, n int, f func(i int, row []int32) []int32) {
		w.key(k)
		w.open('[')
		for i := 0; i < n; i++ {
			row = f(i, row[:0])
			for _, v := range row {
				w.int(int(v))
			}
		}
		w.close(']')
	}
	styles := map[string]int32{}
	for i, s := range arrowStyles {
		styles[s] = int32(i)
	}
	w.strs("styles", arrowStyles)
	arrowRow := func(row []int32, a arrow) []int32 {
		u := int32(0)
		if a.undone {
			u = 1
		}
		return append(row, ref(a.from), ref(a.to), styles[a.style], u, a.msg)
	}
	flat("ar", len(m.arrows), func(i int, row []int32) []int32 { return arrowRow(row, m.arrows[i]) })
	flat("lost", len(m.lost), func(i int, row []int32) []int32 { return arrowRow(row, m.lost[i]) })
	flat("ctl", len(m.ctl), func(i int, row []int32) []int32 { return append(row, ref(m.ctl[i].from), ref(m.ctl[i].to)) })
	w.key("ctlc")
	w.open('[')
	for _, c := range m.ctl {
		w.string("ctl ctl-" + ev[c.from].Control.String())
	}
	w.close(']')
	flat("down", len(m.down), func(i int, row []int32) []int32 { d := m.down[i]; return append(row, d.p, ref(d.from), ref(d.to)) })
	flat("held", len(m.holds), func(i int, row []int32) []int32 { h := m.holds[i]; return append(row, h.p, ref(h.from), ref(h.to)) })
	flat("jumps", len(m.jumps), func(i int, row []int32) []int32 { return append(row, ref(m.jumps[i].ev), ref(m.jumps[i].ckpt)) })
	w.key("jt")
	w.open('[')
	for _, j := range m.jumps {
		w.string(string(m.jumpHead(nil, j)))
	}
	w.close(']')
	m.lineData(w, ref)
	var fails []int32
	for i := range ev {
		if m.drawn[i] && ev[i].Kind == trace.Fail {
			fails = append(fails, ref(int32(i)))
		}
	}
	w.ints("fails", fails)
	m.violationData(w, ref)
	w.key("gaps")
	w.open('[')
	for _, g := range m.gaps {
		w.int(int(ref(g.before)))
		w.int(g.omitted)
		w.time(g.t0)
		w.time(g.t1)
	}
	w.close(']')
}

func (m *model) lineData(w *jw, ref func(int32) int32) {
	w.key("lines")
	w.open('[')
	for _, l := range m.lines {
		w.open('{')
		w.key("fail")
		w.int(int(ref(l.fail)))
		w.key("pts")
		w.open('[')
		for _, pt := range l.points {
			k := 0
			if pt.kept {
				k = 1
			}
			w.int(int(pt.p))
			w.int(int(ref(pt.ev)))
			w.int(k)
		}
		w.close(']')
		w.key("d")
		w.string(m.lineText(l))
		w.close('}')
	}
	w.close(']')
}

func (m *model) violationData(w *jw, ref func(int32) int32) {
	w.key("viol")
	w.open('[')
	for v, seqs := range m.violSeqs {
		w.open('{')
		w.key("prop")
		w.string(m.violOf[v].Property)
		w.key("msg")
		w.string(m.violOf[v].Message)
		idx := make([]int32, len(seqs))
		for k, s := range seqs {
			idx[k] = ref(s)
		}
		w.ints("ev", idx)
		w.close('}')
	}
	w.close(']')
}
