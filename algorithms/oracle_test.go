package algorithms_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/codec"

	"pgregory.net/rapid"

	"github.com/ckpt-dev/ckpt/pipeline"
	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen"
)

// The brute-force oracles below recompute, from a run alone and by the
// most direct method (a transitive closure of happened-before as bit
// sets, every Z-path by search, every S_n cut), the verdicts the checker
// reaches by its linear passes. They are quadratic or worse and meant for
// the small runs of gentest traces only.

// oracle is the brute-force view of one run.
type oracle struct {
	run *trace.Run
	// unsupported says why the oracle cannot judge the run (an op out
	// of sequence, a checkpoint id going back): such a run is left to
	// the checker's own tests.
	unsupported string
	live        [][]int32          // final live app events per process, by op
	ckpts       [][]int32          // final live checkpoint events per process
	sendOf      map[[2]int32]int32 // (msg, copy) → seq of the send the copy stands for
	anc         [][]uint64         // anc[seq]: app events that happened before seq
	undone      map[int32][]int32  // failure seq → U_f
	handled     []handling
	instants    []instant
	restartPos  map[int32]int32   // failure seq → its restart's pos
	lost        map[int32][]int32 // failure seq → L_f, what its restart undid
	rollbacks   []rollback
}

// rollback is a rollback event with the state it cut.
type rollback struct {
	failure, seq int32
	before       []int32 // live app events before it
	pos          int32
}

// instant is the system at a failure: every process's live app events
// and held checkpoints (seqs).
type instant struct {
	failure, p int32
	live       [][]int32
	ckpts      [][]int32
}

// handling is a process's state right after it handled a failure.
type handling struct {
	failure, p, seq int32
	state           []int32 // live app events at that moment
}

