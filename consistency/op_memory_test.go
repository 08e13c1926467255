package consistency

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/codec"
)

// TestLargeOpNumbersCostLinearMemory: a run file of n processes whose
// two events each (an internal op and a log entry) claim op n-1 — the
// decoder accepts any op up to 2^31-1 — is judged in memory linear in
// the file. The builder grew each process's live history and inferred
// program to the op an event claims (Builder.op, learnOp, program), and
// PK's replay rule its stable log (pkLogReplay), so n processes cost n²
// entries: 4,000 events (269 KB) allocated over 160 MB.
func TestLargeOpNumbersCostLinearMemory(t *testing.T) {
	const n = 2000
	var b strings.Builder
	b.WriteString(`{"format":"ckpt/run@1","algorithm":"pk","processes":[`)
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"P%d"`, i)
	}
	b.WriteString(`],"options":{"timing":"recorded"}}` + "\n")
	for i := range n {
		fmt.Fprintf(&b, `{"seq":%d,"t":1,"p":"P%d","kind":"internal","op":%d}`+"\n", 2*i, i, n-1)
		fmt.Fprintf(&b, `{"seq":%d,"t":1,"p":"P%d","kind":"log","msg":"m","copy":1,"op":%d}`+"\n", 2*i+1, i, n-1)
	}
	run, err := codec.ReadRun("big-ops.jsonl", strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	Check(run, nil)
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 32<<20 {
		t.Errorf("checking a %d KB run of %d events allocated %d MB", b.Len()>>10, n, got>>20)
	}
}
