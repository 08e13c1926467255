package trace

import (
	"strings"
	"unicode"
)

// The fields ckpt's own algorithms always write (SPEC §6). A run that
// names one of them — ms, ms-textbook, pk and the checkpoint-placement
// protocols bcs, fdas, hmnr, coordinated — claims their rules, and the
// checker judges what it can of a field that is present and leaves what
// needs an absent one unknown: deleting evidence would turn an invalid
// run into one that passes. So such a run must carry every field its
// algorithm writes, and one that omits one is malformed. A foreign
// algorithm's run may omit any: what the checker then cannot judge is
// unknown, never pass.

// runShape is what one of ckpt's algorithms writes beyond what every
// event carries.
type runShape struct {
	recovers bool   // ms, ms-textbook, pk: failures, restores, control messages
	sn, vt   bool   // checkpoints and skipped ticks carry sn; checkpoints vt
	pb       pbKeys // the piggyback fields every send carries
}

type pbKeys struct{ sn, inc, recLine, vt, lc, dv, hmnr bool }

// runShapes are ckpt's algorithms, by the name a run's header gives.
var runShapes = map[string]runShape{
	"ms":          {recovers: true, sn: true, pb: pbKeys{sn: true}},
	"ms-textbook": {recovers: true, sn: true, pb: pbKeys{sn: true, inc: true, recLine: true}},
	"pk":          {recovers: true, vt: true, pb: pbKeys{vt: true}},
	"bcs":         {sn: true, pb: pbKeys{lc: true}},
	"fdas":        {pb: pbKeys{dv: true}},
	"hmnr":        {sn: true, pb: pbKeys{lc: true, hmnr: true}},
	"coordinated": {sn: true},
}

// LooksOwn returns the name of one of ckpt's algorithms that name is
// not, yet reads as — the same but for case, white space or invisible
// characters — or "". A run so named would be judged as a foreign one,
// whose rules are unknown rather than failed, while it claims ckpt's
// (a red team relabelled a forged MS run "ms " and it passed).
func LooksOwn(name string) string {
	folded := strings.ToLower(strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || unicode.Is(unicode.Cf, r) {
			return -1
		}
		return r
	}, name))
	if _, exact := runShapes[name]; exact {
		return ""
	}
	if _, ok := runShapes[folded]; ok {
		return folded
	}
	return ""
}

// MissingField returns a field event e lacks although the algorithm the
// run names always writes it, or "" (also for a foreign algorithm).
func (r *Run) MissingField(e *RunEvent) string {
	alg := r.Algorithm
	if alg == "ms" && r.Options.Variant == "textbook" {
		alg = "ms-textbook"
	}
	sh, ok := runShapes[alg]
	if !ok {
		return ""
	}
	var buf [16]field // the most a kind requires: a resend's, with HMNR's piggyback
	for _, f := range sh.fields(r, e, buf[:0]) {
		if f.missing {
			return f.name
		}
	}
	return ""
}

// MissingOption returns the replay option a run of one of ckpt's
// algorithms lacks ("options.restart_delay", "options.control_delay" or
// "options.default_delay"), or "". ckpt's replays always write the three
// delays, and the checker's timing rules (SPEC §3: a restart, a control
// message, an arrival at its instant) are judged from them: a run
// without them would pass a forged time unjudged. A recorded run
// (options.timing) keeps its system's own times and needs none.
func (r *Run) MissingOption() string {
	if _, ok := runShapes[r.Algorithm]; !ok || r.Options.Timing != "" {
		return ""
	}
	switch p := &r.Options.Params; {
	case p.RestartDelay <= 0:
		return "options.restart_delay"
	case p.ControlDelay <= 0:
		return "options.control_delay"
	case p.DefaultDelay <= 0:
		return "options.default_delay"
	}
	return ""
}

// RecordedWithDelays reports whether the run says its times were
// recorded (options.timing) yet records a replay's delays: a recorder
// writes none (record.Merge), so such a run is a replay relabelled, and
// the times it would no longer be judged on are the replay's.
func (r *Run) RecordedWithDelays() bool {
	p := &r.Options.Params
	return r.Options.Timing != "" && (p.RestartDelay > 0 || p.ControlDelay > 0 || p.DefaultDelay > 0)
}

type field struct {
	name    string
	missing bool
}

