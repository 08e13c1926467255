package explore

import (
	"testing"

	"github.com/ckpt-dev/ckpt/report"
)

// TestVerdictMaskHoldsEveryProperty: a verdict keeps one bit per
// property in a uint16, bit 15 being where propIndex puts a name it does
// not know; every property of the report (rdt included) has its own bit
// below it, and the checker's reports list exactly these properties.
func TestVerdictMaskHoldsEveryProperty(t *testing.T) {
	if len(Properties) >= 15 {
		t.Fatalf("%d properties do not fit a verdict's uint16 below the unknown-name bit 15", len(Properties))
	}
	for i, p := range Properties {
		if propIndex(p) != i {
			t.Errorf("propIndex(%q) = %d, want %d", p, propIndex(p), i)
		}
	}
	if propIndex(report.RDT) != 6 || propIndex("no such property") != 15 {
		t.Errorf("rdt at bit %d, an unknown name at %d", propIndex(report.RDT), propIndex("no such property"))
	}
	tr := readTrace(t, "../testdata/traces/forced.json")
	e, err := newEngine(nil, "ms", "", tr)
	if err != nil {
		t.Fatal(err)
	}
	var v verdict
	if err := fromScratch(e, tr, &v); err != nil {
		t.Fatal(err)
	}
	if want := uint16(1)<<propIndex(report.RDT) | uint16(1)<<propIndex(report.MinimalRollback); v.na != want || v.fails != 0 || v.unknown != 0 {
		t.Errorf("ms on forced.json: na %016b fails %016b unknown %016b, want na %016b", v.na, v.fails, v.unknown, want)
	}
}
