package shiviz

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/trace"
)

// FuzzParse: no log (text or tracing records, strict or lenient) makes
// Parse panic; every error is an *InputError;
// and whatever Parse accepts converts, with environment events, into a
// trace that validates.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"basic.log", "akka.log", "multi.log"} {
		data, err := os.ReadFile(filepath.Join(repoTestdata, name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(data), false)
	}
	f.Add("x\na {\"a\":1, \"b\":1}\ny\nb {\"a\":1, \"b\":1}\n", false)
	f.Add("e\n {\"\":1}\nf\nb {\"b\":1, \"\":1}\n", false)
	f.Add("=== r ===\nx\na {\"a\":1}\n=== s ===\ny\nb {\"a\":1,\"b\":1}\n", true)
	f.Add(ExportRegex+"\nP0\t{\"P0\":1}\tsend\nP1\t{\"P0\":1,\"P1\":1}\trecv\n", false)
	f.Add(`{"TracerIdentity":"a","Tag":"x","VectorClock":{"a":1}}`+"\n"+`{"TracerIdentity":"b","Tag":"y","Body":[1],"VectorClock":{"a":1,"b":1}}`, true)
	f.Fuzz(func(t *testing.T, log string, flag bool) {
		// flag asks for a delimiter, or for tracing records when the log
		// starts with '{'.
		opts := ParseOptions{Lenient: len(log)%2 == 0}
		tracing := flag && strings.HasPrefix(log, "{")
		if flag && !tracing {
			opts.Delimiter = `^=== (?<trace>.*) ===$`
		}
		l, err := Parse([]Source{{Name: "fuzz.log", R: strings.NewReader(log), Tracing: tracing}}, opts)
		if err != nil {
			var ie *trace.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error %v is not an *InputError", err)
			}
			return
		}
		for _, ex := range l.Executions {
			tr, _, err := ex.Trace("fuzz.log", ImportOptions{TickEvery: 2, FlushEvery: 3, FailAt: []FailPoint{{ex.Hosts[0], 1}}})
			if err != nil {
				t.Fatalf("parsed, but the trace is invalid: %v", err)
			}
			if len(tr.Msgs) != ex.Messages() {
				t.Fatalf("%d messages in the trace, %d inferred", len(tr.Msgs), ex.Messages())
			}
		}
	})
}
