package consistency

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// pkTokenResends judges what a process resends when a PK token reaches
// it (SPEC §5, "Token at P_j"): every message its live history sent to
// the announcer whose identity the token's received set lacks, each
// once, then the token goes on. A process resends at its own restart
// (while still down, before the restart event: pkRetransmits) or at a
// token (up, just before it forwards the token, its next event): told
// apart by the run's fails and restarts, not by the resends' failure
// field, which SPEC §6 does not ask a resend to carry (a forged extra
// resend without one escaped a first version of this rule), nor by
// time, which only runs that record their params are held to. Each must repeat a send of
// that process to the announcer, live at the resend, that the token's
// list (as the forward carries it: bodies do not change on the way)
// lacks, and no two may repeat one send.
//
// Found on 2026-12-04: a hop that resent a message twice, the extra copy
// listed unconsumed, passed every property, and so did one resending a
// message the token lists (receivers drop duplicates, so no outcome
// shows either). A resend a hop leaves out shows as a lost message or a
// receive blocked for good (no-lost-messages); judging its absence here
// would cost every hop a walk of its live sends, where this costs each
// resend a lookup.
func pkTokenResends(m *history.Model, j *tokenJudge, r *result) {
	if j == nil {
		return // pkLogReplay said why
	}
	// pending[p] are process p's resends at a token since its last
	// other event: its next event must forward the token. down[p] is
	// its failure whose restart has not come yet, or None: its resends
	// then are that restart's re-transmissions (pkRetransmits).
	pending := make([][]int32, len(m.Procs))
	down := make([]int32, len(m.Procs))
	for p := range down {
		down[p] = history.None
	}
	nextFail := 0
	for i := range m.Run.Events {
		e := &m.Run.Events[i]
		for ; nextFail < len(m.Failures) && m.Failures[nextFail].Seq == int32(i); nextFail++ {
			if f := &m.Failures[nextFail]; f.P >= 0 && int(f.P) < len(down) {
				down[f.P] = int32(nextFail)
			}
		}
		if e.P < 0 || int(e.P) >= len(pending) {
			continue
		}
		if d := down[e.P]; d != history.None && m.Failures[d].Restart <= int32(i) && m.Failures[d].Restart != history.None {
			down[e.P] = history.None
		}
		if e.Kind == trace.Send && e.Resend {
			if down[e.P] == history.None {
				pending[e.P] = append(pending[e.P], int32(i))
			}
			continue
		}
		if g := pending[e.P]; len(g) > 0 {
			tokenHop(m, j, g, int32(i), r)
			pending[e.P] = g[:0]
		}
	}
	for _, g := range pending {
		if len(g) > 0 {
			tokenHop(m, j, g, history.None, r)
		}
	}
}

// tokenHop judges resends g of one up process, which its event at seq
// next (None: it has none) follows: its forward of a token.
func tokenHop(m *history.Model, j *tokenJudge, g []int32, next int32, r *result) {
	e := m.Event(g[0])
	if next == history.None || m.Event(next).Kind != trace.ControlSend || m.Event(next).Control != trace.ControlToken {
		r.fail([]int32{g[0]}, func() (string, string) {
			return fmt.Sprintf("%s resends %s at seq %d, neither at its restart nor at a token", m.ProcName(e.P), m.MsgName(e.Msg), g[0]),
				fmt.Sprintf("a PK process resends at its own restart, while down, or when a failure's token reaches it, just before it forwards the token; %s is up at seq %d and its next event is no token it forwards", m.ProcName(e.P), g[0])
		})
		return
	}
	f := m.Event(next)
	fi, ok := m.FailureAt(f.Failure)
	ann := history.None
	var b *trace.ControlBody
	if ok {
		ann = m.Failures[fi].P
		// A forged list is pkTokenReceipts' to report, and a hop that
		// resent by the true list did right: only a list judged right
		// (not absent, as a foreign run may leave it) is judged against.
		if f.Body != history.None && m.Failures[fi].Restart != history.None && j.right(fi, f.Body) {
			b = &m.Run.Bodies[f.Body]
		}
	}
	origs := make([]int32, 0, len(g))
	for _, s := range g {
		if o, ok := resendFor(m, s, ann, b, r); ok {
			origs = append(origs, o)
		}
	}
	slices.Sort(origs)
	for k := 1; k < len(origs); k++ {
		if origs[k] == origs[k-1] && (k == 1 || origs[k-1] != origs[k-2]) { // once per send
			o := m.Event(origs[k])
			r.fail([]int32{origs[k], g[0]}, func() (string, string) {
				return fmt.Sprintf("%s resends its send of %s at seq %d more than once for the failure at seq %d", m.ProcName(e.P), m.MsgName(o.Msg), origs[k], f.Failure),
					fmt.Sprintf("a token hop resends each live send the announcer's recovered state lacks once; the resends at seqs %s repeat the send at seq %d twice or more, and the extra copies can only be dropped", seqList(g), origs[k])
			})
		}
	}
}

// resendFor judges the resend at seq s of a token hop for announcer ann
// and returns the send it repeats, or false when the run does not tell
// (other rules say why). The send is the model's (SendOf: the live send
// at the resend's op, else the copy its of names), not of alone, which a
// run may leave out: a forged extra resend without of escaped a first
// version of this rule.
func resendFor(m *history.Model, s, ann int32, b *trace.ControlBody, r *result) (int32, bool) {
	e := m.Event(s)
	orig := m.SendOf[s]
	if orig == history.None {
		return 0, false
	}
	o := m.Event(orig)
	id := trace.Identity{Msg: o.Msg, Inc: m.Inc(o.P, orig)}
	why := ""
	switch {
	case o.P != e.P || (ann != history.None && (o.Peer != ann || e.Peer != ann)):
		why = fmt.Sprintf("it repeats the send at seq %d, by %s to %s, where a token hop resends only the hop's own sends to the announcer %s", orig, m.ProcName(o.P), m.ProcName(o.Peer), m.ProcName(ann))
	case m.UndoneBy[orig] != history.None && m.UndoneBy[orig] < s:
		why = fmt.Sprintf("it repeats the send at seq %d, which seq %d undid: a token hop resends sends of its live history", orig, m.UndoneBy[orig])
	case b != nil && lists(b, id):
		why = fmt.Sprintf("the token lists %s, so the announcer's recovered state holds that message: a token hop resends only what the list lacks", identity(m, id))
	default:
		return orig, true
	}
	r.fail([]int32{s}, func() (string, string) {
		return fmt.Sprintf("%s's resend of %s at seq %d for the failure at seq %d is not one the token asks for", m.ProcName(e.P), m.MsgName(e.Msg), s, e.Failure), why
	})
	return orig, true
}

// lists reports whether token body b lists identity id: by the
// algorithm's own lookup, or in the list, sorted by message (SPEC §6;
// one read unsorted from a file may miss an identity, never find one it
// lacks).
func lists(b *trace.ControlBody, id trace.Identity) bool {
	if l, ok := b.Receipts.(trace.ReceiptLookup); ok {
		return l.HasIdentity(id)
	}
	ids := b.ReceivedList()
	k, _ := slices.BinarySearchFunc(ids, id.Msg, func(x trace.Identity, msg int32) int { return cmp.Compare(x.Msg, msg) })
	for ; k < len(ids) && ids[k].Msg == id.Msg; k++ {
		if ids[k].Inc == id.Inc {
			return true
		}
	}
	return false
}
