package diagram

import "testing"

// TestWindowNote: the note of a windowed diagram reads right whatever
// the counts (it said "the events around 0 of 1 failures").
func TestWindowNote(t *testing.T) {
	for _, tc := range []struct {
		failShown, failures, hidden int
		want                        string
	}{
		{0, 0, 0, "Large run: showing 10 of 99 events — the start of the run; hatched bands mark what is left out."},
		{0, 1, 0, "Large run: showing 10 of 99 events — the start of the run, not the events around its 1 failure; hatched bands mark what is left out."},
		{1, 1, 1, "Large run: showing 10 of 99 events — the start of the run and the events around 1 of 1 failure; hatched bands mark what is left out; 1 message arrow crosses a cut and is not drawn."},
		{2, 3, 4, "Large run: showing 10 of 99 events — the start of the run and the events around 2 of 3 failures; hatched bands mark what is left out; 4 message arrows cross a cut and are not drawn."},
	} {
		m := &model{windowed: true, shown: 10, n: 99, failShown: tc.failShown, failures: tc.failures, hidden: tc.hidden}
		if got := m.windowNote(); got != tc.want {
			t.Errorf("%+v:\n got %s\nwant %s", tc, got, tc.want)
		}
	}
}
