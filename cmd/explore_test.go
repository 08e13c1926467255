package cmd

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ckpt-dev/ckpt/explore"
)

func TestParseShard(t *testing.T) {
	for _, c := range []struct {
		in   string
		want explore.Shard
		ok   bool
	}{
		{"1/1", explore.Shard{Index: 0, Count: 1}, true},
		{"2/4", explore.Shard{Index: 1, Count: 4}, true},
		{"4/4", explore.Shard{Index: 3, Count: 4}, true},
		{"0/4", explore.Shard{}, false},
		{"5/4", explore.Shard{}, false},
		{"1/0", explore.Shard{}, false},
		{"-1/2", explore.Shard{}, false},
		{"1", explore.Shard{}, false},
		{"a/b", explore.Shard{}, false},
		{"", explore.Shard{}, false},
	} {
		got, err := parseShard(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("parseShard(%q) = %+v, %v; want %+v, ok=%v", c.in, got, err, c.want, c.ok)
		}
	}
}

// TestNewWitnessDir: NAME.explore beside the input, extensions dropped,
// then NAME.explore-2, -3, ... once taken.
func TestNewWitnessDir(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ input, want string }{
		{filepath.Join(dir, "a.json"), filepath.Join(dir, "a.explore")},
		{filepath.Join(dir, "a.json"), filepath.Join(dir, "a.explore-2")},
		{filepath.Join(dir, "a.jsonl.gz"), filepath.Join(dir, "a.explore-3")},
		{filepath.Join(dir, "b.json.gz"), filepath.Join(dir, "b.explore")},
	} {
		got, err := newWitnessDir(c.input)
		if err != nil || got != c.want {
			t.Errorf("newWitnessDir(%s) = %s, %v; want %s", c.input, got, err, c.want)
		}
		if st, err := os.Stat(got); err != nil || !st.IsDir() {
			t.Errorf("%s not created", got)
		}
	}
}
