package algorithms

import (
	"testing"

	"github.com/ckpt-dev/ckpt/trace"
)

func TestNew(t *testing.T) {
	tr, err := trace.NewBuilder("P0", "P1").Internal(0.1, "P0").Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, variant, want string
	}{
		{"ms", "", "ms"},
		{"ms", "textbook", "ms-textbook"},
		{"ms", "no-forced", "ms"},
		{"ms", "no-log", "ms"},
		{"ms", "replay-all", "ms"},
	} {
		a, err := New(c.name, c.variant, tr)
		if err != nil {
			t.Errorf("New(%q, %q): %v", c.name, c.variant, err)
			continue
		}
		if a.Name() != c.want {
			t.Errorf("New(%q, %q).Name() = %q, want %q", c.name, c.variant, a.Name(), c.want)
		}
	}
	for _, c := range [][2]string{{"ms", "nope"}, {"xx", ""}, {"", ""}} {
		if _, err := New(c[0], c[1], tr); err == nil {
			t.Errorf("New(%q, %q) accepted", c[0], c[1])
		}
	}
}
