package consistency

import (
	"testing"

	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// unsentOpts shape pkUnsentRun.
type unsentOpts struct {
	logged    bool // P0 logs its receipt of m9
	announced bool // P1 failed first, so P0 has recorded an announcement
	// ckpt: P0 takes checkpoint 1 after its log and restarts from it, its
	// token listing the receipts (receivedToken) rather than none.
	ckpt bool
}

// pkUnsentRun: P0 receives copy 1 of m9, which no send transmitted, maybe
// logs it, crashes and restarts from its initial checkpoint keeping the
// receipt (pos 1); the token goes round the ring of two. With announced,
// P1 first runs an internal op, crashes and restarts keeping it, and its
// token reaches P0 before the receipt.
func pkUnsentRun(o unsentOpts) func(*testing.T) *trace.Run {
	return func(*testing.T) *trace.Run {
		b := newRun("pk", "P0", "P1")
		b.internal("P1", 0)
		if o.announced {
			f1 := b.fail("P1")
			b.restart("P1", 0, 1, 0, f1)
			b.control("P1", "P0", trace.ControlToken, f1, token(1, 0, 1))
			b.control("P0", "P1", trace.ControlToken, f1, token(1, 0, 1))
			b.add(trace.Resume, "P1", nil)
		}
		b.recv("P0", "P1", "m9", 0, 1, trace.ViaNet)
		if o.logged {
			b.log("P0", "m9", 0, 1)
		}
		restored, tok := int32(0), token(0, 0, 1)
		if o.ckpt {
			b.pkCkpt("P0", 1, 1, [2]int32{0, 1}, [2]int32{0, 0})
			restored, tok = 1, receivedToken(0, 0, 1)
		}
		f := b.fail("P0")
		b.restart("P0", restored, 1, 0, f)
		b.control("P0", "P1", trace.ControlToken, f, tok)
		b.control("P1", "P0", trace.ControlToken, f, tok)
		b.add(trace.Resume, "P0", nil)
		b.done("P0", "P1")
		return b.run
	}
}

// A PK receipt of a copy never sent is orphan-free's fault. Its log
// event still makes it stable for the restart-position rule, which used
// to stop replay there "with no stable log entry", a second, misleading
// witness; a receipt with no log event is still reported as such.
func TestPKUnsentReceiptRestartPos(t *testing.T) {
	const unsent = "P0 received copy 1 of m9 that was never sent"
	noSrc := report.Equivalence // no source trace: unknown
	checkRuleCases(t, []ruleCase{
		{name: "logged", run: pkUnsentRun(unsentOpts{logged: true}),
			prop: report.OrphanFree, status: fail, witness: unsent,
			also: map[string]report.Status{report.LogReplayRules: pass, noSrc: unknown}},
		// Whether the copy is an orphan of P1's announcement cannot be
		// told: it has no vector.
		{name: "logged-after-announcement", run: pkUnsentRun(unsentOpts{logged: true, announced: true}),
			prop: report.LogReplayRules, status: unknown, witness: "a logged receipt's copy was never sent",
			also: map[string]report.Status{report.OrphanFree: fail, noSrc: unknown}},
		{name: "unlogged", run: pkUnsentRun(unsentOpts{}),
			prop: report.LogReplayRules, status: fail, witness: "op 0, a receive of m9 with no stable log entry at the crash",
			also: map[string]report.Status{report.OrphanFree: fail, noSrc: unknown}},
	})
}
