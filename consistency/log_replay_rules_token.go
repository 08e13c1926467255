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
func pkTokenReceipts(m *history.Model, r *result) *tokenJudge {
	if m.Missing.Replay() {
		return nil // pkLogReplay said why
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
	return j
}

// tokenJudge keeps, per failure, the distinct received lists its token
// carried and their verdicts.
type tokenJudge struct {
	m        *history.Model
	head     []int32 // per failure, its first verdict, or None
	verdicts []tokenVerdict
	bad      []badList
	// stamp[msg] is gen while the rebuilt set being compared holds msg
	// untaken, with incarnation incOf[msg] (matches).
	stamp, incOf []int32
	gen          int32
	want         []trace.Identity // scratch: the rebuilt list, for a witness
	got          []trace.Identity // scratch: the run's list, for a witness
	// chains memoizes, per live op, the multiset hash of the receipts on
	// its chain of predecessors (log_replay_rules_token_hash.go).
	chains chainMemo
}

// tokenVerdict is one distinct received list of a failure's token: 16
// bytes, one per failure in a correct run (10^5 failures), the witness
// kept apart for the lists that fail.
type tokenVerdict struct {
	fi, body int32
	next     int32 // the failure's next verdict, or None
	bad      int32 // index of its witness in tokenJudge.bad, or None
	right    bool  // the list is the rebuilt one (not unjudgeable, not bad)
}

// badList is what the witness of a failing list says. Its text is
// written for the first maxWitnesses lists only, the ones a result can
// keep.
type badList struct {
	seqs              []int32 // the fail, the restart, the control_sends carrying it
	diff, wantS, gotS string
}

func newTokenJudge(m *history.Model) *tokenJudge {
	j := &tokenJudge{m: m, head: make([]int32, len(m.Failures))}
	for i := range j.head {
		j.head[i] = history.None
	}
	return j
}

// hop judges the body of the token control_send at seq, unless a body
// with the same list was judged for its failure before.
func (j *tokenJudge) hop(fi, seq, body int32, r *result) {
	b := &j.m.Run.Bodies[body]
	for v := j.head[fi]; v != history.None; v = j.verdicts[v].next {
		x := &j.verdicts[v]
		if x.body == body || j.m.Run.Bodies[x.body].SameReceived(b) {
			if x.bad != history.None {
				j.bad[x.bad].seqs = append(j.bad[x.bad].seqs, seq)
			}
			return
		}
	}
	// A list that cannot be judged gets a verdict too, so that the
	// token's other hops do not rebuild the set again.
	v := tokenVerdict{fi: fi, body: body, next: j.head[fi], bad: history.None}
	if same, why := j.matches(fi, b); why != "" {
		r.cannotJudge(why)
	} else if v.right = same; !same {
		want, got := j.rebuild(fi), j.listed(b)
		if v.right = slices.Equal(want, got); !v.right {
			f := &j.m.Failures[fi]
			v.bad = int32(len(j.bad))
			w := badList{seqs: []int32{f.Seq, f.Restart, seq}}
			if len(j.bad) < maxWitnesses {
				// report fails the lists in this order, so no later one
				// is kept; want and got are scratch, so now or never.
				w.diff, w.wantS, w.gotS = j.firstDiff(f.P, f.Restart, want, got), identities(j.m, want), identities(j.m, got)
			}
			j.bad = append(j.bad, w)
		}
	}
	j.head[fi] = int32(len(j.verdicts))
	j.verdicts = append(j.verdicts, v)
}

// right reports whether the received list of body, carried by a token
// of failure fi, was judged the one the token must carry.
func (j *tokenJudge) right(fi, body int32) bool {
	b := &j.m.Run.Bodies[body]
	for v := j.head[fi]; v != history.None; v = j.verdicts[v].next {
		if x := &j.verdicts[v]; x.body == body || j.m.Run.Bodies[x.body].SameReceived(b) {
			return x.right
		}
	}
	return false
}

// matches reports whether body b lists exactly the receipts live in
// failure fi's process right after its restart, or why those cannot be
// told, in time linear in the two sets and without sorting either: the
// rebuilt identities are stamped per message, and each listed one must
// find its stamp and take it. A live history holding one message twice
// (no-duplicates' to report) is left to the sorted comparison (false).
func (j *tokenJudge) matches(fi int32, b *trace.ControlBody) (bool, string) {
	if j.sameHash(fi, b) {
		return true, ""
	}
	if j.stamp == nil {
		j.stamp, j.incOf = make([]int32, len(j.m.Run.Msgs)), make([]int32, len(j.m.Run.Msgs))
	}
	j.gen++
	n, twice := 0, false
	why := j.receipts(fi, func(id trace.Identity) {
		if id.Msg < 0 || int(id.Msg) >= len(j.stamp) || j.stamp[id.Msg] == j.gen {
			twice = true
			return
		}
		j.stamp[id.Msg], j.incOf[id.Msg] = j.gen, id.Inc
		n++
	})
	if why != "" || twice {
		return false, why
	}
	same := true
	j.walk(b, func(id trace.Identity) {
		if id.Msg < 0 || int(id.Msg) >= len(j.stamp) || j.stamp[id.Msg] != j.gen || j.incOf[id.Msg] != id.Inc {
			same = false
			return
		}
		j.stamp[id.Msg] = 0 // taken: a second listing of it fails
		n--
	})
	return same && n == 0, ""
}

// receipts calls visit with the identity of every receipt live in
// failure fi's process right after its restart — the chain of live ops
// below the restart's top, which must be ops pos-1 down to 0 — or says
// why they cannot be told.
func (j *tokenJudge) receipts(fi int32, visit func(trace.Identity)) string {
	m := j.m
	f := &m.Failures[fi]
	n := m.Event(f.Restart).Pos
	for s := j.restartTop(fi); s != history.None; s = m.Pred[s] {
		e := m.Event(s)
		if n--; e.Op != n {
			return gapsWhy(m, f)
		}
		if e.Kind != trace.Recv {
			continue
		}
		snd := m.SendOf[s]
		if snd == history.None {
			return fmt.Sprintf("%s's receipt of %s at seq %d takes a copy no send transmitted, so its identity, which a token lists, cannot be told",
				m.ProcName(e.P), m.MsgName(e.Msg), s)
		}
		visit(trace.Identity{Msg: e.Msg, Inc: m.Inc(m.Event(snd).P, snd)})
	}
	if n != 0 {
		return gapsWhy(m, f)
	}
	return ""
}

// rebuild returns the receipts of failure fi's restart (receipts) sorted
// by message then incarnation, for the witness.
func (j *tokenJudge) rebuild(fi int32) []trace.Identity {
	j.want = j.want[:0]
	j.receipts(fi, func(id trace.Identity) { j.want = append(j.want, id) })
	slices.SortFunc(j.want, compareIdentity)
	return j.want
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

// walk calls visit with each identity body b lists. An algorithm's view
// of its receipts is walked rather than made into a list the run would
// keep (trace.ReceiptWalker).
func (j *tokenJudge) walk(b *trace.ControlBody, visit func(trace.Identity)) {
	if w, ok := b.Receipts.(trace.ReceiptWalker); ok {
		w.WalkIdentities(visit)
		return
	}
	for _, id := range b.ReceivedList() {
		visit(id)
	}
}

// listed returns body b's received list sorted by message then
// incarnation, for the witness: the run lists them by message, and an
// order among one message's incarnations is no part of the set.
func (j *tokenJudge) listed(b *trace.ControlBody) []trace.Identity {
	j.got = j.got[:0]
	j.walk(b, func(id trace.Identity) { j.got = append(j.got, id) })
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
		if v.bad == history.None {
			continue
		}
		w := &j.bad[v.bad]
		f := &m.Failures[v.fi]
		r.fail(w.seqs, func() (string, string) {
			hops := w.seqs[2:]
			sent := fmt.Sprintf("seq %d", hops[0])
			if len(hops) > 1 {
				sent = "seqs " + seqList(hops)
			}
			return fmt.Sprintf("%s's token (failure seq %d) sent at %s %s", m.ProcName(f.P), f.Seq, sent, w.diff),
				fmt.Sprintf("a token carries the identity (message, sender's incarnation at the send) of every receipt live in its announcer's recovered state, so that each process resends to it exactly what it lacks; rebuilt from %s's live history right after its restart at seq %d (the receipts its restored checkpoint holds and those its replay took from the stable log), that set is %s, but the token sent at %s lists %s",
					m.ProcName(f.P), f.Restart, w.wantS, sent, w.gotS)
		})
	}
}

// maxListed bounds the identities and seqs a witness spells out.
const maxListed = 8

func identity(m *history.Model, id trace.Identity) string {
	return fmt.Sprintf("(%s, inc %d)", m.MsgName(id.Msg), id.Inc)
}

// identities renders a list, its first maxListed entries and its size.
func identities(m *history.Model, ids []trace.Identity) string {
	return "[" + listUpTo(ids, func(id trace.Identity) string { return identity(m, id) }) + "]"
}

func seqList(seqs []int32) string {
	return listUpTo(seqs, func(s int32) string { return fmt.Sprint(s) })
}

// listUpTo joins the first maxListed of xs, and says how many there are
// when it leaves some out.
func listUpTo[T any](xs []T, str func(T) string) string {
	parts := make([]string, 0, min(len(xs), maxListed)+1)
	for _, x := range xs[:min(len(xs), maxListed)] {
		parts = append(parts, str(x))
	}
	if len(xs) > maxListed {
		parts = append(parts, fmt.Sprintf("… (%d in all)", len(xs)))
	}
	return strings.Join(parts, ", ")
}
