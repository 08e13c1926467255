package compare

import (
	"bytes"
	"context"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/ckpt-dev/ckpt/explore"
	"github.com/ckpt-dev/ckpt/measure"
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen/gentest"
)

// TestAgainstIndependentFigures: on random traces, uncoordinated
// checkpointing's useless checkpoints and ops undone per failure are
// those of SPEC §7's baseline (measure.Uncoordinated and explore's
// baseline, computed from the trace alone); the protocols that promise
// no useless checkpoint have none; forced per basic and bytes per
// message are the quotients of their counts.
func TestAgainstIndependentFigures(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		tr := gentest.Trace().Draw(t, "trace")
		tab, err := Run(tr, Options{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		ff, err := explore.Prepare(tr, trace.Params{}, true)
		if err != nil {
			t.Fatal(err)
		}
		base, err := measure.Uncoordinated(ff)
		if err != nil {
			t.Fatal(err)
		}
		res, err := explore.Run(context.Background(), ff, explore.Options{Algorithms: []string{"ms"}, Failures: 1, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range tab.Rows {
			switch r.Protocol {
			case Uncoordinated:
				if r.Useless != base.Useless {
					t.Fatalf("uncoordinated: %d useless, baseline %d", r.Useless, base.Useless)
				}
				if *r.PerFailure != res.Baseline {
					t.Fatalf("uncoordinated per failure %+v, explore's baseline %+v", *r.PerFailure, res.Baseline)
				}
			case "bcs", "hmnr", "fdas", "ms", "coordinated":
				if r.Useless != 0 {
					t.Fatalf("%s: %d useless checkpoints", r.Protocol, r.Useless)
				}
			}
			if (r.Basic == 0) != (r.ForcedPerBasic == nil) || (r.Basic > 0 && *r.ForcedPerBasic != float64(r.Forced)/float64(r.Basic)) {
				t.Fatalf("%s: forced per basic %v for %d/%d", r.Protocol, r.ForcedPerBasic, r.Forced, r.Basic)
			}
			if r.PerFailure.Failures != int64(tab.Points) {
				t.Fatalf("%s: %d failures, %d points", r.Protocol, r.PerFailure.Failures, tab.Points)
			}
		}
	})
}

// TestOptions: unknown protocols and lists are refused; the default list
// is every protocol, in the documented order.
func TestOptions(t *testing.T) {
	if want := []string{"uncoordinated", "bcs", "fdas", "hmnr", "coordinated", "ms", "pk"}; !slices.Equal(Protocols, want) {
		t.Errorf("Protocols = %v, want %v", Protocols, want)
	}
	for _, c := range []struct {
		in, err string
	}{
		{"bcs,nope", `unknown protocol "nope" (want uncoordinated, bcs, fdas, hmnr, coordinated, ms or pk)`},
		{"bcs,bcs", `protocol "bcs" listed twice`},
		{",", "no protocol listed"},
	} {
		if _, err := ParseProtocols(c.in); err == nil || err.Error() != c.err && !bytes.Contains([]byte(err.Error()), []byte(c.err)) {
			t.Errorf("ParseProtocols(%q) = %v, want %q", c.in, err, c.err)
		}
	}
	if got, err := ParseProtocols(" fdas , ms"); err != nil || !slices.Equal(got, []string{"fdas", "ms"}) {
		t.Errorf("ParseProtocols = %v, %v", got, err)
	}
	if got, err := ParseProtocols("all"); err != nil || !slices.Equal(got, Protocols) {
		t.Errorf("ParseProtocols(all) = %v, %v", got, err)
	}
}
