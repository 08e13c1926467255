package report

import (
	"github.com/goccy/go-json"

	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/codec"
)

// VT is the vector time of a restored checkpoint (PK): trace.VT, which
// has no JSON of its own, written as SPEC §6 writes it, [[inc, count],
// ...], or null when the entry has none (MS).
type VT trace.VT

// MarshalJSON writes the vector as pairs.
func (vt VT) MarshalJSON() ([]byte, error) {
	if vt == nil {
		return []byte("null"), nil
	}
	return codec.AppendVT(nil, trace.VT(vt)), nil // the run file's form
}

// UnmarshalJSON reads what MarshalJSON writes.
func (vt *VT) UnmarshalJSON(b []byte) error {
	var pairs [][2]int32
	if err := json.Unmarshal(b, &pairs); err != nil {
		return err
	}
	*vt = nil
	if pairs != nil {
		*vt = make(VT, len(pairs))
		for i, x := range pairs {
			(*vt)[i] = trace.VTEntry{Inc: x[0], Count: x[1]}
		}
	}
	return nil
}
