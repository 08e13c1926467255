package consistency

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// pkTokenReceipts judges the received list of every PK token (issue 14):
// a token carries the identity — message id and the sender's
// incarnation at the send — of every receipt live in its announcer's
// recovered state (SPEC §5), and every process resends to the announcer
// exactly the messages that list lacks, so a forged list makes receivers
// resend what the announcer has, or withhold what it lost, while every
// hop agrees with the next. The list is rebuilt from the announcer's
// live history right after its restart: the receipts its restored
// checkpoint holds and those its replay took from the stable log, each
// named by its message and by the incarnation of the live send its copy
// carries (the send itself, or the one a resend repeats), counted from
// the sender's restarts before that send.
//
// Every control_send of a token is judged, since a forwarder could pass
// on another list than it received and both ends of that hop would
// agree; each distinct body is compared once (the engine's hops share
// one body, a run read from a file has a copy per hop, compared with the
// first one for its failure), so a correct run costs one rebuild per
// failure. A token without a received field (a foreign run may leave it
// out) is not judged for it.
func pkTokenReceipts(m *history.Model, r *result) {
	if m.Missing.Ops || m.Missing.Copy || m.Missing.Restore {
		return // pkLogReplay said why
	}
	j := newTokenJudge(m)
	for i := range m.Run.Events {
		e := &m.Run.Events[i]
		if e.Kind != trace.ControlSend || e.Control != trace.ControlToken {
			continue
		}
		b := m.Run.Body(e)
		if b == nil || (b.Receipts == nil && b.Received == nil) {
			continue
		}
		if fi, ok := m.FailureAt(e.Failure); ok && m.Failures[fi].Restart != history.None {
			j.hop(fi, int32(i), e.Body, r)
		}
	}
	j.report(r)
}

// tokenJudge keeps, per failure, the distinct received lists its token
// carried and their verdicts.
type tokenJudge struct {
	m *history.Model
	// restarts are, per process, the seqs of its restarts in order: a
	// send's incarnation is the number of them before it.
	restarts [][]int32
	head     []int32 // per failure, its first verdict, or None
	verdicts []tokenVerdict
	want     []trace.Identity // scratch: the rebuilt list
	got      []trace.Identity // scratch: the run's list, sorted
}

// tokenVerdict is one distinct received list of a failure's token.
type tokenVerdict struct {
	fi, body int32
	next     int32   // the failure's next verdict, or None
	seqs     []int32 // the control_sends carrying it, kept when it fails
	fails    bool
	// What the witness says of it, made when it fails.
	diff, wantS, gotS string
}

func newTokenJudge(m *history.Model) *tokenJudge {
	j := &tokenJudge{m: m, restarts: make([][]int32, len(m.Procs)), head: make([]int32, len(m.Failures))}
	for i := range j.head {
		j.head[i] = history.None
	}
	for k := range m.Restores {
		s := m.Restores[k].Seq
		if e := m.Event(s); e.Kind == trace.Restart && e.P >= 0 && int(e.P) < len(j.restarts) {
			j.restarts[e.P] = append(j.restarts[e.P], s)
		}
	}
	return j
}

// hop judges the body of the token control_send at seq, unless a body
// with the same list was judged for its failure before.
func (j *tokenJudge) hop(fi, seq, body int32, r *result) {
	b := &j.m.Run.Bodies[body]
	for v := j.head[fi]; v != history.None; v = j.verdicts[v].next {
		x := &j.verdicts[v]
		if x.body == body || sameReceived(&j.m.Run.Bodies[x.body], b) {
			if x.fails {
				x.seqs = append(x.seqs, seq)
			}
			return
		}
	}
	want, why := j.rebuild(fi)
	if why != "" {
		r.cannotJudge(why)
		return
	}
	v := tokenVerdict{fi: fi, body: body, next: j.head[fi]}
	got := j.sorted(b.ReceivedList())
	if !slices.Equal(want, got) {
		f := &j.m.Failures[fi]
		v.fails, v.seqs = true, []int32{f.Seq, f.Restart, seq}
		v.diff = j.firstDiff(f.P, f.Restart, want, got)
		v.wantS, v.gotS = identities(j.m, want), identities(j.m, got)
	}
	j.head[fi] = int32(len(j.verdicts))
	j.verdicts = append(j.verdicts, v)
}

// sameReceived reports whether two bodies carry the same received list:
// one view of an algorithm's receipts, or equal lists.
func sameReceived(a, b *trace.ControlBody) bool {
	if a.Receipts != nil && a.Receipts == b.Receipts {
		return true
	}
	if a.Receipts == nil && b.Receipts == nil {
		return slices.Equal(a.Received, b.Received)
	}
	return slices.Equal(a.ReceivedList(), b.ReceivedList())
}

// rebuild returns, sorted by message then incarnation, the identities of
// the receipts live in failure fi's process right after its restart —
// the chain of live ops below the restart's top, which must be ops
// pos-1 down to 0 — or why they cannot be told.
func (j *tokenJudge) rebuild(fi int32) ([]trace.Identity, string) {
	m := j.m
	f := &m.Failures[fi]
	want := j.want[:0]
	n := m.Event(f.Restart).Pos
	for s := j.restartTop(fi); s != history.None; s = m.Pred[s] {
		e := m.Event(s)
		if n--; e.Op != n {
			return nil, gapsWhy(m, f)
		}
		if e.Kind != trace.Recv {
			continue
		}
		snd := m.SendOf[s]
		if snd == history.None {
			return nil, fmt.Sprintf("%s's receipt of %s at seq %d takes a copy no send transmitted, so its identity, which a token lists, cannot be told",
				m.ProcName(e.P), m.MsgName(e.Msg), s)
		}
		want = append(want, trace.Identity{Msg: e.Msg, Inc: j.incAt(m.Event(snd).P, snd)})
	}
	if n != 0 {
		return nil, gapsWhy(m, f)
	}
	slices.SortFunc(want, compareIdentity)
	j.want = want
	return want, ""
}

