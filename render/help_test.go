package render

import (
	"strings"
	"testing"
)

func TestAlgorithmHelp(t *testing.T) {
	h := AlgorithmHelp()
	for _, want := range []string{"ms ", "Manivannan", "pk ", "Peterson", "--variant textbook", "(checkpointing only)"} {
		if !strings.Contains(h, want) {
			t.Errorf("AlgorithmHelp lacks %q:\n%s", want, h)
		}
	}
}

// TestAlgorithmHelpColumns: every algorithm's description starts in one
// column, however long the longest name ("coordinated" once overflowed
// it).
func TestAlgorithmHelpColumns(t *testing.T) {
	col := -1
	for _, l := range strings.Split(AlgorithmHelp(), "\n") {
		name, _, ok := strings.Cut(strings.TrimPrefix(l, "  "), " ")
		if !strings.HasPrefix(l, "  ") || l[2] == ' ' || l[2] == '-' || !ok {
			continue
		}
		at := len(l) - len(strings.TrimLeft(l[2+len(name):], " "))
		if col >= 0 && at != col {
			t.Errorf("%q: description at column %d, others at %d", l, at, col)
		}
		col = at
	}
}
