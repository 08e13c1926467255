package consistency

import (
	"testing"

	"github.com/ckpt-dev/ckpt/trace"
)

// TestPiggybackBytes: stats.piggyback_bytes counts every algorithm's
// piggyback by one definition (trace.Piggyback.Bytes, as ckpt compare
// does): 4 bytes a number, 8 an F or VT entry, a bit an HMNR flag —
// FDAS's and HMNR's vectors included.
func TestPiggybackBytes(t *testing.T) {
	tr := rdtTrace(t) // 3 processes, 2 messages
	for _, tc := range []struct {
		algo string
		want int64
	}{
		{"bcs", 2 * 4},              // lc (as MS's sn), F empty
		{"fdas", 2 * 3 * 4},         // D, one entry per process
		{"hmnr", 2 * (4 + 3*4 + 1)}, // lc, ckpt[3], taken and greater (6 bits)
		{"coordinated", 0},          // nothing piggybacked
		{"ms", 2 * 4},               // sn, F empty
		{"pk", 2 * 3 * 8},           // VT, one (inc, count) a process
	} {
		run := protocolRun(t, tc.algo, "", tr)
		var sum int64
		for i := range run.Events {
			if e := &run.Events[i]; e.Kind == trace.Send {
				sum += run.PB(e).Bytes()
			}
		}
		got := measured(run, tr).Stats.PiggybackBytes
		if got != tc.want || sum != tc.want {
			t.Errorf("%s: piggyback_bytes %d (sum of Bytes %d), want %d", tc.algo, got, sum, tc.want)
		}
	}
}
