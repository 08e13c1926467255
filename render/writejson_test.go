package render

import (
	"bytes"
	stdjson "encoding/json"
	"github.com/ckpt-dev/ckpt/report"
	"math"
	"math/big"
	"testing"

	"pgregory.net/rapid"

	"github.com/ckpt-dev/ckpt/trace"
)

// stdJSON is what WriteJSON wrote when it was encoding/json.
func stdJSON(v any) (string, error) {
	var b bytes.Buffer
	enc := stdjson.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	return b.String(), err
}

// jsonSample has the shapes ckpt's reports hold: strings from traces
// (any bytes), floats (ratios, means), big integers (schedule counts),
// pointers that may be null, nil and empty slices, maps, values with
// their own MarshalJSON (line entries), and the trace's Time.
type jsonSample struct {
	Text    string             `json:"text"`
	Texts   []string           `json:"texts"`
	Floats  []float64          `json:"floats"`
	Ratio   *float64           `json:"ratio"`
	Count   *big.Int           `json:"count"`
	Ints    []int64            `json:"ints,omitempty"`
	Names   map[string]int     `json:"names"`
	Line    []report.LineEntry `json:"line"`
	Time    trace.Time         `json:"time"`
	Nested  map[string]any     `json:"nested"`
	Empty   []int              `json:"empty"`
	Nothing map[string]string  `json:"nothing"`
}

// TestWriteJSONIsEncodingJSON: goccy/go-json, as WriteJSON sets it up,
// writes what encoding/json wrote with the same settings — escapes
// (U+2028, control characters, invalid UTF-8, no HTML escaping), float
// spelling, map order, indentation of MarshalJSON output — so moving
// the reports onto it changed no byte (docs/reports.md).
func TestWriteJSONIsEncodingJSON(t *testing.T) {
	special := []float64{0, math.Copysign(0, -1), 1e20, 1e21, 1e-6, 1e-7, 0.1, 2.5e-7, 123456789.123,
		math.MaxFloat64, math.SmallestNonzeroFloat64, 0.30000000000000004, 1.0 / 3}
	text := rapid.OneOf(rapid.String(), rapid.StringOf(rapid.RuneFrom([]rune("<>&\"\\\u2028\u2029\x00\x1f\x7fé😀\ufffd"))),
		rapid.Map(rapid.SliceOf(rapid.Byte()), func(b []byte) string { return string(b) }))
	rapid.Check(t, func(t *rapid.T) {
		f := rapid.Float64().Draw(t, "ratio")
		s := jsonSample{
			Text:   text.Draw(t, "text"),
			Texts:  rapid.SliceOf(text).Draw(t, "texts"),
			Floats: append(rapid.SliceOf(rapid.Float64()).Draw(t, "floats"), special...),
			Count:  new(big.Int).Lsh(big.NewInt(rapid.Int64().Draw(t, "count")), uint(rapid.IntRange(0, 100).Draw(t, "shift"))),
			Ints:   rapid.SliceOf(rapid.Int64()).Draw(t, "ints"),
			Names:  rapid.MapOf(text, rapid.Int()).Draw(t, "names"),
			Line: []report.LineEntry{{P: text.Draw(t, "p"), Restore: i32(2), VT: report.VT{{Inc: 1, Count: 2}}},
				{P: text.Draw(t, "p2")}},
			Time:   trace.Time(rapid.Int64Range(0, int64(trace.MaxTime)).Draw(t, "t")),
			Nested: map[string]any{"z": []any{1.5, "<a>", nil, true}, "a": map[string]any{}},
			Empty:  []int{},
		}
		if rapid.Bool().Draw(t, "ratio?") && !math.IsNaN(f) && !math.IsInf(f, 0) {
			s.Ratio = &f
		}
		for i, x := range s.Floats {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				s.Floats[i] = 0 // neither encoder takes them
			}
		}
		want, err := stdJSON([]jsonSample{s})
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := WriteJSON(&got, []jsonSample{s}); err != nil {
			t.Fatal(err)
		}
		if got.String() != want {
			t.Fatalf("goccy/go-json wrote\n%s\nencoding/json\n%s", got.String(), want)
		}
	})
}

// TestWriteJSONReportsIsEncodingJSON: the same for the reports of the
// fixtures, error entries included.
func TestWriteJSONReportsIsEncodingJSON(t *testing.T) {
	reports := append(append(cleanPair(), violatingPair()...), report.Report{File: "x<y>.json", Verdict: report.VerdictError, Error: "run event 3: \"pb.dv\" must have one entry per process (2), not 1"})
	var got bytes.Buffer
	out := reportsJSON(reports)
	if err := WriteJSON(&got, out); err != nil {
		t.Fatal(err)
	}
	want, err := stdJSON(out)
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != want {
		t.Fatalf("goccy/go-json wrote\n%s\nencoding/json\n%s", got.String(), want)
	}
}
