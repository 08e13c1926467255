package render

import (
	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
)

func i32(v int32) *int32 { return &v }
func ip(v int) *int      { return &v }

func vt(pairs ...int32) report.VT {
	out := make(report.VT, 0, len(pairs)/2)
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, trace.VTEntry{Inc: pairs[i], Count: pairs[i+1]})
	}
	return out
}

func props(status map[string]report.Status, viols map[string][]report.Violation, notes map[string]string) []report.Property {
	var out []report.Property
	for _, n := range report.PropertyNames {
		s, ok := status[n]
		note := notes[n]
		switch {
		case !ok && n == report.RDT:
			// FDAS's promise: n/a for the fixtures' algorithms.
			s, note = report.NA, "FDAS only"
		case !ok:
			s = report.Pass
		}
		out = append(out, report.Property{Name: n, Status: s, Violations: viols[n], Note: note})
	}
	return out
}

const sec = trace.Second

// cleanPair is MS and PK on one trace with one failure of P1: both
// recover correctly.
func cleanPair() []report.Report {
	ms := report.Report{
		File: "testdata/traces/forced.json", Algorithm: "ms", Valid: true,
		Properties: props(nil, nil, nil),
		Recoveries: []report.Recovery{{
			Failure: report.FailureRef{P: "P1", T: 2 * sec, Seq: 41},
			RecLine: i32(3),
			Line: []report.LineEntry{
				{P: "P0", Restore: i32(2), Sn: i32(3), Pos: 5, Undone: 4, Replayed: 1, Extra: ip(1), Cause: "request"},
				{P: "P1", Restore: i32(3), Sn: i32(3), Pos: 6, Undone: 2, Extra: ip(0), Cause: "restart"},
				{P: "P2", Pos: 7, Extra: ip(0), Cause: "none"},
			},
			ControlMessages: 2,
			MaxLine: []report.MaxLineEntry{
				{P: "P0", Ckpt: 2, Pos: 6, Undone: 3},
				{P: "P1", Ckpt: 3, Pos: 6, Undone: 2},
				{P: "P2", Ckpt: -1, Pos: 7, Undone: 0},
			},
		}},
		Baseline: report.Baseline{Uncoordinated: report.Uncoordinated{
			Domino: true, Undone: 17, Useless: 3,
			Line: []report.UncoordinatedFailure{{
				Failure: report.FailureRef{P: "P1", T: 2 * sec, Seq: 12},
				Domino:  true,
				Line: []report.UncoordinatedEntry{
					{P: "P0", Ckpt: 0, Pos: 0, Undone: 9, Domino: true},
					{P: "P1", Ckpt: 1, Pos: 2, Undone: 6},
					{P: "P2", Ckpt: -1, Pos: 7, Undone: 0},
				},
			}},
		}},
		Stats: report.Stats{
			Events: 96, Messages: 14,
			Checkpoints: report.CheckpointStats{Initial: 3, Basic: 7, Forced: 2, Recovery: 1, Skipped: 1, Collectable: 4},
			Logged:      3, Replayed: 1, Discarded: 1, ControlMessages: 2, Rollbacks: 2, Undone: 6,
			PiggybackBytes: 112, DiscardedBy: map[string]int{"stale": 1},
		},
	}
	pk := report.Report{
		File: "testdata/traces/forced.json", Algorithm: "pk", Valid: true,
		Properties: props(map[string]report.Status{report.ZCycleFree: report.NA, report.SnLines: report.NA}, nil,
			map[string]string{report.ZCycleFree: "PK does not promise it; 1 useless checkpoint", report.SnLines: "MS only"}),
		Recoveries: []report.Recovery{{
			Failure:      report.FailureRef{P: "P1", T: 2500 * trace.Second / 1000, Seq: 40},
			Announcement: &report.Announcement{Inc: 0, K: 6},
			Line: []report.LineEntry{
				{P: "P0", Restore: i32(1), VT: vt(0, 3, 0, 1, 0, 0), Pos: 4, Undone: 1, Discarded: 1, Extra: ip(-2), Cause: "token"},
				{P: "P1", Restore: i32(2), VT: vt(0, 2, 0, 5, 0, 1), Pos: 6, Undone: 2, Replayed: 1, Resent: 1, Extra: ip(0), Cause: "restart"},
				{P: "P2", VT: vt(0, 0, 1, 6, 0, 7), Pos: 7, Extra: ip(0), Cause: "none"},
			},
			ControlMessages: 3,
		}},
		Baseline: report.Baseline{Uncoordinated: report.Uncoordinated{
			Domino: true, Undone: 17, Useless: 3,
			Line: []report.UncoordinatedFailure{{
				Failure: report.FailureRef{P: "P1", T: 2500 * trace.Second / 1000, Seq: 12},
				Domino:  true,
				Line: []report.UncoordinatedEntry{
					{P: "P0", Ckpt: 0, Pos: 0, Undone: 9, Domino: true},
					{P: "P1", Ckpt: 1, Pos: 2, Undone: 6},
					{P: "P2", Ckpt: 1, Pos: 5, Undone: 2},
				},
			}},
		}},
		Stats: report.Stats{
			Events: 101, Messages: 15,
			Checkpoints: report.CheckpointStats{Initial: 3, Basic: 7, Useless: 1},
			Logged:      5, Replayed: 1, Discarded: 1, Resent: 1, ControlMessages: 3, Rollbacks: 2, Undone: 3,
			PiggybackBytes: 1440, DiscardedBy: map[string]int{"orphan": 1}, TokenHops: 3, Holds: 1,
		},
	}
	return []report.Report{ms, pk}
}

