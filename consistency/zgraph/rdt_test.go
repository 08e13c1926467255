package zgraph

import (
	"slices"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/rline"
)

func TestCheck(t *testing.T) {
	tests := []struct {
		name  string
		ckpts [][]int32
		msgs  []rline.Msg
		want  []RDTViolation
	}{
		{"no messages", [][]int32{{0, 0, 0}, {0}}, nil, nil},
		// A causal chain is its own double.
		{"causal chain", [][]int32{{0}, {0, 1}, {0, 1}}, []rline.Msg{
			{From: 0, SendOp: 0, To: 1, RecvOp: 0},
			{From: 1, SendOp: 1, To: 2, RecvOp: 0},
		}, nil},
		// P1 sends m1 to P2, then receives m0 from P0 in the same
		// interval: [m0, m1] is a Z-path from C(0,0) to C(2,1), and
		// nothing carries P0's dependency to P2 before its checkpoint.
		{"CM-path not doubled", [][]int32{{0}, {0}, {0, 1}}, []rline.Msg{
			{From: 0, SendOp: 0, To: 1, RecvOp: 1},
			{From: 1, SendOp: 0, To: 2, RecvOp: 0},
		}, []RDTViolation{{M1: 0, M2: 1, From: Checkpoint{0, 0}, To: Checkpoint{2, 1}}}},
		// The same, and P0 also tells P2 directly before its checkpoint.
		{"CM-path doubled", [][]int32{{0}, {0}, {0, 2}}, []rline.Msg{
			{From: 0, SendOp: 0, To: 1, RecvOp: 1},
			{From: 1, SendOp: 0, To: 2, RecvOp: 0},
			{From: 0, SendOp: 1, To: 2, RecvOp: 1},
		}, nil},
		// The double must start at or after C(0,s): here P0's direct
		// message leaves before the checkpoint that m0 follows.
		{"double too early", [][]int32{{0, 1}, {0}, {0, 2}}, []rline.Msg{
			{From: 0, SendOp: 1, To: 1, RecvOp: 1},
			{From: 1, SendOp: 0, To: 2, RecvOp: 0},
			{From: 0, SendOp: 0, To: 2, RecvOp: 1},
		}, []RDTViolation{{M1: 0, M2: 1, From: Checkpoint{0, 1}, To: Checkpoint{2, 1}}}},
		// A checkpoint between the send and the receipt at P1 breaks
		// the Z-path: FDAS's forced checkpoint.
		{"broken by a checkpoint", [][]int32{{0}, {0, 1}, {0, 1}}, []rline.Msg{
			{From: 0, SendOp: 0, To: 1, RecvOp: 1},
			{From: 1, SendOp: 0, To: 2, RecvOp: 0},
		}, nil},
		// m1 is received in P2's last interval: the Z-path ends at P2's
		// final state, C(2,1), which counts as a checkpoint.
		{"final state", [][]int32{{0}, {0}, {0}}, []rline.Msg{
			{From: 0, SendOp: 0, To: 1, RecvOp: 1},
			{From: 1, SendOp: 0, To: 2, RecvOp: 0},
		}, []RDTViolation{{M1: 0, M2: 1, From: Checkpoint{0, 0}, To: Checkpoint{2, 1}}}},
		// Why final states count: the Z-path [m0 m1 m2] runs from C(2,0)
		// through P0's last interval to P3's real checkpoint C(3,1), and
		// is not doubled; its CM-path [m0 m1] ends at P0's final state.
		// Were final states no checkpoints, no CM-path would be
		// undoubled although a Z-path between real checkpoints is.
		{"through a last interval", [][]int32{{0}, {0}, {0}, {0, 1}}, []rline.Msg{
			{From: 2, SendOp: 0, To: 1, RecvOp: 1},
			{From: 1, SendOp: 0, To: 0, RecvOp: 0},
			{From: 0, SendOp: 1, To: 3, RecvOp: 0},
		}, []RDTViolation{{M1: 0, M2: 1, From: Checkpoint{2, 0}, To: Checkpoint{0, 1}}}},
		// Z-cycle through C(0,1): P0 receives m1 before its
		// checkpoint, then sends m0 to P1, which had sent m1 before
		// receiving m0.
		{"Z-cycle", [][]int32{{0, 1}, {0}}, []rline.Msg{
			{From: 0, SendOp: 1, To: 1, RecvOp: 1},
			{From: 1, SendOp: 0, To: 0, RecvOp: 0},
		}, []RDTViolation{{M1: 0, M2: 1, From: Checkpoint{0, 1}, To: Checkpoint{0, 1}}}},
		// Back to the sender but to a later checkpoint: local order
		// doubles it.
		{"back to a later checkpoint", [][]int32{{0, 1, 2}, {0}}, []rline.Msg{
			{From: 0, SendOp: 1, To: 1, RecvOp: 1},
			{From: 1, SendOp: 0, To: 0, RecvOp: 2},
		}, nil},
		// Two sends before one receipt: each send is reported, with
		// the checkpoint its own receipt precedes.
		{"one per send", [][]int32{{0}, {0}, {0, 1, 2}}, []rline.Msg{
			{From: 0, SendOp: 0, To: 1, RecvOp: 2},
			{From: 1, SendOp: 0, To: 2, RecvOp: 1},
			{From: 1, SendOp: 1, To: 2, RecvOp: 0},
		}, []RDTViolation{
			{M1: 0, M2: 1, From: Checkpoint{0, 0}, To: Checkpoint{2, 2}},
			{M1: 0, M2: 2, From: Checkpoint{0, 0}, To: Checkpoint{2, 1}},
		}},
		// Every CM-path here is doubled checkpoint to checkpoint, yet
		// the Z-path [m0 m1 m2] from C(1,0) to C(2,1) is not: [m0 m1]
		// is doubled by [m0 m3], which reaches P3 only after P3 sent m2.
		// The dependency m3 brings (P1's interval 0) is what P2 lacks.
		{"doubled too late", [][]int32{{0}, {0}, {0}, {0}}, []rline.Msg{
			{From: 1, SendOp: 0, To: 0, RecvOp: 1},
			{From: 0, SendOp: 0, To: 3, RecvOp: 0},
			{From: 3, SendOp: 1, To: 2, RecvOp: 0},
			{From: 0, SendOp: 2, To: 3, RecvOp: 2},
		}, []RDTViolation{{M1: 3, M2: 2, From: Checkpoint{1, 0}, To: Checkpoint{2, 1}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := CheckRDT(tc.ckpts, tc.msgs)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("violations = %v, want %v", got, tc.want)
			}
			ok, _ := Trackable(tc.ckpts, tc.msgs)
			if ok != (len(tc.want) == 0) {
				t.Fatalf("Trackable = %v with violations %v", ok, tc.want)
			}
			if got := bruteForce(tc.ckpts, tc.msgs).rdt(); got != ok {
				t.Fatalf("brute force says RDT = %v", got)
			}
		})
	}
}

