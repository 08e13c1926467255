package consistency

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// PK's tokens (SPEC §5): what a process owes when one reaches it, what a
// hop resends, what a token carries, and the resume.

// owed returns the duty event e fulfils, or nil (duties). A hop is
// fulfilled by its rollback, its resends and, last, its forward.
func (s *pkSpec) owed(seq int32, e *trace.RunEvent, p *pkProc) *pkDuty {
	return p.duties.owed(s.specFrame, seq, e, nil, func(d *pkDuty) (bool, bool) {
		switch d.kind {
		case dutyResume:
			return e.Kind == trace.Resume, true
		case dutyOwnToken:
			return e.Kind == trace.ControlSend && e.Control == trace.ControlToken, true
		}
		// Whether it rolls back, and how far, is minimal-rollback's and
		// orphan-free's to judge.
		return e.Kind == trace.Rollback && len(d.resent) == 0 || e.Kind == trace.Send && e.Resend || e.Kind == trace.ControlSend && e.Control == trace.ControlToken, e.Kind == trace.ControlSend
	}, func(d *pkDuty) { s.unmet(e.P, d, seq) })
}

// unmet reports duty d of process p left unfulfilled by the event at
// seq (None: by the end of the run).
func (s *pkSpec) unmet(p int32, d *pkDuty, seq int32) {
	if s.diverged || s.mute {
		return
	}
	next, seqs := s.next(seq), []int32{d.seq, seq}
	switch {
	case d.kind == dutyResume:
		s.divergef(seqs, "%s does not resume when its token returns at seq %d\nthe token with %s's announcement came back at seq %d, so it resumes there, but %s", s.name(p), d.seq, s.name(p), d.seq, next)
	case d.kind == dutyOwnToken:
		s.divergef(seqs, "%s's restart at seq %d sends no token\na restarted PK process sends a token with its announcement to its ring successor at once, but %s", s.name(p), d.seq, next)
	case len(d.resent) > 0 && seq != history.None && s.m.Event(seq).Kind == trace.Rollback:
		s.divergef(seqs, "%s rolls back at seq %d after resending for the token it received at seq %d\na token's receiver rolls back first, if its state is an orphan, and only then resends what the announcer lacks from its live history: a send the rollback undoes is no longer one to resend",
			s.name(p), seq, d.recv)
	default:
		s.divergef(seqs, "%s does not forward the token it received at seq %d\na process that a failure's token reaches resends what the announcer lacks and forwards the token to its successor at once, but %s",
			s.name(p), d.recv, next)
	}
}

// resend judges a token hop's resend: a send of the hop's live history to
// the announcer, whose identity the token's list lacks, once per hop.
func (s *pkSpec) resend(seq int32, e *trace.RunEvent, p *pkProc, d *pkDuty) {
	if d == nil || d.kind != dutyHop {
		s.divergef([]int32{seq}, "%s resends %s at seq %d, neither at its restart nor at a token\na PK process resends at its own restart, while down, or when a failure's token reaches it, just before it forwards the token; %s is up at seq %d and owes no token hop",
			s.name(e.P), s.m.MsgName(e.Msg), seq, s.name(e.P), seq)
		s.repeats(seq, e, e.Failure)
		return
	}
	b := s.m.Run.Body(s.m.Event(d.recv))
	failure := s.m.Event(d.recv).Failure
	if orig := s.m.SendOf[seq]; orig != history.None && b != nil {
		o := s.m.Event(orig)
		_, inc, _ := s.copyVT(s.copyOf(o))
		id := trace.Identity{Msg: o.Msg, Inc: inc}
		why := ""
		switch by := s.m.UndoneBy[orig]; {
		case o.P != e.P || o.Peer != b.Origin || e.Peer != b.Origin:
			why = fmt.Sprintf("it repeats the send at seq %d, by %s to %s, where a token hop resends only the hop's own sends to the announcer %s", orig, s.name(o.P), s.name(o.Peer), s.name(b.Origin))
		case by != history.None && by < seq:
			why = fmt.Sprintf("it repeats the send at seq %d, which seq %d undid: a token hop resends sends of its live history", orig, by)
		case inc != history.None && s.listRight(d) && s.tokenLists(d, b, id):
			why = fmt.Sprintf("the token lists %s, so the announcer's recovered state holds that message: a token hop resends only what the list lacks", identity(s.m, id))
		}
		if why != "" {
			s.divergef([]int32{seq}, "%s's resend of %s at seq %d for the failure at seq %d is not one the token asks for\n%s", s.name(e.P), s.m.MsgName(e.Msg), seq, failure, why)
		} else if slices.Contains(p.duties[0].resent, orig) {
			s.divergef([]int32{orig, seq}, "%s resends its send of %s at seq %d more than once for the failure at seq %d\na token hop resends each live send the announcer's recovered state lacks once; the resend at seq %d repeats the send at seq %d again, and the extra copies can only be dropped",
				s.name(e.P), s.m.MsgName(o.Msg), orig, failure, seq, orig)
		}
		p.duties[0].resent = append(p.duties[0].resent, orig)
	}
	s.repeats(seq, e, failure)
}

