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
// once, then the token goes on. The resends a hop writes (the run's
// sends with resend set and the token's failure, by a process other
// than the announcer) come together, just before that process forwards
// the token, at its instant; each must repeat a send of that process to
// the announcer, live at the resend, that the token's list (as the
// forward carries it: bodies do not change on the way) lacks, and no
// two may repeat one send.
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
	evs := m.Run.Events
	for i := 0; i < len(evs); {
		e := &evs[i]
		if e.Kind != trace.Send || !e.Resend || e.Failure == history.None {
			i++
			continue
		}
		fi, ok := m.FailureAt(e.Failure)
		if !ok || m.Failures[fi].P == e.P {
			i++ // the announcer's own restart re-transmits (pkRetransmits)
			continue
		}
		end := i + 1
		for end < len(evs) && evs[end].Kind == trace.Send && evs[end].Resend && evs[end].P == e.P && evs[end].Failure == e.Failure {
			end++
		}
		tokenHop(m, j, fi, int32(i), int32(end), r)
		i = end
	}
}

// tokenHop judges the resends at seqs [from, to) of one process for
// failure fi.
func tokenHop(m *history.Model, j *tokenJudge, fi, from, to int32, r *result) {
	ann := m.Failures[fi].P
	e := m.Event(from)
	fwd := forwardOf(m, to, e)
	if fwd == history.None {
		r.fail([]int32{from}, func() (string, string) {
			return fmt.Sprintf("%s resends %s at seq %d for the failure at seq %d, but does not then forward its token", m.ProcName(e.P), m.MsgName(e.Msg), from, e.Failure),
				fmt.Sprintf("outside its own restart a PK process resends only when the token of a failure reaches it, and then forwards the token at the same instant; %s sends no token of the failure at seq %d at t=%s after its resends",
					m.ProcName(e.P), e.Failure, e.T)
		})
		return
	}
	// A forged list is pkTokenReceipts' to report, and a hop that
	// resent by the true list did right: only a list judged right (not
	// absent, as a foreign run may leave it) is judged against.
	var b *trace.ControlBody
	if f := m.Event(fwd); f.Body != history.None && m.Failures[fi].Restart != history.None && j.right(fi, f.Body) {
		b = &m.Run.Bodies[f.Body]
	}
	origs := make([]int32, 0, to-from)
	for s := from; s < to; s++ {
		if o, ok := resendFor(m, s, ann, b, r); ok {
			origs = append(origs, o)
		}
	}
	slices.Sort(origs)
	for k := 1; k < len(origs); k++ {
		if origs[k] == origs[k-1] && (k == 1 || origs[k-1] != origs[k-2]) { // once per send
			o := m.Event(origs[k])
			r.fail([]int32{origs[k], from}, func() (string, string) {
				return fmt.Sprintf("%s resends its send of %s at seq %d more than once for the failure at seq %d", m.ProcName(e.P), m.MsgName(o.Msg), origs[k], e.Failure),
					fmt.Sprintf("a token hop resends each live send the announcer's recovered state lacks once; the resends at seqs %d to %d repeat the send at seq %d twice or more, and the extra copies can only be dropped", from, to-1, origs[k])
			})
		}
	}
}

// forwardOf returns the token the process of resend e forwards at e's
// instant, at seq to or after, for e's failure, or None.
func forwardOf(m *history.Model, to int32, e *trace.RunEvent) int32 {
	for s := to; int(s) < len(m.Run.Events); s++ {
		n := m.Event(s)
		if n.T != e.T {
			break
		}
		if n.Kind == trace.ControlSend && n.Control == trace.ControlToken && n.P == e.P && n.Failure == e.Failure {
			return s
		}
	}
	return history.None
}

// resendFor judges the resend at seq s of a token hop for announcer ann
// and returns the send it repeats, or false when the run says none
// (other rules judge copy numbers).
func resendFor(m *history.Model, s, ann int32, b *trace.ControlBody, r *result) (int32, bool) {
	e := m.Event(s)
	of := m.Copies.Index(e.Msg, e.Of)
	if of < 0 || m.Copies.Orig[of] == history.None {
		return 0, false
	}
	orig := m.Copies.Orig[of]
	o := m.Event(orig)
	id := trace.Identity{Msg: o.Msg, Inc: m.Inc(o.P, orig)}
	why := ""
	switch {
	case o.P != e.P || o.Peer != ann || e.Peer != ann:
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