// fields appends to dst the fields of e the shape requires, each with
// whether it is missing (dst: the caller's buffer, so that checking an
// event allocates nothing).
func (sh runShape) fields(r *Run, e *RunEvent, dst []field) []field {
	switch e.Kind {
	case Send:
		fs := append(dst, []field{{"msg", e.Msg == None}, {"to", e.Peer == None}, {"op", e.Op == None}, {"copy", e.Copy <= 0}, {"pb", e.PB == None}}...)
		if e.Resend {
			fs = append(fs, field{"of", e.Of <= 0}, field{"failure", e.Failure == None})
		}
		return sh.pb.fields(r.PB(e), fs)
	case Recv:
		return append(dst, []field{{"msg", e.Msg == None}, {"from", e.Peer == None}, {"op", e.Op == None}, {"copy", e.Copy <= 0}, {"via", e.Via == ViaNone}}...)
	case Internal:
		return append(dst, []field{{"op", e.Op == None}}...)
	case Checkpoint:
		return append(dst, []field{{"ckpt", e.Ckpt == None}, {"type", e.CkptType == CkptNone}, {"pos", e.Pos == None},
			{"sn", sh.sn && e.Sn == None}, {"vt", sh.vt && e.VT == None},
			{"failure", sh.recovers && e.CkptType == CkptRecovery && e.Failure == None}}...)
	case CheckpointSkipped:
		return append(dst, []field{{"next", sh.recovers && sh.sn && e.Reason == ReasonNone && e.Next == None},
			{"sn", sh.recovers && sh.sn && e.Reason == ReasonNone && e.Sn == None}}...)
	case Log, Unconsumed:
		return append(dst, []field{{"msg", e.Msg == None}, {"copy", e.Copy <= 0}, {"op", e.Kind == Log && e.Op == None}}...)
	case Discard:
		return append(dst, []field{{"msg", e.Msg == None}, {"copy", e.Copy <= 0}, {"reason", e.Reason == ReasonNone},
			{"failure", e.Failure == None && (e.Reason == ReasonStale || e.Reason == ReasonOrphan)}}...)
	case Restart, Rollback:
		return append(dst, []field{{"restore", e.Restore == None}, {"pos", e.Pos == None}, {"undone", e.Undone == None},
			{"inc", e.Kind == Restart && e.Inc == None}, {"cause", e.Kind == Rollback && e.Cause == CauseNone},
			{"failure", e.Failure == None}}...)
	case Hold:
		// MS and PK hold a receive until a recovery's Rollback request or
		// announcement arrives (its failure); the placement protocols
		// never hold, so a hold of theirs is the spec's to reject.
		return append(dst, []field{{"msg", e.Msg == None}, {"until", e.Until == None}, {"failure", sh.recovers && e.Failure == None}}...)
	case Unhold:
		return append(dst, []field{{"msg", e.Msg == None}}...)
	case ControlSend, ControlRecv:
		return sh.control(r, e, dst)
	case End:
		return append(dst, []field{{"state", e.State == StateNone}, {"op", (e.State == StateBlocked || e.State == StateHeld) && e.Op == None},
			{"msg", e.State == StateBlocked && e.Msg == None}}...)
	}
	return nil
}

// control lists a control message's fields: MS's Rollback request
// carries its recovery (origin, count, r), PK's token its announcement
// (origin, inc, k) and list, coordinated checkpointing's its round.
func (sh runShape) control(r *Run, e *RunEvent, dst []field) []field {
	peer := "to"
	if e.Kind == ControlRecv {
		peer = "from"
	}
	fs := append(dst, []field{{"control", e.Control == ControlNone}, {peer, e.Peer == None}, {"body", e.Body == None},
		{"failure", sh.recovers && e.Failure == None}}...)
	b := r.Body(e)
	if b == nil {
		return fs
	}
	fs = append(fs, field{"body.origin", b.Origin == None})
	switch e.Control {
	case ControlRollback:
		return append(fs, field{"body.count", b.Count == None}, field{"body.r", b.R == None})
	case ControlToken:
		return append(fs, field{"body.inc", b.Inc == None}, field{"body.k", b.K == None}, field{"body.received", b.Received == nil && b.Receipts == nil})
	}
	return append(fs, field{"body.count", b.Count == None})
}

// fields appends to dst the piggyback fields of pb the algorithm always
// sends.
func (k pbKeys) fields(pb *Piggyback, dst []field) []field {
	if pb == nil {
		return dst
	}
	c := pb.CIC
	return append(dst, []field{{"pb.sn", k.sn && pb.Sn == None}, {"pb.inc", k.inc && pb.Inc == None}, {"pb.rec_line", k.recLine && pb.RecLine == None},
		{"pb.vt", k.vt && pb.VT == nil}, {"pb.lc", k.lc && (c == nil || c.LC == None)}, {"pb.dv", k.dv && (c == nil || c.DV == nil)},
		{"pb.ckpt", k.hmnr && (c == nil || c.Ckpt == nil)}, {"pb.taken", k.hmnr && (c == nil || c.Taken == nil)}, {"pb.greater", k.hmnr && (c == nil || c.Greater == nil)}}...)
}
