package rdt

import (
	"fmt"
	"strings"
	"testing"
)

// TestJudge: the checker's entry point takes live checkpoints with the
// initial one, explains each violation with the checker's names, and
// rejects what Check rejects plus a missing initial checkpoint.
func TestJudge(t *testing.T) {
	names := Names{
		Proc: func(p int32) string { return fmt.Sprintf("Q%d", p) },
		Msg:  func(i int32) string { return fmt.Sprintf("m%d", i+1) },
		Ckpt: func(c Checkpoint) string { return fmt.Sprintf("Q%d's checkpoint %d", c.P, c.X) },
	}
	cases := []struct {
		name  string
		live  [][]int32
		msgs  []Msg
		want  []Violation
		words []string
	}{
		{"trackable", [][]int32{{0}, {0, 1}, {0, 1}}, []Msg{
			{From: 0, Send: 0, To: 1, Recv: 1},
			{From: 1, Send: 0, To: 2, Recv: 0},
		}, nil, nil},
		{"CM-path not doubled", [][]int32{{0}, {0}, {0, 1}}, []Msg{
			{From: 0, Send: 0, To: 1, Recv: 1},
			{From: 1, Send: 0, To: 2, Recv: 0},
		}, []Violation{{M1: 0, M2: 1, From: Checkpoint{0, 0}, To: Checkpoint{2, 1}}}, []string{
			"the rollback dependency of Q2's checkpoint 1 on Q0's checkpoint 0 is not trackable (Z-path through m1 and m2 not causally doubled)",
			"a causal path from Q0's checkpoint 0 reaches Q1 only with m1 (from Q0), which Q1 received after it had sent m2 in the same checkpoint interval; Q2 received m2 before Q2's checkpoint 1",
			"no causal path does: Q2's checkpoint 1 does not know of Q0's checkpoint 0",
			"(RDT, Wang 1997)",
		}},
		// The Z-cycle of two processes: C(0,1) is useless.
		{"Z-cycle", [][]int32{{0, 1}, {0}}, []Msg{
			{From: 0, Send: 1, To: 1, Recv: 1},
			{From: 1, Send: 0, To: 0, Recv: 0},
		}, nil, []string{"Q0's checkpoint 1 lies on a Z-cycle through Q0's checkpoint 1 and is useless"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Judge(c.live, c.msgs, names)
			if err != nil {
				t.Fatal(err)
			}
			if c.want != nil {
				if len(got) != len(c.want) {
					t.Fatalf("%d findings, want %d: %+v", len(got), len(c.want), got)
				}
				for i := range got {
					if got[i].Violation != c.want[i] {
						t.Errorf("finding %d: %v, want %v", i, got[i].Violation, c.want[i])
					}
				}
			}
			if c.words == nil && len(got) > 0 {
				t.Fatalf("findings in a trackable history: %+v", got)
			}
			if c.words != nil && len(got) == 0 {
				t.Fatal("no finding")
			}
			all := ""
			for _, f := range got {
				all += f.Message + "\n" + f.Because + "\n"
			}
			for _, w := range c.words {
				if !strings.Contains(all, w) {
					t.Errorf("explanation lacks %q:\n%s", w, all)
				}
			}
		})
	}
}

// TestJudgeDefaults: without names the explanation still reads.
func TestJudgeDefaults(t *testing.T) {
	got, err := Judge([][]int32{{0}, {0}, {0}}, []Msg{
		{From: 0, Send: 0, To: 1, Recv: 1},
		{From: 1, Send: 0, To: 2, Recv: 0},
	}, Names{})
	if err != nil || len(got) != 1 {
		t.Fatalf("Judge = %v, %v", got, err)
	}
	if want := "C(2,1) on C(0,0) is not trackable (Z-path through message 0 and message 1"; !strings.Contains(got[0].Message, want) {
		t.Errorf("message %q lacks %q", got[0].Message, want)
	}
}

func TestJudgeRejects(t *testing.T) {
	for _, c := range []struct {
		name string
		live [][]int32
		msgs []Msg
	}{
		{"no initial checkpoint", [][]int32{{}, {0}}, nil},
		{"initial not at 0", [][]int32{{1}, {0}}, nil},
		{"process out of range", [][]int32{{0}}, []Msg{{From: 0, To: 3}}},
	} {
		if _, err := Judge(c.live, c.msgs, Names{}); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}
