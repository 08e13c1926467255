// Package replaytest holds test helpers shared by the replay engine's and
// the algorithms' tests: a run as JSON Lines for golden files and for
// finding fragments, and the app events of a trace and its run side by
// side. Random traces come from trace/gen/gentest; the SPEC-conformance
// case harness is algorithms' TestSpec.
package replaytest

import (
	"bytes"
	"strings"

	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/codec"
)

// Dump is the run as JSON Lines (codec.WriteRun), header first, one
// event a line: the form golden files and failure messages use.
func Dump(r *trace.Run) string {
	var b bytes.Buffer
	if err := codec.WriteRun(&b, r, codec.WriteOptions{JSONL: true}); err != nil {
		return "cannot write the run: " + err.Error()
	}
	return b.String()
}

// Lines is Dump's event lines: Lines(r)[i] is event i.
func Lines(r *trace.Run) []string {
	return strings.Split(strings.TrimSuffix(Dump(r), "\n"), "\n")[1:]
}