// tokenList is a failure's token list as its announcer sent it: its
// multiset hash and size, judged right (ok) or forged (bad).
type tokenList struct {
	sum uint64
	n   int
	ok  bool
	bad *badList
}

// listRight reports whether the list the token of hop d carries is the
// one its announcer sent, judged right: a forged list is the token's
// witness, and a hop that resends by the true list does right.
func (s *pkSpec) listRight(d *pkDuty) bool {
	if d.fi == history.None || int(d.fi) >= len(s.lists) || !s.lists[d.fi].ok {
		return false
	}
	sum, n := listedHash(s.m.Run.Body(s.m.Event(d.recv)))
	return sum == s.lists[d.fi].sum && n == s.lists[d.fi].n
}

// forward judges a token a process sends: its own, at its restart,
// carrying its announcement and the identities of its live receipts; or
// one it forwards, unchanged; either to its ring successor.
func (s *pkSpec) forward(seq int32, e *trace.RunEvent, p *pkProc, d *pkDuty) {
	if e.Control != trace.ControlToken {
		return // the shape's to report
	}
	if n := int32(len(s.procs)); e.Peer != (e.P+1)%n {
		s.divergef([]int32{seq}, "%s sends a token to %s at seq %d, not to its successor %s\na PK token travels the logical ring of the header's process order, each process forwarding it to the next (index i+1 mod %d), so %s's token goes to %s",
			s.name(e.P), s.name(e.Peer), seq, s.name((e.P+1)%n), n, s.name(e.P), s.name((e.P+1)%n))
	}
	if d == nil {
		s.divergef([]int32{seq}, "%s sends a token at seq %d outside its restart or a token hop\na PK process sends its own token at its restart and forwards a token at its arrival; it sends none otherwise",
			s.name(e.P), seq)
		return
	}
	b := s.m.Run.Body(e)
	if b == nil {
		return
	}
	if d.kind == dutyOwnToken {
		s.ownToken(seq, e, p, d, b)
		return
	}
	got := s.m.Event(d.recv)
	rb := s.m.Run.Body(got) // never nil: token judged it
	s.resentAll(seq, e, d, rb)
	same := e.Body == got.Body || sameToken(b, rb)
	if d.fi != history.None && int(d.fi) < len(s.lists) && s.lists[d.fi].bad != nil && same {
		s.lists[d.fi].bad.seqs = append(s.lists[d.fi].bad.seqs, seq)
	}
	if !same {
		what := fmt.Sprintf("%s forwards at seq %d another token than it received at seq %d", s.name(e.P), seq, d.recv)
		// The lists may be equal: then the tokens differ in whether they
		// carry one at all (firstDiff is for lists that differ).
		if rb.Origin == b.Origin && rb.Inc == b.Inc && rb.K == b.K && d.fi != history.None && !slices.Equal(listed(rb), listed(b)) {
			what = fmt.Sprintf("%s's token (failure seq %d) sent at seq %d %s", s.name(b.Origin), s.m.Failures[d.fi].Seq, seq,
				firstDiff(s.m, b.Origin, s.m.Failures[d.fi].Restart, listed(rb), listed(b)))
		}
		s.divergef([]int32{d.recv, seq}, "%s\na process forwards a token as it received it, but %s received %s at seq %d and forwards %s",
			what, s.name(e.P), describeBody(s.m, rb), d.recv, describeBody(s.m, b))
	}
}

