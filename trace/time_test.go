package trace

import (
	"math"
	"strings"
	"testing"
)

// TestTimeLimit: MaxTime, its text and FromSeconds agree at the boundary.
func TestTimeLimit(t *testing.T) {
	if !strings.HasPrefix(MaxTimeText, MaxTime.String()+" s (about ") {
		t.Errorf("MaxTimeText %q does not state MaxTime %s", MaxTimeText, MaxTime)
	}
	if years := float64(MaxTime) / 1e9 / (365.25 * 86400); math.Round(years) != 73 {
		t.Errorf("MaxTime is %.1f years", years)
	}
	// Two limits add without overflow: the replay engine relies on it.
	if s := MaxTime + MaxTime; s < 0 || s/2 != MaxTime {
		t.Errorf("MaxTime + MaxTime overflows: %d", s)
	}
	for _, c := range []struct {
		s  float64
		ok bool
	}{
		{0, true},
		{2305843009.2, true},
		{2305843009.2136, true},
		// The float nearest to MaxTime in seconds rounds to 2^61 ns, one
		// past MaxTime: float64(MaxTime) itself is 2^61, so a float
		// comparison alone let it through.
		{float64(MaxTime) / 1e9, false},
		{2305843009.3, false},
		{1e12, false},
		{-1e-9, false},
		{math.Inf(1), false},
		{math.NaN(), false},
	} {
		got, ok := FromSeconds(c.s)
		if ok != c.ok || (ok && (got < 0 || got > MaxTime)) {
			t.Errorf("FromSeconds(%v) = %d, %v; want ok %v", c.s, got, ok, c.ok)
		}
	}
}