// gapsWhy says why a restart's live receipts cannot be rebuilt when its
// live history breaks op continuity (equivalence's to report).
func gapsWhy(m *history.Model, f *history.Failure) string {
	return fmt.Sprintf("%s's live history at its restart at seq %d has gaps, so the receipts its token lists cannot be rebuilt", m.ProcName(f.P), f.Restart)
}

// restartTop returns the last live op of failure fi's process right
// after its restart, or None: the model's handling point of the restart.
func (j *tokenJudge) restartTop(fi int32) int32 {
	hs, f := j.m.Handlings, &j.m.Failures[fi]
	for k := sort.Search(len(hs), func(k int) bool { return hs[k].Seq >= f.Restart }); k < len(hs) && hs[k].Seq == f.Restart; k++ {
		if hs[k].F == fi && hs[k].P == f.P {
			return hs[k].Top
		}
	}
	return history.None
}

// incAt returns process p's incarnation at seq: its restarts before it.
func (j *tokenJudge) incAt(p, seq int32) int32 {
	if p < 0 || int(p) >= len(j.restarts) {
		return history.None
	}
	n, _ := slices.BinarySearch(j.restarts[p], seq)
	return int32(n)
}

// sorted returns ids sorted by message then incarnation: the run lists
// them by message, and an order among one message's incarnations is no
// part of the set.
func (j *tokenJudge) sorted(ids []trace.Identity) []trace.Identity {
	if slices.IsSortedFunc(ids, compareIdentity) {
		return ids
	}
	j.got = append(j.got[:0], ids...)
	slices.SortFunc(j.got, compareIdentity)
	return j.got
}

func compareIdentity(a, b trace.Identity) int {
	return cmp.Or(cmp.Compare(a.Msg, b.Msg), cmp.Compare(a.Inc, b.Inc))
}

// firstDiff says where two sorted lists first part: an identity the run
// lists that the rebuilt set lacks, or the reverse.
func (j *tokenJudge) firstDiff(p, restart int32, want, got []trace.Identity) string {
	k := 0
	for k < len(want) && k < len(got) && want[k] == got[k] {
		k++
	}
	who := j.m.ProcName(p)
	switch {
	case k < len(got) && k > 0 && got[k] == got[k-1]:
		return fmt.Sprintf("lists %s twice, which %s had received live once at its restart at seq %d", identity(j.m, got[k]), who, restart)
	case k < len(got) && (k == len(want) || compareIdentity(got[k], want[k]) < 0):
		return fmt.Sprintf("lists %s, which %s had not received live at its restart at seq %d", identity(j.m, got[k]), who, restart)
	}
	return fmt.Sprintf("lacks %s, which %s had received live at its restart at seq %d", identity(j.m, want[k]), who, restart)
}

// report writes a witness per failing list, in the order first sent.
func (j *tokenJudge) report(r *result) {
	m := j.m
	for k := range j.verdicts {
		v := &j.verdicts[k]
		if !v.fails {
			continue
		}
		f := &m.Failures[v.fi]
		hops := v.seqs[2:]
		sent := fmt.Sprintf("seq %d", hops[0])
		if len(hops) > 1 {
			sent = "seqs " + seqList(hops)
		}
		r.fail(fmt.Sprintf("%s's token (failure seq %d) sent at %s %s", m.ProcName(f.P), f.Seq, sent, v.diff), v.seqs,
			fmt.Sprintf("a token carries the identity (message, sender's incarnation at the send) of every receipt live in its announcer's recovered state, so that each process resends to it exactly what it lacks; rebuilt from %s's live history right after its restart at seq %d (the receipts its restored checkpoint holds and those its replay took from the stable log), that set is %s, but the token sent at %s lists %s",
				m.ProcName(f.P), f.Restart, v.wantS, sent, v.gotS))
	}
}

// maxListed bounds the identities and seqs a witness spells out.
const maxListed = 8

func identity(m *history.Model, id trace.Identity) string {
	return fmt.Sprintf("(%s, inc %d)", m.MsgName(id.Msg), id.Inc)
}

// identities renders a list, its first maxListed entries and its size.
func identities(m *history.Model, ids []trace.Identity) string {
	parts := make([]string, 0, min(len(ids), maxListed)+1)
	for _, id := range ids[:min(len(ids), maxListed)] {
		parts = append(parts, identity(m, id))
	}
	if len(ids) > maxListed {
		parts = append(parts, fmt.Sprintf("… (%d in all)", len(ids)))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func seqList(seqs []int32) string {
	parts := make([]string, 0, min(len(seqs), maxListed)+1)
	for _, s := range seqs[:min(len(seqs), maxListed)] {
		parts = append(parts, fmt.Sprint(s))
	}
	if len(seqs) > maxListed {
		parts = append(parts, fmt.Sprintf("… (%d in all)", len(seqs)))
	}
	return strings.Join(parts, ", ")
}
