package explore

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/ckpt-dev/ckpt/output"
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
// input, NAME.explore; a run replaces what the last run of its shard
// wrote there, and nothing else: not the user's files (named like a
// witness or not), a witness changed since, an input of this command,
// another shard's witnesses, or a directory ckpt did not create.
func TestWitnessesReplaced(t *testing.T) {
	if got := WitnessDir("d/a.jsonl.gz"); got != filepath.Join("d", "a.explore") {
		t.Errorf("WitnessDir = %s", got)
	}
	tr := &trace.Trace{Processes: []string{"P0"}}
	// shard may name the trace too: "b@1/1" is shard 1/1 of trace b.
	result := func(shard string, props ...int) *Result {
		digest, shard, _ := strings.Cut(shard, "@")
		if shard == "" {
			digest, shard = "a", digest
		}
		r := &Result{Scope: Scope{Shard: shard, Trace: digest}, Algorithms: []AlgorithmResult{{Algorithm: "ms", Properties: make([]PropertyResult, len(Properties))}}}
		for i := range Properties {
			r.Algorithms[0].Properties[i].Name = Properties[i]
		}
		for _, i := range props {
			r.Algorithms[0].Properties[i].Witness = &Witness{Trace: tr}
		}
		return r
	}
	const orphan, lost = "ms-orphan-free.json", "ms-no-lost-messages.json"
	put := func(name, text string) func(string) {
		return func(dir string) { os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644) }
	}
	type step struct {
		shard string
		props []int
		then  func(dir string) // after the run
		want  []string         // the directory's files; nil: no directory
	}
	for _, c := range []struct {
		name  string
		mkdir bool // the user made the directory
		steps []step
	}{
		{"replaced, then removed", false, []step{
			{"1/1", []int{0, 1}, nil, []string{manifestName, lost, orphan}},
			{"1/1", []int{1}, nil, []string{manifestName, lost}},
			{"1/1", nil, nil, nil}}},
		{"the user's files stay", false, []step{
			{"1/1", []int{0}, put("ms-domino-free.json", "keep"), []string{manifestName, "ms-domino-free.json", orphan}},
			{"1/1", nil, nil, []string{manifestName, "ms-domino-free.json"}}}},
		{"the user's directory stays", true, []step{
			{"1/1", []int{0}, nil, []string{manifestName, orphan}},
			{"1/1", nil, nil, []string{}}}},
		{"a changed witness stays", false, []step{
			{"1/1", []int{0}, put(orphan, "mine now"), []string{manifestName, orphan}},
			{"1/1", nil, nil, []string{manifestName, orphan}},
			{"1/1", nil, func(dir string) { os.Remove(filepath.Join(dir, orphan)) }, []string{manifestName}},
			{"1/1", nil, nil, nil}}},
		{"an input stays", false, []step{
			{"1/1", []int{0}, func(dir string) { output.Reading(filepath.Join(dir, orphan)) }, []string{manifestName, orphan}},
			{"1/1", nil, nil, []string{manifestName, orphan}}}},
		{"another shard's witnesses stay", false, []step{
			{"1/2", []int{0}, nil, []string{manifestName, orphan}},
			{"2/2", []int{1}, nil, []string{manifestName, lost, orphan}},
			{"2/2", nil, nil, []string{manifestName, orphan}},
			{"1/2", nil, nil, nil}}},
		{"another trace's witnesses stay", false, []step{
			{"a@1/1", []int{0}, nil, []string{manifestName, orphan}},
			{"b@1/1", []int{1}, nil, []string{manifestName, lost, orphan}},
			{"b@1/1", nil, nil, []string{manifestName, orphan}},
			{"a@1/1", nil, nil, nil}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer output.Reset()
			dir := filepath.Join(t.TempDir(), "a.explore")
			if c.mkdir {
				os.Mkdir(dir, 0o755)
			}
			for i, s := range c.steps {
				_, tidy, err := WriteWitnesses(result(s.shard, s.props...), dir)
				if err != nil {
					t.Fatal(err)
				}
				tidy()
				if s.then != nil {
					s.then(dir)
				}
				es, err := os.ReadDir(dir)
				var got []string
				if err == nil {
					got = []string{}
				}
				for _, e := range es {
					got = append(got, e.Name())
				}
				if !slices.Equal(got, s.want) || (got == nil) != (s.want == nil) {
					t.Errorf("step %d (shard %s, witnesses %v): the directory holds %q, want %q", i+1, s.shard, s.props, got, s.want)
				}
			}
		})
	}
}

// TestWitnessNotWrittenOver: a witness is written only where nothing is
// or ckpt's own unchanged witness is; the user's file, a link (which
// would write outside the directory) or a named pipe (which would
// block) is left as it is, the witness refused by name and the others
// written. A named pipe as the manifest is refused without blocking,
// and before the work.
func TestWitnessNotWrittenOver(t *testing.T) {
	tr := &trace.Trace{Processes: []string{"P0"}}
	r := &Result{Algorithms: []AlgorithmResult{{Algorithm: "ms", Properties: []PropertyResult{
		{Name: Properties[0], Witness: &Witness{Trace: tr}}, {Name: Properties[1], Witness: &Witness{Trace: tr}}}}}}
	name := "ms-" + Properties[0] + ".json"
	for _, c := range []struct {
		name string
		put  func(dir, outside string) error
		want string // in the error
	}{
		{"the user's file", func(dir, _ string) error { return os.WriteFile(filepath.Join(dir, name), []byte("mine"), 0o644) }, name + ": witness not written"},
		{"a link out", func(dir, outside string) error { return os.Symlink(outside, filepath.Join(dir, name)) }, name + ": witness not written"},
		{"a named pipe", func(dir, _ string) error { return syscall.Mkfifo(filepath.Join(dir, name), 0o644) }, name + ": witness not written"},
		{"a pipe as the manifest", func(dir, _ string) error { return syscall.Mkfifo(filepath.Join(dir, manifestName), 0o644) }, "is not a regular file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			dir, outside := filepath.Join(root, "w"), filepath.Join(root, "precious.json")
			os.Mkdir(dir, 0o755)
			os.WriteFile(outside, []byte("precious"), 0o644)
			if err := c.put(dir, outside); err != nil {
				t.Fatal(err)
			}
			_, _, err := WriteWitnesses(r, dir)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want %q", err, c.want)
			}
			// Only the list is known before the work: the witnesses'
			// names are not.
			if err := CheckOutputs("", dir); (err != nil) != (c.want == "is not a regular file") {
				t.Errorf("CheckOutputs: %v", err)
			}
			if b, _ := os.ReadFile(outside); string(b) != "precious" {
				t.Errorf("the file outside the directory holds %q", b)
			}
			if st, err := os.Lstat(filepath.Join(dir, name)); err == nil && st.Mode().IsRegular() {
				if b, _ := os.ReadFile(filepath.Join(dir, name)); string(b) != "mine" {
					t.Errorf("the user's file holds %q", b)
				}
			}
		})
	}
}