func TestCheckRejects(t *testing.T) {
	tests := []struct {
		name  string
		ckpts [][]int32
		msgs  []rline.Msg
		want  string
	}{
		{"process out of range", [][]int32{{0}}, []rline.Msg{{From: 0, To: 1}}, "out of range"},
		{"negative process", [][]int32{{0}, {0}}, []rline.Msg{{From: -1, To: 1}}, "out of range"},
		{"self", [][]int32{{0}, {0}}, []rline.Msg{{From: 1, To: 1, SendOp: 0, RecvOp: 1}}, "to itself"},
		{"negative op", [][]int32{{0}, {0}}, []rline.Msg{{From: 0, To: 1, SendOp: -2}}, "negative"},
		{"op claimed twice", [][]int32{{0}, {0}}, []rline.Msg{{From: 0, SendOp: 0, To: 1, RecvOp: 0}, {From: 0, SendOp: 0, To: 1, RecvOp: 1}}, "claimed"},
		{"decreasing checkpoints", [][]int32{{0, 2, 1}}, nil, "non-decreasing"},
		{"negative checkpoint", [][]int32{{0, -1}}, nil, "non-decreasing"},
		{"causal cycle", [][]int32{{0}, {0}}, []rline.Msg{
			{From: 0, SendOp: 1, To: 1, RecvOp: 0},
			{From: 1, SendOp: 1, To: 0, RecvOp: 0},
		}, "causal cycle"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := CheckRDT(tc.ckpts, tc.msgs)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// Trackable reports whether the pattern is rollback-dependency trackable.
func Trackable(ckpts [][]int32, msgs []rline.Msg) (bool, error) {
	v, err := CheckRDT(ckpts, msgs)
	return len(v) == 0 && err == nil, err
}