// resentAll judges, at the forward at seq of hop d's token b, that the
// hop resent every send of its live history to the announcer whose
// identity the token lacks (issue 28's red team: a hop that resent
// nothing passed when the announcer got the messages anyway).
func (s *pkSpec) resentAll(seq int32, e *trace.RunEvent, d *pkDuty, b *trace.ControlBody) {
	if !s.listRight(d) {
		return // a forged list is the token's witness
	}
	live, sent := s.b.Live(e.P), s.procs[e.P].sentTo[b.Origin]
	if len(sent) == 0 {
		return
	}
	// An undone send is never live again: drop it for the next hops.
	sent = slices.DeleteFunc(sent, func(x pkSent) bool { return int(x.op) >= len(live) || live[x.op] != x.seq })
	s.procs[e.P].sentTo[b.Origin] = sent
	for _, x := range sent {
		// x.inc is the copy's identity, as sent records it; a copy
		// without a vector is not judged.
		id := trace.Identity{Msg: x.msg, Inc: x.inc}
		if _, _, ok := s.copyVT(x.ci); ok && !s.tokenLists(d, b, id) && !slices.Contains(d.resent, x.seq) {
			s.divergef([]int32{x.seq, d.recv, seq}, "%s forwards the token it received at seq %d without resending its send of %s at seq %d\na process that a failure's token reaches resends to the announcer every send of its live history whose identity the token lacks, then forwards the token; the token lacks %s",
				s.name(e.P), d.recv, s.m.MsgName(x.msg), x.seq, identity(s.m, id))
			return
		}
	}
}

// sameToken reports whether two token bodies carry the same announcement
// and list (compared by multiset hash and size).
func sameToken(a, b *trace.ControlBody) bool {
	if a.Origin != b.Origin || a.Inc != b.Inc || a.K != b.K || (a.Receipts == nil && a.Received == nil) != (b.Receipts == nil && b.Received == nil) {
		return false
	}
	x, n := listedHash(a)
	y, k := listedHash(b)
	return x == y && n == k
}

// ownToken judges a restarted process's token: its announcement (i, inc,
// k) and the identities of the receipts live in its recovered state.
func (s *pkSpec) ownToken(seq int32, e *trace.RunEvent, p *pkProc, d *pkDuty, b *trace.ControlBody) {
	if d.fi == history.None || s.m.Failures[d.fi].Ann == nil {
		return
	}
	a, f := s.m.Failures[d.fi].Ann, &s.m.Failures[d.fi]
	s.carries(seq, e, d.fi, trace.ControlBody{Origin: a.Origin, Count: history.None, R: history.None, Inc: a.Inc, K: a.K})
	if b.Receipts == nil && b.Received == nil {
		return // a token without a list is not judged for it
	}
	switch {
	case s.b.Gaps(e.P) > 0:
		s.res.cannotJudge(fmt.Sprintf("%s's live history at its restart at seq %d has gaps, so the receipts its token lists cannot be rebuilt", s.name(e.P), f.Restart))
		return
	case len(p.blind) > 0:
		s.res.cannotJudge(fmt.Sprintf("%s's receipt of %s at seq %d takes a copy no send transmitted, so its identity, which a token lists, cannot be told", s.name(e.P), s.m.MsgName(s.m.Event(p.blind[0]).Msg), p.blind[0]))
		return
	}
	sum, n := listedHash(b)
	for int(d.fi) >= len(s.lists) {
		s.lists = append(s.lists, tokenList{})
	}
	s.lists[d.fi] = tokenList{sum: sum, n: n, ok: true}
	if sum == p.rsum && n == int(p.rn) {
		return
	}
	wantIDs := s.liveReceipts(e.P)
	got := listed(b)
	if slices.Equal(wantIDs, got) {
		return
	}
	s.lists[d.fi] = tokenList{sum: sum, n: n, bad: &badList{seqs: []int32{f.Seq, f.Restart, seq},
		diff: firstDiff(s.m, e.P, f.Restart, wantIDs, got), want: identities(s.m, wantIDs), got: identities(s.m, got)}}
}

// badList is a forged token list, reported once (finish) with every hop
// that carried it.
type badList struct {
	seqs            []int32 // the fail, the restart, the control_sends carrying it
	diff, want, got string
}

// reportLists reports the forged token lists.
func (s *pkSpec) reportLists() {
	for fi, l := range s.lists {
		if w := l.bad; w != nil {
			sent := "seq "
			if len(w.seqs) > 3 {
				sent = "seqs "
			}
			sent += strings.ReplaceAll(strings.Trim(fmt.Sprint(w.seqs[2:]), "[]"), " ", ", ")
			f := &s.m.Failures[fi]
			s.divergef(w.seqs, "%s's token (failure seq %d) sent at %s %s\na token carries the identity (message, sender's incarnation at the send) of every receipt live in its announcer's recovered state, so that each process resends to it exactly what it lacks; rebuilt from %s's live history right after its restart at seq %d (the receipts its restored checkpoint holds and those its replay took from the stable log), that set is %s, but the token sent at %s lists %s",
				s.name(f.P), f.Seq, sent, w.diff, s.name(f.P), f.Restart, w.want, sent, w.got)
		}
	}
}

