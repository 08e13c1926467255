package shiviz

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"testing"

	"github.com/ckpt-dev/ckpt/trace"
)

// realDir is the repository's copy of ShiViz's example logs
// (testdata/imports/shiviz, MIT licence beside them).
func realDir(testing.TB) string { return filepath.Join("..", "..", "testdata", "imports", "shiviz") }

// RealLog describes one log of shared/realtraces/shiviz with the regex its
// README gives.
type realLog struct {
	file, regex, delimiter string
	// per execution: processes, events, messages, skipped lines
	want [][4]int
}

const (
	defaultShape = DefaultRegex
	chordRegex   = `(?<host>\S*) (?<clock>{.*})\n(?<event>.*)`
	ewdRegex     = `^State [0-9]+: <(?<event>\w*) .*>\n\/\\ Host = (?<host>.*)\n\/\\ Clock = "(?<clock>.*)"\n\/\\ active = (?<active>.*)\n\/\\ color = (?<color>.*)\n\/\\ counter = (?<counter>.*)`
	ewdDelim     = `^=== (?<trace>.*) ===$`
)

// The counts were cross-checked with grep: one event per clock line
// (1235 in chord.log, 509, 864, 116, 39; ewd998.log has 991 Clock lines,
// one of them in a state whose lines come in another order, which the
// regex — ShiViz's as well — does not match).
var realLogs = []realLog{
	{"chord.log", chordRegex, "", [][4]int{{8, 1235, 541, 0}}},
	{"simpledb.log", defaultShape, "", [][4]int{{5, 509, 95, 0}}},
	{"voldemort.log", defaultShape, "", [][4]int{{20, 864, 34, 0}}},
	{"reliable-broadcast.log", akkaRegex, "", [][4]int{{4, 116, 48, 1}}},
	{"simple-reliable-broadcast.log", akkaRegex, "", [][4]int{{3, 39, 16, 0}}},
	{"ewd998.log", ewdRegex, ewdDelim, [][4]int{{7, 77, 18, 128}, {5, 248, 73, 310}, {7, 665, 194, 711}}},
}

// TestRealLogs imports every real log, checks its counts, and converts
// each execution with ticks, flushes and failures into a valid trace whose
// sends and receives match the inferred messages.
func TestRealLogs(t *testing.T) {
	dir := realDir(t)
	for _, rl := range realLogs {
		t.Run(rl.file, func(t *testing.T) {
			log := parseFile(t, filepath.Join(dir, rl.file), ParseOptions{Regex: rl.regex, Delimiter: rl.delimiter})
			if len(log.Executions) != len(rl.want) {
				t.Fatalf("%d executions, want %d", len(log.Executions), len(rl.want))
			}
			for i, ex := range log.Executions {
				got := [4]int{len(ex.Hosts), len(ex.Events), ex.Messages(), ex.Skipped}
				if got != rl.want[i] {
					t.Errorf("execution %d (%q): processes, events, messages, skipped = %v, want %v", i, ex.Label, got, rl.want[i])
				}
				opts := ImportOptions{
					TickEvery: 4, FlushEvery: 3,
					FailAt:    []FailPoint{{ex.Hosts[0], 1}},
					FailMatch: regexp.MustCompile("Crashing"),
				}
				tr, st, err := ex.Trace(rl.file, opts)
				if err != nil {
					t.Fatal(err)
				}
				if err := trace.Validate(tr); err != nil {
					t.Fatal(err)
				}
				var sends, recvs, fails int
				for _, ev := range tr.Events {
					switch ev.Kind {
					case trace.Send:
						sends++
					case trace.Recv:
						recvs++
					case trace.Fail:
						fails++
					}
				}
				if sends != ex.Messages() || recvs != ex.Messages() || st.Messages != ex.Messages() {
					t.Errorf("sends %d recvs %d, want %d each", sends, recvs, ex.Messages())
				}
				if fails == 0 || fails != st.Fails {
					t.Errorf("%d failures injected, stats say %d", fails, st.Fails)
				}
			}
		})
	}
}

func BenchmarkImportEWD998(b *testing.B) {
	dir := realDir(b)
	data, err := os.ReadFile(filepath.Join(dir, "ewd998.log"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		log, err := parseOne("ewd998.log", bytes.NewReader(data), ParseOptions{Regex: ewdRegex, Delimiter: ewdDelim})
		if err != nil {
			b.Fatal(err)
		}
		for _, ex := range log.Executions {
			if _, _, err := ex.Trace("ewd998.log", ImportOptions{TickEvery: 4}); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// TestRealCRLF reads each real log whose layout is detected with Windows
// line ends as with Unix ones: GoVector's layout (chord.log) has a line
// break inside its expression, which a \r before it defeated.
func TestRealCRLF(t *testing.T) {
	for _, file := range []string{"chord.log", "simpledb.log", "voldemort.log"} {
		lf, err := os.ReadFile(filepath.Join(realDir(t), file))
		if err != nil {
			t.Fatal(err)
		}
		want := parseFile(t, filepath.Join(realDir(t), file), ParseOptions{})
		got, err := parseOne(file, bytes.NewReader(bytes.ReplaceAll(lf, []byte("\n"), []byte("\r\n"))), ParseOptions{})
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s with CRLF: %v; want it read as with LF", file, err)
		}
	}
}
