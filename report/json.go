package report

import (
	"bytes"
	"fmt"

	"github.com/goccy/go-json"

	"github.com/ckpt-dev/ckpt/trace"
)

// lineEntryJSON has LineEntry's fields without its methods, so that the
// methods below can use the default encoding for everything but vt.
type lineEntryJSON LineEntry

// MarshalJSON writes a line entry with "vt" as [[inc, count], ...] (SPEC
// §6), or null when the entry has none (MS).
func (e LineEntry) MarshalJSON() ([]byte, error) {
	vt := e.VT
	e.VT = nil
	b, err := json.Marshal(lineEntryJSON(e))
	if err != nil || vt == nil {
		return b, err
	}
	// Inside a JSON string every quote is escaped, so the first
	// unescaped `"vt":null` is the key itself.
	return bytes.Replace(b, []byte(`"vt":null`), appendVT([]byte(`"vt":`), vt), 1), nil
}

func appendVT(b []byte, vt trace.VT) []byte {
	b = append(b, '[')
	for i, x := range vt {
		if i > 0 {
			b = append(b, ',')
		}
		b = fmt.Appendf(b, "[%d,%d]", x.Inc, x.Count)
	}
	return append(b, ']')
}

// UnmarshalJSON reads what MarshalJSON writes.
func (e *LineEntry) UnmarshalJSON(b []byte) error {
	// The outer VT shadows the embedded one (shallower depth wins), so
	// every other field decodes as usual.
	var wire struct {
		*lineEntryJSON
		VT *[][2]int32 `json:"vt"`
	}
	wire.lineEntryJSON = (*lineEntryJSON)(e)
	if err := json.Unmarshal(b, &wire); err != nil {
		return err
	}
	e.VT = nil
	if wire.VT != nil {
		e.VT = make(trace.VT, len(*wire.VT))
		for i, x := range *wire.VT {
			e.VT[i] = trace.VTEntry{Inc: x[0], Count: x[1]}
		}
	}
	return nil
}