// liveReceipts returns the identities of p's live receipts, sorted: the
// witness of a token list whose hash differs from the running one.
func (s *pkSpec) liveReceipts(pid int32) []trace.Identity {
	var out []trace.Identity
	for _, x := range s.b.Live(pid) {
		if x == history.None || s.m.Event(x).Kind != trace.Recv {
			continue
		}
		if ci := s.copyOf(s.m.Event(x)); ci >= 0 && int(ci) < len(s.copies) {
			out = append(out, trace.Identity{Msg: s.m.Event(x).Msg, Inc: s.copies[ci].inc})
		}
	}
	slices.SortFunc(out, compareIdentity)
	return out
}

// resume judges a resume: the token with the process's announcement came
// back.
func (s *pkSpec) resume(seq int32, e *trace.RunEvent, p *pkProc, d *pkDuty) {
	switch {
	case d != nil && d.kind == dutyResume:
	case p.waiting == history.None:
		s.divergef([]int32{seq}, "%s resumes at seq %d but holds for no restart\nresume says a restarted process's token came back and it executes again, but %s has not restarted since it last resumed or failed",
			s.name(e.P), seq, s.name(e.P))
	default:
		s.divergef([]int32{p.waiting, seq}, "%s resumes at seq %d before its token returned\n%s restarted at seq %d and sent a token with its announcement round the ring; it may resume only when that token returns, but no token with its announcement reached it before seq %d",
			s.name(e.P), seq, s.name(e.P), p.waiting, seq)
	}
	p.waiting = history.None
}

// listedHash is the multiset hash and size of body b's list.
func listedHash(b *trace.ControlBody) (uint64, int) {
	if h, ok := b.Receipts.(trace.ReceiptHasher); ok {
		return h.SetHash()
	}
	var sum uint64
	ids := b.ReceivedList()
	for _, id := range ids {
		sum += trace.IdentityHash(id)
	}
	return sum, len(ids)
}

// listed returns body b's list sorted by message then incarnation.
func listed(b *trace.ControlBody) []trace.Identity {
	return slices.SortedFunc(slices.Values(b.ReceivedList()), compareIdentity)
}

// tokenLists reports whether token body b, of hop d, lists identity id: by
// the algorithm's own lookup, or in the list. A list read from a file is
// in the file's order, which need not be the run's message order: it is
// sorted once for the hops of its failure's token (a scan per lookup was
// quadratic in the list; a search of the unsorted list missed listed
// identities: issue 28's red team). Callers know the list right
// (listRight), so every hop of the token lists the same identities.
func (s *pkSpec) tokenLists(d *pkDuty, b *trace.ControlBody, id trace.Identity) bool {
	if l, ok := b.Receipts.(trace.ReceiptLookup); ok {
		return l.HasIdentity(id)
	}
	if s.sorted.keys == nil || s.sorted.fi != d.fi {
		l := b.ReceivedList()
		s.sorted.fi, s.sorted.keys = d.fi, make([]uint64, len(l))
		for i, x := range l {
			s.sorted.keys[i] = identityKey(x)
		}
		slices.Sort(s.sorted.keys)
	}
	_, ok := slices.BinarySearch(s.sorted.keys, identityKey(id))
	return ok
}

// identityKey packs an identity in one number: a sort and search of
// numbers, not of pairs through a comparison function.
func identityKey(id trace.Identity) uint64 {
	return uint64(uint32(id.Msg))<<32 | uint64(uint32(id.Inc))
}

func compareIdentity(a, b trace.Identity) int {
	return cmp.Or(cmp.Compare(a.Msg, b.Msg), cmp.Compare(a.Inc, b.Inc))
}

// firstDiff says where two sorted lists that differ first part: an
// identity the run lists that the rebuilt set lacks, or the reverse.
func firstDiff(m *history.Model, p, restart int32, want, got []trace.Identity) string {
	k := 0
	for k < len(want) && k < len(got) && want[k] == got[k] {
		k++
	}
	who := m.ProcName(p)
	switch {
	case k < len(got) && k > 0 && got[k] == got[k-1]:
		return fmt.Sprintf("lists %s twice, which %s had received live once at its restart at seq %d", identity(m, got[k]), who, restart)
	case k < len(got) && (k == len(want) || compareIdentity(got[k], want[k]) < 0):
		return fmt.Sprintf("lists %s, which %s had not received live at its restart at seq %d", identity(m, got[k]), who, restart)
	}
	return fmt.Sprintf("lacks %s, which %s had received live at its restart at seq %d", identity(m, want[k]), who, restart)
}

// maxListed bounds the identities a witness spells out.
const maxListed = 8

func identity(m *history.Model, id trace.Identity) string {
	return fmt.Sprintf("(%s, inc %d)", m.MsgName(id.Msg), id.Inc)
}

// identities renders a list: its first maxListed entries and its size.
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
