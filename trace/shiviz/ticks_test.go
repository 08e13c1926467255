package shiviz

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ckpt-dev/ckpt/trace"
)

// TestTicksManyProcesses: --tick-period's cost grows with ticks and
// events, not ticks × processes (redteam11 R11: 40,000 hosts took 48 s).
// 20,000 hosts of one event each and 500,000 ticks took 9 s, scanning
// every process per tick; ticks still come in time order, ties by process.
func TestTicksManyProcesses(t *testing.T) {
	var b strings.Builder
	for h := range 20000 {
		fmt.Fprintf(&b, "e\nh%d {\"h%d\":1}\n", h, h)
	}
	log, err := parseOne("many.log", strings.NewReader(b.String()), ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	tr, st, err := log.Executions[0].Trace("many.log", ImportOptions{TickPeriod: []trace.Time{800 * trace.Second}})
	if took := time.Since(start); err != nil || st.Ticks != 500000 || took > 2*time.Second {
		t.Fatalf("%d ticks in %s, %v; want 500000 in well under 2 s", st.Ticks, took, err)
	}
	var last trace.Event
	for _, ev := range tr.Events {
		if ev.Kind == trace.Checkpoint {
			if ev.T < last.T || ev.T == last.T && ev.P <= last.P {
				t.Fatalf("tick of P%d at %s after P%d's at %s", ev.P, ev.T, last.P, last.T)
			}
			last = ev
		}
	}
}