func newOracle(run *trace.Run) *oracle {
	n := len(run.Processes)
	o := &oracle{run: run, live: make([][]int32, n), ckpts: make([][]int32, n),
		sendOf: map[[2]int32]int32{}, undone: map[int32][]int32{}, restartPos: map[int32]int32{}, lost: map[int32][]int32{}}
	words := (len(run.Events) + 63) / 64
	o.anc = make([][]uint64, len(run.Events))
	down := make([]bool, n)
	// A control message that reaches a down process is handled at its
	// restart: pending[p] lists those failures.
	pending := make([][]int32, n)
	var asked []handling // handling by a control_recv alone
	primary := map[[2]int32]bool{}
	snap := func(f, p, seq int32) handling {
		return handling{failure: f, p: p, seq: seq, state: append([]int32(nil), o.live[p]...)}
	}
	for i := range run.Events {
		e := &run.Events[i]
		if e.P < 0 || int(e.P) >= n {
			continue
		}
		switch e.Kind {
		case trace.Send, trace.Recv, trace.Internal:
			if e.Resend {
				o.sendOf[[2]int32{e.Msg, e.Copy}] = o.sendOf[[2]int32{e.Msg, e.Of}]
				continue
			}
			if int(e.Op) != len(o.live[e.P]) {
				o.unsupported = fmt.Sprintf("seq %d: op %d after %d live ops", e.Seq, e.Op, len(o.live[e.P]))
				return o
			}
			a := make([]uint64, words)
			link := func(s int32) {
				for w, x := range o.anc[s] {
					a[w] |= x
				}
				a[s/64] |= 1 << (s % 64)
			}
			if k := len(o.live[e.P]); k > 0 {
				link(o.live[e.P][k-1])
			}
			if e.Kind == trace.Recv {
				s, ok := o.sendOf[[2]int32{e.Msg, e.Copy}]
				if !ok {
					o.unsupported = fmt.Sprintf("seq %d: receipt of copy %d of an unsent message", e.Seq, e.Copy)
					return o
				}
				link(s)
			}
			if e.Kind == trace.Send {
				o.sendOf[[2]int32{e.Msg, e.Copy}] = e.Seq
			}
			o.anc[i] = a
			o.live[e.P] = append(o.live[e.P], e.Seq)
		case trace.Checkpoint:
			if cs := o.ckpts[e.P]; len(cs) > 0 && run.Events[cs[len(cs)-1]].Ckpt >= e.Ckpt {
				o.unsupported = fmt.Sprintf("seq %d: checkpoint id %d not increasing", e.Seq, e.Ckpt)
				return o
			}
			o.ckpts[e.P] = append(o.ckpts[e.P], e.Seq)
			if e.CkptType == trace.CkptRecovery && e.Failure != trace.None {
				o.handled = append(o.handled, snap(e.Failure, e.P, e.Seq))
				primary[[2]int32{e.Failure, e.P}] = true
			}
		case trace.Fail:
			down[e.P] = true
			in := instant{failure: e.Seq, p: e.P, live: make([][]int32, n), ckpts: make([][]int32, n)}
			for q := range n {
				in.live[q] = append([]int32(nil), o.live[q]...)
				in.ckpts[q] = append([]int32(nil), o.ckpts[q]...)
			}
			o.instants = append(o.instants, in)
		case trace.Restart, trace.Rollback:
			if e.Pos < 0 || int(e.Pos) > len(o.live[e.P]) {
				o.unsupported = fmt.Sprintf("seq %d: pos %d beyond %d live ops", e.Seq, e.Pos, len(o.live[e.P]))
				return o
			}
			o.undone[e.Failure] = append(o.undone[e.Failure], o.live[e.P][e.Pos:]...)
			if e.Kind == trace.Restart {
				o.lost[e.Failure] = append([]int32(nil), o.live[e.P][e.Pos:]...)
			} else {
				o.rollbacks = append(o.rollbacks, rollback{e.Failure, e.Seq, append([]int32(nil), o.live[e.P]...), e.Pos})
			}
			o.live[e.P] = o.live[e.P][:e.Pos]
			cs := o.ckpts[e.P]
			k := 0
			for k < len(cs) && run.Events[cs[k]].Ckpt <= e.Restore {
				k++
			}
			o.ckpts[e.P] = cs[:k]
			o.handled = append(o.handled, snap(e.Failure, e.P, e.Seq))
			primary[[2]int32{e.Failure, e.P}] = true
			if e.Kind == trace.Restart {
				o.restartPos[e.Failure] = e.Pos
				down[e.P] = false
				for _, f := range pending[e.P] {
					asked = append(asked, snap(f, e.P, e.Seq))
				}
				pending[e.P] = nil
			}
		case trace.ControlRecv:
			if e.Failure == trace.None {
				continue
			}
			if down[e.P] {
				pending[e.P] = append(pending[e.P], e.Failure)
			} else {
				asked = append(asked, snap(e.Failure, e.P, e.Seq))
			}
		}
	}
	for _, h := range asked {
		if !primary[[2]int32{h.failure, h.p}] {
			o.handled = append(o.handled, h)
		}
	}
	return o
}

// isLive reports whether app event seq is in the final live history.
func (o *oracle) isLive(seq int32) bool {
	e := &o.run.Events[seq]
	return int(e.Op) < len(o.live[e.P]) && o.live[e.P][e.Op] == seq
}

// orphans lists the orphan-free violations: receipts, in a process's
// state right after it handled failure f, of a message whose send is in
// U_f or happened after an event of U_f; and live receipts at the end
// whose copy's send was undone.
func (o *oracle) orphans() []string {
	var out []string
	fs := make([]int32, 0, len(o.undone))
	for f := range o.undone {
		fs = append(fs, f)
	}
	slices.Sort(fs) // witnesses in failure order, not map order
	for _, f := range fs {
		u := o.undone[f]
		set := make([]uint64, (len(o.run.Events)+63)/64)
		for _, s := range u {
			set[s/64] |= 1 << (s % 64)
		}
		dep := func(s int32) bool {
			if set[s/64]&(1<<(s%64)) != 0 {
				return true
			}
			for w, x := range o.anc[s] {
				if x&set[w] != 0 {
					return true
				}
			}
			return false
		}
		for _, h := range o.handled {
			if h.failure != f {
				continue
			}
			for _, s := range h.state {
				e := &o.run.Events[s]
				if e.Kind == trace.Recv && dep(o.sendOf[[2]int32{e.Msg, e.Copy}]) {
					out = append(out, fmt.Sprintf("failure %d: %s's state after seq %d holds receipt seq %d of orphan %s",
						f, o.run.Processes[h.p], h.seq, s, o.run.Msgs[e.Msg]))
				}
			}
		}
	}
	for p := range o.live {
		for _, s := range o.live[p] {
			e := &o.run.Events[s]
			if e.Kind == trace.Recv && !o.isLive(o.sendOf[[2]int32{e.Msg, e.Copy}]) {
				out = append(out, fmt.Sprintf("end: live receipt seq %d of %s whose send was undone", s, o.run.Msgs[e.Msg]))
			}
		}
	}
	return out
}

