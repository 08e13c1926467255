package diagram

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/codec"

	"github.com/ckpt-dev/ckpt/pipeline"
)

// FuzzDiagram: any run the decoder accepts is drawn without panicking,
// as well-formed XML, windowed or not.
func FuzzDiagram(f *testing.F) {
	seeds, _ := filepath.Glob("../algorithms/pk/testdata/*.run.jsonl")
	for _, s := range seeds {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(b, uint8(0))
		}
	}
	for _, alg := range []string{"ms", "pk"} {
		for _, ex := range []string{"forced.json", "orphan.json"} {
			run, _ := replayed(f, readExample(f, ex), alg)
			var b bytes.Buffer
			if err := codec.WriteRun(&b, run, codec.WriteOptions{JSONL: true}); err != nil {
				f.Fatal(err)
			}
			f.Add(b.Bytes(), uint8(7))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, max uint8) {
		run, err := codec.ReadRun("fuzz", bytes.NewReader(data))
		if err != nil {
			return
		}
		rep := pipeline.Report(run, nil)
		var b bytes.Buffer
		if err := svgOf(&b, run, &rep, Options{MaxEvents: int(max%32) + 1}); err != nil {
			return
		}
		parseSVG(t, b.Bytes())
		if err := htmlOf(io.Discard, run, &rep, Options{}); err != nil {
			t.Fatal(err)
		}
	})
}
