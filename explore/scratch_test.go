package explore

import (
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/ckpt-dev/ckpt/trace"
)

func TestScratch(t *testing.T) {
	for _, f := range []string{"failure-free.json", "forced.json", "orphan.json", "domino.json"} {
		tr, err := trace.ReadTraceFile("../testdata/traces/" + f)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range []Options{{Failures: 1}, {Failures: 2}, {Failures: 2, Variant: "textbook", Algorithms: []string{"ms"}}, {Failures: 1, Delays: true}} {
			start := time.Now()
			r, err := Run(tr, o)
			if err != nil {
				t.Fatal(err)
			}
			el := time.Since(start)
			t.Logf("%s %+v: valid=%v run=%d classes=%v schedules=%v merged=%v %v (%.0f/s)", f, o, r.Valid, r.Scope.Run, r.Scope.Classes, r.Scope.Schedules, r.Scope.Merged, el, float64(r.Scope.Run)/el.Seconds())
			if !r.Valid {
				b, _ := json.MarshalIndent(r, "", " ")
				os.WriteFile("/tmp/xp/"+f+".out.json", b, 0o644)
			}
		}
	}
}
