package consistency

import (
	"fmt"
	"strings"
	"testing"
)

// TestLazyWitnesses: a result formats the witnesses it keeps only, and
// counts every violation. 10,000 violations through fail, failChain and
// failed call the text functions maxWitnesses times in all, and the
// note says how many there were.
func TestLazyWitnesses(t *testing.T) {
	const n = 10000
	r := newResult("p")
	calls := 0
	for i := range n {
		seq := int32(i)
		switch i % 3 {
		case 0:
			r.fail([]int32{seq}, func() (string, string) {
				calls++
				return fmt.Sprintf("violation %d", seq), "because"
			})
		case 1:
			r.failChain(func() (string, []int32, string) {
				calls++
				return fmt.Sprintf("violation %d", seq), []int32{seq}, "because"
			})
		default:
			r.failed(fmt.Sprintf("violation %d", seq), []int32{seq}, "because")
		}
	}
	if calls > maxWitnesses {
		t.Errorf("text formatted %d times, want at most %d", calls, maxWitnesses)
	}
	p := r.property()
	if len(p.Violations) != maxWitnesses || p.Violations[maxWitnesses-1].Message != fmt.Sprintf("violation %d", maxWitnesses-1) {
		t.Fatalf("kept %d witnesses, the last %+v; want the first %d", len(p.Violations), p.Violations[len(p.Violations)-1], maxWitnesses)
	}
	if want := fmt.Sprintf("%d violations, the first %d shown", n, maxWitnesses); p.Note != want {
		t.Errorf("note %q, want %q", p.Note, want)
	}
}

// TestLazyWitnessAllocs: once a result holds maxWitnesses witnesses, a
// further violation allocates nothing, however much its text would.
func TestLazyWitnessAllocs(t *testing.T) {
	r := newResult("p")
	text := func() (string, string) {
		return fmt.Sprintf("violation %d", r.count), strings.Repeat("because ", 100)
	}
	for range maxWitnesses {
		r.fail([]int32{1, 2}, text)
	}
	allocs := testing.AllocsPerRun(10000, func() {
		r.fail([]int32{1, 2}, text)
	})
	if allocs != 0 {
		t.Errorf("a violation past the cap allocates %v times, want 0", allocs)
	}
	if r.count != maxWitnesses+10001 {
		t.Errorf("count %d, want %d", r.count, maxWitnesses+10001)
	}
}
