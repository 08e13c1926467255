package diagram

import (
	"slices"

	json "github.com/goccy/go-json"

	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/codec"
)

// pageJSON is the data the page's script draws. It goes inside a
// <script> element: go-json escapes <, > and & (so no "</script>" or
// "<!--" can appear) and U+2028/U+2029, and turns invalid UTF-8 into
// U+FFFD.
type pageJSON struct {
	Axis   string       `json:"axis"`
	Kinds  []string     `json:"kinds"`
	Panels []*panelJSON `json:"panels"`
}

// panelJSON is one panel of the page's data: the drawn events as
// columns (process, time, kind, mark class, findings…) and everything
// that connects them, by index into those columns. Their details are
// the events as the run file writes them (Events, one line each). The browser lays the
// events out itself (it can hide lanes, collapse local events and switch
// the axis), so the data holds times and dependencies, not positions.
// Rows of connections (arrows, intervals, jumps) are flattened into one
// array of integers each.
type panelJSON struct {
	ID        string          `json:"id"`
	Algorithm string          `json:"algorithm"`
	Title     string          `json:"title"`
	Summary   string          `json:"summary"`
	N         int             `json:"n"`
	Procs     []string        `json:"procs"`
	Init      []bool          `json:"init"`
	Seq       []int32         `json:"seq"`
	P         []int32         `json:"p"`
	T         json.RawMessage `json:"t"` // times in seconds, exactly (trace.Time)
	K         []int32         `json:"k"`
	C         []int32         `json:"c"`
	Sn        []int32         `json:"sn"`
	M         []int32         `json:"m"`
	Cls       []string        `json:"cls"`
	Dep       []int32         `json:"dep"`
	Msgs      []string        `json:"msgs"`
	// F is what the diagram worked out about each event
	// (describeFindings), mostly "".
	F      []string   `json:"f"`
	Diff   []int32    `json:"diff"`
	Styles []string   `json:"styles"`
	Ar     []int32    `json:"ar"`
	Lost   []int32    `json:"lost"`
	Ctl    []int32    `json:"ctl"`
	Ctlc   []string   `json:"ctlc"`
	Down   []int32    `json:"down"`
	Held   []int32    `json:"held"`
	Jumps  []int32    `json:"jumps"`
	Jt     []string   `json:"jt"`
	Lines  []lineJSON `json:"lines"`
	Viol   []violJSON `json:"viol"`
	// Stats and Recoveries are the report's (Stats nil: not checked),
	// for the comparison of two runs.
	Valid      bool              `json:"valid"`
	Stats      *report.Stats     `json:"stats"`
	Recoveries []report.Recovery `json:"recoveries"`
	// Gaps are (before, omitted, t0, t1) per left-out stretch.
	Gaps []any `json:"gaps"`
	// Window and Properties are for the page's heading only.
	Window     string            `json:"-"`
	Properties []report.Property `json:"-"`
	// Events are the drawn events' run-format lines, for an element of
	// their own (eventsHTML): inside a JSON string each quote would be
	// escaped, nearly doubling the page.
	Events []byte `json:"-"`
}

type lineJSON struct {
	Fail int32   `json:"fail"`
	Pts  []int32 `json:"pts"` // (p, ev, kept) per point
	D    string  `json:"d"`
}

// violJSON is one violation: its drawn witnesses (Ev) and how many
// a windowed diagram does not draw (Missing).
type violJSON struct {
	Prop    string  `json:"prop"`
	Msg     string  `json:"msg"`
	Because string  `json:"because"`
	Ev      []int32 `json:"ev"`
	Missing int     `json:"missing"`
}

// pageData returns one panel's data, named in deep links (#pk:seq=N) by
// its algorithm (two panels compare two algorithms). Every slice is
// non-nil: the script reads an empty one as [], never null.
func (m *model) pageData() *panelJSON {
	run := m.run
	em := fill(m.n, trace.None) // run index -> emitted index
	order := []int32{}
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
	d := &panelJSON{
		ID: run.Algorithm, Algorithm: run.Algorithm, Title: algoName(run.Algorithm), Summary: m.summary(), Window: m.windowNote(),
		N: m.n, Procs: run.Processes, Init: m.implicit, Msgs: append([]string{}, run.Msgs...), Styles: arrowStyles,
	}
	if m.rep != nil {
		d.Valid, d.Stats, d.Recoveries, d.Properties = m.rep.Valid, &m.rep.Stats, m.rep.Recoveries, m.rep.Properties
	}
	m.eventColumns(d, order, ref)
	m.connections(d, ref)
	return d
}

