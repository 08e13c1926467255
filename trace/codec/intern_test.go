package codec

import (
	"bytes"
	"compress/gzip"
	"io"
	"reflect"
	"testing"
)

// onlyReader hides every method but Read, so the decoder gets no size
// hint and its tables grow from empty.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

// TestDecodeHintsAgree decodes the same trace with and without a size
// hint, plain and gzip: the intern table's rehashing, the reserved
// capacity and the ISIZE estimate must not change the result.
func TestDecodeHintsAgree(t *testing.T) {
	data := synthetic(t, 20_000, WriteOptions{JSONL: true})
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if n := gzipSize(bytes.NewReader(gz.Bytes()), int64(gz.Len())); n != int64(len(data)) {
		t.Errorf("gzipSize = %d, want %d", n, len(data))
	}
	want, err := ReadTrace("x", onlyReader{bytes.NewReader(data)})
	if err != nil {
		t.Fatal(err)
	}
	for name, r := range map[string]io.Reader{
		"plain": bytes.NewReader(data),
		"gzip":  bytes.NewReader(gz.Bytes()),
	} {
		got, err := ReadTrace("x", r)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(got.Events, want.Events) || !reflect.DeepEqual(got.Msgs, want.Msgs) || !reflect.DeepEqual(got.Messages, want.Messages) {
			t.Errorf("%s: decoded trace differs from the unhinted decode", name)
		}
		if len(got.Msgs) < 6000 {
			t.Errorf("%s: %d messages, want the table to rehash past 1024 slots", name, len(got.Msgs))
		}
	}
}
