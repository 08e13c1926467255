package consistency_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/codec"

	"github.com/ckpt-dev/ckpt/algorithms"
	"github.com/ckpt-dev/ckpt/internal/golden"
	"github.com/ckpt-dev/ckpt/pipeline"
	"github.com/ckpt-dev/ckpt/render"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/report"
)

// Every example trace verifies clean under every algorithm that is
// available, and its JSON report is pinned.
func TestExamplesVerifyClean(t *testing.T) {
	files, err := filepath.Glob("../testdata/traces/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no example traces: %v", err)
	}
	for _, file := range files {
		tr, err := codec.ReadTraceFile(file)
		if err != nil {
			t.Fatal(err)
		}
		base := strings.TrimSuffix(filepath.Base(file), ".json")
		for _, name := range algorithms.Names {
			t.Run(base+"/"+name, func(t *testing.T) {
				alg, err := algorithms.New(name, "", tr)
				if err != nil {
					t.Skipf("%s not available yet: %v", name, err)
				}
				run, err := replay.Run(tr, alg, replay.Options{})
				if err != nil {
					t.Fatal(err)
				}
				r := pipeline.Report(run, tr)
				r.File = "testdata/traces/" + filepath.Base(file)
				if !r.Valid {
					t.Errorf("%s under %s is invalid:\n%s", file, name, dumpReport(r))
				}
				for _, p := range r.Properties {
					if p.Status == report.Unknown {
						t.Errorf("%s is unknown on a replayed run with its source: %s", p.Name, p.Note)
					}
				}
				var buf bytes.Buffer
				if err := render.Reports(&buf, render.JSON, []report.Report{r}, render.Options{}); err != nil {
					t.Fatal(err)
				}
				golden.Check(t, filepath.Join("golden", base+"."+name+".json"), buf.Bytes())
			})
		}
	}
}