// duplicates lists message ids received more than once in the final live
// history.
func (o *oracle) duplicates() []string {
	count := make([]int, len(o.run.Msgs))
	var out []string
	for p := range o.live {
		for _, s := range o.live[p] {
			if e := &o.run.Events[s]; e.Kind == trace.Recv {
				if count[e.Msg]++; count[e.Msg] == 2 {
					out = append(out, o.run.Msgs[e.Msg])
				}
			}
		}
	}
	return out
}

// program compares the final live histories with the trace's programs:
// lost lists receives of the program missing from the live history while
// their message's send is live; mismatch is set when some process's live
// history is not its whole program, in order, with the same messages.
func (o *oracle) program(tr *trace.Trace) (lost []string, mismatch string) {
	n := len(tr.Processes)
	prog := make([][]*trace.Event, n)
	for i := range tr.Events {
		if e := &tr.Events[i]; e.Kind.IsOp() {
			prog[e.P] = append(prog[e.P], e)
		}
	}
	got := make(map[[2]int32]bool) // (p, msg) received in the live history
	sent := make(map[int32]bool)   // msg whose send is live
	for p := range o.live {
		for _, s := range o.live[p] {
			switch e := &o.run.Events[s]; e.Kind {
			case trace.Recv:
				got[[2]int32{int32(p), e.Msg}] = true
			case trace.Send:
				sent[e.Msg] = true
			}
		}
	}
	for p := range prog {
		for k, e := range prog[p] {
			if e.Kind == trace.Recv && !got[[2]int32{int32(p), e.Msg}] && sent[e.Msg] {
				lost = append(lost, tr.Msgs[e.Msg])
			}
			if mismatch != "" {
				continue
			}
			if k >= len(o.live[p]) {
				mismatch = fmt.Sprintf("%s ends after %d of %d ops", tr.Processes[p], len(o.live[p]), len(prog[p]))
				continue
			}
			if r := &o.run.Events[o.live[p][k]]; r.Kind != e.Kind || r.Msg != e.Msg {
				mismatch = fmt.Sprintf("%s op %d is %s, program says %s", tr.Processes[p], k, r.Kind, e.Kind)
			}
		}
		if mismatch == "" && len(o.live[p]) > len(prog[p]) {
			mismatch = fmt.Sprintf("%s has %d live ops, program %d", tr.Processes[p], len(o.live[p]), len(prog[p]))
		}
	}
	return lost, mismatch
}

// liveMsg is a message with both ends in the final live history.
type liveMsg struct {
	from, sendOp, to, recvOp int32
}

func (o *oracle) liveMessages() []liveMsg {
	var out []liveMsg
	for q := range o.live {
		for r, s := range o.live[q] {
			e := &o.run.Events[s]
			if e.Kind != trace.Recv {
				continue
			}
			if snd := o.sendOf[[2]int32{e.Msg, e.Copy}]; o.isLive(snd) {
				se := &o.run.Events[snd]
				out = append(out, liveMsg{se.P, se.Op, int32(q), int32(r)})
			}
		}
	}
	return out
}

// interval returns the checkpoint interval of op at process p: the number
// of p's live checkpoints (the initial one not counted) taken before it.
func (o *oracle) interval(p, op int32) int {
	x := 0
	for _, c := range o.ckpts[p] {
		if o.run.Events[c].Pos <= op {
			x++
		}
	}
	return x
}

