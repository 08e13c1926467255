package shiviz

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/internal/golden"
	"github.com/ckpt-dev/ckpt/trace"
)

// repoTestdata is the repository's testdata/shiviz directory.
const repoTestdata = "../../testdata/shiviz"

// dumpTrace renders a trace one event a line, independent of the JSON
// encoder, for golden files.
func dumpTrace(tr *trace.Trace) string {
	var b strings.Builder
	fmt.Fprintf(&b, "processes %s\n", strings.Join(tr.Processes, " "))
	for _, ev := range tr.Events {
		fmt.Fprintf(&b, "%s %s %s", ev.T, tr.Processes[ev.P], ev.Kind)
		if ev.Kind == trace.Send {
			fmt.Fprintf(&b, " to=%s", tr.Processes[ev.To])
		}
		if ev.Msg >= 0 {
			fmt.Fprintf(&b, " msg=%s", tr.Msgs[ev.Msg])
		}
		if ev.Down > 0 {
			fmt.Fprintf(&b, " down=%s", ev.Down)
		}
		if label := tr.Label(&ev); label != "" {
			fmt.Fprintf(&b, " %q", label)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func parseFile(t testing.TB, path string, opts ParseOptions) *Log {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	log, err := parseOne(filepath.Base(path), f, opts)
	if err != nil {
		t.Fatalf("Parse(%s): %v", path, err)
	}
	return log
}

const akkaRegex = `\[\w+\] \[(?<date>([^ ]+ [^ ]+))\] [^ ]+ \[akka://Broadcast/user/(?<host>\w+)\] (?<clock>.*\}) (?<event>.*)`

// TestGolden converts the hand-written logs with various options and
// compares the traces with golden files.
func TestGolden(t *testing.T) {
	tests := []struct {
		name, file string
		popts      ParseOptions
		iopts      ImportOptions
	}{
		{"basic", "basic.log", ParseOptions{}, ImportOptions{}},
		{"basic-env", "basic.log", ParseOptions{}, ImportOptions{
			TickEvery: 2, FlushEvery: 3, FailAt: []FailPoint{{"b", 2}}, Down: trace.Second / 2,
			Step: trace.Second / 10}},
		{"basic-period", "basic.log", ParseOptions{}, ImportOptions{
			TickPeriod: []trace.Time{3 * trace.Second, 5 * trace.Second, 100 * trace.Second}}},
		{"akka", "akka.log", ParseOptions{Regex: akkaRegex}, ImportOptions{FailMatch: regexp.MustCompile("Crashing")}},
		{"akka-time", "akka.log", ParseOptions{Regex: akkaRegex}, ImportOptions{TimeGroup: "date",
			TickPeriod: []trace.Time{trace.Second / 200}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log := parseFile(t, filepath.Join(repoTestdata, tt.file), tt.popts)
			tr, _, err := log.Executions[0].Trace(tt.file, tt.iopts)
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, tt.name+".golden", []byte(dumpTrace(tr)))
		})
	}
}

// TestInference checks the inferred edges and counts of basic.log by
// hand: a multicast, a receive of two messages at once, and a receive
// whose second raised entry is implied by the first.
func TestInference(t *testing.T) {
	log := parseFile(t, filepath.Join(repoTestdata, "basic.log"), ParseOptions{})
	ex := log.Executions[0]
	if got, want := strings.Join(ex.Hosts, ","), "a,b,c"; got != want {
		t.Errorf("hosts %s, want %s", got, want)
	}
	var edges []string
	for _, e := range ex.Order {
		ev := &ex.Events[e]
		for _, p := range ev.Parents {
			pe := &ex.Events[p]
			edges = append(edges, fmt.Sprintf("%s%d->%s%d", ex.Hosts[pe.Host], pe.Own, ex.Hosts[ev.Host], ev.Own))
		}
	}
	if got, want := strings.Join(edges, " "), "a2->b2 a2->c1 b3->c2 a3->c3 b4->c3 c3->a4"; got != want {
		t.Errorf("edges %s\nwant  %s", got, want)
	}
	if ex.Messages() != 6 || len(ex.Events) != 11 || ex.Skipped != 1 {
		t.Errorf("messages %d events %d skipped %d, want 6 11 1", ex.Messages(), len(ex.Events), ex.Skipped)
	}
	// File order is per host; the causal order must put a2 before b2.
	pos := map[string]int{}
	for k, e := range ex.Order {
		ev := &ex.Events[e]
		pos[fmt.Sprintf("%s%d", ex.Hosts[ev.Host], ev.Own)] = k
	}
	for _, pair := range [][2]string{{"a2", "b2"}, {"b4", "c3"}, {"c3", "a4"}, {"a3", "b1"}} {
		if pos[pair[0]] >= pos[pair[1]] {
			t.Errorf("%s comes after %s in the causal order %v", pair[0], pair[1], pos)
		}
	}
}

func TestDelimiter(t *testing.T) {
	log := parseFile(t, filepath.Join(repoTestdata, "multi.log"), ParseOptions{Delimiter: `^=== (?<trace>.*) ===$`})
	if len(log.Executions) != 2 {
		t.Fatalf("%d executions, want 2", len(log.Executions))
	}
	for i, want := range []struct {
		label         string
		hosts, events int
		firstLine     int
	}{{"first run", 2, 2, 2}, {"second run", 1, 1, 7}} {
		ex := log.Executions[i]
		if ex.Label != want.label || len(ex.Hosts) != want.hosts || len(ex.Events) != want.events || ex.Events[0].Line != want.firstLine {
			t.Errorf("execution %d: label %q hosts %d events %d line %d, want %+v", i, ex.Label, len(ex.Hosts), len(ex.Events), ex.Events[0].Line, want)
		}
	}
}

// TestParseErrors feeds malformed logs and checks the line and the gist
// of each message.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, log string
		opts      ParseOptions
		line      int
		want      string
	}{
		{"start", "x\na {\"a\":2}\n", ParseOptions{}, 2, `must start at 1, but its first event has "a":2 (expected "a":1)`},
		{"start zero", "x\na {\"a\":0}\n", ParseOptions{}, 2, `must start at 1`},
		{"skip", "x\na {\"a\":1}\ny\na {\"a\":3}\n", ParseOptions{}, 4, `goes from 1 (line 2) to 3; expected 2`},
		{"twice", "x\na {\"a\":1}\ny\na {\"a\":1}\n", ParseOptions{}, 4, `two events with clock value 1 (line 2 and line 4)`},
		{"own missing", "x\na {\"a\":1}\ny\nb {\"a\":1}\n", ParseOptions{}, 4, `host "b" is missing from its own vector clock {"a":1}`},
		{"unknown host", "x\n\na {\"a\":1, \"z\":1}\n", ParseOptions{}, 3, `entry for unknown host "z"`},
		{"beyond", "x\na {\"a\":1, \"b\":5}\ny\nb {\"b\":1}\n", ParseOptions{}, 2, `has "b":5, but host "b" has only 1 event(s)`},
		{"cycle", "x\na {\"a\":1, \"b\":1}\ny\nb {\"a\":1, \"b\":1}\n", ParseOptions{}, 4, `no order of events can explain these vector clocks: they make a cycle of happened-before b:1 (line 4) -> a:1 (line 2) -> b:1`},
		{"impermissible", "x\nc {\"c\":1}\ny\nb {\"b\":1, \"c\":1}\nz\na {\"a\":1, \"b\":1}\n", ParseOptions{}, 6,
			`host "a" has the impermissible vector clock {"a":1, "b":1}; from its previous event and the messages it receives it should be {"a":1, "b":1, "c":1}`},
		{"bad json", "x\na {\"a\":x}\n", ParseOptions{}, 2, `cannot parse the vector clock`},
		{"negative", "x\na {\"a\":-1}\n", ParseOptions{}, 2, `is not a non-negative integer`},
		{"fraction", "x\na {\"a\":1.5}\n", ParseOptions{}, 2, `is not a non-negative integer`},
		{"huge", "x\na {\"a\":2147483648}\n", ParseOptions{}, 2, `the entry "a":2147483648 is over the limit of 2147483647 events per host`},
		{"huge negative", "x\na {\"a\":-2147483649}\n", ParseOptions{}, 2, `is not a non-negative integer`},
		{"duplicate key", "x\na {\"a\":1, \"a\":1}\n", ParseOptions{}, 2, `host "a" appears twice`},
		{"trailing", "x\na {\"a\":1} {\"b\":2}\n", ParseOptions{}, 2, `cannot parse`},
		{"no match", "hello\nworld\n", ParseOptions{Regex: DefaultRegex}, 1, `matches no event in the log`},
		{"no layout", "hello\nworld\n", ParseOptions{}, 0, "no line of the form `HOST {CLOCK}`"},
		{"not sure", "x\na {\"a\":1}\ny\nz\nb {\"b\":1}\nw\n", ParseOptions{}, 0, `cannot tell whether each event's text comes before or after`},
		{"junk", "a {\"a\":1}\nx\nno\nclock\nhere\n", ParseOptions{}, 0, `only 1 events but 3 other lines`},
		{"empty", " \n\n", ParseOptions{}, 0, `empty log`},
		{"groups", "x\na {\"a\":1}\n", ParseOptions{Regex: `(?<host>\S+)`}, 0, `lacks the named group(s) clock, event`},
		{"same group", "x\na {\"a\":1}\n", ParseOptions{Regex: `(?<event>.*)\n(?<host>\S*) (?<clock>{.*})(?<host>)`}, 0, `several groups named "host"`},
		{"empty host", "x\n {\"\":1}\n", ParseOptions{}, 1, `empty host name`},
		{"bad utf8 host", "x\na\xff {\"a\":1}\n", ParseOptions{}, 1, `not valid UTF-8`},
		{"bad regex", "x\na {\"a\":1}\n", ParseOptions{Regex: `(?<host>`}, 0, `bad regular expression`},
		{"lookbehind", "x\na {\"a\":1}\n", ParseOptions{Regex: `(?<!x)(?<host>\S+) (?<clock>{.*})(?<event>)`}, 0, `bad regular expression`},
		{"same label", "=== r ===\nx\na {\"a\":1}\n=== r ===\ny\nb {\"b\":1}\n", ParseOptions{Delimiter: `^=== (?<trace>.*) ===$`}, 4, `two executions are labelled "r"`},
		{"empty execution", "=== r ===\nx\na {\"a\":1}\n=== s ===\nno clocks here\n", ParseOptions{Delimiter: `^=== (?<trace>.*) ===$`}, 4, `matches no event in execution "s"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseOne("bad.log", strings.NewReader(tt.log), tt.opts)
			var ie *trace.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("got %v, want an *trace.InputError", err)
			}
			if ie.File != "bad.log" || ie.Line != tt.line || !strings.Contains(ie.Msg, tt.want) {
				t.Errorf("got %q (line %d), want line %d and %q", err, ie.Line, tt.line, tt.want)
			}
		})
	}
}

func TestImportOptionErrors(t *testing.T) {
	log := parseFile(t, filepath.Join(repoTestdata, "basic.log"), ParseOptions{})
	ex := log.Executions[0]
	tests := []struct {
		name string
		opts ImportOptions
		want string
	}{
		{"fail host", ImportOptions{FailAt: []FailPoint{{"z", 1}}}, `no host "z" in the log (hosts: a, b, c)`},
		{"fail n", ImportOptions{FailAt: []FailPoint{{"a", 5}}}, `host "a" has only 4 events`},
		{"periods", ImportOptions{TickPeriod: []trace.Time{1, 2}}, `2 values for 3 processes`},
		{"period zero", ImportOptions{TickPeriod: []trace.Time{0}}, `must be > 0`},
		{"time group", ImportOptions{TimeGroup: "date"}, `no group "date"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := ex.Trace("basic.log", tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want %q", err, tt.want)
			}
		})
	}
}

