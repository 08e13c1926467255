package pk_test

import (
	"testing"

	"github.com/ckpt-dev/ckpt/algorithms/mutants"
	"github.com/ckpt-dev/ckpt/algorithms/pk"
	"github.com/ckpt-dev/ckpt/consistency"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/report"
)

// TestMutantsCaught: each deliberately broken PK (package mutants) makes
// the checker fail a property on some golden or random trace, so the
// agreement of TestCheckerAgrees means something.
func TestMutantsCaught(t *testing.T) {
	traces := pk.GoldenTraces(t, 100)
	for _, m := range mutants.All {
		if m.Algo != "pk" {
			continue
		}
		t.Run(m.Name, func(t *testing.T) {
			for _, tr := range traces {
				alg, err := mutants.New("pk", m.Name, tr)
				if err != nil {
					t.Fatal(err)
				}
				run, err := replay.Run(tr, alg, replay.Options{})
				if err != nil {
					t.Fatal(err)
				}
				for _, p := range consistency.Check(run, tr).Properties {
					if p.Status == report.Fail {
						t.Logf("caught on %s: %s", tr.Name, p.Name)
						return
					}
				}
			}
			t.Errorf("mutant %s passes every trace", m.Name)
		})
	}
}
