// Package consistency is ckpt's independent consistency checker (SPEC §7).
// It reads a run — every action of a recovery algorithm, in time order —
// and, when available, the execution trace it was replayed from, and
// judges every property of §7 as pass, fail, n/a or unknown, with
// witnesses a person can follow.
//
// The checker never imports algorithm code and trusts no algorithm state:
// it rebuilds the live histories (undoing what restarts and rollbacks
// undo), its own happened-before over app events and message copies, the
// MS recoveries and applied sets, and the PK announcements from the run's
// events, piggybacks and control messages alone.
//
// Cost: linear in events + checkpoints + messages, plus one pass over the
// events for every 64 failures (happened-before flags are propagated as
// 64-bit masks, never as per-event vector clocks).
package consistency

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ckpt-dev/ckpt/consistency/baseline"
	"github.com/ckpt-dev/ckpt/consistency/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// Property names, local aliases of report's.
const (
	orphanFreeName      = report.OrphanFree
	noLostName          = report.NoLostMessages
	noDupName           = report.NoDuplicates
	logReplayName       = report.LogReplayRules
	dominoFreeName      = report.DominoFree
	zCycleFreeName      = report.ZCycleFree
	snLinesName         = report.SnLines
	minimalRollbackName = report.MinimalRollback
	equivalenceName     = report.Equivalence
)

// maxWitnesses bounds the violations kept per property: a broken run can
// have millions, and the first few explain the rest.
const maxWitnesses = 20

type algKind uint8

const (
	algForeign algKind = iota
	algMS
	algTextbook
	algPK
)

// checker holds one check's state; every table is indexed by seq, op or
// process, so the passes hash nothing in their loops.
type checker struct {
	run *trace.Run
	src *trace.Trace
	alg algKind

	procs    []procState
	failures []failure
	failIdx  map[int32]int32 // fail seq → index in failures

	// Per event (indexed by seq).
	pred     []int32 // app op: the live op before it in its process, or None
	sendOf   []int32 // recv/resend: the live send event of its copy, or None
	undoneBy []int32 // app op: the restart/rollback that undid it, or None
	failOf   []int32 // handling event: index of the failure it answers, or None

	// Copies: copy c of msg m is at copyOff[m]+c-1.
	copyOff    []int32
	copySend   []int32         // the send (or resend) event that transmitted it
	copyOrig   []int32         // the op-level send event it carries
	undoneAt   map[int32]int32 // restart/rollback seq → ops it undid
	replayedAt map[int32]int32 // PK restart/rollback seq → receipts it replayed from the log

	msgIndex     map[string]int32
	prog         [][]progOp // programKinds, built on first use
	snapshotUsed int

	handlings []handling

	// Missing fields make the properties that need them unknown.
	opsMissing, copyMissing, snMissing, restoreMissing, ckptIDMissing bool
	// failureMissing: a restart or rollback the checker cannot attribute
	// to a fail event, so per-failure judgements are incomplete.
	failureMissing  bool
	explicitInitial bool

	viol    map[string][]report.Violation
	counts  map[string]int
	unknown map[string]string
	stats   report.Stats

	recoveries []report.Recovery
}

// Check judges run against SPEC §7 and returns its report. src is the
// trace the run was replayed from, or nil: equivalence is then unknown and
// the baseline empty. Check never panics on a malformed run: what it
// cannot judge is reported unknown, what contradicts itself fails.
func Check(run *trace.Run, src *trace.Trace) report.Report {
	c := &checker{run: run, src: src,
		viol: map[string][]report.Violation{}, counts: map[string]int{}, unknown: map[string]string{}}
	switch run.Algorithm {
	case "ms":
		c.alg = algMS
		if run.Options.Variant == "textbook" {
			c.alg = algTextbook
		}
	case "ms-textbook":
		c.alg = algTextbook
	case "pk":
		c.alg = algPK
	}
	c.stats.Checkpoints.Initial = len(run.Processes)
	c.structure()
	if c.explicitInitial {
		c.stats.Checkpoints.Initial = len(run.Processes)
	}
	c.messagesStat()
	if c.failureMissing {
		why := "a restart or rollback names no fail event it answers (no usable `failure` field), so per-failure judgements are incomplete"
		c.setUnknown(orphanFreeName, why)
		c.setUnknown(dominoFreeName, why)
		if c.alg == algPK {
			c.setUnknown(minimalRollbackName, why)
		}
		if c.alg == algMS || c.alg == algTextbook {
			c.setUnknown(logReplayName, why)
		}
	}
	c.orphans()
	c.rules()
	c.final()
	c.recoveryLines()
	return c.assemble()
}

func (c *checker) assemble() report.Report {
	r := report.Report{
		File:       c.run.Name,
		Algorithm:  c.run.Algorithm,
		Recoveries: c.recoveries,
		Stats:      c.stats,
	}
	if r.Recoveries == nil {
		r.Recoveries = []report.Recovery{}
	}
	r.Baseline.Uncoordinated.Line = []report.UncoordinatedFailure{}
	if c.src != nil {
		if b, err := baseline.Uncoordinated(c.src); err == nil {
			c.renumberBaseline(&b)
			r.Baseline.Uncoordinated = b
		}
	}
	r.Valid = true
	for _, name := range report.PropertyNames {
		p := report.Property{Name: name, Violations: c.viol[name]}
		switch {
		case len(p.Violations) > 0:
			p.Status = report.Fail
			r.Valid = false
			if n := c.counts[name]; n > len(p.Violations) {
				p.Note = fmt.Sprintf("%d violations, the first %d shown", n, len(p.Violations))
			}
		case c.unknown[name] != "":
			p.Status = report.Unknown
			p.Note = c.unknown[name]
			if strings.HasPrefix(p.Note, "n/a: ") {
				p.Status = report.NA
				p.Note = strings.TrimPrefix(p.Note, "n/a: ")
			}
		default:
			p.Status = report.Pass
		}
		if p.Violations == nil {
			p.Violations = []report.Violation{}
		}
		r.Properties = append(r.Properties, p)
	}
	return r
}