// useless counts the live checkpoints on a Z-cycle by searching every
// Z-path from each checkpoint (Netzer and Xu: m1 sent after C(p,x), each
// next message sent by the previous one's receiver in the interval of
// that receipt or later, the last received by p before C(p,x)).
func (o *oracle) useless() (int, []string) {
	msgs := o.liveMessages()
	_, recvI := o.intervals(msgs)
	count := 0
	var which []string
	for p := range o.ckpts {
		for x := 1; x <= len(o.ckpts[p]); x++ {
			cycle := false
			o.zPaths(msgs, int32(p), x, func(i int) bool {
				cycle = msgs[i].to == int32(p) && recvI[i] < x
				return !cycle
			})
			if cycle {
				count++
				which = append(which, fmt.Sprintf("%s checkpoint #%d (seq %d)", o.run.Processes[p], x, o.ckpts[p][x-1]))
			}
		}
	}
	return count, which
}

// intervals returns the checkpoint intervals of each message's send and
// receipt.
func (o *oracle) intervals(msgs []liveMsg) (sendI, recvI []int) {
	sendI, recvI = make([]int, len(msgs)), make([]int, len(msgs))
	for i, m := range msgs {
		sendI[i], recvI[i] = o.interval(m.from, m.sendOp), o.interval(m.to, m.recvOp)
	}
	return sendI, recvI
}

// zPaths visits, breadth first, every message that ends a Z-path from
// C(p,x) — the first sent by p in interval x or later, each next one sent
// by the previous one's receiver in the interval of that receipt or
// later — until visit returns false.
func (o *oracle) zPaths(msgs []liveMsg, p int32, x int, visit func(i int) bool) {
	sendI, recvI := o.intervals(msgs)
	seen := make([]bool, len(msgs))
	var queue []int
	for i, m := range msgs {
		if m.from == p && sendI[i] >= x {
			seen[i] = true
			queue = append(queue, i)
		}
	}
	for len(queue) > 0 {
		i := queue[0]
		queue = queue[1:]
		if !visit(i) {
			return
		}
		for j, m := range msgs {
			if !seen[j] && m.from == msgs[i].to && sendI[j] >= recvI[i] {
				seen[j] = true
				queue = append(queue, j)
			}
		}
	}
}

// snLines checks every S_n, n from 0 to the largest live checkpoint
// number, as a cut against every live message.
func (o *oracle) snLines() []string {
	maxSn := int32(0)
	for p := range o.ckpts {
		for _, c := range o.ckpts[p] {
			maxSn = max(maxSn, o.run.Events[c].Sn)
		}
	}
	msgs := o.liveMessages()
	cut := make([]int32, len(o.ckpts))
	var out []string
	for n := int32(1); n <= maxSn; n++ {
		for p := range cut {
			cut[p] = int32(len(o.live[p]))
			for _, c := range o.ckpts[p] {
				if e := &o.run.Events[c]; e.Sn >= n {
					cut[p] = e.Pos
					break
				}
			}
		}
		for _, m := range msgs {
			if m.recvOp < cut[m.to] && m.sendOp >= cut[m.from] {
				out = append(out, fmt.Sprintf("S_%d: %s op %d received inside, sent by %s op %d outside",
					n, o.run.Processes[m.to], m.recvOp, o.run.Processes[m.from], m.sendOp))
				break
			}
		}
	}
	return out
}

// verdict is the status a list of oracle violations stands for.
func verdict(v []string) report.Status {
	if len(v) > 0 {
		return report.Fail
	}
	return report.Pass
}

// agreement counts, per property, how often the oracle and the checker
// were compared and how often the verdict was fail.
type agreement struct {
	compared, failed map[string]int
	unsupported      int
}

