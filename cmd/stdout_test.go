package cmd

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// full is a standard output that cannot be written, like /dev/full.
type full struct{}

func (full) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// A command whose output cannot be written says so and exits 2: a
// script that reads validate's summary lines must not take an empty
// output with status 0 for success.
func TestStdoutWriteErrors(t *testing.T) {
	trace := "../testdata/traces/forced.json"
	for _, args := range [][]string{
		{"validate", trace},
		{"verify", "-q", trace},
	} {
		var stderr bytes.Buffer
		code := Main(args, nil, full{}, &stderr)
		if code != ExitInvalid || !strings.Contains(stderr.String(), "no space left on device") {
			t.Errorf("%v: exit %d, stderr %q; want exit %d naming the write error", args, code, stderr.String(), ExitInvalid)
		}
	}
}
