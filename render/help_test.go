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
