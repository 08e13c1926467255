package trace

import "testing"

// TestParse: every name an enum writes parses back to its value, and
// anything else to the zero value (none); an enum Parse has no table
// for would fail here, not parse every name as none.
func TestParse(t *testing.T) {
	roundTrip(t, Parse[Kind], numKinds)
	roundTrip(t, Parse[Via], Via(len(viaNames)))
	roundTrip(t, Parse[CkptType], CkptType(len(ckptTypeNames)))
	roundTrip(t, Parse[Reason], Reason(len(reasonNames)))
	roundTrip(t, Parse[Cause], Cause(len(causeNames)))
	roundTrip(t, Parse[Control], Control(len(controlNames)))
	roundTrip(t, Parse[EndState], EndState(len(stateNames)))
}

func roundTrip[E interface {
	~uint8
	String() string
}](t *testing.T, parse func(string) E, end E) {
	t.Helper()
	for e := E(1); e < end; e++ {
		if got := parse(e.String()); got != e {
			t.Errorf("Parse(%q) = %v, want %v", e.String(), got, e)
		}
	}
	if got := parse("nonsense"); got != 0 {
		t.Errorf("Parse(nonsense) = %v, want none", got)
	}
}