// renumberBaseline replaces the baseline's trace-event indexes by the
// seqs of the run's fail events, which are the same fails in order.
func (c *checker) renumberBaseline(b *report.Uncoordinated) {
	var fails []int32
	for i := range c.run.Events {
		if c.run.Events[i].Kind == trace.Fail {
			fails = append(fails, int32(i))
		}
	}
	if len(fails) != len(b.Line) {
		return
	}
	for k := range b.Line {
		b.Line[k].Failure.Seq = fails[k]
	}
}

// violate records a witness of a failed property.
func (c *checker) violate(prop, msg string, seqs []int32, because string) {
	c.counts[prop]++
	if len(c.viol[prop]) >= maxWitnesses {
		return
	}
	seqs = dedupe(seqs)
	c.viol[prop] = append(c.viol[prop], report.Violation{Property: prop, Message: msg, Seqs: seqs, Because: because})
}

// anomaly records a run that contradicts its own format.
func (c *checker) anomaly(msg string, seq int32) {
	c.violate(equivalenceName, msg, []int32{seq}, "the run is not well formed: "+msg)
}

// setUnknown marks prop unknown (or n/a with an "n/a: " prefix) unless a
// reason is already recorded. n/a wins over unknown: a property the
// algorithm does not promise stays n/a whatever fields the run omits.
func (c *checker) setUnknown(prop, why string) {
	old := c.unknown[prop]
	if old == "" || (strings.HasPrefix(why, "n/a: ") && !strings.HasPrefix(old, "n/a: ")) {
		c.unknown[prop] = why
	}
}

func (c *checker) proc(p int32) string {
	if p >= 0 && int(p) < len(c.run.Processes) {
		return c.run.Processes[p]
	}
	return fmt.Sprintf("process #%d", p)
}

func (c *checker) msg(m int32) string {
	if m >= 0 && int(m) < len(c.run.Msgs) {
		return c.run.Msgs[m]
	}
	return fmt.Sprintf("message #%d", m)
}

func (c *checker) msgOpt(m int32) string {
	if m == none {
		return ""
	}
	return c.msg(m)
}

// failName describes failure fi for because-chains.
func (c *checker) failName(fi int32) string {
	f := &c.failures[fi]
	return fmt.Sprintf("failure seq %d (%s at t=%s)", f.seq, c.proc(f.p), c.run.Events[f.seq].T)
}

// describe names an event for because-chains: "P0's send of m3 at seq 37".
func (c *checker) describe(s int32) string {
	e := &c.run.Events[s]
	switch e.Kind {
	case trace.Send:
		return fmt.Sprintf("%s's send of %s (op %d) at seq %d", c.proc(e.P), c.msg(e.Msg), e.Op, s)
	case trace.Recv:
		return fmt.Sprintf("%s's receive of %s (op %d) at seq %d", c.proc(e.P), c.msg(e.Msg), e.Op, s)
	default:
		return fmt.Sprintf("%s's %s op %d at seq %d", c.proc(e.P), e.Kind, e.Op, s)
	}
}

func sortHandlings(h []handling) {
	sort.Slice(h, func(i, j int) bool { return h[i].seq < h[j].seq })
}

// messagesStat fills the message and piggyback statistics. Piggyback
// bytes count a compact binary encoding (4 bytes per number, 8 per F or
// VT entry), so algorithms are compared on what they carry, not on JSON
// spelling.
func (c *checker) messagesStat() {
	seen := make([]bool, len(c.run.Msgs))
	for i := range c.run.Events {
		e := &c.run.Events[i]
		if e.Kind != trace.Send {
			continue
		}
		if e.Msg >= 0 && int(e.Msg) < len(seen) && !seen[e.Msg] {
			seen[e.Msg] = true
			c.stats.Messages++
		}
		if pb := c.run.PB(e); pb != nil {
			var n int64
			if pb.Sn != none {
				n += 4
			}
			if pb.Inc != none {
				n += 4
			}
			if pb.RecLine != none {
				n += 4
			}
			n += 8 * int64(len(pb.F))
			n += 8 * int64(len(pb.VT))
			c.stats.PiggybackBytes += n
		}
	}
	for i := range c.run.Events {
		e := &c.run.Events[i]
		if e.Kind == trace.Recv && e.Via == trace.ViaLog {
			c.stats.Replayed++
		}
	}
}

// dedupe drops repeated seqs, keeping first occurrences in order.
func dedupe(seqs []int32) []int32 {
	out := make([]int32, 0, len(seqs))
	for _, s := range seqs {
		if s < 0 {
			continue
		}
		dup := false
		for _, o := range out {
			dup = dup || o == s
		}
		if !dup {
			out = append(out, s)
		}
	}
	return out
}
