package consistency

import (
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/report"
)

// TestNegativeCheckpointPos: a hand-made run whose checkpoint has a
// negative pos, restored by a restart, is judged without a panic (the
// PK replay rule walked the program from that pos) and fails as
// malformed. The run decoder rejects such a pos, so only callers of Check
// from Go meet it.
func TestNegativeCheckpointPos(t *testing.T) {
	b := newRun("pk", "P0", "P1")
	b.internal("P0", 0)
	b.pkCkpt("P0", 1, -5, [2]int32{0, 1}, [2]int32{0, 0})
	f := b.fail("P0")
	b.restart("P0", 1, 1, 0, f)
	b.done("P0", "P1")
	r := Check(b.run, nil)
	if r.Valid {
		t.Fatalf("a checkpoint at pos -5 passed:\n%s", dump(r))
	}
	found := false
	for _, p := range r.Properties {
		for _, v := range p.Violations {
			found = found || (p.Status == report.Fail && strings.Contains(v.Message, "negative pos -5"))
		}
	}
	if !found {
		t.Errorf("no witness names the negative pos:\n%s", dump(r))
	}
}

// TestNegativeRestartPos: a PK restart at a negative pos has no
// announcement in the model; the checker fails the run instead of
// panicking on it.
func TestNegativeRestartPos(t *testing.T) {
	b := newRun("pk", "P0", "P1")
	b.internal("P0", 0)
	f := b.fail("P0")
	b.restart("P0", 0, -5, 0, f)
	b.done("P0", "P1")
	if r := Check(b.run, nil); r.Valid {
		t.Fatalf("a restart at pos -5 passed:\n%s", dump(r))
	}
}
