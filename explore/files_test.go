package explore

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ckpt-dev/ckpt/trace"
)

func TestParseShard(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Shard
		ok   bool
	}{
		{"1/1", Shard{Index: 0, Count: 1}, true},
		{"2/4", Shard{Index: 1, Count: 4}, true},
		{"4/4", Shard{Index: 3, Count: 4}, true},
		{"0/4", Shard{}, false},
		{"5/4", Shard{}, false},
		{"1/0", Shard{}, false},
		{"-1/2", Shard{}, false},
		{"1", Shard{}, false},
		{"a/b", Shard{}, false},
		{"", Shard{}, false},
	} {
		got, err := ParseShard(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseShard(%q) = %+v, %v; want %+v, ok=%v", c.in, got, err, c.want, c.ok)
		}
	}
}

// TestWitnessesReplaced: the default witness directory is one place per
// input, NAME.explore; a run replaces what the last one wrote there,
// leaves other files alone, and a run without witnesses removes the
// directory it would leave empty.
func TestWitnessesReplaced(t *testing.T) {
	dir := t.TempDir()
	if got := WitnessDir(filepath.Join(dir, "a.jsonl.gz")); got != filepath.Join(dir, "a.explore") {
		t.Errorf("WitnessDir = %s", got)
	}
	w := filepath.Join(dir, "a.explore")
	tr := &trace.Trace{Processes: []string{"P0"}}
	result := func(props ...int) *Result {
		r := &Result{Algorithms: []AlgorithmResult{{Algorithm: "ms", Properties: make([]PropertyResult, len(Properties))}}}
		for i := range Properties {
			r.Algorithms[0].Properties[i].Name = Properties[i]
		}
		for _, i := range props {
			r.Algorithms[0].Properties[i].Witness = &Witness{Trace: tr}
		}
		return r
	}
	names := func() []string {
		es, _ := os.ReadDir(w)
		var out []string
		for _, e := range es {
			out = append(out, e.Name())
		}
		return out
	}
	for _, c := range []struct {
		props []int
		want  []string
	}{
		{[]int{0, 1}, []string{"ms-no-lost-messages.json", "ms-orphan-free.json"}},
		{[]int{1}, []string{"ms-no-lost-messages.json", "notes.txt"}},
		{nil, []string{"notes.txt"}},
	} {
		if _, err := WriteWitnesses(result(c.props...), w); err != nil {
			t.Fatal(err)
		}
		if len(c.props) == 1 {
			os.WriteFile(filepath.Join(w, "notes.txt"), nil, 0o644) // the user's
		}
		if got := names(); !slices.Equal(got, c.want) {
			t.Errorf("witnesses %v: the directory holds %v, want %v", c.props, got, c.want)
		}
	}
	os.Remove(filepath.Join(w, "notes.txt"))
	if _, err := WriteWitnesses(result(), w); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(w); !os.IsNotExist(err) {
		t.Errorf("a run without witnesses left %s behind: %v", w, err)
	}
}