// eventColumns fills the per-event columns and Events.
func (m *model) eventColumns(d *panelJSON, order []int32, ref func(int32) int32) {
	ev := m.run.Events
	n := len(order)
	d.Seq, d.P, d.K, d.C, d.Sn, d.M = order, make([]int32, n), make([]int32, n), make([]int32, n), make([]int32, n), make([]int32, n)
	d.Dep, d.F, d.Diff, d.Cls = make([]int32, n), make([]string, n), []int32{}, []string{}
	d.Events = make([]byte, 0, 160*n) // a line is about 100 bytes: grown once or never
	classes := map[string]int32{}
	d.T = append(d.T, '[')
	for k, i := range order {
		e := &ev[i]
		if k > 0 {
			d.T = append(d.T, ',')
		}
		d.T = e.T.AppendJSON(d.T)
		d.P[k], d.K[k], d.Sn[k], d.M[k], d.Dep[k] = e.P, int32(e.Kind), trace.None, trace.None, ref(m.dep[i])
		if e.Kind == trace.Checkpoint {
			d.Sn[k] = e.Sn
		}
		if e.Msg >= 0 && int(e.Msg) < len(m.run.Msgs) && e.Kind != trace.End {
			d.M[k] = e.Msg
		}
		c := m.markClass(i)
		ci, ok := classes[c]
		if !ok {
			ci = int32(len(d.Cls))
			classes[c] = ci
			d.Cls = append(d.Cls, c)
		}
		d.C[k] = ci
		d.Events = append(codec.AppendRunEvent(d.Events, m.run, int(i)), '\n')
		d.F[k] = string(m.describeFindings(nil, i))
		if _, ok := m.notes[i]; ok {
			d.Diff = append(d.Diff, int32(k))
		}
	}
	d.T = append(d.T, ']')
}

// connections fills arrows, intervals, jumps, recovery lines,
// violations and left-out stretches.
func (m *model) connections(d *panelJSON, ref func(int32) int32) {
	ev := m.run.Events
	arrowRow := func(row []int32, a arrow) []int32 {
		return append(row, ref(a.from), ref(a.to), int32(slices.Index(arrowStyles, a.style)), b2i(a.undone), a.msg)
	}
	d.Ar, d.Lost, d.Ctl, d.Ctlc = []int32{}, []int32{}, []int32{}, []string{}
	for _, a := range m.arrows {
		d.Ar = arrowRow(d.Ar, a)
	}
	for _, a := range m.lost {
		d.Lost = arrowRow(d.Lost, a)
	}
	for _, c := range m.ctl {
		d.Ctl = append(d.Ctl, ref(c.from), ref(c.to))
		d.Ctlc = append(d.Ctlc, "ctl ctl-"+ev[c.from].Control.String())
	}
	d.Down, d.Held, d.Jumps, d.Jt = []int32{}, []int32{}, []int32{}, []string{}
	for _, iv := range m.down {
		d.Down = append(d.Down, iv.p, ref(iv.from), ref(iv.to))
	}
	for _, iv := range m.holds {
		d.Held = append(d.Held, iv.p, ref(iv.from), ref(iv.to))
	}
	for _, j := range m.jumps {
		d.Jumps = append(d.Jumps, ref(j.ev), ref(j.ckpt))
		d.Jt = append(d.Jt, string(m.jumpHead(nil, j)))
	}
	m.lineData(d, ref)
}

// lineData fills recovery lines, violations and left-out stretches.
func (m *model) lineData(d *panelJSON, ref func(int32) int32) {
	d.Lines = []lineJSON{}
	for _, l := range m.lines {
		lj := lineJSON{Fail: ref(l.fail), Pts: []int32{}, D: m.lineText(l)}
		for _, pt := range l.points {
			lj.Pts = append(lj.Pts, pt.p, ref(pt.ev), b2i(pt.kept))
		}
		d.Lines = append(d.Lines, lj)
	}
	d.Viol = []violJSON{}
	for v, seqs := range m.violSeqs {
		vo := &m.violOf[v]
		vj := violJSON{Prop: vo.Property, Msg: vo.Message, Because: vo.Because, Ev: make([]int32, len(seqs)), Missing: len(vo.Seqs) - len(seqs)}
		for k, s := range seqs {
			vj.Ev[k] = ref(s)
		}
		d.Viol = append(d.Viol, vj)
	}
	d.Gaps = []any{}
	for _, g := range m.gaps {
		d.Gaps = append(d.Gaps, ref(g.before), g.omitted, g.t0, g.t1)
	}
}

// b2i is the page data's 0 or 1 for false or true.
func b2i(b bool) int32 {
	if b {
		return 1
	}
	return 0
}
