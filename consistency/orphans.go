package consistency

import (
	"fmt"
	"strings"

	"github.com/ckpt-dev/ckpt/trace"
)

// orphans judges orphan-free at every handling point, and PK's
// minimal-rollback and rollback bound, with the checker's own
// happened-before.
//
// Happened-before is propagated forward in seq order: the run is in time
// order, an op's program-order predecessor and a receive's send both come
// earlier, so one pass computes, for up to 64 failures at once, which
// events depend on U_f (everything undone for f) and on L_f (what the
// failed process lost: its ops undone by the restart) — one uint64 per
// event per mask, no vector clocks. A third mask marks the states that
// hold a receipt of an orphan of f.
func (c *checker) orphans() {
	if c.opsMissing || c.copyMissing {
		why := "the run lacks op or copy numbers, so live histories and causality cannot be rebuilt"
		c.setUnknown(orphanFreeName, why)
		c.setUnknown(minimalRollbackName, why)
		return
	}
	n := len(c.run.Events)
	if len(c.failures) == 0 {
		return
	}
	depU := make([]uint64, n)
	depL := make([]uint64, n)
	orph := make([]uint64, n)
	ev := c.run.Events
	for base := 0; base < len(c.failures); base += 64 {
		hi := min(base+64, len(c.failures))
		self := func(s int32) (u, l uint64) {
			by := c.undoneBy[s]
			if by < 0 || c.failOf[by] < 0 {
				return 0, 0
			}
			fi := c.failOf[by]
			if fi < int32(base) || fi >= int32(hi) {
				return 0, 0
			}
			b := uint64(1) << (fi - int32(base))
			if ev[by].Kind == trace.Restart {
				return b, b
			}
			return b, 0
		}
		for i := 0; i < n; i++ {
			e := &ev[i]
			if !e.Kind.IsOp() || e.Resend || e.Op == none {
				continue
			}
			u, l := self(int32(i))
			var o uint64
			if p := c.pred[i]; p != none {
				u |= depU[p]
				l |= depL[p]
				o = orph[p]
			}
			if e.Kind == trace.Recv {
				if s := c.sendOf[i]; s != none {
					u |= depU[s]
					l |= depL[s]
					o |= depU[s]
				}
			}
			depU[i], depL[i], orph[i] = u, l, o
		}
		// Handling points: the state right after must hold no receipt of
		// an orphan of the failure it handled.
		for _, h := range c.handlings {
			if h.f < int32(base) || h.f >= int32(hi) || h.top == none {
				continue
			}
			bit := uint64(1) << (h.f - int32(base))
			if orph[h.top]&bit != 0 {
				c.orphanWitness(h, bit, depU, orph, self)
			}
			if c.alg == algPK && ev[h.seq].Kind == trace.Rollback && depL[h.top]&bit != 0 {
				c.violate(minimalRollbackName, fmt.Sprintf("%s's rollback at seq %d stops short of its orphan suffix", c.proc(h.p), h.seq), []int32{h.seq, h.top},
					fmt.Sprintf("after the rollback at seq %d %s still holds %s, which depends on events %s lost in %s, so the rollback did not undo the whole orphan suffix",
						h.seq, c.proc(h.p), c.describe(h.top), c.proc(c.failures[h.f].p), c.failName(h.f)))
			}
		}
		if c.alg != algPK {
			continue
		}
		// PK bound: a rollback for f undoes only ops that depend on L_f.
		reported := map[int32]bool{}
		for i := 0; i < n; i++ {
			by := c.undoneBy[i]
			if by < 0 || ev[by].Kind != trace.Rollback || reported[by] {
				continue
			}
			fi := c.failOf[by]
			if fi < int32(base) || fi >= int32(hi) {
				continue
			}
			bit := uint64(1) << (fi - int32(base))
			if depL[i]&bit != 0 {
				continue
			}
			reported[by] = true
			seqs := []int32{by, int32(i)}
			because := fmt.Sprintf("the rollback at seq %d answering %s undid %s, which does not depend on any event %s lost in that failure; PK must undo exactly the orphan suffix",
				by, c.failName(fi), c.describe(int32(i)), c.proc(c.failures[fi].p))
			c.violate(minimalRollbackName, fmt.Sprintf("%s rolled back further than its orphan suffix at seq %d", c.proc(ev[by].P), by), seqs, because)
			c.violate(dominoFreeName, fmt.Sprintf("%s rolled back past its first orphan event at seq %d", c.proc(ev[by].P), by), seqs, because)
		}
	}
}

// orphanWitness explains why the state after handling point h holds a
// receipt of an orphan: it finds the receipt on the process's live
// history and follows the dependency back to an undone event.
func (c *checker) orphanWitness(h handling, bit uint64, depU, orph []uint64, self func(int32) (uint64, uint64)) {
	ev := c.run.Events
	x := h.top
	for x != none {
		if ev[x].Kind == trace.Recv {
			if s := c.sendOf[x]; s != none && depU[s]&bit != 0 {
				break
			}
		}
		x = c.pred[x]
	}
	if x == none {
		return
	}
	r := &ev[x]
	s := c.sendOf[x]
	seqs := []int32{x, s, h.seq}
	var b strings.Builder
	fmt.Fprintf(&b, "%s is an orphan of %s: %s received it at seq %d and still holds that receipt right after handling the failure at seq %d (%s), but ",
		c.msg(r.Msg), c.failName(h.f), c.proc(r.P), x, h.seq, ev[h.seq].Kind)
	c.chain(&b, s, bit, depU, self, &seqs)
	c.violate(orphanFreeName, fmt.Sprintf("%s keeps a receipt of orphan %s after handling failure seq %d", c.proc(h.p), c.msg(r.Msg), c.failures[h.f].seq), seqs, b.String())
}

// chain writes why event s depends on an event undone for the failure
// whose bit is given: a sequence of "sent after … received … undone by"
// steps, at most a few hops long.
func (c *checker) chain(b *strings.Builder, s int32, bit uint64, depU []uint64, self func(int32) (uint64, uint64), seqs *[]int32) {
	ev := c.run.Events
	for hop := 0; hop < 6 && s != none; hop++ {
		x := s
		for x != none {
			if u, _ := self(x); u&bit != 0 {
				by := c.undoneBy[x]
				if x == s {
					fmt.Fprintf(b, "%s was undone by the %s at seq %d", c.describe(s), ev[by].Kind, by)
				} else {
					fmt.Fprintf(b, "%s comes after %s, which the %s at seq %d undid", c.describe(s), c.describe(x), ev[by].Kind, by)
				}
				*seqs = append(*seqs, x, by)
				return
			}
			if ev[x].Kind == trace.Recv {
				if y := c.sendOf[x]; y != none && depU[y]&bit != 0 {
					if x == s {
						fmt.Fprintf(b, "%s got %s, and ", c.describe(x), c.msg(ev[x].Msg))
					} else {
						fmt.Fprintf(b, "%s comes after %s, and ", c.describe(s), c.describe(x))
					}
					*seqs = append(*seqs, x)
					s = y
					break
				}
			}
			x = c.pred[x]
		}
		if x == none {
			break
		}
	}
	b.WriteString("… (chain truncated)")
}
