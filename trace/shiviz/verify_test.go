package shiviz_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/ckpt-dev/ckpt/algorithms"
	"github.com/ckpt-dev/ckpt/consistency"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace/shiviz"
)

// TestRealLogsVerify is issue 8's end-to-end promise: every real log,
// with checkpoint ticks, flushes and injected failures, replays through MS
// and PK and the checker finds no property failing; every run exports to
// a ShiViz log that imports back.
func TestRealLogsVerify(t *testing.T) {
	if testing.Short() {
		t.Skip("replays every real log through both algorithms")
	}
	dir := filepath.Join("..", "..", "testdata", "imports", "shiviz")
	akka := `\[\w+\] \[(?<date>([^ ]+ [^ ]+))\] [^ ]+ \[akka://Broadcast/user/(?<host>\w+)\] (?<clock>.*\}) (?<event>.*)`
	logs := []struct {
		file, regex, delimiter string
		fails                  []shiviz.FailPoint
		match                  string
	}{
		{"chord.log", `(?<host>\S*) (?<clock>{.*})\n(?<event>.*)`, "", []shiviz.FailPoint{{Host: "front-end", N: 23}, {Host: "kv-node-30", N: 101}}, ""},
		{"simpledb.log", "", "", []shiviz.FailPoint{{Host: "24464", N: 33}, {Host: "24468", N: 62}}, ""},
		{"voldemort.log", "", "", []shiviz.FailPoint{{Host: "42795@jvoldemortThread[main,5,main]", N: 43}}, ""},
		{"reliable-broadcast.log", akka, "", nil, "Crashing"},
		{"simple-reliable-broadcast.log", akka, "", []shiviz.FailPoint{{Host: "node1", N: 12}}, ""},
		{"ewd998.log", `^State [0-9]+: <(?<event>\w*) .*>\n\/\\ Host = (?<host>.*)\n\/\\ Clock = "(?<clock>.*)"\n\/\\ active = (?<active>.*)\n\/\\ color = (?<color>.*)\n\/\\ counter = (?<counter>.*)`,
			`^=== (?<trace>.*) ===$`, []shiviz.FailPoint{{Host: "n1", N: 3}}, ""},
	}
	for _, l := range logs {
		t.Run(l.file, func(t *testing.T) {
			f, err := os.Open(filepath.Join(dir, l.file))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			log, err := shiviz.Parse([]shiviz.Source{{Name: l.file, R: f}}, shiviz.ParseOptions{Regex: l.regex, Delimiter: l.delimiter})
			if err != nil {
				t.Fatal(err)
			}
			opts := shiviz.ImportOptions{TickEvery: 10, FlushEvery: 5, FailAt: l.fails}
			if l.match != "" {
				opts.FailMatch = regexp.MustCompile(l.match)
			}
			for _, ex := range log.Executions {
				tr, st, err := ex.Trace(l.file, opts)
				if err != nil {
					t.Fatal(err)
				}
				if st.Fails == 0 {
					t.Fatalf("%q: no failure injected", ex.Label)
				}
				for _, alg := range []string{"ms", "pk"} {
					a, err := algorithms.New(alg, "", tr)
					if err != nil {
						t.Fatal(err)
					}
					run, err := replay.Run(tr, a, replay.Options{Params: tr.Params})
					if err != nil {
						t.Fatalf("%q %s: %v", ex.Label, alg, err)
					}
					r := consistency.Check(run, tr)
					for _, p := range r.Properties {
						if p.Status == report.Fail {
							t.Errorf("%q %s: %s fails: %+v", ex.Label, alg, p.Name, p.Violations)
						}
					}
					var buf bytes.Buffer
					if _, err := shiviz.Export(&buf, run); err != nil {
						t.Fatal(err)
					}
					back, err := shiviz.Parse([]shiviz.Source{{Name: "export", R: &buf}}, shiviz.ParseOptions{})
					if err != nil {
						t.Fatalf("%q %s: the exported run does not import: %v", ex.Label, alg, err)
					}
					if _, _, err := back.Executions[0].Trace("export", shiviz.ImportOptions{}); err != nil {
						t.Fatal(err)
					}
				}
			}
		})
	}
}