// TestPropertyCheckerAgreesWithOracles replays small gentest traces
// through every variant, mutants included (so that violations occur),
// and asserts that the checker's verdicts on orphan-free, no-duplicates,
// no-lost-messages, equivalence, z-cycle-free and sn-lines, and its count
// of useless checkpoints, are the brute-force oracles'. A property the
// checker reports unknown is not compared (our mutants may break the
// op continuity the checker needs).
func TestPropertyCheckerAgreesWithOracles(t *testing.T) {
	t.Parallel() // among the slowest: overlap them on the cores
	all := variants()
	ag := agreement{compared: map[string]int{}, failed: map[string]int{}}
	judge := func(t tb, tr *trace.Trace, a [2]string) {
		t.Helper()
		run := replayWith(t, tr, a[0], a[1])
		r := pipeline.Report(run, tr)
		if a[1] == "" {
			assertClean(t, tr, run, a[0], r)
		}
		o := newOracle(run)
		if o.unsupported != "" {
			ag.unsupported++
			return
		}
		lost, mismatch := o.program(tr)
		var eq []string
		if mismatch != "" {
			eq = []string{mismatch}
		}
		useless, which := o.useless()
		type cmp struct {
			name string
			v    []string
		}
		cmps := []cmp{
			{report.OrphanFree, o.orphans()},
			{report.NoDuplicates, o.duplicates()},
			{report.NoLostMessages, lost},
			{report.Equivalence, eq},
		}
		if a[0] == "ms" {
			cmps = append(cmps, cmp{report.ZCycleFree, which}, cmp{report.SnLines, o.snLines()})
		}
		if a[0] == "pk" {
			cmps = append(cmps, cmp{report.MinimalRollback, o.minimalRollback()})
		}
		for _, c := range cmps {
			got := status(r, c.name)
			if got == report.Unknown {
				continue
			}
			ag.compared[c.name]++
			if got == report.Fail {
				ag.failed[c.name]++
			}
			if want := verdict(c.v); got != want {
				t.Fatalf("%s %s/%s: checker says %s is %s, oracle %s: %s\n%s\ntrace:\n%s\nrun:\n%s", tr.Name, a[0], a[1], c.name, got, want,
					strings.Join(c.v, "; "), dump(r), traceText(tr), runBytes(t, run, codec.WriteOptions{JSONL: true}))
			}
		}
		if status(r, report.Equivalence) == report.Unknown {
			return
		}
		lines := o.maxLine()
		for _, rec := range r.Recoveries {
			want, ok := lines[rec.Failure.Seq]
			if !ok || len(rec.MaxLine) == 0 {
				continue
			}
			ag.compared["max_line"]++
			got := make([]int32, len(rec.MaxLine))
			for q, m := range rec.MaxLine {
				got[q] = m.Pos
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%s %s/%s: failure seq %d: checker's max line %v, brute force %v\ntrace:\n%s\nrun:\n%s", tr.Name, a[0], a[1],
					rec.Failure.Seq, got, want, traceText(tr), runBytes(t, run, codec.WriteOptions{JSONL: true}))
			}
		}
		if r.Stats.Checkpoints.Useless != useless {
			t.Fatalf("%s/%s: checker counts %d useless checkpoints, oracle %d: %s\ntrace:\n%s\nrun:\n%s", a[0], a[1],
				r.Stats.Checkpoints.Useless, useless, strings.Join(which, "; "), traceText(tr), runBytes(t, run, codec.WriteOptions{JSONL: true}))
		}
	}
	// Generated traces that rapid shrinks when the two disagree…
	rapid.Check(t, func(t *rapid.T) {
		judge(t, traces().Draw(t, "trace"), rapid.SampledFrom(all).Draw(t, "algorithm"))
	})
	// …and a fixed sweep of the mutation test's traces, where every
	// mutant fails often, so that agreement on fail is exercised too.
	// (Seed 16 is the first on which no-forced makes a Z-cycle.)
	sweep := 150
	if testing.Short() {
		sweep = 20
	}
	for seed := uint64(1); seed <= uint64(sweep); seed++ {
		tr, err := gen.Trace(mutationConfig(seed))
		if err != nil {
			t.Fatal(err)
		}
		tr.Name = fmt.Sprintf("seed-%d", seed)
		for _, a := range all {
			judge(t, tr, a)
		}
	}
	t.Logf("runs the oracle could not judge: %d; comparisons (checker fail) per property: %v (%v)", ag.unsupported, ag.compared, ag.failed)
	for _, p := range []string{report.OrphanFree, report.NoLostMessages, report.SnLines, report.ZCycleFree} {
		if ag.compared[p] > 0 && ag.failed[p] == 0 {
			t.Errorf("%s never failed: the comparison shows only agreement on pass", p)
		}
	}
}