func TestParseFailPoint(t *testing.T) {
	tests := []struct {
		in   string
		want FailPoint
		err  bool
	}{
		{"node1:3", FailPoint{"node1", 3}, false},
		{"localhost:24468:2", FailPoint{"localhost:24468", 2}, false},
		{"node1", FailPoint{}, true},
		{":3", FailPoint{}, true},
		{"node1:0", FailPoint{}, true},
		{"node1:x", FailPoint{}, true},
	}
	for _, tt := range tests {
		got, err := ParseFailPoint(tt.in)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("ParseFailPoint(%q) = %+v, %v", tt.in, got, err)
		}
	}
}

// TestClockInString accepts the TLA+ module's clocks, JSON inside a
// quoted string, and drops zero entries as ShiViz does.
func TestClockInString(t *testing.T) {
	rc, err := parseClock(`{\"n1\":0,\"n2\":3}`)
	if err != nil || len(rc.keys) != 2 || rc.values[1] != 3 {
		t.Fatalf("got %+v, %v", rc, err)
	}
	log, err := parseOne("x", strings.NewReader("e\nn2 {\"n1\":0, \"n2\":1}\n"), ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c := log.Executions[0].Events[0].Clock; len(c) != 1 || c[0].Value != 1 {
		t.Errorf("zero entry kept: %+v", c)
	}
}

func TestCRLF(t *testing.T) {
	log, err := parseOne("x", strings.NewReader("e1\r\na {\"a\":1}\r\ne2\r\nb {\"a\":1,\"b\":1}  \r\n"), ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ex := log.Executions[0]
	if ex.Messages() != 1 || ex.Events[1].Text != "e2" || ex.Events[1].Line != 3 {
		t.Errorf("messages %d text %q line %d", ex.Messages(), ex.Events[1].Text, ex.Events[1].Line)
	}
}

// parseOne parses one file.
func parseOne(name string, r io.Reader, opts ParseOptions) (*Log, error) {
	return Parse([]Source{{Name: name, R: r}}, opts)
}

// TestLayout: the layout is told from the text, and named; a layout
// that cannot be told is refused rather than shift every text by one.
func TestLayout(t *testing.T) {
	for _, tc := range []struct{ name, log, layout, first string }{
		{"govector", "a {\"a\":1}\ninit\na {\"a\":2}\nsend\n", "GoVector's layout", "init"},
		{"govector after a title", "my log\n\na {\"a\":1}\ninit\na {\"a\":2}\nsend\n", "GoVector's layout (a host and clock line, then the event's text), after a title line", "init"},
		{"shiviz", "init\na {\"a\":1}\nsend\na {\"a\":2}\n", "ShiViz's default layout", "init"},
		{"shiviz after a title", "my log\ninit\na {\"a\":1}\nsend\na {\"a\":2}\n", "ShiViz's default layout (the event's text, then a host and clock line), after a title line", "init"},
		{"first line", GoVectorRegex + "\n\na {\"a\":1}\ninit\n", "the regular expression on its first line", "init"},
		{"given", "a {\"a\":1}\ninit\n", "the regular expression given", "init"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := ParseOptions{}
			if tc.name == "given" {
				opts.Regex = GoVectorRegex
			}
			log, err := parseOne("x.log", strings.NewReader(tc.log), opts)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(log.Layout, tc.layout) || log.Executions[0].Events[0].Text != tc.first {
				t.Errorf("layout %q, first text %q; want %q, %q", log.Layout, log.Executions[0].Events[0].Text, tc.layout, tc.first)
			}
		})
	}
}

// TestMerge: per-process files give the execution of their concatenation.
func TestMerge(t *testing.T) {
	a := "a {\"a\":1}\nsend\na {\"a\":2, \"b\":1}\nrecv\n"
	b := "b {\"b\":1}\nsend\nb {\"a\":1, \"b\":2}\nrecv\n"
	both, err := parseOne("ab", strings.NewReader(a+b), ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	split, err := Parse([]Source{{Name: "a", R: strings.NewReader(a)}, {Name: "b", R: strings.NewReader(b)}}, ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	x, y := both.Executions[0], split.Executions[0]
	tx, _, _ := x.Trace("t", ImportOptions{})
	ty, _, _ := y.Trace("t", ImportOptions{})
	if dumpTrace(tx) != dumpTrace(ty) || x.Messages() != 2 {
		t.Errorf("merged:\n%s\nconcatenated:\n%s", dumpTrace(ty), dumpTrace(tx))
	}
	if _, err := Parse([]Source{{Name: "a", R: strings.NewReader(a)}}, ParseOptions{}); err == nil || !strings.Contains(err.Error(), "a file per process") {
		t.Errorf("one file of two: %v", err)
	}
	_, err = Parse([]Source{{Name: "a", R: strings.NewReader(a)}, {Name: "b", R: strings.NewReader("b {\"b\":1}\nx\nb {\"b\":1}\ny\n")}}, ParseOptions{})
	if err == nil || !strings.Contains(err.Error(), "b: line 3: host \"b\" has two events with clock value 1 (line 1 and line 3)") {
		t.Errorf("error in the second file: %v", err)
	}
}

// TestTracing reads DistributedClocks tracing records.
func TestTracing(t *testing.T) {
	log, err := Parse([]Source{{Name: "t.log", Tracing: true, R: strings.NewReader(
		`{"TracerIdentity":"c","TraceID":7,"Tag":"Send","Body":{"K": 1},"VectorClock":{"c":1}}` + "\n\n" +
			`{"TracerIdentity":"s","TraceID":7,"Tag":"Recv","Body":{},"VectorClock":{"c":1,"s":1}}` + "\n")}}, ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ex := log.Executions[0]
	if ex.Messages() != 1 || ex.Events[0].Text != `Send {"K":1}` || ex.Events[1].Text != "Recv" || ex.Events[1].Line != 3 || ex.Events[1].Fields[0].Value != "7" {
		t.Errorf("%+v", ex.Events)
	}
	for _, bad := range []string{`{"Tag":"x","VectorClock":{"c":1}}`, `not json`, `{"TracerIdentity":"c","Tag":"x"}`} {
		_, err := Parse([]Source{{Name: "t.log", Tracing: true, R: strings.NewReader(bad)}}, ParseOptions{})
		if err == nil || !strings.Contains(err.Error(), "t.log: line 1:") {
			t.Errorf("%s: %v", bad, err)
		}
	}
	// Never a Go type; a trace id as a string is a label like any.
	const rec, not = `{"TracerIdentity":"c","VectorClock":{"c":1}}` + "\n", "t.log: line 2: not a tracing record (a JSON object with TracerIdentity, Tag, Body and VectorClock): "
	for _, tc := range []struct{ line, want string }{
		{`{"TracerIdentity":"c","Tag":5,"VectorClock":{"c":2}}`, not + "its Tag is a JSON number, not a string"},
		{`5`, not + "a JSON number, not an object"},
		{`{"TracerIdentity":"c","Tag":"x","Body":{"K"`, not + "the line ends inside the record: it is cut short"},
		{`{"TracerIdentity" 1}`, not + "malformed JSON: invalid character '1' after object key"},
		{`{"TracerIdentity":"c","TraceID":"str","VectorClock":{"c":2}}`, ""},
	} {
		_, err := Parse([]Source{{Name: "t.log", Tracing: true, R: strings.NewReader(rec + tc.line)}}, ParseOptions{})
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || err.Error() != tc.want) {
			t.Errorf("%s: got %v, want %q", tc.line, err, tc.want)
		}
	}
}

// TestLenient: a clock that forgets what its host knew is refused, or
// with Lenient raised, and the repair noted.
func TestLenient(t *testing.T) {
	log := "s\na {\"a\":1}\nr\nb {\"a\":1, \"b\":1}\nx\nb {\"b\":2}\n"
	if _, err := parseOne("f", strings.NewReader(log), ParseOptions{}); err == nil || !strings.Contains(err.Error(), "line 6: host \"b\" has the impermissible vector clock") {
		t.Fatalf("not lenient: %v", err)
	}
	l, err := parseOne("f", strings.NewReader(log), ParseOptions{Lenient: true})
	if err != nil {
		t.Fatal(err)
	}
	if ex := l.Executions[0]; len(ex.Notes) != 1 || ex.Notes[0] != `repaired line 6: host "b" forgot "a":1, which it knew; raised` || ex.Messages() != 1 {
		t.Errorf("notes %q, %d messages", ex.Notes, ex.Messages())
	}
}

// TestTimeGroupOutOfRange: timestamps farther apart than ckpt's time
// range are refused naming the line of the first event out of range.
func TestTimeGroupOutOfRange(t *testing.T) {
	text := `[INFO] [10/13/2014 04:23:20.113] [d] [akka://Broadcast/user/node0] {"node0" : 1} Sending hello to node1
[INFO] [10/13/2314 04:23:20.113] [d] [akka://Broadcast/user/node1] {"node0" : 1, "node1" : 1} Received hello from node0
`
	log, err := Parse([]Source{{Name: "far.log", R: strings.NewReader(text)}}, ParseOptions{Regex: akkaRegex})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = log.Executions[0].Trace("far.log", ImportOptions{TimeGroup: "date"})
	if err == nil || !strings.Contains(err.Error(), "line 2") || !strings.Contains(err.Error(), "span more than") {
		t.Fatalf("got %v, want the line of the event out of range", err)
	}
}