// violatingPair is the textbook MS variant under concurrent failures,
// keeping an orphan, and a PK run without resends that loses a message.
// Messages quote trace text with markup characters on purpose.
func violatingPair() []report.Report {
	orphan := []report.Violation{
		{Property: report.OrphanFree, Message: `P2 keeps the receipt of "m4" whose send P0 undid`, Seqs: []int32{17, 52, 58},
			Because: "P0 sent m4 at seq 17 with sn 2; P0 failed (seq 52) and restored checkpoint sn 1, undoing the send; " +
				"P2 had received m4 at seq 33 and applied recovery (P0, 1, r=1) at seq 58 with sn 1 < r is false, so it kept the receipt: " +
				"the textbook rule compares M.inc with one scalar inc and misses the second recovery."},
		{Property: report.OrphanFree, Message: `P1 keeps the receipt of "m7|x" after <rollback>`, Seqs: []int32{21, 60},
			Because: "m7|x was sent by P2 after its receipt of m4 (seq 33), an orphan;\nP1 received it at seq 60."},
	}
	ms := report.Report{
		File: "testdata/traces/concurrent.json", Algorithm: "ms-textbook", Valid: false,
		Properties: props(map[string]report.Status{report.OrphanFree: report.Fail, report.Equivalence: report.Fail, report.MinimalRollback: report.NA},
			map[string][]report.Violation{
				report.OrphanFree:  orphan,
				report.Equivalence: {{Property: report.Equivalence, Message: "P2's receive of op 3 got m7 instead of m5", Seqs: []int32{61}, Because: "a consequence of the orphan above"}},
			},
			map[string]string{report.MinimalRollback: "PK only"}),
		Recoveries: []report.Recovery{
			{
				Failure: report.FailureRef{P: "P0", T: 3 * sec, Seq: 52}, RecLine: i32(1),
				Line: []report.LineEntry{
					{P: "P0", Restore: i32(1), Sn: i32(1), Pos: 2, Undone: 3, Extra: ip(0), Cause: "restart"},
					{P: "P1", Restore: i32(1), Sn: i32(1), Pos: 3, Undone: 2, Discarded: 1, Extra: ip(0), Cause: "request"},
					{P: "P2", Pos: 5, Extra: ip(0), Cause: "none"},
				},
				ControlMessages: 2,
			},
			{
				Failure: report.FailureRef{P: "P2", T: 3100 * trace.Second / 1000, Seq: 54}, RecLine: i32(2),
				Line: []report.LineEntry{
					{P: "P0", Pos: 2, Cause: "none"},
					{P: "P1", Pos: 3, Cause: "none"},
					{P: "P2", Restore: i32(2), Sn: i32(2), Pos: 4, Undone: 1, Replayed: 2, Cause: "restart"},
				},
				ControlMessages: 2,
				Note:            "no max line or extra: ckpt snapshots at most 2000000 live ops per run to draw max lines, and this failure's snapshot would pass that bound",
			},
		},
		Baseline: report.Baseline{Uncoordinated: report.Uncoordinated{Domino: false, Undone: 9, Useless: 0}},
		Stats: report.Stats{
			Events: 70, Messages: 9, Checkpoints: report.CheckpointStats{Initial: 3, Basic: 4, Forced: 1},
			Logged: 2, Replayed: 2, Discarded: 1, ControlMessages: 4, Rollbacks: 3, Undone: 6, PiggybackBytes: 54,
		},
	}
	pk := report.Report{
		File: "testdata/traces/concurrent.json", Algorithm: "pk", Valid: false,
		Properties: props(map[string]report.Status{report.NoLostMessages: report.Fail, report.ZCycleFree: report.NA, report.SnLines: report.NA, report.Equivalence: report.Unknown},
			map[string][]report.Violation{
				report.NoLostMessages: {{Property: report.NoLostMessages, Message: `P1 is blocked on "m3", whose send by P0 is live`, Seqs: []int32{14, 80},
					Because: "P0's send of m3 (seq 14) is live; P1's receipt of it was undone by the token of P0's failure and no resend came."}},
			},
			map[string]string{report.ZCycleFree: "PK does not promise it", report.SnLines: "MS only", report.Equivalence: "run has no source trace"}),
		Recoveries: []report.Recovery{{
			Failure: report.FailureRef{P: "P0", T: 3 * sec, Seq: 50}, Announcement: &report.Announcement{Inc: 0, K: 2},
			Line: []report.LineEntry{
				{P: "P0", Restore: i32(1), VT: vt(0, 2, 0, 0, 0, 0), Pos: 2, Undone: 3, Extra: ip(0), Cause: "restart"},
				{P: "P1", Restore: i32(0), VT: vt(0, 0, 0, 0, 0, 0), Pos: 0, Undone: 3, Cause: "token", Extra: ip(1)},
				{P: "P2", Pos: 5, Extra: ip(0), Cause: "none"},
			},
			ControlMessages: 3,
		}},
		Baseline: report.Baseline{Uncoordinated: report.Uncoordinated{
			Domino: false, Undone: 9,
			Line: []report.UncoordinatedFailure{{
				Failure: report.FailureRef{P: "P2", T: 3100 * trace.Second / 1000, Seq: 30},
				Line:    []report.UncoordinatedEntry{{P: "P0", Ckpt: -1, Pos: 2, Undone: 0}, {P: "P2", Ckpt: 1, Pos: 3, Undone: 2}},
			}},
		}},
		Stats: report.Stats{Events: 66, Messages: 9, Checkpoints: report.CheckpointStats{Initial: 3, Basic: 4},
			Logged: 4, ControlMessages: 3, Rollbacks: 2, Undone: 6, PiggybackBytes: 600, TokenHops: 3},
	}
	return []report.Report{ms, pk}
}