// maxLine returns, per failure that has a restart, the positions of the
// maximum consistent recovery line of checkpoints (SPEC §7): the failed
// process at its latest checkpoint at or before its restored state,
// everyone else at most at its state at the failure instant, found by
// enumerating every combination of checkpoints (consistent cuts are
// closed under componentwise maximum, so the maximum of the consistent
// ones is the line). Failures with too many combinations are left out.
func (o *oracle) maxLine() map[int32][]int32 {
	out := map[int32][]int32{}
	for _, in := range o.instants {
		pos, ok := o.restartPos[in.failure]
		if !ok {
			continue
		}
		n := len(in.live)
		cands := make([][]int32, n) // candidate positions, descending
		combos := 1
		for q := range n {
			bound := int32(len(in.live[q]))
			if int32(q) == in.p {
				bound = pos
			}
			var cs []int32
			if int32(q) != in.p {
				cs = append(cs, bound)
			}
			for i := len(in.ckpts[q]) - 1; i >= 0; i-- {
				if c := o.run.Events[in.ckpts[q][i]].Pos; c <= bound && (len(cs) == 0 || c < cs[len(cs)-1]) {
					cs = append(cs, c)
				}
			}
			if len(cs) == 0 || cs[len(cs)-1] != 0 {
				cs = append(cs, 0) // the initial checkpoint
			}
			cands[q] = cs
			combos *= len(cs)
		}
		if combos > 200000 {
			continue
		}
		// Messages live at the instant: (from, send op, to, recv op).
		type msg struct{ from, s, to, r int32 }
		var msgs []msg
		liveAt := func(seq int32) bool {
			e := &o.run.Events[seq]
			l := in.live[e.P]
			return int(e.Op) < len(l) && l[e.Op] == seq
		}
		for q := range n {
			for r, seq := range in.live[q] {
				e := &o.run.Events[seq]
				if e.Kind != trace.Recv {
					continue
				}
				if snd := o.sendOf[[2]int32{e.Msg, e.Copy}]; liveAt(snd) {
					msgs = append(msgs, msg{o.run.Events[snd].P, o.run.Events[snd].Op, int32(q), int32(r)})
				}
			}
		}
		best := make([]int32, n)
		cut := make([]int32, n)
		idx := make([]int, n)
		for {
			for q := range n {
				cut[q] = cands[q][idx[q]]
			}
			ok := true
			for _, m := range msgs {
				if m.r < cut[m.to] && m.s >= cut[m.from] {
					ok = false
					break
				}
			}
			if ok {
				for q := range n {
					best[q] = max(best[q], cut[q])
				}
			}
			q := 0
			for q < n {
				if idx[q]++; idx[q] < len(cands[q]) {
					break
				}
				idx[q] = 0
				q++
			}
			if q == n {
				break
			}
		}
		out[in.failure] = best
	}
	return out
}

// minimalRollback lists the rollbacks that did not undo exactly the
// events of their process's state that happened after an event its
// failure lost (L_f: what the failed process's restart undid).
func (o *oracle) minimalRollback() []string {
	var out []string
	for _, rb := range o.rollbacks {
		lost := o.lost[rb.failure]
		dep := func(s int32) bool {
			for _, l := range lost {
				if o.anc[s][l/64]&(1<<(l%64)) != 0 {
					return true
				}
			}
			return false
		}
		for k, s := range rb.before {
			if undone := int32(k) >= rb.pos; undone != dep(s) {
				out = append(out, fmt.Sprintf("rollback seq %d: op %d (seq %d) undone=%v but depends on lost events=%v",
					rb.seq, k, s, undone, !undone))
				break
			}
		}
	}
	return out
}
