package render

import (
	"bytes"
	"io"

	"github.com/goccy/go-json"
)

// WriteJSON writes v as ckpt writes every JSON report (verify's,
// explore's, compare's): with github.com/goccy/go-json, indented two
// spaces, with a trailing newline, and without HTML escaping — messages
// quote trace text such as "a < b", and \u003c would only make them
// harder to read. Its output is byte for byte encoding/json's with the
// same settings (TestWriteJSONIsEncodingJSON). Nothing is written if v
// cannot be encoded.
func WriteJSON(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}
